"""A CustomResourceDefinition as the API server validates it on create, over plain data.

The basics that decide whether a CRD exists at all and what its schema types: names
(`metadata.name` = `<plural>.<group>`), group, scope, versions (unique DNS-1035 names, exactly
one storage version), a schema per version, and the structural-schema rules that reject a CRD
(`apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go`,
`pkg/apiserver/schema/validation.go`), with the server's texts. What the server would accept
but that leaves policies untyped (no served version) is information, in vap-lsp's words.

Not covered (the server checks them; vap-lsp says nothing rather than guess): value
validations (`default` against the schema, formats, patterns), `x-kubernetes-validations`
rules, conversion webhooks, printer columns, subresource paths, the metadata-schema
restrictions, and list-map-key requirements.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from vap_lsp.apimachinery.names import is_dns1035_label, is_dns1123_subdomain, name_is_dns_subdomain
from vap_lsp.policy.field_errors import OMIT, FieldError, forbidden, invalid, not_supported, required
from vap_lsp.yaml.model import Path


@dataclass(frozen=True)
class CrdIssue:
    """A field error whose printed path may name map keys (`properties[spec]`), as the server's
    schema paths do; `error.path` is where it sits in the YAML."""

    error: FieldError
    field_text: str
    severity: str = "error"  # or "information": accepted, but worth saying

    @property
    def server_error(self) -> bool:
        return self.severity == "error"

    def message(self) -> str:
        return f"{self.field_text}: {self.error.body()}" if self.severity == "error" else self.error.detail


def _field(path: Path) -> str:
    """As `field.Path` prints it: schema property names are keys (`properties[spec]`)."""
    out = ""
    key_next = False
    for elem in path:
        if isinstance(elem, int):
            out += f"[{elem}]"
        elif key_next:
            out += f"[{elem}]"
            key_next = False
            continue
        else:
            out += ("." if out else "") + elem
        key_next = elem == "properties" and "openAPIV3Schema" in out
    return out


def _issue(error: FieldError) -> CrdIssue:
    return CrdIssue(error, _field(error.path))


def _s(value: Any) -> str:
    return value if isinstance(value, str) else ""


def validate_crd(data: Mapping[str, Any]) -> list[CrdIssue]:
    """Create-time errors of a CRD (apiextensions.k8s.io/v1), after the server's defaulting; the
    checks below are the same in every supported Kubernetes version."""
    issues: list[CrdIssue] = []
    spec = data.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    names = spec.get("names")
    names = names if isinstance(names, Mapping) else {}
    group, plural, kind = _s(spec.get("group")), _s(names.get("plural")), _s(names.get("kind"))
    # Defaulting (v1 `SetDefaults_CustomResourceDefinitionSpec`).
    singular = _s(names.get("singular")) or kind.lower()
    list_kind = _s(names.get("listKind")) or (kind + "List" if kind else "")

    meta = data.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if isinstance(name, str) and name:
        for msg in name_is_dns_subdomain(name, False):
            issues.append(_issue(invalid(("metadata", "name"), name, msg)))
        if name != f"{plural}.{group}":
            issues.append(
                _issue(invalid(("metadata", "name"), name, 'must be spec.names.plural+"."+spec.group'))
            )

    if not group:
        issues.append(_issue(required(("spec", "group"))))
    elif errs := is_dns1123_subdomain(group):
        issues.append(_issue(invalid(("spec", "group"), group, ",".join(errs))))
    elif len(group.split(".")) < 2:
        issues.append(_issue(invalid(("spec", "group"), group, "should be a domain with at least one dot")))

    scope = _s(spec.get("scope"))
    if not scope:
        issues.append(_issue(required(("spec", "scope"))))
    elif scope not in ("Cluster", "Namespaced"):
        issues.append(_issue(not_supported(("spec", "scope"), scope, ["Cluster", "Namespaced"])))

    versions = spec.get("versions")
    versions = [v if isinstance(v, Mapping) else {} for v in versions] if isinstance(versions, list) else []
    seen: set[str] = set()
    unique = True
    storage = 0
    for i, version in enumerate(versions):
        vname = _s(version.get("name"))
        storage += version.get("storage") is True
        unique = unique and vname not in seen
        seen.add(vname)
        if errs := is_dns1035_label(vname):
            issues.append(_issue(invalid(("spec", "versions", i, "name"), vname, ",".join(errs))))
        schema_holder = version.get("schema")
        schema = schema_holder.get("openAPIV3Schema") if isinstance(schema_holder, Mapping) else None
        path: Path = ("spec", "versions", i, "schema", "openAPIV3Schema")
        if not isinstance(schema, Mapping):
            issues.append(_issue(required(path, "schemas are required")))
        else:
            issues.extend(_issue(e) for e in _structural(schema, path, "root"))
    if not unique:
        issues.append(_issue(invalid(("spec", "versions"), OMIT, "must contain unique version names")))
    if storage != 1:
        issues.append(
            _issue(
                invalid(("spec", "versions"), OMIT, "must have exactly one version marked as storage version")
            )
        )

    # After defaulting: singular and listKind are required too, and missing when kind is.
    for key, value in (("plural", plural), ("singular", singular), ("kind", kind), ("listKind", list_kind)):
        if not value:
            issues.append(_issue(required(("spec", "names", key))))
    names_path: Path = ("spec", "names")
    for key, value in (("plural", plural), ("singular", singular)):
        if value and (errs := is_dns1035_label(value)):
            issues.append(_issue(invalid((*names_path, key), value, ",".join(errs))))
    for key, value in (("kind", kind), ("listKind", list_kind)):
        if value and (errs := is_dns1035_label(value.lower())):
            detail = "may have mixed case, but should otherwise match: " + ",".join(errs)
            issues.append(_issue(invalid((*names_path, key), value, detail)))
    if kind and kind == list_kind:
        issues.append(
            _issue(invalid((*names_path, "listKind"), list_kind, "kind and listKind may not be the same"))
        )

    if versions and not any(v.get("served") is True for v in versions):
        issues.append(
            CrdIssue(
                invalid(
                    ("spec", "versions"),
                    OMIT,
                    f"no version of {kind or 'this kind'} is served: the API server has no REST mapping "
                    "for it, so no policy can match it and no expression is typed from it",
                ),
                "spec.versions",
                "information",
            )
        )
    return issues


_LEVEL_DETAIL = {
    "root": "must not be empty at the root",
    "item": "must not be empty for specified array items",
    "field": "must not be empty for specified object fields",
}


def _structural(schema: Mapping[str, Any], path: Path, level: str) -> Iterator[FieldError]:
    """The structural-schema rules that reject a CRD, depth first."""
    typ = schema.get("type")
    typ = typ if isinstance(typ, str) else ""
    embedded = schema.get("x-kubernetes-embedded-resource") is True
    if "$ref" in schema:
        yield forbidden((*path, "$ref"), "$ref is not supported")
    if embedded and typ != "object":
        if not typ:
            yield required((*path, "type"), "must be object if x-kubernetes-embedded-resource is true")
        else:
            yield invalid((*path, "type"), typ, "must be object if x-kubernetes-embedded-resource is true")
    elif (
        not typ
        and schema.get("x-kubernetes-int-or-string") is not True
        and schema.get("x-kubernetes-preserve-unknown-fields") is not True
    ):
        yield required((*path, "type"), _LEVEL_DETAIL[level])
    if level == "root" and typ and typ != "object":
        yield invalid((*path, "type"), typ, "must be object at the root")
    props = schema.get("properties")
    additional = schema.get("additionalProperties")
    if isinstance(props, Mapping) and props and additional is not None and additional is not True:
        yield forbidden(
            (*path, "additionalProperties"), "additionalProperties and properties are mutual exclusive"
        )
    if typ == "array" and not isinstance(schema.get("items"), Mapping):
        yield required((*path, "items"), "must be specified")
    list_type = schema.get("x-kubernetes-list-type")
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        # In the server's order: the detail lists them as given.
        yield not_supported((*path, "x-kubernetes-list-type"), list_type, ["atomic", "set", "map"])
    if isinstance(props, Mapping):
        for key, prop in props.items():
            if isinstance(prop, Mapping):
                yield from _structural(prop, (*path, "properties", str(key)), "field")
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from _structural(items, (*path, "items"), "item")
    if isinstance(additional, Mapping):
        yield from _structural(additional, (*path, "additionalProperties"), "field")
