"""MAP patches: ApplyConfiguration merged with server-side-apply semantics, and JSON Patch.

Why own code: the server uses structured-merge-diff (`patch/smd.go`) and evanphx/json-patch
(`patch/json_patch.go`); offline we merge with the same rules read from the OpenAPI schema
(`x-kubernetes-list-type`/`-list-map-keys`/`-map-type`, and the patch-strategy fallbacks
kube-openapi uses) and apply RFC 6902 directly.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from typing import Any

from vap_lsp.cel.runtime.k8s import StructValue
from vap_lsp.cel.runtime.values import JSON_LEAVES, to_python

Schema = Mapping[str, Any]
Resolve = Callable[[Schema], Schema]


class PatchError(Exception):
    """A patch the server would reject; the message is the server's."""


class InternalPatchError(PatchError):
    """A patched object the server cannot convert back to its Go type: a status error (500
    InternalError) that the dispatcher returns at once, whatever the failurePolicy
    (mutating/dispatcher.go `dispatchInvocations`: `errors.As(err, &statusError)`)."""


# --- CEL values → JSON ------------------------------------------------------------------------


def type_name_errors(value: object, expected: str) -> list[str]:
    """ObjectVal.CheckTypeNamesMatchFieldPathNames: nested `Object.a.b{}` names must follow the
    field path from the root (list elements and map values take their container's path)."""
    errs: list[str] = []
    if isinstance(value, StructValue):
        if value.type_name != expected:
            errs.append(
                f'unexpected type name "{value.type_name}", expected "{expected}", '
                "which matches field name path from root Object type"
            )
        for name, v in value.fields.items():
            errs.extend(type_name_errors(v, f"{expected}.{name}"))
    elif isinstance(value, list):
        for item in value:
            errs.extend(type_name_errors(item, expected))
    elif isinstance(value, dict):
        for item in value.values():
            errs.extend(type_name_errors(item, expected))
    return errs


def check_type_names(value: StructValue) -> None:
    errs = type_name_errors(value, value.type_name)
    if errs:
        raise PatchError("type mismatch: " + "\n".join(errs))


def to_json(value: object) -> Any:
    """A CEL value (maybe holding `Object{}` structs) as JSON data."""
    if type(value) in JSON_LEAVES:  # most of a reported object: no call to `to_python`
        return value
    if isinstance(value, StructValue):
        return {k: to_json(v) for k, v in value.fields.items()}
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(to_python(k)): to_json(v) for k, v in value.items()}
    return to_python(value)


# --- schema helpers -----------------------------------------------------------------------------


