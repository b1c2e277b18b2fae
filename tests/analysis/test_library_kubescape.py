"""Kubescape's cel-admission-library (committed test data, Apache-2.0, see its PROVENANCE.md).

60 multi-kind policies that dispatch on the kind: `object.kind != 'Pod' || …`,
`['Deployment', …].all(kind, object.kind != kind) || …`, kind-dispatching variables. The
server's type checker (`typechecking.go`) checks each expression once per matched kind and warns
for every branch that cannot run for that kind; those 218 warnings are folded into one
`cel-type-check-guarded` note per unreachable branch (116), each listing them as related
information. The 54 real ones stay `cel-type-check` warnings, one per kind and expression: 21
list concatenations (`containers + initContainers + ephemeralContainers`) that do not type-check
in the branch that does run, and 33 selections of `resources.limits` / `resources.requests`,
maps of Quantity, which has no type in the OpenAPI the server types built-in kinds from
(confirmed by the oracle on C-0009: `undefined field 'limits'`).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from vap_lsp.cli.main import main

LIBRARY = Path(__file__).resolve().parents[1] / "fixtures" / "libraries" / "kubescape-cel-admission-library"


@pytest.fixture(scope="module")
def findings(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("report") / "report.json"
    args = ["check", "--no-config", "--exit-zero", "--format", "json", "--output-file", str(out)]
    assert main([*args, "--kubernetes-version", "1.34", str(LIBRARY)]) == 0
    report = json.loads(out.read_text())
    return [
        {"path": Path(f["path"]).relative_to(LIBRARY).as_posix(), **d}
        for f in report["files"]
        for d in f["diagnostics"]
    ]


def test_type_check_findings_per_code(findings: list[dict[str, Any]]) -> None:
    counts = Counter(d["code"] for d in findings if d["code"].startswith("cel-type-check"))
    # C-0296's variables read `spec.template` and `spec.jobTemplate` behind has(); each is read
    # only where its kinds run (variables are evaluated lazily): no cel-type-check-extra.
    assert counts == {"cel-type-check-guarded": 116, "cel-type-check": 54}
    # The server's 218 warnings in unreachable branches, folded into their branches' notes.
    folded = [r for d in findings if d["code"] == "cel-type-check-guarded" for r in d["related"]]
    assert len(folded) == 218
    assert all(r["message"].startswith("type checking against ") for r in folded)


def test_the_real_warnings_are_the_concatenations_in_the_branch_that_runs(
    findings: list[dict[str, Any]],
) -> None:
    warnings = [
        d
        for d in findings
        if d["code"] == "cel-type-check" and "found no matching overload for '_+_'" in d["message"]
    ]
    assert {d["severity"] for d in warnings} == {"warning"}
    # Each names the one kind whose branch runs: C-0199, C-0200 and C-0201 × the 7 kinds.
    assert Counter(d["path"] for d in warnings) == {
        "controls/C-0199/policy.yaml": 7,
        "controls/C-0200/policy.yaml": 7,
        "controls/C-0201/policy.yaml": 7,
    }
    kinds = Counter(d["message"].split("type checking against ")[1].split(": ERROR")[0] for d in warnings)
    assert set(kinds.values()) == {3} and len(kinds) == 7
    pod = next(
        d for d in warnings if "Kind=Pod:" in d["message"] and d["path"] == "controls/C-0199/policy.yaml"
    )
    assert pod["message"] == (
        "spec.validations[0].expression: type checking against /v1, Kind=Pod: ERROR: <input>:1:49: found no "
        "matching overload for '_+_' applied to '(list(Pod.spec.containers.@idx), "
        "list(Pod.spec.initContainers.@idx))'"
    )


def test_quantity_maps_are_undefined_fields_for_the_type_checker(findings: list[dict[str, Any]]) -> None:
    quantity = [d for d in findings if d["code"] == "cel-type-check" and "undefined field" in d["message"]]
    assert Counter((d["path"], d["message"].split("undefined field ")[1][:10]) for d in quantity) == {
        ("controls/C-0009/policy.yaml", "'limits'"): 9,
        ("controls/C-0050/policy.yaml", "'limits'"): 12,
        ("controls/C-0050/policy.yaml", "'requests'"): 12,
    }
    assert all("without a type, as every Quantity is" in d["related"][0]["message"] for d in quantity)


def test_a_guarded_branch_says_which_guard_and_folds_the_servers_warnings(
    findings: list[dict[str, Any]],
) -> None:
    (cronjob,) = [
        d
        for d in findings
        if d["path"] == "controls/C-0044/policy.yaml"
        and d["code"] == "cel-type-check-guarded"
        and "spec.validations[2]" in d["message"]
    ]
    assert cronjob["severity"] == "information"
    kinds = (
        "/v1, Kind=Pod; apps/v1, Kind=DaemonSet; apps/v1, Kind=Deployment; apps/v1, Kind=ReplicaSet; "
        "apps/v1, Kind=StatefulSet; batch/v1, Kind=Job"
    )
    assert cronjob["message"] == (
        f"spec.validations[2].expression: unreachable for {kinds}: guarded by object.kind != 'CronJob' "
        "|| …; the API server's type checker reports 1 problem here for them (status.typeChecking); "
        "none can occur at admission"
    )
    assert [r["message"] for r in cronjob["related"]] == [
        f"type checking against {kinds}: ERROR: <input>:1:41: undefined field 'jobTemplate'"
    ]
    assert "tags" not in cronjob  # the branch runs for a CronJob: not dead code
