"""Go's `fmt` verbs on float64 as cel-go's string formatting (`ext/formatting.go`, the version
Kubernetes pins: strings library v2) prints them: `%g`/`%v`, and the `%.Nf` and `%We` of
`golang.org/x/text/message.NewPrinter(language.English)` (thousands grouped, `∞`, `NaN`)."""

from __future__ import annotations

import math
from decimal import Decimal

__all__ = ["format_e_width", "format_fixed_grouped", "format_g"]


def format_g(x: float) -> str:
    """`fmt.Sprintf("%g", x)` (also `%v`): shortest digits, exponent form when exp < -4 or >= 6."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    mantissa, _, exp_text = repr(x).partition("e")
    sign = ""
    if mantissa.startswith("-"):
        sign, mantissa = "-", mantissa[1:]
    digits_part = mantissa.replace(".", "")
    int_len = mantissa.index(".") if "." in mantissa else len(mantissa)
    exp10 = int(exp_text) if exp_text else 0
    digits = digits_part.lstrip("0")
    lead_zeros = len(digits_part) - len(digits)
    digits = digits.rstrip("0") or "0"
    dp = int_len - lead_zeros + exp10  # the decimal point relative to the first digit
    exp = dp - 1
    if exp < -4 or exp >= 6:  # strconv ftoa.go: the shortest %g decides with precision 6
        mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mant}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if dp <= 0:
        return f"{sign}0.{'0' * -dp}{digits}"
    if dp >= len(digits):
        return f"{sign}{digits}{'0' * (dp - len(digits))}"
    return f"{sign}{digits[:dp]}.{digits[dp:]}"


def _with_commas(int_part: str) -> str:
    sign = ""
    if int_part.startswith("-"):
        sign, int_part = "-", int_part[1:]
    groups = []
    while len(int_part) > 3:
        groups.append(int_part[-3:])
        int_part = int_part[:-3]
    groups.append(int_part)
    return sign + ",".join(reversed(groups))


def _special(x: float) -> str | None:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    return None


def format_fixed_grouped(x: float, precision: int) -> str:
    """The English printer's `%.<precision>f`: exact decimal digits, thousands grouped."""
    special = _special(x)
    if special is not None:
        return special
    text = format(Decimal(x), f".{precision}f")
    int_part, dot, frac = text.partition(".")
    return _with_commas(int_part) + dot + frac


def format_e_width(x: float, width: int) -> str:
    """The English printer's `%<width>e`: six fraction digits, padded to `width`.

    cel-go builds the verb as `"%" + precision + "e"`, so a clause's precision is Go's *width*
    and the fraction keeps its default six digits (`"%.3e".format([1.0])` is `1.000000e+00`).
    """
    special = _special(x)
    if special is not None:  # the printer writes NaN and ∞ without the width (cel-spec agrees)
        return special
    mant, _, exp = f"{x:.6e}".partition("e")
    digits = exp[1:].lstrip("0").rjust(2, "0")
    return f"{mant}e{exp[0]}{digits}".rjust(width)
