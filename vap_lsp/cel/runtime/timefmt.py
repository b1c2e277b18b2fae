"""Timestamps and durations as cel-go parses and prints them (Go `time` semantics).

Why not `datetime`/`timedelta`: they stop at microseconds, CEL keeps nanoseconds.
"""

from __future__ import annotations

import datetime as _dt
import re
from decimal import Decimal
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from vap_lsp.cel.runtime.values import INT64_MAX, INT64_MIN, CelError, Timestamp

__all__ = [
    "format_duration",
    "format_go_duration",
    "format_timestamp",
    "local_time",
    "parse_duration",
    "parse_timestamp",
]

_NANOS = 1_000_000_000
_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()

_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:\d{2})\Z")


def parse_timestamp(text: str) -> Timestamp | None:
    """Go `time.Parse(time.RFC3339, text)`; None if it does not parse or is out of range."""
    m = _RFC3339.match(text)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    frac = m.group(7) or ""
    zone = m.group(8)
    if hour > 23 or minute > 59 or second > 59:
        return None
    try:
        ordinal = _dt.date(year, month, day).toordinal()
    except ValueError:
        return None
    offset = 0
    if zone != "Z":
        oh, om = int(zone[1:3]), int(zone[4:6])
        if oh > 23 or om > 59:
            return None
        offset = (oh * 3600 + om * 60) * (-1 if zone[0] == "-" else 1)
    secs = (ordinal - _EPOCH_ORDINAL) * 86400 + hour * 3600 + minute * 60 + second - offset
    nanos = int((frac + "000000000")[:9]) if frac else 0
    try:
        return Timestamp(secs * _NANOS + nanos)
    except CelError:
        return None


def _fraction(nanos: int) -> str:
    if nanos == 0:
        return ""
    return "." + f"{nanos:09d}".rstrip("0")


def format_timestamp(ts: Timestamp) -> str:
    """RFC 3339 with nanoseconds and trailing zeros removed (Go `time.RFC3339Nano`), UTC."""
    secs, nanos = divmod(ts.nanos, _NANOS)
    days, rem = divmod(secs, 86400)
    d = _dt.date.fromordinal(days + _EPOCH_ORDINAL)
    hh, rem = divmod(rem, 3600)
    mm, ss = divmod(rem, 60)
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{hh:02d}:{mm:02d}:{ss:02d}{_fraction(nanos)}Z"


_DURATION_PART = re.compile(r"(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)")
_UNITS = {
    "ns": 1,
    "us": 1000,
    "µs": 1000,
    "μs": 1000,
    "ms": 1_000_000,
    "s": _NANOS,
    "m": 60 * _NANOS,
    "h": 3600 * _NANOS,
}


def parse_duration(text: str) -> int | None:
    """Go `time.ParseDuration` → nanoseconds, or None."""
    s = text
    neg = False
    if s[:1] in ("-", "+"):
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        return None
    total = 0
    pos = 0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if m is None or (not m.group(1) and not m.group(2)):
            return None
        whole, frac, unit = m.group(1) or "0", m.group(2) or "", m.group(3)
        scale = _UNITS[unit]
        value = int(whole) * scale
        if frac:
            value += int(Decimal(int(frac)) * scale / (Decimal(10) ** len(frac)))
        total += value
        pos = m.end()
    if neg:
        total = -total
    if not INT64_MIN <= total <= INT64_MAX:
        return None
    return total


def format_duration(nanos: int) -> str:
    """cel-go `string(duration)`: seconds with the shortest decimal fraction, e.g. `90s`, `1.5s`."""
    value = nanos / _NANOS
    text = format(Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "s"


def _fmt_frac(v: int, prec: int) -> tuple[str, int]:
    """Go `fmtFrac`: the fraction digits of v / 10**prec without trailing zeros, and v // 10**prec."""
    digits = ""
    printed = False
    for _ in range(prec):
        digit = v % 10
        printed = printed or digit != 0
        if printed:
            digits = str(digit) + digits
        v //= 10
    return ("." + digits if printed else ""), v


def format_go_duration(nanos: int) -> str:
    """Go `time.Duration.String()`: `1h2m3.5s`, `1.5ms`, `0s`."""
    if nanos == 0:
        return "0s"
    neg = nanos < 0
    u = -nanos if neg else nanos
    if u < _NANOS:
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


@lru_cache(maxsize=64)
def _zone(name: str) -> _dt.tzinfo:
    if name in ("", "UTC"):
        return _dt.UTC
    if ":" not in name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
            raise CelError(f"unknown time zone {name}") from exc
    hours_text, _, minutes_text = name.partition(":")
    try:
        hours, minutes = int(hours_text), int(minutes_text)
    except ValueError as exc:
        bad = hours_text if not hours_text.lstrip("+-").isdigit() else minutes_text
        raise CelError(f'strconv.Atoi: parsing "{bad}": invalid syntax') from exc
    offset = hours * 60 - minutes if name.startswith("-") else hours * 60 + minutes
    try:
        return _dt.timezone(_dt.timedelta(minutes=offset))
    except ValueError as exc:
        raise CelError(f"unknown time zone {name}") from exc


def local_time(ts: Timestamp, zone: str | None) -> tuple[_dt.datetime, int]:
    """The wall-clock time of `ts` in `zone` (None: UTC) and the nanoseconds within its second."""
    secs, nanos = divmod(ts.nanos, _NANOS)
    tz = _dt.UTC if zone is None else _zone(zone)
    base = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC) + _dt.timedelta(seconds=secs)
    try:
        return base.astimezone(tz), nanos
    except OverflowError as exc:  # beyond year 1..9999 after the offset
        raise CelError("timestamp overflow") from exc
