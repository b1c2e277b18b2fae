package main

import (
	"sync"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

type crdList []*apiextensionsv1.CustomResourceDefinition

// find returns the CRD serving gvk's group and kind, and whether gvk's version is served.
func (c crdList) find(gvk schema.GroupVersionKind) (*apiextensionsv1.CustomResourceDefinition, bool) {
	for _, crd := range c {
		if crd.Spec.Group != gvk.Group || crd.Spec.Names.Kind != gvk.Kind {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == gvk.Version && v.Served {
				return crd, true
			}
		}
		return crd, false
	}
	return nil, false
}

// structural is the structural schema the CRD handler builds for a version
// (apiextensions-apiserver/pkg/apiserver/customresource_handler.go getOrCreateServingInfoFor):
// converted to internal, NewStructural, defaults pruned.
func structural(crd *apiextensionsv1.CustomResourceDefinition, version string) *structuralschema.Structural {
	for _, v := range crd.Spec.Versions {
		if v.Name != version || v.Schema == nil {
			continue
		}
		internal := &apiextensionsinternal.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
			return nil
		}
		s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			return nil
		}
		if !crd.Spec.PreserveUnknownFields {
			s = s.DeepCopy()
			if err := structuraldefaulting.PruneDefaults(s); err != nil {
				return nil
			}
		}
		return s
	}
	return nil
}

// defaultCustomResource prunes unknown fields and applies the schema's defaults, as the CRD
// handler's decoder does for a custom resource (schemaCoercingDecoder prunes,
// unstructuredDefaulter defaults with structuraldefaulting.Default).
func (c crdList) defaultCustomResource(u *unstructured.Unstructured) {
	crd, served := c.find(u.GroupVersionKind())
	if crd == nil || !served {
		return
	}
	s := structural(crd, u.GroupVersionKind().Version)
	if s == nil {
		return
	}
	if !crd.Spec.PreserveUnknownFields {
		structuralpruning.PruneWithOptions(u.Object, s, true, structuralschema.UnknownFieldPathOptions{})
	}
	structuraldefaulting.Default(u.Object, s)
}

// crObjectInterfaces are the ObjectInterfaces the CRD handler gives admission for a custom
// resource: unstructured creation, conversion between the served versions (strategy None: only
// apiVersion changes, as apiextensions' nopConverter does), structural defaulting, and the
// equivalence of the CRD's served versions (customresource_handler.go registers each served
// version's resource in its EquivalentResourceRegistry).
type crObjectInterfaces struct {
	crds       crdList
	equivalent runtime.EquivalentResourceMapper
}

func (o *crObjectInterfaces) GetObjectCreater() runtime.ObjectCreater { return o }
func (o *crObjectInterfaces) GetObjectTyper() runtime.ObjectTyper     { return unstructuredTyper{} }
func (o *crObjectInterfaces) GetObjectDefaulter() runtime.ObjectDefaulter {
	return o
}
func (o *crObjectInterfaces) GetObjectConvertor() runtime.ObjectConvertor { return o }
func (o *crObjectInterfaces) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return o.equivalent
}

func (o *crObjectInterfaces) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kind)
	return u, nil
}

func (o *crObjectInterfaces) Default(in runtime.Object) {
	if u, ok := in.(*unstructured.Unstructured); ok {
		crd, served := o.crds.find(u.GroupVersionKind())
		if crd != nil && served {
			if s := structural(crd, u.GroupVersionKind().Version); s != nil {
				structuraldefaulting.Default(u.Object, s)
			}
		}
	}
}

func (o *crObjectInterfaces) Convert(in, out, context interface{}) error {
	uin, ok1 := in.(*unstructured.Unstructured)
	uout, ok2 := out.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return legacyscheme.Scheme.Convert(in, out, context)
	}
	gvk := uout.GroupVersionKind()
	uout.Object = runtime.DeepCopyJSON(uin.Object)
	if !gvk.Empty() {
		uout.SetGroupVersionKind(gvk)
	}
	return nil
}

