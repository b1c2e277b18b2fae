"""Go's `time`: `time.Parse(time.RFC3339, …)`, `Format(time.RFC3339Nano)` (the offset a time was
parsed with is kept and printed), `time.ParseDuration`, `Duration.String` and `Duration.Seconds`.

Instants are integers: nanoseconds since the Unix epoch, plus the zone offset in seconds east of
UTC. Python's `datetime` stops at microseconds and at year 1; Go goes on in both directions.
"""

from __future__ import annotations

from decimal import Decimal

__all__ = [
    "civil_from_days",
    "days_from_civil",
    "format_duration",
    "format_rfc3339_nano",
    "format_seconds",
    "parse_duration",
    "parse_rfc3339",
]

NANOS = 1_000_000_000
_DAY = 86_400


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar, any year (Go's too)."""
    y -= m <= 2
    era = y // 400  # floor division: the C++ original's truncation plus its negative fix-up
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z: int) -> tuple[int, int, int]:
    """The inverse of `days_from_civil`: (year, month, day)."""
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return y + (m <= 2), m, d


def _is_leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


_DAYS_IN = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _digits(s: str, i: int, n: int) -> int | None:
    part = s[i : i + n]
    if len(part) != n or not all("0" <= c <= "9" for c in part):
        return None
    return int(part)


def parse_rfc3339(s: str) -> tuple[int, int] | None:
    """`time.Parse(time.RFC3339, s)` → (Unix nanoseconds, offset seconds east), or None.

    Go's layout parser (the fallback after its strict fast path): four-digit year, two-digit
    month, day, minute and second, a one- or two-digit hour, an optional `.` or `,` fraction
    (digits past the ninth dropped), `Z` or `±hh:mm` with hour ≤ 24 and minute ≤ 60 (Go accepts
    "offsets of 24 hours or 60 minutes"; the range is Go 1.23's, the Go of every supported
    Kubernetes' newest patch release, `toolchain`). No range beyond the calendar: year 0000 parses.
    """
    year = _digits(s, 0, 4)
    if year is None or s[4:5] != "-":
        return None
    month = _digits(s, 5, 2)
    if month is None or s[7:8] != "-":
        return None
    day = _digits(s, 8, 2)
    if day is None or s[10:11] != "T":
        return None
    i = 11
    hour = _digits(s, i, 2)
    if hour is not None and s[i + 2 : i + 3] == ":":
        i += 2
    else:
        hour = _digits(s, i, 1)
        i += 1
    if hour is None or s[i : i + 1] != ":":
        return None
    minute = _digits(s, i + 1, 2)
    if minute is None or s[i + 3 : i + 4] != ":":
        return None
    second = _digits(s, i + 4, 2)
    if second is None:
        return None
    i += 6
    nanos = 0
    if i + 1 < len(s) and s[i] in ".," and "0" <= s[i + 1] <= "9":
        j = i + 1
        while j < len(s) and "0" <= s[j] <= "9":
            j += 1
        nanos = int((s[i + 1 : j] + "000000000")[:9])
        i = j
    rest = s[i:]
    if rest == "Z":
        offset = 0
    else:
        if len(rest) != 6 or rest[0] not in "+-" or rest[3] != ":":
            return None
        oh, om = _digits(rest, 1, 2), _digits(rest, 4, 2)
        if oh is None or om is None or oh > 24 or om > 60:
            return None
        offset = (oh * 3600 + om * 60) * (-1 if rest[0] == "-" else 1)
    if not 1 <= month <= 12 or hour > 23 or minute > 59 or second > 59:
        return None
    days_in = 29 if month == 2 and _is_leap(year) else _DAYS_IN[month]
    if not 1 <= day <= days_in:
        return None
    secs = days_from_civil(year, month, day) * _DAY + hour * 3600 + minute * 60 + second - offset
    return secs * NANOS + nanos, offset


