"""What a traced evaluation recorded: each evaluated node's value or error, per frame.

Why frames: a comprehension evaluates its loop condition and step once per element, so the
values of those nodes are kept per iteration (`Iteration.frame`), beside the element and its
key or index; everything else is evaluated at most once in its frame. A node of the AST that
has no entry in the frame it belongs to was not evaluated (a short-circuited branch, the
untaken side of `?:`, the loop body after `all()` found its false element). The interpreter
fills these (`evaluate(..., trace=True)`); `vap_lsp.cel.explain` reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vap_lsp.cel.ast import ParsedExpr

__all__ = ["Frame", "Iteration", "Trace", "TracedError"]


class TracedError:
    """An error where a value would be (the node raised it, and its parent saw it)."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return f"TracedError({self.message!r})"


class Frame:
    """Node id → value (or `TracedError`), and comprehension id → its iterations."""

    __slots__ = ("loops", "values")

    def __init__(self) -> None:
        self.values: dict[int, object] = {}
        self.loops: dict[int, list[Iteration]] = {}


class Iteration:
    """One element a comprehension visited: `key` is the list index or the map key, `value` the
    list element or the map value; `frame` holds the loop condition's and step's nodes."""

    __slots__ = ("frame", "key", "value")

    def __init__(self, key: object, value: object, frame: Frame) -> None:
        self.key = key
        self.value = value
        self.frame = frame


@dataclass
class Trace:
    """One traced evaluation of `parsed`."""

    parsed: ParsedExpr
    root: Frame = field(default_factory=Frame)
