"""Rummidrez table solver: `is_valid_table`, `table_partition` and `largest_valid_subset`
against the plain-Python brute force (`reference`), on hand-made tables for every
rule, thousands of random tables (random valid partitions as they are, with a card removed
or added, and random multisets), full 112-card tables, and hypothesis. A "yes" is also
checked on its own: the partition returned must consist of valid groups holding exactly the
table's cards."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from card_envs.core.jit import njit
from card_envs.games.rummidrez import (
    best_addition,
    card_name,
    is_valid_table,
    largest_valid_subset,
    solver,
    table_partition,
    table_valid,
)
from card_envs.games.rummidrez.solver import table_states
from tests.games.rummidrez.reference import (
    FIGURES,
    NEUTRAL,
    NUMBERS,
    card_id,
    group_is_valid,
    largest_addition,
    partition_matches,
)
from tests.games.rummidrez.reference import is_valid as brute_valid

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, JOKER = range(6)
N = NEUTRAL


def table(*cards) -> tuple[np.ndarray, int]:
    """(counts, neutrals) of cards given as (figure, number) pairs and N for neutrals."""
    counts = np.zeros((FIGURES, NUMBERS), dtype=np.int64)
    neutrals = 0
    for c in cards:
        if c == N:
            neutrals += 1
        else:
            counts[c[0], c[1] - 1] += 1
    return counts, neutrals


def check(counts, neutrals, ends, expected=None):
    """Solver == brute force (== expected if given); a "yes" comes with a valid partition."""
    got = is_valid_table(counts, neutrals, ends)
    want = brute_valid(counts, neutrals, ends)
    assert got == want, (counts.tolist(), neutrals, ends, want)
    if expected is not None:
        assert got == expected
    groups = table_partition(counts, neutrals, ends)
    assert (groups is not None) == got
    if got:
        assert partition_matches(groups, counts, neutrals, ends), groups
    return got


# --- the rules, by hand ---------------------------------------------------------------------


@pytest.mark.parametrize("ends", [False, True])
def test_empty_and_neutrals_alone(ends):
    check(*table(), ends, True)
    for k in range(1, 5):
        check(*table(*[N] * k), ends, False)  # every group keeps a real card


@pytest.mark.parametrize("ends", [False, True])
def test_figure_and_colour_groups(ends):
    check(*table((PAWN, 1), (PAWN, 2), (PAWN, 3)), ends, True)
    check(*table((PAWN, 1), (PAWN, 2)), ends, False)
    check(*table((PAWN, 1), (PAWN, 2), (PAWN, 4)), ends, False)
    check(*table((KNIGHT, 4), (BISHOP, 4), (ROOK, 4)), ends, True)
    check(*table((QUEEN, 9), (JOKER, 9), (ROOK, 9)), ends, True)  # the Joker is a figure
    check(*table((PAWN, 1), (KNIGHT, 2), (BISHOP, 3)), ends, False)  # neither kind
    check(*table(*[(ROOK, n) for n in range(1, 10)]), ends, True)  # 9 numbers
    check(*table(*[(f, 6) for f in range(6)]), ends, True)  # 6 figures


@pytest.mark.parametrize("ends", [False, True])
def test_no_wrap_around(ends):
    check(*table((PAWN, 8), (PAWN, 9), (PAWN, 1)), ends, False)
    check(*table((QUEEN, 2), (JOKER, 2), (PAWN, 2)), ends, False)


@pytest.mark.parametrize("ends", [False, True])
def test_no_card_twice_in_a_group(ends):
    check(*table((PAWN, 1), (PAWN, 1), (PAWN, 2)), ends, False)
    check(*table((PAWN, 1), (PAWN, 1), (PAWN, 2), (PAWN, 2), (PAWN, 3), (PAWN, 3)), ends, True)
    check(*table((KNIGHT, 5), (KNIGHT, 5), (BISHOP, 5)), ends, False)


@pytest.mark.parametrize("ends", [False, True])
def test_neutrals_inside(ends):
    check(*table((PAWN, 1), N, (PAWN, 3)), ends, True)
    check(*table((PAWN, 1), N, N, (PAWN, 4)), ends, True)  # adjacent neutrals
    check(*table((BISHOP, 2), N, N, N, (BISHOP, 6)), ends, True)
    check(*table((PAWN, 3), N, (BISHOP, 3)), ends, True)  # Knight 3 by a neutral
    # a neutral standing for a card whose two copies lie in other groups
    cards = [(PAWN, 1), N, (PAWN, 3)] + [(PAWN, 2), (KNIGHT, 2), (BISHOP, 2)] * 2
    check(*table(*cards), ends, True)
    # neutrals count for the lengths: Pawn 1, N, Pawn 3 is already three cards, and the
    # nine-card limit holds with neutrals too
    cards = [(KNIGHT, n) for n in (1, 2, 3, 5, 6, 7, 8, 9)] + [N]
    check(*table(*cards), ends, True)


def test_neutrals_at_ends_only_with_the_option():
    for cards in (
        [N, (PAWN, 2), (PAWN, 3)],
        [(PAWN, 2), (PAWN, 3), N],
        [N, N, (PAWN, 3)],
        [N, (QUEEN, 5), N],
        [(KNIGHT, 7), (BISHOP, 7), N, N],
    ):
        check(*table(*cards), False, False)
        check(*table(*cards), True, True)


def test_neutrals_at_ends_stay_on_the_grid():
    # no Pawn 0, no number 10, no figure above the Joker: one side only
    for cards, group in (
        ([(PAWN, 1), (PAWN, 2), N], [card_id(PAWN, 1), card_id(PAWN, 2), N]),
        ([(KNIGHT, 8), (KNIGHT, 9), N], [N, card_id(KNIGHT, 8), card_id(KNIGHT, 9)]),
        ([(QUEEN, 5), (JOKER, 5), N], [N, card_id(QUEEN, 5), card_id(JOKER, 5)]),
        ([(JOKER, 9), N, N], [N, N, card_id(JOKER, 9)]),
    ):
        check(*table(*cards), True, True)
        assert table_partition(*table(*cards), True) == [group]
    # a full row has no room at its ends: it must be split to take a neutral
    row = [(ROOK, n) for n in range(1, 10)]
    check(*table(*row, N), True, True)
    assert len(table_partition(*table(*row, N), True)) == 2
    check(*table(*[(f, 4) for f in range(1, 6)], N, N, N, N), True, True)


@pytest.mark.parametrize("ends", [False, True])
def test_every_neutral_must_be_used(ends):
    check(*table((PAWN, 1), (PAWN, 2), (PAWN, 3), N), ends, ends)
    check(*table((PAWN, 1), (PAWN, 2), (PAWN, 3), (PAWN, 4), N), ends, ends)
    # Pawn 1, N, Pawn 3 and Pawn 2..5: the neutral stands for the other Pawn 2
    check(*table(*[(PAWN, n) for n in range(1, 6)], (PAWN, 3), N), ends, True)
    # a neutral inside joins two groups through a hole
    cards = [(PAWN, n) for n in (1, 2, 3, 5, 6, 7)] + [N]
    check(*table(*cards), ends, True)
    if not ends:
        assert len(table_partition(*table(*cards), ends)) == 1


@pytest.mark.parametrize("ends", [False, True])
def test_invalid_only_because_of_one_card(ends):
    base = [(PAWN, n) for n in range(1, 6)] + [(f, 5) for f in (1, 2, 3)]
    assert check(*table(*base), ends, True)
    check(*table(*base, (JOKER, 1)), ends, False)
    check(*table(*base, (QUEEN, 5)), ends, True)  # extends the colour group
    check(*table(*base, (PAWN, 9)), ends, False)


@pytest.mark.slow
@pytest.mark.parametrize("neutrals", range(5))
@pytest.mark.parametrize("ends", [False, True])
def test_full_deck(neutrals, ends):
    full = np.full((FIGURES, NUMBERS), 2, dtype=np.int64)
    check(full, neutrals, ends, True)
    for f, n in [(0, 0), (5, 8), (2, 4)]:
        one_less = full.copy()
        one_less[f, n] -= 1
        check(one_less, neutrals, ends)


def test_names():
    assert card_name(card_id(PAWN, 1)) == "Pawn 1"
    assert card_name(card_id(JOKER, 9)) == "Joker 9"
    assert card_name(53) == "Joker 9" and card_name(NEUTRAL) == "Neutral"


# --- random tables ----------------------------------------------------------------------------


def random_group(rng: random.Random, ends: bool, spare: int) -> list[int]:
    """A random valid group (ordered card ids, NEUTRAL for neutrals) with <= spare neutrals."""
    while True:
        if rng.random() < 0.5:
            f, size = rng.randrange(FIGURES), rng.randint(3, NUMBERS)
            lo = rng.randint(0, NUMBERS - size)
            cells = [f * NUMBERS + m for m in range(lo, lo + size)]
        else:
            n, size = rng.randrange(NUMBERS), rng.randint(3, FIGURES)
            lo = rng.randint(0, FIGURES - size)
            cells = [g * NUMBERS + n for g in range(lo, lo + size)]
        slots = list(range(size)) if ends else list(range(1, size - 1))
        k = min(rng.randint(0, spare), len(slots)) if rng.random() < 0.4 else 0
        holes = set(rng.sample(slots, k))
        group = [NEUTRAL if i in holes else c for i, c in enumerate(cells)]
        if any(c != NEUTRAL for c in group):
            assert group_is_valid(group, ends)
            return group


def random_valid(rng: random.Random, ends: bool, size: int) -> tuple[list[int], int]:
    """Counts (54) and neutrals of random valid groups summed, about `size` cards."""
    counts, neutrals = [0] * (FIGURES * NUMBERS), 0
    for _ in range(200):
        if sum(counts) + neutrals >= size:
            break
        group = random_group(rng, ends, 4 - neutrals)
        if any(counts[c] >= 2 for c in group if c != NEUTRAL):
            continue
        for c in group:
            if c == NEUTRAL:
                neutrals += 1
            else:
                counts[c] += 1
    return counts, neutrals


def tweak(rng: random.Random, counts: list[int], neutrals: int):
    """The table as it is, with one card or neutral removed, or one added."""
    counts = list(counts)
    r = rng.random()
    if r < 0.3:
        cells = [c for c in range(FIGURES * NUMBERS) if counts[c]]
        if neutrals and rng.random() < 0.2:
            neutrals -= 1
        elif cells:
            counts[rng.choice(cells)] -= 1
    elif r < 0.6:
        if neutrals < 4 and rng.random() < 0.2:
            neutrals += 1
        else:
            c = rng.randrange(FIGURES * NUMBERS)
            if counts[c] < 2:
                counts[c] += 1
    return counts, neutrals


def as_array(counts: list[int]) -> np.ndarray:
    return np.array(counts, dtype=np.int64).reshape(FIGURES, NUMBERS)


@cache
def random_tables(seed: int, count: int, lo: int, hi: int) -> tuple:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        ends = i % 2 == 1
        if i % 7 == 6:  # a random multiset, mostly invalid
            counts = [0] * (FIGURES * NUMBERS)
            for _ in range(rng.randint(lo, hi)):
                c = rng.randrange(FIGURES * NUMBERS)
                counts[c] = min(2, counts[c] + 1)
            neutrals = rng.randint(0, 4)
        else:
            counts, neutrals = tweak(rng, *random_valid(rng, ends, rng.randint(lo, hi)))
        out.append((tuple(counts), neutrals, ends))
    return tuple(out)


def test_random_tables_reach_every_case():
    """The generators exercise what they should (a check on the test itself)."""
    tables = random_tables(1, 1500, 3, 22)
    answers = [brute_valid(list(c), k, e) for c, k, e in tables]
    assert 0.3 < sum(answers) / len(answers) < 0.8
    assert {k for _, k, _ in tables} == set(range(5))
    assert sum(max(c) == 2 for c, _, _ in tables) > 300  # two copies of a card
    neutral_tables = [(c, k, e) for (c, k, e), a in zip(tables, answers, strict=True) if k and a]
    assert sum(e for _, _, e in neutral_tables) > 100 and sum(not e for *_, e in neutral_tables)


@pytest.mark.parametrize(("seed", "count", "lo", "hi"), [(1, 1500, 3, 22), (2, 200, 22, 32)])
def test_random_tables_match_brute_force(seed, count, lo, hi):
    for counts, neutrals, ends in random_tables(seed, count, lo, hi):
        check(as_array(list(counts)), neutrals, ends)


# Invalid tables that a local search (as `benchmarks.combos.rz_climb`) found hard for the
# solver: figure rows of copy counts for numbers 1..9, neutrals, neutral_at_ends. Its first
# rounds do not settle them, so they reach the rounds where it drops the states that a state
# known to fail dominates (`solver._dominated`); so do their neighbours with a card less.
HARD_TABLES = [
    ("112110000/010000000/111101111/121221011/011011111/011001000", 4, True),
    ("100001110/100110100/201010110/221111010/101011010/111111110", 4, False),
]


@pytest.mark.parametrize(("rows", "neutrals", "ends"), HARD_TABLES)
def test_tables_that_take_many_states_match_brute_force(rows, neutrals, ends):
    counts = np.array([[int(c) for c in row] for row in rows.split("/")], dtype=np.int64)
    first_rounds = 4 * (solver._DOMINANCE_FROM - solver._BUDGET)  # 4 orientations, 256 + 512
    assert table_states(counts, neutrals, ends) > first_rounds  # a check on the test itself
    check(counts, neutrals, ends, expected=False)
    rng = random.Random(rows)
    cells = [cell for cell in range(FIGURES * NUMBERS) if counts.flat[cell]]
    for cell in rng.sample(cells, 3):
        fewer = counts.copy()
        fewer.flat[cell] -= 1
        check(fewer, neutrals, ends)


@pytest.mark.parametrize("ends", [False, True])
def test_large_valid_tables_and_their_mirror_images(ends):
    """Random valid partitions of 30..112 cards are valid (no brute force needed: the
    solver's partition is checked), and every table keeps its answer when its numbers or
    figures are reversed (the rules are symmetric)."""
    rng = random.Random(7 + ends)
    for i in range(300):
        counts, neutrals = random_valid(rng, ends, rng.randint(30, 112))
        arr = as_array(counts)
        check_partition = table_partition(arr, neutrals, ends)
        assert check_partition is not None and partition_matches(
            check_partition, arr, neutrals, ends
        )
        if i % 3 == 0:
            counts, neutrals = tweak(rng, counts, neutrals)
            arr = as_array(counts)
        answer = is_valid_table(arr, neutrals, ends)
        for mirrored in (arr[:, ::-1], arr[::-1, :], arr[::-1, ::-1]):
            assert is_valid_table(np.ascontiguousarray(mirrored), neutrals, ends) == answer
        if answer and not ends:
            assert is_valid_table(arr, neutrals, True)  # end neutrals only add groups


# --- hypothesis -----------------------------------------------------------------------------


@st.composite
def tables(draw, max_cards=26):
    ends = draw(st.booleans())
    counts, neutrals = [0] * (FIGURES * NUMBERS), 0
    for _ in range(draw(st.integers(0, 6))):
        horizontal = draw(st.booleans())
        length = NUMBERS if horizontal else FIGURES
        size = draw(st.integers(3, length))
        lo = draw(st.integers(0, length - size))
        line = draw(st.integers(0, (FIGURES if horizontal else NUMBERS) - 1))
        cells = [
            line * NUMBERS + p if horizontal else p * NUMBERS + line for p in range(lo, lo + size)
        ]
        slots = list(range(size)) if ends else list(range(1, size - 1))
        holes = draw(st.sets(st.sampled_from(slots), max_size=4 - neutrals)) if slots else set()
        if len(holes) == size or sum(counts) + neutrals + size > max_cards:
            continue
        if any(counts[c] >= 2 for i, c in enumerate(cells) if i not in holes):
            continue
        for i, c in enumerate(cells):
            if i in holes:
                neutrals += 1
            else:
                counts[c] += 1
    change = draw(st.sampled_from(["none", "remove", "add", "neutral+", "neutral-"]))
    if change == "remove" and sum(counts):
        counts[draw(st.sampled_from([c for c in range(54) if counts[c]]))] -= 1
    elif change == "add":
        c = draw(st.integers(0, 53))
        counts[c] = min(2, counts[c] + 1)
    elif change == "neutral+":
        neutrals = min(4, neutrals + 1)
    elif change == "neutral-":
        neutrals = max(0, neutrals - 1)
    return as_array(counts), neutrals, ends


@settings(max_examples=400)
@given(tables())
def test_hypothesis_tables_match_brute_force(case):
    check(*case)


@settings(max_examples=150)
@given(
    st.lists(st.integers(0, 53), max_size=24),
    st.integers(0, 4),
    st.booleans(),
)
def test_hypothesis_random_multisets_match_brute_force(cards, neutrals, ends):
    counts = [0] * (FIGURES * NUMBERS)
    for c in cards:
        counts[c] = min(2, counts[c] + 1)
    check(as_array(counts), neutrals, ends)


# --- the largest valid part of a hand -------------------------------------------------------


def check_subset(hand, hand_n, tab, tab_n, ends):
    got = largest_valid_subset(hand, hand_n, tab, tab_n, ends)
    want = largest_addition(tab, tab_n, hand, hand_n, ends)
    if want is None:
        assert got is None
        return None
    chosen, chosen_n = got
    assert chosen.sum() + chosen_n == want, (hand.tolist(), hand_n, tab.tolist(), tab_n, ends)
    assert np.all(chosen <= hand) and 0 <= chosen_n <= hand_n
    assert is_valid_table(tab + chosen, tab_n + chosen_n, ends)
    return want


@pytest.mark.parametrize("ends", [False, True])
def test_largest_valid_subset_by_hand(ends):
    hand, hn = table((PAWN, 1), (PAWN, 2), (PAWN, 3), (PAWN, 4), (JOKER, 9), (QUEEN, 1), N)
    empty = np.zeros_like(hand)
    # Pawn 1..4, and the neutral at an end only if allowed
    assert check_subset(hand, hn, empty, 0, ends) == (5 if ends else 4)
    # with a table: Joker 9 and Queen 1 join its groups, Pawn 1 and the neutral complete
    # Pawn 1 - Queen 1, Pawn 2..4 make a group
    tab, tn = table((JOKER, 7), (JOKER, 8), (KNIGHT, 1), (BISHOP, 1))
    assert check_subset(hand, hn, tab, tn, ends) == 7
    # an invalid table has no answer
    assert largest_valid_subset(hand, hn, *table((ROOK, 5)), neutral_at_ends=ends) is None
    # nothing fits: the empty choice
    lone, ln = table((PAWN, 1), (JOKER, 9))
    chosen, chosen_n = largest_valid_subset(lone, ln, neutral_at_ends=ends)
    assert chosen.sum() == 0 and chosen_n == 0


@pytest.mark.slow
def test_largest_valid_subset_matches_brute_force():
    rng = random.Random(5)
    for i in range(250):
        ends = i % 2 == 1
        tab, tn = random_valid(rng, ends, rng.randint(0, 14)) if i % 3 else ([0] * 54, 0)
        hand = [0] * 54
        for _ in range(rng.randint(1, 8)):
            c = rng.randrange(54) if rng.random() < 0.5 else rng.choice(range(54))
            if tab[c] + hand[c] < 2:
                hand[c] += 1
        hn = rng.randint(0, 4 - tn)
        check_subset(as_array(hand), hn, as_array(tab), tn, ends)


@pytest.mark.parametrize("ends", [False, True])
def test_opening_meld_of_seven(ends):
    # Bishop 2-5, and Knight 9, Rook 9, Queen 9 with the neutral for Bishop 9: 8 cards
    hand, hn = table(*[(BISHOP, n) for n in range(2, 6)], (KNIGHT, 9), (ROOK, 9), (QUEEN, 9), N)
    empty = np.zeros_like(hand)
    assert check_subset(hand, hn, empty, 0, ends) == 8
    # without the neutral only Bishop 2-5 is laid: not enough to open
    assert check_subset(hand, 0, empty, 0, ends) == 4


# --- kernels, inputs, no-JIT ----------------------------------------------------------------


@njit
def _count_valid(tables, neutrals, ends):
    """The kernels called from other compiled code."""
    n = 0
    out = np.zeros((FIGURES, NUMBERS), dtype=np.int64)
    for i in range(tables.shape[0]):
        if table_valid(tables[i], neutrals[i], ends):
            n += 1
        best_addition(tables[i], neutrals[i], tables[i] * 0, 0, ends, out)
    return n


def test_kernels_run_inside_njit_code():
    cases = random_tables(1, 1500, 3, 22)[:60]
    arr = np.stack([as_array(list(c)) for c, _, _ in cases])
    ks = np.array([k for _, k, _ in cases], dtype=np.int64)
    for ends in (False, True):
        want = sum(brute_valid(list(c), k, ends) for c, k, _ in cases)
        assert _count_valid(arr, ks, ends) == want


@pytest.mark.parametrize(
    ("counts", "neutrals"),
    [
        (np.zeros((9, 6), dtype=np.int64), 0),  # shape
        (np.zeros(54, dtype=np.int64), 0),
        (np.full((6, 9), 3, dtype=np.int64), 0),  # copies
        (np.full((6, 9), -1, dtype=np.int64), 0),
        (np.zeros((6, 9), dtype=np.float64), 0),  # dtype
        (np.zeros((6, 9), dtype=bool), 0),
        (np.zeros((6, 9), dtype=np.int64), 5),  # neutrals
        (np.zeros((6, 9), dtype=np.int64), -1),
        (np.zeros((6, 9), dtype=np.int64), 1.0),
        (np.zeros((6, 9), dtype=np.int64), True),
    ],
)
def test_bad_input(counts, neutrals):
    with pytest.raises(ValueError):
        is_valid_table(counts, neutrals)
    with pytest.raises(ValueError):
        table_partition(counts, neutrals)


def test_bad_input_of_largest_valid_subset():
    hand, hn = table((PAWN, 1), (PAWN, 1), N, N, N)
    with pytest.raises(ValueError):  # three copies of Pawn 1 in all
        largest_valid_subset(hand, hn, *table((PAWN, 1)))
    with pytest.raises(ValueError):  # five neutrals in all
        largest_valid_subset(hand, hn, *table(N, N))
    with pytest.raises(ValueError):
        largest_valid_subset(hand, 5)


def test_accepts_any_int_array_and_lists():
    counts, k = table((PAWN, 1), (PAWN, 2), (PAWN, 3))
    assert is_valid_table(counts.astype(np.int8), np.int64(k))
    assert is_valid_table(counts.tolist(), k)
    assert is_valid_table(np.asfortranarray(counts), k)


_NO_JIT_SCRIPT = """
import json, sys
import numpy as np
from card_envs.games.rummidrez import is_valid_table, largest_valid_subset, table_partition
cases = json.loads(sys.stdin.read())
out = []
for counts, k, ends in cases:
    arr = np.array(counts, dtype=np.int64).reshape(6, 9)
    valid = is_valid_table(arr, k, ends)
    groups = table_partition(arr, k, ends)
    chosen, chosen_n = largest_valid_subset(arr, k, neutral_at_ends=ends)
    out.append([valid, groups is not None, int(chosen.sum()) + chosen_n])
print(json.dumps(out))
"""


def test_same_answers_without_jit():
    cases = [list(c) for c in random_tables(1, 1500, 3, 22)[:24:2]]
    cases += [[[2] * 54, 2, False], [[2] * 54, 4, True]]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run(
        [sys.executable, "-c", _NO_JIT_SCRIPT],
        input=json.dumps([[list(c), k, e] for c, k, e in cases]),
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[3],  # the checkout
        check=True,
    )
    got = json.loads(proc.stdout)
    for (counts, k, ends), (valid, has_groups, best) in zip(cases, got, strict=True):
        arr = as_array(counts)
        assert valid == is_valid_table(arr, k, ends) == has_groups
        chosen, chosen_n = largest_valid_subset(arr, k, neutral_at_ends=ends)
        assert best == chosen.sum() + chosen_n
