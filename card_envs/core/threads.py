"""How many threads a batched env steps its rows on (`make_vec(..., num_threads=T)`).

The rows of a batched env are independent games with a PRNG each, so T threads stepping
blocks of rows give the same games as one thread stepping them all. The threads are numba's
(`parallel=True`, `prange` over the blocks, `core.batched.step_threads`): its threading
layer (OpenMP, TBB or its own workqueue) must load, or the env steps on one thread and says
so.
"""

from __future__ import annotations

import functools
import os
import warnings
from typing import Any

import numba
import numpy as np

ALL = None  # `num_threads=None`: every core this process may run on


def affinity_cores() -> int:
    """The cores this process may run on: its CPU affinity (all cores off Linux)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def usable_cores() -> int:
    """`affinity_cores()` capped by numba's pool size (`NUMBA_NUM_THREADS`, all of the
    machine's cores unless set lower)."""
    return max(1, min(affinity_cores(), numba.config.NUMBA_NUM_THREADS))


def check_threads(num_threads: Any) -> int:
    """`num_threads` as an int in 1..usable_cores() (None: all of them), or a ValueError that
    names the allowed range."""
    top = usable_cores()
    if num_threads is ALL:
        return top
    if (
        isinstance(num_threads, bool)
        or not isinstance(num_threads, (int, np.integer))
        or not 1 <= num_threads <= top
    ):
        raise ValueError(
            f"num_threads must be an int in 1..{top} (the cores this process may use) "
            f"or None (all {top}), got {num_threads!r}"
        )
    return int(num_threads)


@functools.cache
def threading_layer() -> str | None:
    """The name of numba's threading layer, loaded now; None if none can load."""
    try:
        numba.get_num_threads()  # loads the layer, or raises naming why not
    except (ValueError, ImportError, OSError):
        return None
    return numba.threading_layer()


def resolve_threads(num_threads: Any) -> int:
    """The threads a batched env will use: `check_threads`, and 1 with a warning when more
    were asked for but numba has no threading layer."""
    threads = check_threads(num_threads)
    if threads > 1 and threading_layer() is None:
        warnings.warn(
            f"num_threads={threads}: numba could not load a threading layer (OpenMP, TBB or "
            "workqueue; see `numba -s`), so the batched env steps on 1 thread",
            RuntimeWarning,
            stacklevel=3,
        )
        return 1
    return threads
