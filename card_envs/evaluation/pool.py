"""Many chunks played at once: in this process, or in a pool of worker processes after the
kernels they call were compiled once (`warm_up`), with a progress bar counting their games.

Runs on all cores by default (`workers=None`: one process per core, forked on Linux,
spawned elsewhere); `workers=1` plays in this process. Workers only decide who plays a
chunk, not what it plays (see `arena`), so the same chunks give the same games with 1, 2 or
64 workers.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, TextIO

import numpy as np

from card_envs.core.threads import affinity_cores
from card_envs.evaluation.arena import Chunk, GameBatch, agent_label, play_chunk
from card_envs.registry import kernel_groups


def check_workers(workers: Any) -> int:
    if workers is None:
        return affinity_cores()
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive int or None (all cores), got {workers!r}")
    return int(workers)


def init_worker() -> None:
    # Ctrl-C is the parent's to handle: it stops the pool and keeps what was finished
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # one core per worker: keep torch (PPO agents) from starting a thread per core each
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = "1"
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def mp_context():
    """The process start method of the worker pools: fork on Linux, where workers start at
    once with the compiled kernels already loaded and a script need not guard its top level
    with `if __name__ == "__main__":`; elsewhere spawn (which needs that guard in scripts)."""
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _warm_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Per distinct game, config and field, the fewest games of its first chunk that seat
    every agent it uses (unrecorded)."""
    seen: set[tuple] = set()
    out: list[Chunk] = []
    for chunk in chunks:
        key = (
            chunk.env_id,
            repr(sorted(chunk.config.items())),
            tuple(map(agent_label, chunk.agents)),
        )
        if key in seen:
            continue
        seen.add(key)
        seats = np.asarray(chunk.agent_of_seat, dtype=np.int64)
        rows: list[int] = []
        covered: set[int] = set()
        for i, row in enumerate(seats.tolist()):
            if not covered.issuperset(row):
                rows.append(i)
                covered.update(row)
        out.append(replace(chunk, agent_of_seat=seats[rows], record=False, seeds=None, starts=None))
    return out


def _kernel_groups(chunks: list[Chunk]) -> list[list[Chunk]]:
    """`chunks` split by the env ids' `kernel_groups()`, the dearest to compile first."""
    rank = {e: g for g, group in enumerate(kernel_groups()) for e in group}
    groups: dict[int, list[Chunk]] = {}
    for chunk in chunks:
        groups.setdefault(rank[chunk.env_id], []).append(chunk)
    return [groups[k] for k in sorted(groups)]


def _play_all(chunks: list[Chunk]) -> None:
    for chunk in chunks:
        play_chunk(chunk)


def warm_up(chunks: Sequence[Chunk], workers: int = 1) -> None:
    """Compile, in this process, every kernel the chunks will call, by playing (and
    discarding) the `_warm_chunks`.

    Worker processes then start with the kernels compiled (forked) or find them in numba's
    cache (spawned, Ray), instead of each compiling the same kernels. (The crash once
    blamed on those parallel compiles was numba's cache of the generic loops, see
    `core.batched`.) With `workers` > 1 and games of more than one `kernel_groups()` group,
    those groups are first compiled into the cache by that many processes at once: a cold
    compile of the main tournament's agents takes about 4 minutes in one process.
    """
    warm = _warm_chunks(chunks)
    groups = _kernel_groups(warm)
    if workers > 1 and len(groups) > 1:
        with mp_context().Pool(min(workers, len(groups)), init_worker) as pool:
            list(pool.imap_unordered(_play_all, groups))
    _play_all(warm)  # from the cache now


def run_chunks(
    chunks: Sequence[Chunk], workers: int | None = None
) -> Iterator[tuple[int, GameBatch]]:
    """Play `chunks`, yielding (index, batch) as they finish (in-process when workers=1 or
    there is a single chunk; else in a pool of processes, after `warm_up`)."""
    workers = min(check_workers(workers), len(chunks))
    if multiprocessing.current_process().daemon:  # a daemon process may not have children
        workers = 1
    if workers <= 1:
        for i, chunk in enumerate(chunks):
            yield i, play_chunk(chunk)
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    warm_up(chunks, workers)

    with ProcessPoolExecutor(workers, mp_context=mp_context(), initializer=init_worker) as pool:
        futures = {pool.submit(play_chunk, chunk): i for i, chunk in enumerate(chunks)}
        try:
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in sorted(finished, key=futures.__getitem__):
                    yield futures[fut], fut.result()
        finally:
            for fut in futures:
                fut.cancel()


def show_progress(setting: bool | None, stream: TextIO) -> bool:
    """Whether to draw a progress bar on `stream`: as `setting` says, or (None: auto) only
    when the stream is a terminal, so that logs and pipes get no carriage-return frames."""
    if setting is None:
        return stream.isatty()
    return setting


def progress_bar(total: int | None, desc: str, setting: bool | None, unit: str = "game"):
    """A tqdm bar on stderr counting games (or `unit`s), shown as `show_progress` decides
    (without tqdm's monitor thread, so that worker processes are never forked from a process
    with a second thread of ours)."""
    from tqdm import tqdm

    class _Bar(tqdm):
        monitor_interval = 0

    shown = show_progress(setting, sys.stderr)
    return _Bar(total=total, desc=desc, unit=unit, disable=not shown, file=sys.stderr)
