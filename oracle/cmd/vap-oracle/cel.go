package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"
	_ "unsafe" // go:linkname

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/openapi"
)

// typeOverwrite has the layout of validating.typeOverwrite (typechecking.go), the argument of
// the type checker's own environment builder linked below.
type typeOverwrite struct {
	object *apiservercel.DeclType
	params *apiservercel.DeclType
}

// buildEnvSet is k8s.io/apiserver/pkg/admission/plugin/policy/validating.buildEnvSet: the
// environment the VAP type checker compiles an expression in, `object`/`oldObject` typed from the
// matched kind's schema, `params` from the paramKind's, `namespaceObject` and `request` typed,
// `authorizer` declared. Linked rather than rewritten so that it is Kubernetes' own.
//
//go:linkname buildEnvSet k8s.io/apiserver/pkg/admission/plugin/policy/validating.buildEnvSet
func buildEnvSet(hasParams bool, hasAuthorizer bool, types typeOverwrite) (*environment.EnvSet, error)

// declTypeOf is what validating.(*TypeChecker).declType does with a resolved schema; the type
// name it assigns carries a timestamp as generateUniqueTypeName's does (the differ strips it).
func declTypeOf(gvk schema.GroupVersionKind, crds crdList) (*apiservercel.DeclType, error) {
	if len(crds) == 0 {
		// Built-in kinds: the same for every case of a batch.
		declCacheMu.Lock()
		defer declCacheMu.Unlock()
		if d, ok := declCache[gvk]; ok {
			return d.decl, d.err
		}
		decl, err := resolveDeclType(gvk, crds)
		declCache[gvk] = declCacheEntry{decl, err}
		return decl, err
	}
	return resolveDeclType(gvk, crds)
}

type declCacheEntry struct {
	decl *apiservercel.DeclType
	err  error
}

var (
	declCacheMu sync.Mutex
	declCache   = map[schema.GroupVersionKind]declCacheEntry{}
)

func resolveDeclType(gvk schema.GroupVersionKind, crds crdList) (*apiservercel.DeclType, error) {
	s, err := schemaResolver(crds).ResolveSchema(gvk)
	if err != nil {
		return nil, err
	}
	declType := common.SchemaDeclType(&openapi.Schema{Schema: s}, true)
	if declType == nil {
		return nil, nil
	}
	return declType.MaybeAssignTypeName(fmt.Sprintf("%s%d", gvk.Kind, time.Now().Nanosecond())), nil
}

// declSizeEstimator gives the estimator the sizes the declared types carry (maxItems,
// maxLength, maxProperties, or what a 3 MiB request allows, as common.SchemaDeclType computes
// them), walking a node's path from its variable. It is apiextensions' sizeEstimator
// (apiserver/schema/cel/compilation.go) with one root per variable instead of `self`.
type declSizeEstimator struct {
	roots map[string]*apiservercel.DeclType
}

func (c *declSizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 {
		return nil
	}
	current, ok := c.roots[path[0]]
	if !ok || current == nil {
		return nil
	}
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			if current.ElemType == nil {
				return nil
			}
			current = current.ElemType
		case "@keys":
			if current.KeyType == nil {
				return nil
			}
			current = current.KeyType
		default:
			field, ok := current.Fields[name]
			if !ok || field.Type == nil {
				return nil
			}
			current = field.Type
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(current.MaxElements)}
}

func (c *declSizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}

// anyExpression is an expression of any result type (as a policy variable is compiled).
type anyExpression struct{ expression string }

func (e *anyExpression) GetExpression() string           { return e.expression }
func (e *anyExpression) ReturnTypes() []*celgo.Type      { return []*celgo.Type{celgo.AnyType} }
func (e *anyExpression) GetName() string                 { return "expression" }
func (e *anyExpression) String() string                  { return e.expression }
func (e *anyExpression) GetMessage() string              { return "" }
func (e *anyExpression) GetReason() *metav1.StatusReason { return nil }

// denyAll answers `authorizer` checks as a server whose authorizers have no opinion: denied
// (vap-lsp's default without --authorizer-rules is also "nothing allowed").
type denyAll struct{}

func (denyAll) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionNoOpinion, "", nil
}

func (d denyAll) ConditionsAwareAuthorize(ctx context.Context, a authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(d.Authorize(ctx, a))
}

