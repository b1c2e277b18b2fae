"""Differential test: our CEL checker agrees with Google's C++ CEL on the standard library.

Every expression of the corpus — the hand-written `differential/expressions.txt`, deep-nesting
cases and a seeded generator (`differential/differential_gen.py`) — is compiled with the same
variable declarations (`differential_gen.VARIABLES`) by

* the oracle: `cel-expr-python` (the C++ implementation) with its standard library, plus the
  cross-type numeric comparison overloads (`1 < 1.5`), which Kubernetes enables with cel-go's
  `cel.CrossTypeNumericComparisons(true)` (compat 1.28) and C++ CEL only has as a runtime option;
* vap-lsp: `compile_expression` in the Kubernetes 1.34 environment of a policy variable (any
  result type allowed), its declared variables replaced by the same declarations.

The verdicts (accepted or rejected) must agree and, when both accept, so must the result types.
Error texts are not compared (C++ says `null_type` where cel-go says `null`, positions differ).

Rejections by Kubernetes' AST validators (`validator` phase: homogeneous aggregate literals,
literal `duration`/`timestamp`/regex arguments), which plain CEL does not run, count as
agreement when the checker itself agrees with the oracle, result type included.

Other disagreements are failures unless they are

* of a kind recognised by one of the `RULES` (each with its reason): limits of the oracle,
  Kubernetes libraries (shown by re-compiling with vap-lsp restricted to the standard library),
  and C++ behaviours that differ from cel-go — cel-go is what Kubernetes runs and our reference;
* listed in `ALLOWED` with the reason: `CPP:` C++ differs from cel-go, `BUG:` ours, waiting for a
  fix in `vap_lsp/cel`.

An `ALLOWED` entry that agrees again, or that a rule now explains, fails
`test_allow_list_has_no_stale_entries`.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from vap_lsp.cel import types as t
from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, build_environment
from vap_lsp.cel.library.decls import BASE_TYPES, FunctionDecl, NamedTypes
from vap_lsp.cel.library.stdlib import STDLIB

cel: Any = pytest.importorskip(
    "cel_expr_python.cel",
    reason="cel-expr-python (Google's C++ CEL, the differential oracle) is not installed",
)

DATA = Path(__file__).resolve().parent / "differential"
sys.path.insert(0, str(DATA))

import differential_gen as gen  # noqa: E402

KUBERNETES_VERSION = "1.34"
GENERATED_COUNT = 4000
GENERATOR_SEED = 20240607

# --- allowed disagreements ------------------------------------------------------------------

ALLOWED: dict[str, str] = {
    # CPP: cel-go's parser rejects a double literal out of range (strconv.ParseFloat's ErrRange
    # → "invalid double literal"); C++ parses it as infinity.
    "1e309": "CPP: out-of-range double literal is an error in cel-go, infinity in C++",
    "-1e309": "CPP: out-of-range double literal is an error in cel-go, infinity in C++",
    # CPP: C++ declares `dyn` as a type identifier; cel-go's standard types (common/stdlib
    # standard.go stdTypes) do not, so `dyn` alone is an undeclared reference.
    "dyn": "CPP: `dyn` is a type identifier in C++ only",
}
"""Single expressions on which vap-lsp and C++ CEL are known to disagree, with the reason:
`CPP:` C++ differs from cel-go (our reference), `K8S:` a Kubernetes option we model, `BUG:` ours."""

# --- the two compilers ----------------------------------------------------------------------

_NAMED = NamedTypes(BASE_TYPES)

_CPP_PRIMITIVES = {
    t.Kind.INT: "INT",
    t.Kind.UINT: "UINT",
    t.Kind.DOUBLE: "DOUBLE",
    t.Kind.STRING: "STRING",
    t.Kind.BOOL: "BOOL",
    t.Kind.BYTES: "BYTES",
    t.Kind.TIMESTAMP: "TIMESTAMP",
    t.Kind.DURATION: "DURATION",
    t.Kind.NULL: "NULL",
    t.Kind.DYN: "DYN",
}

_COMPARISONS = {"_<_": "less", "_<=_": "less_equals", "_>_": "greater", "_>=_": "greater_equals"}


def cpp_type(type_text: str) -> Any:
    """A `cel.Type` from `FormatCELType` notation (`map(string, list(int))`)."""
    our = _NAMED.parse(type_text)
    return _cpp_of(our)


def _cpp_of(typ: t.Type) -> Any:
    if typ.kind is t.Kind.LIST:
        return cel.Type.List(_cpp_of(typ.params[0]))
    if typ.kind is t.Kind.MAP:
        return cel.Type.Map(_cpp_of(typ.params[0]), _cpp_of(typ.params[1]))
    return getattr(cel.Type, _CPP_PRIMITIVES[typ.kind])


def _comparison_decls() -> list[Any]:
    """`_<_`, `_<=_`, `_>_`, `_>=_` as cel-go declares them with cross-type comparisons on."""
    T = cel.Type
    same = {
        "bool": T.BOOL,
        "int64": T.INT,
        "uint64": T.UINT,
        "double": T.DOUBLE,
        "string": T.STRING,
        "bytes": T.BYTES,
        "timestamp": T.TIMESTAMP,
        "duration": T.DURATION,
    }
    numbers = {"int64": T.INT, "uint64": T.UINT, "double": T.DOUBLE}
    decls = []
    for op, base in _COMPARISONS.items():
        overloads = [cel.Overload(f"{base}_{n}", T.BOOL, [typ, typ]) for n, typ in same.items()]
        overloads += [
            cel.Overload(f"{base}_{a}_{b}", T.BOOL, [ta, tb])
            for a, ta in numbers.items()
            for b, tb in numbers.items()
            if a != b
        ]
        decls.append(cel.FunctionDecl(op, overloads))
    return decls


def oracle_env() -> Any:
    """C++ CEL's standard library, comparisons replaced by their cross-type-numeric form."""
    excluded = "".join(f'    - name: "{op}"\n' for op in _COMPARISONS)
    config = cel.NewEnvConfigFromYaml(f"stdlib:\n  exclude_functions:\n{excluded}")
    variables = {name: cpp_type(typ) for name, typ in gen.VARIABLES.items()}
    return cel.NewEnv(config=config, variables=variables, functions=_comparison_decls())


