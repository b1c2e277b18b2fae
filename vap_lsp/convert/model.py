"""What a conversion produces, in one shape for Gatekeeper and Kyverno: the objects written, what
could not be converted and why, and what verification needs to find the converted policy of a
source rule again."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ParamsMode = Literal["constraint", "configmap"]


@dataclass(frozen=True)
class Options:
    """How to convert. `params`: Gatekeeper constraints stay the params (`constraint`, the
    constraint kind is the paramKind, as Gatekeeper's own VAP generation does) or become
    ConfigMaps (`configmap`: no Gatekeeper CRD needed once Gatekeeper is gone)."""

    kubernetes_version: str
    params: ParamsMode = "constraint"
    params_namespace: str = "gatekeeper-system"
    autogen: bool = True
    """Kyverno autogen (pod controllers), unless a policy turns it off; False: never."""


@dataclass(frozen=True)
class Origin:
    """Where a converted or unconvertible thing comes from: file, line, kind, name, rule."""

    path: str
    line: int
    kind: str
    name: str
    rule: str | None = None

    def label(self) -> str:
        rule = f" rule {self.rule}" if self.rule else ""
        return f"{self.kind} {self.name}{rule}"

    def at(self) -> str:
        return f"{self.path}:{self.line}"

    def with_rule(self, rule: str | None) -> Origin:
        return Origin(self.path, self.line, self.kind, self.name, rule)


@dataclass(frozen=True)
class Unconvertible:
    """A construct the API server cannot express, with the reason; never dropped in silence."""

    origin: Origin
    construct: str
    """A short stable label (`Rego-only template`, `resource.Get`, `JMESPath pattern`...)."""
    reason: str
    where: str = ""
    """The field path in the source object (`spec.rules[0].validate.pattern`)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.origin.path,
            "line": self.origin.line,
            "kind": self.origin.kind,
            "name": self.origin.name,
            "rule": self.origin.rule,
            "construct": self.construct,
            "reason": self.reason,
            "field": self.where or None,
        }


@dataclass
class Emitted:
    """One object of the output, with the comment written above it."""

    data: dict[str, Any]
    origin: Origin
    comment: str


@dataclass
class Converted:
    """Everything one source policy (a ConstraintTemplate with its constraints, a Kyverno
    policy) became, written to `file_name` under the output folder."""

    origin: Origin
    file_name: str
    objects: list[Emitted] = field(default_factory=list)
    unconvertible: list[Unconvertible] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rules: dict[str, list[str]] = field(default_factory=dict)
    """Source rule (Kyverno rule name; "" for a whole ValidatingPolicy or template) → the names
    of the policies emitted for it (a pod policy's autogen variants too)."""
    bindings: dict[str, str] = field(default_factory=dict)
    """Gatekeeper: constraint name → its binding's name."""
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Gatekeeper: constraint name → the object its binding's paramRef names."""
    crds: list[dict[str, Any]] = field(default_factory=list)
    """CRDs the output needs that the cluster has while the source engine runs (the constraint
    kind as paramKind): used to check and verify, not written."""

    @property
    def policies(self) -> list[dict[str, Any]]:
        return [e.data for e in self.objects if e.data.get("kind") == "ValidatingAdmissionPolicy"]

    @property
    def converted(self) -> bool:
        return bool(self.policies)
