"""Validation messages the API server accepts: Kyverno and Gatekeeper take any text, a
ValidatingAdmissionPolicy rejects a message whose trimmed text has a line break
(`ValidateValidatingAdmissionPolicy`, `validateValidation`: "message must not contain line
breaks"), so such a message is joined into one line, and the conversion says so."""

from __future__ import annotations

import re
from typing import Any

from vap_lsp.golang.strings import trim_space

_LINE_BREAKS = re.compile(r"[\n\r]")


def one_line(message: str) -> str:
    trimmed = trim_space(message)
    if not _LINE_BREAKS.search(trimmed):
        return message
    return " ".join(part.strip() for part in re.split(r"[\n\r]+", trimmed) if part.strip())


def fix_messages(validations: list[dict[str, Any]], where: str, notes: list[str]) -> None:
    """Every `message` of `validations` made acceptable, a note per change."""
    for i, validation in enumerate(validations):
        message = validation.get("message")
        if isinstance(message, str):
            joined = one_line(message)
            if joined != message:
                validation["message"] = joined
                notes.append(
                    f"{where}[{i}].message had line breaks, which a ValidatingAdmissionPolicy rejects: "
                    "joined into one line"
                )
