"""Super Zwierzaki's decision stack and effect queue: a play's decisions are pushed and the
one on top is taken next; its effects wait in the queue (in front of it for an Oth duel's
draws) while its reaction window is open.
"""

from card_envs.core.jit import njit
from card_envs.games.super_zwierzaki.slots import (
    D_WIDTH,
    E_WIDTH,
    QUEUE,
    QUEUE_HEAD,
    QUEUE_N,
    QUEUE_START,
    STACK,
    STACK_N,
)


@njit(cache=True)
def _push(row, what, seat, a, b, c, d):
    base = STACK + row[STACK_N] * D_WIDTH
    row[base] = what
    row[base + 1] = seat
    row[base + 2] = a
    row[base + 3] = b
    row[base + 4] = c
    row[base + 5] = d
    row[STACK_N] += 1


@njit(cache=True)
def _top(row):
    """The decision on top of the stack: (what, seat, a, b, c, d)."""
    base = STACK + (row[STACK_N] - 1) * D_WIDTH
    return row[base], row[base + 1], row[base + 2], row[base + 3], row[base + 4], row[base + 5]


@njit(cache=True)
def _effect(row, code, seat, a, b, front):
    if row[QUEUE_N] == 0:
        row[QUEUE_HEAD] = QUEUE_START
    if front:
        row[QUEUE_HEAD] -= 1
        base = QUEUE + row[QUEUE_HEAD] * E_WIDTH
    else:
        base = QUEUE + (row[QUEUE_HEAD] + row[QUEUE_N]) * E_WIDTH
    row[base] = code
    row[base + 1] = seat
    row[base + 2] = a
    row[base + 3] = b
    row[QUEUE_N] += 1
