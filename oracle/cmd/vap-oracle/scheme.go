package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	sigsyaml "sigs.k8s.io/yaml"

	// The API groups kube-apiserver serves, registered into legacyscheme.Scheme exactly as
	// k8s.io/kubernetes/pkg/controlplane/import_known_versions.go registers them (that package
	// itself links every registry and storage backend, which the oracle does not need).
	_ "k8s.io/kubernetes/pkg/apis/admission/install"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apiserverinternal/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/authentication/install"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/extensions/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/imagepolicy/install"
	_ "k8s.io/kubernetes/pkg/apis/lifecycle/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"
)

// strictSerializer is the JSON serializer the API server decodes a request body with when the
// request asks for strict field validation (kubectl's default): unknown and duplicate fields are
// reported as a runtime.StrictDecodingError beside the decoded object
// (k8s.io/apiserver/pkg/endpoints/handlers/create.go picks `StrictSerializer`).
var strictSerializer = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, legacyscheme.Scheme, legacyscheme.Scheme, kjson.SerializerOptions{Strict: true})

// internalDecoder decodes to the group's internal (hub) version through a versioning codec that
// runs the scheme's defaulters on the versioned object first: what the API server's handlers do
// with `scope.Serializer.DecoderToVersion(serializer, scope.HubGroupVersion)`.
var internalDecoder = legacyscheme.Codecs.DecoderToVersion(strictSerializer, runtime.InternalGroupVersioner)

// restMapper maps the built-in kinds to resources. Without a running server there is no
// discovery document; apimachinery's TestOnlyStaticRESTMapper guesses each plural from its kind
// (as `meta.UnsafeGuessKindToResource` does) over the scheme's types, which is what Kubernetes'
// own offline tests of the policy plugins use. `vap-oracle serve` has the real mapping.
var restMapper = testrestmapper.TestOnlyStaticRESTMapper(legacyscheme.Scheme)

// document is one YAML document of an input file.
type document struct {
	path  string
	index int
	json  []byte
	typ   metav1.TypeMeta
	name  string
	ns    string
}

// readDocuments splits a file into its YAML documents, converted to JSON as kubectl converts
// them before sending (sigs.k8s.io/yaml); empty documents are skipped.
func readDocuments(fs files, path string) ([]document, error) {
	data, err := fs.read(path)
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []document
	for i := 0; ; i++ {
		chunk, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(bytes.TrimSpace(chunk)) == 0 {
			continue
		}
		js, err := sigsyaml.YAMLToJSON(chunk)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, i, err)
		}
		if string(bytes.TrimSpace(js)) == "null" {
			continue
		}
		// kubectl sends the items of a v1 List one by one (its resource builder flattens lists).
		var list struct {
			Kind  string            `json:"kind"`
			Items []json.RawMessage `json:"items"`
		}
		if json.Unmarshal(js, &list) == nil && list.Kind == "List" {
			for _, item := range list.Items {
				out = append(out, newDocument(path, i, item))
			}
			continue
		}
		out = append(out, newDocument(path, i, js))
	}
	return out, nil
}

func newDocument(path string, index int, js []byte) document {
	{
		doc := document{path: path, index: index, json: js}
		var head struct {
			metav1.TypeMeta `json:",inline"`
			Metadata        struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(js, &head)
		doc.typ = head.TypeMeta
		doc.name = head.Metadata.Name
		doc.ns = head.Metadata.Namespace
		return doc
	}
}

func (d document) gvk() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(d.typ.APIVersion, d.typ.Kind)
}

// builtin tells whether the scheme knows the document's kind (else it is a custom resource or
// unknown).
func (d document) builtin() bool {
	return legacyscheme.Scheme.Recognizes(d.gvk())
}

// decodeInternal decodes a built-in object as the API server decodes a request body: strict,
// defaulted, converted to the internal version. The strict decoding error (unknown or duplicate
// fields) comes back beside the object.
func decodeInternal(d document) (runtime.Object, error, error) {
	obj, _, err := internalDecoder.Decode(d.json, nil, nil)
	if err != nil {
		if runtime.IsStrictDecodingError(err) && obj != nil {
			return obj, err, nil
		}
		return nil, nil, err
	}
	return obj, nil, nil
}

// toVersion converts an internal object to the given version (as the server encodes a response
// or as admission's VersionedAttributes converts for a policy).
func toVersion(obj runtime.Object, gvk schema.GroupVersionKind) (runtime.Object, error) {
	out, err := legacyscheme.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := legacyscheme.Scheme.Convert(obj, out, nil); err != nil {
		return nil, err
	}
	out.GetObjectKind().SetGroupVersionKind(gvk)
	return out, nil
}

// decodeVersioned decodes a built-in object to its own version, defaulted and round-tripped
// through the internal version (as stored and read back).
func decodeVersioned(d document) (runtime.Object, error) {
	internal, _, err := decodeInternal(d)
	if err != nil {
		return nil, err
	}
	return toVersion(internal, d.gvk())
}

// decodeUnstructured is how the API server holds a custom resource.
func decodeUnstructured(d document) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(d.json); err != nil {
		return nil, err
	}
	return u, nil
}

// toJSONMap renders any object as its JSON (for printing).
func toJSONMap(obj runtime.Object) (map[string]any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.UnstructuredContent(), nil
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// crdsOf collects the CustomResourceDefinitions among documents.
func crdsOf(docs []document) []*apiextensionsv1.CustomResourceDefinition {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, d := range docs {
		if d.typ.Kind == "CustomResourceDefinition" && d.typ.APIVersion == "apiextensions.k8s.io/v1" {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := json.Unmarshal(d.json, crd); err == nil {
				out = append(out, crd)
			}
		}
	}
	return out
}

// mapperWith adds the CRDs' kinds to the built-in REST mapping (what the server's discovery
// would list once the CRDs are established).
func mapperWith(crds []*apiextensionsv1.CustomResourceDefinition) meta.RESTMapper {
	if len(crds) == 0 {
		return restMapper
	}
	extra := meta.NewDefaultRESTMapper(nil)
	for _, crd := range crds {
		scope := meta.RESTScopeNamespace
		if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
			scope = meta.RESTScopeRoot
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			plural := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}
			singular := plural
			singular.Resource = strings.ToLower(crd.Spec.Names.Singular)
			if singular.Resource == "" {
				singular.Resource = strings.ToLower(crd.Spec.Names.Kind)
			}
			extra.AddSpecific(gvk, plural, singular, scope)
		}
	}
	return meta.MultiRESTMapper{extra, restMapper}
}

// options is a tiny parser for vap-lsp's command lines: positional arguments and `--name value`
// / `--name=value` options, some repeatable, some flags.
type options struct {
	positional []string
	values     map[string][]string
}

func parseOptions(args []string, flags map[string]bool) (options, error) {
	o := options{values: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") || a == "--" {
			o.positional = append(o.positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		isFlag, known := flags[name]
		if !known {
			return o, fmt.Errorf("unknown option --%s", name)
		}
		if isFlag {
			o.values[name] = append(o.values[name], "true")
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return o, fmt.Errorf("option --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		o.values[name] = append(o.values[name], value)
	}
	return o, nil
}

func (o options) one(name string) string {
	v := o.values[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}