def our_env() -> Environment:
    """The Kubernetes environment of a policy variable, with only our declarations."""
    env = build_environment(KUBERNETES_VERSION, ExpressionKind.VARIABLE, has_params=False)
    return dataclasses.replace(env, variables={n: _NAMED.parse(typ) for n, typ in gen.VARIABLES.items()})


def our_standard_env() -> Environment:
    """`our_env` reduced to the standard library: no Kubernetes or extension functions, macros,
    optional syntax or `optional_type`. Used to attribute a disagreement to those libraries."""
    env = our_env()

    def standard(functions: Mapping[str, FunctionDecl]) -> dict[str, FunctionDecl]:
        out: dict[str, FunctionDecl] = {}
        for name, decl in functions.items():
            overloads = tuple(o for o in decl.overloads if o.library == STDLIB.name)
            if overloads:
                out[name] = FunctionDecl(name, overloads)
        return out

    return dataclasses.replace(
        env,
        functions=standard(env.functions),
        nested_functions=standard(env.nested_functions),
        macros=tuple(m for m in env.macros if m.library == STDLIB.name),
        type_identifiers={k: v for k, v in env.type_identifiers.items() if k != "optional_type"},
        features=dataclasses.replace(env.features, optional_syntax=False),
    )


_CPP_NAMES = {
    "INT": "int",
    "UINT": "uint",
    "DOUBLE": "double",
    "STRING": "string",
    "BOOL": "bool",
    "BYTES": "bytes",
    "TIMESTAMP": "timestamp",
    "DURATION": "duration",
    "NULL": "null",
    "DYN": "dyn",
    "ANY": "any",
    "ERROR": "!error!",
    "LIST": "list",
    "MAP": "map",
    "TYPE": "type",
}


def cpp_type_name(name: str) -> str:
    """C++ `Type.name()` (`MAP<STRING, LIST<DYN>>`) in cel-go's `FormatCELType` notation."""
    out: list[str] = []
    i = 0
    while i < len(name):
        ch = name[i]
        if ch == "<":
            out.append("(")
        elif ch == ">":
            out.append(")")
        elif ch in ", ":
            out.append(ch)
        else:
            j = i
            while j < len(name) and name[j] not in "<>, ":
                j += 1
            word = name[i:j]
            out.append(_CPP_NAMES.get(word, word))
            i = j
            continue
        i += 1
    return "".join(out)


