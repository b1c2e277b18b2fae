"""When to analyse a document: the diagnostics scheduling policy, without asyncio or a real clock.

A fixed debounce makes every user wait for it, although most documents analyse in a few
milliseconds. Instead, per document:

- fast (its analyses after an edit take at most `Pacing.fast_seconds`, the median of the last
  three, or none was measured yet): analyse at once;
- an analysis is running: never a second one beside it; further edits and requests are
  coalesced into one follow-up run, on the newest text, when it ends;
- slow: wait until the edits pause for as long as an analysis takes (at least
  `min_pause_seconds`, longer than the gap between keystrokes of fast typing; at most
  `max_delay_seconds`), so a large document is not analysed on every keystroke of a burst; while
  edits keep coming, it is still analysed every `max_wait_factor` delays;
- an explicit `debounceMs` setting replaces all of that with a fixed delay after the last edit
  (running analyses are still coalesced);
- opening, saving, settings and added extras ask for a run as soon as none is running;
- a change of what the document read from other files (`depend`) is paced like an edit.

`Pacer` is the state of one document; `server.diagnostics` drives it with the event loop's
timers and measures the analyses. Times are seconds of any monotonic clock.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class Pacing:
    # An analysis this fast (after an edit) needs no delay: with the transport it ends well before
    # the next keystroke of fast typing (~30 ms apart; the 1,000-line bench file takes 4-13 ms).
    fast_seconds: float = 0.02
    # A slower document waits for at least this pause: longer than the gap between keystrokes of
    # fast typing, so that a burst is not analysed keystroke by keystroke (a 10,000-line file
    # takes 20-90 ms), shorter than a pause a user notices.
    min_pause_seconds: float = 0.05
    # The longest wait for a pause in the edits of a slow document.
    max_delay_seconds: float = 1.0
    # While edits never pause, a slow document is still analysed this many delays after its
    # first unanalysed edit.
    max_wait_factor: float = 4.0

    def delay(self, duration: float | None) -> float:
        """The pause in the edits to wait for, given the last measured analysis time."""
        if duration is None or duration <= self.fast_seconds:
            return 0.0
        return min(max(duration, self.min_pause_seconds), self.max_delay_seconds)


class Pacer:
    """The scheduling state of one open document."""

    def __init__(self, pacing: Pacing | None = None) -> None:
        self.pacing = pacing or Pacing()
        self.running = False
        # The current text is neither analysed nor being analysed.
        self.wanted = False
        # Opening, saving, settings, extras: no waiting for a pause.
        self.urgent = False
        # An edit since the last run started: the next run measures the cost of an edit.
        self.edited = False
        self.last_edit = 0.0
        self.wanted_since = 0.0
        # How long the last analyses after an edit took (the newest last).
        self.durations: deque[float] = deque(maxlen=3)

    @property
    def duration(self) -> float | None:
        """The document's analysis time: the median of the last three measured (the lower of
        two), so one run slowed by a busy machine does not make a fast document wait."""
        if not self.durations:
            return None
        return sorted(self.durations)[(len(self.durations) - 1) // 2]

    def edit(self, now: float) -> None:
        if not self.wanted:
            self.wanted_since = now
        self.wanted = True
        self.edited = True
        self.last_edit = now

    def depend(self, now: float) -> None:
        """What the document read from other files changed: a run paced like an edit's (a slow
        document waits for the pause), that measures nothing (the text did not change)."""
        if not self.wanted:
            self.wanted_since = now
        self.wanted = True
        self.last_edit = max(self.last_edit, now)

    def request(self, now: float) -> None:
        if not self.wanted:
            self.wanted_since = now
        self.wanted = True
        self.urgent = True

    def start_time(self, debounce: float | None) -> float | None:
        """When the next run should start (a time in the past: at once); None: no run now.

        `debounce` is the explicit `debounceMs` override in seconds, None for adaptive.
        """
        if not self.wanted or self.running:
            return None  # nothing to do, or the running analysis's end will ask again
        if self.urgent:
            return self.wanted_since
        if debounce is not None:
            return self.last_edit + debounce
        delay = self.pacing.delay(self.duration)
        if delay == 0.0:
            return self.last_edit
        return min(self.last_edit + delay, self.wanted_since + self.pacing.max_wait_factor * delay)

    def start(self) -> bool:
        """A run starts on the current text; returns whether it follows an edit (and so measures
        what an edit costs: opening analyses everything, a save nothing new)."""
        measured = self.edited
        self.running = True
        self.wanted = self.urgent = self.edited = False
        return measured

    def finish(self, duration: float | None) -> None:
        """The run ended; `duration` is its measured analysis time if it followed an edit."""
        self.running = False
        if duration is not None:
            self.durations.append(duration)
