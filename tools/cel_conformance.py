"""Run google/cel-spec's conformance suite (tests/simple/testdata/*.textproto) through vap_lsp.cel.

Usage: `python tools/cel_conformance.py ../shared/cel-spec [--verbose] [--file NAME]` (exit status 1
when any applicable test fails, known differences included)

Each test is parsed (macros off under `disable_macros`), type-checked against its `type_env` and
`container` (unless `disable_check`), evaluated with its `bindings` and compared with `value`,
`eval_error`, `any_eval_errors` or `typed_result` (value and deduced type). A test without a
matcher expects `true`, as simple.proto says. Tests that need protobuf message types
(TestAllTypes, wrappers, Any, Struct, enums) or unknowns are skipped: Kubernetes CEL has no
proto messages. The environment is `vap_lsp.cel.conformance.conformance_environment`: the
newest Kubernetes library set plus the cel-go extensions the suite exercises that the API
server does not load (math, encoders, bindings, block, network); those never reach a
Kubernetes environment.

An expected `eval_error`/`any_eval_errors` matches any error (messages differ between
implementations), a parse or check error included (one test relies on it,
`network_ext/ip_type/is_ip_cidr_compile_error`); a parse or check error never matches a value.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from textproto import Message, parse_textproto, text

from vap_lsp.cel import types as t
from vap_lsp.cel.checker import check
from vap_lsp.cel.conformance import ConformanceDecls, conformance_environment, conformance_parse
from vap_lsp.cel.environment import Environment
from vap_lsp.cel.interpreter import EvalResult, evaluate
from vap_lsp.cel.library.decls import FunctionDecl, Overload
from vap_lsp.cel.runtime.values import (
    Duration,
    Optional,
    Timestamp,
    TypeValue,
    UintType,
    type_name,
)

SKIP_REASON = "needs protobuf messages"

PROTO_MARKERS = (
    "TestAllTypes",
    "NestedTestAllTypes",
    "NestedMessage",
    "NestedEnum",
    "GlobalEnum",
    "TestRequired",
    "cel.expr.conformance",
    "google.protobuf.Int32Value",
    "google.protobuf.Int64Value",
    "google.protobuf.UInt32Value",
    "google.protobuf.UInt64Value",
    "google.protobuf.FloatValue",
    "google.protobuf.DoubleValue",
    "google.protobuf.BoolValue",
    "google.protobuf.StringValue",
    "google.protobuf.BytesValue",
    "google.protobuf.Any",
    "google.protobuf.Struct",
    "google.protobuf.Value",
    "google.protobuf.ListValue",
    "google.protobuf.NullValue",
    "google.protobuf.FieldMask",
    "google.protobuf.Empty",
    "google.protobuf.Timestamp{",
    "google.protobuf.Duration{",
    "Timestamp{",
    "Duration{",
    "Int32Value",
    "Int64Value",
    "UInt32Value",
    "UInt64Value",
    "FloatValue",
    "DoubleValue",
    "BoolValue",
    "StringValue",
    "BytesValue",
    "ListValue",
)

_OK_OBJECT_URLS = (
    "type.googleapis.com/google.protobuf.Duration",
    "type.googleapis.com/google.protobuf.Timestamp",
)


# --- reading -------------------------------------------------------------------------------------


def _one(msg: Message, name: str) -> Any:
    values = msg.get(name)
    return values[-1] if values else None


def _msg(msg: Message, name: str) -> Message | None:
    v = _one(msg, name)
    return v if isinstance(v, dict) else None


def _flag(msg: Message, name: str) -> bool:
    v = _one(msg, name)
    return v == "true" or v == 1


@dataclass
class Outcome:
    file: str
    section: str
    name: str
    expr: str
    status: str  # "pass", "fail", "skip"
    detail: str = ""

    @property
    def key(self) -> str:
        return f"{self.file}/{self.section}/{self.name}"


# --- expected values -----------------------------------------------------------------------------


class NeedsProto(Exception):
    pass


def _proto_value(value: Message) -> Any:
    """A cel.expr.Value as a vap_lsp runtime value."""
    if not value:
        raise NeedsProto("empty value")
    (kind, items) = next(iter(value.items()))
    v = items[-1]
    if kind == "null_value":
        return None
    if kind == "bool_value":
        return v == "true" or v == 1
    if kind == "int64_value":
        return int(v)
    if kind == "uint64_value":
        return UintType(int(v))
    if kind == "double_value":
        if isinstance(v, str):
            return {"inf": math.inf, "-inf": -math.inf, "infinity": math.inf, "-infinity": -math.inf}.get(
                v.lower(), math.nan
            )
        return float(v)
    if kind == "string_value":
        return text(v)
    if kind == "bytes_value":
        return v if isinstance(v, bytes) else b""
    if kind == "type_value":
        return TypeValue(text(v))
    if kind == "list_value":
        return [_proto_value(x) for x in (v.get("values") or [])]
    if kind == "map_value":
        out: dict[Any, Any] = {}
        for entry in v.get("entries") or []:
            out[_proto_value(_one(entry, "key"))] = _proto_value(_one(entry, "value"))
        return out
    if kind == "object_value":
        (url, payloads) = next(iter(v.items()))
        url = url.strip("[]")
        payload = payloads[-1]
        if url.endswith("google.protobuf.Duration"):
            return Duration(
                int(_one(payload, "seconds") or 0) * 1_000_000_000 + int(_one(payload, "nanos") or 0)
            )
        if url.endswith("google.protobuf.Timestamp"):
            return Timestamp(
                int(_one(payload, "seconds") or 0) * 1_000_000_000 + int(_one(payload, "nanos") or 0)
            )
        raise NeedsProto(url)
    raise NeedsProto(kind)


def _nanos(payload: Message) -> int:
    return int(_one(payload, "seconds") or 0) * 1_000_000_000 + int(_one(payload, "nanos") or 0)


_PRIMITIVES = {
    "BOOL": t.BOOL,
    "INT64": t.INT,
    "UINT64": t.UINT,
    "DOUBLE": t.DOUBLE,
    "STRING": t.STRING,
    "BYTES": t.BYTES,
}


def _proto_type(msg: Message) -> t.Type:
    """A cel.expr.Type as a vap_lsp type."""
    (kind, items) = next(iter(msg.items()))
    v = items[-1]
    if kind == "primitive":
        return _PRIMITIVES[v]
    if kind == "dyn":
        return t.DYN
    if kind == "null":
        return t.NULL
    if kind == "list_type":
        return t.list_of(_proto_type(_one(v, "elem_type")))
    if kind == "map_type":
        return t.map_of(_proto_type(_one(v, "key_type")), _proto_type(_one(v, "value_type")))
    if kind == "type":
        return t.type_of(_proto_type(v))
    if kind == "type_param":
        return t.type_param(text(v))
    if kind == "well_known":
        if v == "TIMESTAMP":
            return t.TIMESTAMP
        if v == "DURATION":
            return t.DURATION
        raise NeedsProto(f"well_known {v}")
    if kind == "abstract_type":
        name = text(_one(v, "name"))
        params = tuple(_proto_type(p) for p in v.get("parameter_types") or [])
        if name == "optional_type" and len(params) == 1:
            return t.optional_of(params[0])
        return t.opaque(name, *params)
    if kind == "message_type":
        name = text(v)
        if name == "google.protobuf.Timestamp":
            return t.TIMESTAMP
        if name == "google.protobuf.Duration":
            return t.DURATION
        raise NeedsProto(name)
    if kind == "error":
        return t.ERROR
    raise NeedsProto(f"type {kind}")


def _decls(type_env: list[Any]) -> ConformanceDecls:
    variables: dict[str, t.Type] = {}
    functions: dict[str, FunctionDecl] = {}
    for decl in type_env:
        name = text(_one(decl, "name"))
        ident = _msg(decl, "ident")
        if ident is not None:
            variables[name] = _proto_type(_one(ident, "type"))
            continue
        fn = _msg(decl, "function")
        if fn is None:
            continue
        overloads = []
        for o in fn.get("overloads") or []:
            params = tuple(_proto_type(p) for p in o.get("params") or [])
            member = _flag(o, "is_instance_function")
            type_params = tuple(text(p) for p in o.get("type_params") or [])
            overloads.append(
                Overload(
                    text(_one(o, "overload_id")),
                    name,
                    params,
                    _proto_type(_one(o, "result_type")),
                    member,
                    type_params,
                    "",
                    "conformance",
                )
            )
        functions[name] = FunctionDecl(name, tuple(overloads))
    return ConformanceDecls(variables, functions)


# --- comparing -----------------------------------------------------------------------------------


def _canonical(v: Any) -> Any:
    """A hashable, type-tagged form: 1, 1u and 1.0 differ; NaN equals NaN; maps are unordered."""
    if v is None:
        return ("null",)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, UintType):
        return ("uint", int(v))
    if isinstance(v, int):
        return ("int", v)
    if isinstance(v, float):
        return ("double", "nan" if math.isnan(v) else v)
    if isinstance(v, str):
        return ("string", v)
    if isinstance(v, bytes):
        return ("bytes", v)
    if isinstance(v, (list, tuple)):
        return ("list", tuple(_canonical(x) for x in v))
    if isinstance(v, Mapping):
        return ("map", frozenset((_canonical(k), _canonical(x)) for k, x in v.items()))
    if isinstance(v, TypeValue):
        return ("type", v.name)
    if isinstance(v, (Duration, Timestamp)):
        return (type(v).__name__, v.nanos)
    if isinstance(v, Optional):
        return ("optional", _canonical(v.value) if v.has_value else None)
    return (type_name(v), repr(v))


def _test_needs_proto(test: Message) -> str | None:
    expr = text(_one(test, "expr") or b"")
    for marker in PROTO_MARKERS:
        if marker in expr:
            return marker
    container = text(_one(test, "container") or b"")
    if container.startswith(("cel.expr.conformance", "google.protobuf")):
        return f"container {container}"
    for matcher in ("unknown", "any_unknowns"):
        if matcher in test:
            return "unknowns"
    return None


@dataclass
class _Case:
    file: str
    section: str
    name: str
    test: Message


@dataclass
class Inputs:
    """What a test gives: the expression and its setting, the bindings and the expected outcome."""

    expr: str
    container: str
    decls: ConformanceDecls
    bindings: dict[str, Any]
    expected: Any
    expected_type: t.Type | None
    expects_error: bool
    macros: bool
    disable_check: bool
    check_only: bool


def inputs(test: Message) -> Inputs:
    """A test's inputs; `NeedsProto` when a binding or the expected value needs protobuf messages."""
    decls = _decls(test.get("type_env") or [])
    bindings: dict[str, Any] = {}
    for entry in test.get("bindings") or []:
        inner = _msg(_one(entry, "value"), "value")
        if inner is None:
            raise NeedsProto("binding without a value (error or unknown)")
        bindings[text(_one(entry, "key"))] = _proto_value(inner)
    expects_error = "eval_error" in test or "any_eval_errors" in test
    expected: Any = None
    expected_type: t.Type | None = None
    value_msg = _msg(test, "value")
    typed = _msg(test, "typed_result")
    if value_msg is not None:
        expected = _proto_value(value_msg)
    elif typed is not None:
        result = _msg(typed, "result")
        expected = _proto_value(result) if result is not None else None
        deduced = _msg(typed, "deduced_type")
        expected_type = _proto_type(deduced) if deduced is not None else None
    elif not expects_error:
        expected = True
    return Inputs(
        expr=text(_one(test, "expr") or b""),
        container=text(_one(test, "container") or b""),
        decls=decls,
        bindings=bindings,
        expected=expected,
        expected_type=expected_type,
        expects_error=expects_error,
        macros=not _flag(test, "disable_macros"),
        disable_check=_flag(test, "disable_check"),
        check_only=_flag(test, "check_only"),
    )