class _Shape:
    """How SMD treats a schema node: list relationship and keys, map relationship."""

    def __init__(self, schema: Schema | None, resolve: Resolve) -> None:
        self.resolve = resolve
        self.schema: Schema = resolve(schema) if schema else {}

    def prop(self, name: str) -> _Shape:
        props = self.schema.get("properties")
        if isinstance(props, Mapping) and isinstance(props.get(name), Mapping):
            return _Shape(props[name], self.resolve)
        ap = self.schema.get("additionalProperties")
        if isinstance(ap, Mapping):
            return _Shape(ap, self.resolve)
        return _Shape(None, self.resolve)

    def items(self) -> _Shape:
        items = self.schema.get("items")
        return _Shape(items if isinstance(items, Mapping) else None, self.resolve)

    @property
    def known(self) -> bool:
        return bool(self.schema)

    def list_type(self) -> tuple[str, list[str]]:
        s = self.schema
        lt = s.get("x-kubernetes-list-type")
        if lt == "map":
            keys = s.get("x-kubernetes-list-map-keys")
            return "map", [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []
        if lt in ("set", "atomic"):
            return str(lt), []
        if s.get("x-kubernetes-patch-strategy", "").split(",")[0] == "merge" or "merge" in str(
            s.get("x-kubernetes-patch-strategy", "")
        ):
            key = s.get("x-kubernetes-patch-merge-key")
            if isinstance(key, str):
                return "map", [key]
            return "set", []
        return "atomic", []

    def map_atomic(self) -> bool:
        return self.schema.get("x-kubernetes-map-type") == "atomic"


def find_atomics(patch: Any, shape: _Shape, path: str = "") -> list[str]:
    """smd.go findAtomics: paths of atomic lists/maps/structs set by the apply configuration."""
    out: list[str] = []
    if not shape.known:
        return out
    if isinstance(patch, dict):
        if shape.map_atomic():
            out.append(path)
        for k, v in patch.items():
            child = shape.prop(k)
            out.extend(find_atomics(v, child, f"{path}.{k}"))
    elif isinstance(patch, list):
        if shape.list_type()[0] == "atomic":
            out.append(path)
        for i, v in enumerate(patch):
            out.extend(find_atomics(v, shape.items(), f"{path}[{i}]"))
    return out


def _key_of(item: Any, keys: list[str]) -> tuple[Any, ...] | None:
    if not isinstance(item, dict):
        return None
    return tuple(item.get(k) for k in keys)


def merge(live: Any, patch: Any, shape: _Shape) -> Any:
    """Apply `patch` onto `live` (server-side apply without field ownership)."""
    if isinstance(patch, dict) and isinstance(live, dict):
        if shape.map_atomic():
            return copy.deepcopy(patch)
        out = dict(live)
        for k, v in patch.items():
            out[k] = merge(live.get(k), v, shape.prop(k)) if k in live else copy.deepcopy(v)
        return out
    if isinstance(patch, list) and isinstance(live, list):
        kind, keys = shape.list_type() if shape.known else ("atomic", [])
        if kind == "map" and keys:
            result = list(live)
            index = {_key_of(x, keys): i for i, x in enumerate(result)}
            for item in patch:
                key = _key_of(item, keys)
                if key in index:
                    i = index[key]
                    result[i] = merge(result[i], item, shape.items())
                else:
                    index[key] = len(result)
                    result.append(copy.deepcopy(item))
            return result
        if kind == "set":
            result = list(live)
            for item in patch:
                if item not in result:
                    result.append(copy.deepcopy(item))
            return result
        return copy.deepcopy(patch)
    return copy.deepcopy(patch)


def _smd_key(item: dict[str, Any], keys: list[str]) -> str:
    """fieldpath's PathElement of a keyed list item: `[name="x",protocol="TCP"]`."""
    return "[" + ",".join(f"{k}={json.dumps(item.get(k))}" for k in keys if k in item) + "]"


def typed_errors(value: Any, shape: _Shape, path: str = "") -> list[str]:
    """What structured-merge-diff's `ObjectToTyped` rejects in an apply configuration
    (typed/validate.go): a field the schema does not declare, and two items of a keyed list
    with the same key. SMD words and paths (`.spec.bogus: field not declared in schema`)."""
    out: list[str] = []
    if not shape.known:
        return out
    if isinstance(value, dict):
        props = shape.schema.get("properties")
        declared = props if isinstance(props, Mapping) else {}
        open_map = isinstance(shape.schema.get("additionalProperties"), Mapping) or bool(
            shape.schema.get("x-kubernetes-preserve-unknown-fields")
        )
        for k, v in value.items():
            if k not in declared and not open_map:
                out.append(f"{path}.{k}: field not declared in schema")
                continue
            out.extend(typed_errors(v, shape.prop(k), f"{path}.{k}"))
    elif isinstance(value, list):
        kind, keys = shape.list_type()
        seen: set[str] = set()
        for i, item in enumerate(value):
            element = f"{path}[{i}]"
            if kind == "map" and keys and isinstance(item, dict):
                element = path + _smd_key(item, keys)
                if element in seen:
                    out.append(f"{path}: duplicate entries for key {_smd_key(item, keys)}")
                    continue
                seen.add(element)
            out.extend(typed_errors(item, shape.items(), element))
    return out


def smd_errors_text(errors: list[str]) -> str:
    """typed.ValidationErrors.Error(): one error as is, several under `errors:`."""
    if len(errors) == 1:
        return errors[0]
    return "\n".join(["errors:", *(f"  {e}" for e in errors)])


def unknown_fields(value: Any, shape: _Shape, path: str = "") -> list[str]:
    """The fields strict decoding into the kind's Go type rejects (`unknown field "spec.x"`):
    what `runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation` reports when a
    JSON-patched object is converted back to its typed form."""
    out: list[str] = []
    if not shape.known:
        return out
    if isinstance(value, dict):
        props = shape.schema.get("properties")
        declared = props if isinstance(props, Mapping) else {}
        open_map = isinstance(shape.schema.get("additionalProperties"), Mapping) or bool(
            shape.schema.get("x-kubernetes-preserve-unknown-fields")
        )
        for k, v in value.items():
            child = f"{path}.{k}" if path else k
            if k not in declared and not open_map:
                out.append(child)
                continue
            out.extend(unknown_fields(v, shape.prop(k), child))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.extend(unknown_fields(item, shape.items(), f"{path}[{i}]"))
    return out


def shape_of(schema: Schema | None, resolve: Resolve) -> _Shape:
    """The schema walker of `typed_errors` / `unknown_fields` for a kind's schema."""
    return _Shape(schema, resolve)


def apply_configuration(
    live: dict[str, Any], patch: dict[str, Any], schema: Schema | None, resolve: Resolve
) -> Any:
    shape = _Shape(schema, resolve)
    # smd.go ApplyStructuredMergeDiff: the patch must convert to the typed object (the live
    # object may hold duplicates: `typed.AllowDuplicates`). Found by the oracle (issue 34).
    errors = typed_errors(patch, shape)
    if errors:
        raise PatchError(
            "error applying patch: failed to convert patch object to typed object: " + smd_errors_text(errors)
        )
    atomics = find_atomics(patch, shape)
    if atomics:
        raise PatchError(
            "error applying patch: invalid ApplyConfiguration: "
            "may not mutate atomic arrays, maps or structs: " + ", ".join(atomics)
        )
    return merge(live, patch, shape)


# --- JSON Patch (RFC 6902) ----------------------------------------------------------------------


class _TestFailed(Exception):
    pass


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f'JSON Patch: invalid JSON pointer: "{path}"')
    return [_unescape(t) for t in path[1:].split("/")]


