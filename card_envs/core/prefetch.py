"""Memory prefetch hints for the batched loop.

The rows of a batched env lie a whole state apart in memory (48 KB for Super Zwierzaki), so
the hardware prefetcher cannot guess which of a row's lines its next step reads, and each one
is a stall on main memory. A game's `hint(row, near)` kernel names those lines ahead of time:
`step_all` calls it `HINT_FAR` rows ahead with `near=False` (fixed places, such as the header)
and `HINT_NEAR` rows ahead with `near=True` (places found through values the first call
brought in: the hand of the seat to act, the top of a pile), so the misses overlap with the
work on the rows between. (Distances measured on Super Zwierzaki: 4/2 beat 2/1 by 3%, 6/3
did no better.)
A hint never changes a row and never faults: it is advice to the CPU, not a read.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from card_envs.core.jit import njit

LINE_SLOTS = 8  # int64 slots in a 64-byte cache line
HINT_FAR, HINT_NEAR = 4, 2


@intrinsic
def prefetch(typingctx, array, index):
    """Hint that `array[index]` (a 1-D array) will be read and written soon (LLVM's
    `llvm.prefetch` for a write, kept in every cache level: a step writes what it reads)."""
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]])
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn_type = ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32])
        # the unmangled name: LLVM renames it to its pointer type's overload, on every version
        fn = cgutils.get_or_insert_function(builder.module, fn_type, "llvm.prefetch")
        write, keep, data = ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)
        builder.call(fn, [builder.bitcast(pointer, byte_pointer), write, keep, data])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True)
def prefetch_slots(row, start, stop):
    """Hint every cache line of row[start:stop]."""
    for i in range(start, stop, LINE_SLOTS):
        prefetch(row, i)
    prefetch(row, stop - 1)


@njit(cache=True)
def no_hint(row, near):
    """The hint of a game whose rows are small enough for the hardware prefetcher."""
