# ruff: noqa: E501  (the server's messages and the Go tests' YAML are kept as written, one line each)
"""What the loader's decoder says, document by document, in its words.

Each row is a file kube-apiserver 1.37.2 refuses, with the error it returns, read from the Go
oracle (benchmarks/static_manifests_oracle.py: k8s.io/kubernetes v1.37.2
`LoadValidatingManifestsFromDirectory`); the row's comment says what it shows. vap-lsp reports
every error of the file; kube-apiserver's (the first) must be among them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.static_manifests.folders import agrees, expected, loader_errors, run
from vap_lsp.static_manifests.decode import Family, go_sharp_v, registered, split_api_version

ORACLE: list[tuple[str, str, str]] = [
    (
        "bad_gv",  # an apiVersion with two slashes: schema.ParseGroupVersion
        """apiVersion: a/b/c
kind: X
""",
        "error loading {dir}/a.yaml: unexpected GroupVersion string: a/b/c",
    ),
    (
        "comment_doc",  # a last document that is only a comment is a document: it decodes to nothing
        """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: b.static.k8s.io
spec:
  policyName: p.static.k8s.io
  validationActions: [Deny]
---
# the end
""",
        "error loading {dir}/a.yaml: Object 'Kind' is missing in '# the end'",
    ),
    (
        "crlf",  # CRLF line ends; go-yaml counts the line of the value
        "apiVersion: admissionregistration.k8s.io/v1\r\nkind: ValidatingAdmissionPolicyBinding\r\nmetadata:\r\n  name: b.static.k8s.io\r\n  name: b.static.k8s.io\r\n",
        'error loading {dir}/a.yaml: strict decoding error: yaml: unmarshal errors:\n  line 5: key "name" already set in map',
    ),
    (
        "gen_name",  # nothing makes a name from generateName: the validation requires one
        """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  generateName: p-
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  validations:
  - expression: "true"
""",
        'error loading {dir}/a.yaml: ValidatingAdmissionPolicy "": metadata.name: Required value: name or generateName is required',
    ),
    (
        "item_nokind",  # a List item without kind: its JSON as sigs.k8s.io/yaml made it (keys sorted, HTML-escaped)
        """apiVersion: v1
kind: List
items:
- metadata:
    name: x
  spec: {b: 1, a: "<&>"}
""",
        'error loading {dir}/a.yaml: failed to decode list item: Object \'Kind\' is missing in \'{"metadata":{"name":"x"},"spec":{"a":"\\u003c\\u0026\\u003e","b":1}}\'',
    ),
    (
        "json_dup",  # a JSON document: encoding/json strictness, not go-yaml's
        """{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "b.static.k8s.io"}, "spec": {"policyName": "p.static.k8s.io", "policyName": "q.static.k8s.io", "validationActions": ["Deny"]}}
""",
        'error loading {dir}/a.yaml: strict decoding error: duplicate field "spec.policyName"',
    ),
    (
        "kind_number",  # kind that is no string
        """apiVersion: v1
kind: 5
""",
        "error loading {dir}/a.yaml: couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string",
    ),
    (
        "list_in_typed_bad",  # an item of a typed list of bindings naming a policy without the suffix
        """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBindingList
items:
- metadata:
    name: b.static.k8s.io
  spec:
    policyName: p
    validationActions: [Deny]
""",
        'error loading {dir}/a.yaml: binding "b.static.k8s.io": spec.policyName "p" must end with ".static.k8s.io"',
    ),
    (
        "list_type",  # a wrong type in a List item: fatal, decoding the item
        """apiVersion: v1
kind: List
items:
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicyBinding
  metadata:
    name: b.static.k8s.io
  spec:
    policyName: 5
""",
        "error loading {dir}/a.yaml: failed to decode list item: json: cannot unmarshal number into Go struct field ValidatingAdmissionPolicyBindingSpec.spec.policyName of type string",
    ),
    (
        "list_unknown",  # an unknown field in a List item
        """apiVersion: v1
kind: List
items:
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicyBinding
  metadata:
    name: b.static.k8s.io
  spec:
    policyName: p.static.k8s.io
    validationActions: [Deny]
    bar: 2
""",
        'error loading {dir}/a.yaml: failed to decode list item: strict decoding error: unknown field "spec.bar"',
    ),
    (
        "map_in_vap",  # a MutatingAdmissionPolicy in the validating folder: decoded (and strict) before refused
        """apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: p.static.k8s.io
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  validations:
  - expression: "true"
""",
        'error loading {dir}/a.yaml: strict decoding error: unknown field "spec.validations"',
    ),
    (
        "merge_dup",  # a merge key and the same key written: strict go-yaml refuses the overlap
        """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: &m
  name: b.static.k8s.io
