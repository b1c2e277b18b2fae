"""Offline admission: ValidatingAdmissionPolicy / MutatingAdmissionPolicy with their bindings,
evaluated against sample objects exactly as the API server's admission plugins do."""
