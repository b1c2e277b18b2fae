package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	_ "unsafe" // go:linkname

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/kubeapiserver/admission/exclusion"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
)

// compileValidatingPolicy is validating.compilePolicy (plugin.go), the compiler the plugin's
// policy source runs for each policy: linked so that the oracle compiles exactly as the plugin.
//
//go:linkname compileValidatingPolicy k8s.io/apiserver/pkg/admission/plugin/policy/validating.compilePolicy
func compileValidatingPolicy(policy *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator

// compileMutatingPolicy is mutating.compilePolicy (compilation.go).
//
//go:linkname compileMutatingPolicy k8s.io/apiserver/pkg/admission/plugin/policy/mutating.compilePolicy
func compileMutatingPolicy(policy *admissionregistrationv1.MutatingAdmissionPolicy) mutating.PolicyEvaluator

// newReinvocationHandler is admission.newReinvocationHandler (reinvocation.go): the admission
// chain runs the mutating plugins again when one asks for reinvocation.
//
//go:linkname newReinvocationHandler k8s.io/apiserver/pkg/admission.newReinvocationHandler
func newReinvocationHandler(admissionChain admission.Interface) admission.Interface

// staticSource is the policy source of one case: the hooks the plugin's own policy source would
// have computed from its informers (generic/policy_source.go calculatePolicyData), set before
// each request. Without a server there are no informers to watch; the rest of the plugin (its
// exclusions, matcher, dispatcher, evaluators) is the real one.
type staticSource[H any] struct {
	mu    sync.Mutex
	hooks []H
}

func (s *staticSource[H]) Hooks() []H {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hooks
}
func (s *staticSource[H]) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (s *staticSource[H]) HasSynced() bool               { return true }
func (s *staticSource[H]) set(h []H) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks = h
}

// staticInformer serves params from an indexer filled for the case (the dispatcher reads params
// through GenericInformer.Lister() after checking Informer().HasSynced()).
type staticInformer struct {
	cache.SharedIndexInformer
	indexer cache.Indexer
	gr      schema.GroupResource
}

func (s *staticInformer) HasSynced() bool                     { return true }
func (s *staticInformer) GetIndexer() cache.Indexer           { return s.indexer }
func (s *staticInformer) Informer() cache.SharedIndexInformer { return s }
func (s *staticInformer) Lister() cache.GenericLister         { return cache.NewGenericLister(s.indexer, s.gr) }

// openAPIClient serves the OpenAPI v3 documents of the CRDs' group-versions, as the server's
// /openapi/v3 does (apiextensions builds them with builder.BuildOpenAPIV3), for the mutating
// plugin's TypeConverterManager.
type admissionWorld struct {
	ctx        context.Context
	validating *validating.Plugin
	mutating   *mutating.Plugin
	vapSource  *staticSource[validating.PolicyHook]
	mapSource  *staticSource[mutating.PolicyHook]
	namespaces cache.Indexer
	crds       *crdHolder
}

var (
	worldOnce sync.Once
	world     *admissionWorld
	worldErr  error
)

// crdHolder is the case's CRDs, read by the type converter manager's OpenAPI client.
type crdHolder struct {
	mu   sync.Mutex
	crds crdList
}

func (h *crdHolder) get() crdList {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.crds
}

