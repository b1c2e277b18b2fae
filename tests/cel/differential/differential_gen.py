"""Deterministic generator of standard-library CEL expressions for the differential test.

Expressions are built over `VARIABLES` (declared identically in both checkers) from the CEL
standard library only: operators, conversions, string/timestamp/duration functions, macros,
literals of every form, indexing, `in`, ternaries. Half of them are type-directed and should
type-check; the other half combine operands of random types, so many are ill-typed. Which is
which is never asserted here: the oracle (Google's C++ CEL) decides.

The generator depends on nothing but the standard library, so the same seed yields the same
list on every Python version (`random.Random` with an int seed is stable). Run it as a script
to print the list: `python tests/cel/differential/differential_gen.py [count] [seed]`.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Mapping

VARIABLES: dict[str, str] = {
    "x": "int",
    "y": "int",
    "u": "uint",
    "f": "double",
    "s": "string",
    "t": "string",
    "b": "bool",
    "by": "bytes",
    "ts": "timestamp",
    "du": "duration",
    "n": "null_type",
    "d": "dyn",
    "l": "list(int)",
    "ls": "list(string)",
    "lf": "list(double)",
    "ld": "list(dyn)",
    "ll": "list(list(int))",
    "m": "map(string, int)",
    "ms": "map(string, string)",
    "mi": "map(int, bool)",
    "md": "map(string, dyn)",
    "ml": "map(string, list(string))",
}
"""Variable name → type, in the notation of cel-go's `FormatCELType`."""

SCALARS = ("int", "uint", "double", "string", "bool", "bytes", "timestamp", "duration")
ALL_TYPES = (
    *SCALARS,
    "null_type",
    "dyn",
    "list(int)",
    "list(string)",
    "list(dyn)",
    "map(string, int)",
    "map(string, dyn)",
)

Scope = Mapping[str, str]

_LITERALS: dict[str, tuple[str, ...]] = {
    "int": ("0", "1", "42", "-7", "0x1F", "-0x10", "9223372036854775807", "-9223372036854775808"),
    "uint": ("0u", "1u", "42U", "0xFFu", "18446744073709551615u"),
    "double": ("0.0", "1.5", "-2.25", "1e3", "2.5E-3", ".5", "1.0"),
    "string": ("''", "'a'", '"b"', "'''tri'''", 'r"\\d+"', "'\\u00e9'", "'x\\ty'", "'\\x41'"),
    "bool": ("true", "false"),
    "bytes": ("b''", "b'abc'", 'B"\\xff"', "b'\\000'"),
    "timestamp": ("timestamp('2023-01-01T00:00:00Z')", "timestamp(0)"),
    "duration": ("duration('1h')", "duration('-1.5s')", "duration('100ms')"),
    "null_type": ("null",),
}

_ARITH = ("+", "-", "*", "/", "%")
_COMPARE = ("<", "<=", ">", ">=")
_EQUALITY = ("==", "!=")
_STRING_FNS = ("contains", "startsWith", "endsWith", "matches")
_TS_GETTERS = (
    "getFullYear",
    "getMonth",
    "getDayOfYear",
    "getDayOfMonth",
    "getDate",
    "getDayOfWeek",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
)
_DURATION_GETTERS = ("getHours", "getMinutes", "getSeconds", "getMilliseconds")
_CONVERSIONS = ("int", "uint", "double", "string", "bytes", "bool", "timestamp", "duration", "dyn", "type")
_MACROS = ("all", "exists", "exists_one", "map", "filter")
_ITER_NAMES = ("v", "e", "k")


def elem_type(type_text: str) -> str | None:
    """The element type of `list(T)`, or the key type of `map(K, V)` (what a macro ranges over)."""
    if type_text.startswith("list(") and type_text.endswith(")"):
        return type_text[5:-1]
    if type_text.startswith("map("):
        return _split_map(type_text)[0]
    if type_text == "dyn":
        return "dyn"
    return None


def _split_map(type_text: str) -> tuple[str, str]:
    inner = type_text[4:-1]
    depth = 0
    for i, ch in enumerate(inner):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            return inner[:i].strip(), inner[i + 1 :].strip()
    raise ValueError(type_text)


