"""Field errors as k8s.io/apimachinery renders them.

Validation rules produce `FieldError`s against a path into plain data; the analysis layer maps
the path to a YAML node. Rules therefore never see positions, and their messages are exactly
the server's `<path>: <type>: <value>: <detail>` (apimachinery `pkg/util/validation/field/errors.go`,
`Error.Error` / `Error.ErrorBody`).

Bad values are printed the way Go prints the value the server passes in:

* a Go `string` → `%q`;
* a *named* string type (`FailurePolicyType`, `OperationType`, …) → up to Kubernetes 1.33 `%#v`
  (same as `%q`), from 1.34 `json.Marshal` (HTML-safe JSON escaping) — wrap it in `GoNamed`;
* `int`/`bool` → `%v`;
* slices → up to 1.33 `%#v` (`[]string{"a", "b"}`), from 1.34 JSON (`["a","b"]`) — `GoSlice`;
* nil → up to 1.33 `"null"` (quoted: the string "null" printed with `%q`), from 1.34 `null`.

apimachinery changed `ErrorBody` from `%#v` to `json.Marshal` in v0.34 (Kubernetes 1.34).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.golang.jsonenc import marshal_string as go_json_string
from vap_lsp.golang.strconv import quote as go_quote
from vap_lsp.yaml.model import Path


class ErrorType(enum.Enum):
    """apimachinery's `field.ErrorType`; the value is the machine-readable code."""

    NOT_FOUND = "FieldValueNotFound"
    REQUIRED = "FieldValueRequired"
    DUPLICATE = "FieldValueDuplicate"
    INVALID = "FieldValueInvalid"
    NOT_SUPPORTED = "FieldValueNotSupported"
    FORBIDDEN = "FieldValueForbidden"
    TOO_LONG = "FieldValueTooLong"
    TOO_MANY = "FieldValueTooMany"
    TOO_FEW = "FieldValueTooFew"
    TOO_SHORT = "FieldValueTooShort"
    INTERNAL = "InternalError"
    TYPE_INVALID = "FieldValueTypeInvalid"

    @property
    def code(self) -> str:
        return self.value

    @property
    def label(self) -> str:
        """The text `ErrorType.String()` returns."""
        return _LABELS[self]


_LABELS = {
    ErrorType.NOT_FOUND: "Not found",
    ErrorType.REQUIRED: "Required value",
    ErrorType.DUPLICATE: "Duplicate value",
    ErrorType.INVALID: "Invalid value",
    ErrorType.NOT_SUPPORTED: "Unsupported value",
    ErrorType.FORBIDDEN: "Forbidden",
    ErrorType.TOO_LONG: "Too long",
    ErrorType.TOO_MANY: "Too many",
    ErrorType.TOO_FEW: "Too few",
    ErrorType.TOO_SHORT: "Too short",
    ErrorType.INTERNAL: "Internal error",
    ErrorType.TYPE_INVALID: "Invalid value",
}


# ErrorBody prints only the type name (and detail) for these, never the value.
_VALUELESS = frozenset(
    {ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG, ErrorType.TOO_SHORT, ErrorType.INTERNAL}
)


class ValueStyle(enum.Enum):
    """How `ErrorBody` prints non-basic bad values."""

    GO_SYNTAX = "go-syntax"  # Kubernetes ≤ 1.33: fmt `%#v`
    JSON = "json"  # Kubernetes ≥ 1.34: encoding/json


class Omitted:
    """Marker for a bad value that is not printed (apimachinery's `field.OmitValueType`)."""


OMIT = Omitted()


@dataclass(frozen=True)
class GoNamed:
    """A value of a named Go string type (e.g. `admissionregistration.FailurePolicyType`)."""

    value: str


@dataclass(frozen=True)
class GoSlice:
    """A Go slice of strings or of a named string type; `elem_type` as `%#v` prints it."""

    elem_type: str
    items: tuple[str, ...]


@dataclass(frozen=True)
class GoStructSlice:
    """A Go slice of structs whose fields are all strings (e.g. `[]AuditAnnotation`)."""

    type_name: str  # e.g. "admissionregistration.AuditAnnotation"
    fields: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def path_string(path: Path) -> str:
    """`("spec", "validations", 0, "expression")` → `spec.validations[0].expression`."""
    out = ""
    for elem in path:
        if isinstance(elem, int):
            out += f"[{elem}]"
        else:
            out += ("." if out else "") + elem
    return out