// getWorld builds the two policy plugins once per process, initialized as the API server's
// admission initializers initialize them (client, informer factory, REST mapper, authorizer,
// excluded resources from k8s.io/kubernetes/pkg/kubeapiserver/admission/exclusion), with
// fake clients: no request reaches them because the sources and namespace lister are static.
func getWorld() (*admissionWorld, error) {
	worldOnce.Do(func() {
		w := &admissionWorld{
			ctx:        context.Background(),
			vapSource:  &staticSource[validating.PolicyHook]{},
			mapSource:  &staticSource[mutating.PolicyHook]{},
			namespaces: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
			crds:       &crdHolder{},
		}
		client := fake.NewSimpleClientset()
		dynamicClient := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
		factory := informers.NewSharedInformerFactory(client, 0)
		matcher := matching.NewMatcher(corelisters.NewNamespaceLister(w.namespaces), client)
		tcm := patch.NewTypeConverterManager(staticTypeConverter(), crdOpenAPIClient{w.crds})

		w.validating = &validating.Plugin{Plugin: generic.NewPlugin(
			admission.NewHandler(admission.Connect, admission.Create, admission.Delete, admission.Update),
			func(informers.SharedInformerFactory, kubernetes.Interface, dynamic.Interface, meta.RESTMapper) generic.Source[validating.PolicyHook] {
				return w.vapSource
			},
			func(a authorizer.UnconditionalAuthorizer, m *matching.Matcher, _ kubernetes.Interface) generic.Dispatcher[validating.PolicyHook] {
				return validating.NewDispatcher(a, generic.NewPolicyMatcher(m))
			},
		)}
		w.mutating = &mutating.Plugin{Plugin: generic.NewPlugin(
			admission.NewHandler(admission.Create, admission.Update, admission.Connect),
			func(informers.SharedInformerFactory, kubernetes.Interface, dynamic.Interface, meta.RESTMapper) generic.Source[mutating.PolicyHook] {
				return w.mapSource
			},
			func(a authorizer.UnconditionalAuthorizer, m *matching.Matcher, _ kubernetes.Interface) generic.Dispatcher[mutating.PolicyHook] {
				return mutating.NewDispatcher(a, m, tcm)
			},
		)}
		stop := make(chan struct{})
		for _, p := range []interface {
			SetExternalKubeInformerFactory(informers.SharedInformerFactory)
			SetExternalKubeClientSet(kubernetes.Interface)
			SetRESTMapper(meta.RESTMapper)
			SetDynamicClient(dynamic.Interface)
			SetDrainedNotification(<-chan struct{})
			SetUnconditionalAuthorizer(authorizer.UnconditionalAuthorizer)
			SetExcludedAdmissionResources([]schema.GroupResource)
			SetMatcher(*matching.Matcher)
			SetEnabled(bool)
			ValidateInitialization() error
		}{w.validating, w.mutating} {
			p.SetExternalKubeInformerFactory(factory)
			p.SetExternalKubeClientSet(client)
			p.SetRESTMapper(restMapper)
			p.SetDynamicClient(dynamicClient)
			p.SetDrainedNotification(stop)
			p.SetUnconditionalAuthorizer(denyAll{})
			p.SetExcludedAdmissionResources(exclusion.Excluded())
			p.SetMatcher(matcher)
			p.SetEnabled(true) // MutatingAdmissionPolicy is GA and on by default in 1.37
			if err := p.ValidateInitialization(); err != nil {
				worldErr = err
				return
			}
		}
		_ = factory.Core().V1().Namespaces().Informer()
		factory.Start(stop)
		factory.WaitForCacheSync(stop)
		world = w
	})
	return world, worldErr
}

// runCase is one `run` invocation's policy world.
type runCase struct {
	vaps     []*admissionregistrationv1.ValidatingAdmissionPolicy
	vapbs    []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	maps     []*admissionregistrationv1.MutatingAdmissionPolicy
	mapbs    []*admissionregistrationv1.MutatingAdmissionPolicyBinding
	params   []runtime.Object
	ns       []*corev1.Namespace
	crds     crdList
	problems []string
}

// storedPolicy reads a policy or binding as the plugin's informer would receive it: decoded,
// defaulted, stored and served at admissionregistration/v1.
func storedPolicy(d document, into runtime.Object, kind string) error {
	internal, _, err := decodeInternal(d)
	if err != nil {
		return err
	}
	v1, err := toVersion(internal, admissionregistrationv1.SchemeGroupVersion.WithKind(kind))
	if err != nil {
		return err
	}
	reflect.ValueOf(into).Elem().Set(reflect.ValueOf(v1).Elem())
	return nil
}

