# ruff: noqa: E501  (one case per line: root, path, declaration, kind, point, guarantee)
"""`guarantees.field_guarantee` case by case: whether a field is present when a policy's
expression runs, and the reason hover gives (issue 39: the decision was tested through whole
policies, the reasons and the metadata branches hardly at all).

The order of a request in kube-apiserver (`staging/src/k8s.io/apiserver/pkg/registry/generic/
registry/store.go` `Create`/`Update`, `registry/rest/create.go` `BeforeCreate`): decode and
default, mutating admission, then `BeforeCreate` (the name from `generateName`, uid,
creationTimestamp, generation for the kinds whose strategy sets it), validation, validating
admission. The stored `oldObject` and `params` went through all of it when they were written.
"""

from __future__ import annotations

import pytest

from vap_lsp.analysis.model.guarantees import (
    Guarantee,
    Point,
    Subject,
    field_guarantee,
    type_path,
)
from vap_lsp.cel import types as t
from vap_lsp.cel.types import FieldDecl, ObjectType
from vap_lsp.policy.kinds import PolicyKind

POD = Subject("", "v1", "Pod", False, True, "io.k8s.api.core.v1.Pod")
NODE = Subject("", "v1", "Node", False, False, "io.k8s.api.core.v1.Node")
WIDGET = Subject("example.com", "v1", "Widget", True, True, "example.com.v1.Widget")
VALIDATING = Point(PolicyKind.VAP, frozenset({"CREATE", "UPDATE"}))
MUTATING = Point(PolicyKind.MAP, frozenset({"CREATE", "UPDATE"}))
MUTATING_UPDATE = Point(PolicyKind.MAP, frozenset({"UPDATE"}))
MUTATING_CONNECT = Point(PolicyKind.MAP, frozenset({"CONNECT"}))

REQUIRED = FieldDecl(t.STRING, required=True)
DEFAULTED = FieldDecl(t.STRING, has_default=True, default='"x"')
DEFAULTED_NO_TEXT = FieldDecl(t.STRING, has_default=True)
OPTIONAL = FieldDecl(t.STRING)

NAME_ALWAYS = Guarantee(True, "always set: a name (or one generated from generateName) is required")
NAME_GENERATED = Guarantee(
    False,
    "absent on CREATE when the object has metadata.generateName: the name is generated after mutating admission",
)
SYSTEM_BEFORE = Guarantee(True, "always set by the API server before validating admission")
SYSTEM_AFTER = Guarantee(False, "set by the API server after mutating admission")


@pytest.mark.parametrize(
    ("root", "path", "decl", "subject", "point", "expected"),
    [
        ("object", ("kind",), None, POD, MUTATING, Guarantee(True, "always set: every object at admission carries its kind")),
        ("object", ("apiVersion",), None, None, MUTATING, Guarantee(True, "always set: every object at admission carries its apiVersion")),
        ("object", ("metadata",), None, None, MUTATING, Guarantee(True, "always set: every object at admission has metadata")),
        # metadata.namespace: by the kind's scope
        ("object", ("metadata", "namespace"), OPTIONAL, POD, VALIDATING, Guarantee(True, "always set: the API server sets the request's namespace")),
        ("object", ("metadata", "namespace"), OPTIONAL, NODE, VALIDATING, Guarantee(False, "never set: Node is cluster-scoped", never=True)),
        ("object", ("metadata", "namespace"), OPTIONAL, None, VALIDATING, Guarantee(False, "optional in the schema")),
        # metadata.name: generated from generateName after mutating admission, on CREATE
        ("object", ("metadata", "name"), OPTIONAL, POD, VALIDATING, NAME_ALWAYS),
        ("object", ("metadata", "name"), OPTIONAL, POD, MUTATING, NAME_GENERATED),
        ("object", ("metadata", "name"), OPTIONAL, POD, MUTATING_UPDATE, NAME_ALWAYS),
        ("object", ("metadata", "name"), OPTIONAL, POD, MUTATING_CONNECT, NAME_ALWAYS),
        ("oldObject", ("metadata", "name"), OPTIONAL, POD, MUTATING, NAME_ALWAYS),
        # uid, creationTimestamp: set by BeforeCreate, after mutating admission
        ("object", ("metadata", "uid"), OPTIONAL, POD, VALIDATING, SYSTEM_BEFORE),
        ("object", ("metadata", "creationTimestamp"), OPTIONAL, POD, MUTATING, SYSTEM_AFTER),
        ("oldObject", ("metadata", "uid"), OPTIONAL, POD, MUTATING, SYSTEM_BEFORE),
        ("params", ("metadata", "uid"), OPTIONAL, POD, MUTATING, SYSTEM_BEFORE),
        # required: a built-in kind's required field is always serialized and validated
        ("object", ("spec",), REQUIRED, POD, MUTATING, Guarantee(True, "required: always serialized, and required by the server's validation")),
        # a CRD's required field: validated before validating admission, not before mutating
        ("object", ("spec",), REQUIRED, WIDGET, VALIDATING, Guarantee(True, "required by the CRD's schema, validated before this point")),
        ("oldObject", ("spec",), REQUIRED, WIDGET, MUTATING, Guarantee(True, "required by the CRD's schema, validated before this point")),
        (
            "object",
            ("spec",),
            REQUIRED,
            WIDGET,
            MUTATING,
            Guarantee(False, "required by the CRD's schema, but validated only after mutating admission: absent in a request that validation will reject"),
        ),
        # a required field of an unknown kind (params without a schema subject): the schema says so
        ("params", ("spec",), REQUIRED, None, MUTATING, Guarantee(True, "required by the schema")),
        # the schema's default, with and without its value
        ("object", ("spec",), DEFAULTED, WIDGET, MUTATING, Guarantee(True, 'defaulted to "x" (the schema\'s default, applied when the object is decoded)')),
        ("object", ("spec",), DEFAULTED_NO_TEXT, WIDGET, MUTATING, Guarantee(True, "defaulted (the schema's default, applied when the object is decoded)")),
        ("object", ("spec",), OPTIONAL, WIDGET, VALIDATING, Guarantee(False, "optional in the schema")),
        ("object", ("spec",), None, WIDGET, VALIDATING, Guarantee(False, "optional in the schema")),
        # a built-in default (SetDefaults_PodSpec: restartPolicy)
        ("object", ("spec", "restartPolicy"), OPTIONAL, POD, VALIDATING, Guarantee(True, 'defaulted to "Always" by the API server (SetDefaults_PodSpec (core/v1))')),
        # a custom resource has no built-in defaults, even at a built-in's path
        ("object", ("spec", "restartPolicy"), OPTIONAL, WIDGET, VALIDATING, Guarantee(False, "optional in the schema")),
    ],
)  # fmt: skip
def test_field_guarantee(
    root: str,
    path: tuple[str, ...],
    decl: FieldDecl | None,
    subject: Subject | None,
    point: Point,
    expected: Guarantee,
) -> None:
    assert field_guarantee(root, path, decl, subject, point, "1.35") == expected


