"""Policies kube-apiserver loads at start-up: static manifests (KEP-5793).

From Kubernetes 1.36 (alpha, `ManifestBasedAdmissionControlConfig`; beta and on by default
from 1.37) the ValidatingAdmissionPolicy and MutatingAdmissionPolicy admission plugins read
policies and bindings from the `staticManifestsDir` of their configuration before
kube-apiserver serves anything; an error in the first load keeps it from starting. Modules:

* `gate`: which versions have it, and the names the loader's messages quote;
* `reader`: which files of the folder are read, and how each is cut into documents;
* `decode`: what the loader's decoder makes of a document, in its words;
* `loader`: a folder checked as the plugin loads it, with the engine's normal checks;
* `admission_config`: `--admission-control-config-file` and the folders it names;
* `api`: what the command line and the server call.
"""
