# ruff: noqa: E501  (expected server messages are long and kept on one line each)
"""What the API server says about the corpus files it rejects (../shared/corpus).

Shared by the rule-level and the engine-level corpus tests. Each entry is a real mistake,
with the reason; every file not listed must get no error at all.
"""

from __future__ import annotations

# The handwritten detail (`: at least one validation action is required`) up to 1.36; from 1.37
# declarative validation answers without it (the oracle, issue 34): the common prefix.
_NO_ACTIONS = "spec.validationActions: Required value"
_KYVERNO_PARTIAL_VAP = [
    "spec.matchConstraints: Required value",
    "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
    "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
]
_KYVERNO_PARTIAL_VAPB = ["spec.policyName: Required value", _NO_ACTIONS]
_CHAINSAW = (
    "kyverno__kyverno/test/conformance/chainsaw/generate-validating-admission-policy/validatingpolicy/"
)

# file → the server errors it must produce (first 120 characters of each message).
KNOWN_BAD: dict[str, list[str]] = {
    # Bindings written for v1alpha1 of Kubernetes 1.26, before validationActions (1.27) became required.
    **{
        f"jpbetz__validation-admission-policy-examples/{d}/vapb.yaml": [_NO_ACTIONS]
        for d in (
            "brokenbinding",
            "complex",
            "crd",
            "failclosed",
            "failopen",
            "immutability",
            "matching",
            "metadata",
            "noparams",
            "pods",
            "policyvalidationerrors",
            "request",
            "scale",
        )
    },
    "jpbetz__validation-admission-policy-examples/configmap/vapb-configmap.yaml": [_NO_ACTIONS],
    "jpbetz__validation-admission-policy-examples/multicrd/setup/vapb.yaml": [_NO_ACTIONS],
    **{
        f"douglasmakey__k8s-validating-admission-policy/{f}.yaml": [_NO_ACTIONS]
        for f in (
            "force-ha-for-all",
            "force-ha-object-binding",
            "force-ha-policy",
            "latest-policy",
            "prod-ready-policy",
        )
    },
    "kubescape__cel-admission-library/docs/validating-admission-policies/"
    "deny-pods-without-app-label-policy-binding.yaml": [_NO_ACTIONS],
    # kyverno CLI test inputs: a binding without validationActions / parameterNotFoundAction, a rule
    # without operations.
    "kyverno__kyverno/test/cli/test-validating-admission-policy/with-params/policy.yaml": [
        "spec.paramRef.parameterNotFoundAction: Required value",
        _NO_ACTIONS,
    ],
    "kyverno__kyverno/test/cli/test-validating-admission-policy/match-namespaces/policy.yaml": [
        "spec.matchConstraints.resourceRules[0].operations: Required value"
    ],
    # chainsaw assertion fragments (partial objects matched against generated ones), not manifests.
    **{
        f"{_CHAINSAW}{d}/validatingadmissionpolicy.yaml": _KYVERNO_PARTIAL_VAP
        for d in ("autogen-enabled", "generation-config/default", "generation-config/disabled")
    },
    **{
        f"{_CHAINSAW}{d}/validatingadmissionpolicybinding.yaml": _KYVERNO_PARTIAL_VAPB
        for d in ("autogen-enabled", "generation-config/default", "generation-config/disabled")
    },
    # celtest inputs: compiled directly by a test, never created through the API (no name, no matchConstraints).
    "kubernetes__kubernetes/staging/src/k8s.io/apiserver/pkg/admission/testing/celtest/testdata/"
    "mutating-admission-policy.yaml": [
        "metadata.name: Required value: name or generateName is required",
        "spec.matchConstraints: Required value",
        "spec.reinvocationPolicy: Required value",
    ],
    "kubernetes__kubernetes/staging/src/k8s.io/apiserver/pkg/admission/testing/celtest/testdata/"
    "validating-admission-policy.yaml": [
        "metadata.name: Required value: name or generateName is required",
        "spec.matchConstraints: Required value",
        'spec.auditAnnotations[0].key: Invalid value: "pod-name": requires metadata.name be non-empty',
    ],
    # Listed in SOURCES.md: paramKind written with group/version instead of apiVersion.
    "kubernetes__website/content/en/examples/access/deployment-replicas-policy.yaml": [
        "spec.paramKind.apiVersion: Required value"
    ],
    # v1 binding with a paramRef but no parameterNotFoundAction (required since v1beta1).
    "kubernetes__website/content/en/examples/validatingadmissionpolicy/binding-with-param-prod.yaml": [
        "spec.paramRef.parameterNotFoundAction: Required value"
    ],
    # Listed in SOURCES.md: a fragment containing `...`, not a complete manifest. Its `spec` is
    # null, and a null spec is defaulted (failurePolicy: Fail) like an empty one.
    "kubernetes__website/content/en/examples/validatingadmissionpolicy/failure-policy-ignore.yaml": [
        "metadata.name: Required value: name or generateName is required",
        "spec.matchConstraints: Required value",
        "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
        "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
    ],
    # Upper-case letters in metadata.name.
    "pfnet__kaptest/internal/tester/testdata/vap-standard-resources.yaml": [
        'metadata.name: Invalid value: "deployment-replicas-with-matchCondition": a lowercase RFC 1123 subdomain'
    ],
}

