"""`core.jit.njit`: one compilation per argument type, whatever literals the callers pass."""

import os
import subprocess
import sys

import numpy as np
import pytest

from card_envs.core.jit import TypeDispatcher, boundary, njit

pytestmark = pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="compilation is what is tested"
)


@njit
def _put(row, at, value, flag):
    row[at] = value if flag else -value


@njit
def _callers(row):
    _put(row, 0, 5, True)
    _put(row, 1, 7, False)
    _put(row, np.int64(2), row[0], row[0] > 0)


def test_calls_with_other_literals_share_one_compilation():
    row = np.zeros(3, dtype=np.int64)
    _callers(row)
    assert row.tolist() == [5, -7, 5]
    assert isinstance(_put, TypeDispatcher)
    assert len(_put.signatures) == 1, _put.signatures


def test_the_decorator_takes_numbas_options():
    @njit(inline="always")
    def twice(x):
        return 2 * x

    @njit(cache=False, boundscheck=False)
    def use(x):
        return twice(x) + 1

    assert use(4) == 9
    assert isinstance(use, TypeDispatcher)


BOUNDARY_MODULE = """
import numpy as np
from card_envs.core.jit import boundary, njit


@boundary("(int64[::1], int64)")
def add_to(a, x):
    total = 0
    for i in range(a.shape[0]):
        a[i] += x
        total += a[i]
    return total


@njit(cache=True)
def caller(a):
    return add_to(a, 2) * 100 + add_to(a, np.int32(3))
"""

RUN = """
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
import kernels
a = np.arange(3, dtype=np.int64)
print(kernels.caller(a), a.tolist(), kernels.caller.stats.cache_hits.total() > 0)
(sig,) = kernels.caller.signatures
llvm = kernels.caller.inspect_llvm(sig)
print("declare" in llvm and "card_envs.boundary.kernels.add_to." in llvm)
"""


def test_a_boundary_kernel_is_called_not_copied_and_cached_callers_find_it(tmp_path):
    """The caller declares the boundary's symbol instead of linking its code, and a second
    process loads the caller from numba's cache and runs it (the symbol is found again)."""
    (tmp_path / "kernels.py").write_text(BOUNDARY_MODULE)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.run(
            [sys.executable, "-c", RUN, str(tmp_path)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split("\n")
        for _ in range(2)
    ]
    # a = [0, 1, 2] -> +2: [2, 3, 4] sums to 9 -> +3: [5, 6, 7] sums to 18
    assert runs[0][0] == "918 [5, 6, 7] False"
    assert runs[1][0] == "918 [5, 6, 7] True"
    assert runs[0][1] == "True"


def test_a_boundary_kernel_takes_its_declared_types_only():
    from numba.core.errors import TypingError

    @njit
    def misuse(a):
        return _boundary_add(a, 1)

    with pytest.raises(TypingError):
        misuse(np.zeros(2, dtype=np.float64))


@boundary("(int64[::1], int64)")
def _boundary_add(a, x):
    return a[0] + x


def test_a_cold_compile_is_announced_once_and_a_cached_load_not_at_all(tmp_path):
    code = (
        "import card_envs\n"
        "for _ in range(2):\n"
        "    env = card_envs.make('no_thanks_v0')\n"
        "    env.reset(seed=0)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    said = [
        subprocess.run(
            [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
        ).stderr
        for _ in range(2)
    ]
    assert said[0].count("card_envs: compiling the no_thanks kernels") == 1, said[0]
    assert "compiling" not in said[1], said[1]