def _parent(doc: Any, tokens: list[str], path: str, op: str) -> Any:
    cur = doc
    for t in tokens[:-1]:
        if isinstance(cur, dict) and t in cur:
            cur = cur[t]
        elif isinstance(cur, list) and t.isdigit() and int(t) < len(cur):
            cur = cur[int(t)]
        else:
            raise PatchError(_missing(op, path))
    return cur


def _find_parent(doc: Any, tokens: list[str]) -> Any:
    """The container the last token addresses, None when a step is missing (`findObject`)."""
    cur = doc
    for t in tokens[:-1]:
        if isinstance(cur, dict) and t in cur:
            cur = cur[t]
        elif isinstance(cur, list) and t.isdigit() and int(t) < len(cur):
            cur = cur[int(t)]
        else:
            return None
    return cur


def _missing(op: str, path: str) -> str:
    """evanphx/json-patch v5 texts (replace does not quote the path)."""
    shown = path if op == "replace" else f'"{path}"'
    return f"JSON Patch: {op} operation does not apply: doc is missing path: {shown}: missing value"


def _index(container: list[Any], token: str, path: str, op: str, *, insert: bool) -> int:
    if token == "-" and insert:
        return len(container)
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise PatchError(_missing(op, path))
    i = int(token)
    if i > len(container) or (not insert and i == len(container)):
        raise PatchError(f"JSON Patch: Unable to access invalid index: {i}: invalid index referenced")
    return i


def _get(doc: Any, path: str, op: str) -> Any:
    cur = doc
    for t in _pointer(path):
        if isinstance(cur, dict) and t in cur:
            cur = cur[t]
        elif isinstance(cur, list) and t.isdigit() and int(t) < len(cur):
            cur = cur[int(t)]
        else:
            raise PatchError(_missing(op, path))
    return cur


def _add(doc: Any, path: str, value: Any, op: str = "add") -> Any:
    tokens = _pointer(path)
    if not tokens:
        return copy.deepcopy(value)
    parent = _parent(doc, tokens, path, op)
    last = tokens[-1]
    if isinstance(parent, dict):
        parent[last] = copy.deepcopy(value)
    elif isinstance(parent, list):
        parent.insert(_index(parent, last, path, op, insert=True), copy.deepcopy(value))
    else:
        raise PatchError(_missing(op, path))
    return doc


def _remove(doc: Any, path: str, op: str = "remove") -> tuple[Any, Any]:
    tokens = _pointer(path)
    if not tokens:
        raise PatchError(_missing(op, path))
    parent = _parent(doc, tokens, path, op)
    last = tokens[-1]
    if isinstance(parent, dict) and last in parent:
        return doc, parent.pop(last)
    if isinstance(parent, list):
        return doc, parent.pop(_index(parent, last, path, op, insert=False))
    raise PatchError(
        f"JSON Patch: error in remove for path: '{path}': "
        f"Unable to remove nonexistent key: {last}: missing value"
    )


def apply_json_patch(doc: Any, ops: list[dict[str, Any]]) -> tuple[Any, bool]:
    """Apply `ops` to a copy of `doc`; (result, False) if a `test` op failed (object unchanged)."""
    out = copy.deepcopy(doc)
    for o in ops:
        op, path = o.get("op", ""), o.get("path", "")
        if op == "add":
            out = _add(out, path, o.get("value"))
        elif op == "remove":
            out, _ = _remove(out, path)
        elif op == "replace":
            tokens = _pointer(path)
            parent = _parent(out, tokens, path, "replace") if tokens else None
            if isinstance(parent, dict):
                # evanphx/json-patch v4 (what Kubernetes uses): `partialDoc.get` of a missing key
                # is no error, so replace sets it (found by the oracle, issue 34).
                parent[tokens[-1]] = copy.deepcopy(o.get("value"))
                continue
            _get(out, path, "replace")
            out, _ = _remove(out, path, "replace")
            out = _add(out, path, o.get("value"), "replace")
        elif op == "move":
            frm = o.get("from", "")
            out, value = _remove(out, frm, "move")
            out = _add(out, path, value, "move")
        elif op == "copy":
            out = _add(out, path, _get(out, o.get("from", ""), "copy"), "copy")
        elif op == "test":
            tokens = _pointer(path)
            if tokens and not isinstance(_find_parent(out, tokens), dict | list):
                # evanphx/json-patch v4 `test`: a missing parent is an error, not a failed test
                # (found by the oracle, issue 34).
                raise PatchError(
                    f"JSON Patch: test operation does not apply: is missing path: {path}: missing value"
                )
            try:
                current = _get(out, path, "test")
            except PatchError:
                current = None
            if current != o.get("value") or (
                type(current) is not type(o.get("value")) and current is not None
            ):
                return copy.deepcopy(doc), False
        else:
            raise PatchError(f"JSON Patch: Unexpected kind: {op}")
    return out, True
