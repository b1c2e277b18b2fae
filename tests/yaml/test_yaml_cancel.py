"""One huge document's parse is cancellable midway: the composer reaches a checkpoint
(`vap_lsp.cancel`) every `_EVENTS_PER_CHECKPOINT` parser events, not only between documents,
so a cancelled request on a 20 MB file stops within milliseconds (`benchmarks/bench_cancel.py`
prints how soon)."""

from __future__ import annotations

import pytest

from vap_lsp.cancel import Cancelled, Token, scope
from vap_lsp.yaml import parse
from vap_lsp.yaml.parse import parse_yaml

# One document, no `---` line: ~20,000 parser events (a key and a value per line).
ONE_DOCUMENT = "kind: ConfigMap\ndata:\n" + "".join(f"  key{i}: value{i}\n" for i in range(10_000))


class CancelledAtRead(Token):
    """A token that turns cancelled at its `n`-th checkpoint, counting the checkpoints."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.reads = 0

    @property  # type: ignore[override]
    def cancelled(self) -> bool:
        self.reads += 1
        return self.reads >= self.n


@pytest.mark.parametrize(
    "options",
    [{}, {"use_libyaml": False}, {"incremental": False}],
    ids=["libyaml-pieces", "ruamel", "one-pass"],
)
def test_a_cancelled_parse_stops_at_a_checkpoint_inside_the_document(options: dict[str, bool]) -> None:
    parse.clear_cache()
    token = CancelledAtRead(3)
    with scope(token), pytest.raises(Cancelled):
        parse_yaml(ONE_DOCUMENT, **options)
    assert token.reads == 3  # the third checkpoint stopped it: ones inside the document


def test_a_parse_with_a_live_token_reads_the_whole_document() -> None:
    parse.clear_cache()
    token = CancelledAtRead(10**9)
    with scope(token):
        parsed = parse_yaml(ONE_DOCUMENT)
    assert token.reads >= 20_000 // parse._EVENTS_PER_CHECKPOINT
    (document,) = parsed.documents
    assert document.problems == [] and document.root is not None