class Generator:
    """Random expressions from a seeded `random.Random`; `depth` bounds the nesting."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    # --- helpers ------------------------------------------------------------------------------

    def choice(self, items: tuple[str, ...] | list[str]) -> str:
        return items[self.rng.randrange(len(items))]

    def var_of(self, type_text: str, scope: Scope) -> str | None:
        names = [n for n, typ in {**VARIABLES, **scope}.items() if typ == type_text]
        return self.choice(names) if names else None

    def leaf(self, type_text: str, scope: Scope) -> str:
        """A variable or literal of the type (`dyn`: any variable)."""
        var = self.var_of(type_text, scope)
        literals = _LITERALS.get(type_text)
        if var is not None and (not literals or self.rng.random() < 0.6):
            return var
        if literals:
            return self.choice(literals)
        if type_text == "dyn":
            return self.choice(["d", "dyn(x)", "md['k']", "ld[0]", "d.f"])
        if type_text.startswith("list("):
            return f"[{self.leaf(type_text[5:-1], scope)}]"
        if type_text.startswith("map("):
            key, value = _split_map(type_text)
            return f"{{{self.leaf(key, scope)}: {self.leaf(value, scope)}}}"
        return "null"

    def paren(self, text: str) -> str:
        return text if text.replace("_", "").isalnum() else f"({text})"

    # --- well-typed (type-directed) -----------------------------------------------------------

    def typed(self, type_text: str, depth: int, scope: Scope) -> str:
        if depth <= 0 or self.rng.random() < 0.25:
            return self.leaf(type_text, scope)
        builders = self._builders(type_text)
        if not builders or self.rng.random() < 0.1:
            return self.ternary(type_text, depth, scope)
        return builders[self.rng.randrange(len(builders))](depth - 1, scope)

    def ternary(self, type_text: str, depth: int, scope: Scope) -> str:
        cond = self.typed("bool", depth - 1, scope)
        a = self.typed(type_text, depth - 1, scope)
        c = self.typed(type_text, depth - 1, scope)
        return f"{self.paren(cond)} ? {self.paren(a)} : {self.paren(c)}"

    def _builders(self, type_text: str) -> list[Callable[[int, Scope], str]]:
        numeric = type_text in ("int", "uint", "double")
        out: list[Callable[[int, Scope], str]] = []
        if numeric:
            ops = _ARITH if type_text != "double" else ("+", "-", "*", "/")
            out.append(lambda d, sc: self.binary(type_text, self.choice(ops), type_text, d, sc))
            out.append(lambda d, sc: f"{type_text}({self.typed(self.choice(SCALARS[:3]), d, sc)})")
            if type_text != "uint":
                out.append(lambda d, sc: f"-{self.paren(self.typed(type_text, d, sc))}")
        if type_text == "int":
            out.append(
                lambda d, sc: f"size({self.typed(self.choice(['string', 'bytes', 'list(int)']), d, sc)})"
            )
            out.append(lambda d, sc: f"{self.paren(self.typed('string', d, sc))}.size()")
            out.append(
                lambda d, sc: f"{self.paren(self.typed('list(int)', d, sc))}[{self.typed('int', d, sc)}]"
            )
            out.append(lambda d, sc: f"m[{self.typed('string', d, sc)}]")
            out.append(
                lambda d, sc: f"{self.paren(self.typed('timestamp', d, sc))}.{self.choice(_TS_GETTERS)}()"
            )
            out.append(
                lambda d, sc: (
                    f"{self.paren(self.typed('timestamp', d, sc))}.{self.choice(_TS_GETTERS)}('UTC')"
                )
            )
            out.append(
                lambda d, sc: (
                    f"{self.paren(self.typed('duration', d, sc))}.{self.choice(_DURATION_GETTERS)}()"
                )
            )
            out.append(lambda d, sc: f"int({self.typed(self.choice(['timestamp', 'string']), d, sc)})")
        if type_text == "string":
            out.append(lambda d, sc: self.binary("string", "+", "string", d, sc))
            out.append(lambda d, sc: f"string({self.typed(self.choice(SCALARS), d, sc)})")
            out.append(lambda d, sc: f"ls[{self.typed('int', d, sc)}]")
            out.append(lambda d, sc: f"ms[{self.typed('string', d, sc)}]")
        if type_text == "bool":
            out.append(lambda d, sc: self.comparison(d, sc))
            out.append(lambda d, sc: self.binary("bool", self.choice(("&&", "||")), "bool", d, sc))
            out.append(lambda d, sc: f"!{self.paren(self.typed('bool', d, sc))}")
            out.append(
                lambda d, sc: (
                    f"{self.paren(self.typed('string', d, sc))}.{self.choice(_STRING_FNS)}"
                    f"({self.typed('string', d, sc)})"
                )
            )
            out.append(lambda d, sc: self.membership(d, sc))
            out.append(lambda d, sc: self.macro("bool", d, sc))
            out.append(
                lambda d, sc: f"has({self.choice(['md', 'd', 'm', 'ms'])}.{self.choice(['k', 'f', 'a'])})"
            )
            out.append(lambda d, sc: f"bool({self.choice(['b', 'true', repr('true')])})")
        if type_text == "bytes":
            out.append(lambda d, sc: self.binary("bytes", "+", "bytes", d, sc))
            out.append(lambda d, sc: f"bytes({self.typed('string', d, sc)})")
        if type_text == "timestamp":
            out.append(lambda d, sc: self.binary("timestamp", self.choice(("+", "-")), "duration", d, sc))
            out.append(lambda d, sc: self.binary("duration", "+", "timestamp", d, sc))
            out.append(lambda d, sc: f"timestamp({self.typed(self.choice(['string', 'timestamp']), d, sc)})")
        if type_text == "duration":
            out.append(lambda d, sc: self.binary("duration", self.choice(("+", "-")), "duration", d, sc))
            out.append(lambda d, sc: self.binary("timestamp", "-", "timestamp", d, sc))
            out.append(lambda d, sc: f"duration({self.typed(self.choice(['string', 'duration']), d, sc)})")
        if type_text.startswith("list("):
            item = type_text[5:-1]
            out.append(lambda d, sc: self.binary(type_text, "+", type_text, d, sc))
            out.append(
                lambda d, sc: (
                    "[" + ", ".join(self.typed(item, d, sc) for _ in range(self.rng.randrange(1, 4))) + "]"
                )
            )
            out.append(lambda d, sc: self.macro(type_text, d, sc))
        if type_text.startswith("map("):
            key, value = _split_map(type_text)
            out.append(
                lambda d, sc: (
                    "{"
                    + ", ".join(
                        f"{self.typed(key, d, sc)}: {self.typed(value, d, sc)}"
                        for _ in range(self.rng.randrange(1, 3))
                    )
                    + "}"
                )
            )
        if type_text == "dyn":
            out.append(lambda d, sc: f"dyn({self.typed(self.choice(ALL_TYPES), d, sc)})")
            out.append(lambda d, sc: f"d.{self.choice(['a', 'b', 'spec'])}")
            out.append(lambda d, sc: f"d[{self.typed(self.choice(['int', 'string']), d, sc)}]")
            out.append(lambda d, sc: f"md[{self.typed('string', d, sc)}]")
            out.append(lambda d, sc: f"ld[{self.typed('int', d, sc)}]")
        return out

    def binary(self, left: str, op: str, right: str, depth: int, scope: Scope) -> str:
        return (
            f"{self.paren(self.typed(left, depth, scope))} {op} {self.paren(self.typed(right, depth, scope))}"
        )

    def comparison(self, depth: int, scope: Scope) -> str:
        if self.rng.random() < 0.5:
            left = self.choice(("int", "uint", "double"))
            right = self.choice(("int", "uint", "double"))
            return self.binary(left, self.choice(_COMPARE), right, depth, scope)
        typ = self.choice(ALL_TYPES)
        ops = _EQUALITY + (_COMPARE if typ in SCALARS else ())
        return self.binary(typ, self.choice(ops), typ, depth, scope)

    def membership(self, depth: int, scope: Scope) -> str:
        container = self.choice(("list(int)", "list(string)", "map(string, int)", "list(dyn)"))
        item = elem_type(container) or "dyn"
        left = self.paren(self.typed(item, depth, scope))
        return f"{left} in {self.paren(self.typed(container, depth, scope))}"

    def macro(self, result: str, depth: int, scope: Scope) -> str:
        """`<range>.<macro>(v, …)`: `all`/`exists`/`exists_one` for bool, `map`/`filter` for lists."""
        range_type = self.choice(
            ("list(int)", "list(string)", "list(dyn)", "map(string, int)", "list(list(int))")
        )
        if result.startswith("list("):
            want = result[5:-1]
            candidates = [
                r
                for r in ("list(int)", "list(string)", "list(dyn)", "map(string, int)")
                if elem_type(r) == want
            ]
            if self.rng.random() < 0.5 or not candidates:
                name = "map"
            else:
                name = "filter"
                range_type = self.choice(candidates)
        else:
            name = self.choice(_MACROS[:3])
        var = self.choice(_ITER_NAMES)
        inner = {**scope, var: elem_type(range_type) or "dyn"}
        target = self.paren(self.typed(range_type, depth, scope))
        if name == "map":
            body = self.typed(result[5:-1], depth, inner)
            if self.rng.random() < 0.3:
                return f"{target}.map({var}, {self.typed('bool', depth, inner)}, {body})"
            return f"{target}.map({var}, {body})"
        return f"{target}.{name}({var}, {self.typed('bool', depth, inner)})"

    # --- arbitrary (often ill-typed) combinations ---------------------------------------------

    def arbitrary(self, depth: int) -> str:
        """An operator, function or macro applied to operands of random types."""

        def arg() -> str:
            return self.typed(self.choice(ALL_TYPES), depth - 1, {})

        shape = self.rng.randrange(10)
        if shape == 0:
            return f"{self.paren(arg())} {self.choice(_ARITH)} {self.paren(arg())}"
        if shape == 1:
            return f"{self.paren(arg())} {self.choice(_COMPARE + _EQUALITY)} {self.paren(arg())}"
        if shape == 2:
            return f"{self.paren(arg())} {self.choice(('&&', '||', 'in'))} {self.paren(arg())}"
        if shape == 3:
            return f"{self.choice(('-', '!'))}{self.paren(arg())}"
        if shape == 4:
            return f"{self.choice(_CONVERSIONS)}({arg()})"
        if shape == 5:
            fn = self.choice(("size", *_STRING_FNS, *_TS_GETTERS))
            args = ", ".join(arg() for _ in range(self.rng.randrange(0, 2)))
            return f"{self.paren(arg())}.{fn}({args})"
        if shape == 6:
            return f"{self.paren(arg())}[{arg()}]"
        if shape == 7:
            return f"{self.paren(arg())} ? {self.paren(arg())} : {self.paren(arg())}"
        if shape == 8:
            var = self.choice(_ITER_NAMES)
            range_type = self.choice(ALL_TYPES)
            inner = {var: elem_type(range_type) or "dyn"}
            body = self.typed(self.choice(ALL_TYPES), depth - 1, inner)
            return (
                f"{self.paren(self.typed(range_type, depth - 1, {}))}.{self.choice(_MACROS)}({var}, {body})"
            )
        items = ", ".join(arg() for _ in range(self.rng.randrange(1, 4)))
        return f"[{items}]" if self.rng.random() < 0.5 else f"{{{arg()}: {arg()}}}"


def generate(count: int = 2000, seed: int = 20240607) -> list[str]:
    """`count` distinct expressions, half type-directed, half arbitrary combinations."""
    gen = Generator(seed)
    seen: set[str] = set()
    out: list[str] = []
    attempts = 0
    while len(out) < count and attempts < count * 20:
        attempts += 1
        if attempts % 2:
            expr = gen.typed(gen.choice(ALL_TYPES), gen.rng.randrange(1, 5), {})
        else:
            expr = gen.arbitrary(gen.rng.randrange(1, 4))
        if expr not in seen:
            seen.add(expr)
            out.append(expr)
    return out


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20240607
    for expression in generate(count, seed):
        print(expression)
