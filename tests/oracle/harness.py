"""The differential harness: vap-lsp beside `vap-oracle` (Kubernetes' own Go packages, issue 34).

One home for building the oracle, talking to it (one long-lived `vap-oracle batch` process: a
JSON request per line, inputs inline) and comparing its answers with vap-lsp's. The comparisons
normalise only what `DELIBERATE.md` (beside this file) lists as deliberate differences; anything
else that differs is a divergence, i.e. a bug in vap-lsp to fix (never an adjustment here).
Used by `tests/oracle/` (bounded samples) and `benchmarks/oracle_diff.py` (the full run).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "oracle" / "build"


class OracleUnavailable(Exception):
    """No Go, or the build failed: the reason, for a skip message."""


def build_oracle(timeout: float = 1500, *, build: bool = True) -> Path:
    """The binary's path (built when its sources changed; with `build` off, only when it is
    already built for these sources); raises OracleUnavailable."""
    if shutil.which("go") is None:
        raise OracleUnavailable(
            "no Go toolchain on PATH: the oracle (oracle/, Kubernetes' Go packages) needs Go >= 1.26"
        )
    try:
        done = subprocess.run(
            [str(BUILD), *([] if build else ["--if-built"])], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise OracleUnavailable(f"oracle/build did not finish within {timeout:.0f} s") from None
    if done.returncode == 5:
        raise OracleUnavailable(
            "not built for these sources: `oracle/build` builds it (minutes the first time; CI does it "
            "in the background), or VAP_ORACLE_BUILD=1 lets the tests build it"
        )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-15:]
        raise OracleUnavailable("oracle/build failed:\n" + "\n".join(tail))
    return Path(done.stdout.strip().splitlines()[-1])


class Oracle:
    """A long-lived `vap-oracle batch`: `ask(argv, files)` is one vap-lsp-like invocation whose
    file arguments may name entries of `files` (content inline)."""

    def __init__(self, binary: Path) -> None:
        self.binary = binary
        self._lock = threading.Lock()
        self._proc = self._start()

    def _start(self) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [str(self.binary), "batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
            env={**os.environ, "GOMAXPROCS": "2"},
        )

    def ask(self, argv: list[str], files: dict[str, str] | None = None) -> dict[str, Any]:
        """{"stdout": the JSON printed (or None), "stderr": text, "exit": code}."""
        line = json.dumps({"argv": argv, "files": files or {}}) + "\n"
        with self._lock:
            if self._proc.poll() is not None:
                self._proc = self._start()
            assert self._proc.stdin is not None and self._proc.stdout is not None
            self._proc.stdin.write(line)
            self._proc.stdin.flush()
            answer = self._proc.stdout.readline()
        if not answer:
            raise RuntimeError("vap-oracle batch stopped answering")
        out: dict[str, Any] = json.loads(answer)
        return out

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()


# --- divergences ------------------------------------------------------------------------------


@dataclass
class Divergence:
    """One difference between vap-lsp and the oracle: `kind` names its class."""

    kind: str
    case: str
    ours: Any
    theirs: Any

    def __str__(self) -> str:
        return f"[{self.kind}] {self.case}\n  vap-lsp: {self.ours!r}\n  oracle:  {self.theirs!r}"


@dataclass
class Tally:
    cases: int = 0
    divergences: list[Divergence] = field(default_factory=list)

    def add(self, found: Iterable[Divergence]) -> None:
        self.cases += 1
        self.divergences.extend(found)

    def by_kind(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for d in self.divergences:
            out[d.kind] = out.get(d.kind, 0) + 1
        return dict(sorted(out.items()))


# --- cel --------------------------------------------------------------------------------------

_TYPE_NAME_STAMP = re.compile(r"\b([A-Z][A-Za-z0-9]*?)\d{1,9}\b")
_RESULTED_IN_ERROR = re.compile(r"^expression '.*' resulted in error: ", re.DOTALL)


def oracle_type(text: str | None) -> str | None:
    """DELIBERATE.md (type names): the type checker names a kind's type `Kind` + the nanoseconds
    of the clock (validating/typechecking.go generateUniqueTypeName); vap-lsp names it `Kind`."""
    return None if text is None else _TYPE_NAME_STAMP.sub(r"\1", text)


def oracle_eval_error(text: str | None) -> str | None:
    """DELIBERATE.md (evaluation errors): admission wraps a runtime error as
    `expression '<text>' resulted in error: <cel-go's error>` (plugin/cel/activation.go);
    `vap-lsp cel` prints cel-go's error alone."""
    return None if text is None else _RESULTED_IN_ERROR.sub("", text)