spec:
  <<: {policyName: x}
  policyName: p.static.k8s.io
  validationActions: [Deny]
""",
        'error loading {dir}/a.yaml: strict decoding error: yaml: unmarshal errors:\n  line 7: key "policyName" already set in map',
    ),
    (
        "nested_dup",  # two duplicate keys: one go-yaml error lists both
        """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: b.static.k8s.io
  name: c.static.k8s.io
spec:
  policyName: p.static.k8s.io
  validationActions:
  - Deny
  validationActions:
  - Warn
""",
        'error loading {dir}/a.yaml: strict decoding error: yaml: unmarshal errors:\n  line 5: key "name" already set in map\n  line 11: key "validationActions" already set in map',
    ),
    (
        "nover",  # kind without apiVersion
        """kind: ValidatingAdmissionPolicy
metadata: {name: x}
""",
        "error loading {dir}/a.yaml: Object 'apiVersion' is missing in 'kind: ValidatingAdmissionPolicy\nmetadata: {name: x}'",
    ),
    (
        "ns",  # a namespace on a cluster-scoped object: the REST API clears it, the loader validates it
        """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: b.static.k8s.io
  namespace: default
spec:
  policyName: p.static.k8s.io
  validationActions: [Deny]
""",
        'error loading {dir}/a.yaml: ValidatingAdmissionPolicyBinding "b.static.k8s.io": metadata.namespace: Forbidden: not allowed on this type',
    ),
    (
        "only_sep",  # a file that is only ---
        """---
""",
        "error loading {dir}/a.yaml: Object 'Kind' is missing in '---'",
    ),
    (
        "scalar",  # a document that is a scalar
        """hello
""",
        'error loading {dir}/a.yaml: couldn\'t get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    ),
    (
        "sepfoo",  # text after --- on a separator line
        """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p.static.k8s.io
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  validations:
  - expression: "true"
---x
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p.static.k8s.io
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  validations:
  - expression: "true"
""",
        'failed to split YAML documents in file "{dir}/a.yaml": invalid Yaml document separator: x',
    ),
    (
        "status",  # an unversioned meta kind, under any group-version
        """apiVersion: foo/v1
kind: APIGroup
""",
        "error loading {dir}/a.yaml: unsupported resource type *v1.APIGroup",
    ),
    (
        "typed_type",  # a wrong type in a typed list item: the JSON path names items
        """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyList
items:
- metadata:
    name: p.static.k8s.io
  spec:
    validations:
    - expression: true
""",
        "error loading {dir}/a.yaml: json: cannot unmarshal bool into Go struct field Validation.items.spec.validations.expression of type string",
    ),
    (
        "typed_unknown",  # an unknown field in a typed list item: the path has its index
        """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyList
items:
- metadata:
    name: p.static.k8s.io
  spec:
    foo: 1
    matchConstraints:
      resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["pods"]
    validations:
    - expression: "true"
""",
        'error loading {dir}/a.yaml: strict decoding error: unknown field "items[0].spec.foo"',
    ),
]


@pytest.mark.parametrize(("case", "text", "server"), ORACLE, ids=[c[0] for c in ORACLE])
def test_the_decoders_words(case: str, text: str, server: str, tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes(text.encode())
    result = run(tmp_path, plugin="validating")
    ours = loader_errors(result)
    assert agrees(expected(server, tmp_path), ours), (case, ours)


def test_the_kinds_the_scheme_knows() -> None:
    """k8s.io/api admissionregistration/{v1,v1beta1,v1alpha1}/register.go (1.36-1.38), the meta
    kinds every group-version registers, the unversioned kinds `Scheme.New` finds by kind."""
    vap = registered("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy")
    assert (
        vap is not None and vap.family is Family.VALIDATING and vap.go_type == "*v1.ValidatingAdmissionPolicy"
    )
    old = registered("admissionregistration.k8s.io", "v1beta1", "MutatingAdmissionPolicyBinding")
    assert old is not None and old.family is None and old.go_type == "*v1beta1.MutatingAdmissionPolicyBinding"
    assert registered("admissionregistration.k8s.io", "v1alpha1", "ValidatingWebhookConfiguration") is None
    assert registered("admissionregistration.k8s.io", "v1", "DeleteOptions") is not None
    assert registered("", "v1", "ConfigMap") is None
    lst = registered("anything.example.com", "v9", "List")
    assert lst is not None and lst.go_type == "*v1.List"
    assert split_api_version("a/b/c") is None and split_api_version("v1") == ("", "v1")


def test_keys_as_go_prints_them() -> None:
    assert [go_sharp_v(v) for v in ("x", 'q"', 9, True, None, 1.5)] == [
        '"x"',
        '"q\\""',
        "9",
        "true",
        "<nil>",
        "1.5",
    ]