func (o *crObjectInterfaces) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return legacyscheme.Scheme.ConvertToVersion(in, gv)
	}
	target, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	out := u.DeepCopy()
	if ok {
		out.SetGroupVersionKind(target)
	}
	return out, nil
}

func (o *crObjectInterfaces) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

type unstructuredTyper struct{}

func (unstructuredTyper) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	return []schema.GroupVersionKind{obj.GetObjectKind().GroupVersionKind()}, false, nil
}
func (unstructuredTyper) Recognizes(gvk schema.GroupVersionKind) bool { return true }

var (
	builtinInterfacesOnce sync.Once
	builtinInterfaces     admission.ObjectInterfaces
)

// objectInterfacesFor is what admission gets for a request's kind: the legacy scheme for a
// built-in kind (its convertor, defaulter, creater, typer), the CRD's for a custom resource.
//
// The equivalence of resources: the server registers every resource it serves in its
// EquivalentResourceRegistry while installing the API groups (endpoints/installer.go), keyed
// by storage prefix; which versions of a built-in group are served is decided by the storage
// configuration of k8s.io/kubernetes/pkg/controlplane, which this oracle does not link, so a
// built-in resource is equivalent here only to itself (`vap-oracle serve` has the real table).
// A CRD's served versions are equivalent to each other as in the CRD handler.
func objectInterfacesFor(gvk schema.GroupVersionKind, crds crdList) admission.ObjectInterfaces {
	if legacyscheme.Scheme.Recognizes(gvk) || gvk.Empty() {
		builtinInterfacesOnce.Do(func() {
			builtinInterfaces = admission.NewObjectInterfacesFromScheme(legacyscheme.Scheme)
		})
		return builtinInterfaces
	}
	registry := runtime.NewEquivalentResourceRegistry()
	if crd, _ := crds.find(gvk); crd != nil {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}
			kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			registry.RegisterKindFor(gvr, "", kind)
			if v.Subresources != nil && v.Subresources.Status != nil {
				registry.RegisterKindFor(gvr, "status", kind)
			}
		}
	}
	return &crObjectInterfaces{crds: crds, equivalent: registry}
}

// annotatedAttributes records the audit annotations admission adds (the server reads them back
// into the audit event through a private interface of attributesRecord).
type annotatedAttributes struct {
	admission.Attributes
	mu          sync.Mutex
	annotations map[string]string
}

func (a *annotatedAttributes) AddAnnotation(key, value string) error {
	if err := a.Attributes.AddAnnotation(key, value); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.annotations == nil {
		a.annotations = map[string]string{}
	}
	a.annotations[key] = value
	return nil
}

// newAttributes is the admission record of a request: kind and resource from the REST mapping
// (the CRDs' kinds added), namespace and name from the object (or the old one).
func newAttributes(obj, old runtime.Object, gvk schema.GroupVersionKind, op admission.Operation, subresource string, userInfo user.Info, crds crdList) (*annotatedAttributes, schema.GroupVersionResource) {
	var gvr schema.GroupVersionResource
	var namespaced = true
	if !gvk.Empty() {
		if mapping, err := mapperWith(crds).RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
			gvr = mapping.Resource
			namespaced = mapping.Scope.Name() == meta.RESTScopeNameNamespace
		}
	}
	var name, namespace string
	for _, o := range []runtime.Object{obj, old} {
		if o == nil {
			continue
		}
		if accessor, err := meta.Accessor(o); err == nil {
			name, namespace = accessor.GetName(), accessor.GetNamespace()
			break
		}
	}
	if !namespaced {
		namespace = ""
	}
	record := admission.NewAttributesRecord(obj, old, gvk, namespace, name, gvr, subresource, op, nil, false, userInfo)
	return &annotatedAttributes{Attributes: record}, gvr
}