# kyverno chainsaw assertions of generated policies: their ownerReferences have no uid (the
# generated object's uid is not known to the test), which ValidateObjectMeta rejects
# (apimachinery validateOwnerReference). Found by the oracle (issue 34). Directory under
# chainsaw/ -> the files there, `<kind>` standing for `<kind>admissionpolicy.yaml`.
_OWNER_UID = "metadata.ownerReferences[0].uid: Required value: must not be empty"
_CHAINSAW_OWNED: dict[str, tuple[str, ...]] = {
    "generate-mutating-admission-policy-alpha/applyconfiguration": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-alpha/autogen-enabled": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-alpha/generation-config/default": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-alpha/generation-config/disabled": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-alpha/jsonpatch": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-alpha/with-cel-exceptions": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-alpha/with-multiple-exceptions": ("mutatingbinding",),
    "generate-mutating-admission-policy-v1/applyconfiguration": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-v1/autogen-enabled": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-v1/generation-config/default": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-v1/generation-config/disabled": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-v1/jsonpatch": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-v1/with-cel-exceptions": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy-v1/with-multiple-exceptions": ("mutatingbinding",),
    "generate-mutating-admission-policy/applyconfiguration": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy/autogen-enabled": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy/generation-config/default": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy/generation-config/disabled": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy/jsonpatch": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy/with-cel-exceptions": ("mutating", "mutatingbinding"),
    "generate-mutating-admission-policy/with-multiple-exceptions": ("mutatingbinding",),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/block-ephemeral-containers": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/block-exec-in-pods": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-all-match-resource": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-any-exclude-namespace-match-resource": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-any-exclude-resource-match-with-namespace-selector": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-any-exclude-resource-match-with-object-selector": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-any-exclude-resource": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-any-match-multiple-resources": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-any-match-resource": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-any-match-resources-by-names": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-match-all-exclude-one": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-match-kind-with-wildcard": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-match-resource-in-specific-namespace": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-with-an-exception-excluding-namespaces": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-with-an-exception": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/clusterpolicy/standard/generate/cpol-with-two-exceptions": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/validatingpolicy/autogen-enabled": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/validatingpolicy/check-deployment-labels": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/validatingpolicy/generation-config/default": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/validatingpolicy/generation-config/disabled": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/validatingpolicy/generation-config/enabled": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/validatingpolicy/missing-action": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/validatingpolicy/with-cel-exception": (
        "validating",
        "validatingbinding",
    ),
    "generate-validating-admission-policy/validatingpolicy/with-finegrained-exception": (
        "validatingbinding",
    ),
    "generate-validating-admission-policy/validatingpolicy/with-multiple-exceptions": ("validatingbinding",),
}

for _dir, _kinds in _CHAINSAW_OWNED.items():
    for _kind in _kinds:
        _rel = f"kyverno__kyverno/test/conformance/chainsaw/{_dir}/{_kind.replace('binding', '')}admissionpolicy{'binding' if _kind.endswith('binding') else ''}.yaml"
        KNOWN_BAD[_rel] = [_OWNER_UID, *KNOWN_BAD.get(_rel, [])]