def compare_cel(
    case: str, ours: dict[str, Any], theirs: dict[str, Any], *, builtin_kind: bool = False
) -> list[Divergence]:
    """`vap-lsp cel --format json` against `vap-oracle cel` (`builtin_kind`: `--kind` names a
    built-in kind)."""
    out: list[Divergence] = []
    ours_compile = ours["type"] is None
    theirs_compile = theirs["type"] is None
    if ours_compile != theirs_compile:
        return [Divergence("cel-compiles", case, ours["error"], theirs["error"])]
    if ours_compile:
        if _first_line(ours["error"]) != oracle_type(_first_line(theirs["error"])):
            out.append(Divergence("cel-compile-error", case, ours["error"], theirs["error"]))
        return out
    if ours["type"] != oracle_type(theirs["type"]):
        out.append(Divergence("cel-type", case, ours["type"], theirs["type"]))
    ours_est, theirs_est = ours["cost"]["estimate"], theirs["cost"]["estimate"]
    if ours_est != theirs_est:
        if (
            builtin_kind
            and ours_est is not None
            and theirs_est is not None
            and ours_est["min"] == theirs_est["min"]
        ):
            # DELIBERATE.md (estimates over built-in kinds): the type checker's Go definitions
            # carry `enum` (a string's size is its longest value), the served OpenAPI vap-lsp
            # bundles does not; only the minimum is compared.
            pass
        else:
            out.append(Divergence("cel-cost-estimate", case, ours_est, theirs_est))
    theirs_error = oracle_eval_error(theirs["error"])
    if (ours["error"] is None) != (theirs_error is None):
        out.append(
            Divergence("cel-errs", case, ours["error"] or ours["value"], theirs_error or theirs["value"])
        )
        return out
    if ours["error"] is not None:
        if ours["error"] != theirs_error:
            out.append(Divergence("cel-error-text", case, ours["error"], theirs_error))
    elif "valueNote" in theirs:
        pass  # DELIBERATE.md (values without JSON form): an optional, a type; not comparable
    elif not same_json(ours["value"], theirs["value"]):
        if "(k, " in case and same_multiset(ours["value"], theirs["value"]):
            pass  # DELIBERATE.md (map iteration order): Go iterates a map in random order
        else:
            out.append(Divergence("cel-value", case, ours["value"], theirs["value"]))
    if ours["error"] is None and ours["cost"]["actual"] != theirs["cost"]["actual"]:
        out.append(Divergence("cel-cost-actual", case, ours["cost"]["actual"], theirs["cost"]["actual"]))
    return out


def same_multiset(a: Any, b: Any) -> bool:
    """Two JSON lists with the same elements in any order."""
    if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
        return False
    return sorted(json.dumps(x, sort_keys=True) for x in a) == sorted(
        json.dumps(x, sort_keys=True) for x in b
    )


def _first_line(text: str | None) -> str:
    return (text or "").split("\n", 1)[0]


