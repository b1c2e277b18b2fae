"""Field errors as k8s.io/apimachinery renders them.

Validation rules produce `FieldError`s against a path into plain data; the analysis layer maps
the path to a YAML node. Rules therefore never see positions, and their messages are exactly
the server's `<path>: <type>: <value>: <detail>`.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.yaml.model import Path


class ErrorType(enum.Enum):
    # Rendered names, as field.ErrorType.String() prints them.
    NOT_FOUND = "Not found"
    REQUIRED = "Required value"
    DUPLICATE = "Duplicate value"
    INVALID = "Invalid value"
    NOT_SUPPORTED = "Unsupported value"
    FORBIDDEN = "Forbidden"
    TOO_LONG = "Too long"
    TOO_MANY = "Too many"
    INTERNAL = "Internal error"
    TYPE_INVALID = "Invalid value"  # apimachinery's TypeInvalid renders like Invalid

    @property
    def code(self) -> str:
        return {
            ErrorType.NOT_FOUND: "FieldValueNotFound",
            ErrorType.REQUIRED: "FieldValueRequired",
            ErrorType.DUPLICATE: "FieldValueDuplicate",
            ErrorType.INVALID: "FieldValueInvalid",
            ErrorType.NOT_SUPPORTED: "FieldValueNotSupported",
            ErrorType.FORBIDDEN: "FieldValueForbidden",
            ErrorType.TOO_LONG: "FieldValueTooLong",
            ErrorType.TOO_MANY: "FieldValueTooMany",
            ErrorType.INTERNAL: "InternalError",
            ErrorType.TYPE_INVALID: "FieldValueTypeInvalid",
        }[self]


class Omitted:
    """Marker for a bad value that is not printed (apimachinery's `field.OmitValueType`)."""


OMIT = Omitted()


def path_string(path: Path) -> str:
    """`("spec", "validations", 0, "expression")` → `spec.validations[0].expression`."""
    out = ""
    for elem in path:
        if isinstance(elem, int):
            out += f"[{elem}]"
        else:
            out += ("." if out else "") + elem
    return out


def _go_quote(s: str) -> str:
    # Go's %q: JSON escaping is close; Go keeps non-ASCII printable runes as-is.
    return json.dumps(s, ensure_ascii=False)


def render_value(value: Any) -> str:
    """Render a bad value the way apimachinery's ErrorBody does for common types."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _go_quote(value)
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[]string{" + ", ".join(_go_quote(str(v)) for v in value) + "}"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class FieldError:
    type: ErrorType
    path: Path
    bad_value: Any = OMIT
    detail: str = ""
    supported: Sequence[str] | None = field(default=None)
    # Where the diagnostic should sit when the path exists: on the key, or on the value.
    on_key: bool = False

    @property
    def field(self) -> str:
        return path_string(self.path)

    def body(self) -> str:
        t = self.type
        if t in (ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG, ErrorType.INTERNAL):
            s = t.value
        elif t is ErrorType.TOO_MANY:
            s = t.value
            if not isinstance(self.bad_value, Omitted):
                s += f": {render_value(self.bad_value)}"
        else:
            s = t.value
            if not isinstance(self.bad_value, Omitted):
                s += f": {render_value(self.bad_value)}"
        if t is ErrorType.NOT_SUPPORTED and self.supported is not None:
            s += ": supported values: " + ", ".join(_go_quote(v) for v in self.supported)
            return s
        if self.detail:
            s += f": {self.detail}"
        return s

    def message(self) -> str:
        return f"{self.field}: {self.body()}" if self.path else self.body()