def test_generation_follows_the_registry_and_the_point() -> None:
    """`metadata.generation`: the registry's strategy sets it for the kinds that track it (a Pod
    from 1.33, workloads always) in `BeforeCreate`, after mutating admission."""
    deploy = Subject("apps", "v1", "Deployment", False, True, "io.k8s.api.apps.v1.Deployment")
    set_before = Guarantee(True, "always set: the registry sets it (1 on create) before this point")
    set_after = Guarantee(False, "set by the registry after mutating admission (1 on create)")
    path = ("metadata", "generation")
    assert field_guarantee("object", path, OPTIONAL, deploy, VALIDATING, "1.35") == set_before
    assert field_guarantee("object", path, OPTIONAL, deploy, MUTATING, "1.35") == set_after
    assert field_guarantee("oldObject", path, OPTIONAL, deploy, MUTATING, "1.35") == set_before
    # a Pod's generation: only since 1.33; before, the schema decides
    assert field_guarantee("object", path, OPTIONAL, POD, VALIDATING, "1.33") == set_before
    assert field_guarantee("object", path, OPTIONAL, POD, VALIDATING, "1.32") == Guarantee(
        False, "optional in the schema"
    )
    # a custom resource's generation is tracked by the registry (custom=True)
    assert field_guarantee("object", path, OPTIONAL, WIDGET, VALIDATING, "1.35") == set_before


def test_type_path() -> None:
    root = ObjectType("io.k8s.api.core.v1.Pod", {})
    nested = ObjectType("io.k8s.api.core.v1.Pod.spec.containers.@idx", {})
    other = ObjectType("io.k8s.api.apps.v1.Deployment.spec", {})
    assert type_path(root, "spec", "io.k8s.api.core.v1.Pod") == ("spec",)
    assert type_path(nested, "image", "io.k8s.api.core.v1.Pod") == ("spec", "containers", "@idx", "image")
    assert type_path(other, "replicas", "io.k8s.api.core.v1.Pod") is None
    assert type_path(None, "x", "io.k8s.api.core.v1.Pod") is None
    assert type_path(t.STRING, "x", "io.k8s.api.core.v1.Pod") is None
    # a type whose name only starts like the root's is not inside it
    assert type_path(ObjectType("io.k8s.api.core.v1.PodX", {}), "a", "io.k8s.api.core.v1.Pod") is None


def test_type_path_segments_map_to_the_defaulted_fields() -> None:
    """`@idx` (a list item) and `@elem` (a map value) are the defaulting model's ITEM and VALUE."""
    path = ("spec", "containers", "@idx", "terminationMessagePolicy")
    assert field_guarantee("object", path, OPTIONAL, POD, VALIDATING, "1.35") == Guarantee(
        True, 'defaulted to "File" by the API server (SetDefaults_Container (core/v1))'
    )
    unescaped = ("spec", "containers", "idx", "terminationMessagePolicy")
    assert field_guarantee("object", unescaped, OPTIONAL, POD, VALIDATING, "1.35").present is False


def test_escaped_segments_are_the_properties_they_name() -> None:
    """apiserver `pkg/cel/escaping.go`: a property that is a CEL reserved word is `__word__` in a
    type path, `__dash__`/`__dot__`/`__slash__`/`__underscores__` stand for `-`, `.`, `/`, `__`;
    anything else is itself."""
    from vap_lsp.analysis.model.guarantees import _raw

    assert _raw("__namespace__") == "namespace"
    assert _raw("__in__") == "in"
    assert _raw("__notreserved__") == "__notreserved__"
    assert _raw("xxinxx") == "xxinxx"
    assert _raw("a__dash__b__dot__c__slash__d__underscores__e") == "a-b.c/d__e"
    assert _raw("plain") == "plain"


def test_field_decl_follows_the_path() -> None:
    from vap_lsp.analysis.model.guarantees import field_decl

    inner = ObjectType("T.spec", {"replicas": FieldDecl(t.INT, required=True)})
    root = ObjectType("T", {"spec": FieldDecl(inner), "items": FieldDecl(t.list_of(inner))})
    found = field_decl(root, ("spec", "replicas"))
    assert found is not None and found.required
    assert field_decl(root, ("spec", "nope")) is None
    assert field_decl(root, ("nope", "replicas")) is None
    assert field_decl(root, ("items", "@idx", "replicas")) is found
    assert field_decl(root, ("spec", "@idx")) is None  # not a list