func loadRunCase(fs files, paths []string) (*runCase, error) {
	rc := &runCase{}
	var docs []document
	for _, p := range paths {
		d, err := readDocuments(fs, p)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d...)
	}
	rc.crds = crdsOf(docs)
	for _, d := range docs {
		gvk := d.gvk()
		if gvk.Group == "admissionregistration.k8s.io" && d.builtin() {
			var err error
			switch gvk.Kind {
			case "ValidatingAdmissionPolicy":
				p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
				if err = storedPolicy(d, p, gvk.Kind); err == nil {
					rc.vaps = append(rc.vaps, p)
				}
			case "ValidatingAdmissionPolicyBinding":
				p := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
				if err = storedPolicy(d, p, gvk.Kind); err == nil {
					rc.vapbs = append(rc.vapbs, p)
				}
			case "MutatingAdmissionPolicy":
				p := &admissionregistrationv1.MutatingAdmissionPolicy{}
				if err = storedPolicy(d, p, gvk.Kind); err == nil {
					rc.maps = append(rc.maps, p)
				}
			case "MutatingAdmissionPolicyBinding":
				p := &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
				if err = storedPolicy(d, p, gvk.Kind); err == nil {
					rc.mapbs = append(rc.mapbs, p)
				}
			default:
				continue
			}
			if err != nil {
				rc.problems = append(rc.problems, fmt.Sprintf("%s: document %d: %v", d.path, d.index, err))
			}
			continue
		}
		if gvk.Kind == "CustomResourceDefinition" {
			continue
		}
		if gvk.Kind == "Namespace" && gvk.Group == "" && gvk.Version == "v1" {
			obj, err := decodeVersioned(d)
			if err == nil {
				rc.ns = append(rc.ns, obj.(*corev1.Namespace))
			}
		}
		if gvk.Kind == "" || gvk.Version == "" {
			continue
		}
		param, err := storedObject(d, rc.crds)
		if err == nil {
			rc.params = append(rc.params, param)
		}
	}
	return rc, nil
}

// storedObject is an object as an informer lists it: a built-in kind decoded, defaulted and
// converted back to its version; a custom resource pruned and defaulted.
func storedObject(d document, crds crdList) (runtime.Object, error) {
	if d.builtin() {
		return decodeVersioned(d)
	}
	u, err := decodeUnstructured(d)
	if err != nil {
		return nil, err
	}
	crds.defaultCustomResource(u)
	return u, nil
}

// paramInformer is what the policy source's ensureParamsForPolicyLocked gives a policy: the
// informer of its paramKind's resource, or the configuration error it reports.
func (rc *runCase) paramInformer(paramKind *admissionregistrationv1.ParamKind, mapper meta.RESTMapper) (informers.GenericInformer, meta.RESTScope, error) {
	if paramKind == nil {
		return nil, nil, nil
	}
	gv, err := schema.ParseGroupVersion(paramKind.APIVersion)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to parse paramKind APIVersion: %w", err)
	}
	gvk := gv.WithKind(paramKind.Kind)
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		// The words of generic/policy_source.go ensureParamsForPolicyLocked.
		return nil, nil, fmt.Errorf("failed to find resource referenced by paramKind: '%v'", gvk)
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, p := range rc.params {
		if p.GetObjectKind().GroupVersionKind() == gvk {
			_ = indexer.Add(p)
		}
	}
	return &staticInformer{indexer: indexer, gr: mapping.Resource.GroupResource()}, mapping.Scope, nil
}

// hooks groups bindings under their policies as calculatePolicyData does (bindings of a missing
// policy are skipped).
func (rc *runCase) hooks(mapper meta.RESTMapper) ([]validating.PolicyHook, []mutating.PolicyHook) {
	var vh []validating.PolicyHook
	for _, p := range rc.vaps {
		var bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
		for _, b := range rc.vapbs {
			if b.Spec.PolicyName == p.Name {
				bindings = append(bindings, b)
			}
		}
		if len(bindings) == 0 {
			continue
		}
		inf, scope, cfgErr := rc.paramInformer(p.Spec.ParamKind, mapper)
		vh = append(vh, validating.PolicyHook{Policy: p, Bindings: bindings, Evaluator: compileValidatingPolicy(p),
			ParamInformer: inf, ParamScope: scope, RESTMapper: mapper, ConfigurationError: cfgErr})
	}
	var mh []mutating.PolicyHook
	for _, p := range rc.maps {
		var bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding
		for _, b := range rc.mapbs {
			if b.Spec.PolicyName == p.Name {
				bindings = append(bindings, b)
			}
		}
		if len(bindings) == 0 {
			continue
		}
		inf, scope, cfgErr := rc.paramInformer(p.Spec.ParamKind, mapper)
		mh = append(mh, mutating.PolicyHook{Policy: p, Bindings: bindings, Evaluator: compileMutatingPolicy(p),
			ParamInformer: inf, ParamScope: scope, RESTMapper: mapper, ConfigurationError: cfgErr})
	}
	return vh, mh
}