# --- outcomes -------------------------------------------------------------------------------

Verdict = Literal["accept", "reject"]


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    type: str | None  # FormatCELType notation when accepted
    message: str  # first error line when rejected

    def __str__(self) -> str:
        return f"accepts: {self.type}" if self.verdict == "accept" else f"rejects: {self.message}"


@dataclass(frozen=True)
class Ours(Outcome):
    validator: str | None = None  # a Kubernetes validator's rejection of a checked expression


def run_oracle(env: Any, text: str) -> Outcome:
    try:
        compiled = env.compile(text)
    except Exception as exc:  # the binding raises RuntimeError/ValueError with the status text
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return Outcome("reject", None, first)
    try:
        name = cpp_type_name(compiled.return_type().name())
    except Exception as exc:  # e.g. `Unsupported map key type: DOUBLE`: checked, but no cel.Type
        name = f"<no cel.Type: {str(exc).splitlines()[0]}>"
    return Outcome("accept", name, "")


def run_ours(env: Environment, text: str) -> Ours:
    result = compile_expression(text, env)
    rejected = [i for i in result.issues if i.phase in ("syntax", "check") and i.severity == "error"]
    if rejected or result.checked is None:
        return Ours("reject", None, rejected[0].cel_message if rejected else "no checked AST")
    validator = next((i.cel_message for i in result.issues if i.phase == "validator"), None)
    return Ours("accept", t.format_cel_type(result.checked.output_type), "", validator)


def agree(ours: Outcome, theirs: Outcome) -> bool:
    return ours.verdict == theirs.verdict and ours.type == theirs.type


# --- the corpus -----------------------------------------------------------------------------


def hand_written() -> list[str]:
    lines = (DATA / "expressions.txt").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def nesting_cases() -> list[str]:
    """Deep nesting around the recursion limits: 250 in cel-go's parser, 32 in cel-expr-python."""
    out: list[str] = []
    for depth in (16, 31, 32, 33, 100, 249, 250, 251, 300):
        out.append("(" * depth + "x" + ")" * depth)
        out.append("[" * depth + "1" + "]" * depth)
        out.append("!" * depth + "b")
        out.append("-" * depth + "x")
        out.append(" + ".join(["x"] * depth))
        out.append(".".join(["d"] + ["a"] * depth))
    for depth in (5, 20, 40):
        out.append("l" + ".map(v, v + 1)" * depth)
        out.append("{'a': " * depth + "1" + "}" * depth)
        out.append("b ? " * depth + "1" + " : 2" * depth)
    return out


def corpus() -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for text in (*hand_written(), *nesting_cases(), *gen.generate(GENERATED_COUNT, GENERATOR_SEED)):
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


@dataclass(frozen=True)
class Compared:
    text: str
    ours: Ours
    oracle: Outcome
    ours_standard: Ours  # vap-lsp restricted to the standard library

    @property
    def category(self) -> str:
        """`agree`, the first matching `RULES` name, `allowed` (in `ALLOWED`) or `unexpected`."""
        if agree(self.ours, self.oracle):
            return "agree"
        for rule in RULES:
            if rule.applies(self):
                return rule.name
        return "allowed" if self.text in ALLOWED else "unexpected"


@dataclass(frozen=True)
class Rule:
    """An expected kind of difference, recognised from the two outcomes."""

    name: str
    reason: str
    applies: Callable[[Compared], bool]


def _erase(type_text: str | None, names: tuple[str, ...]) -> str:
    """`type_text` with each of `names` (whole words) replaced by one placeholder."""
    return re.sub(r"\b(" + "|".join(names) + r")\b", "_", type_text or "")


def _both_accept(c: Compared) -> bool:
    return c.ours.verdict == c.oracle.verdict == "accept"


def _oracle_says(*fragments: str) -> Callable[[Compared], bool]:
    return lambda c: c.oracle.verdict == "reject" and any(f in c.oracle.message for f in fragments)


