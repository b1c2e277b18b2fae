"""Write docs/library/pss.md, the page on the policies `vap-lsp library pss` generates: one
section per Pod Security Admission check (what it forbids, the fields, the versions and Go
functions, the denial a PSA fixture gets), from vap_lsp.library.pss_checks.

Usage: python tools/generate_pss_docs.py [--check]
With --check, write nothing and exit 1 when the page differs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, prepare  # noqa: E402
from vap_lsp.library.pss import Options, generate  # noqa: E402
from vap_lsp.library.pss_checks import (  # noqa: E402
    CHECKS,
    LATEST_MINOR,
    LEVELS,
    PSA_MODULE,
    Check,
    applicable_minors,
)

PAGE = ROOT / "docs" / "library" / "pss.md"
TESTDATA = ROOT / "tests" / "fixtures" / "libraries" / "pod-security-admission" / "testdata"
SOURCE = "https://github.com/kubernetes/pod-security-admission/blob/v0.37.2/policy"

INTRO = f"""# The Pod Security Standards as policies (`vap-lsp library pss`)

Generated from `vap_lsp/library/pss_checks.py` by `python tools/generate_pss_docs.py`; the README
section "Pod Security Standards as policies" shows how to use them.

`vap-lsp library pss` writes ValidatingAdmissionPolicies that give Pod Security Admission's
verdict: one validation per PSA check, in PSA's order, written from PSA's own checks
({PSA_MODULE}, `policy/check_*.go`) and proven on PSA's fixtures (4,537 Pods, both levels, every
version v1.0-v1.{LATEST_MINOR}) and against PSA's evaluator on generated Pods (`tests/library`,
`benchmarks/bench_pss.py`).

## The objects

- **`pss-<level>-<version>`** (or `pss-namespace-labels`): Pods, on CREATE and UPDATE, also
  through `pods/ephemeralcontainers` and `pods/resize` (PSA ignores only exec, attach, binding,
  eviction, log, portforward, proxy and status). An update that adds no container and changes
  no container's image is not evaluated (matchCondition `significant-pod-update`,
  `isSignificantPodUpdate`), so labelling, annotating or finalizing an existing Pod never
  fails. Bound with `Deny`.
- **`…-workloads`**, **`…-cronjobs`**, **`…-podtemplates`**: the pod template of Deployments,
  ReplicaSets, StatefulSets, DaemonSets, Jobs and ReplicationControllers (`spec.template`), of
  CronJobs (`spec.jobTemplate.spec.template`) and PodTemplates (`template`); one policy per place
  so every expression is typed by its kinds' schema. PSA only warns there: bound with `Warn`
  (`--workloads deny` binds them with `Deny`; `--workloads off` leaves them out). A template that
  is absent is not evaluated (`has-pod-template`).
- Each validation's `messageExpression` is PSA's `reason (detail)`; `message` is a fixed
  fallback; `reason: Forbidden` (PSA denies with 403 Forbidden). `failurePolicy: Fail`.
  The policy's annotation `vap-lsp/pss-checks` lists the checks in validation order.
- `--exemptions params`: the policies take a ConfigMap param (`kube-system/pss-exemptions`,
  written too, bound with `parameterNotFoundAction: Deny`); its `namespaces`, `usernames` and
  `runtimeClassNames` skip the evaluation as PSA's AdmissionConfiguration exemptions do
  (matchConditions `exempt-namespace`, `exempt-user`, `exempt-runtime-class`; an empty name is
  never exempt); its `images` exempt the containers running them, one by one (an image without
  tag or digest: every tag and digest of that repository). Names one per line or comma-separated.
- `--namespace-labels`: the level and version come from the namespace's
  `pod-security.kubernetes.io/enforce` and `enforce-version` labels (`api.PolicyToEvaluate`:
  a level that does not parse is restricted, a version that does not parse is latest, a version
  past v1.{LATEST_MINOR} is v1.{LATEST_MINOR}); unlabelled namespaces get `--level` (default
  privileged) and `--version`. Workload templates in warn mode read `warn` and `warn-version`
  (without a warn label, an enforce level stricter than the default warns at that level). Every
  variant of every check is a validation, applied at the levels and versions PSA applies it.

Messages are PSA's words; where PSA lists a sorted set of values gathered across containers
(capabilities, host ports, probe hosts, profile types), the values come in the order the
containers are visited (init, regular, ephemeral), each once where the list is one value per
container, and the containers of `hostProbesAndHostLifecycle` in that order too: CEL has no sort
before Kubernetes 1.34's list library and the policies run from 1.30 on.

## Checks

