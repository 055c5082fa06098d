"""Rummidrez groups from Python: the table solver's kernels (`solver`) behind checked inputs
and readable answers.

Whether cards split into valid groups (`is_valid_table`), one such split written out group
by group (`table_partition`, decoded from the kernel's trace), the largest part of a hand
that can be laid (`largest_valid_subset`), why a group written by hand is none
(`group_error`), and card names. Plain Python, apart from the kernels it calls: the
kernels stay in `solver`, where numba caches them, and this module can change without
touching their cache.
"""

from __future__ import annotations

import numpy as np

from card_envs.games.rummidrez.solver import (
    COPIES,
    FIGURE_NAMES,
    MAX_NEUTRALS,
    NEUTRAL,
    NUM_CELLS,
    NUM_FIGURES,
    NUM_NUMBERS,
    T_NEWH,
    T_NEWV,
    T_PICKH,
    T_WIDTH,
    best_addition,
    partition_trace,
    table_valid,
)


def _check_counts(counts, name: str) -> np.ndarray:
    arr = np.asarray(counts)
    if arr.shape != (NUM_FIGURES, NUM_NUMBERS):
        raise ValueError(f"{name} must have shape (6, 9) (figure, number - 1), got {arr.shape}")
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must hold integer copy counts, got dtype {arr.dtype}")
    if arr.min() < 0 or arr.max() > COPIES:
        raise ValueError(f"{name} must hold 0..{COPIES} copies of every card")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _check_neutrals(neutrals, name: str) -> int:
    if isinstance(neutrals, (bool, np.bool_)) or not isinstance(neutrals, (int, np.integer)):
        raise ValueError(f"{name} must be an int in 0..{MAX_NEUTRALS}, got {neutrals!r}")
    if not 0 <= neutrals <= MAX_NEUTRALS:
        raise ValueError(f"{name} must be in 0..{MAX_NEUTRALS}, got {neutrals}")
    return int(neutrals)


def is_valid_table(counts, neutrals: int, neutral_at_ends: bool = False) -> bool:
    """True exactly when the cards `counts` ((6, 9): copies 0..2 of card (figure, number))
    and `neutrals` (0..4) split into valid groups, every neutral used. The empty table is
    valid."""
    arr = _check_counts(counts, "counts")
    return bool(table_valid(arr, _check_neutrals(neutrals, "neutrals"), bool(neutral_at_ends)))


def group_error(group: list[int], neutral_at_ends: bool = False) -> str | None:
    """Why the card ids `group` (in run order, 54 in a neutral's place, as `table_partition`
    writes a group) are not one group by the rules, or None when they are. `is_valid_table`
    asks whether cards split into groups; a position written by hand names its groups, and
    this says which one is wrong and why."""
    if len(group) < 3:
        return "a group has at least 3 cards"
    real = [(i, c) for i, c in enumerate(group) if c != NEUTRAL]
    if not real:
        return "a group of neutrals alone is no group"
    if not neutral_at_ends and NEUTRAL in (group[0], group[-1]):
        return "a neutral stands only between two cards of its group (neutral_at_ends=False)"
    cells = [divmod(c, NUM_NUMBERS) for _, c in real]  # (figure, number - 1)
    # a figure group runs along the numbers (cell[1]), a colour group along the figures
    for along, size in ((1, NUM_NUMBERS), (0, NUM_FIGURES)):
        fixed = {cell[1 - along] for cell in cells}
        first = {cell[along] - i for (i, _), cell in zip(real, cells, strict=True)}
        if len(fixed) == 1 and len(first) == 1 and 0 <= min(first) <= size - len(group):
            return None
    return (
        "not one figure with consecutive numbers nor one number with consecutive figures, "
        "from low to high along the run and within the grid"
    )


