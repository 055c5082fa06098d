"""`njit`: numba's decorator, compiling a kernel once per argument *type*, not per literal.

Called from compiled code, a stock numba dispatcher compiles a new specialisation for every
literal its caller passes: `_push(row, D_TURN, seat, 0, 0, 0, 0)` and `_push(row, D_PICK,
seat, P_GIVE, n, s, 0)` are two compilations, each linked (and optimised again) into every
caller. Super Zwierzaki compiled one queue helper 26 times this way. The kernels of this
project never need a literal argument (no `literally`, no tuple indexed by an argument), so
the dispatcher here types every call by the arguments' plain types: one compilation per
kernel, and constants still fold where LLVM inlines the callee.

`boundary` is for the few large kernels under many callers: compiled once, called by symbol,
and on a cold cache built by a process of its own while this one compiles the rest.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import subprocess
import sys
import threading
import traceback
import zlib
from collections.abc import Callable
from typing import Any

import llvmlite.binding as ll
import numba
from llvmlite import ir
from numba import types
from numba.core import cgutils, event, imputils, sigutils, typing
from numba.core.compiler_lock import global_compiler_lock
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


BUILDING = "CARD_ENVS_BUILDING"  # set in a builder process: the symbol it compiles
BUILD_ASIDE = "CARD_ENVS_BUILD_ASIDE"  # 1: build cold boundaries in processes of their own, 0: not


def boundary(signature: str, aside: bool = True) -> Callable[[Callable], Any]:
    """Decorator for a large kernel that many others call (Rummidrez's table solver), typed
    by `signature` alone, return type included (callers' arguments convert to it): compiled
    callers call its code through a symbol instead of linking a copy of it.

    numba links the whole code of every callee into each caller's library and optimises and
    compiles it there again, so a kernel under four entry points is compiled five times on a
    cold cache. The price of the boundary is a call LLVM cannot inline, which a kernel that
    runs for microseconds does not feel. The symbol's name is stable across processes, so
    cached callers find it again once the module is imported, as it is before they load.

    When its module is imported, the kernel is loaded from numba's cache. On a cold cache
    the symbol leads to a trampoline, and when a caller is first compiled, a builder process
    (`_Build.start_build`) compiles the kernel, and every other cold boundary of the same
    package, into the cache while this process goes on compiling the rest; the trampoline
    waits for the build the first time it is called (`settle`). Importing a game's package
    alone (a registry listing, a warm-up's parent process) starts no builder. Where no
    builder starts (`aside=False`, for a kernel only an option calls, such as the
    observation hints; or a process that may use one core) the trampoline compiles the
    kernel here at its first call: a game that never calls it never compiles it.
    """

    def wrap(func: Callable) -> Any:
        dispatcher = njit(cache=True)(func)
        if not isinstance(dispatcher, CPUDispatcher):
            return dispatcher  # NUMBA_DISABLE_JIT=1
        args, restype = sigutils.normalize_signature(signature)
        if restype is None:
            raise ValueError(f"boundary {func.__qualname__}: {signature!r} has no return type")
        dispatcher.__class__ = Boundary
        dispatcher.bind(tuple(args), restype, aside)
        return dispatcher

    return wrap


class Boundary(TypeDispatcher):
    """The dispatcher of a `boundary` kernel: one signature, called by symbol."""

    def bind(self, args: tuple, restype: Any, aside: bool = True) -> None:
        self.args, self.restype = args, restype
        sig = restype(*args)
        digest = zlib.crc32(str(sig).encode())
        func = self.py_func
        self.symbol = f"card_envs.boundary.{func.__module__}.{func.__qualname__}.{digest:08x}"
        self.lock = threading.Lock()
        self.build: _Build | None = None
        self.targetctx.insert_func_defn([(_call_symbol(self.symbol, sig), self.symbol, args)])
        building = os.environ.get(BUILDING)
        cres = self._cache.load_overload(args, self.targetctx)
        if cres is not None:
            self.add_overload(cres)
        elif building is None and func.__module__ != "__main__":
            # cold: built by a process of its own, or here at its first call
            self.build = _Build(self, aside=aside and _build_aside())
            return
        elif building not in (None, self.symbol):
            self.build = _Build(self, aside=False)  # only called in a builder, never run
            return
        else:
            self.compile(args)
        self.adopt()

    def adopt(self) -> int:
        """Points the symbol at the compiled kernel; its address."""
        cres = self.overloads[self.args]
        address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        ll.add_symbol(self.symbol, address)
        self._can_compile = False
        return address

    def settle(self) -> None:
        """Waits for the builder, loads its kernel from the cache (compiles it here if the
        builder failed or none was started) and points the symbol at it."""
        with self.lock:
            if self.build is None:
                return
            self.build.wait()
            self.compile(self.args)  # numba's cache first, where the builder left it
            self.build.point(self.adopt())
            # callers compiled before now call the trampoline for good: keep its code alive
            self.settled_build, self.build = self.build, None

    def get_call_template(self, args: tuple, kws: dict) -> Any:
        if self.build is not None:  # a caller is being compiled: it will need the kernel
            self.build.begin()
        pysig, args = self._compiler.fold_argument_types(args, kws)
        name = self.py_func.__name__
        template = typing.make_concrete_template(
            f"CallTemplate({name})", key=name, signatures=[self.restype(*self.args)]
        )
        return template, pysig, args, {}

    def get_overload(self, sig: Any) -> str:
        return self.symbol  # the key of the lowering `_call_symbol` gives

    def _compile_for_args(self, *args: Any, **kws: Any) -> Any:
        # called from Python before the build settled: the call is re-entered once it has
        self.settle()
        return self


def _build_aside() -> bool:
    """Whether a cold boundary builds in a process of its own: as `CARD_ENVS_BUILD_ASIDE`
    (1 or 0) says, else when this process may run on more than one core (on one core a
    builder only adds its own start: the kernel compiles here when first called)."""
    said = os.environ.get(BUILD_ASIDE)
    if said is not None:
        if said not in ("0", "1"):
            raise ValueError(f"{BUILD_ASIDE}={said!r}: use 1 (build aside) or 0 (here)")
        return said == "1"
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) > 1
    return (os.cpu_count() or 1) > 1


def settle(package: str = "") -> None:
    """Waits for the boundaries still being built, and compiles those no builder took
    (before threads run compiled code: the trampoline's wait needs the GIL): those of the
    modules in `package` (a game's folder, whose kernels call only its own boundaries), or
    every one."""
    for build in list(_Build.pending):
        if _in_package(build.boundary.py_func.__module__, package):
            build.boundary.settle()


def start_builds() -> None:
    """Starts a builder for every cold boundary imported so far that no process builds yet
    (where boundaries build aside): for a warm-up that compiles every game, whose builders
    then fill numba's cache with the kernels under them early, while it compiles the rest."""
    for build in list(_Build.pending):
        build.start()


def package_of(module: str) -> str:
    """The package of `module` (a game's folder), or the module itself at the top level."""
    return module.rpartition(".")[0] or module


def _in_package(module: str, package: str) -> bool:
    return not package or module == package or module.startswith(package + ".")


class _Build:
    """A boundary compiled by another process: a trampoline stands behind its symbol, whose
    first call waits for the builder (a callback into Python) and then calls the kernel
    through a pointer (`slot`)."""

    pending: set[_Build] = set()

    def __init__(self, boundary: Boundary, aside: bool = True) -> None:
        self.boundary = boundary
        self.aside = aside  # built by a builder process, once a caller is compiled (`begin`)
        self.slot = ctypes.c_void_p(0)
        self.callback = ctypes.CFUNCTYPE(None)(self.from_compiled_code)
        self.owner = os.getpid()
        self.process: subprocess.Popen | None = None
        symbol = boundary.symbol
        ll.add_symbol(f"{symbol}.slot", ctypes.addressof(self.slot))
        ll.add_symbol(f"{symbol}.wait", ctypes.cast(self.callback, ctypes.c_void_p).value)
        self.library, address = _trampoline(boundary, symbol)
        ll.add_symbol(symbol, address)
        _Build.pending.add(self)

    def begin(self) -> None:
        """Starts the builders of this boundary and of the other cold boundaries of its
        package (a caller of one soon calls the others: Super Zwierzaki's turn machine and
        its decisions) that no process has started yet."""
        package = package_of(self.boundary.py_func.__module__)
        for build in list(_Build.pending):
            if _in_package(build.boundary.py_func.__module__, package):
                build.start()

    def start(self) -> None:
        """Starts this boundary's builder, if it builds aside and none has started."""
        if self.aside and self.process is None:
            self.owner = os.getpid()
            self.process = self.start_build()

    def start_build(self) -> subprocess.Popen:
        """A process at low priority that imports the kernel's module with `BUILDING` set,
        so that it compiles this boundary into numba's cache (and no other)."""
        module = self.boundary.py_func.__module__
        code = (  # low priority: the first process's own compiling comes first
            f"import importlib, os; getattr(os, 'nice', int)(10); "
            f"importlib.import_module({module!r})"
        )
        path = os.pathsep.join(p for p in sys.path if p)
        env = {**os.environ, BUILDING: self.boundary.symbol, "PYTHONPATH": path}
        return subprocess.Popen(
            [sys.executable, "-c", code],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def wait(self) -> None:
        """Until the builder has exited (its pipe closes: a forked process sees it too)."""
        if self.process is None:
            return
        self.process.stdout.read()
        if os.getpid() == self.owner:
            self.process.wait()

    def point(self, address: int) -> None:
        self.slot.value = address
        _Build.pending.discard(self)

    def from_compiled_code(self) -> None:
        try:
            self.boundary.settle()
        except BaseException:  # nothing can be raised through compiled code: say it, stop
            traceback.print_exc()
            os._exit(70)

    def stop(self) -> None:
        if self.process is not None and os.getpid() == self.owner:
            self.process.kill()


@atexit.register
def _stop_builders() -> None:
    for build in list(_Build.pending):
        build.stop()


def _trampoline(boundary: Boundary, symbol: str) -> tuple[Any, int]:
    """A function with the kernel's calling convention that calls the kernel through the
    build's slot, first calling the build's wait when the slot is still empty."""
    ctx = boundary.targetctx
    fnty = ctx.call_conv.get_function_type(boundary.restype, boundary.args)
    module = ir.Module(name=f"{symbol}.trampoline")
    fn = ir.Function(module, fnty, f"{symbol}.trampoline")
    slot = ir.GlobalVariable(module, fnty.as_pointer(), f"{symbol}.slot")
    wait = ir.Function(module, ir.FunctionType(ir.VoidType(), []), f"{symbol}.wait")
    entry, waiting, calling = (fn.append_basic_block(n) for n in ("entry", "wait", "call"))
    builder = ir.IRBuilder(entry)
    empty = builder.icmp_unsigned("==", builder.load(slot), ir.Constant(fnty.as_pointer(), None))
    builder.cbranch(empty, waiting, calling)
    builder.position_at_end(waiting)
    builder.call(wait, [])
    builder.branch(calling)
    builder.position_at_end(calling)
    builder.ret(builder.call(builder.load(slot), fn.args))
    with global_compiler_lock:
        library = ctx.codegen().create_library(module.name)
        library.add_ir_module(module)
        library.finalize()
        return library, library.get_pointer_to_function(fn.name)


def _call_symbol(symbol: str, sig: Any) -> Callable:
    """numba's lowering of a call to a compiled function (`imputils.user_function`), calling
    `symbol` and linking no library."""

    def call(context, builder, _, args):
        fnty = context.call_conv.get_function_type(sig.return_type, sig.args)
        fn = cgutils.get_or_insert_function(builder.module, fnty, symbol)
        status, result = context.call_conv.call_function(
            builder, fn, sig.return_type, sig.args, args
        )
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return imputils.impl_ret_new_ref(context, builder, sig.return_type, result)

    call.signature = sig.args
    call.libs = ()
    return call


class _Announce(event.Listener):
    """Says once per game package, on stderr, that its kernels are being compiled: on a cold
    numba cache that takes seconds (a kernel loaded from the cache fires no compile event)."""

    def __init__(self) -> None:
        self.said: set[str] = set()

    def on_start(self, ev: event.Event) -> None:
        parts = ev.data["dispatcher"].py_func.__module__.split(".")
        if BUILDING in os.environ:
            return
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
