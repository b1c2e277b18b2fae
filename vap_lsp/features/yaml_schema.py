"""What the schema says about a field of a Kubernetes object: shared by YAML hover, completion
and quick fixes, so all three agree on types, required fields, allowed values and defaults.

The OpenAPI documents of admissionregistration carry no enums; the allowed values are the
validation sets of the API server (`vap_lsp.policy.rules`), keyed by field name here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vap_lsp.defaulting import ITEM, VALUE, DefaultedField, defaulted_fields
from vap_lsp.policy import rules
from vap_lsp.policy.kinds import POLICY_GROUP, PolicyKind, recognise
from vap_lsp.schema.store import JsonDict, SchemaSet, get_schema_set
from vap_lsp.schema.walk import go_struct_name, is_int_or_string
from vap_lsp.yaml.model import Path

ADMISSION_PREFIX = "io.k8s.api.admissionregistration."
LABEL_SELECTOR_REQUIREMENT = "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement"

# Allowed values of admissionregistration fields (field name -> the server's validation set).
ENUMS: dict[str, tuple[str, ...]] = {
    "failurePolicy": rules.SUPPORTED_FAILURE_POLICIES,
    "matchPolicy": rules.SUPPORTED_MATCH_POLICIES,
    "operations": rules.SUPPORTED_OPERATIONS,
    "scope": rules.SUPPORTED_SCOPES,
    "validationActions": rules.SUPPORTED_VALIDATION_ACTIONS,
    "reason": rules.SUPPORTED_REASONS,
    "reinvocationPolicy": rules.SUPPORTED_REINVOCATION_POLICIES,
    "patchType": rules.SUPPORTED_PATCH_TYPES,
    "parameterNotFoundAction": rules.PARAMETER_NOT_FOUND_ACTIONS,
}
LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")

# Server-side defaulting (vap_lsp.policy.defaults), shown in hover.
SERVER_DEFAULTS: dict[str, str] = {
    "failurePolicy": "Fail",
    "matchPolicy": "Equivalent",
    "scope": "*",
    "namespaceSelector": "{}",
    "objectSelector": "{}",
}


@dataclass(frozen=True)
class ObjectSchema:
    schema_set: SchemaSet
    definition: str
    policy_kind: PolicyKind | None
    group_version: str  # the object's own version ("v1", "v1beta1", ...)
    group: str = ""
    kind: str = ""


@dataclass(frozen=True)
class FieldInfo:
    path: Path
    name: str
    schema: JsonDict  # resolved
    description: str
    type_text: str
    required: bool
    enum: tuple[str, ...]
    default: str | None
    parent_definition: str | None  # definition holding the field (for enum disambiguation)
    default_source: str = ""
    """Who sets the default when it is not the schema's: the Go defaulter (`SetDefaults_PodSpec
    (core/v1)`), which the API server runs before admission."""


def object_schema(kubernetes_version: str, api_version: str | None, kind: str | None) -> ObjectSchema | None:
    """The schema an object is checked against (the nearest serving version for policies)."""
    if not api_version or not kind:
        return None
    group, _, version = api_version.rpartition("/")
    recognised = recognise(api_version, kind)
    if recognised is not None:
        from vap_lsp.analysis.model.served import select_schema

        served, _ = select_schema(kubernetes_version, POLICY_GROUP, recognised[1], kind)
        schema_set = served.schema_set
    else:
        schema_set = get_schema_set(kubernetes_version)
    definition = schema_set.definition_for_kind(group, version, kind)
    if definition is None:
        return None
    return ObjectSchema(schema_set, definition, recognised[0] if recognised else None, version, group, kind)


@dataclass(frozen=True)
class _Step:
    unresolved: JsonDict
    resolved: JsonDict
    definition: str | None  # the innermost `$ref` seen so far


def _walk(obj: ObjectSchema, path: Path) -> list[_Step] | None:
    """One step per path element (plus the root); None when the path leaves the schema."""
    ss = obj.schema_set
    root: JsonDict = {"$ref": obj.definition}
    steps = [_Step(root, ss.resolve(root), obj.definition)]
    for elem in path:
        current = steps[-1]
        nxt: Any = None
        if isinstance(elem, int):
            nxt = current.resolved.get("items")
        else:
            props = current.resolved.get("properties")
            if isinstance(props, dict):
                nxt = props.get(elem)
            if nxt is None and isinstance(current.resolved.get("additionalProperties"), dict):
                nxt = current.resolved["additionalProperties"]
        if not isinstance(nxt, dict):
            return None
        ref = nxt.get("$ref")
        definition = ref if isinstance(ref, str) else current.definition
        steps.append(_Step(nxt, ss.resolve(nxt), definition))
    return steps


def schema_at(obj: ObjectSchema, path: Path) -> JsonDict | None:
    steps = _walk(obj, path)
    return steps[-1].resolved if steps else None


def definition_at(obj: ObjectSchema, path: Path) -> str | None:
    steps = _walk(obj, path)
    if not steps:
        return None
    ref = steps[-1].unresolved.get("$ref")
    return ref if isinstance(ref, str) else None


def type_text(schema: JsonDict) -> str:
    """A readable type: `string`, `[]Validation`, `map[string]string`, `ParamKind`."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return go_struct_name(ref)
    if is_int_or_string(schema):
        return "int-or-string"
    t = schema.get("type")
    if t == "array":
        items = schema.get("items")
        return "[]" + (type_text(items) if isinstance(items, dict) else "any")
    if t == "object":
        ap = schema.get("additionalProperties")
        if isinstance(ap, dict):
            return "map[string]" + type_text(ap)
        return "object"
    if t == "integer" and isinstance(schema.get("format"), str):
        return f"integer ({schema['format']})"
    return t if isinstance(t, str) else "any"


def is_object(schema: JsonDict | None) -> bool:
    return schema is not None and (schema.get("type") == "object" or "properties" in schema)


def enum_values(obj: ObjectSchema, path: Path, definition: str | None) -> tuple[str, ...]:
    """Allowed values of the field at `path` (a list field: of its items)."""
    names = [e for e in path if isinstance(e, str)]
    if not names:
        return ()
    name = names[-1]
    if definition == LABEL_SELECTOR_REQUIREMENT and name == "operator":
        return LABEL_OPERATORS
    if definition is None or not definition.startswith(ADMISSION_PREFIX):
        return ()
    if (
        name == "operations"
        and obj.policy_kind is PolicyKind.MAP
        and path[:2] == ("spec", "matchConstraints")
    ):
        return rules.SUPPORTED_MUTATING_OPERATIONS
    values = ENUMS.get(name, ())
    steps = _walk(obj, path)
    if steps and isinstance(steps[-1].unresolved.get("enum"), list):
        values = tuple(str(v) for v in steps[-1].unresolved["enum"])
    return values


def field_info(obj: ObjectSchema, path: Path) -> FieldInfo | None:
    """The field at `path`; a trailing list index describes the list field itself."""
    while path and isinstance(path[-1], int):
        path = path[:-1]
    if not path:
        return None
    steps = _walk(obj, path)
    if steps is None:
        return None
    parent, step = steps[-2], steps[-1]
    name = str(path[-1])
    description = str(step.resolved.get("description") or "")
    required_list = parent.resolved.get("required")
    required = (isinstance(required_list, list) and name in required_list) or description.rstrip().endswith(
        "Required."
    )
    default: str | None = None
    raw_default = step.unresolved.get("default")
    if isinstance(raw_default, (str, int, float, bool)) and raw_default != "":
        default = str(raw_default)
    source = ""
    if default is None and obj.policy_kind is None and obj.kind:
        server = _server_default(obj, path, steps)
        if server is not None:
            default = str(server.value) if isinstance(server.value, (str, int, float)) else server.description
            source = server.source
    if parent.definition is not None and parent.definition.startswith(ADMISSION_PREFIX):
        if name in SERVER_DEFAULTS:
            default = SERVER_DEFAULTS[name]
        elif name == "parameterNotFoundAction" and obj.group_version == "v1alpha1":
            default = "Deny"
    return FieldInfo(
        path=path,
        name=name,
        schema=step.resolved,
        description=description,
        type_text=type_text(step.unresolved),
        required=bool(required),
        enum=enum_values(obj, path, parent.definition),
        default=default,
        parent_definition=parent.definition,
        default_source=source,
    )


def _server_default(obj: ObjectSchema, path: Path, steps: list[_Step]) -> DefaultedField | None:
    """What the API server's defaulting sets at `path` of a built-in object (`vap_lsp.defaulting`):
    list items are `ITEM`, values of a map `VALUE`."""
    segments: list[str] = []
    for elem, parent in zip(path, steps, strict=False):
        if isinstance(elem, int):
            segments.append(ITEM)
        elif "properties" not in parent.resolved and isinstance(
            parent.resolved.get("additionalProperties"), dict
        ):
            segments.append(VALUE)
        else:
            segments.append(elem)
    version = obj.schema_set.version
    return defaulted_fields((obj.group, obj.group_version, obj.kind), version).get(tuple(segments))


def property_names(obj: ObjectSchema, path: Path) -> list[str]:
    """Field names of the object at `path` (empty for non-objects and free-form maps)."""
    schema = schema_at(obj, path)
    props = schema.get("properties") if schema is not None else None
    return list(props) if isinstance(props, dict) else []