# CEL that the API server's create-time compilation rejects (SOURCES.md and review of each case).
CEL_KNOWN_BAD: dict[str, list[str]] = {
    # Intentionally broken expressions (`x > y`, `!!!`).
    "jpbetz__validation-admission-policy-examples/policyvalidationerrors/vap.yaml": [
        "spec.validations[2].expression: Invalid value: \"x > y\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'x'",
        "spec.validations[2].expression: Invalid value: \"x > y\": compilation failed: ERROR: <input>:1:5: undeclared reference to 'y'",
        "spec.validations[4].expression: Invalid value: \"!!!\": compilation failed: ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>'",
    ],
    # Typo `object,spec` (comma for dot) in both validations; the server rejects the policy.
    "gnunn1__validating-admission-policies/configuration/deployments/probes-must-be-defined.yaml": [
        "spec.validations[0].expression: Invalid value: \"object,spec.template.spec.containers.all(container,has(container.readinessProbe))\": compilation failed: ERROR: <input>:1:7: Syntax error: mismatched input ','",
        "spec.validations[1].expression: Invalid value: \"object,spec.template.spec.containers.all(container,has(container.livenessProbe))\": compilation failed: ERROR: <input>:1:7: Syntax error: mismatched input ','",
    ],
    # Calls `startWith`, which does not exist (startsWith).
    "kubernetes__website/content/en/examples/access/validating-admission-policy-match-conditions.yaml": [
        "spec.validations[0].expression: Invalid value: \"object.metadata.name.startWith('demo')\": compilation failed: ERROR: <input>:1:31: undeclared reference to 'startWith'",
    ],
    # `'…' + variables.maxReplicas` where the variable is inferred as int: no `string + int` overload.
    "pfnet__kaptest/examples/complicated/complicated-policy.yaml": [
        "spec.validations[0].messageExpression: Invalid value: \"'replicas must be less than ' + variables.maxReplicas\": compilation failed: ERROR: <input>:1:31: found no matching overload for '_+_' applied to '(string, int)'",
    ],
    "pfnet__kaptest/internal/tester/testdata/vap-with-namespaces.yaml": [
        "spec.validations[0].messageExpression: Invalid value: \"'replicas must be equal or less than ' + variables.maxReplicas\": compilation failed: ERROR: <input>:1:40: found no matching overload for '_+_' applied to '(string, int)'",
    ],
    # JSONPatch entries written as plain maps with string values where JSONPatch{} is needed.
    "soulwhisper__homelab-ops/kubernetes/apps/database-system/dragonfly-operator/app/policy.yaml": [
        'spec.mutations[0].jsonPatch.expression: Invalid value: "[\\n  {\\n    \\"op\\": \\"add\\",\\n    \\"path\\": \\"/spec/template/spec/containers/[name=manager]/env/-\\",\\n    \\"value\\": {\\n      \\"name\\": \\"HTTP_PROXY\\",\\n      \\"value\\": \\"http://172.19.82.10:1080\\"\\n    }\\n  },\\n  {\\n    \\"op\\": \\"add\\",\\n    \\"path\\": \\"/spec/template/spec/containers/[name=manager]/env/-\\",\\n    \\"value\\": {\\n      \\"name\\": \\"HTTPS_PROXY\\",\\n      \\"value\\": \\"http://172.19.82.10:1080\\"\\n    }\\n  },\\n  {\\n    \\"op\\": \\"add\\",\\n    \\"path\\": \\"/spec/template/spec/containers/[name=manager]/env/-\\",\\n    \\"value\\": {\\n      \\"name\\": \\"NO_PROXY\\",\\n      \\"value\\": \\".cluster.local.,.cluster.local,.svc,localhost,127.0.0.1,10.100.0.0/16\\"\\n    }\\n  }\\n]\\n": compilation failed: ERROR: <input>:5:14: expected type \'string\' but found \'map(string, string)\'',
        'spec.mutations[0].jsonPatch.expression: Invalid value: "[\\n  {\\n    \\"op\\": \\"add\\",\\n    \\"path\\": \\"/spec/template/spec/containers/[name=manager]/env/-\\",\\n    \\"value\\": {\\n      \\"name\\": \\"HTTP_PROXY\\",\\n      \\"value\\": \\"http://172.19.82.10:1080\\"\\n    }\\n  },\\n  {\\n    \\"op\\": \\"add\\",\\n    \\"path\\": \\"/spec/template/spec/containers/[name=manager]/env/-\\",\\n    \\"value\\": {\\n      \\"name\\": \\"HTTPS_PROXY\\",\\n      \\"value\\": \\"http://172.19.82.10:1080\\"\\n    }\\n  },\\n  {\\n    \\"op\\": \\"add\\",\\n    \\"path\\": \\"/spec/template/spec/containers/[name=manager]/env/-\\",\\n    \\"value\\": {\\n      \\"name\\": \\"NO_PROXY\\",\\n      \\"value\\": \\".cluster.local.,.cluster.local,.svc,localhost,127.0.0.1,10.100.0.0/16\\"\\n    }\\n  }\\n]\\n": compilation failed: ERROR: <input>:13:14: expected type \'string\' but found \'map(string, string)\'',
        'spec.mutations[0].jsonPatch.expression: Invalid value: "[\\n  {\\n    \\"op\\": \\"add\\",\\n    \\"path\\": \\"/spec/template/spec/containers/[name=manager]/env/-\\",\\n    \\"value\\": {\\n      \\"name\\": \\"HTTP_PROXY\\",\\n      \\"value\\": \\"http://172.19.82.10:1080\\"\\n    }\\n  },\\n  {\\n    \\"op\\": \\"add\\",\\n    \\"path\\": \\"/spec/template/spec/containers/[name=manager]/env/-\\",\\n    \\"value\\": {\\n      \\"name\\": \\"HTTPS_PROXY\\",\\n      \\"value\\": \\"http://172.19.82.10:1080\\"\\n    }\\n  },\\n  {\\n    \\"op\\": \\"add\\",\\n    \\"path\\": \\"/spec/template/spec/containers/[name=manager]/env/-\\",\\n    \\"value\\": {\\n      \\"name\\": \\"NO_PROXY\\",\\n      \\"value\\": \\".cluster.local.,.cluster.local,.svc,localhost,127.0.0.1,10.100.0.0/16\\"\\n    }\\n  }\\n]\\n": compilation failed: ERROR: <input>:21:14: expected type \'string\' but found \'map(string, string)\'',
    ],
}

