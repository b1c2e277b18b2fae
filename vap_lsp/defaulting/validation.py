"""The built-in validation's required fields on the paths admission policies read: one table
for the two questions it answers.

- Admission (`builtin_errors`): an object the server rejects before validating admission never
  reaches a policy (`rest.BeforeCreate` runs `strategy.Validate` first), in the server's words
  (`field.Required(path, "")` renders `<path>: Required value`), as the status message
  `<Kind> "<name>" is invalid: <error>` (`[e1, e2]` for several).
- Guarantees (`required_field`, read by `analysis.model.guarantees`): a field validation
  requires is present where validation has run (validating admission, stored objects), although
  the schema marks it optional (RC `spec.template` is a pointer; `image` is `omitempty`).

Audited against Kubernetes v1.30.14 to v1.37.2, one patch release per minor
(`pkg/apis/{core,apps,batch}/validation/validation.go` and the registries' `strategy.go`,
`PrepareForCreate`/`Validate`/`ValidateUpdate`): only rules that hold, with the same message, on
every supported version. Deliberately not here:
errors whose message renders a value (`Invalid value: {...}`: a selector that does not match the
template's labels), a DaemonSet's missing selector (it fails that label match instead), fields
forbidden rather than required (a template's `ephemeralContainers`, a CronJob's
`jobTemplate.spec.selector`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from vap_lsp.defaulting.builtin import ITEM
from vap_lsp.defaulting.rules import JsonDict

REQUIRED = "Required value"

WRITES = frozenset({"CREATE", "UPDATE"})
CREATE = frozenset({"CREATE"})
NEVER: frozenset[str] = frozenset()


@dataclass(frozen=True)
class RequiredField:
    """A field the built-in validation of a kind rejects the object without."""

    path: tuple[str, ...]
    """From the object's root; `ITEM` for every item of a list."""
    function: str
    """The Go function that requires it, as the guarantee's reason names it."""
    operations: frozenset[str] = WRITES
    """Where every supported version rejects an object without it (so it is present after)."""
    reject: frozenset[str] | None = None
    """Where `builtin_errors` reports it, with `<path>: Required value[: detail]` (None: on
    `operations`; fewer where the server's message differs by version or carries other errors)."""
    detail: str = ""
    empty: bool = True
    """An empty value (`""`, `[]`, `{}`) is rejected as absent (`len(x) == 0`); False for a
    pointer to a struct (`template`, a `LabelSelector`), rejected only when null."""
    unchecked: str = ""
    """Why it is not certain on the other writes (said where a policy can see them)."""
    rejected_values: tuple[str, ...] = ()
    """Values rejected with the same Required error (a Job's `restartPolicy: Always`, the
    default `SetDefaults_PodSpec` gives it)."""

    @property
    def reported_on(self) -> frozenset[str]:
        return self.operations if self.reject is None else self.reject


def _pod_spec(
    at: tuple[str, ...], operations: frozenset[str] = WRITES, unchecked: str = "", *, ephemeral: bool = False
) -> tuple[RequiredField, ...]:
    """`ValidatePodSpec` at `at` (a Pod's spec, every template's): `validateContainers` requires a
    container, `validateContainerCommon` a name and an image of each container and init
    container (and ephemeral container: `validateEphemeralContainers`, a Pod's only, set through
    its subresource), in that order."""
    common = "validateContainerCommon"
    rows = [
        RequiredField((*at, "containers"), "validateContainers", operations, unchecked=unchecked),
        *(
            RequiredField((*at, containers, ITEM, field), common, operations, unchecked=unchecked)
            for containers in ("containers", "initContainers")
            for field in ("name", "image")
        ),
    ]
    if ephemeral:
        # Forbidden on create (`ValidatePodCreate`): only the guarantee, never a rejection here.
        rows.append(RequiredField((*at, "ephemeralContainers", ITEM, "image"), common, operations, NEVER))
    return tuple(rows)


def _job_template(at: tuple[str, ...]) -> tuple[RequiredField, ...]:
    """`validateJobSpec` (a Job's spec, a CronJob's `jobTemplate.spec`): `ValidatePodTemplateSpec`,
    then a `restartPolicy` that is OnFailure or Never (Always, the Pod default, is `Required`)."""
    return (
        *_pod_spec((*at, "template", "spec")),
        RequiredField(
            (*at, "template", "spec", "restartPolicy"),
            "validateJobSpec",
            detail='valid values: "OnFailure", "Never"',
            rejected_values=("Always",),
        ),
    )


_RC = "ValidatePodTemplateSpecForRC"

