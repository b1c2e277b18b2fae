package main

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	"k8s.io/kubernetes/pkg/controlplane"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/resolver"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
)

// diagnostic has the fields of vap-lsp's `check --format json` diagnostics that do not depend on
// source positions (the oracle has no YAML positions; `document` says which document).
type diagnostic struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Source   string `json:"source"`
	Message  string `json:"message"`
	Field    string `json:"field,omitempty"`
	Document int    `json:"document"`
}

type fileReport struct {
	Path        string       `json:"path"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

// policyGetters answer the binding strategies' look-ups of the policy a binding names, from the
// policies among the checked files (on a server: its storage).
type policyGetters struct {
	vaps map[string]*admissionregistration.ValidatingAdmissionPolicy
	maps map[string]*admissionregistration.MutatingAdmissionPolicy
}

func (p policyGetters) GetValidatingAdmissionPolicy(ctx context.Context, name string) (*admissionregistration.ValidatingAdmissionPolicy, error) {
	if v, ok := p.vaps[name]; ok {
		return v, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}, name)
}

func (p policyGetters) GetMutatingAdmissionPolicy(ctx context.Context, name string) (*admissionregistration.MutatingAdmissionPolicy, error) {
	if v, ok := p.maps[name]; ok {
		return v, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}, name)
}

// createContext is a create request's context as the registry sees it: cluster-scoped (no
// namespace), by a member of system:masters, for whom the strategies skip the paramKind /
// paramRef authorization (rbacregistry.EscalationAllowed): vap-lsp does not model RBAC.
func createContext(resource string) context.Context {
	ctx := genericapirequest.WithNamespace(context.Background(), "")
	ctx = genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}})
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIGroup: "admissionregistration.k8s.io", APIVersion: "v1", Resource: resource,
	})
}

func checkCommand(args []string, fs files) result {
	o, err := parseOptions(args, map[string]bool{
		"format": false, "kubernetes-version": false, "crd": false, "severity": false, "exit-zero": true,
		"config": false, "no-config": true, "output-file": false,
	})
	if err != nil {
		return usage(err.Error())
	}
	if v := o.one("kubernetes-version"); v != "" && v != kubernetesVersion {
		return usage(fmt.Sprintf("this oracle links Kubernetes %s, not %s", kubernetesVersion, v))
	}
	externalCRDs, err := loadCRDFiles(fs, o.values["crd"])
	if err != nil {
		return usage(err.Error())
	}
	// Read every file first: the CRDs and policies among them are what the server would hold.
	perFile := map[string][]document{}
	var all []document
	for _, p := range o.positional {
		docs, err := readDocuments(fs, p)
		if err != nil {
			perFile[p] = nil
			all = append(all, document{path: p, index: -1, json: []byte(err.Error())})
			continue
		}
		perFile[p] = docs
		all = append(all, docs...)
	}
	crds := append(crdList(crdsOf(all)), externalCRDs...)
	getters := policyGetters{vaps: map[string]*admissionregistration.ValidatingAdmissionPolicy{}, maps: map[string]*admissionregistration.MutatingAdmissionPolicy{}}
	for _, d := range all {
		if !isPolicyKind(d) {
			continue
		}
		obj, _, err := decodeInternal(d)
		if err != nil {
			continue
		}
		switch p := obj.(type) {
		case *admissionregistration.ValidatingAdmissionPolicy:
			getters.vaps[p.Name] = p
		case *admissionregistration.MutatingAdmissionPolicy:
			getters.maps[p.Name] = p
		}
	}
	mapper := mapperWith(crds)
	resourceResolver := resolver.ResourceResolverFunc(func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return schema.GroupVersionResource{}, err
		}
		return m.Resource, nil
	})
	strategies := map[string]rest.RESTCreateStrategy{
		"ValidatingAdmissionPolicy":        validatingadmissionpolicy.NewStrategy(denyAll{}, resourceResolver),
		"ValidatingAdmissionPolicyBinding": validatingadmissionpolicybinding.NewStrategy(denyAll{}, getters, resourceResolver),
		"MutatingAdmissionPolicy":          mutatingadmissionpolicy.NewStrategy(denyAll{}, resourceResolver),
		"MutatingAdmissionPolicyBinding":   mutatingadmissionpolicybinding.NewStrategy(denyAll{}, getters, resourceResolver),
	}
	resources := map[string]string{
		"ValidatingAdmissionPolicy": "validatingadmissionpolicies", "ValidatingAdmissionPolicyBinding": "validatingadmissionpolicybindings",
		"MutatingAdmissionPolicy": "mutatingadmissionpolicies", "MutatingAdmissionPolicyBinding": "mutatingadmissionpolicybindings",
	}
	typeChecker := &validating.TypeChecker{SchemaResolver: schemaResolver(crds), RestMapper: mapper}

	var reports []fileReport
	anyError := false
	for _, p := range o.positional {
		report := fileReport{Path: p, Diagnostics: []diagnostic{}}
		if perFile[p] == nil {
			for _, d := range all {
				if d.path == p && d.index == -1 {
					// The file does not split into YAML documents or one is not YAML: kubectl
					// stops before sending anything.
					report.Diagnostics = append(report.Diagnostics, diagnostic{"error", "yaml", "vap-oracle", string(d.json), "", -1})
					anyError = true
				}
			}
		}
		for _, d := range perFile[p] {
			if !isPolicyKind(d) {
				continue
			}
			add := func(severity, code, message, fieldPath string) {
				if severity == "error" {
					anyError = true
				}
				report.Diagnostics = append(report.Diagnostics, diagnostic{severity, code, "vap-oracle", message, fieldPath, d.index})
			}
			if gv := d.gvk().GroupVersion(); !servedByDefault(gv) {
				// Not served with the default --runtime-config. Whether --runtime-config can serve
				// it depends on the group's storage provider (pkg/registry/admissionregistration/
				// rest), which cannot be asked without storage: the document is not checked.
				add("information", "not-served-by-default", fmt.Sprintf("no matches for kind %q in version %q", d.typ.Kind, d.typ.APIVersion), "apiVersion")
				continue
			}
			obj, strictErr, err := decodeInternal(d)
			if err != nil {
				add("error", "decode", err.Error(), "")
				continue
			}
			if strictErr != nil {
				// With fieldValidation=Strict (kubectl's default) the create fails with this
				// BadRequest; the object is still checked below, as vap-lsp reports both.
				if se, ok := runtime.AsStrictDecodingError(strictErr); ok {
					for _, e := range se.Errors() {
						add("error", "strict-decoding", e.Error(), "")
					}
				}
			}
			strategy := strategies[d.typ.Kind]
			ctx := createContext(resources[d.typ.Kind])
			// What rest.BeforeCreate does before validating (the create handler has filled the
			// system fields): a cluster-scoped object's namespace is cleared, then
			// PrepareForCreate.
			if accessor, err := meta.Accessor(obj); err == nil {
				rest.FillObjectMetaSystemFields(accessor)
				if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope("", strategy.NamespaceScoped()), accessor); err != nil {
					add("error", "BadRequest", err.Error(), "metadata.namespace")
					continue
				}
			}
			strategy.PrepareForCreate(ctx, obj)
			rejected := strictErr != nil
			for _, e := range rest.ValidateCreate(ctx, obj, strategy) {
				add("error", string(e.Type), e.Error(), e.Field)
				rejected = true
			}
			for _, w := range strategy.WarningsOnCreate(ctx, obj) {
				add("warning", "server-warning", w, "")
			}
			// The type checker is the status controller's: it sees only stored policies.
			if d.typ.Kind == "ValidatingAdmissionPolicy" && !rejected {
				v1obj, err := toVersion(obj, admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingAdmissionPolicy"))
				if err != nil {
					continue
				}
				for _, w := range typeChecker.Check(v1obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)) {
					add("warning", "cel-type-check", w.Warning, w.FieldRef)
				}
			}
		}
		reports = append(reports, report)
	}
	exit := 0
	if anyError && o.one("exit-zero") == "" {
		exit = 1
	}
	return result{Stdout: map[string]any{"files": reports}, Exit: exit}
}

// isPolicyKind: the four kinds of admissionregistration.k8s.io that vap-lsp checks, at any
// version the scheme knows.
func isPolicyKind(d document) bool {
	gvk := d.gvk()
	if gvk.Group != "admissionregistration.k8s.io" {
		return false
	}
	switch gvk.Kind {
	case "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return d.builtin()
	}
	return false
}

var _ = field.ErrorTypeInvalid

// servedByDefault tells whether kube-apiserver 1.37 serves a group-version with its default
// --runtime-config (controlplane.DefaultAPIResourceConfigSource: stable versions on, beta and
// alpha versions of the admissionregistration group off).
func servedByDefault(gv schema.GroupVersion) bool {
	return controlplane.DefaultAPIResourceConfigSource().ResourceEnabled(gv.WithResource(""))
}
