"""The scheduling policy on a fake clock: when a document's next analysis starts.

`start_time` answers a time (in the past or now: at once) or None (no run now: nothing to do,
or the running analysis asks again when it ends). Seconds throughout.
"""

from __future__ import annotations

from vap_lsp.server.pacing import Pacer, Pacing
from vap_lsp.server.settings import ServerSettings, parse_settings

ADAPTIVE = None  # the debounce override: None unless `debounceMs` is set


def due_by(pacer: Pacer, now: float, debounce: float | None = ADAPTIVE) -> bool:
    """Whether the next run starts by `now` (a start time in the past means at once)."""
    when = pacer.start_time(debounce)
    return when is not None and when <= now


def measured(*durations: float) -> Pacer:
    """A document whose analyses after an edit took `durations`, in that order."""
    pacer = Pacer()
    for duration in durations:
        pacer.edit(0.0)
        pacer.start()
        pacer.finish(duration)
    return pacer


def test_a_fast_document_is_analysed_at_once_after_an_edit() -> None:
    pacer = measured(0.008)
    pacer.edit(10.0)
    assert pacer.start_time(ADAPTIVE) == 10.0


def test_one_slow_run_does_not_make_a_fast_document_wait_but_a_change_of_size_does() -> None:
    pacer = measured(0.008, 0.009, 0.4)  # the last one on a busy machine
    pacer.edit(10.0)
    assert pacer.start_time(ADAPTIVE) == 10.0
    pacer = measured(0.008, 0.4, 0.5)  # a large paste: most recent runs are slow
    pacer.edit(10.0)
    assert pacer.start_time(ADAPTIVE) == 10.0 + 0.4
    pacer = measured(0.008, 0.4)  # of two, the faster counts
    pacer.edit(10.0)
    assert pacer.start_time(ADAPTIVE) == 10.0


def test_a_document_never_measured_is_analysed_at_once() -> None:
    pacer = Pacer()
    pacer.request(1.0)  # opened: the run measures nothing (opening is not an edit)
    assert pacer.start() is False
    pacer.finish(None)
    pacer.edit(2.0)
    assert pacer.start_time(ADAPTIVE) == 2.0
    assert pacer.start() is True  # this one follows an edit: its duration counts


def test_edits_during_a_run_wait_for_it_and_then_make_one_follow_up() -> None:
    pacer = measured(0.008)
    pacer.edit(1.0)
    pacer.start()
    for t in (1.01, 1.02, 1.03):
        pacer.edit(t)
        assert pacer.start_time(ADAPTIVE) is None  # never a second run beside the first
    pacer.request(1.035)  # a save meanwhile: no run beside it either
    assert pacer.start_time(ADAPTIVE) is None
    pacer.finish(0.05)
    assert due_by(pacer, 1.05)  # the follow-up, at once
    pacer.start()
    pacer.finish(0.008)
    assert pacer.start_time(ADAPTIVE) is None  # nothing left to analyse


def test_a_slow_document_waits_for_a_pause_as_long_as_its_analysis() -> None:
    pacer = measured(0.3)
    pacer.edit(5.0)
    assert pacer.start_time(ADAPTIVE) == 5.0 + 0.3
    pacer.edit(5.1)  # another keystroke: the wait starts over
    assert pacer.start_time(ADAPTIVE) == 5.1 + 0.3


def test_the_wait_grows_with_the_analysis_time_between_bounds() -> None:
    pacing = Pacing()
    assert pacing.delay(0.01) == 0.0
    assert pacing.delay(0.02) == 0.0
    assert pacing.delay(0.021) == pacing.delay(0.04) == pacing.min_pause_seconds == 0.05
    assert 0.05 < pacing.delay(0.1) < pacing.delay(0.5) < pacing.delay(0.9)
    assert pacing.delay(5.0) == pacing.delay(50.0) == pacing.max_delay_seconds


def burst(pacer: Pacer, duration: float) -> int:
    """20 edits 30 ms apart, each run taking `duration`; returns how many runs started."""
    runs = 0
    for i in range(20):
        now = i * 0.03
        due = pacer.start_time(ADAPTIVE)
        if due is not None and due <= now:
            pacer.start()
            pacer.finish(duration)
            runs += 1
        pacer.edit(now)
    return runs


def test_a_burst_on_a_document_slower_than_fast_typing_is_analysed_only_now_and_then() -> None:
    """20 edits 30 ms apart on a document whose edits take 25 ms (a 10,000-line file on a fast
    machine): it would keep up with the typing, but not keystroke by keystroke."""
    pacer = measured(0.025)
    assert 1 <= burst(pacer, 0.025) <= 3  # every 4 pauses of 50 ms (the shortest) while the typing goes on
    assert pacer.start_time(ADAPTIVE) == 19 * 0.03 + 0.05


def test_a_slow_document_edited_without_pause_is_still_analysed_now_and_then() -> None:
    pacer = measured(0.3)
    t = 0.0
    pacer.edit(t)
    while not due_by(pacer, t + 0.03) and t < 3.0:  # a keystroke every 30 ms, never a 300 ms pause
        t += 0.03
        pacer.edit(t)
    # The run is due 4 delays after the first unanalysed edit, between two keystrokes.
    assert pacer.start_time(ADAPTIVE) == 4 * 0.3
    assert t < 4 * 0.3 <= t + 0.03


def test_a_burst_on_a_slow_document_is_analysed_once_after_it() -> None:
    """20 edits 30 ms apart on a document whose edits take 300 ms to analyse."""
    pacer = measured(0.3)
    assert burst(pacer, 0.3) == 0
    assert pacer.start_time(ADAPTIVE) == 19 * 0.03 + 0.3


def test_open_save_and_settings_do_not_wait_for_a_pause() -> None:
    pacer = measured(0.9)
    pacer.edit(3.0)
    pacer.request(3.2)
    assert pacer.start_time(ADAPTIVE) == 3.0  # due since the edit that is still unanalysed


def test_an_explicit_debounce_replaces_the_adaptive_delay() -> None:
    fast = measured(0.001)
    fast.edit(2.0)
    assert fast.start_time(0.15) == 2.0 + 0.15
    slow = measured(0.9)
    slow.edit(2.0)
    assert slow.start_time(0.0) == 2.0
    slow.start()
    slow.edit(2.1)
    assert slow.start_time(0.0) is None  # still coalesced behind the running analysis


def test_debounce_ms_absent_or_null_means_adaptive_and_a_number_overrides() -> None:
    assert ServerSettings().debounce_seconds is None
    fixed, problems = parse_settings({"vapLsp": {"debounceMs": 150}})
    assert (fixed.debounce_seconds, problems) == (0.15, [])
    assert parse_settings({"vapLsp": {"debounceMs": None}}, fixed)[0].debounce_seconds is None
    # A configuration without it (the user removed the setting) is adaptive again.
    assert parse_settings({"vapLsp": {"kubernetesVersion": "1.33"}}, fixed)[0].debounce_seconds is None
    kept, problems = parse_settings({"vapLsp": {"debounceMs": "150"}}, fixed)
    assert kept.debounce_seconds == 0.15
    assert problems == ["vapLsp.debounceMs: expected null (adaptive) or milliseconds from 0 to 10000"]
