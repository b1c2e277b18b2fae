""" "Did you mean ...?" for names a user misspells: configuration keys, diagnostic codes in
flags, configuration and inline comments, authorizer-rule keys. One wording everywhere."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The known name nearest to `word` (case, `_` for `-` forgiven), or None if none is near."""
    options = list(choices)
    folded = {c.lower().replace("_", "-"): c for c in options}
    hit = difflib.get_close_matches(word.lower().replace("_", "-"), list(folded), n=1, cutoff=0.6)
    return folded[hit[0]] if hit else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean 'x'?)`, or "" when nothing is near."""
    near = closest(word, choices)
    return f" (did you mean {near!r}?)" if near is not None else ""
