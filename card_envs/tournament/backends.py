"""Where chunks are played: local processes, or Ray tasks on a Ray cluster.

Both yield (index, GameBatch) as chunks finish; a chunk's games depend only on the chunk
(its seeds are part of it), so both give the same games for the same schedule.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from card_envs.evaluation.arena import Chunk, GameBatch, play_chunk
from card_envs.evaluation.pool import check_workers, run_chunks, warm_up


def run_local(chunks: Sequence[Chunk], workers: int | None) -> Iterator[tuple[int, GameBatch]]:
    """Processes on this machine (`workers`, default all cores; 1 = this process)."""
    return run_chunks(chunks, workers)


def run_ray(
    chunks: Sequence[Chunk], address: str | None = None, num_cpus: int | None = None
) -> Iterator[tuple[int, GameBatch]]:
    """Each chunk a Ray task (one CPU each). With `address`, join that cluster (its nodes
    need this package installed, the same version); without, start a local Ray with
    `num_cpus` CPUs (default: all). A Ray already initialised in this process is used as
    it is."""
    try:
        import ray
    except ImportError as err:
        raise ImportError("the ray backend needs Ray: pip install 'card_envs[ray]'") from err
    # workers on this machine then load the kernels from numba's cache; the warm-up forks,
    # so in parallel only before Ray has started its threads in this process
    warm_up(chunks, 1 if ray.is_initialized() else check_workers(num_cpus))
    started = False
    if not ray.is_initialized():
        kwargs = {"address": address} if address else {"num_cpus": num_cpus}
        ray.init(
            **kwargs,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=2)(play_chunk)
        refs = {task.remote(chunk): i for i, chunk in enumerate(chunks)}
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield refs[ref], ray.get(ref)
    finally:
        if started:
            ray.shutdown()
