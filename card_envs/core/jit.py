"""`njit`: numba's decorator, compiling a kernel once per argument *type*, not per literal.

Called from compiled code, a stock numba dispatcher compiles a new specialisation for every
literal its caller passes: `_push(row, D_TURN, seat, 0, 0, 0, 0)` and `_push(row, D_PICK,
seat, P_GIVE, n, s, 0)` are two compilations, each linked (and optimised again) into every
caller. Super Zwierzaki compiled one queue helper 26 times this way. The kernels of this
project never need a literal argument (no `literally`, no tuple indexed by an argument), so
the dispatcher here types every call by the arguments' plain types: one compilation per
kernel, and constants still fold where LLVM inlines the callee.
"""

from __future__ import annotations

from typing import Any

import numba
from numba import types
from numba.core.registry import CPUDispatcher


class TypeDispatcher(CPUDispatcher):
    """A CPU dispatcher that drops literal values from the argument types of a call."""

    def get_call_template(self, args: tuple, kws: dict) -> Any:
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


def _retype(dispatcher: Any) -> Any:
    # NUMBA_DISABLE_JIT=1 gives the Python function back: leave it as it is
    if isinstance(dispatcher, CPUDispatcher):
        dispatcher.__class__ = TypeDispatcher
    return dispatcher


def njit(*args: Any, **options: Any) -> Any:
    """`numba.njit` with the same arguments (`@njit`, `@njit(cache=True, ...)`), whose
    dispatcher compiles once per argument type (`TypeDispatcher`)."""
    if len(args) == 1 and callable(args[0]) and not options:
        return _retype(numba.njit(args[0]))
    decorate = numba.njit(*args, **options)
    return lambda func: _retype(decorate(func))
