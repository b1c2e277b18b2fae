"""Report: how much of a policy corpus is typed, and where typing is lost (printed, never asserted).

Counts, over every ValidatingAdmissionPolicy / MutatingAdmissionPolicy with CEL expressions, the
kinds `matchConstraints` resolves to that are typed, and the `typing-unavailable` entries by
reason (unknown CRD, not served, `*` rules, subresources, the 10-kind limit, `paramKind`). CRDs
anywhere in the corpus count, as `vap-lsp check` over the folder would use them; `--crd PATH`
adds more.
Usage: python benchmarks/report_typing_coverage.py [CORPUS_DIR] [--crd PATH...]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from vap_lsp.analysis.engine import parse_text
from vap_lsp.analysis.files import collect_files, read_file
from vap_lsp.analysis.model.context import policy_context
from vap_lsp.analysis.model.coverage import params_item, rule_items
from vap_lsp.analysis.model.crds import load_crds
from vap_lsp.analysis.model.sites import expression_sites
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.policy.kinds import PolicyKind, recognise
from vap_lsp.schema.store import default_version
from vap_lsp.yaml.detect import decode_bytes
from vap_lsp.yaml.model import ExpansionLimit, to_python

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--crd", action="append", default=[])
    args = parser.parse_args()
    if not Path(args.corpus).is_dir():
        print(f"corpus not found at {args.corpus}; pass its path")
        return
    version = default_version()
    workspace = WorkspaceIndex()
    if args.crd:
        workspace.set_external_crds("--crd", load_crds(args.crd).versions)
    parsed = []
    for path in collect_files([args.corpus], []):
        data = read_file(path, [])
        text = decode_bytes(data)[0] if data is not None else None
        if text is None:
            continue
        objects = parse_text(text)[1]
        workspace.update(str(path), objects, text)
        parsed.append(objects)
    policies = typed = 0
    untyped: Counter[str] = Counter()
    fully_typed = 0
    for objects in parsed:
        for obj in objects:
            recognised = recognise(obj.api_version, obj.kind)
            if recognised is None or recognised[0] not in (PolicyKind.VAP, PolicyKind.MAP):
                continue
            try:
                data = to_python(obj.node)
            except ExpansionLimit:
                continue
            spec = data.get("spec") if isinstance(data, dict) else None
            if not isinstance(spec, dict) or not expression_sites(obj.node, recognised[0], spec):
                continue
            policies += 1
            typing = policy_context(obj.node, recognised[0], spec, version, workspace)
            typed += sum(len(rule.typed) for rule in typing.rules)
            lost = [u.reason for rule in typing.rules for u in rule_items(rule)]
            lost += ["paramKind"] if params_item(typing) else []
            untyped.update(lost)
            fully_typed += not lost and any(rule.typed for rule in typing.rules)
    print(f"{policies} policies with CEL in {args.corpus} (Kubernetes {version})")
    print(f"typed kinds: {typed}; policies typed for everything they match: {fully_typed}")
    print(f"untyped (typing-unavailable) entries: {sum(untyped.values())}")
    for reason, count in untyped.most_common():
        print(f"  {reason}: {count}")


if __name__ == "__main__":
    main()
