"""Timestamps and durations as cel-go converts and prints them, over Go's `time`
(`vap_lsp.golang.timefmt`): a timestamp keeps the offset it was parsed with (`string()` prints
it, the accessors without a time zone read its wall clock there), as cel-go's `time.Time` does."""

from __future__ import annotations

import datetime as _dt
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from vap_lsp.cel.runtime.values import CelError, Timestamp
from vap_lsp.golang import timefmt as go_time

__all__ = [
    "format_duration",
    "format_go_duration",
    "format_timestamp",
    "local_time",
    "parse_duration",
    "parse_timestamp",
]

_NANOS = 1_000_000_000

parse_duration = go_time.parse_duration
"""`duration(string)`: Go's `time.ParseDuration`."""

format_duration = go_time.format_seconds
"""`string(duration)`: seconds with the shortest decimal fraction, e.g. `90s`, `1.5s`."""

format_go_duration = go_time.format_duration
"""`time.Duration.String()`, where Kubernetes prints a duration (`1h30m0s`)."""


def parse_timestamp(text: str) -> Timestamp | None:
    """`timestamp(string)`: `time.Parse(time.RFC3339, …)` within CEL's years 1–9999, else None
    (the literal validator and the runtime both ask this)."""
    parsed = go_time.parse_rfc3339(text)
    if parsed is None:
        return None
    try:
        return Timestamp(parsed[0], parsed[1])
    except CelError:
        return None


def format_timestamp(ts: Timestamp) -> str:
    """`string(timestamp)`: `Format(time.RFC3339Nano)` at the timestamp's own offset."""
    return go_time.format_rfc3339_nano(ts.nanos, ts.offset)


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
    """The wall-clock time of `ts` in `zone` (None: the offset it was parsed with, as cel-go's
    accessors read `t.Hour()` of the `time.Time` they hold) and the nanoseconds in its second."""
    secs, nanos = divmod(ts.nanos, _NANOS)
    try:
        if zone is None:  # Go's offsets reach 25 hours, beyond what `datetime.timezone` takes
            return _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=secs + ts.offset), nanos
        base = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC) + _dt.timedelta(seconds=secs)
        return base.astimezone(_zone(zone)), nanos
    except OverflowError as exc:  # beyond year 1..9999 after the offset
        raise CelError("timestamp overflow") from exc