def compile_inputs(inp: Inputs) -> tuple[Environment, Any, str | None]:
    """The test's environment and program (checked unless `disable_check`), or the parse or
    check error that stopped it."""
    env = conformance_environment(inp.decls, inp.container)
    parsed = conformance_parse(inp.expr, env, macros=inp.macros)
    if parsed.ast is None or any(e.severity == "error" for e in parsed.errors):
        msg = parsed.errors[0].message if parsed.errors else "no AST"
        return env, parsed, f"parse error: {msg}"
    if inp.disable_check:
        return env, parsed, None
    checked = check(parsed, env)
    if checked.issues:
        return env, checked, f"check error: {checked.issues[0].message}"
    return env, checked, None


def run_case(case: _Case) -> Outcome:
    test = case.test
    out = Outcome(case.file, case.section, case.name, text(_one(test, "expr") or b""), "fail")
    marker = _test_needs_proto(test)
    try:
        inp = inputs(test)
    except NeedsProto as exc:
        marker = marker or str(exc)
    if marker is not None:
        out.status, out.detail = "skip", marker
        return out
    env, program, error = compile_inputs(inp)
    if error is not None:
        out.status, out.detail = ("pass" if inp.expects_error else "fail"), error
        return out
    if not inp.disable_check:
        if inp.expected_type is not None:
            got_type = t.format_cel_type(program.output_type)
            want_type = t.format_cel_type(inp.expected_type)
            if got_type != want_type:
                out.detail = f"deduced type {got_type}, want {want_type}"
                return out
        if inp.check_only:
            out.status = "pass"
            return out
    result = evaluate(program, inp.bindings, env=env, cost_limit=None)
    changed = _changed_by_tracing(
        result, evaluate(program, inp.bindings, env=env, cost_limit=None, trace=True)
    )
    if changed:
        out.detail = f"tracing changed the result: {changed}"
        return out
    expected = inp.expected
    if inp.expects_error:
        if result.ok:
            out.detail = f"got {result.value!r}, want an error"
            return out
        out.status = "pass"
        return out
    if not result.ok:
        out.detail = f"error {result.error}, want {expected!r}"
        return out
    if _canonical(result.value) != _canonical(expected):
        out.detail = f"got {result.value!r} ({type_name(result.value)}), want {expected!r}"
        return out
    out.status = "pass"
    return out


