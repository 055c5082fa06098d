"""Plain-Python brute force for Rummidrez tables, the oracle of `test_rummidrez_solver.py`.

Written from the rule text (/work/shared/rules/rummidrez.txt) and the rulings only; it
imports nothing from `card_envs`, so a bug in the solver cannot hide here.

Cards: figure f (0 Pawn .. 5 Joker) and number n (1..9), id `f * 9 + n - 1`; 54 = neutral.
A table: 54 copy counts indexed by card id (or a (6, 9) array, `counts[f][n - 1]`) and a
number of neutrals.

Groups: a figure group is one figure with consecutive numbers, a colour group one number
with consecutive figures; 3 or more positions in a line of the grid (so at most 9 and 6), each
position a real card or a neutral. Without `neutral_at_ends` the two end positions must be
real cards (every neutral lies between two real cards); with it, a group needs one real card.

Method: the lowest remaining real card must lie in some group. Try every group through it:
both lines through its cell, every interval of at least 3 positions of that line holding the
cell, every choice of neutral positions (a position whose card is gone must be a neutral,
any other may be); remove the group's cards and recurse. Neutrals left over without real
cards cannot form a group. Memoised on the remaining cards within one call.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

FIGURES, NUMBERS = 6, 9
NEUTRAL = 54
MAX_NEUTRALS = 4


def card_id(figure: int, number: int) -> int:
    return figure * NUMBERS + number - 1


def flat_counts(counts) -> tuple[int, ...]:
    """54 copy counts by card id, from 54 counts or a (6, 9) array."""
    rows = [list(r) for r in counts] if len(counts) == FIGURES else None
    if rows is not None and all(len(r) == NUMBERS for r in rows):
        return tuple(int(rows[f][n]) for f in range(FIGURES) for n in range(NUMBERS))
    out = tuple(int(c) for c in counts)
    assert len(out) == FIGURES * NUMBERS
    return out


def lines_through(card: int) -> list[list[int]]:
    """The figure line (by number) and the colour line (by figure) through a card."""
    f, n = divmod(card, NUMBERS)
    return [
        [f * NUMBERS + m for m in range(NUMBERS)],
        [g * NUMBERS + n for g in range(FIGURES)],
    ]


def groups_through(card: int, cards: Sequence[int], neutrals: int, at_ends: bool) -> Iterator:
    """Every group holding a copy of `card` that `cards` (counts) and `neutrals` can form,
    as the ordered list of its card ids with NEUTRAL in the neutrals' places."""
    for line in lines_through(card):
        i = line.index(card)
        for lo in range(i + 1):
            for hi in range(max(i, lo + 2), len(line)):
                others = [j for j in range(lo, hi + 1) if j != i]
                forced = [j for j in others if cards[line[j]] == 0]
                free = [j for j in others if cards[line[j]] > 0]
                spare = neutrals - len(forced)
                for size in range(min(spare, len(free)) + 1):
                    for chosen in itertools.combinations(free, size):
                        hole = set(forced) | set(chosen)
                        if not at_ends and (lo in hole or hi in hole):
                            continue
                        yield [NEUTRAL if j in hole else line[j] for j in range(lo, hi + 1)]


def _search(cards: tuple[int, ...], neutrals: int, at_ends: bool, memo: dict):
    """A list of groups using exactly these cards and neutrals, or None."""
    key = (cards, neutrals)
    if key in memo:
        return memo[key]
    low = next((c for c in range(FIGURES * NUMBERS) if cards[c] > 0), None)
    if low is None:
        result = [] if neutrals == 0 else None
    else:
        result = None
        for group in groups_through(low, cards, neutrals, at_ends):
            rest = list(cards)
            for c in group:
                if c != NEUTRAL:
                    rest[c] -= 1
            sub = _search(tuple(rest), neutrals - group.count(NEUTRAL), at_ends, memo)
            if sub is not None:
                result = [group] + sub
                break
    memo[key] = result
    return result


def partition(counts, neutrals: int, neutral_at_ends: bool = False):
    """One split of the table into groups, or None if there is none."""
    return _search(flat_counts(counts), neutrals, neutral_at_ends, {})


def is_valid(counts, neutrals: int, neutral_at_ends: bool = False) -> bool:
    return partition(counts, neutrals, neutral_at_ends) is not None


def group_is_valid(group: Sequence[int], neutral_at_ends: bool = False) -> bool:
    """Whether an ordered list of card ids (NEUTRAL for a neutral) is a group, by the rules."""
    size = len(group)
    real = [(i, c) for i, c in enumerate(group) if c != NEUTRAL]
    if size < 3 or not real:
        return False
    if not neutral_at_ends and (group[0] == NEUTRAL or group[-1] == NEUTRAL):
        return False
    fits = False
    # figure group: one figure, numbers first + i
    figures = {c // NUMBERS for _, c in real}
    starts = {c % NUMBERS - i for i, c in real}
    if len(figures) == 1 and len(starts) == 1:
        first = starts.pop()
        fits |= 0 <= first and first + size <= NUMBERS
    # colour group: one number, figures first + i
    numbers = {c % NUMBERS for _, c in real}
    starts = {c // NUMBERS - i for i, c in real}
    if len(numbers) == 1 and len(starts) == 1:
        first = starts.pop()
        fits |= 0 <= first and first + size <= FIGURES
    return fits


def partition_matches(groups, counts, neutrals: int, neutral_at_ends: bool = False) -> bool:
    """Every group valid, and together exactly the table's cards and neutrals."""
    if not all(group_is_valid(g, neutral_at_ends) for g in groups):
        return False
    used = [0] * (FIGURES * NUMBERS)
    n_used = 0
    for g in groups:
        for c in g:
            if c == NEUTRAL:
                n_used += 1
            else:
                used[c] += 1
    return tuple(used) == flat_counts(counts) and n_used == neutrals


def largest_addition(table, table_neutrals: int, hand, hand_neutrals: int, at_ends=False):
    """Most hand cards (neutrals included) that table + those cards make valid, by trying
    every part of the hand, largest first; None if even the table alone is invalid."""
    table = flat_counts(table)
    hand = flat_counts(hand)
    cells = [c for c in range(FIGURES * NUMBERS) if hand[c] > 0]
    options = []
    for take in itertools.product(*(range(hand[c] + 1) for c in cells)):
        for k in range(hand_neutrals + 1):
            options.append((sum(take) + k, take, k))
    options.sort(key=lambda o: -o[0])
    for size, take, k in options:
        total = list(table)
        for c, t in zip(cells, take, strict=True):
            total[c] += t
        if is_valid(total, table_neutrals + k, at_ends):
            return size
    return None
