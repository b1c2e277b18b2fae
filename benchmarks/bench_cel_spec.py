"""cel-spec conformance through three Python CEL evaluators: pass rate and evaluations per second.

Run: `.venv/bin/python benchmarks/bench_cel_spec.py [../shared/cel-spec] [--repeat N]`

The same applicable tests (`tools/cel_conformance.py`: no protobuf messages, no unknowns; tests
that only type-check are left out, there is nothing to evaluate) go through

* vap-lsp: `vap_lsp.cel` (parse, check, `interpreter.evaluate`) in the conformance environment;
* celpy (cel-python, a runtime dependency): `celpy.Environment(annotations=…)`, `program.evaluate`;
* cel-expr-python (Google's C++ CEL, the `test` extra): `cel.NewEnv` with the cel-go extensions
  the suite uses that its Python binding can enable (math, strings, optional, bindings,
  encoders, two-variable comprehensions), `expression.eval`.

A test passes when the value equals the expected one (type included; numeric map keys compare as
numbers) or, when an error is expected, when compiling or evaluating fails. celpy's and C++'s
timestamps/durations come back as Python datetime/timedelta (microseconds), so expected values
with nanoseconds cannot match there; that is a limit of their Python bindings, counted as a
failure. Evaluations/s: each engine evaluates its precompiled programs of the tests all three
compile, `--repeat` times (one evaluation = one expression with its bindings).
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import cel_conformance as conf  # noqa: E402

from vap_lsp.cel import types as t  # noqa: E402
from vap_lsp.cel.interpreter import evaluate  # noqa: E402
from vap_lsp.cel.runtime.values import Duration, Timestamp, TypeValue, UintType  # noqa: E402

ERROR = object()
"""Marker: the engine reported an error (compile or evaluation)."""

Program = Callable[[], Any]


@dataclass
class Case(conf.Inputs):
    """One applicable test with an evaluation: the tool's inputs and its file/section/name key."""

    key: str = ""


def load(root: Path) -> list[Case]:
    out = []
    for raw in conf.cases(root):
        if conf._flag(raw.test, "check_only") or conf.run_case(raw).status == "skip":
            continue
        out.append(Case(**vars(conf.inputs(raw.test)), key=f"{raw.file}/{raw.section}/{raw.name}"))
    return out


def _canon(v: Any) -> Any:
    """The tool's type-tagged form, numeric map keys as plain numbers (C++ returns them untyped)."""
    if isinstance(v, Mapping):
        return (
            "map",
            frozenset((_canon(int(k) if type(k) is UintType else k), _canon(x)) for k, x in v.items()),
        )
    if isinstance(v, (list, tuple)):
        return ("list", tuple(_canon(x) for x in v))
    return conf._canonical(v)


def passes(case: Case, got: Any) -> bool:
    if case.expects_error:
        return got is ERROR
    return got is not ERROR and _canon(got) == _canon(case.expected)


# --- vap-lsp ---------------------------------------------------------------------------------------


def ours(case: Case) -> Program | None:
    env, program, error = conf.compile_inputs(case)
    if error is not None:
        return None

    def run() -> Any:
        result = evaluate(program, case.bindings, env=env, cost_limit=None)
        return result.value if result.ok else ERROR

    return run


# --- celpy -------------------------------------------------------------------------------------------