def _unexpressible_map_key(c: Compared) -> bool:
    marker = "Unsupported map key type: "
    if c.ours.verdict != "accept" or c.oracle.type is None or marker not in c.oracle.type:
        return False
    key = cpp_type_name(c.oracle.type.split(marker, 1)[1].split(" [", 1)[0])
    return f"map({key}, " in (c.ours.type or "")


_TYPE_VARIABLE_SOURCES = re.compile(r"\[\]|\{\}|\bd\[")
"""Where the corpus creates unbound type variables: `[]`, `{}` and `d[…]` (`index_map` on a
`dyn` operand leaves the value type `V` unbound in the standard library)."""

_WRAPPER = re.compile(r"\bwrapper\((\w+)\)")


def _oracle_type_rendering(c: Compared) -> bool:
    """Both accept, and our type printed as the binding prints it (wrappers as their primitive,
    `any` as `!error!`) is the oracle's."""
    if not _both_accept(c) or c.ours.type is None:
        return False
    rendered = _WRAPPER.sub(r"\1", c.ours.type)
    rendered = re.sub(r"\bany\b", "!error!", rendered)
    return rendered != c.ours.type and rendered == c.oracle.type


RULES: tuple[Rule, ...] = (
    Rule(
        "oracle type rendering of protobuf wrappers and any",
        "cel-expr-python's `cel.Type` has no wrapper or `any` type: `wrapper(int)` comes back "
        "as `int` and `any` as an error type; cel-go prints `wrapper(int)` and `any`",
        _oracle_type_rendering,
    ),
    Rule(
        "oracle recursion limit",
        "cel-expr-python limits parser and checker recursion to 32 (not configurable); cel-go's "
        "parser allows 250 levels: the oracle gives no verdict",
        _oracle_says("Expression recursion limit exceeded. limit: 32", "Exceeded max recursion depth of 32"),
    ),
    Rule(
        "oracle cannot express the map key type",
        "C++ checked the expression, but `return_type()` fails for map keys other than "
        "bool/int/uint/string (`Unsupported map key type`); cel-go accepts any key type",
        _unexpressible_map_key,
    ),
    Rule(
        "K8S: Kubernetes libraries",
        "the difference disappears when vap-lsp is restricted to the standard library: extension "
        "functions and macros, optional syntax, and the optional `_[_]` overloads (they accept "
        "`null` operands, `optional_type` being legacy-nullable, and make `d[k]` a `dyn`)",
        lambda c: agree(c.ours_standard, c.oracle),
    ),
    Rule(
        "CPP: null joined with timestamp/duration",
        "cel-go's `mostGeneral(a, b)` returns `b` unless `a` is less specific, so `[ts, null]` is "
        "`list(null)` and `{'a': null, 'b': ts}` is `map(string, timestamp)`; C++ keeps the "
        "timestamp/duration type in both orders (checker/types.go isEqualOrLessSpecific)",
        lambda c: (
            _both_accept(c)
            and _erase(c.ours.type, ("null", "timestamp", "duration"))
            == _erase(c.oracle.type, ("null", "timestamp", "duration"))
        ),
    ),
    Rule(
        "CPP: type variable bound by the first matching overload",
        "cel-go binds a type-variable operand to the first overload in declaration order "
        "(`add_bytes` for `_+_`, `negate_double` for `-_`: `[].map(v, v + v)` is `list(bytes)`); "
        "C++ infers `int`",
        lambda c: (
            _both_accept(c)
            and _TYPE_VARIABLE_SOURCES.search(c.text) is not None
            and _erase(c.ours_standard.type, ("int", "double", "bytes"))
            == _erase(c.oracle.type, ("int", "double", "bytes"))
            and c.ours.type in (c.ours_standard.type, "dyn")
        ),
    ),
    Rule(
        "CPP: type variable as comprehension range",
        "cel-go iterates a type-variable range with a `dyn` variable (checker.go "
        "checkComprehension: `case DynKind, ErrorKind, TypeParamKind`); C++ rejects it",
        lambda c: (
            c.ours.verdict == "accept"
            and _oracle_says("expression of type 'dyn' cannot be the range of a comprehension")(c)
        ),
    ),
)
"""Expected differences recognised by rule, in the order they are tried."""


