"""Session-wide test setup."""

import os
import sys
import time

import pytest
from hypothesis import HealthCheck, settings

# No property test may depend on the machine's speed: no per-example deadline and no
# "generation too slow" health check (CI runs on a busy 2-core machine).
settings.register_profile(
    "machine_independent", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("machine_independent")


@pytest.fixture(autouse=True, scope="session")
def sb3_logs_in_pytest_tmp(tmp_path_factory):
    """SB3 makes a log folder for every model it trains (in /tmp unless SB3_LOGDIR says
    otherwise): keep them in pytest's own temporary directory."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3_logs")))
    yield


def pytest_configure(config):
    """Under pytest-xdist (`-n 2`, the README's test command), compile every game's kernels
    into numba's cache once, in the controller before the workers start: otherwise each
    worker compiles them all on its own (card_envs/testing/warm.py)."""
    workers = getattr(config.option, "numprocesses", None)
    if isinstance(workers, int) and workers > 1 and not hasattr(config, "workerinput"):
        from card_envs.testing.warm import warm_caches

        start = time.perf_counter()
        warm_caches(processes=workers)
        print(f"numba caches warmed in {time.perf_counter() - start:.0f} s", file=sys.stderr)