# Errors that come from decoding rather than from the validation rules: broken YAML and
# strict-decoding errors (SOURCES.md "Known-bad or suspicious manifests").
DECODING_KNOWN_BAD: dict[str, list[str]] = {
    # The folded scalar under `messageExpression: >` is not indented.
    "jpbetz__kubecon/2023/eu/required-labels.yaml": ["YAML syntax error: could not find expected ':'"],
    # objectSelector given as a list instead of a LabelSelector.
    "jpbetz__kubecon/2023/eu/ratcheting.yaml": [
        "json: cannot unmarshal array into Go struct field MatchResources.spec.matchConstraints.objectSelector of type v1.LabelSelector"
    ],
    # paramKind written with group/version instead of apiVersion.
    "kubernetes__website/content/en/examples/access/deployment-replicas-policy.yaml": [
        'unknown field "spec.paramKind.group"',
        'unknown field "spec.paramKind.version"',
    ],
}


_WEBSITE_STATIC = "kubernetes__website/content/en/examples/access/manifest-admission-control/"
_RESERVED = 'names ending with ".static.k8s.io" are re'
# Static manifests (KEP-5793): written for a staticManifestsDir, so their names end in the suffix the
# API reserves for them, and through the API Kubernetes 1.37+ refuses them (1.36 only warns; the
# engine-level corpus test checks at the newest version). As kube-apiserver loads them they are
# fine: tests/static_manifests/test_website_examples.py.
STATIC_MANIFESTS: dict[str, list[str]] = {
    _WEBSITE_STATIC + "deny-privileged-policy.yaml": [
        'metadata.name: Invalid value: "example-deny-privileged.static.k8s.io": ' + _RESERVED,
        'metadata.name: Invalid value: "example-deny-privileged-binding.static.k8s.io": ' + _RESERVED,
    ],
    _WEBSITE_STATIC + "list-format-policy.yaml": [
        'metadata.name: Invalid value: "example-require-labels.static.k8s.io": ' + _RESERVED,
        'metadata.name: Invalid value: "example-require-labels-binding.static.k8s.io": ' + _RESERVED,
    ],
    _WEBSITE_STATIC + "protect-admission-resources.yaml": [
        'metadata.name: Invalid value: "example-protect-admission-resources.static.k8s.io": ' + _RESERVED,
        'metadata.name: Invalid value: "example-protect-admission-resources-binding.static.k8s.io": '
        + _RESERVED,
    ],
}