def cases(root: Path, only: str | None = None) -> Iterator[_Case]:
    testdata = root / "tests" / "simple" / "testdata"
    for path in sorted(testdata.glob("*.textproto")):
        if only is not None and path.stem != only:
            continue
        data = parse_textproto(path.read_text(encoding="utf-8"))
        for section in data.get("section") or []:
            assert isinstance(section, dict)
            sname = text(_one(section, "name") or b"")
            for test in section.get("test") or []:
                assert isinstance(test, dict)
                yield _Case(path.stem, sname, text(_one(test, "name") or b""), test)


@dataclass
class Summary:
    outcomes: list[Outcome] = field(default_factory=list)

    def count(self, status: str, file: str | None = None) -> int:
        return sum(1 for o in self.outcomes if o.status == status and (file is None or o.file == file))

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "fail"]


def run(root: Path, only: str | None = None) -> Summary:
    summary = Summary()
    for case in cases(root, only):
        try:
            outcome = run_case(case)
        except Exception as exc:  # a crash is a failure of that test, not of the run
            outcome = Outcome(case.file, case.section, case.name, "", "fail", f"crash: {exc!r}")
        summary.outcomes.append(outcome)
    return summary


def report(summary: Summary, verbose: bool) -> str:
    lines = []
    files = sorted({o.file for o in summary.outcomes})
    for f in files:
        p, n, s = (
            summary.count("pass", f),
            summary.count("pass", f) + summary.count("fail", f),
            summary.count("skip", f),
        )
        lines.append(f"{f}: {p}/{n} passed" + (f" ({s} skipped)" if s else ""))
    if verbose:
        for o in summary.failures:
            lines.append(f"FAIL {o.key}: {o.expr}\n     {o.detail}")
    p, s = summary.count("pass"), summary.count("skip")
    n = p + summary.count("fail")
    lines.append(f"cel-spec conformance: {p}/{n} passed ({s} skipped: {SKIP_REASON})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("path", type=Path, help="a cel-spec tree (holding tests/simple/testdata)")
    ap.add_argument("--verbose", "-v", action="store_true", help="list every failing test")
    ap.add_argument("--file", help="only this textproto file (stem, e.g. string_ext)")
    args = ap.parse_args(argv)
    if not (args.path / "tests" / "simple" / "testdata").is_dir():
        ap.error(f"{args.path} has no tests/simple/testdata")
    summary = run(args.path, args.file)
    print(report(summary, args.verbose))
    return 0 if not summary.failures else 1


_PLAIN_VALUES = (str, int, float, bool, bytes, type(None))


def _changed_by_tracing(plain: EvalResult, traced: EvalResult) -> str | None:
    """How a traced evaluation (`run --explain`, `test --coverage`) differs from the plain one,
    if it does: error, cost, the value's type, and a primitive value."""
    a = (plain.error, plain.cost, type(plain.value).__name__)
    b = (traced.error, traced.cost, type(traced.value).__name__)
    if a != b:
        return f"{a} became {b}"
    if isinstance(plain.value, _PLAIN_VALUES) and repr(plain.value) != repr(traced.value):
        return f"{plain.value!r} became {traced.value!r}"
    return None


if __name__ == "__main__":
    sys.exit(main())
