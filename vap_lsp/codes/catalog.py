"""One entry per diagnostic code: what the API server does, an example that gets the code, the fix.

Adding a code to the analysis means adding its `Rule` here (tests/ecosystem/test_rule_pages.py
fails otherwise), then `python tools/generate_rule_docs.py` to refresh `docs/rules/`.
Examples with `checked=True` are analysed by that test (one file, in a workspace of its own,
Kubernetes' newest bundled version): the example must get the code, `fixed` must not.
"""

from __future__ import annotations

from vap_lsp.codes import Rule


def _vap(spec: str, name: str = "demo") -> str:
    return (
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
        f"metadata:\n  name: {name}\nspec:\n" + spec
    )


def _binding(spec: str) -> str:
    return (
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "metadata:\n  name: demo-binding\nspec:\n" + spec
    )


def _map(mutations: str) -> str:
    return (
        "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: MutatingAdmissionPolicy\n"
        "metadata:\n  name: demo\nspec:\n"
        + _DEPLOYMENTS
        + "  reinvocationPolicy: Never\n  mutations:\n"
        + mutations
    )


_DEPLOYMENTS = """\
  matchConstraints:
    resourceRules:
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["deployments"]
"""


_PODS_AND_DEPLOYMENTS = """\
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["pods"]
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["deployments"]
"""


def _validation(expression: str, extra: str = "", *, head: str = "", name: str = "demo") -> str:
    """A policy on Deployments with one validation; `head` goes before `matchConstraints`."""
    return _vap(head + _DEPLOYMENTS + f"  validations:\n    - expression: {expression}\n" + extra, name)


def _crd(served: str = "true") -> str:
    """A small Widget CRD (example.com/v1 widgets) with a typed `spec.size`."""
    return (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        "metadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n"
        "  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n"
        f"    - name: v1\n      served: {served}\n      storage: true\n      schema:\n"
        "        openAPIV3Schema:\n          type: object\n          properties:\n"
        "            spec:\n              type: object\n"
        "              properties: {size: {type: integer}}\n"
    )


_CRD_ITEMS = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                items:
                  type: array
                  items: {type: string}
