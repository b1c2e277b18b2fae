"""The cyclic collector is held off across threads by counting (`vap_lsp.collector`): the
engine holds it while it builds a model and the server from an analysis until its publication."""

from __future__ import annotations

import gc
import threading

from vap_lsp import collector


def test_holds_are_counted_and_the_last_release_restores_the_collector() -> None:
    assert gc.isenabled()
    collector.hold()
    other = threading.Thread(target=collector.hold)  # a second holder
    other.start()
    other.join()
    assert not gc.isenabled()
    collector.release()
    assert not gc.isenabled()  # the other thread still holds it
    collector.release()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collector.held():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
