package main

import (
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/util/managedfields"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/openapi"
	"k8s.io/kube-openapi/pkg/builder3"
	openapiutil "k8s.io/kube-openapi/pkg/util"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"
)

// staticTypeConverter is the type converter of the built-in kinds, built as
// GenericAPIServer.getOpenAPIModels builds it for server-side apply (genericapiserver.go):
// builder3.BuildOpenAPIDefinitionsForResources over the canonical type names of the
// resources' kinds, with kube-apiserver's OpenAPI v3 configuration
// (pkg/controlplane/apiserver/config.go: DefaultOpenAPIV3Config with the generated definitions
// and a namer over the legacy scheme), then managedfields.NewTypeConverter. The server uses the
// kinds of the resources it serves; the oracle uses every versioned kind of the scheme that has a
// definition (a superset: kinds that are not served are never requested).
func staticTypeConverter() managedfields.TypeConverter {
	config := genericapiserver.DefaultOpenAPIV3Config(generatedopenapi.GetOpenAPIDefinitions, openapinamer.NewDefinitionNamer(legacyscheme.Scheme))
	seen := map[string]bool{}
	var names []string
	for gvk := range legacyscheme.Scheme.AllKnownTypes() {
		if gvk.Version == "__internal" {
			continue
		}
		obj, err := legacyscheme.Scheme.New(gvk)
		if err != nil {
			continue
		}
		name := openapiutil.GetCanonicalTypeName(obj)
		if _, ok := config.Definitions[name]; !ok || seen[name] {
			continue
		}
		seen[name] = true
		names = append(names, name)
	}
	sort.Strings(names)
	schemas, err := builder3.BuildOpenAPIDefinitionsForResources(config, names...)
	if err != nil {
		panic(fmt.Sprintf("building the OpenAPI models: %v", err))
	}
	tc, err := managedfields.NewTypeConverter(schemas, false)
	if err != nil {
		panic(fmt.Sprintf("building the type converter: %v", err))
	}
	return tc
}

// crdOpenAPIClient is the /openapi/v3 of a server that has the case's CRDs installed, limited to
// their group-versions (the built-in kinds are served by the static type converter first):
// each document built by apiextensions' builder.BuildOpenAPIV3, as its openapiv3 controller does.
type crdOpenAPIClient struct{ holder *crdHolder }

type crdGroupVersion struct {
	holder *crdHolder
	group  string
	ver    string
}

func (c crdOpenAPIClient) Paths() (map[string]openapi.GroupVersion, error) {
	out := map[string]openapi.GroupVersion{}
	for _, crd := range c.holder.get() {
		for _, v := range crd.Spec.Versions {
			if v.Served {
				out["apis/"+crd.Spec.Group+"/"+v.Name] = crdGroupVersion{c.holder, crd.Spec.Group, v.Name}
			}
		}
	}
	return out, nil
}

func (g crdGroupVersion) Schema(contentType string) ([]byte, error) {
	var merged map[string]any
	for _, crd := range g.holder.get() {
		if crd.Spec.Group != g.group {
			continue
		}
		doc, err := builder.BuildOpenAPIV3(crd, g.ver, builder.Options{V2: false})
		if err != nil {
			continue
		}
		data, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, err
		}
		if merged == nil {
			merged = m
			continue
		}
		mc, _ := merged["components"].(map[string]any)
		oc, _ := m["components"].(map[string]any)
		if mc != nil && oc != nil {
			ms, _ := mc["schemas"].(map[string]any)
			os, _ := oc["schemas"].(map[string]any)
			for k, v := range os {
				ms[k] = v
			}
		}
	}
	return json.Marshal(merged)
}

// ServerRelativeURL changes whenever the CRDs change (the server puts a hash of the document in
// it), so that the manager rebuilds its converter for a new case.
func (g crdGroupVersion) ServerRelativeURL() string {
	data, _ := g.Schema("application/json")
	return fmt.Sprintf("/openapi/v3/apis/%s/%s?hash=%x", g.group, g.ver, fnv(data))
}

func fnv(data []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range data {
		h ^= uint64(b)
		h *= 1099511628211
	}
	return h
}