def _decode(trace: np.ndarray, neutrals: int, ends: bool, orient: int) -> list[list[int]]:
    """Replay a partition trace with concrete groups, place the end neutrals, and undo the
    orientation the trace was made in."""

    def klass(group) -> int:
        length, last_neutral = min(len(group[1]), 3), group[1][-1] == NEUTRAL
        if ends:
            return 3 if last_neutral else length - 1
        return 0 if length == 1 else 2 if length == 3 and not last_neutral else 1

    cores = []  # (direction, first position in its line, cards)
    rows: list[list] = [[] for _ in range(NUM_FIGURES)]  # open figure groups: [start, cards]
    for n in range(NUM_NUMBERS):
        col: list = []  # open colour groups of this column
        for f in range(NUM_FIGURES):
            cell = n * NUM_FIGURES + f
            card = f * NUM_NUMBERS + n
            kept: tuple[list, list] = ([], [])
            for d, pool in enumerate((rows[f], col)):
                pick = int(trace[cell, T_PICKH + d])
                x, x0, z2, z1, z0 = (pick >> s & 7 for s in (0, 3, 6, 9, 12))
                to_end = [z0, z1, z2, 0]
                firsts, others = [], []
                for group in sorted(pool, key=klass):
                    k = klass(group)
                    if to_end[k] > 0:
                        to_end[k] -= 1
                        cores.append((d, group[0], group[1]))
                    else:
                        (firsts if k == 0 else others).append(group)
                for i, group in enumerate(firsts):
                    group[1].append(card if i < x0 else NEUTRAL)
                for i, group in enumerate(others):
                    group[1].append(card if i < x else NEUTRAL)
                kept[d].extend(firsts + others)
            kept[0].extend([n, [card]] for _ in range(int(trace[cell, T_NEWH])))
            kept[1].extend([f, [card]] for _ in range(int(trace[cell, T_NEWV])))
            rows[f], col = kept
            if n == NUM_NUMBERS - 1:
                cores.extend((0, start, cards) for start, cards in rows[f])
        cores.extend((1, start, cards) for start, cards in col)
    spare = neutrals - sum(cards.count(NEUTRAL) for _, _, cards in cores)
    groups = []
    for d, start, cards in cores:  # end neutrals: the needed ones first
        room = [start, (NUM_NUMBERS if d == 0 else NUM_FIGURES) - start - len(cards)]
        at = [0, 0]
        for _ in range(max(0, 3 - len(cards))):
            side = 1 if room[1] > at[1] else 0
            at[side] += 1
            spare -= 1
        groups.append((at, room, cards))
    for at, room, _ in groups:  # then whatever is left, wherever there is room
        for side in (1, 0):
            extra = min(spare, room[side] - at[side])
            at[side] += extra
            spare -= extra
    assert spare == 0, "the trace does not fit its neutrals"
    out = []
    for (d, _, _), (at, _, cards) in zip(cores, groups, strict=True):
        group = [NEUTRAL] * at[0] + cards + [NEUTRAL] * at[1]
        if orient:
            group = [c if c == NEUTRAL else _unorient(c, orient) for c in group]
            if orient & (1 << d):
                group.reverse()
        out.append(group)
    return sorted(out, key=lambda g: (min(c for c in g if c != NEUTRAL), len(g), g))


def _unorient(card: int, orient: int) -> int:
    f, n = divmod(card, NUM_NUMBERS)
    if orient & 1:
        n = NUM_NUMBERS - 1 - n
    if orient & 2:
        f = NUM_FIGURES - 1 - f
    return f * NUM_NUMBERS + n


def table_partition(counts, neutrals: int, neutral_at_ends: bool = False):
    """One partition of a valid table into groups, or None when it is invalid.

    Each group is the list of its card ids from low to high along its run (a figure group by
    number, a colour group by figure), with 54 in a neutral's place; groups are sorted by
    their lowest real card."""
    arr = _check_counts(counts, "counts")
    k = _check_neutrals(neutrals, "neutrals")
    trace = np.zeros((NUM_CELLS, T_WIDTH), dtype=np.int64)
    orient = partition_trace(arr, k, bool(neutral_at_ends), trace)
    if orient < 0:
        return None
    return _decode(trace, k, bool(neutral_at_ends), int(orient))


def largest_valid_subset(
    hand_counts,
    hand_neutrals: int,
    table_counts=None,
    table_neutrals: int = 0,
    neutral_at_ends: bool = False,
):
    """The largest part of a hand that forms valid groups: alone (no table: the opening meld
    needs >= 7 cards), or together with every card of `table_counts` (what can be laid
    after rearranging the table).

    Returns `(counts, neutrals)` of the chosen hand cards (their number is
    `counts.sum() + neutrals`; empty when nothing fits), or None when the table itself is
    invalid. Table and hand together hold at most 2 copies of a card and 4 neutrals."""
    hand = _check_counts(hand_counts, "hand_counts")
    hn = _check_neutrals(hand_neutrals, "hand_neutrals")
    if table_counts is None:
        table = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    else:
        table = _check_counts(table_counts, "table_counts")
    tn = _check_neutrals(table_neutrals, "table_neutrals")
    if (table + hand).max() > COPIES:
        raise ValueError(f"table and hand together hold more than {COPIES} copies of a card")
    if tn + hn > MAX_NEUTRALS:
        raise ValueError(f"table and hand together hold more than {MAX_NEUTRALS} neutrals")
    out = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    size = best_addition(table, tn, hand, hn, bool(neutral_at_ends), out)
    if size < 0:
        return None
    return out, int(size - out.sum())


def card_name(card: int) -> str:
    """'Pawn 1' .. 'Joker 9', or 'Neutral' for 54."""
    if card == NEUTRAL:
        return "Neutral"
    f, n = divmod(int(card), NUM_NUMBERS)
    return f"{FIGURE_NAMES[f]} {n + 1}"


def card_names(cards: list[int]) -> str:
    """The cards' names, comma-separated, or '-' for none."""
    return ", ".join(card_name(c) for c in cards) or "-"
