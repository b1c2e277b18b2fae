"""The Dask engine of `vap-lsp impact` (`vap-lsp[scale]`): the same batches, admitted on the
workers of a Dask cluster — a local one started for the run (`--jobs N` worker processes) or an
existing one (`--scheduler tcp://HOST:PORT`, `DASK_SCHEDULER_ADDRESS`).

- The policy sets go to the workers once (`Client.scatter(..., broadcast=True)`) and each worker
  prepares them once (`evaluate.prepared_for`).
- Snapshots and live clusters are streamed by this process in batches (a List is one document:
  it cannot be split without reading it), a few batches per worker thread in flight.
- Audit logs are read by the workers, in blocks of lines (a gzip file is one block). Each
  object's history must be replayed in order, so the writes are shuffled by object
  (group/resource/namespace/name) with Dask's peer-to-peer shuffle (on disk: memory stays flat)
  and each partition is sorted by object, `stageTimestamp`, then the place in the log before
  it is replayed. What the blocks only count (reads, dry-runs, failures, invalid lines) travels
  in the shuffle as one row per block.
- Results are summed by a tree of merges computed with the replays (each partial result is
  released once summed); `Impact.add` does not depend on the order, so the report equals a run
  in one process.

Imported only when Dask is installed (`driver.dask_available()`); everything here runs the same
code as the in-process run (`sources.classify`, `sources.Replayer`, `evaluate.evaluate`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import dask
import dask.dataframe as dd
import pandas as pd
from dask import delayed
from distributed import Client, LocalCluster, as_completed, get_worker

from vap_lsp import __version__
from vap_lsp.impact.driver import EngineError
from vap_lsp.impact.evaluate import BATCH, ImpactSetup, WorkItem, batches, evaluate, new_impact, prepared_for
from vap_lsp.impact.inputs import SnapshotError
from vap_lsp.impact.locations import Location, LocationError
from vap_lsp.impact.report import Impact, merge
from vap_lsp.impact.sources import AuditStats, Replayer, Shard, classify, event_time, events_of_line

BLOCK_BYTES = 8 * 1024 * 1024
"""Audit-log bytes per block read by one task (and rows per shuffle partition, roughly)."""
IN_FLIGHT_PER_THREAD = 3
SPLIT_EVERY = 8
WORKER_CONFIG = {"distributed.p2p.comm.buffer": "128 MiB", "distributed.p2p.storage.buffer": "64 MiB"}
"""Buffers of the peer-to-peer shuffle on the workers of a local cluster (Dask's defaults, 1 GiB
and 100 MiB, let a worker's memory grow with the log): the shuffle waits on disk instead."""
CONNECT_TIMEOUT = "20s"
_STATS = "\x00stats"
"""Key of the one row per block that carries what the block counted (sorts before objects)."""
_COLUMNS = ("key", "ts", "file", "block", "line", "text")


@dataclass
class Cluster:
    client: Client
    description: str
    """Where the work runs: the scheduler, the workers, the dashboard."""
    threads: int


@contextmanager
def cluster(scheduler: str | None, jobs: int, say: Callable[[str], None] | None = None) -> Iterator[Cluster]:
    """A client of the cluster at `scheduler`, else of a local cluster of `jobs`
    single-threaded worker processes, closed afterwards; where it runs is said once. Raises
    EngineError."""
    address = scheduler
    local: LocalCluster | None = None
    try:
        if address:
            client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        else:
            logging.getLogger("distributed").setLevel(logging.ERROR)
            with dask.config.set(WORKER_CONFIG):  # the workers start with this configuration
                local = LocalCluster(
                    n_workers=jobs,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                    silence_logs=logging.ERROR,
                )
            client = Client(local, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        if local is not None:
            local.close()
        where = address or "a local Dask cluster"
        raise EngineError(f"cannot start or reach {where}: {exc}") from exc
    try:
        try:
            versions = client.run(_worker_version)
        except Exception as exc:  # unpickling on the workers: no vap-lsp there
            raise EngineError(
                f"the workers of {client.scheduler.address} cannot run vap-lsp "
                f"({type(exc).__name__}: {exc}): install vap-lsp[scale] on the workers"
            ) from exc
        if not versions:
            raise EngineError(f"the Dask cluster at {client.scheduler.address} has no workers")
        wrong = sorted({v for v in versions.values() if v != __version__})
        if wrong:
            raise EngineError(
                f"the workers of {client.scheduler.address} run vap-lsp {', '.join(wrong)}, this is "
                f"{__version__}: install the same vap-lsp[scale] on the workers"
            )
        info = client.scheduler_info(n_workers=-1)
        workers = info.get("workers", {})
        threads = sum(int(w.get("nthreads", 1)) for w in workers.values()) or 1
        description = f"Dask: {client.scheduler.address}, {len(workers)} workers, {threads} threads"
        if "dashboard" in info.get("services", {}):
            description += f"; dashboard {client.dashboard_link}"
            if local is not None and importlib.util.find_spec("bokeh") is None:
                description += " (install bokeh to see it)"
        if say is not None:
            say(description)
        yield Cluster(client, description, threads)
    finally:
        client.close()
        if local is not None:
            local.close()


def _worker_version() -> str:
    return __version__


# --- streamed batches: snapshots, live clusters ---------------------------------------------------------


def _evaluate_batch(key: str, setup: ImpactSetup, batch: list[WorkItem]) -> Impact:
    return evaluate(prepared_for(key, setup), batch)


def run_stream(
    where: Cluster,
    setup: ImpactSetup,
    items: Iterable[WorkItem],
    progress: Callable[[int], None] | None = None,
) -> Impact:
    """The impact of a stream read here, batch by batch on the workers; at most a few batches
    per worker thread in flight, so memory stays flat however long the stream."""
    client = where.client
    key = uuid.uuid4().hex
    shipped = client.scatter(setup, broadcast=True, hash=False)
    total = new_impact(setup)
    done = 0
    running: Any = as_completed(loop=client.loop)
    pending = 0

    def collect() -> None:
        nonlocal done, pending
        future = next(running)
        result: Impact = future.result()
        total.add(result)
        pending -= 1
        done += result.requests
        if progress is not None:
            progress(done)

    for batch in batches(items, BATCH):
        running.add(client.submit(_evaluate_batch, key, shipped, batch, pure=False))
        pending += 1
        while pending >= IN_FLIGHT_PER_THREAD * where.threads:
            collect()
    while pending:
        collect()
    return total


# --- audit logs: read by the workers, shuffled by object ----------------------------------------------


@dataclass(frozen=True)
class Block:
    """Lines of one audit log: from the first line starting after `offset` to the line that
    holds byte `offset + length` (fsspec's `read_block`); a gzip file is one block."""

    file: int
    url: str
    index: int
    offset: int
    length: int | None
    """None: the whole file (gzip)."""


def plan_blocks(files: list[Location]) -> list[Block]:
    blocks: list[Block] = []
    for i, loc in enumerate(files):
        try:
            gz = loc.gzipped()
        except LocationError as exc:
            raise SnapshotError(str(exc)) from exc
        size = loc.size()
        if gz or size < 0:
            blocks.append(Block(i, loc.url, 0, 0, None))
            continue
        for n, offset in enumerate(range(0, max(size, 1), BLOCK_BYTES)):
            blocks.append(Block(i, loc.url, n, offset, BLOCK_BYTES))
    return blocks


def _lines(block: Block) -> Iterator[bytes]:
    loc = Location(block.url)
    if block.length is None:
        with loc.open_binary() as stream:
            yield from stream
        return
    from fsspec.utils import read_block

    with loc.open_raw() as raw:
        data = read_block(raw, block.offset, block.length, delimiter=b"\n")
    yield from data.splitlines()


def _frame(rows: dict[str, list[Any]]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "key": pd.Series(rows["key"], dtype=object),
            "ts": pd.Series(rows["ts"], dtype="int64"),
            "file": pd.Series(rows["file"], dtype="int64"),
            "block": pd.Series(rows["block"], dtype="int64"),
            "line": pd.Series(rows["line"], dtype="int64"),
            "text": pd.Series(rows["text"], dtype=object),
        }
    )


def parse_block(block: Block, shard: Shard) -> pd.DataFrame:
    """The writes of one block to replay (object key, stageTimestamp, place, the event as JSON)
    and one row with what the block only counted."""
    stats = AuditStats({})
    rows: dict[str, list[Any]] = {c: [] for c in _COLUMNS}

    def put(key: str, ts: int, line: int, text: str) -> None:
        for column, value in zip(_COLUMNS, (key, ts, block.file, block.index, line, text), strict=True):
            rows[column].append(value)

    for n, raw in enumerate(_lines(block)):
        for event, whole_line in events_of_line(raw, stats, count_invalid=shard.index == 1):
            key = classify(event, stats, shard)
            if key is not None:
                text = raw.strip().decode("utf-8", "replace") if whole_line else json.dumps(event)
                put(key, event_time(event), n, text)
    put(f"{_STATS}/{block.file}/{block.index}", -1, -1, json.dumps(stats.counts))
    return _frame(rows)


def replay_partition(key: str, setup: ImpactSetup, part: pd.DataFrame) -> Impact:
    """One shuffle partition: every event of its objects, replayed object by object in the order
    of each one's history, admitted; with the counts its blocks carried. Its number of
    requests is told to the client (a worker event on the run's topic: the progress line)."""
    stats = AuditStats({})
    replayer = Replayer(stats)
    ordered = part.sort_values(["key", "ts", "file", "block", "line"], kind="stable")

    def items() -> Iterator[WorkItem]:
        current = None
        for obj, text in zip(ordered["key"], ordered["text"], strict=True):
            if obj.startswith(_STATS):
                for name, n in json.loads(text).items():
                    stats.add(name, n)
                continue
            if obj != current:
                replayer.state.clear()  # sorted by object: no other object's state is needed
                current = obj
            item = replayer.replay(obj, json.loads(text))
            if item is not None:
                yield item

    result = evaluate(prepared_for(key, setup), items())
    result.audit = dict(stats.counts)
    with contextlib.suppress(ValueError):  # ValueError: not on a worker
        get_worker().log_event(_topic(key), result.requests)
    return result


def _topic(key: str) -> str:
    return f"vap-lsp-impact-{key}"


def _tree(results: list[Any], split: int = SPLIT_EVERY) -> Any:
    """The sum of `results` as a tree of merges (`split` at a time): each partial result is
    released as soon as it is summed, so what the workers hold stays flat in the partitions."""
    while len(results) > 1:
        results = [delayed(merge, pure=True)(results[i : i + split]) for i in range(0, len(results), split)]
    return results[0]


def run_audit(
    where: Cluster,
    setup: ImpactSetup,
    files: list[Location],
    shard: Shard,
    progress: Callable[[int], None] | None = None,
) -> Impact:
    """The replay of audit logs on the workers: blocks → shuffle by object → replay and admit
    per partition → tree reduction. Raises SnapshotError for an input that cannot be read."""
    client = where.client
    blocks = plan_blocks(files)
    if not blocks:
        return new_impact(setup)
    key = uuid.uuid4().hex
    shipped = client.scatter(setup, broadcast=True, hash=False)
    parts = [
        delayed(parse_block, pure=True)(b, shard, dask_key_name=f"vap-lsp-read-{key}-{i}")
        for i, b in enumerate(blocks)
    ]
    frames = dd.from_delayed(parts, meta=_frame({c: [] for c in _COLUMNS}), verify_meta=False)
    with dask.config.set({"dataframe.shuffle.method": "p2p", "dataframe.convert-string": False}):
        shuffled = frames.shuffle(on="key", npartitions=len(blocks))
        replays = [delayed(replay_partition)(key, shipped, p) for p in shuffled.to_delayed()]
    done = 0

    def count(event: tuple[float, Any]) -> None:
        nonlocal done
        done += int(event[1])
        if progress is not None:
            progress(done)

    if progress is not None:
        client.subscribe_topic(_topic(key), count)
    try:
        result: Impact = client.compute(_tree(replays)).result()
    except (OSError, LocationError) as exc:
        raise SnapshotError(str(exc)) from exc
    finally:
        if progress is not None:
            client.unsubscribe_topic(_topic(key))
    if progress is not None:
        progress(result.requests)  # the events may still be on their way
    return result