def same_json(a: Any, b: Any) -> bool:
    """JSON equality where 1 == 1.0 (protojson writes every number as a double)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    return bool(a == b)


# --- check ------------------------------------------------------------------------------------

# vap-lsp codes that mean "the server rejects the object" (severity error, server wording).
_OUR_TYPE_CHECK = re.compile(
    r"^(?P<field>\S+): type checking against (?P<gvks>.*?): (?P<issue>ERROR: <input>:\d+:\d+: .*?)"
    r"(?:; unreachable for .*)?$",
    re.DOTALL,
)


def our_type_check_lines(text: str) -> set[str]:
    """vap-lsp's type-checking warning (`cel-type-check`, or `cel-type-check-guarded` when the
    branch cannot run for those kinds: the server warns all the same) as the oracle's lines:
    one per kind of its `A; B; C` list."""
    m = _OUR_TYPE_CHECK.match(text)
    if m is None:
        return set()
    return {f"{gvk}: {m.group('issue')}" for gvk in m.group("gvks").split("; ")}


def type_check_lines(text: str) -> set[str]:
    """The issues of a type-checking warning as `<GVK>: ERROR: <input>:l:c: message` lines: the
    oracle's text is validating.TypeCheckingResults.String() (each GVK, then cel-go's issues with
    their source excerpts); vap-lsp words the same issues after `<field>: type checking against `."""
    out: set[str] = set()
    gvk = ""
    for line in text.splitlines():
        m = re.match(r"^(?:(?P<gvk>[^:]*, Kind=[^:]*): )?(?P<issue>ERROR: <input>:\d+:\d+: .*)$", line)
        if m:
            gvk = m.group("gvk") or gvk
            out.add(f"{gvk}: {m.group('issue')}")
    return out


def document_of_lines(text: str) -> list[int]:
    """For each line of a file, the index of its YAML document as the oracle counts them:
    apimachinery's YAMLReader (util/yaml/decoder.go) ends a chunk at a line starting with `---`
    when the chunk has any line (blank ones too); the oracle numbers the chunks."""
    out: list[int] = []
    doc = 0
    pending = 0
    for line in text.split("\n"):
        if line.startswith("---"):
            if pending:
                doc += 1
                pending = 0
            out.append(doc)
            continue
        pending += 1
        out.append(doc)
    return out


def compare_check_file(
    case: str, text: str, ours: list[dict[str, Any]], theirs: list[dict[str, Any]]
) -> list[Divergence]:
    """One file, document by document (`compare_check`); a document the oracle did not check
    (a version the server does not serve by default: whether `--runtime-config` can serve it
    needs pkg/registry's storage, see DELIBERATE.md) is left out."""
    lines = document_of_lines(text)

    def doc(d: dict[str, Any]) -> int:
        line = d.get("range", {}).get("start", {}).get("line", 0)
        return lines[line] if 0 <= line < len(lines) else -1

    if any(d["code"] == "yaml" for d in theirs):
        return []  # DELIBERATE.md (broken YAML): kubectl refuses the file before any server
    skipped = {d["document"] for d in theirs if d["code"] == "not-served-by-default"}
    out: list[Divergence] = []
    for index in sorted({doc(d) for d in ours} | {d["document"] for d in theirs}):
        if index in skipped:
            continue
        out.extend(
            compare_check(
                f"{case}#{index}",
                [d for d in ours if doc(d) == index],
                [d for d in theirs if d["document"] == index],
            )
        )
    return out


def without_excerpts(text: str) -> str:
    """DELIBERATE.md (CEL excerpts): cel-go's issues quote the source line and a caret under
    the column (` | object.x` / ` | ..^`); vap-lsp's diagnostics point at the column in the
    file instead and leave those two lines out."""
    return "\n".join(line for line in text.split("\n") if not line.startswith(" | "))


def compare_check(case: str, ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> list[Divergence]:
    """One document's diagnostics: every error the server reports must be reported by vap-lsp
    with the same field and words, and vap-lsp must report no error-severity server rejection the
    server does not; type-checker warnings compared issue by issue."""
    out: list[Divergence] = []
    theirs_errors = {
        (d.get("field") or "", without_excerpts(d["message"])) for d in theirs if d["severity"] == "error"
    }
    ours_errors = {(d.get("field") or "", d["message"]) for d in ours if d["severity"] == "error"}
    # A decoding error has no field path in the server's answer (a strict decoding error names
    # the field in its words); vap-lsp places it at the field: compare the words.
    fieldless = {m for f, m in theirs_errors if not f}
    ours_errors = {("", m) if m in fieldless else (f, m) for f, m in ours_errors}
    for missing in sorted(theirs_errors - ours_errors):
        out.append(Divergence("check-error-missing", case, None, missing))
    for extra in sorted(ours_errors - theirs_errors):
        out.append(Divergence("check-error-extra", case, extra, None))
    theirs_tc: set[tuple[str, str]] = set()
    for d in theirs:
        if d["code"] == "cel-type-check":
            theirs_tc |= {(d["field"], oracle_type(line) or "") for line in type_check_lines(d["message"])}
    ours_tc: set[tuple[str, str]] = set()
    for d in ours:
        if d.get("code") == "cel-type-check":
            ours_tc |= {(d.get("field") or "", line) for line in our_type_check_lines(d["message"])}
        elif d.get("code") == "cel-type-check-guarded":
            # The issues the server reports in a branch that cannot run for those kinds, listed
            # under one note (`related`: `type checking against <kinds>: <issue>`).
            for related in d.get("related") or []:
                text = f"{d.get('field')}: {related.get('message', '')}"
                ours_tc |= {(d.get("field") or "", line) for line in our_type_check_lines(text)}
    for missing in sorted(theirs_tc - ours_tc):
        out.append(Divergence("type-check-missing", case, None, missing))
    for extra in sorted(ours_tc - theirs_tc):
        out.append(Divergence("type-check-extra", case, extra, None))
    return out


# --- run --------------------------------------------------------------------------------------


def compare_run(case: str, ours: dict[str, Any], theirs: dict[str, Any]) -> list[Divergence]:
    """One object's verdict: allowed, the status (code, reason; vap-lsp's first denial's message
    is the status cause the server lists), warnings, audit annotations, the patched object."""
    out: list[Divergence] = []
    if ours["allowed"] != theirs["allowed"]:
        why_ours = [d["message"] for d in ours["denials"]]
        why_theirs = [d["message"] for d in theirs["denials"]]
        return [Divergence("run-allowed", case, (ours["allowed"], why_ours), (theirs["allowed"], why_theirs))]
    if not ours["allowed"]:
        o, t = ours["denials"][0], theirs["denials"][0]
        if (o["code"], o["reason"]) != (t["code"], t["reason"]):
            out.append(Divergence("run-status", case, (o["code"], o["reason"]), (t["code"], t["reason"])))
        causes = t.get("causes") or [t["message"]]
        ours_messages = [d["message"] for d in ours["denials"]]
        if not any(m in causes or m == t["message"] for m in ours_messages):
            out.append(Divergence("run-message", case, ours_messages, causes))
    if sorted(ours["warnings"]) != sorted(theirs["warnings"]):
        out.append(Divergence("run-warnings", case, ours["warnings"], theirs["warnings"]))
    if ours["auditAnnotations"] != theirs["auditAnnotations"]:
        out.append(
            Divergence("run-audit-annotations", case, ours["auditAnnotations"], theirs["auditAnnotations"])
        )
    if not same_json(ours["patched"], theirs["patched"]):
        out.append(Divergence("run-patched", case, ours["patched"], theirs["patched"]))
    return out


# --- running one case on both sides ---------------------------------------------------------


def as_yaml(doc: Any) -> str:
    """A document as file content: JSON (which is YAML) in UTF-8, as kubectl would read it
    (a `\\ud83d` surrogate escape is valid JSON but not valid YAML)."""
    return json.dumps(doc, ensure_ascii=False)


VERSION = "1.37"  # the Kubernetes version the oracle links
BUILTIN_KINDS = frozenset({"apps/v1/Deployment", "v1/Pod", "v1/ConfigMap", "v1/Namespace", "batch/v1/Job"})


def cel_case(
    oracle: Oracle,
    expression: str,
    *,
    kind: str | None = None,
    obj: dict[str, Any] | None = None,
    old: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
) -> list[Divergence]:
    """`vap-lsp cel EXPR --kind K --object O ...` (in process) against `vap-oracle cel`."""
    from vap_lsp.admission.playground import PlaygroundInputs, evaluate_expression, parse_kind

    ours = evaluate_expression(
        expression,
        PlaygroundInputs(
            VERSION,
            kind=parse_kind(kind) if kind else None,
            object=obj,
            old_object=old,
            params=params,
            # DELIBERATE.md (built-in admission plugins): the oracle decodes and defaults only.
            builtin_admission=False,
        ),
    ).to_json()
    argv = ["cel", expression]
    files: dict[str, str] = {}
    if kind:
        argv += ["--kind", kind]
    for option, doc in (("--object", obj), ("--old-object", old), ("--params", params)):
        if doc is not None:
            files[option] = as_yaml(doc)
            argv += [option, option]
    answer = oracle.ask(argv, files)
    if answer["stdout"] is None:
        return [Divergence("oracle-usage", expression, ours, answer["stderr"])]
    return compare_cel(
        f"{expression} [kind={kind}]", ours, answer["stdout"], builtin_kind=kind in BUILTIN_KINDS
    )


def run_case(
    oracle: Oracle,
    documents: list[dict[str, Any]],
    obj: dict[str, Any],
    *,
    old: dict[str, Any] | None = None,
    operation: str | None = None,
    user: str = "system:anonymous",
    groups: tuple[str, ...] = (),
    sub_resource: str = "",
    case: str = "",
) -> list[Divergence]:
    """`vap-lsp run DOCS --object OBJ ...` (in process, the server's built-in admission plugins
    off: DELIBERATE.md) against `vap-oracle run`."""
    from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, UserInfo, prepare

    op = operation or ("UPDATE" if old is not None else "CREATE")
    inputs = PolicyInputs.from_objects(documents)
    inputs.add_namespaces([obj])
    prepared = prepare(inputs, kubernetes_version=VERSION, builtin_admission=False)
    info = UserInfo(username=user, groups=groups)
    if op == "DELETE":
        request = AdmissionRequestInput("DELETE", None, old or obj, info, sub_resource=sub_resource)
    else:
        request = AdmissionRequestInput(
            op, obj, old if op in ("UPDATE", "CONNECT") else None, info, sub_resource=sub_resource
        )
    ours = prepared.admit(request).to_json()
    files = {"docs": "\n---\n".join(as_yaml(d) for d in documents), "obj": as_yaml(obj)}
    argv = ["run", "docs", "--object", "obj", "--operation", op, "--user", user]
    for g in groups:
        argv += ["--group", g]
    if old is not None:
        files["old"] = as_yaml(old)
        argv += ["--old-object", "old"]
    if sub_resource:
        argv += ["--subresource", sub_resource]
    answer = oracle.ask(argv, files)
    if answer["stdout"] is None:
        return [Divergence("oracle-usage", case, ours, answer["stderr"])]
    return compare_run(case or json.dumps(documents)[:300], ours, answer["stdout"]["results"][0])