func (denyAll) EvaluateConditions(_ context.Context, _ authorizer.ConditionsAwareDecision, _ authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// parseKind reads vap-lsp's --kind: VERSION/KIND or GROUP/VERSION/KIND.
func parseKind(text string) (schema.GroupVersionKind, error) {
	parts := strings.Split(text, "/")
	for _, p := range parts {
		if p == "" {
			parts = nil
		}
	}
	switch len(parts) {
	case 2:
		return schema.GroupVersionKind{Version: parts[0], Kind: parts[1]}, nil
	case 3:
		return schema.GroupVersionKind{Group: parts[0], Version: parts[1], Kind: parts[2]}, nil
	}
	return schema.GroupVersionKind{}, fmt.Errorf("--kind %s: expected VERSION/KIND or GROUP/VERSION/KIND (v1/Pod, apps/v1/Deployment)", text)
}

// valueJSON renders a CEL value as JSON the way cel-go converts a value to a
// google.protobuf.Value (what vap-lsp's `cel --format json` mirrors); the maps and lists of
// Kubernetes objects (UnstructuredToVal) do not convert themselves, so their elements are
// converted one by one.
func valueJSON(v ref.Val) (any, error) {
	native, err := v.ConvertToNative(reflect.TypeOf(&structpb.Value{}))
	if err == nil {
		data, err := protojson.Marshal(native.(*structpb.Value))
		if err != nil {
			return nil, err
		}
		var out any
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, err
		}
		return out, nil
	}
	switch x := v.(type) {
	case traits.Mapper:
		out := map[string]any{}
		it := x.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			key, ok := k.Value().(string)
			if !ok {
				return nil, err
			}
			val, verr := valueJSON(x.Get(k))
			if verr != nil {
				return nil, verr
			}
			out[key] = val
		}
		return out, nil
	case traits.Lister:
		out := []any{}
		it := x.Iterator()
		for it.HasNext() == types.True {
			val, verr := valueJSON(it.Next())
			if verr != nil {
				return nil, verr
			}
			out = append(out, val)
		}
		return out, nil
	}
	return nil, err
}

type celInputs struct {
	object, oldObject runtime.Object
	gvk               schema.GroupVersionKind
	params            runtime.Object
	namespace         *corev1.Namespace
	request           *admissionv1.AdmissionRequest
}

func celCommand(args []string, fs files) result {
	o, err := parseOptions(args, map[string]bool{
		"kind": false, "crd": false, "object": false, "old-object": false, "params": false,
		"namespace-object": false, "request": false, "authorizer-rules": false,
		"kubernetes-version": false, "format": false,
	})
	if err != nil {
		return usage(err.Error())
	}
	if len(o.positional) != 1 {
		return usage("cel: expected one EXPRESSION")
	}
	if v := o.one("kubernetes-version"); v != "" && v != kubernetesVersion {
		return usage(fmt.Sprintf("this oracle links Kubernetes %s, not %s", kubernetesVersion, v))
	}
	if o.one("authorizer-rules") != "" {
		// vap-lsp's rules file is its own format; a server answers from its authorizers.
		return usage("--authorizer-rules: not supported by the oracle (its authorizer allows nothing)")
	}
	expression := o.positional[0]
	crds, err := loadCRDFiles(fs, o.values["crd"])
	if err != nil {
		return usage(err.Error())
	}
	var in celInputs
	var objectDecl *apiservercel.DeclType
	if k := o.one("kind"); k != "" {
		gvk, err := parseKind(k)
		if err != nil {
			return usage(err.Error())
		}
		in.gvk = gvk
		objectDecl, err = declTypeOf(gvk, crds)
		if err != nil {
			return usage(fmt.Sprintf("--kind %s: %v", k, err))
		}
	}
	load := func(option string) (runtime.Object, *document, error) {
		path := o.one(option)
		if path == "" {
			return nil, nil, nil
		}
		docs, err := readDocuments(fs, path)
		if err != nil {
			return nil, nil, err
		}
		if len(docs) != 1 {
			return nil, nil, fmt.Errorf("--%s %s: expected one mapping (an object), found %d documents", option, path, len(docs))
		}
		obj, err := decodeForAdmission(docs[0], crds)
		return obj, &docs[0], err
	}
	var objDoc, oldDoc *document
	if in.object, objDoc, err = load("object"); err != nil {
		return usage(err.Error())
	}
	if in.oldObject, oldDoc, err = load("old-object"); err != nil {
		return usage(err.Error())
	}
	if in.params, _, err = load("params"); err != nil {
		return usage(err.Error())
	}
	if ns, _, err := load("namespace-object"); err != nil {
		return usage(err.Error())
	} else if ns != nil {
		v, err := toVersion(ns, corev1.SchemeGroupVersion.WithKind("Namespace"))
		if err != nil {
			return usage(err.Error())
		}
		in.namespace = v.(*corev1.Namespace)
	}
	if path := o.one("request"); path != "" {
		docs, err := readDocuments(fs, path)
		if err != nil || len(docs) != 1 {
			return usage(fmt.Sprintf("--request %s: expected one mapping", path))
		}
		in.request = &admissionv1.AdmissionRequest{}
		if err := json.Unmarshal(docs[0].json, in.request); err != nil {
			return usage(fmt.Sprintf("--request %s: %v", path, err))
		}
	}
	if in.gvk.Empty() {
		for _, d := range []*document{objDoc, oldDoc} {
			if d != nil {
				in.gvk = d.gvk()
				break
			}
		}
	}
	for _, o := range []runtime.Object{in.object, in.oldObject} {
		setRequestNamespace(o, in.gvk, crds)
	}
	return celEvaluate(expression, in, objectDecl, crds)
}

