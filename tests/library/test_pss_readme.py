"""The README's section "Pod Security Standards as policies" shows what the commands do today."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.impact.conftest import impact_cli
from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, prepare
from vap_lsp.library.pss import Options, generate

ROOT = Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "tests" / "fixtures" / "libraries" / "pod-security-admission" / "testdata"


def _section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("## Pod Security Standards as policies", 1)[1].split("\n## ", 1)[0]


def test_the_impact_example(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    (command, expected) = re.findall(r"```\n\$ vap-lsp impact (.*?)\n(.*?)```", _section(), flags=re.S)[0]
    monkeypatch.chdir(ROOT)
    assert impact_cli([*shlex.split(command), "--jobs", "1"]) == 1
    assert capsys.readouterr().out == expected


def test_the_denial_shown() -> None:
    shown = re.search(r"```\n(ValidatingAdmissionPolicy '.*?)\n```", _section(), flags=re.S)
    assert shown is not None
    pod = yaml.safe_load((TESTDATA / "restricted" / "v1.37" / "fail" / "runasnonroot0.yaml").read_text())
    prepared = prepare(
        PolicyInputs.from_objects(generate(Options(level="restricted", workloads="off")).objects()),
        kubernetes_version="1.37",
    )
    result = prepared.admit(AdmissionRequestInput("CREATE", pod, namespace="default"))
    assert shown.group(1).replace("\n", " ") == result.denials[0].message


def test_the_exemptions_configmap_shown() -> None:
    """The README's ConfigMap, filled in, exempts what it says."""
    block = re.search(r"```yaml\n(apiVersion: v1\nkind: ConfigMap.*?)```", _section(), flags=re.S)
    assert block is not None
    configmap: dict[str, Any] = yaml.safe_load(block.group(1).replace("…", "a" * 64))
    policies = [
        o for o in generate(Options(level="baseline", exemptions=True)).objects() if o["kind"] != "ConfigMap"
    ]
    prepared = prepare(PolicyInputs.from_objects([*policies, configmap]), kubernetes_version="1.37")
    profiler = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "shop"},
        "spec": {
            "containers": [
                {
                    "name": "profiler",
                    "image": "registry.example.com/tools/profiler:2.0",
                    "securityContext": {"capabilities": {"add": ["SYS_PTRACE"]}},
                }
            ]
        },
    }
    assert prepared.admit(AdmissionRequestInput("CREATE", profiler, namespace="shop")).allowed
    profiler["spec"]["containers"][0]["image"] = "registry.example.com/tools/other:1"
    assert not prepared.admit(AdmissionRequestInput("CREATE", profiler, namespace="shop")).allowed
    assert prepared.admit(AdmissionRequestInput("CREATE", profiler, namespace="kube-system")).allowed


def test_the_usage_shown_is_the_commands() -> None:
    usage = re.search(r"```\n(vap-lsp library pss .*?)```", _section(), flags=re.S)
    assert usage is not None
    flags = set(re.findall(r"--[a-z-]+|-o", usage.group(1)))
    done = subprocess.run(
        [sys.executable, "-m", "vap_lsp", "library", "pss", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert flags <= set(re.findall(r"--[a-z-]+|-o", done.stdout))
    assert flags >= {
        "--level",
        "--version",
        "-o",
        "--workloads",
        "--exemptions",
        "--namespace-labels",
        "--cost",
    }
