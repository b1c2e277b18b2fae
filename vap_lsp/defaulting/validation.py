"""A few of the built-in validation's required fields: an object the server rejects before
validating admission never reaches a policy (`rest.BeforeCreate` runs `strategy.Validate` first).

Deliberately small and conservative: only rejections that hold for every supported version, in
the server's words (`field.Required(path, "")` renders `<path>: Required value`), as the status
message `<Kind> "<name>" is invalid: <error>` (`[e1, e2]` for several). Anything not listed here is
left to admission as written.
"""

from __future__ import annotations

from typing import Any

from vap_lsp.defaulting.rules import JsonDict, as_list

REQUIRED = "Required value"


def _containers(spec: Any, path: str) -> list[str]:
    if not isinstance(spec, dict):
        return []
    containers = spec.get("containers")
    if containers is None or containers == []:
        return [f"{path}.containers: {REQUIRED}"]
    errors = []
    for i, c in enumerate(as_list(containers)):
        if isinstance(c, dict) and not c.get("name"):
            errors.append(f"{path}.containers[{i}].name: {REQUIRED}")
    return errors


def builtin_errors(obj: JsonDict, gvk: tuple[str, str, str], operation: str) -> list[str]:
    """The field errors of the built-in validation this module knows for `obj` (CREATE/UPDATE)."""
    if operation not in ("CREATE", "UPDATE"):
        return []
    group, version, kind = gvk
    errors: list[str] = []
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    if not meta.get("name") and not meta.get("generateName"):
        errors.append(f"metadata.name: {REQUIRED}: name or generateName is required")
    spec = obj.get("spec")
    if (group, version, kind) == ("", "v1", "Pod"):
        errors += _containers(spec, "spec")
        for i, c in enumerate(as_list(spec.get("containers") if isinstance(spec, dict) else None)):
            if isinstance(c, dict) and not c.get("image"):
                errors.append(f"spec.containers[{i}].image: {REQUIRED}")
    elif (group, version) == ("apps", "v1") and kind in (
        "Deployment",
        "ReplicaSet",
        "StatefulSet",
        "DaemonSet",
    ):
        # A DaemonSet without selector fails the label match instead (not said here).
        if isinstance(spec, dict) and spec.get("selector") is None and kind != "DaemonSet":
            errors.append(f"spec.selector: {REQUIRED}")
        template = spec.get("template") if isinstance(spec, dict) else None
        if isinstance(template, dict):
            errors += _containers(template.get("spec"), "spec.template.spec")
    return errors


def rejection(obj: JsonDict, gvk: tuple[str, str, str], errors: list[str]) -> str:
    """The status message: `Pod "p" is invalid: spec.containers: Required value`."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    name = meta.get("name") or meta.get("generateName") or ""
    detail = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    return (
        f'{gvk[2]}.{gvk[0]} "{name}" is invalid: {detail}'
        if gvk[0]
        else f'{gvk[2]} "{name}" is invalid: {detail}'
    )
