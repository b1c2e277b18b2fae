package main

import (
	"reflect"
	"sort"
	"strings"

	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	"k8s.io/kube-openapi/pkg/util"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// omitemptyCommand lists, per OpenAPI definition of the served built-in types, the JSON fields
// that are maps or slices tagged `omitempty` in their Go struct: what vanishes when empty once
// the server holds the object as its Go type. Data for vap-lsp (vap_lsp/defaulting/omitempty.py),
// read from the types themselves.
func omitemptyCommand() result {
	namer := openapinamer.NewDefinitionNamer(legacyscheme.Scheme)
	out := map[string][]string{}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		name, _ := namer.GetDefinitionName(util.GetCanonicalTypeName(reflect.New(t).Interface()))
		var fields []string
		var collect func(t reflect.Type)
		collect = func(t reflect.Type) {
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				if f.PkgPath != "" {
					continue // unexported: not serialized
				}
				tag := f.Tag.Get("json")
				parts := strings.Split(tag, ",")
				if f.Anonymous && (parts[0] == "" || tag == ",inline") {
					ft := f.Type
					for ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if ft.Kind() == reflect.Struct {
						collect(ft)
					}
					continue
				}
				walk(f.Type)
				if parts[0] == "" || parts[0] == "-" {
					continue
				}
				omit := false
				for _, p := range parts[1:] {
					omit = omit || p == "omitempty"
				}
				switch f.Type.Kind() {
				case reflect.Map, reflect.Slice, reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16,
					reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32,
					reflect.Uint64, reflect.Float32, reflect.Float64:
					// encoding/json omits these when empty (a pointer only when nil).
					if omit {
						fields = append(fields, parts[0])
					}
				}
			}
		}
		collect(t)
		sort.Strings(fields)
		if name != "" {
			out[name] = fields
		}
	}
	for gvk, t := range legacyscheme.Scheme.AllKnownTypes() {
		if gvk.Version == "__internal" {
			continue
		}
		walk(t)
	}
	return result{Stdout: out}
}