type warningRecorder struct {
	mu       sync.Mutex
	warnings []string
}

func (w *warningRecorder) AddWarning(agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, seen := range w.warnings {
		if seen == text {
			return
		}
	}
	w.warnings = append(w.warnings, text)
}

var operations = map[string]admission.Operation{
	"CREATE": admission.Create, "UPDATE": admission.Update, "DELETE": admission.Delete, "CONNECT": admission.Connect,
}

func runCommand(args []string, fs files) result {
	o, err := parseOptions(args, map[string]bool{
		"object": false, "old-object": false, "operation": false, "user": false, "group": false,
		"namespace-object": false, "params": false, "kubernetes-version": false, "format": false,
		"show-defaulted": true, "crd": false, "subresource": false,
	})
	if err != nil {
		return usage(err.Error())
	}
	if v := o.one("kubernetes-version"); v != "" && v != kubernetesVersion {
		return usage(fmt.Sprintf("this oracle links Kubernetes %s, not %s", kubernetesVersion, v))
	}
	if len(o.values["object"]) == 0 {
		return usage("run: --object is required")
	}
	paths := append([]string{}, o.positional...)
	paths = append(paths, o.values["namespace-object"]...)
	paths = append(paths, o.values["params"]...)
	paths = append(paths, o.values["crd"]...)
	rc, err := loadRunCase(fs, paths)
	if err != nil {
		return usage(err.Error())
	}
	opName := strings.ToUpper(o.one("operation"))
	if opName == "" {
		opName = "CREATE"
		if o.one("old-object") != "" {
			opName = "UPDATE"
		}
	}
	op, ok := operations[opName]
	if !ok {
		return usage(fmt.Sprintf("unknown operation %q (expected one of CREATE, UPDATE, DELETE, CONNECT)", o.one("operation")))
	}
	username := o.one("user")
	if username == "" {
		username = "system:anonymous"
	}
	userInfo := &user.DefaultInfo{Name: username, Groups: o.values["group"]}

	var oldDoc *document
	if p := o.one("old-object"); p != "" {
		docs, err := readDocuments(fs, p)
		if err != nil || len(docs) == 0 {
			return usage(fmt.Sprintf("--old-object %s: no object", p))
		}
		oldDoc = &docs[0]
	}
	var objectDocs []document
	for _, p := range o.values["object"] {
		docs, err := readDocuments(fs, p)
		if err != nil {
			return usage(err.Error())
		}
		if len(docs) == 0 {
			return usage(p + ": no object in the file")
		}
		objectDocs = append(objectDocs, docs...)
	}
	// Namespaces among the objects exist for the others (vap-lsp's add_namespaces).
	for _, d := range objectDocs {
		if gvk := d.gvk(); gvk.Kind == "Namespace" && gvk.Group == "" && gvk.Version == "v1" {
			known := false
			for _, ns := range rc.ns {
				if ns.Name == d.name {
					known = true
				}
			}
			if obj, err := decodeVersioned(d); err == nil && !known {
				rc.ns = append(rc.ns, obj.(*corev1.Namespace))
			}
		}
	}
	// A namespace the inputs do not give is taken to exist, without labels, as vap-lsp takes it
	// (a server would answer NotFound before admission; the oracle compares admission).
	for _, d := range objectDocs {
		name := d.ns
		if name == "" {
			name = "default"
		}
		known := false
		for _, ns := range rc.ns {
			known = known || ns.Name == name
		}
		if !known {
			rc.ns = append(rc.ns, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
	}
	w, err := getWorld()
	if err != nil {
		return usage("cannot initialize the admission plugins: " + err.Error())
	}
	mapper := mapperWith(rc.crds)
	vh, mh := rc.hooks(mapper)
	w.vapSource.set(vh)
	w.mapSource.set(mh)
	nsObjects := make([]any, 0, len(rc.ns))
	for _, ns := range rc.ns {
		nsObjects = append(nsObjects, ns)
	}
	_ = w.namespaces.Replace(nsObjects, "")
	w.crds.mu.Lock()
	w.crds.crds = rc.crds
	w.crds.mu.Unlock()

	var results []any
	allAllowed := true
	for _, d := range objectDocs {
		res := admitOne(w, rc, d, oldDoc, op, o.one("subresource"), userInfo, o.one("show-defaulted") != "")
		if !res["allowed"].(bool) {
			allAllowed = false
		}
		results = append(results, res)
	}
	exit := 0
	if !allAllowed {
		exit = 1
	}
	out := map[string]any{"results": results}
	if len(rc.problems) > 0 {
		out["problems"] = rc.problems
	}
	return result{Stdout: out, Exit: exit}
}

func admitOne(w *admissionWorld, rc *runCase, d document, oldDoc *document, op admission.Operation, subresource string, userInfo user.Info, showDefaulted bool) map[string]any {
	gvk := d.gvk()
	summary := map[string]any{"apiVersion": d.typ.APIVersion, "kind": d.typ.Kind, "namespace": nilIfEmpty(d.ns), "name": nilIfEmpty(d.name)}
	res := map[string]any{
		"object": summary, "allowed": true, "denials": []any{}, "warnings": []string{},
		"auditAnnotations": map[string]string{}, "patched": nil, "evaluations": []any{},
	}
	decode := func(doc document) (runtime.Object, error) { return decodeForAdmission(doc, rc.crds) }
	obj, err := decode(d)
	if err != nil {
		res["allowed"] = false
		res["denials"] = []any{map[string]any{"policy": "", "binding": "", "message": err.Error(), "reason": "BadRequest", "code": 400}}
		return res
	}
	setRequestNamespace(obj, gvk, rc.crds)
	var old runtime.Object
	if oldDoc != nil && (op == admission.Update || op == admission.Connect || op == admission.Delete) {
		if old, err = decode(*oldDoc); err != nil {
			old = nil
		}
	}
	if op == admission.Delete {
		if old == nil {
			old = obj
		}
		obj = nil
	}
	attrs, _ := newAttributes(obj, old, gvk, op, subresource, userInfo, rc.crds)
	if attrs.GetNamespace() == "" {
		if mapping, err := mapperWith(rc.crds).RESTMapping(gvk.GroupKind(), gvk.Version); err == nil && mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			// A namespaced object without metadata.namespace is created in the request's
			// namespace; kubectl sends it to its context's namespace, "default".
			attrs = &annotatedAttributes{Attributes: admission.NewAttributesRecord(obj, old, gvk, "default", attrs.GetName(), attrs.GetResource(), subresource, op, nil, false, userInfo)}
		}
	}
	interfaces := objectInterfacesFor(gvk, rc.crds)
	recorder := &warningRecorder{}
	ctx := warning.WithWarningRecorder(w.ctx, recorder)

	var before runtime.Object
	if obj != nil {
		before = obj.DeepCopyObject()
	}
	var admitErr error
	if w.mutating.Handles(op) {
		admitErr = newReinvocationHandler(w.mutating).(admission.MutationInterface).Admit(ctx, attrs, interfaces)
	}
	// "patched" is what mutating admission made of the object (before the registry's steps).
	var mutated runtime.Object
	if o := attrs.GetObject(); o != nil {
		mutated = o.DeepCopyObject()
	}
	if admitErr == nil && op == admission.Update && subresource == "status" && old != nil {
		// A status update is stored through the kind's status strategy: rest.BeforeUpdate's
		// PrepareForUpdate runs after mutating admission and before validating admission (the
		// store's updateValidation), and keeps the stored spec. Linked for Deployments and custom
		// resources; other kinds would need their registry packages.
		if s := statusStrategyFor(gvk, rc.crds); s != nil {
			s.PrepareForUpdate(ctx, attrs.GetObject(), old)
		}
	}
	if admitErr == nil && w.validating.Handles(op) {
		admitErr = w.validating.Validate(ctx, attrs, interfaces)
	}
	if admitErr != nil {
		res["allowed"] = false
		res["denials"] = []any{denialOf(admitErr)}
	}
	res["warnings"] = append([]string{}, recorder.warnings...)
	attrs.mu.Lock()
	annotations := map[string]string{}
	for k, v := range attrs.annotations {
		annotations[k] = v
	}
	attrs.mu.Unlock()
	res["auditAnnotations"] = annotations
	if after := mutated; after != nil && before != nil && !apiequality.Semantic.DeepEqual(before, after) {
		if out, err := versionedJSON(after, gvk); err == nil {
			res["patched"] = out
		}
	}
	if showDefaulted && attrs.GetObject() != nil {
		if out, err := versionedJSON(attrs.GetObject(), gvk); err == nil {
			res["evaluatedObject"] = out
		}
	}
	return res
}

// versionedJSON is the object as the server would return it: in the request's version.
func versionedJSON(obj runtime.Object, gvk schema.GroupVersionKind) (map[string]any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.UnstructuredContent(), nil
	}
	v, err := toVersion(obj, gvk)
	if err != nil {
		return nil, err
	}
	return toJSONMap(v)
}

