"""After "Run against samples": a failing validation's sub-expression values inline (inlay
hints, the first failing sample) and in hover (every sample), with the element a comprehension
decided on as a place in the sample's file (`features.run_samples.value_hints/value_hover`)."""

from __future__ import annotations

from vap_lsp.features.run_samples import Source, run_against_samples, value_hints, value_hover

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: images}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  variables:
    - name: containers
      expression: object.spec.containers
  validations:
    - expression: "variables.containers.all(c, c.image.startsWith('registry.example.com/'))"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: images-binding}
spec: {policyName: images, validationActions: [Deny]}
"""

PODS = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers:
    - name: app
      image: registry.example.com/web:2.1
    - name: debug
      image: docker.io/library/busybox:1.36
---
apiVersion: v1
kind: Pod
metadata: {name: tool, namespace: default}
spec:
  containers:
    - name: tool
      image: quay.io/tool:1
"""


def _run() -> tuple[Source, Source, list]:  # type: ignore[type-arg]
    policy = Source("file:///ws/policy.yaml", "/ws/policy.yaml", POLICY, 1)
    pods = Source("file:///ws/pods.yaml", "/ws/pods.yaml", PODS)
    outcome = run_against_samples(policy.uri, "images", [policy, pods], [], "1.34")
    assert outcome.summary == "images: 2 denied"
    return policy, pods, outcome.values[policy.uri]


def test_inlay_hints_show_the_first_failing_samples_values_after_each_sub_expression() -> None:
    _, _, values = _run()
    hints = value_hints(values)
    shown = [(POLICY[: h.offset].rsplit(" ", 1)[-1], h.label) for h in hints]
    assert shown == [
        ("c.image", ' = "docker.io/library/busybox:1.36"'),
        ("c.image.startsWith('registry.example.com/')", " → false"),
    ]
    assert hints[0].tooltip == (
        'Pod default/web: `object.spec.containers[1].image` = "docker.io/library/busybox:1.36" '
        "(all() element object.spec.containers[1])"
    )


def test_hover_lists_every_sample_and_links_the_element_in_the_sample_file() -> None:
    _, pods, values = _run()
    offset = POLICY.index("c.image.startsWith") + 2  # inside `c.image`
    found = value_hover(values, offset)
    assert found is not None
    span, text = found
    assert POLICY[span.start : span.end] == "c.image"
    assert '- Pod default/web: `object.spec.containers[1].image` = "docker.io/library/busybox:1.36"' in text
    assert '- Pod default/tool: `object.spec.containers[0].image` = "quay.io/tool:1"' in text
    web = next(v for v in values if v.sample == "Pod default/web")
    assert web.witness_uri == pods.uri and web.witness_span is not None
    assert PODS[web.witness_span.start :].startswith("name: debug")  # the element, in pods.yaml
    assert value_hover(values, POLICY.index("matchConstraints")) is None