def celpy_engine() -> Callable[[Case], Program | None]:
    import celpy
    from celpy import celtypes as ct

    simple = {
        t.Kind.INT: ct.IntType,
        t.Kind.UINT: ct.UintType,
        t.Kind.DOUBLE: ct.DoubleType,
        t.Kind.STRING: ct.StringType,
        t.Kind.BYTES: ct.BytesType,
        t.Kind.BOOL: ct.BoolType,
        t.Kind.LIST: ct.ListType,
        t.Kind.MAP: ct.MapType,
        t.Kind.TIMESTAMP: ct.TimestampType,
        t.Kind.DURATION: ct.DurationType,
    }

    def to_celpy(v: Any) -> Any:
        if v is None:
            return None
        if isinstance(v, bool):
            return ct.BoolType(v)
        if type(v) is UintType:
            return ct.UintType(int(v))
        if isinstance(v, int):
            return ct.IntType(v)
        if isinstance(v, float):
            return ct.DoubleType(v)
        if isinstance(v, str):
            return ct.StringType(v)
        if isinstance(v, bytes):
            return ct.BytesType(v)
        if isinstance(v, list):
            return ct.ListType([to_celpy(x) for x in v])
        if isinstance(v, dict):
            return ct.MapType({to_celpy(k): to_celpy(x) for k, x in v.items()})
        if isinstance(v, Duration):
            return ct.DurationType(dt.timedelta(microseconds=v.nanos // 1000))
        if isinstance(v, Timestamp):
            return ct.TimestampType(dt.datetime.fromtimestamp(v.nanos / 1e9, tz=dt.UTC))
        raise TypeError(type(v))

    type_names = {
        ct.IntType: "int",
        ct.UintType: "uint",
        ct.DoubleType: "double",
        ct.StringType: "string",
        ct.BytesType: "bytes",
        ct.BoolType: "bool",
        ct.ListType: "list",
        ct.MapType: "map",
        ct.TimestampType: "google.protobuf.Timestamp",
        ct.DurationType: "google.protobuf.Duration",
        ct.TypeType: "type",
        type(None): "null_type",
    }

    def from_celpy(v: Any) -> Any:
        if isinstance(v, (celpy.CELEvalError, Exception)):
            return ERROR
        if v is None:
            return None
        if isinstance(v, ct.BoolType):
            return bool(v)
        if isinstance(v, ct.UintType):
            return UintType(int(v))
        if isinstance(v, ct.IntType):
            return int(v)
        if isinstance(v, ct.DoubleType):
            return float(v)
        if isinstance(v, ct.StringType):
            return str(v)
        if isinstance(v, ct.BytesType):
            return bytes(v)
        if isinstance(v, ct.ListType):
            return [from_celpy(x) for x in v]
        if isinstance(v, ct.MapType):
            return {from_celpy(k): from_celpy(x) for k, x in v.items()}
        if isinstance(v, ct.DurationType):
            return Duration(round(v.total_seconds() * 1e6) * 1000)
        if isinstance(v, ct.TimestampType):
            delta = v - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
            return Timestamp((delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000)
        if isinstance(v, type):
            return TypeValue(type_names.get(v, v.__name__))
        return v

    def engine(case: Case) -> Program | None:
        annotations = {n: simple[typ.kind] for n, typ in case.decls.variables.items() if typ.kind in simple}
        try:
            env = celpy.Environment(annotations=annotations)
            program = env.program(env.compile(case.expr))
            activation = {k: to_celpy(v) for k, v in case.bindings.items()}
        except Exception:
            return None

        def run() -> Any:
            try:
                return from_celpy(program.evaluate(activation))
            except Exception:
                return ERROR

        return run

    return engine


# --- cel-expr-python (C++) ---------------------------------------------------------------------------


_CPP_TYPE_NAMES = {
    "null": "null_type",
    "timestamp": "google.protobuf.Timestamp",
    "duration": "google.protobuf.Duration",
}


def cpp_engine() -> Callable[[Case], Program | None] | None:
    try:
        from cel_expr_python import cel
    except ImportError:
        return None
    config_yaml = "extensions:\n" + "".join(
        f'  - name: "{n}"\n'
        for n in ("math", "strings", "optional", "bindings", "encoders", "cel.lib.ext.comprev2")
    )

    def cpp_type(typ: t.Type) -> Any:
        kinds = {
            t.Kind.INT: cel.Type.INT,
            t.Kind.UINT: cel.Type.UINT,
            t.Kind.DOUBLE: cel.Type.DOUBLE,
            t.Kind.STRING: cel.Type.STRING,
            t.Kind.BYTES: cel.Type.BYTES,
            t.Kind.BOOL: cel.Type.BOOL,
            t.Kind.NULL: cel.Type.NULL,
            t.Kind.TIMESTAMP: cel.Type.TIMESTAMP,
            t.Kind.DURATION: cel.Type.DURATION,
        }
        if typ.kind is t.Kind.LIST:
            return cel.Type.List(cpp_type(typ.params[0]))
        if typ.kind is t.Kind.MAP:
            return cel.Type.Map(cpp_type(typ.params[0]), cpp_type(typ.params[1]))
        return kinds.get(typ.kind, cel.Type.DYN)

    def plain(v: Any) -> Any:
        if isinstance(v, Duration):
            return dt.timedelta(microseconds=v.nanos // 1000)
        if isinstance(v, Timestamp):
            return dt.datetime.fromtimestamp(v.nanos / 1e9, tz=dt.UTC)
        if isinstance(v, list):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {plain(k): plain(x) for k, x in v.items()}
        return int(v) if type(v) is UintType else v

    def from_cpp(v: Any, type_name: str) -> Any:
        if type_name == "ERROR":
            return ERROR
        if hasattr(v, "type") and hasattr(v, "value"):
            return from_cpp(v.value(), str(v.type()))
        if type_name == "UINT":
            return UintType(v)
        if type_name == "BYTES":
            return bytes(v)
        if type_name == "TYPE":
            name = str(v).split("<")[0].lower()
            return TypeValue(_CPP_TYPE_NAMES.get(name, name))
        if isinstance(v, list):
            return [from_cpp(x, "") for x in v]
        if isinstance(v, dict):
            return {k: from_cpp(x, "") for k, x in v.items()}
        if isinstance(v, dt.timedelta):
            return Duration(round(v.total_seconds() * 1e6) * 1000)
        if isinstance(v, dt.datetime):
            delta = v - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
            return Timestamp((delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000)
        return v

    def engine(case: Case) -> Program | None:
        try:
            env = cel.NewEnv(
                config=cel.NewEnvConfigFromYaml(config_yaml),
                variables={n: cpp_type(typ) for n, typ in case.decls.variables.items()},
                container=case.container or None,
            )
            expression = env.compile(case.expr)
            data = {k: plain(v) for k, v in case.bindings.items()}
        except Exception:
            return None

        def run() -> Any:
            try:
                result = expression.eval(data=data)
                return from_cpp(result.value(), str(result.type()))
            except Exception:
                return ERROR

        return run

    return engine


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("path", nargs="?", type=Path, default=ROOT.parent / "shared" / "cel-spec")
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    cases = load(args.path)
    engines: dict[str, Callable[[Case], Program | None]] = {"vap-lsp": ours, "celpy": celpy_engine()}
    cpp = cpp_engine()
    if cpp is not None:
        engines["cel-expr-python (C++)"] = cpp
    else:
        print("cel-expr-python is not installed: C++ column left out")
    programs: dict[str, dict[str, Program | None]] = {}
    print(f"{len(cases)} applicable cel-spec tests with an evaluation")
    for name, engine in engines.items():
        compiled = {c.key: engine(c) for c in cases}
        programs[name] = compiled
        passed = 0
        for c in cases:
            program = compiled[c.key]
            got = ERROR if program is None else program()
            passed += passes(c, got)
        print(f"{name:24s} pass rate {passed}/{len(cases)} = {100 * passed / len(cases):.1f}%")
    common = [c.key for c in cases if all(programs[n][c.key] is not None for n in engines)]
    print(f"evaluations/s over the {len(common)} tests every engine compiles, x{args.repeat}:")
    for name in engines:
        runs = [programs[name][k] for k in common]
        start = time.perf_counter()
        for _ in range(args.repeat):
            for run in runs:
                run()  # type: ignore[misc]
        elapsed = time.perf_counter() - start
        rate = len(runs) * args.repeat / elapsed if elapsed > 0 else math.inf
        print(f"{name:24s} {rate:10,.0f} evaluations/s")


if __name__ == "__main__":
    main()
