package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"
)

var (
	builtinResolverOnce sync.Once
	builtinResolver     *resolver.DefinitionsSchemaResolver
)

// builtinSchemas resolves the built-in kinds' schemas from the OpenAPI definitions generated into
// k8s.io/kubernetes, as upstream's offline tests of the type checker do
// (pkg/controller/validatingadmissionpolicystatus/controller_test.go).
func builtinSchemas() *resolver.DefinitionsSchemaResolver {
	builtinResolverOnce.Do(func() {
		builtinResolver = resolver.NewDefinitionsSchemaResolver(generatedopenapi.GetOpenAPIDefinitions, legacyscheme.Scheme)
	})
	return builtinResolver
}

// crdSchemaResolver resolves a CRD's kind the way resolver.ClientDiscoveryResolver does against
// a server: from the OpenAPI v3 document the server serves for the CRD's group-version, which
// apiextensions' openapi controller builds with builder.BuildOpenAPIV3 (Options{V2: false});
// the schema carrying the kind's x-kubernetes-group-version-kind with its refs populated.
type crdSchemaResolver struct {
	crds []*apiextensionsv1.CustomResourceDefinition
}

func (r crdSchemaResolver) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	for _, crd := range r.crds {
		if crd.Spec.Group != gvk.Group || crd.Spec.Names.Kind != gvk.Kind {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name != gvk.Version || !v.Served {
				continue
			}
			doc, err := builder.BuildOpenAPIV3(crd, v.Name, builder.Options{V2: false})
			if err != nil {
				return nil, err
			}
			schemas := doc.Components.Schemas
			for ref, s := range schemas {
				var gvks []schema.GroupVersionKind
				if err := s.Extensions.GetObject("x-kubernetes-group-version-kind", &gvks); err != nil {
					return nil, err
				}
				for _, g := range gvks {
					if g == gvk {
						return resolver.PopulateRefs(func(ref string) (*spec.Schema, bool) {
							s, ok := schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
							return s, ok
						}, ref)
					}
				}
			}
		}
	}
	return nil, fmt.Errorf("cannot resolve %v: %w", gvk, resolver.ErrSchemaNotFound)
}

// schemaResolver is the built-in definitions combined with the CRDs given, as a server with those
// CRDs installed would resolve kinds for the type checker.
func schemaResolver(crds []*apiextensionsv1.CustomResourceDefinition) resolver.SchemaResolver {
	if len(crds) == 0 {
		return builtinSchemas()
	}
	return builtinSchemas().Combine(crdSchemaResolver{crds: crds})
}

// loadCRDFiles reads CRDs from --crd files.
func loadCRDFiles(fs files, paths []string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, p := range paths {
		docs, err := readDocuments(fs, p)
		if err != nil {
			return nil, err
		}
		out = append(out, crdsOf(docs)...)
	}
	return out, nil
}

var _ = json.Marshal