REQUIRED_FIELDS: Mapping[tuple[str, str, str], tuple[RequiredField, ...]] = {
    # ValidatePodCreate / ValidatePodUpdate -> validatePodMetadataAndSpec -> ValidatePodSpec.
    ("", "v1", "Pod"): _pod_spec(("spec",), ephemeral=True),
    # ValidateReplicationController(Update) -> ValidateReplicationControllerSpec: the selector
    # (defaulted from the template's labels, SetDefaults_ReplicationController), the template,
    # whose labels the non-empty selector must match, then the template's pod spec.
    ("", "v1", "ReplicationController"): (
        RequiredField(("spec", "selector"), "ValidateNonEmptySelector"),
        RequiredField(("spec", "template"), _RC, empty=False),
        RequiredField(
            ("spec", "template", "metadata", "labels"),
            f"{_RC}: the required non-empty spec.selector must match them",
            reject=NEVER,  # the server says `selector` or an `Invalid value: {...}` instead
        ),
        *_pod_spec(("spec", "template", "spec")),
    ),
    # ValidatePodTemplate(Update) -> ValidatePodTemplateSpec.
    ("", "v1", "PodTemplate"): _pod_spec(("template", "spec")),
    # ValidateDeploymentSpec / ValidateReplicaSetSpec: a selector, then the template
    # (ValidatePodTemplateSpecForReplicaSet), on create and update.
    ("apps", "v1", "Deployment"): (
        RequiredField(("spec", "selector"), "ValidateDeploymentSpec", empty=False),
        *_pod_spec(("spec", "template", "spec")),
    ),
    ("apps", "v1", "ReplicaSet"): (
        RequiredField(("spec", "selector"), "ValidateReplicaSetSpec", empty=False),
        *_pod_spec(("spec", "template", "spec")),
    ),
    # ValidateDaemonSetSpec (a missing selector fails the label match: not listed).
    ("apps", "v1", "DaemonSet"): _pod_spec(("spec", "template", "spec")),
    # ValidateStatefulSetSpec; on update ValidateStatefulSetUpdate skips the pod template
    # (SkipValidatePodTemplateSpec, v1.34 on) when the stored one fails validation: its fields
    # are certain on create only.
    ("apps", "v1", "StatefulSet"): (
        RequiredField(("spec", "selector"), "ValidateStatefulSetSpec", empty=False),
        *_pod_spec(
            ("spec", "template", "spec"),
            CREATE,
            "ValidateStatefulSetUpdate skips the pod template when the stored StatefulSet fails validation",
        ),
    ),
    # ValidateJobCreate / ValidateJobUpdate -> ValidateJobSpec: the template, then a selector,
    # which PrepareForCreate generates (generateSelectorIfNeeded) unless manualSelector; a
    # missing manual one also fails the label match (an `Invalid value`): not reported here.
    ("batch", "v1", "Job"): (
        *_job_template(("spec",)),
        RequiredField(("spec", "selector"), "ValidateJobSpec", reject=NEVER, empty=False),
    ),
    # ValidateCronJobCreate / ValidateCronJobUpdate -> validateCronJobSpec -> ValidateJobTemplateSpec.
    ("batch", "v1", "CronJob"): _job_template(("spec", "jobTemplate", "spec")),
    # ValidateControllerRevisionCreate (v1.31 on; ValidateControllerRevision before): data is
    # mandatory. On update the stored data is kept (Required before, immutable since): present,
    # but with another message.
    ("apps", "v1", "ControllerRevision"): (
        RequiredField(
            ("data",), "ValidateControllerRevision", reject=CREATE, detail="data is mandatory", empty=False
        ),
    ),
}


@functools.cache
def _by_path(gvk: tuple[str, str, str]) -> Mapping[tuple[str, ...], RequiredField]:
    return {row.path: row for row in REQUIRED_FIELDS.get(gvk, ())}


def required_field(gvk: tuple[str, str, str], path: tuple[str, ...]) -> RequiredField | None:
    """The row requiring `path` (`ITEM` for list items) of the built-in kind `gvk`, if any."""
    return _by_path(gvk).get(path)


def _missing(value: object, row: RequiredField) -> bool:
    if value is None or (isinstance(value, str) and value in row.rejected_values):
        return True
    return row.empty and isinstance(value, str | list | dict) and len(value) == 0


def _errors(value: object, rows: list[tuple[tuple[str, ...], RequiredField]], at: str) -> list[str]:
    """The errors of `rows` (paths relative to `value`, the field at `at`), in the order the Go
    validation finds them: a field, then what is inside it, item by item."""
    groups: dict[str, list[tuple[tuple[str, ...], RequiredField]]] = {}
    for rest, row in rows:
        groups.setdefault(rest[0], []).append((rest[1:], row))
    out: list[str] = []
    for segment, members in groups.items():
        if segment == ITEM:
            for i, item in enumerate(value if isinstance(value, list) else []):
                out += _errors(item, members, f"{at}[{i}]")
            continue
        child = value.get(segment) if isinstance(value, dict) else None
        here = f"{at}.{segment}" if at else segment
        missing = [row for rest, row in members if not rest and _missing(child, row)]
        for row in missing:
            out.append(f"{here}: {REQUIRED}" + (f": {row.detail}" if row.detail else ""))
        inside = [(rest, row) for rest, row in members if rest]
        if inside and not missing:
            # An absent struct is Go's zero value: its own required fields are still checked.
            out += _errors(child if child is not None else {}, inside, here)
    return out


def builtin_errors(obj: JsonDict, gvk: tuple[str, str, str], operation: str) -> list[str]:
    """The field errors of the built-in validation this module knows for `obj` (CREATE/UPDATE)."""
    if operation not in WRITES:
        return []
    errors: list[str] = []
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    if not meta.get("name") and not meta.get("generateName"):
        errors.append(f"metadata.name: {REQUIRED}: name or generateName is required")
    rows = [(row.path, row) for row in REQUIRED_FIELDS.get(gvk, ()) if operation in row.reported_on]
    return errors + (_errors(obj, rows, "") if rows else [])


def rejection(obj: JsonDict, gvk: tuple[str, str, str], errors: list[str]) -> str:
    """The status message: `Pod "p" is invalid: spec.containers: Required value`."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    name = meta.get("name") or meta.get("generateName") or ""
    detail = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    return (
        f'{gvk[2]}.{gvk[0]} "{name}" is invalid: {detail}'
        if gvk[0]
        else f'{gvk[2]} "{name}" is invalid: {detail}'
    )
