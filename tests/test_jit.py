"""`core.jit.njit`: one compilation per argument type, whatever literals the callers pass."""

import os

import numpy as np
import pytest

from card_envs.core.jit import TypeDispatcher, njit

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
