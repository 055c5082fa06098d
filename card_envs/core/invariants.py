"""The conservation laws of a whole batch of rows checked in one compiled call.

Every engine supplies `check_invariants(row) -> int` (0, or the index of the broken law in its
`INVARIANT_ERRORS`). `check_all` runs it over the rows of a 2-D state array; a game binds its
kernel to it in one tiny cached wrapper in its `batched.py`, `batch_check(states)`, like
`batch_step` (the kernel as a module attribute keeps numba's cache working; `check_all`
itself is not cached but inlined there, for the reasons in `core.batched`). The soak (`python -m
card_envs.testing.soak`) calls it after every batched step.
"""

from __future__ import annotations

from card_envs.core.jit import njit


@njit(inline="always")  # not cached, inlined: see the module docstring
def check_all(states, check_fn):
    """(index of the first row that breaks a law, the law's code), or (-1, 0) when every row
    obeys them all."""
    for i in range(states.shape[0]):
        code = check_fn(states[i])
        if code != 0:
            return i, code
    return -1, 0