def render_value(value: Any, style: ValueStyle = ValueStyle.JSON) -> str:
    """Render a bad value the way apimachinery's ErrorBody does."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return go_quote(value)
    if value is None:
        return '"null"' if style is ValueStyle.GO_SYNTAX else "null"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, GoNamed):
        return go_quote(value.value) if style is ValueStyle.GO_SYNTAX else go_json_string(value.value)
    if isinstance(value, GoSlice):
        if style is ValueStyle.GO_SYNTAX:
            return f"[]{value.elem_type}{{" + ", ".join(go_quote(v) for v in value.items) + "}"
        return "[" + ",".join(go_json_string(v) for v in value.items) + "]"
    if isinstance(value, GoStructSlice):
        if style is ValueStyle.GO_SYNTAX:
            rows = (
                value.type_name
                + "{"
                + ", ".join(f"{f}:{go_quote(v)}" for f, v in zip(value.fields, row, strict=True))
                + "}"
                for row in value.rows
            )
            return f"[]{value.type_name}{{" + ", ".join(rows) + "}"
        json_rows = (
            "{"
            + ",".join(
                f"{go_json_string(f)}:{go_json_string(v)}" for f, v in zip(value.fields, row, strict=True)
            )
            + "}"
            for row in value.rows
        )
        return "[" + ",".join(json_rows) + "]"
    if isinstance(value, (list, tuple)):
        items = tuple(str(v) for v in value)
        return render_value(GoSlice("string", items), style)
    return repr(value)


@dataclass(frozen=True)
class FieldError:
    type: ErrorType
    path: Path
    bad_value: Any = OMIT
    detail: str = ""
    # NotSupported: the supported values, rendered as the detail `supported values: "a", "b"`.
    supported: Sequence[str] | None = field(default=None)
    # Where the diagnostic should sit when the path exists: on the key, or on the value.
    on_key: bool = False
    # False for checks the API server does not make (shown as warnings by the caller).
    server_error: bool = True
    # The path as the server prints it, when it differs from where the error belongs
    # (the server once printed `spec.matchResouces`).
    rendered_path: Path | None = None
    value_style: ValueStyle = ValueStyle.JSON
    # The server's words when it only warns (a strategy's `WarningsOnCreate`) instead of
    # returning this error; set together with `server_error=False`.
    warning: str | None = None

    @property
    def field(self) -> str:
        return path_string(self.rendered_path if self.rendered_path is not None else self.path)

    def full_detail(self) -> str:
        if self.type is ErrorType.NOT_SUPPORTED and self.supported:
            return "supported values: " + ", ".join(go_quote(v) for v in self.supported)
        return self.detail

    def body(self) -> str:
        t = self.type
        s = t.label
        if t not in _VALUELESS and not isinstance(self.bad_value, Omitted):
            s += f": {render_value(self.bad_value, self.value_style)}"
        detail = self.full_detail()
        if detail:
            s += f": {detail}"
        return s

    def message(self) -> str:
        if self.warning is not None:
            return self.warning
        return f"{self.field}: {self.body()}"


# Constructors mirroring apimachinery's field.Required / Invalid / ... .


def required(path: Path, detail: str = "", *, on_key: bool = True) -> FieldError:
    return FieldError(ErrorType.REQUIRED, path, "", detail, on_key=on_key)


def forbidden(path: Path, detail: str, *, on_key: bool = True) -> FieldError:
    return FieldError(ErrorType.FORBIDDEN, path, "", detail, on_key=on_key)


def invalid(path: Path, value: Any, detail: str, *, on_key: bool = False) -> FieldError:
    return FieldError(ErrorType.INVALID, path, value, detail, on_key=on_key)


def duplicate(path: Path, value: Any, *, server_error: bool = True) -> FieldError:
    return FieldError(ErrorType.DUPLICATE, path, value, server_error=server_error)


def not_supported(path: Path, value: Any, supported: Sequence[str]) -> FieldError:
    return FieldError(ErrorType.NOT_SUPPORTED, path, value, supported=tuple(supported))


def too_many(path: Path, actual: int, maximum: int) -> FieldError:
    detail = f"must have at most {maximum} {'item' if maximum == 1 else 'items'}"
    return FieldError(ErrorType.TOO_MANY, path, actual, detail, on_key=True)