| check | level | versions | PSA's source |
|---|---|---|---|
"""


def _span(minors: list[int]) -> str:
    out: list[str] = []
    start = prev = minors[0]
    for m in [*minors[1:], -1]:
        if m == prev + 1:
            prev = m
            continue
        out.append(f"v1.{start}+" if prev == LATEST_MINOR else f"v1.{start}–v1.{prev}")
        start = prev = m
    return ", ".join(out)


def _example(check: Check) -> tuple[str, str] | None:
    """The denial of the newest PSA fixture of this check (at its level), and where it is from."""
    name = check.id.lower()
    for minor in range(LATEST_MINOR, -1, -1):
        fixture = TESTDATA / check.level / f"v1.{minor}" / "fail" / f"{name}0.yaml"
        if not fixture.is_file():
            continue
        pod: Any = yaml.safe_load(fixture.read_text(encoding="utf-8"))
        policy = generate(Options(level=check.level, version=f"v1.{minor}", workloads="off"))
        prepared = prepare(
            PolicyInputs.from_objects(policy.objects()), kubernetes_version="1.37", builtin_admission=False
        )
        result = prepared.admit(AdmissionRequestInput("CREATE", pod, namespace="default"))
        messages = [f.message for e in result.evaluations for f in e.failures]
        wanted = next((m for m in messages if _is_of(check, m)), None)
        if wanted is not None:
            where = f"`{check.level}/v1.{minor}/fail/{fixture.name}`"
            return wanted, where
    return None


def _is_of(check: Check, message: str) -> bool:
    reason = message.partition(" (")[0]
    return reason in _REASONS[check.id]


_REASONS = {
    "allowPrivilegeEscalation": ("allowPrivilegeEscalation != false",),
    "appArmorProfile": ("forbidden AppArmor profile", "forbidden AppArmor profiles"),
    "capabilities_baseline": ("non-default capabilities",),
    "capabilities_restricted": ("unrestricted capabilities",),
    "hostNamespaces": ("host namespaces",),
    "hostPathVolumes": ("hostPath volumes",),
    "hostPorts": ("hostPort",),
    "hostProbesAndHostLifecycle": ("probe or lifecycle host",),
    "privileged": ("privileged",),
    "procMount": ("procMount",),
    "procMount_restricted": ("procMount",),
    "restrictedVolumes": ("restricted volume types",),
    "runAsNonRoot": ("runAsNonRoot != true",),
    "runAsUser": ("runAsUser=0",),
    "seLinuxOptions": ("seLinuxOptions",),
    "seccompProfile_baseline": ("seccompProfile",),
    "seccompProfile_restricted": ("seccompProfile",),
    "sysctls": ("forbidden sysctls",),
    "windowsHostProcess": ("hostProcess",),
}
"""PSA's ForbiddenReason of each check (the start of its validation's message)."""


def render() -> str:
    rows: list[str] = []
    sections: list[str] = []
    for check in sorted(CHECKS, key=lambda c: (c.level != LEVELS[0], c.id)):
        by_level = {
            lv: [m for v in check.variants for m in applicable_minors(check, v).get(lv, [])] for lv in LEVELS
        }
        where = "; ".join(f"{lv} {_span(sorted(m))}" for lv, m in by_level.items() if m)
        rows.append(
            f"| [`{check.id}`](#{check.id.lower()}) | {check.level} | {where} | "
            f"[`{check.file}`]({SOURCE}/{check.file}) |"
        )
        lines = [f"### {check.id}", "", check.summary, ""]
        lines.append(f"- **Reads**: {', '.join(f'`{f}`' for f in check.fields)}")
        lines.append(f"- **Allows**: {check.allowed}")
        variants = []
        for v in check.variants:
            text = f"`{v.function}` from v1.{v.since}"
            if v.overrides:
                text += f" (replaces {', '.join(f'`{o}`' for o in v.overrides)} at restricted)"
            variants.append(text)
        lines.append(f"- **Variants** (`{check.file}`): {'; '.join(variants)}")
        lines.append(f"- **Evaluated at**: {where}")
        lines.append(f"- **Reason**: {' / '.join(f'`{r}`' for r in _REASONS[check.id])}")
        example = _example(check)
        if example is not None:
            message, fixture = example
            lines.append(f"- **Denial** of PSA's fixture {fixture}:")
            lines += ["", "  ```", f"  {message}", "  ```"]
        sections.append("\n".join(lines))
    return INTRO + "\n".join(rows) + "\n\n" + "\n\n".join(sections) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    current = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else None
    if "--check" in argv:
        if current != text:
            print(f"{PAGE.relative_to(ROOT)} is out of date: run python tools/generate_pss_docs.py")
            return 1
        return 0
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    if current != text:
        PAGE.write_text(text, encoding="utf-8")
    print(f"{PAGE.relative_to(ROOT)}: {'written' if current != text else 'unchanged'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