// decodeForAdmission holds an object as the API server holds it during admission: a built-in
// kind decoded (strictly, defaulted) into its internal version, anything else unstructured.
func decodeForAdmission(d document, crds crdList) (runtime.Object, error) {
	if d.builtin() {
		obj, _, err := decodeInternal(d)
		return obj, err
	}
	u, err := decodeUnstructured(d)
	if err != nil {
		return nil, err
	}
	crds.defaultCustomResource(u)
	return u, nil
}

func celEvaluate(expression string, in celInputs, objectDecl *apiservercel.DeclType, crds crdList) result {
	hasParams := in.params != nil
	out := map[string]any{"value": nil, "error": nil, "type": nil, "cost": map[string]any{"actual": nil, "estimate": nil}}

	// Type and estimate: the type checker's environment.
	var paramsDecl *apiservercel.DeclType
	if hasParams {
		if gvk := in.params.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
			paramsDecl, _ = declTypeOf(gvk, crds)
		}
	}
	envSet, err := buildEnvSet(hasParams, true, typeOverwrite{object: objectDecl, params: paramsDecl})
	if err != nil {
		return usage("environment: " + err.Error())
	}
	typing, err := plugincel.NewCompositedCompilerForTypeChecking(envSet)
	if err != nil {
		return usage("environment: " + err.Error())
	}
	env, err := typing.Env(environment.StoredExpressions)
	if err != nil {
		return usage("environment: " + err.Error())
	}
	ast, issues := env.Compile(expression)
	if issues != nil && issues.Err() != nil {
		// The words of plugin/cel compile.go CompileCELExpression.
		out["error"] = "compilation failed: " + issues.String()
		return result{Stdout: out, Exit: 2}
	}
	out["type"] = ast.OutputType().String()
	// Sizes come from the schemas of `object`/`oldObject` (the matched kind) and `params` (the
	// paramKind) only, as vap-lsp sizes them; `request` and `namespaceObject` are hand-built
	// DeclTypes without sizes (unbounded).
	roots := map[string]*apiservercel.DeclType{
		plugincel.ObjectVarName:    objectDecl,
		plugincel.OldObjectVarName: objectDecl,
		plugincel.ParamsVarName:    paramsDecl,
	}
	estimate, err := env.EstimateCost(ast, &library.CostEstimator{SizeEstimator: &declSizeEstimator{roots: roots}})
	if err == nil {
		out["cost"].(map[string]any)["estimate"] = map[string]any{"min": estimate.Min, "max": estimate.Max}
	}

	// Value and runtime cost: compiled and evaluated as admission does (plugin/cel's
	// composited compiler over the base environment, `object` dyn, stored-expression mode).
	runtimeCompiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return usage("environment: " + err.Error())
	}
	condition := runtimeCompiler.CompileCondition(
		[]plugincel.ExpressionAccessor{&anyExpression{expression}},
		plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true},
		environment.StoredExpressions)
	if errs := condition.CompilationErrors(); len(errs) > 0 {
		// Type-checked, but admission's own compile fails (a homogeneous-literal or regex
		// validator, building the program): the type stays, nothing is estimated or run.
		out["error"] = errs[0].Error()
		out["cost"].(map[string]any)["estimate"] = nil
		return result{Stdout: out, Exit: 2}
	}
	operation := admission.Create
	switch {
	case in.object != nil && in.oldObject != nil:
		operation = admission.Update
	case in.object == nil && in.oldObject != nil:
		operation = admission.Delete
	}
	attrs, gvr := newAttributes(in.object, in.oldObject, in.gvk, operation, "", &user.DefaultInfo{Name: "system:anonymous"}, nil)
	versioned, err := admission.NewVersionedAttributes(attrs, in.gvk, objectInterfacesFor(in.gvk, crds))
	if err != nil {
		return usage("cannot convert the object: " + err.Error())
	}
	request := in.request
	if request == nil {
		request = plugincel.CreateAdmissionRequest(attrs, metav1.GroupVersionResource(gvr), metav1.GroupVersionKind(in.gvk))
	}
	ctx := runtimeCompiler.CreateContext(context.Background())
	var params runtime.Object
	if in.params != nil {
		params = in.params
	}
	results, remaining, err := condition.ForInput(ctx, versioned, request,
		plugincel.OptionalVariableBindings{VersionedParams: params, Authorizer: denyAll{}},
		plugincel.CreateNamespaceObject(in.namespace), celconfig.RuntimeCELCostBudget)
	if err != nil {
		out["error"] = err.Error()
		return result{Stdout: out, Exit: 1}
	}
	out["cost"].(map[string]any)["actual"] = celconfig.RuntimeCELCostBudget - remaining
	r := results[0]
	if r.Error != nil {
		out["error"] = r.Error.Error()
		return result{Stdout: out, Exit: 1}
	}
	value, err := valueJSON(r.EvalResult)
	if err != nil {
		out["value"] = fmt.Sprintf("%v", r.EvalResult)
		out["valueNote"] = "not JSON: " + err.Error()
	} else {
		out["value"] = value
	}
	return result{Stdout: out}
}
