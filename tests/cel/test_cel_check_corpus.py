# ruff: noqa: E501
"""Every CEL expression of the public policy corpus compiles as the 1.34 API server would.

The corpus (../shared/corpus) is not part of a user's clone; the test skips with a reason when
it is absent. Expressions are compiled in the create-time (new-expressions) environment of
Kubernetes 1.34 with the right ExpressionKind, `variables` typed from the policy's own
variables in order. Expressions the server rejects are listed in `KNOWN_BAD` with the start of
the server's error text; the first four are named in SOURCES.md, the others were found by this
checker and are real mistakes as well.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from vap_lsp.cel import types as t
from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import ExpressionKind, build_environment

K = ExpressionKind
CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
VERSION = "1.34"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"policy corpus not found at {CORPUS}")

KNOWN_BAD: dict[tuple[str, str], str] = {
    # SOURCES.md: intentionally broken expressions.
    (
        "jpbetz__validation-admission-policy-examples/policyvalidationerrors/vap.yaml",
        "x > y",
    ): "compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')",
    (
        "jpbetz__validation-admission-policy-examples/policyvalidationerrors/vap.yaml",
        "!!!",
    ): "compilation failed: ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>'",
    # SOURCES.md: `startWith` does not exist.
    (
        "kubernetes__website/content/en/examples/access/validating-admission-policy-match-conditions.yaml",
        "object.metadata.name.startWith('demo')",
    ): "compilation failed: ERROR: <input>:1:31: undeclared reference to 'startWith' (in container '')",
    # SOURCES.md: a JSONPatch mutation returning plain maps (mixed map value types).
    (
        "soulwhisper__homelab-ops/kubernetes/apps/database-system/dragonfly-operator/app/policy.yaml",
        "[",
    ): "compilation failed: ERROR: <input>:5:14: expected type 'string' but found 'map(string, string)'",
    # Found by the checker: `object,spec` (comma for dot) is a syntax error.
    (
        "gnunn1__validating-admission-policies/configuration/deployments/probes-must-be-defined.yaml",
        "object,spec.template.spec.containers.all(container,has(container.readinessProbe))",
    ): "compilation failed: ERROR: <input>:1:7: Syntax error: mismatched input ',' expecting <EOF>",
    (
        "gnunn1__validating-admission-policies/configuration/deployments/probes-must-be-defined.yaml",
        "object,spec.template.spec.containers.all(container,has(container.livenessProbe))",
    ): "compilation failed: ERROR: <input>:1:7: Syntax error: mismatched input ',' expecting <EOF>",
    # Found by the checker: `variables.maxReplicas` is an int (`int(...) : 1`), and string + int
    # has no overload.
    (
        "pfnet__kaptest/examples/complicated/complicated-policy.yaml",
        "'replicas must be less than ' + variables.maxReplicas",
    ): "compilation failed: ERROR: <input>:1:31: found no matching overload for '_+_' applied to '(string, int)'",
    (
        "pfnet__kaptest/internal/tester/testdata/vap-with-namespaces.yaml",
        "'replicas must be equal or less than ' + variables.maxReplicas",
    ): "compilation failed: ERROR: <input>:1:40: found no matching overload for '_+_' applied to '(string, int)'",
}


def _documents(path: Path) -> Iterator[dict[str, Any]]:
    try:
        loaded = list(YAML(typ="safe", pure=True).load_all(path.read_text(encoding="utf-8")))
    except (YAMLError, UnicodeDecodeError, ValueError):
        return  # not YAML (SOURCES.md lists the broken ones); the YAML layer reports those
    for doc in loaded:
        if not isinstance(doc, dict):
            continue
        items = doc.get("items")
        if doc.get("kind") == "List" and isinstance(items, list):
            yield from (i for i in items if isinstance(i, dict))
        else:
            yield doc


Compiled = tuple[str, str, str, str | None]  # file, kind, expression, server error


def _policy_expressions(rel: str, spec: dict[str, Any]) -> Iterator[Compiled]:
    has_params = bool(spec.get("paramKind"))
    variables: dict[str, t.Type] = {}
    declared = [v for v in spec.get("variables") or [] if isinstance(v, dict)]

    def compile_one(
        expr: Any, kind: ExpressionKind, visible: dict[str, t.Type] | None, name: str = ""
    ) -> Compiled | None:
        if not isinstance(expr, str):
            return None
        env = build_environment(VERSION, kind, has_params=has_params, variables=visible)
        result = compile_expression(expr, env)
        if kind is K.VARIABLE:
            # a variable that fails to compile is declared as dyn (composition.go)
            variables[name] = result.output_type if result.output_type is not None else t.DYN
        return rel, kind.value, expr, result.render()

    for var in declared:
        got = compile_one(var.get("expression"), K.VARIABLE, dict(variables), str(var.get("name")))
        if got:
            yield got
    visible = variables if declared else None
    for validation in spec.get("validations") or []:
        for key, kind in (("expression", K.VALIDATION), ("messageExpression", K.MESSAGE_EXPRESSION)):
            got = compile_one(validation.get(key), kind, visible)
            if got:
                yield got
    for annotation in spec.get("auditAnnotations") or []:
        got = compile_one(annotation.get("valueExpression"), K.AUDIT_ANNOTATION, visible)
        if got:
            yield got
    for condition in spec.get("matchConditions") or []:
        got = compile_one(condition.get("expression"), K.MATCH_CONDITION, None)
        if got:
            yield got
    for mutation in spec.get("mutations") or []:
        if not isinstance(mutation, dict):
            continue
        for key, kind in (("applyConfiguration", K.MAP_APPLY_CONFIGURATION), ("jsonPatch", K.MAP_JSON_PATCH)):
            body = mutation.get(key)
            if isinstance(body, dict):
                got = compile_one(body.get("expression"), kind, dict(variables))
                if got:
                    yield got


def _corpus() -> list[Compiled]:
    out: list[Compiled] = []
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix not in (".yaml", ".yml"):
            continue
        rel = path.relative_to(CORPUS).as_posix()
        for doc in _documents(path):
            spec = doc.get("spec")
            if doc.get("kind") in ("ValidatingAdmissionPolicy", "MutatingAdmissionPolicy") and isinstance(
                spec, dict
            ):
                out.extend(_policy_expressions(rel, spec))
    return out


def test_corpus_expressions_compile() -> None:
    compiled = _corpus()
    assert len(compiled) > 800
    unexpected: list[str] = []
    seen_bad: set[tuple[str, str]] = set()
    for rel, kind, expr, error in compiled:
        key = next((k for k in KNOWN_BAD if k[0] == rel and expr.lstrip().startswith(k[1])), None)
        if key is not None:
            seen_bad.add(key)
            if error is None or not error.startswith(KNOWN_BAD[key]):
                unexpected.append(f"{rel} [{kind}] {expr!r}: expected {KNOWN_BAD[key]!r}, got {error!r}")
        elif error is not None:
            unexpected.append(f"{rel} [{kind}] {expr!r}: {error}")
    print(f"\n{len(compiled)} corpus expressions compiled, {len(seen_bad)} known-bad")
    assert unexpected == []
    assert seen_bad == set(KNOWN_BAD)
