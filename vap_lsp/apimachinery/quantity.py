"""k8s.io/apimachinery/pkg/api/resource quantities: `ParseQuantity` with its error texts, and
the canonical text of a value (what a sum of quantities serializes to).

One home for both CEL's `quantity()` library and defaulting (pod-level requests are the sum of
container requests)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

_QUANTITY_RE = re.compile(r"([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)\Z")
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


class QuantityError(ValueError):
    """A text `ParseQuantity` rejects; the message is apimachinery's."""


def parse_quantity(text: str) -> Fraction:
    """`resource.ParseQuantity` → exact value."""
    m = _QUANTITY_RE.match(text) if text else None
    if m is None:
        raise QuantityError(FORMAT_ERROR)
    number, suffix = m.group(1), m.group(2)
    if number.count(".") > 1 or number.strip("+-") in ("", "."):
        raise QuantityError("unable to parse numeric part of quantity")
    try:
        value = Fraction(Decimal(number))
    except (InvalidOperation, ValueError) as exc:
        raise QuantityError("unable to parse numeric part of quantity") from exc
    if suffix in _BINARY:
        return value * Fraction(2 ** _BINARY[suffix])
    if suffix in _DECIMAL:
        return value * Fraction(10) ** _DECIMAL[suffix]
    em = re.fullmatch(r"[eE]([-+]?[0-9]+)", suffix)
    if em is None:
        raise QuantityError("unable to parse quantity's suffix")
    return value * Fraction(10) ** int(em.group(1))


def is_binary(text: str) -> bool:
    """Whether a quantity is written in the BinarySI format (`Ki`, `Mi`…)."""
    return quantity_format(text) == "BinarySI"


def quantity_format(text: str) -> str:
    """The format `ParseQuantity` gives a quantity (what its canonical text keeps): `BinarySI`
    (`Ki`, `Mi`…), `DecimalExponent` (`e3`, `E-3`), else `DecimalSI` (`k`, `M`, none…)."""
    m = _QUANTITY_RE.match(text)
    suffix = m.group(2) if m is not None else ""
    if suffix in _BINARY:
        return "BinarySI"
    return "DecimalSI" if suffix in _DECIMAL else "DecimalExponent"


def format_quantity(value: Fraction, binary: bool = False, *, format: str | None = None) -> str:
    """The canonical text of `value` (`Quantity.String` → `CanonicalizeBytes`) in `format`
    (default: BinarySI with `binary`, else DecimalSI). BinarySI: integers outside (-1024, 1024)
    as a base-1024 mantissa with the largest suffix that keeps it an integer (`2000`, `1536Ki`);
    anything else falls back to DecimalSI. DecimalSI: the largest exponent of 3 that keeps an
    integer, as a suffix (`k`, `m`…); DecimalExponent: the same exponent as `e<n>`. Values are
    rounded up to nano units, as apimachinery does for sub-nano precision."""
    fmt = format if format is not None else ("BinarySI" if binary else "DecimalSI")
    if fmt == "BinarySI" and value.denominator == 1 and abs(value) >= 1024:
        amount, exp = value.numerator, 0
        while amount % 1024 == 0 and exp < 60:
            amount //= 1024
            exp += 10
        suffixes = {v: k for k, v in _BINARY.items()}
        return f"{amount}{suffixes.get(exp, '')}"
    nanos = -((-value * 10**9) // 1)  # round up, as apimachinery does for sub-nano precision
    if fmt == "DecimalExponent":
        if nanos == 0:
            return "0"
        amount, exp = int(nanos), -9
        while amount % 10 == 0:
            amount //= 10
            exp += 1
        shift = exp % 3  # down to a multiple of 3, as AsCanonicalBytes does
        amount, exp = amount * 10**shift, exp - shift
        return f"{amount}e{exp}" if exp else str(amount)
    for suffix, exp in sorted(_DECIMAL.items(), key=lambda kv: -kv[1]):
        if exp < -9:
            continue
        scale = 10 ** (exp + 9)
        if nanos % scale == 0 and (exp <= 0 or abs(nanos) >= scale):
            return f"{nanos // scale}{suffix}"
    return f"{nanos}n"
