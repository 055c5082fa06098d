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

import sys
import zlib
from collections.abc import Callable
from typing import Any

import llvmlite.binding as ll
import numba
from numba import types
from numba.core import cgutils, event, imputils, sigutils
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


def boundary(arg_types: str) -> Callable[[Callable], Any]:
    """Decorator for a large kernel that many others call (Rummidrez's table solver): it is
    compiled (or loaded from numba's cache) when its module is imported, for `arg_types`
    alone (callers' arguments convert to them), and compiled callers call its code through a
    symbol instead of linking a copy of it into their own library.

    numba links the whole code of every callee into each caller's library and optimises and
    compiles it there again, so a kernel under four entry points is compiled five times on a
    cold cache. The price of the boundary is a call LLVM cannot inline, which a kernel that
    runs for microseconds does not feel. The symbol's name is stable across processes, so
    cached callers find it again once the module is imported, as it is before they load.
    Being compiled where it is defined, a boundary comes after every kernel it calls.
    """

    def wrap(func: Callable) -> Any:
        dispatcher = njit(cache=True)(func)
        if not isinstance(dispatcher, CPUDispatcher):
            return dispatcher  # NUMBA_DISABLE_JIT=1
        args, _ = sigutils.normalize_signature(arg_types)
        dispatcher.compile(args)
        dispatcher.disable_compile()
        cres = dispatcher.overloads[args]
        digest = zlib.crc32(str(cres.signature).encode())
        symbol = f"card_envs.boundary.{func.__module__}.{func.__qualname__}.{digest:08x}"
        ll.add_symbol(symbol, cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name))
        call = _call_symbol(symbol, cres.fndesc)
        selector = dispatcher.targetctx._defns[cres.entry_point]
        selector.versions = [(sig, call) for sig, _ in selector.versions]
        selector._cache.clear()
        return dispatcher

    return wrap


def _call_symbol(symbol: str, fndesc: Any) -> Callable:
    """numba's lowering of a call to a compiled function (`imputils.user_function`), calling
    `symbol` and linking no library."""

    def call(context, builder, sig, args):
        fnty = context.call_conv.get_function_type(fndesc.restype, fndesc.argtypes)
        fn = cgutils.get_or_insert_function(builder.module, fnty, symbol)
        context.call_conv.decorate_function(fn, fndesc.args, fndesc.argtypes)
        status, result = context.call_conv.call_function(
            builder, fn, fndesc.restype, fndesc.argtypes, args
        )
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return imputils.impl_ret_new_ref(context, builder, fndesc.restype, result)

    call.signature = fndesc.argtypes
    call.libs = ()
    return call


class _Announce(event.Listener):
    """Says once per game package, on stderr, that its kernels are being compiled: on a cold
    numba cache that takes seconds (a kernel loaded from the cache fires no compile event)."""

    def __init__(self) -> None:
        self.said: set[str] = set()

    def on_start(self, ev: event.Event) -> None:
        parts = ev.data["dispatcher"].py_func.__module__.split(".")
        if parts[:2] != ["card_envs", "games"] or len(parts) < 3 or parts[2] in self.said:
            return
        self.said.add(parts[2])
        print(
            f"card_envs: compiling the {parts[2]} kernels into numba's cache "
            "(first use only: a few seconds to about 20)",
            file=sys.stderr,
            flush=True,
        )

    def on_end(self, ev: event.Event) -> None:
        pass


event.register("numba:compile", _Announce())