@pytest.fixture(scope="module")
def compared() -> list[Compared]:
    cpp, env, standard = oracle_env(), our_env(), our_standard_env()
    start = time.perf_counter()
    results = [
        Compared(text, run_ours(env, text), run_oracle(cpp, text), run_ours(standard, text))
        for text in corpus()
    ]
    elapsed = time.perf_counter() - start
    print(f"\ndifferential: {len(results)} expressions compiled by both in {elapsed:.1f} s")
    return results


# --- tests ----------------------------------------------------------------------------------


def test_type_names_of_the_oracle_map_to_cel_go_notation() -> None:
    assert cpp_type_name("INT") == "int"
    assert cpp_type_name("LIST<DYN>") == "list(dyn)"
    assert cpp_type_name("MAP<STRING, LIST<TIMESTAMP>>") == "map(string, list(timestamp))"
    assert cpp_type_name("TYPE<NULL>") == "type(null)"
    assert t.format_cel_type(_NAMED.parse("map(string, list(timestamp))")) == "map(string, list(timestamp))"


def test_oracle_is_configured_like_kubernetes() -> None:
    cpp = oracle_env()
    assert run_oracle(cpp, "1 < 1.5") == Outcome("accept", "bool", "")
    assert run_oracle(cpp, "x <= u").verdict == "accept"
    assert run_oracle(cpp, "1 == 1.0").verdict == "reject"  # equality stays homogeneous
    assert run_oracle(cpp, "m").type == "map(string, int)"


def test_standard_environment_has_only_the_standard_library() -> None:
    standard = our_standard_env()
    assert run_ours(standard, "s.size()").type == "int"
    assert run_ours(standard, "s.lowerAscii()").verdict == "reject"
    assert run_ours(standard, "l.all(i, v, v > 0)").verdict == "reject"
    assert run_ours(standard, "md.?a").verdict == "reject"


def test_corpus_has_at_least_2000_expressions() -> None:
    assert len(hand_written()) >= 300
    assert len(corpus()) >= 2000


def test_generator_is_deterministic() -> None:
    assert gen.generate(50, 7) == gen.generate(50, 7)
    assert gen.generate(50, 7) != gen.generate(50, 8)


def test_verdicts_and_result_types_agree(compared: list[Compared]) -> None:
    tally: Counter[str] = Counter()
    unexpected: list[str] = []
    for c in compared:
        category = c.category
        if category == "agree":
            tally[f"agree: both {c.oracle.verdict}"] += 1
            if c.ours.validator is not None:
                tally["agree, then rejected by a Kubernetes validator"] += 1
        elif category == "allowed":
            tally[f"allowed {ALLOWED[c.text].split(':')[0]}"] += 1
        elif category == "unexpected":
            unexpected.append(f"{c.text!r}\n    ours: {c.ours}\n    C++:  {c.oracle}")
        else:
            tally[category] += 1
    print(f"differential: {len(compared)} expressions")
    for key, count in sorted(tally.items()):
        print(f"  {key}: {count}")
    for rule in RULES:
        print(f"  [{rule.name}] {rule.reason}")
    print(f"  unexpected disagreements: {len(unexpected)}")
    assert unexpected == [], "\n" + "\n".join(unexpected)


def test_validator_rejections_are_kubernetes_validators(compared: list[Compared]) -> None:
    """Kubernetes' validators reject only mixed aggregate literals and bad literal formats."""
    known = (
        "expected type '",
        "invalid duration argument",
        "invalid timestamp argument",
        "invalid matches argument",
    )
    others = [
        f"{c.text!r}: {c.ours.validator}"
        for c in compared
        if c.ours.validator is not None and not c.ours.validator.startswith(known)
    ]
    assert others == []


def test_allow_list_has_no_stale_entries(compared: list[Compared]) -> None:
    by_text = {c.text: c for c in compared}
    missing = [text for text in ALLOWED if text not in by_text]
    stale = [text for text in ALLOWED if text in by_text and by_text[text].category != "allowed"]
    assert missing == [], "allow-listed expressions not in the corpus"
    assert stale == [], "these agree now (or a rule explains them): remove them from ALLOWED"