def format_rfc3339_nano(unix_nanos: int, offset: int = 0) -> str:
    """`t.Format(time.RFC3339Nano)`: the wall clock at `offset`, the fraction without trailing
    zeros, `Z` for a zero offset, else `±hh:mm`."""
    secs, frac = divmod(unix_nanos, NANOS)
    days, rem = divmod(secs + offset, _DAY)
    y, m, d = civil_from_days(days)
    hh, rem = divmod(rem, 3600)
    mm, ss = divmod(rem, 60)
    fraction = ("." + f"{frac:09d}".rstrip("0")) if frac else ""
    if offset == 0:
        zone = "Z"
    else:
        sign = "-" if offset < 0 else "+"
        zh, zm = divmod(abs(offset) // 60, 60)
        zone = f"{sign}{zh:02d}:{zm:02d}"
    year = f"{y:04d}" if y >= 0 else f"-{-y:04d}"
    return f"{year}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}{fraction}{zone}"


_UNITS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,  # µs (micro sign)
    "\u03bcs": 1_000,  # μs (Greek mu)
    "ms": 1_000_000,
    "s": NANOS,
    "m": 60 * NANOS,
    "h": 3600 * NANOS,
}
_MAX = 1 << 63


def parse_duration(text: str) -> int | None:
    """`time.ParseDuration` → nanoseconds, or None where Go returns an error (bad syntax, unknown
    unit, overflow of int64 — the fraction is added in float64 arithmetic as Go does)."""
    s = text
    neg = False
    if s and s[0] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        return None
    total = 0
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            return None
        i = 0
        while i < len(s) and "0" <= s[i] <= "9":
            i += 1
        pre = i > 0
        whole = int(s[:i]) if pre else 0
        if whole > _MAX:
            return None
        s = s[i:]
        frac, scale, post = 0, 1.0, False
        if s and s[0] == ".":
            s = s[1:]
            j = 0
            overflow = False
            while j < len(s) and "0" <= s[j] <= "9":
                if not overflow:
                    if frac > (_MAX - 1) // 10:
                        overflow = True  # Go's leadingFraction stops accumulating digits
                    else:
                        frac = frac * 10 + int(s[j])
                        scale *= 10
                j += 1
            post = j > 0
            s = s[j:]
        if not pre and not post:
            return None
        k = 0
        while k < len(s) and not (s[k] == "." or "0" <= s[k] <= "9"):
            k += 1
        if k == 0:
            return None
        unit = _UNITS.get(s[:k])
        if unit is None:
            return None
        s = s[k:]
        if whole > _MAX // unit:
            return None
        value = whole * unit
        if frac > 0:
            value += int(float(frac) * (float(unit) / scale))
            if value > _MAX:
                return None
        total += value
        if total > _MAX:
            return None
    if neg:
        return -total
    if total > _MAX - 1:
        return None
    return total


def _fmt_frac(v: int, prec: int) -> tuple[str, int]:
    """Go's `fmtFrac`: the fraction digits of v / 10**prec without trailing zeros, and the rest."""
    digits = ""
    printed = False
    for _ in range(prec):
        digit = v % 10
        printed = printed or digit != 0
        if printed:
            digits = str(digit) + digits
        v //= 10
    return ("." + digits if printed else ""), v


def format_duration(nanos: int) -> str:
    """`time.Duration.String()`: `1h2m3.5s`, `1.5ms`, `0s`."""
    if nanos == 0:
        return "0s"
    neg = nanos < 0
    u = -nanos if neg else nanos
    if u < NANOS:
        if u < 1000:
            out = f"{u}ns"
        elif u < 1_000_000:
            frac, whole = _fmt_frac(u, 3)
            out = f"{whole}{frac}µs"
        else:
            frac, whole = _fmt_frac(u, 6)
            out = f"{whole}{frac}ms"
    else:
        frac, whole = _fmt_frac(u, 9)
        out = f"{whole % 60}{frac}s"
        whole //= 60
        if whole > 0:
            out = f"{whole % 60}m{out}"
            whole //= 60
            if whole > 0:
                out = f"{whole}h{out}"
    return ("-" if neg else "") + out


def format_seconds(nanos: int) -> str:
    """`strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"` (cel-go's `string(duration)`);
    `Seconds()` adds the whole and fractional parts as separate float64s, as Go does."""
    sec = int(nanos / NANOS) if nanos >= 0 else -((-nanos) // NANOS)
    rem = nanos - sec * NANOS
    value = float(sec) + float(rem) / 1e9
    text = format(Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "s"
