"""Why an expression came out false or failed, read from a traced evaluation (`vap_lsp.cel.trace`).

The walk goes down from the root to the *minimal failing sub-expressions*: through `&&` to its
false operand, through both sides of a false `||`, into the taken branch of `?:`, into the
element that decided a comprehension (the witness: `all()`'s first false element, `exists()`'s
first true one, the elements `filter()` kept), into a variable's own trace, and into the operand
an error came from. There it stops at a call or selection whose operands are all fine, and
shows each operand with its value and, where the operand is a plain selection, its path from
the root (`object.spec.containers[1].image`), also through iteration variables and through
`variables.<name>` when the variable is itself a plain selection.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.cel.ast import Call, Comprehension, Expr, Ident, Literal, ParsedExpr, Select, children, subtree
from vap_lsp.cel.interpreter import LazyVariables, to_python
from vap_lsp.cel.trace import Frame, Iteration, Trace, TracedError

__all__ = [
    "Failure",
    "Operand",
    "Witness",
    "compact",
    "explain",
    "predicate",
    "skipped",
    "witnesses",
]

# Macros by what decides them: the element(s) shown as the witness.
_QUANTIFIERS = {"all", "exists", "exists_one", "existsOne"}
_SELECTING = {"filter", "exists_one", "existsOne"}
_ROOTS = frozenset({"object", "oldObject", "params", "request", "namespaceObject", "authorizer"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_MAX_FAILURES = 8
_MAX_SHOWN_ELEMENTS = 3


@dataclass
class Witness:
    """An element a comprehension decided on: the macro, the key or index, the element's path
    (None when the range is not a plain selection) and the element itself."""

    macro: str
    key: object
    path: str | None
    value: object

    def to_json(self) -> dict[str, Any]:
        return {"macro": self.macro, "key": _json(self.key), "path": self.path, "value": compact(self.value)}


@dataclass
class Operand:
    """One operand of a failing sub-expression: its text, path, value or error."""

    text: str
    path: str | None
    value: object = None
    error: str | None = None
    evaluated: bool = True
    start: int = 0
    end: int = 0

    def render(self) -> str:
        shown = (
            "not evaluated"
            if not self.evaluated
            else (f"error: {self.error}" if self.error is not None else compact(self.value))
        )
        if self.path is not None and self.path != self.text:
            return f"{self.path} = {shown}   ({self.text})"
        return f"{self.text} = {shown}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "path": self.path}
        if not self.evaluated:
            out["evaluated"] = False
        elif self.error is not None:
            out["error"] = self.error
        else:
            out["value"] = compact(self.value)
        return out


@dataclass
class Failure:
    """A minimal failing sub-expression: `text` at `start:end` of `source` (the expression it is
    in: the validation's, or a variable's, named by `variable`), its outcome, its operands, the
    witnesses that lead to it (outermost first) and the witnesses inside it."""

    text: str
    start: int
    end: int
    value: object = None
    error: str | None = None
    operands: list[Operand] = field(default_factory=list)
    via: list[Witness] = field(default_factory=list)
    witnesses: list[Witness] = field(default_factory=list)
    variable: str | None = None
    note: str | None = None

    @property
    def outcome(self) -> str:
        return f"error: {self.error}" if self.error is not None else compact(self.value)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "text": self.text,
            "span": [self.start, self.end],
            "variable": self.variable,
            "operands": [o.to_json() for o in self.operands],
            "via": [w.to_json() for w in self.via],
            "witnesses": [w.to_json() for w in self.witnesses],
        }
        if self.error is not None:
            out["error"] = self.error
        else:
            out["value"] = compact(self.value)
        if self.note:
            out["note"] = self.note
        return out


# --- compact values ------------------------------------------------------------------------------


def _json(v: object) -> object:
    try:
        return to_python(v)
    except Exception:  # a value without a JSON form is shown as text
        return str(v)


def compact(v: object, width: int = 72) -> str:
    """A value as short JSON-like text: long lists and objects are elided with their size."""
    py = _json(v)
    text = _dump(py)
    if len(text) <= width:
        return text
    if isinstance(py, list):
        return f"[… {len(py)} item{'s' if len(py) != 1 else ''}]"
    if isinstance(py, dict):
        parts: list[str] = []
        used = 2
        for k, x in py.items():
            inner = "{…}" if isinstance(x, dict) else "[…]" if isinstance(x, list) else _dump(x)
            item = f"{_dump(k)}: {inner}"
            if used + len(item) + 2 > width - 12:
                break
            parts.append(item)
            used += len(item) + 2
        rest = len(py) - len(parts)
        return "{" + ", ".join(parts) + (f", … {rest} more" if rest else "") + "}"
    return text[: width - 1] + "…"


def _dump(v: object) -> str:
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return str(v)
    try:
        return json.dumps(v, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(v)


# --- paths -----------------------------------------------------------------------------------------


class _Scope:
    """What names mean while walking: iteration variables → the path of their element, and the
    variables of the policy (their definitions' traces) for paths through `variables.x`."""

    def __init__(self, variables: LazyVariables | None, locals_: Mapping[str, str | None] | None = None):
        self.variables = variables
        self.locals: dict[str, str | None] = dict(locals_ or {})

    def bind(self, names: Mapping[str, str | None]) -> _Scope:
        return _Scope(self.variables, {**self.locals, **names})


def _segment(base: str, key: object) -> str:
    if isinstance(key, str):
        return f"{base}.{key}" if _IDENT.match(key) else f"{base}[{json.dumps(key)}]"
    if isinstance(key, bool) or key is None:
        return f"{base}[{_dump(key)}]"
    return f"{base}[{key}]"


def _variable_path(name: str, scope: _Scope) -> str:
    """`variables.x`, or the path its definition selects when it is a plain selection."""
    variables = scope.variables
    if variables is not None:
        result = variables.result(name)
        if result is not None and result.trace is not None and result.trace.parsed.ast is not None:
            inner = _path(result.trace.parsed.ast, result.trace.root, _Scope(variables))
            if inner is not None:
                return inner
    return f"variables.{name}"


def _path(e: Expr, frame: Frame, scope: _Scope) -> str | None:
    """The root path `e` selects (`object.spec.containers[1]`), or None if it computes."""
    if isinstance(e, Ident):
        name = e.name.lstrip(".")
        if name in scope.locals:
            return scope.locals[name]
        return name if name in _ROOTS else None
    if isinstance(e, Select) and not e.test_only:
        if isinstance(e.operand, Ident) and e.operand.name == "variables" and "variables" not in scope.locals:
            return _variable_path(e.field, scope)
        base = _path(e.operand, frame, scope)
        return None if base is None else _segment(base, e.field)
    if isinstance(e, Call) and e.function in ("_[_]", "_[?_]") and e.target is None and len(e.args) == 2:
        base = _path(e.args[0], frame, scope)
        key_node = e.args[1]
        if base is None:
            return None
        if isinstance(key_node, Literal):
            return _segment(base, key_node.value)
        key = frame.values.get(key_node.id, _ABSENT)
        if key is _ABSENT or isinstance(key, TracedError):
            return None
        if isinstance(base, str) and base.startswith("variables.") and isinstance(key, str):
            return _variable_path(key, scope) if base == "variables" else _segment(base, key)
        return _segment(base, _json(key))
    return None


_ABSENT = object()


# --- the walk --------------------------------------------------------------------------------------


def _written(parsed: ParsedExpr, e: Expr) -> Expr:
    """The call as written for a macro expansion (`c.all(x, p)`), else `e`."""
    return parsed.macro_calls.get(e.id, e)


def _macro(parsed: ParsedExpr, e: Comprehension) -> tuple[str, list[Expr]]:
    call = parsed.macro_calls.get(e.id)
    if call is None:
        return "", []
    return call.function, list(call.args)


def _text(parsed: ParsedExpr, e: Expr) -> str:
    return parsed.source[e.start : e.end]


def predicate(parsed: ParsedExpr, e: Comprehension) -> Expr | None:
    """The user's predicate of a quantifier or filter (the last argument; map's filter is the
    middle one of three)."""
    name, args = _macro(parsed, e)
    if name in _QUANTIFIERS or name == "filter":
        return args[-1] if args else None
    if name in ("map", "transformList", "transformMap", "transformMapEntry") and len(args) >= 3:
        return args[-2]
    return None


def _iteration_scope(e: Comprehension, it: Iteration, range_path: str | None, scope: _Scope) -> _Scope:
    element = None if range_path is None else _segment(range_path, _json(it.key))
    if e.iter_var2 is not None:
        key_path = None  # the index or key itself is a value, not a place
        return scope.bind({e.iter_var: key_path, e.iter_var2: element})
    if isinstance(it.value, (dict, list)) or not isinstance(it.key, str):
        return scope.bind({e.iter_var: element})
    return scope.bind({e.iter_var: None})  # a map's key


def _deciding(parsed: ParsedExpr, e: Comprehension, frame: Frame) -> list[Iteration]:
    """The iterations that decided `e`'s value: all's false (or failing) element, exists's true
    one, exists_one's and filter's selected ones."""
    name, _args = _macro(parsed, e)
    pred = predicate(parsed, e)
    iterations = frame.loops.get(e.id, [])
    if pred is None:
        return []
    value = frame.values.get(e.id)

    def pv(it: Iteration) -> object:
        return it.frame.values.get(pred.id, _ABSENT)

    if name == "all":
        if value is False:
            return [it for it in iterations if pv(it) is False][:1]
        if isinstance(value, TracedError):
            return [it for it in iterations if isinstance(pv(it), TracedError)][:1]
        return []
    if name == "exists":
        if value is True:
            return [it for it in iterations if pv(it) is True][:1]
        if isinstance(value, TracedError):
            return [it for it in iterations if isinstance(pv(it), TracedError)][:1]
        return []
    if name in _SELECTING or len(_args) == 3:
        return [it for it in iterations if pv(it) is True]
    return []


def witnesses(parsed: ParsedExpr, e: Comprehension, frame: Frame, scope: _Scope) -> list[Witness]:
    name, _ = _macro(parsed, e)
    range_path = _path(e.iter_range, frame, scope)
    return [
        Witness(
            name, _json(it.key), None if range_path is None else _segment(range_path, _json(it.key)), it.value
        )
        for it in _deciding(parsed, e, frame)
    ]


class _Walk:
    def __init__(self, trace: Trace, variables: LazyVariables | None, variable: str | None = None) -> None:
        self.trace = trace
        self.parsed = trace.parsed
        self.variables = variables
        self.variable = variable
        self.failures: list[Failure] = []

    def value(self, frame: Frame, e: Expr) -> object:
        if isinstance(e, Literal) and e.id not in frame.values:
            return _json(e.value)
        return frame.values.get(e.id, _ABSENT)

    def failing(self, v: object) -> bool:
        return v is False or isinstance(v, TracedError)

    def walk(self, e: Expr, frame: Frame, scope: _Scope, via: list[Witness]) -> None:
        if len(self.failures) >= _MAX_FAILURES:
            return
        v = self.value(frame, e)
        if isinstance(e, Call):
            if self._call(e, v, frame, scope, via):
                return
        elif isinstance(e, Comprehension):
            if self._comprehension(e, v, frame, scope, via):
                return
        elif isinstance(e, Select) and not e.test_only:
            if (
                isinstance(e.operand, Ident)
                and e.operand.name == "variables"
                and self._variable(e.field, via)
            ):
                return
            if isinstance(self.value(frame, e.operand), TracedError):
                self.walk(e.operand, frame, scope, via)
                return
        if isinstance(v, TracedError):
            for c in children(e):  # the error came from an operand
                if isinstance(self.value(frame, c), TracedError) and c.end > c.start:
                    self.walk(c, frame, scope, via)
                    return
        self.leaf(e, v, frame, scope, via)

    def _call(self, e: Call, v: object, frame: Frame, scope: _Scope, via: list[Witness]) -> bool:
        fn = e.function
        if fn in ("_&&_", "_||_") and self.failing(v):
            sides = [a for a in e.args if self.failing(self.value(frame, a))]
            if isinstance(v, TracedError):
                sides = [a for a in sides if isinstance(self.value(frame, a), TracedError)][:1]
            elif fn == "_&&_":
                sides = sides[:1]
            for a in sides:
                self.walk(a, frame, scope, via)
            return bool(sides)
        if fn == "_?_:_":
            c = self.value(frame, e.args[0])
            branch = e.args[1] if c is True else e.args[2] if c is False else e.args[0]
            self.walk(branch, frame, scope, via)
            return True
        if fn == "!_" and isinstance(self.value(frame, e.args[0]), TracedError):
            self.walk(e.args[0], frame, scope, via)
            return True
        return False

    def _comprehension(
        self, e: Comprehension, v: object, frame: Frame, scope: _Scope, via: list[Witness]
    ) -> bool:
        name, _ = _macro(self.parsed, e)
        pred = predicate(self.parsed, e)
        if isinstance(self.value(frame, e.iter_range), TracedError):
            self.walk(e.iter_range, frame, scope, via)
            return True
        if pred is None:
            return False
        range_path = _path(e.iter_range, frame, scope)
        iterations = frame.loops.get(e.id, [])

        def descend(it: Iteration) -> None:
            w = Witness(
                name,
                _json(it.key),
                None if range_path is None else _segment(range_path, _json(it.key)),
                it.value,
            )
            self.walk(pred, it.frame, _iteration_scope(e, it, range_path, scope), [*via, w])

        if isinstance(v, TracedError):
            bad = [it for it in iterations if isinstance(it.frame.values.get(pred.id), TracedError)]
            if bad:
                descend(bad[0])
                return True
            return False
        if name == "all" and v is False:
            decided = _deciding(self.parsed, e, frame)
            if decided:
                descend(decided[0])
                return True
        if name == "exists" and v is False:
            failure = self.leaf(e, v, frame, scope, via)
            failure.note = (
                f"no element of {range_path or _text(self.parsed, e.iter_range)} ({len(iterations)}) "
                "satisfies the predicate"
            )
            for it in iterations[:_MAX_SHOWN_ELEMENTS]:
                descend(it)
            return True
        return False

    def _variable(self, name: str, via: list[Witness]) -> bool:
        variables = self.variables
        result = variables.result(name) if variables is not None else None
        if result is None or result.trace is None or result.trace.parsed.ast is None:
            return False
        root = result.trace.parsed.ast
        v = result.trace.root.values.get(root.id, _ABSENT)
        if not self.failing(v) and result.error is None:
            return False
        inner = _Walk(result.trace, variables, name)
        inner.walk(root, result.trace.root, _Scope(variables), via)
        self.failures.extend(inner.failures)
        return bool(inner.failures)

    def leaf(self, e: Expr, v: object, frame: Frame, scope: _Scope, via: list[Witness]) -> Failure:
        shown = _written(self.parsed, e)
        operands: list[Operand] = []
        for c in children(shown) if not isinstance(e, Comprehension) else []:
            operands.append(self.operand(c, frame, scope))
        if isinstance(e, Comprehension):
            operands.append(self.operand(e.iter_range, frame, scope))
        elif isinstance(e, Select):
            operands = [self.operand(e.operand, frame, scope)]
        found = [
            w
            for c in subtree(e)
            if isinstance(c, Comprehension)
            for w in witnesses(self.parsed, c, frame, scope)
        ]
        failure = Failure(
            _text(self.parsed, e),
            e.start,
            e.end,
            value=None if isinstance(v, TracedError) else _json(v),
            error=v.message if isinstance(v, TracedError) else None,
            operands=operands,
            via=via,
            witnesses=found,
            variable=self.variable,
        )
        self.failures.append(failure)
        return failure

    def operand(self, c: Expr, frame: Frame, scope: _Scope) -> Operand:
        v = self.value(frame, c)
        return Operand(
            _text(self.parsed, c),
            _path(c, frame, scope),
            None if v is _ABSENT or isinstance(v, TracedError) else v,
            v.message if isinstance(v, TracedError) else None,
            evaluated=v is not _ABSENT,
            start=c.start,
            end=c.end,
        )


def explain(trace: Trace, variables: LazyVariables | None = None) -> list[Failure]:
    """The minimal failing sub-expressions of a false or failed evaluation (empty when it was
    neither, or when there is nothing smaller than the whole expression to show)."""
    root = trace.parsed.ast
    if root is None:
        return []
    v = trace.root.values.get(root.id, _ABSENT)
    if v is not False and not isinstance(v, TracedError):
        return []
    walk = _Walk(trace, variables)
    walk.walk(root, trace.root, _Scope(variables), [])
    return walk.failures


def skipped(trace: Trace) -> list[tuple[int, int]]:
    """Spans of the operands `&&`, `||` and `?:` did not evaluate (short-circuited), in the
    expression's own frame."""
    out: list[tuple[int, int]] = []
    frame = trace.root
    for n in trace.parsed.walk():
        if isinstance(n, Call) and n.function in ("_&&_", "_||_", "_?_:_") and n.id in frame.values:
            for a in n.args:
                if a.id not in frame.values and a.end > a.start:
                    out.append((a.start, a.end))
    return out