"""

_WIDGETS = """\
  matchConstraints:
    resourceRules:
      - apiGroups: ["example.com"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["widgets"]
"""


_WIDGET_POLICY = _vap(
    "  matchConstraints:\n    resourceRules:\n      - apiGroups: [example.com]\n"
    "        apiVersions: [v1]\n        operations: [CREATE, UPDATE]\n        resources: [widgets]\n"
    '  validations:\n    - expression: "!has(object.spec.size) || object.spec.size <= 10"\n'
)


_CEL_COMPILE = """
    On create and update the API server compiles every CEL expression of the policy (with
    `object`, `oldObject` and `params` typed `dyn`) and rejects the object with
    `<field>: Invalid value: "<expression>": compilation failed: ERROR: <input>:line:column: ...`.
    vap-lsp reports that text, one message per error, at the offending sub-expression.
"""

RULES: tuple[Rule, ...] = (
    # --- YAML --------------------------------------------------------------------------------
    Rule(
        code="yaml-syntax",
        title="The YAML is broken",
        severity="error",
        group="yaml",
        suppressible=False,
        server="""
            `kubectl apply` cannot read the file, so nothing in the broken document reaches the
            API server. vap-lsp reports one syntax error per broken document and still checks the
            other documents of the file. Neither inline suppressions nor the configuration hide it.
        """,
        example=_validation("'true'", "     message: misaligned\n"),
        fix="Fix the indentation, quoting or bracket the message points at.",
        fixed=_validation("'true'", "      message: aligned\n"),
    ),
    Rule(
        code="template",
        title="A Helm/Go template, not a manifest yet",
        severity="information",
        group="yaml",
        server="""
            Template text (`{{ ... }}`) is not what the API server receives; the rendered output is.
            vap-lsp says so once per file instead of reporting a cascade of syntax errors.
        """,
        example=_vap(
            "  validations:\n{{- range .Values.rules }}\n    - expression: {{ . | quote }}\n{{- end }}\n"
        ),
        fix="Render the chart first (`helm template . | vap-lsp check -`), or exclude the templates "
        "in the configuration.",
        fixed=_validation("'true'"),
    ),
    Rule(
        code="template-marker",
        title="A template marker left in a value of valid YAML",
        severity="information",
        group="yaml",
        server="""
            A `{{ ... }}` inside a plain scalar (`name: app-{{.Name}}`) is valid YAML: the API server
            would receive that text as it is. Rendered bundles ship such values (for a controller
            that fills them in later), so vap-lsp checks the file and notes the first marker once,
            in case the file is a template that was meant to be rendered first. Markers inside
            quoted or block scalars (a CEL message) and in comments are not noted. A `{{` that is
            YAML structure (`name: {{ .x }}` reads as nested flow mappings, which no Kubernetes
            client decodes) or that breaks the YAML makes the file a template instead.
        """,
        example=_validation("'true'").replace(
            "name: demo\n", "name: demo\n  annotations:\n    owner: team-{{.Team}}\n"
        ),
        fix="Render the template first if it is one; otherwise nothing to do (ignore the code).",
        fixed=_validation("'true'"),
    ),
    Rule(
        code="unknown-code",
        title="An inline ignore comment naming a code no diagnostic has",
        severity="information",
        group="yaml",
        server="""
            Not the API server's: `# vap-lsp: ignore[...]` hides the codes it names, so a misspelt
            code hides nothing and the comment looks like it works. vap-lsp notes each code it
            does not know, with the nearest known code (as ruff does for unknown `noqa` codes).
            Unknown codes in `--ignore`, `--severity` and the configuration are warned about on
            the command line.
        """,
        example=_validation("'true'").replace(
            "name: demo\n", "name: demo  # vap-lsp: ignore[FieldValueInvalide]\n"
        ),
        fix="Write the code as the diagnostic shows it (`vap-lsp rule CODE` explains each one).",
        fixed=_validation("'true'").replace(
            "name: demo\n", "name: demo  # vap-lsp: ignore[FieldValueInvalid]\n"
        ),
    ),
    Rule(
        code="not-text",
        title="Not a text file",
        severity="error",
        group="yaml",
        suppressible=False,
        server="""
            A file with NUL bytes or bytes that are not UTF-8/UTF-16/UTF-32 text is not YAML;
            `kubectl` refuses it. The message names the byte offset.
        """,
        example="# a file that contains a NUL byte (\\0) or invalid UTF-8, e.g. a binary saved as .yaml",
        fix="Save the file as UTF-8 text, or exclude it from checking.",
        checked=False,
    ),
    Rule(
        code="too-large",
        title="Over a size budget (alias expansion, nesting)",
        severity="error",
        group="yaml",
        server="""
            YAML aliases can describe documents exponentially larger than their text ("billion
            laughs"); the API server's decoder limits alias expansion and nesting too. vap-lsp never
            expands aliases while parsing and stops expanding for analysis at 1,000,000 nodes, and
            at 200 levels of YAML nesting.
        """,
        example=_vap(
            "  variables: &a [{name: a, expression: '1'}, {name: a, expression: '1'}]\n"
            "  x1: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "  x2: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
            "  x3: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
            "  x4: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
            "  x5: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
            "  x6: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
        ),
        fix="Write the values out instead of nesting aliases of aliases.",
    ),
    # --- strict decoding -----------------------------------------------------------------------
    Rule(
        code="unknown-field",
        title="A field the kind does not have",
        severity="error",
        group="decoding",
        server="""
            With server-side field validation (`kubectl apply`'s default, `--validate=strict`) the
            API server rejects an object with a field its schema does not declare:
            `strict decoding error: unknown field "spec.validations[0].expresion"`.
        """,
        example=_vap(_DEPLOYMENTS + "  validations:\n    - expresion: 'true'\n"),
        fix="Correct the spelling (the quick fix suggests the nearest field) or remove the field.",
        fixed=_validation("'true'"),
    ),
    Rule(
        code="json-patch",
        title="A JSON 6902 patch that cannot apply",
        severity="error",
        group="decoding",
        server="""
            A kustomize JSON 6902 patch (`patchesJson6902`, or `patches` with a `target`) is a list
            of operations on the target object. An operation kustomize does not know, or a `path`
            the target kind's schema cannot have (a misspelt field, an index into a string), makes
            `kustomize build` fail, or adds a field the API server then rejects as unknown. vap-lsp
            resolves each path in the schema of the built-in kind the kustomization names as the
            patch's target (`group`, `version`, `kind`); values of `add`, `replace` and `test` are
            decoded as that field. Paths into a custom resource are not checked.
        """,
        example="# a file named in a kustomization's patchesJson6902, target CustomResourceDefinition\n"
        "- op: add\n  path: /spec/preserveUnknownField\n  value: false\n",
        fix="Correct the path (JSON pointer: `/spec/versions/0/served`, `~1` for a `/` in a key) or "
        "the operation (add, remove, replace, move, copy, test).",
        checked=False,
    ),
    Rule(
        code="duplicate-field",
        title="The same field twice in one mapping",
        severity="error",
        group="decoding",
        server="""
            Strict decoding rejects a mapping that sets a field twice:
            `strict decoding error: duplicate field "spec.failurePolicy"` (without strict
            validation the last value silently wins).
        """,
        example=_validation("'true'", head="  failurePolicy: Fail\n  failurePolicy: Ignore\n"),
        fix="Keep one of the two.",
        fixed=_validation("'true'", head="  failurePolicy: Fail\n"),
    ),
    Rule(
        code="type-mismatch",
        title="A value of the wrong type",
        severity="error",
        group="decoding",
        server="""
            The API server decodes the YAML (as YAML 1.1, then JSON) into its Go types and rejects
            a value of the wrong type: `json: cannot unmarshal bool into Go struct field
            Validation.spec.validations.expression of type string`. Unquoted `true`, `yes`, `on`,
            numbers and `null` are not strings.
        """,
        example=_validation("true"),
        fix="Quote the value (`expression: 'true'`) or give the type the field needs.",
        fixed=_validation("'true'"),
    ),
    Rule(
        code="api-off-by-default",
        title="An alpha or beta policy API that clusters do not serve by default",
        severity="information",
        group="decoding",
        server="""
            The API server of every supported version lists `admissionregistration.k8s.io/v1alpha1`
            and `v1beta1` among the group versions it does not serve by default (alpha and beta
            APIs are off by default); a cluster serves them only when started with
            `--runtime-config=admissionregistration.k8s.io/v1beta1=true` (or `v1alpha1`), and,
            while the kind is not GA, with its feature gate on: `MutatingAdmissionPolicy` (alpha in
            1.32, beta in 1.34, off by default in both) or `ValidatingAdmissionPolicy` (GA since
            1.30). Elsewhere `kubectl apply` answers `no matches for kind`. A cluster set up that
            way accepts the object, so this is a note; `v1` is suggested where the version serves
            the kind as `v1`.
        """,
        example=_map(
            "    - patchType: ApplyConfiguration\n      applyConfiguration:\n"
            "        expression: \"Object{metadata: Object.metadata{labels: {'a': 'b'}}}\"\n"
        ),
        fix="Use `admissionregistration.k8s.io/v1` where the cluster's version serves it; otherwise "
        "make sure the cluster runs with the `--runtime-config` and feature gate the note names.",
        checked=False,
    ),
    Rule(
        code="not-served",
        title="The selected Kubernetes version does not serve this apiVersion",
        severity="error",
        group="decoding",
        server="""
            `kubectl apply` fails with `no matches for kind "ValidatingAdmissionPolicy" in version
            "admissionregistration.k8s.io/v1alpha1"` when the cluster does not serve that version
            (alpha versions are off by default and removed later). vap-lsp checks the object
            against the nearest version that serves it and says which versions do.
        """,
        example=_validation("'true'").replace(
            "admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1alpha1"
        ),
        fix="Use an apiVersion the target version serves (`admissionregistration.k8s.io/v1` for "
        "ValidatingAdmissionPolicy), or select the cluster's version with `--kubernetes-version` or "
        "`kubernetes-version` in the configuration.",
        fixed=_validation("'true'"),
    ),
    # --- apimachinery field errors -------------------------------------------------------------
    Rule(
        code="FieldValueRequired",
        title="A required field is missing",
        severity="error",
        server="""
            The admissionregistration validation rejects the object: `spec.validations[0].expression:
            Required value: expression is not specified` (apimachinery's `field.Required`).
            Required-ness is checked after the server's defaulting, so defaulted fields are never
            reported.
        """,
        example=_vap(_DEPLOYMENTS + "  validations:\n    - message: no expression\n"),
        fix="Add the field.",
        fixed=_validation("'true'", "      message: an expression\n"),
    ),
    Rule(
        code="FieldValueInvalid",
        title="A value the API server rejects",
        severity="error",
        server="""
            `field.Invalid`: the value has the right type but breaks a rule, e.g. a name that is not
            a DNS subdomain, a bad label selector, `Deny` together with `Warn`, or an expression
            that does not compile. The message is the server's own, with the value as it prints it.
            A CustomResourceDefinition among the checked files (or given with `--crd`) is checked
            the same way: `metadata.name` must be `<plural>.<group>`, exactly one version is the
            storage version, schemas must be structural (`FieldValueRequired`,
            `FieldValueForbidden` and `FieldValueNotSupported` too).
        """,
        example=_validation("'true'", name="Demo_Policy"),
        fix="Change the value as the message says.",
        fixed=_validation("'true'"),
    ),
    Rule(
        code="FieldValueNotSupported",
        title="A value outside the allowed set",
        severity="error",
        server="""
            `field.NotSupported`: enumerations such as `failurePolicy`, `matchPolicy`,
            `validationActions` or `operations` accept only listed values:
            `Unsupported value: "Never": supported values: "Fail", "Ignore"`.
        """,
        example=_validation("'true'", head="  failurePolicy: Never\n"),
        fix="Use one of the supported values (completion offers them).",
        fixed=_validation("'true'", head="  failurePolicy: Fail\n"),
    ),
    Rule(
        code="FieldValueForbidden",
        title="A field that must not be set here",
        severity="error",
        server="""
            `field.Forbidden`: the field is not allowed in combination with another one, e.g.
            `paramRef.name` and `paramRef.selector` together (`Forbidden: name and selector are
            mutually exclusive`), or label selector `values` with the `Exists` operator.
        """,
        example=_binding(
            "  policyName: demo\n  validationActions: [Deny]\n  paramRef:\n    name: limits\n"
            "    selector: {}\n    parameterNotFoundAction: Deny\n"
        ),
        fix="Remove one of the two fields.",
        fixed=_binding(
            "  policyName: demo\n  validationActions: [Deny]\n  paramRef:\n    name: limits\n"
            "    parameterNotFoundAction: Deny\n"
        ),
    ),
    Rule(
        code="FieldValueDuplicate",
        title="The same value twice in a list that needs unique values",
        severity="error or warning",
        server="""
            `field.Duplicate`: matchCondition names, auditAnnotation keys, validationActions and
            resourceNames must be unique. Duplicate variable names are not rejected by the server
            (the later one shadows the earlier), so vap-lsp reports them as a warning.
        """,
        example=_vap(
            _DEPLOYMENTS + "  matchConditions:\n    - name: not-system\n      expression: 'true'\n"
            "    - name: not-system\n      expression: 'true'\n  validations:\n    - expression: 'true'\n"
        ),
        fix="Rename or remove the duplicate.",
        fixed=_vap(
            _DEPLOYMENTS + "  matchConditions:\n    - name: not-system\n      expression: 'true'\n"
            "  validations:\n    - expression: 'true'\n"
        ),
    ),
    Rule(
        code="FieldValueTooMany",
        title="A list longer than the server allows",
        severity="error",
        server="""
            `field.TooMany`: at most 64 `matchConditions` per policy (bindings have none)
            (`Too many: 65: must have at most 64 items`).
        """,
        example=_vap(
            _DEPLOYMENTS
            + "  matchConditions:\n"
            + "".join(f"    - {{name: c{i}, expression: 'true'}}\n" for i in range(65))
            + "  validations:\n    - expression: 'true'\n"
        ),
        fix="Combine conditions with `&&` into fewer matchConditions.",
    ),
    Rule(
        code="FieldValueTooLong",
        title="Annotations larger than 256 KiB",
        severity="error",
        server="""
            `field.TooLong`: the keys and values of `metadata.annotations` together may not exceed
            262,144 bytes (`may not be more than 262144 bytes`).
        """,
        example="metadata:\n  name: demo\n  annotations:\n    huge: <more than 256 KiB of text>",
        fix="Move large data out of annotations (into a ConfigMap referenced by `paramKind`, say).",
        checked=False,
    ),
    # --- CEL -----------------------------------------------------------------------------------
    Rule(
        code="cel-syntax",
        title="A CEL expression does not parse",
        severity="error",
        group="cel",
        server=_CEL_COMPILE,
        example=_validation('"object.spec.replicas <= "'),
        fix="Complete the expression.",
        fixed=_validation('"has(object.spec.replicas) && object.spec.replicas <= 5"'),
    ),
    Rule(
        code="cel-check",
        title="A CEL expression does not type-check in its environment",
        severity="error",
        group="cel",
        server=_CEL_COMPILE
        + """
            The environment depends on the expression kind and Kubernetes version: `params` exists
            only with `spec.paramKind`, `variables` not in matchConditions, `authorizer` not in
            messageExpressions, and a function is available only from the version that introduced
            it.
        """,
        example=_validation('"params.maxReplicas >= 1"'),
        fix="Declare what the expression uses (here `spec.paramKind`), or use what the environment has.",
        fixed=_validation("\"object.metadata.name != ''\""),
    ),
    Rule(
        code="cel-validator",
        title="A CEL literal the server's validators reject",
        severity="error",
        group="cel",
        server=_CEL_COMPILE
        + """
            Beyond type-checking, the server validates literal arguments at compile time: RE2
            regular expressions (`matches`, `find`), `duration()`/`timestamp()` literals, and
            homogeneous list/map literals.
        """,
        example=_validation("\"object.metadata.name.matches('[a-z')\""),
        fix="Fix the literal (here close the character class).",
        fixed=_validation("\"object.metadata.name.matches('[a-z]+')\""),
    ),
    Rule(
        code="cel-result",
        title="A CEL expression of the wrong result type",
        severity="error",
        group="cel",
        server="""
            The server requires validations and matchConditions to evaluate to `bool` and
            messageExpressions to `string`; anything else (including `dyn`) is rejected on create:
            `Invalid value: "<expression>": must evaluate to bool but got dyn`.
        """,
        example=_validation('"object.spec.replicas"'),
        fix="Compare or convert so the expression has the required type.",
        fixed=_validation('"has(object.spec.replicas) && object.spec.replicas <= 5"'),
    ),
    Rule(
        code="cel-program",
        title="A constant the server cannot compile or convert when it builds the program",
        severity="error",
        group="cel",
        server="""
            After compiling an expression the server builds its program, and the Kubernetes regex
            library compiles every constant pattern of `find` and `findAll` then
            (`FindRegexOptimization`). A pattern Go's `regexp` rejects fails the create or update
            with `Internal error: program instantiation failed: error parsing regexp: ...`. The
            same happens to a type conversion of a constant, which cel-go's `OptOptimize` folds
            while building the program: `int('x')` fails with `Internal error: program
            instantiation failed: type conversion error from 'string' to 'int'`.
        """,
        example=_validation("\"object.metadata.name.find('(a') == ''\""),
        fix="Fix the pattern (here close the group).",
        fixed=_validation("\"object.metadata.name.find('(a)') == ''\""),
    ),
    Rule(
        code="cel-type-check",
        title="The server's type checker warns (typed against the matched kinds)",
        severity="warning",
        group="cel",
        server="""
            The API server accepts the policy, then its type-check controller checks validations
            and messageExpressions against the schema of each kind `matchConstraints` matches and
            writes the problems into `status.typeChecking.expressionWarnings`. At admission the
            expression fails for such objects (`no such key`), so `failurePolicy` decides.
        """,
        example=_validation('"object.spec.replica <= 5"'),
        fix="Use the field the schema declares (the quick fix suggests it).",
        fixed=_validation('"has(object.spec.replicas) && object.spec.replicas <= 5"'),
    ),
    Rule(
        code="cel-cost",
        title="An expression or a budget the server's CEL cost limits can stop at admission",
        severity="information",
        group="cel",
        server="""
            The API server never estimates the cost of an admission policy's expressions when
            the policy is created (unlike CRD validation rules); it counts at admission. An
            expression whose cost passes the per-call limit (1,000,000) is cancelled
            (`operation cancelled: actual cost limit exceeded`), and an evaluation whose
            expressions together pass their budget stops (`validation failed due to running out
            of cost budget, no further validation rules will be run`); `failurePolicy` decides,
            on the largest objects. The budgets: matchConditions 2,500,000; validations
            10,000,000, the messageExpressions what the validations left; auditAnnotations
            10,000,000; each mutation 10,000,000; a variable is charged to each of those calls
            that reads it, once per call. vap-lsp estimates each expression as the API server
            estimates CRD rules (cel-go's estimator; list, map and string sizes from
            `maxItems`, `maxProperties`, `maxLength`, else the most a 3 MiB request can hold),
            and reports a worst case over a limit, naming the comprehension that dominates and
            the schema bound that would bring it under (information: the estimate is a worst
            case, real objects are usually far smaller).
        """,
        example=_CRD_ITEMS
        + "---\n"
        + _vap(
            _WIDGETS
            + "  validations:\n"
            + '    - expression: "object.spec.items.all(a, object.spec.items.exists_one(b, a == b))"\n'
        ),
        fix="""
            Bound what the expression iterates in the schema (`maxItems` on the list, `maxLength`
            on its strings; the message gives a bound that passes), or iterate less: a nested
            comprehension over one list is quadratic. Where the list is a built-in kind's, no bound
            can be added.
        """,
        fixed=_CRD_ITEMS.replace("type: array", "type: array\n                  maxItems: 20").replace(
            "items: {type: string}", "items: {type: string, maxLength: 63}"
        )
        + "---\n"
        + _vap(
            _WIDGETS
            + "  validations:\n"
            + '    - expression: "object.spec.items.all(a, object.spec.items.exists_one(b, a == b))"\n'
        ),
    ),
    Rule(
        code="cel-type-check-guarded",
        title="The server's type checker warns about a branch that cannot run for that kind",
        severity="information",
        group="cel",
        server="""
            The type-check controller checks each validation and messageExpression once per
            matched kind, branches and all: in `object.kind != 'Pod' || object.spec.containers…`
            it warns for a Deployment that `containers` is no field of its spec, although that
            branch never runs for a Deployment. The warning is real (it is in
            `status.typeChecking`) but harmless. vap-lsp decides the guards it can for each kind
            (`object.kind`, `object.apiVersion`, `request.kind`, `request.resource`,
            `request.operation`, `has()` of a field the kind lacks or always has, `oldObject`/`params` against
            null, through `!`, `&&`, `||`, `?:`, lists of kinds and variables holding such a test)
            and reports the problems that lie only in branches unreachable for a kind with this code
            instead of `cel-type-check`: one note per branch, spanning it, naming the kinds it
            cannot run for and the guard, with each of the server's warnings inside it (its text,
            at its field) as related information. A branch no matched kind can run is dead code:
            the note is tagged unnecessary, which editors show faded. A problem that can run for
            some kinds stays a `cel-type-check` warning naming those kinds.
        """,
        example=_vap(
            _PODS_AND_DEPLOYMENTS
            + "  validations:\n"
            + "    - expression: \"object.kind != 'Pod' || object.spec.containers.all(c, c.name != '')\"\n"
        ),
        fix="""
            Nothing fails at admission. To silence the server's warning as well, read the branch
            through a variable that dispatches on the kind (the server types variables holding
            objects as `dyn`), or match each kind in its own policy; or re-grade the code
            (`--severity cel-type-check-guarded=off`).
        """,
        fixed=_vap(
            _PODS_AND_DEPLOYMENTS
            + "  variables:\n    - name: containers\n"
            + "      expression: >-\n"
            + "        object.kind == 'Pod' ? object.spec.containers : object.spec.template.spec.containers\n"
            + "  validations:\n"
            + "    - expression: \"variables.containers.all(c, c.name != '')\"\n"
        ),
    ),
    Rule(
        code="vap-lsp-type-check",
        title="vap-lsp's own type check through variables",
        severity="warning or hint",
        group="cel",
        server="""
            The server's compiler and type checker read object types (and optionals) as `dyn`
            through `variables`, so `variables.spec.replicaz` passes both and fails only at
            admission (`no such key`), where `failurePolicy` decides. vap-lsp keeps the type each
            variable's expression infers and reports what only that finds: a field the schema
            lacks, or an overload no runtime value could match. It is vap-lsp's advice, not the
            server's verdict: never an error, with the variable's definition as related
            information. A warning when it holds for every matched kind with a schema, a hint
            when only for some (the expression may dispatch on `object.kind`). Fields of objects
            whose schema preserves unknown fields, and `int-or-string` values, are never reported.
        """,
        example=_vap(
            _DEPLOYMENTS
            + "  variables:\n    - name: spec\n      expression: object.spec\n"
            + '  validations:\n    - expression: "variables.spec.replicaz > 1"\n'
        ),
        fix="Use the field the schema declares.",
        fixed=_vap(
            _DEPLOYMENTS
            + "  variables:\n    - name: spec\n      expression: object.spec\n"
            + "  validations:\n"
            + '    - expression: "!has(variables.spec.replicas) || variables.spec.replicas > 1"\n'
        ),
    ),
    Rule(
        code="cel-type-check-extra",
        title="vap-lsp's own typed check of an expression the server never type-checks",
        severity="warning or hint",
        group="cel",
        server="""
            The server's type checker covers only validations and messageExpressions of
            ValidatingAdmissionPolicies. vap-lsp checks matchConditions, variables,
            auditAnnotations and MutatingAdmissionPolicy expressions the same way and reports a
            field the schema lacks (a warning for one matched kind, a hint for several, where the
            expression may dispatch on the kind). Never in a `has()` test (false at run time), in a
            branch a guard rules out for the kind, or in a variable read only in such branches
            (variables are evaluated lazily). Never on an object that may hold any field at
            run time: one whose schema preserves unknown fields
            (`x-kubernetes-preserve-unknown-fields`), declares no properties, or is a map.
        """,
        example=_vap(
            _DEPLOYMENTS
            + '  matchConditions:\n    - name: big\n      expression: "object.spec.replica > 5"\n'
            "  validations:\n    - expression: 'true'\n"
        ),
        fix="Use a field the schema declares.",
        fixed=_vap(
            _DEPLOYMENTS + "  matchConditions:\n    - name: big\n"
            '      expression: "has(object.spec.replicas) && object.spec.replicas > 5"\n'
            "  validations:\n    - expression: 'true'\n"
        ),
    ),
    Rule(
        code="map-apply-configuration",
        title="An applyConfiguration that fails at admission",
        severity="warning or hint",
        group="cel",
        server="""
            The server does not type-check MutatingAdmissionPolicy expressions. At admission an
            `Object{...}` literal with a field the target kind's schema lacks fails the mutation
            (`field not declared in schema`), and `failurePolicy` decides.
        """,
        example=_map(
            "    - patchType: ApplyConfiguration\n      applyConfiguration:\n"
            '        expression: "Object{spec: Object.spec{replica: 1}}"\n'
        ),
        fix="Use the schema's field names (the message suggests the nearest).",
        fixed=_map(
            "    - patchType: ApplyConfiguration\n      applyConfiguration:\n"
            '        expression: "Object{spec: Object.spec{replicas: 1}}"\n'
        ),
    ),
    Rule(
        code="map-json-patch",
        title="A JSON Patch that fails at admission",
        severity="warning or hint",
        group="cel",
        server="""
            A `JSONPatch{...}` with an unknown `op`, a missing `value`/`from`, a malformed JSON
            Pointer or a path the target kind's schema lacks fails at admission, and `failurePolicy`
            decides.
        """,
        example=_map(
            "    - patchType: JSONPatch\n      jsonPatch:\n"
            "        expression: \"[JSONPatch{op: 'add', path: '/spec/replica', value: 1}]\"\n"
        ),
        fix="Fix the operation or the path.",
        fixed=_map(
            "    - patchType: JSONPatch\n      jsonPatch:\n"
            "        expression: \"[JSONPatch{op: 'add', path: '/spec/replicas', value: 1}]\"\n"
        ),
    ),
    # --- across files --------------------------------------------------------------------------
    Rule(
        code="policy-not-found",
        title="A binding whose policy is not in the workspace",
        severity="warning",
        group="workspace",
        server="""
            The API server accepts a binding to a policy that does not exist; the binding does
            nothing until the policy is created. Reported only when a whole folder was checked
            (or, in the editor, after the workspace scan), so that the policy could have been seen.
        """,
        example=_binding("  policyName: demo\n  validationActions: [Deny]\n"),
        fix="Fix `policyName`, or add the policy to the checked files.",
        fixed=_validation("'true'") + "---\n" + _binding("  policyName: demo\n  validationActions: [Deny]\n"),
    ),
    Rule(
        code="param-ref-missing",
        title="A binding without paramRef for a policy that reads params unguarded",
        severity="warning",
        group="workspace",
        server="""
            When the policy declares `spec.paramKind` and the binding has no `spec.paramRef`, the
            server evaluates the policy with `params` null (`CollectParams`: "Validate with nil
            params"). Every expression that reads `params.x` without a null guard then fails to
            evaluate, and `failurePolicy` decides the outcome. A policy that guards its reads
            (`params == null || ...`) works without a paramRef, and is not reported.
        """,
        example=_validation(
            '"object.spec.replicas <= params.data.maxReplicas"',
            head="  paramKind: {apiVersion: v1, kind: ConfigMap}\n",
        )
        + "---\n"
        + _binding("  policyName: demo\n  validationActions: [Deny]\n"),
        fix="Add `paramRef` (`name` or `selector`, and `parameterNotFoundAction`), or guard the reads.",
        fixed=_validation(
            '"object.spec.replicas <= params.data.maxReplicas"',
            head="  paramKind: {apiVersion: v1, kind: ConfigMap}\n",
        )
        + "---\n"
        + _binding(
            "  policyName: demo\n  validationActions: [Deny]\n  paramRef:\n    name: limits\n"
            "    parameterNotFoundAction: Deny\n"
        ),
    ),
    Rule(
        code="typing-unavailable",
        title="Expressions of this rule are untyped: no schema for a matched kind",
        severity="information",
        group="workspace",
        server="""
            The API server accepts the policy either way. Its type-check controller types
            `object` from the schema of each kind a rule of `matchConstraints` resolves to, and
            checks nothing for what it cannot resolve: `*` in apiGroups, apiVersions or
            resources, subresources, every kind after the 10th of a rule, a resource the cluster
            has no CRD for. vap-lsp types the same way, from the bundled Kubernetes schemas and
            the CRDs it is given, so a custom resource whose CRD it was not given is untyped here
            even where the cluster has the CRD. The same holds for `params` when `paramKind`
            names a kind without a schema. In an untyped expression a misspelt field is found
            only at admission (`no such key`), so vap-lsp says once per rule which kinds are
            `dyn`.
        """,
        example=_WIDGET_POLICY,
        fix="""
            Give vap-lsp the CRD: keep it among the checked files, pass `--crd FILE|DIR` (repeatable,
            also `kubectl get crd -o yaml` output), list it under `crds` in `.vap-lsp.yaml` /
            `[tool.vap-lsp]`, or set `vapLsp.crds` in the editor. For `*` rules, name the resources.
        """,
        fixed=_WIDGET_POLICY + "---\n" + _crd(),
    ),
    Rule(
        code="crd-not-served",
        title="A CustomResourceDefinition with no served version",
        severity="information",
        group="validation",
        server="""
            The API server accepts a CRD whose versions all have `served: false`, but then has no
            REST mapping for the kind: no object of it can be created, no policy can match it,
            and no CEL expression is typed from its schema. (The other CRD checks, such as
            `metadata.name` = `<plural>.<group>`, exactly one storage version and structural
            schemas, are the server's create-time errors and carry the `FieldValue*` codes.)
        """,
        example=_crd(served="false"),
        fix="Set `served: true` on the version clients and policies use.",
        fixed=_crd(),
    ),
    # --- advice --------------------------------------------------------------------------------
    Rule(
        code="old-object-on-create",
        title="oldObject read on CREATE without a null guard",
        severity="warning",
        group="advice",
        server="""
            `oldObject` is `null` on CREATE. A policy that matches CREATE and reads
            `oldObject.x` without a guard fails to evaluate on every create (`no such key`), and
            `failurePolicy` decides.
        """,
        example=_validation('"oldObject.metadata.name == object.metadata.name"'),
        fix="Guard it: `oldObject == null || ...`, or `request.operation == 'UPDATE'` in a matchCondition.",
        fixed=_validation('"oldObject == null || oldObject.metadata.name == object.metadata.name"'),
    ),
    Rule(
        code="object-on-delete",
        title="object read on DELETE without a null guard",
        severity="warning",
        group="advice",
        server="""
            `object` is `null` on DELETE (the request carries only the stored `oldObject`). A
            validating policy that matches DELETE and reads `object.x` without a guard fails to
            evaluate on every delete (`no such key`), and `failurePolicy` decides. A guard in a
            matchCondition (`request.operation != 'DELETE'`) covers every expression; a failing
            messageExpression only falls back to `message`, so it is not reported. Guards are
            decided on the parsed expression: `object == null`, `has(object.f)` (one level only:
            `has(object.spec.f)` selects `spec` of null and fails), `request.operation` compared
            with or tested `in` a list, through `&&`, `||`, `!`, `?:` and variables. DELETE is not
            seen when `excludeResourceRules` (the policy's, or those of every binding of it)
            exclude it.
        """,
        example=_vap(
            "  matchConstraints:\n    resourceRules:\n      - apiGroups: [apps]\n"
            "        apiVersions: [v1]\n        operations: [CREATE, UPDATE, DELETE]\n"
            "        resources: [deployments]\n"
            "  validations:\n    - expression: \"'team' in object.metadata.labels\"\n"
        ),
        fix="Guard it: `object == null || ...`, or `request.operation != 'DELETE'` in a matchCondition.",
        fixed=_vap(
            "  matchConstraints:\n    resourceRules:\n      - apiGroups: [apps]\n"
            "        apiVersions: [v1]\n        operations: [CREATE, UPDATE, DELETE]\n"
            "        resources: [deployments]\n"
            "  validations:\n"
            "    - expression: \"object == null || 'team' in object.?metadata.labels.orValue({})\"\n"
        ),
    ),
    Rule(
        code="kind-never-matched",
        title="A kind test no matched kind passes",
        severity="warning",
        group="advice",
        server="""
            `object.kind`, `oldObject.kind` and `request.kind.kind` hold the kind of a matched
            resource, spelt as its schema spells it (`Pod`, not `pod`). A comparison with a kind the
            rules never match has the same value for every request: the branch it guards never
            runs (or always does), and the server's type-check warnings in that branch are only
            `cel-type-check-guarded` notes. A warning when some compared string is no kind any
            schema has (a typo: the guard it was meant to be does nothing); a kind that exists but
            is not matched is dead code (`kind-test-dead`). Said only when every resource rule is
            typed (a `*` or an unknown resource may hold any kind) and none of the compared
            strings is a matched kind.
        """,
        example=_vap(
            _PODS_AND_DEPLOYMENTS
            + "  validations:\n"
            + "    - expression: \"object.kind != 'pod' || object.spec.containers.all(c, c.image != '')\"\n"
        ),
        fix="Spell the kind as the schema does (`'Pod'`), or match the resource the test is for.",
        fixed=_vap(
            _PODS_AND_DEPLOYMENTS
            + "  validations:\n"
            + "    - expression: \"object.kind != 'Pod' || object.spec.containers.all(c, c.image != '')\"\n"
        ),
    ),
    Rule(
        code="namespace-ignored",
        title="A namespace on a cluster-scoped policy or binding",
        severity="hint",
        group="advice",
        server="""
            ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings are
            cluster-scoped. The API server accepts a `metadata.namespace` on them and clears it
            before storing the object (`rest.BeforeCreate`:
            `EnsureObjectNamespaceMatchesRequestNamespace`, "cluster-scoped, clear namespace"):
            the value does nothing. (kube-apiserver's static manifests refuse it: there it is an
            error of the loader.)
        """,
        example=_vap(_PODS_AND_DEPLOYMENTS).replace("metadata:\n", "metadata:\n  namespace: default\n", 1),
        fix="Remove `metadata.namespace`.",
        fixed=_vap(_PODS_AND_DEPLOYMENTS),
    ),
    Rule(
        code="kind-test-dead",
        title="A kind test for a kind the policy does not match: dead code",
        severity="information",
        group="advice",
        server="""
            A comparison of `object.kind`, `oldObject.kind` or `request.kind.kind` with a kind
            that exists (a built-in kind, or a CRD's) but that the rules never match has the same
            value for every request: what it guards never runs, or always does. Harmless, so
            information, tagged unnecessary (editors show it faded, as dead code). A kind no schema
            has is a typo and a warning (`kind-never-matched`). Said only when every resource rule
            is typed.
        """,
        example=_vap(
            _PODS_AND_DEPLOYMENTS
            + "  validations:\n"
            + "    - expression: \"object.kind != 'CronJob' || object.spec.suspend != true\"\n"
        ),
        fix="Remove the test and what it guards, or match the kind it is for.",
        fixed=_vap(
            _PODS_AND_DEPLOYMENTS + "  validations:\n" + "    - expression: \"object.metadata.name != ''\"\n"
        ),
    ),
    Rule(
        code="namespace-object-null",
        title="namespaceObject read where it is null",
        severity="warning",
        group="advice",
        server="""
            `namespaceObject` is `null` for cluster-scoped kinds (a Namespace itself included) and
            in every matchCondition, which the server evaluates without the namespace
            (`matchconditions/matcher.go`). Reading `namespaceObject.x` there without a guard fails
            to evaluate for each such request, and `failurePolicy` decides. Guards are decided on
            the parsed expression, per matched kind: `namespaceObject == null`,
            `has(namespaceObject.metadata)` (one level only), `request.namespace == ''` (empty for
            a cluster-scoped kind), a test of `object.kind` that rules the cluster-scoped kinds out.
        """,
        example=_vap(
            '  matchConstraints:\n    resourceRules:\n      - apiGroups: [""]\n'
            "        apiVersions: [v1]\n        operations: [CREATE, UPDATE]\n"
            "        resources: [pods, persistentvolumes]\n"
            "  validations:\n"
            "    - expression: \"'team' in namespaceObject.metadata.labels\"\n"
        ),
        fix="Guard it: `namespaceObject == null || ...`, or match only namespaced kinds.",
        fixed=_vap(
            '  matchConstraints:\n    resourceRules:\n      - apiGroups: [""]\n'
            "        apiVersions: [v1]\n        operations: [CREATE, UPDATE]\n"
            "        resources: [pods, persistentvolumes]\n"
            "  validations:\n"
            "    - expression: \"namespaceObject == null || 'team' in namespaceObject.metadata.labels\"\n"
        ),
    ),
    Rule(
        code="message-not-cel",
        title="A message that looks like a template or CEL",
        severity="information",
        group="advice",
        server="""
            `message` is shown verbatim; only `messageExpression` is evaluated. `{{ }}` is never
            interpolated.
        """,
        example=_validation("'true'", '      message: "{{ object.metadata.name }} is not allowed"\n'),
        fix="Use `messageExpression` (a CEL string expression) for a computed message.",
        fixed=_validation(
            "'true'", "      messageExpression: \"object.metadata.name + ' is not allowed'\"\n"
        ),
    ),
    Rule(
        code="optional-field",
        title="An optional field read without has() or `.?`",
        severity="hint",
        group="advice",
        server="""
            Reading a field that can be absent at that point of admission fails when it is absent
            (`no such key`), and `failurePolicy` decides. The server does not warn about it.
            vap-lsp hints only where the field can really be absent: not on `kind`, `apiVersion`,
            `metadata`, a defaulted field, one the schema requires (checked by the server's
            validation before validating admission, after mutating admission for custom
            resources), one the built-in validation requires although the schema leaves it
            optional (a ReplicationController's `spec.template`, a container's `image`: in a
            validating policy and in stored objects, not in a mutating one, which runs before
            that validation), `metadata.name` (except on CREATE in a mutating policy, before a
            `generateName` becomes a name) or `metadata.namespace` of a namespaced kind.
        """,
        example=_validation('"object.spec.template.spec.hostNetwork == false"'),
        fix="Guard with `has()` or use optional selection with a default (`.?x.orValue(...)`).",
        fixed=_validation(
            '"!has(object.spec.template.spec.hostNetwork) || !object.spec.template.spec.hostNetwork"'
        ),
    ),
    Rule(
        code="string-at-admission",
        title="Timestamp, duration and bytes fields are strings at admission",
        severity="warning or hint",
        group="advice",
        server="""
            Admission policies read `object`, `oldObject`, `params` and `namespaceObject` as JSON
            (`objectToResolveVal`: the unstructured form of the object). A field the type checker
            types `google.protobuf.Timestamp` (`format: date-time` or `date`:
            `metadata.creationTimestamp`, a condition's `lastTransitionTime`),
            `google.protobuf.Duration` (`format: duration`) or `bytes` (`format: byte`: a Secret's
            `data`, a ConfigMap's `binaryData`) is a plain string there, base64 text for bytes. The
            server compiles the policy for admission with `object`, `oldObject` and `params` as
            `dyn` (and `namespaceObject` with timestamps), so neither its compiler nor its type
            checker objects to `object.metadata.creationTimestamp < timestamp('2024-01-01T00:00:00Z')`;
            at admission `_<_` gets a string and a timestamp, has no overload for them and fails
            with `no such overload` whenever the field is present, and `failurePolicy` decides.
            The same for `-`/`+` with a duration or timestamp, `getFullYear()` and the other
            accessors, and bytes functions.

            vap-lsp finds the values that come straight from those roots (fields, indexes,
            comprehension variables over their lists and maps, `filter`/`map` results,
            `orValue()`, variables holding them) and reports a call no overload of which takes
            what it gets at run time (a warning; a hint when only some matched kinds type the
            field so, or in a messageExpression, which falls back to `message`). Hints: `==`/`!=`
            or `in` with a timestamp, duration or bytes value, always false (true) at run time
            rather than an error, and `size()` of a bytes field, which counts the characters of
            its base64 text. `string()`, `type()`, `dyn()`, `has()`, `timestamp()` and
            `duration()` of such a field work at run time (a string overload exists) and are
            never reported, nor is a comparison of two such fields (two strings), nor a branch a
            guard rules out for the kind.
        """,
        example=_validation("\"object.metadata.creationTimestamp < timestamp('2024-01-01T00:00:00Z')\""),
        fix="""
            Convert the string: `timestamp(object.metadata.creationTimestamp)` (and
            `duration(...)`) type-checks (an identity overload for a timestamp) and at admission
            parses the RFC 3339 text (the quick fix does it). A `format: date` value
            (`2024-05-01`) needs a time first: `timestamp(string(x) + 'T00:00:00Z')`. A
            `namespaceObject` field is declared a timestamp even at admission, so `timestamp()`
            would pick its timestamp overload: `timestamp(dyn(namespaceObject.metadata.creationTimestamp))`.
            Bytes: `base64.decode()` is not in Kubernetes' CEL environment; compare the base64
            text, `string(object.data.user) == 'YWRtaW4='`.
        """,
        fixed=_validation(
            "\"timestamp(object.metadata.creationTimestamp) < timestamp('2024-01-01T00:00:00Z')\""
        ),
    ),
    # --- run against samples (editor) ------------------------------------------------------------
    Rule(
        code="denied",
        title="A sample object the policy denies",
        severity="error",
        group="run",
        server="""
            "Run against samples" admitted this object offline, as the API server's policy plugin
            would, and a validation denied it; the message is the server's.
        """,
        example="# on a sample Deployment, after Run against samples:\n"
        "# denied by require-team-label: Deployment web has no team label",
        fix="Fix the sample (or the policy, if the denial is not intended).",
        checked=False,
    ),
    Rule(
        code="admission-warning",
        title="A sample object admitted with a warning",
        severity="warning",
        group="run",
        server="A validation with the `Warn` action failed: the API server admits the object and "
        "returns the message as a warning to the client.",
        example="# warning from require-team-label: Deployment web has no team label",
        fix="Fix the sample, or accept the warning.",
        checked=False,
    ),
    Rule(
        code="mutated",
        title="A sample object a MutatingAdmissionPolicy changed",
        severity="information",
        group="run",
        server="The mutation applied; the report shows the patch and the patched object.",
        example="# mutated by add-default-label (see the report for the patched object)",
        fix="Nothing to fix: it says what admission would do.",
        checked=False,
    ),
    Rule(
        code="admitted",
        title="A sample object the policy admits",
        severity="hint",
        group="run",
        server="The policy matched the object and did not deny it.",
        example="# admitted by require-team-label",
        fix="Nothing to fix.",
        checked=False,
    ),
    Rule(
        code="fails-on-samples",
        title="A policy expression that fails or is false for samples",
        severity="warning",
        group="run",
        server="Shown on the policy's expression: the samples it denied or failed to evaluate for.",
        example="# fails for 2 sample(s): Deployment/web, Deployment/api",
        fix="Fix the expression or the samples.",
        checked=False,
    ),
    Rule(
        code="test-passed",
        title="An admission test case that passed",
        severity="hint",
        group="run",
        server="A case of a test file (`*.vaptest.yaml`, kaptest, kyverno-test) about this policy passed.",
        example="# passed: a Deployment with a team label is admitted",
        fix="Nothing to fix.",
        checked=False,
    ),
    Rule(
        code="test-failed",
        title="An admission test case that failed",
        severity="error",
        group="run",
        server="The case's expectation (admit, deny, skip, error, mutate, messages) did not hold; "
        "`vap-lsp test` reports the same failure.",
        example="# test case failed: a Deployment without a team label is denied: expected deny, got admit",
        fix="Fix the policy or the expectation.",
        checked=False,
    ),
    Rule(
        code="bad-test-file",
        title="A test file that cannot be run",
        severity="error",
        group="run",
        server="The test file has an unknown field, a missing path or a reference to no object; "
        "`vap-lsp test` exits 2 on it.",
        example="# resources: samples.yaml: no such file or directory",
        fix="Fix the file as the message says.",
        checked=False,
    ),
    # --- static manifests --------------------------------------------------------------------
    # Examples are folders kube-apiserver loads (`vap-lsp check --static-manifests DIR`); the
    # static manifests tests run each one (tests/static_manifests/test_static_rule_examples.py).
    Rule(
        code="static-version",
        title="A Kubernetes version without static manifests (or with its gate off)",
        severity="error or information",
        group="static",
        server="""
            Static manifests (`staticManifestsDir`) arrive in Kubernetes 1.36 behind the alpha
            `ManifestBasedAdmissionControlConfig` feature gate, off by default: without
            `--feature-gates=ManifestBasedAdmissionControlConfig=true` kube-apiserver 1.36 refuses
            the configuration (`staticManifestsDir: Forbidden`) and does not start. From 1.37 the
            gate is beta and on. Before 1.36 the admission plugins read no configuration at all:
            kube-apiserver starts without the policies (an error here). In 1.36 vap-lsp checks as if
            the gate were on and says so (information).
        """,
        example="# vap-lsp check --static-manifests policies/ --kubernetes-version 1.35\n"
        "# error: Kubernetes 1.35 has no static manifests: ...",
        fix="Target Kubernetes 1.36 with the feature gate on, or 1.37 and later.",
        checked=False,
    ),
    Rule(
        code="static-read",
        title="A file of the folder kube-apiserver cannot read",
        severity="error",
        group="static",
        server="""
            kube-apiserver reads every `.yaml`, `.yml` and `.json` entry of the folder (any case)
            that is not a folder itself; one it cannot read (a dangling symbolic link, a link to a
            folder, no permission) stops the load: `failed to read file "...": ...`.
        """,
        example="# policies/old.yaml -> ../gone.yaml (a dangling symbolic link)",
        fix="Remove the entry or make it a readable file.",
        checked=False,
    ),
    Rule(
        code="static-split",
        title="A document separator the loader refuses",
        severity="error",
        group="static",
        server="""
            The loader cuts each file into documents at every line that starts with `---`; only
            spaces or a `#` comment may follow on that line. Anything else (`--- |`, `---foo`)
            stops the load: `failed to split YAML documents in file "...": invalid Yaml document
            separator: |`.
        """,
        example="apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "--- |\n",
        fix="Put nothing but a comment after `---`.",
        checked=False,
    ),
    Rule(
        code="static-decode",
        title="A document the loader cannot decode",
        severity="error",
        group="static",
        server="""
            Each document is decoded with a scheme that knows only `admissionregistration.k8s.io`
            and `List`: a document without `kind` (also one that holds only a comment, or only `---`)
            is `Object 'Kind' is missing in '...'`, any other kind `no kind "ConfigMap" is
            registered for version "v1" in scheme "pkg/admission/...validating_loader.go:35"`
            (the scheme is named after where kube-apiserver creates it). In a `List`, each item is
            decoded the same way: `failed to decode list item: ...`.
        """,
        example="apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "metadata:\n  name: demo.static.k8s.io\nspec:\n  policyName: demo.static.k8s.io\n"
        "  validationActions: [Deny]\n---\n# the end\n",
        fix="Keep only the four policy kinds (and Lists of them) in the folder; no document may be empty "
        "but for white space.",
        checked=False,
    ),
    Rule(
        code="static-kind",
        title="A kind the plugin does not load",
        severity="error",
        group="static",
        server="""
            The ValidatingAdmissionPolicy plugin loads only `ValidatingAdmissionPolicy` and
            `ValidatingAdmissionPolicyBinding` of `admissionregistration.k8s.io/v1` (and their
            typed lists), the MutatingAdmissionPolicy plugin only the mutating pair; anything else
            it decodes is `unsupported resource type *v1beta1.ValidatingAdmissionPolicy`. Each
            plugin has its own folder.
        """,
        example="apiVersion: admissionregistration.k8s.io/v1beta1\nkind: ValidatingAdmissionPolicy\n"
        "metadata:\n  name: demo.static.k8s.io\n",
        fix="Use `admissionregistration.k8s.io/v1`; mutating policies go in the mutating plugin's folder.",
        checked=False,
    ),
    Rule(
        code="static-name",
        title="A static policy or binding without the reserved name suffix",
        severity="error",
        group="static",
        server="""
            Every policy and binding loaded from the folder must have a name ending with
            `.static.k8s.io` (`"deny-privileged" in file "..." must have a name ending with
            ".static.k8s.io"`). Nothing makes a name from `generateName` here: without `name` the
            validation says `metadata.name: Required value`. The suffix is reserved: the API refuses
            such names (1.37+), so a static policy can never clash with one created through it.
        """,
        example="apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "metadata:\n  name: deny-privileged\n",
        fix="Rename it `deny-privileged.static.k8s.io`.",
        checked=False,
    ),
    Rule(
        code="static-duplicate-name",
        title="Two static policies (or bindings) with one name",
        severity="error",
        group="static",
        server="""
            Names are unique among the folder's policies, and among its bindings, across files:
            `duplicate name "x.static.k8s.io" found in file "b.yaml" (previously seen in
            "a.yaml")`. Files are read in name order.
        """,
        example="# a.yaml and b.yaml both define ValidatingAdmissionPolicy x.static.k8s.io",
        fix="Rename one, or delete the copy.",
        checked=False,
    ),
    Rule(
        code="static-params",
        title="Parameters in a static policy or binding",
        severity="error",
        group="static",
        server="""
            Static policies cannot have parameters: `ValidatingAdmissionPolicy "x.static.k8s.io":
            spec.paramKind is not supported for static manifests`, `binding "b.static.k8s.io":
            spec.paramRef is not supported for static manifests`.
        """,
        example="apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
        "metadata:\n  name: demo.static.k8s.io\nspec:\n  paramKind: {apiVersion: v1, kind: ConfigMap}\n",
        fix="Write the values into the expressions (or variables) instead.",
        checked=False,
    ),
    Rule(
        code="static-policy-name",
        title="A static binding naming a policy without the suffix",
        severity="error",
        group="static",
        server="""
            A static binding binds a static policy only: `binding "b.static.k8s.io":
            spec.policyName "deny" must end with ".static.k8s.io"`.
        """,
        example="apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "metadata:\n  name: demo.static.k8s.io\nspec:\n  policyName: demo\n  validationActions: [Deny]\n",
        fix="Name the static policy (`demo.static.k8s.io`).",
        checked=False,
    ),
    Rule(
        code="static-binding-reference",
        title="A static binding whose policy is not in the folder",
        severity="error",
        group="static",
        server="""
            Once every file is read, each binding's policy must be among the policies loaded from
            the same folder: `binding "b.static.k8s.io" references policy "p.static.k8s.io" which
            does not exist in the manifest directory`. (Through the API a binding may come before
            its policy; here it may not.)
        """,
        example="apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "metadata:\n  name: demo.static.k8s.io\nspec:\n  policyName: missing.static.k8s.io\n"
        "  validationActions: [Deny]\n",
        fix="Add the policy to the folder, or correct `spec.policyName`.",
        checked=False,
    ),
    Rule(
        code="static-not-read",
        title="Something in the folder kube-apiserver does not read",
        severity="information",
        group="static",
        server="""
            kube-apiserver reads only the files directly in the folder whose names end in `.yaml`,
            `.yml` or `.json`: policies in a subfolder, or in `policy.yaml.disabled`, are not loaded.
        """,
        example="# policies/extra/deny.yaml (a subfolder)",
        fix="Move the files up, or leave them out on purpose.",
        checked=False,
    ),
    Rule(
        code="static-plugin",
        title="A folder that holds both plugins' kinds",
        severity="information",
        group="static",
        server="""
            Each admission plugin has its own `staticManifestsDir` and loads only its own kinds; a
            folder with both validating and mutating kinds fails to load in either. Without
            `--plugin`, vap-lsp checks it as the plugin whose kinds it holds most.
        """,
        example="# policies/ holds a ValidatingAdmissionPolicy and a MutatingAdmissionPolicy",
        fix="Split the folder in two, one per plugin.",
        checked=False,
    ),
    Rule(
        code="admission-config",
        title="An admission plugin configuration kube-apiserver refuses",
        severity="error",
        group="static",
        server="""
            The ValidatingAdmissionPolicy and MutatingAdmissionPolicy entries of an
            `AdmissionConfiguration` hold a `ValidatingAdmissionPolicyConfiguration` or a
            `MutatingAdmissionPolicyConfiguration` of `apiserver.config.k8s.io/v1` (1.36+), each
            for its own plugin (`unexpected type: *policyconfig.MutatingAdmissionPolicyConfiguration`);
            another kind is `no kind ... is registered ...`. kube-apiserver does not start.
        """,
        example="apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
        "  - name: ValidatingAdmissionPolicy\n    configuration:\n"
        "      apiVersion: apiserver.config.k8s.io/v1\n      kind: MutatingAdmissionPolicyConfiguration\n"
        "      staticManifestsDir: /etc/kubernetes/vap\n",
        fix="Give each plugin its own kind.",
        checked=False,
    ),
    Rule(
        code="static-manifests-dir",
        title="A staticManifestsDir kube-apiserver refuses (or that cannot be checked here)",
        severity="error, warning or information",
        group="static",
        server="""
            `staticManifestsDir` must be an absolute path (`staticManifestsDir: Invalid value:
            "policies": must be an absolute file path`) of a folder that exists where
            kube-apiserver runs (`unable to read`, `must be a directory`); otherwise kube-apiserver
            does not start. vap-lsp checks existence on this machine: a path that is not here is
            looked for beside the configuration file (its trailing components), and a folder found
            is checked as the plugin loads it.
        """,
        example="apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
        "  - name: ValidatingAdmissionPolicy\n    configuration:\n"
        "      apiVersion: apiserver.config.k8s.io/v1\n      kind: ValidatingAdmissionPolicyConfiguration\n"
        "      staticManifestsDir: policies\n",
        fix="Write the absolute path the folder has on the control-plane nodes.",
        checked=False,
    ),
    # --- vap-lsp itself ------------------------------------------------------------------------
    Rule(
        code="internal-error",
        title="vap-lsp could not finish analysing an object",
        severity="warning",
        group="internal",
        server="""
            Not a verdict of the API server: a check of vap-lsp failed on this object. The other
            findings are still reported. Please report it with the YAML that triggers it.
        """,
        example="# vap-lsp could not finish analysing this object (KeyError: ... at rules.py:123)",
        fix="Report the bug; suppress it meanwhile with `# vap-lsp: ignore[internal-error]`.",
        checked=False,
    ),
)