// denialOf reads the API status the admission chain answered with.
func denialOf(err error) map[string]any {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		causes := []string{}
		if s.Details != nil {
			for _, c := range s.Details.Causes {
				causes = append(causes, c.Message)
			}
		}
		return map[string]any{"policy": "", "binding": "", "message": s.Message, "reason": string(s.Reason), "code": s.Code, "causes": causes}
	}
	return map[string]any{"policy": "", "binding": "", "message": err.Error(), "reason": "InternalError", "code": 500}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

var _ = sort.Strings
var _ = json.Marshal
var _ = legacyscheme.Scheme

type updatePreparer interface {
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
}

// statusStrategyFor is the status strategy of the registry storing gvk: the Deployment registry's
// (pkg/registry/apps/deployment.StatusStrategy) or a custom resource's
// (apiextensions-apiserver/pkg/registry/customresource.NewStatusStrategy, built with the
// version's structural schema and status subresource as customresource_handler.go builds it).
func statusStrategyFor(gvk schema.GroupVersionKind, crds crdList) updatePreparer {
	if gvk.Group == "apps" && gvk.Kind == "Deployment" {
		return deployment.StatusStrategy
	}
	crd, served := crds.find(gvk)
	if crd == nil || !served {
		return nil
	}
	for _, v := range crd.Spec.Versions {
		if v.Name != gvk.Version || v.Subresources == nil || v.Subresources.Status == nil {
			continue
		}
		strategy := customresource.NewStrategy(unstructuredTyper{}, crd.Spec.Scope == apiextensionsv1.NamespaceScoped, gvk,
			nil, nil, structural(crd, v.Name), &apiextensionsinternal.CustomResourceSubresourceStatus{}, nil, nil)
		return customresource.NewStatusStrategy(strategy)
	}
	return nil
}

// setRequestNamespace gives a namespaced object without metadata.namespace the request's
// namespace, as the create and update handlers do before admission
// (rest.EnsureObjectNamespaceMatchesRequestNamespace); kubectl's request goes to "default".
func setRequestNamespace(obj runtime.Object, gvk schema.GroupVersionKind, crds crdList) {
	if obj == nil {
		return
	}
	mapping, err := mapperWith(crds).RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil || mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		return
	}
	if accessor, err := meta.Accessor(obj); err == nil {
		_ = rest.EnsureObjectNamespaceMatchesRequestNamespace("default", accessor)
	}
}
