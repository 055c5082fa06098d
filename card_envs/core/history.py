"""Information-state observations: the `history=K` option of every game.

With `history=K > 0` the row keeps the table's last K public actions and every observation
ends with them, so a policy without memory of its own still sees what was played (in No
Thanks with hidden tokens, who paid for which card). Only public facts are kept: the game's
`public_action(row, action)` kernel maps an action, in the position before it is played,
to a public code in 0..codes-1 (a draw whose card is hidden is "draw", not the card), or -1
for an action that tells the other seats nothing.

The region sits after the game's own slots, at the index in `layout.HISTORY` (0: off):

    [base]      K
    [base + 1]  public actions recorded in this episode (the ring's write position)
    [base + 2]  the width of an entry's seat one-hot: the game's largest table
    [base + 3]  the number of public codes
    [base + 4]  K entries of (actor seat, public code), a ring

Observation slice (appended after the game's own, `K * (max_players + codes)` slots):
entry j = 0..K-1 is the j-th most recent public action (most recent first, so a policy
trained with a smaller K reads a prefix); each entry is the actor's seat relative to the
observer as a one-hot over `max_players` slots (0 = the observer), then the public code
one-hot over `codes` slots. Entries not yet played are zero.
"""

from __future__ import annotations

import numpy as np

from card_envs.core import layout
from card_envs.core.config import Option
from card_envs.core.jit import njit

MAX_HISTORY = 1024  # a bound that keeps rows and observations of a sane size
HEAD = 4  # K, count, seats, codes
ENTRY = 2  # actor, code

OPTION = Option(
    0,
    "the last K public actions in the observation, each as the actor's relative seat and "
    "the game's public action code (0: off)",
    low=0,
    high=MAX_HISTORY,
)


def row_slots(k: int) -> int:
    """Row slots of the history region for `history=k`."""
    return HEAD + ENTRY * k if k else 0


def obs_slots(k: int, max_players: int, codes: int) -> int:
    """Observation slots of the history slice for `history=k`."""
    return k * (max_players + codes)


def setup(row: np.ndarray, base: int, k: int, max_players: int, codes: int) -> None:
    """Write the history config into a row whose game occupies `row[:base]`."""
    row[layout.HISTORY] = base if k else 0
    if k:
        row[base : base + HEAD] = k, 0, max_players, codes


@njit(cache=True)
def clear(row):
    """Forget the public actions (a new game); a no-op without history."""
    base = row[layout.HISTORY]
    if base:
        row[base + 1] = 0


@njit(cache=True)
def record(row, code):
    """Keep the public action `code` of the seat to act (before the step), unless -1."""
    base = row[layout.HISTORY]
    if base == 0 or code < 0:
        return
    count = row[base + 1]
    slot = base + HEAD + ENTRY * (count % row[base])
    row[slot] = row[layout.PLAYER]
    row[slot + 1] = code
    row[base + 1] = count + 1


@njit(cache=True)
def write(row, seat, out):
    """Write the history slice at the end of `out` for `seat` (after the game's observe,
    which zeroes `out` first); a no-op without history."""
    base = row[layout.HISTORY]
    if base == 0:
        return
    k = row[base]
    count = row[base + 1]
    n = row[layout.NUM_PLAYERS]
    max_players = row[base + 2]
    width = max_players + row[base + 3]
    start = out.shape[0] - k * width
    out[start:] = 0.0
    for j in range(min(k, count)):
        slot = base + HEAD + ENTRY * ((count - 1 - j) % k)
        entry = start + j * width
        out[entry + (row[slot] - seat) % n] = 1.0
        out[entry + max_players + row[slot + 1]] = 1.0


def entries(row: np.ndarray) -> list[list[int]]:
    """The kept public actions as [seat, code] pairs, oldest first (for `state_dict`)."""
    base = int(row[layout.HISTORY])
    if not base:
        return []
    k, count = int(row[base]), int(row[base + 1])
    slots = [base + HEAD + ENTRY * (i % k) for i in range(max(0, count - k), count)]
    return [[int(row[s]), int(row[s + 1])] for s in slots]


def load(row: np.ndarray, pairs: list[list[int]]) -> None:
    """Put [seat, code] pairs, oldest first and at most K, into the row's ring."""
    base = int(row[layout.HISTORY])
    for i, (seat, code) in enumerate(pairs):
        row[base + HEAD + ENTRY * i] = seat
        row[base + HEAD + ENTRY * i + 1] = code
    row[base + 1] = len(pairs)
