"""Surfosaurus combos: `best_combo_scores` and `showdown` against brute force over every
K-card subset (`tests.games.surfosaurus.reference`), on random tables biased towards ties
and rare categories, plus each example of the rulings worked out by hand."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from card_envs.core import combos
from card_envs.core.combos import best_combo_scores
from card_envs.games.surfosaurus import showdown
from tests.games.surfosaurus.reference import (
    ALL_CARDS,
    CATEGORY_NAMES,
    NUM_COLOURS,
    NUM_VALUES,
    brute_showdown,
    card_id,
)

SIZES = range(4, 16)  # every table the game displays (4..12 cards) and a few more
MAX_SIZE = 15


@cache
def brute(cards: tuple, k: int):
    return brute_showdown(cards, k)


def rank(cards: tuple, k: int) -> tuple[int, tuple[int, ...]]:
    sd = brute(cards, k)
    return CATEGORY_NAMES.index(sd.category), sd.values


def as_table(tables: list[tuple], width: int | None = None) -> np.ndarray:
    width = max(len(t) for t in tables) if width is None else width
    out = np.full((len(tables), width), -1, dtype=np.int64)
    for i, t in enumerate(tables):
        out[i, : len(t)] = [card_id(c) for c in t]
    return out


def scores_of(tables: list[tuple], k: int, width: int | None = None) -> list[int]:
    arr = as_table(tables, width)
    got = best_combo_scores(arr, k)
    assert isinstance(got, np.ndarray) and got.dtype == np.int64 and got.shape == (len(tables),)
    return got.tolist()


# --- random tables, most of them built to make ties and rare categories common ------------


def _fill(rng: random.Random, m: int, core: list) -> tuple:
    """`m` distinct cards: as many of `core` as fit, topped up with random cards, shuffled."""
    core = list(dict.fromkeys(core))
    rng.shuffle(core)
    cards = core[:m]
    rest = [c for c in ALL_CARDS if c not in set(cards)]
    cards += rng.sample(rest, m - len(cards))
    rng.shuffle(cards)
    return tuple(cards)


def gen_uniform(rng, m):
    return _fill(rng, m, [])


def gen_few_colours(rng, m):
    colours = rng.sample(range(NUM_COLOURS), 1 if m <= 12 and rng.random() < 0.5 else 2)
    return _fill(rng, m, [(c, v) for c in colours for v in range(1, 13)])


def gen_few_values(rng, m):
    values = rng.sample(range(1, 13), rng.randint(2, 4))
    return _fill(rng, m, [(c, v) for c in range(NUM_COLOURS) for v in values])


def gen_dense_run(rng, m):
    length = rng.randint(4, 7)
    low = rng.randint(1, 13 - length)
    colours = rng.sample(range(NUM_COLOURS), rng.randint(1, 3))
    return _fill(rng, m, [(c, v) for c in colours for v in range(low, low + length)])


def gen_many_of_one_value(rng, m):
    value = rng.randint(1, 12)
    colours = rng.sample(range(NUM_COLOURS), rng.randint(3, 7))
    core = [(c, value) for c in colours]
    rng.shuffle(core)
    cards = core[:m]
    return _fill(rng, m, cards) if len(cards) < m else tuple(cards)


def gen_twin_colours(rng, m):
    """Two colours holding the same values (flush and straight flush ties)."""
    a, b = rng.sample(range(NUM_COLOURS), 2)
    size = rng.randint(4, 6)
    if rng.random() < 0.5:
        low = rng.randint(1, 13 - size)
        values = list(range(low, low + size))
    else:
        values = rng.sample(range(1, 13), size)
    pairs = [(a, v) for v in values] + [(b, v) for v in values]
    return _fill(rng, m, pairs[: m + rng.randint(0, 2)])


def gen_high_card_ties(rng, m):
    """Few values spread over many colours, few of each colour: high-card ties."""
    values = rng.sample(range(1, 13), rng.randint(4, 6))
    colours = list(range(NUM_COLOURS))
    core = []
    for v in values:
        for c in rng.sample(colours, rng.randint(1, 3)):
            core.append((c, v))
    return _fill(rng, m, core)


GENERATORS = [
    gen_uniform,
    gen_few_colours,
    gen_few_values,
    gen_dense_run,
    gen_many_of_one_value,
    gen_twin_colours,
    gen_high_card_ties,
]


@cache
def random_tables(k: int) -> tuple[tuple, ...]:
    rng = random.Random(1000 + k)
    tables = []
    for gen in GENERATORS:
        for m in SIZES:
            if m < k:
                continue
            for _ in range(5 if m <= 12 else 2):
                t = gen(rng, m)
                assert len(set(t)) == len(t) == m
                tables.append(t)
    return tuple(tables)


@pytest.mark.parametrize("k", [4, 5])
def test_generators_reach_every_category_and_many_ties(k):
    """The generators really exercise the hard cases (a check on the test itself)."""
    tables = random_tables(k)
    ranks = [rank(t, k) for t in tables]
    categories = {r[0] for r in ranks}
    assert categories == set(range(5))
    assert len(set(ranks)) < len(ranks) - 50  # plenty of equal (category, values) pairs
    halves = sum(1 for t in tables if brute(t, k).half)
    assert halves > 60  # plenty of unresolvable ties inside a table


def check_order(tables: list[tuple], scores: list[int], k: int) -> None:
    """Scores order the tables exactly as the brute-force ranks do, ties included."""
    ranks = [rank(t, k) for t in tables]
    order = sorted(range(len(tables)), key=lambda i: ranks[i])
    for i, j in zip(order, order[1:], strict=False):
        if ranks[i] == ranks[j]:
            assert scores[i] == scores[j], (tables[i], tables[j], ranks[i])
        else:
            assert scores[i] < scores[j], (tables[i], ranks[i], tables[j], ranks[j])


@pytest.mark.parametrize("k", [4, 5])
def test_best_combo_scores_order_matches_brute_force(k):
    tables = list(random_tables(k))
    scores = scores_of(tables, k, MAX_SIZE)
    check_order(tables, scores, k)


@pytest.mark.parametrize("k", [4, 5])
def test_best_combo_scores_does_not_depend_on_padding_or_batch(k):
    tables = list(random_tables(k))
    wide = scores_of(tables, k, MAX_SIZE + 6)  # extra padding columns
    one_by_one = [scores_of([t], k)[0] for t in tables[::7]]  # no padding at all
    assert wide == scores_of(tables, k, MAX_SIZE)
    assert one_by_one == wide[::7]
    for m in SIZES:
        same_size = [t for t in tables if len(t) == m]
        if same_size:  # an unpadded batch
            expected = [s for t, s in zip(tables, wide, strict=True) if len(t) == m]
            assert scores_of(same_size, k) == expected


@pytest.mark.parametrize("k", [4, 5])
def test_best_combo_scores_accepts_any_int_array(k):
    tables = list(random_tables(k))[::5]
    arr = as_table(tables, MAX_SIZE)
    want = best_combo_scores(arr, k).tolist()
    assert best_combo_scores(arr.astype(np.int32), k).tolist() == want
    assert best_combo_scores(arr.tolist(), k).tolist() == want
    assert best_combo_scores(arr[:0], k).shape == (0,)


@pytest.mark.parametrize("k", [4, 5])
def test_scores_ignore_card_order_and_colour_names(k):
    """Shuffling a table or renaming its colours keeps (category, values): same score."""
    rng = random.Random(k)
    tables = list(random_tables(k))[::3]
    variants = []
    for t in tables:
        perm = list(range(NUM_COLOURS))
        rng.shuffle(perm)
        v = [(perm[c], value) for c, value in t]
        rng.shuffle(v)
        variants.append(tuple(v))
    assert scores_of(variants, k, MAX_SIZE) == scores_of(tables, k, MAX_SIZE)


@pytest.mark.parametrize("k", [4, 5])
def test_showdown_matches_brute_force(k):
    for t in random_tables(k):
        got = showdown(t, k)
        want = brute(t, k)
        assert got.category == want.category, t
        assert tuple(got.values) == want.values, t
        assert tuple(got.full) == want.full, t
        assert tuple(got.half) == want.half, t


@settings(max_examples=150, deadline=None)
@given(
    k=st.sampled_from([4, 5]),
    cards=st.lists(st.sampled_from(ALL_CARDS), min_size=5, max_size=12, unique=True),
    other=st.lists(st.sampled_from(ALL_CARDS), min_size=5, max_size=12, unique=True),
)
def test_hypothesis_showdown_and_scores(k, cards, other):
    a, b = tuple(cards), tuple(other)
    got = showdown(a, k)
    assert (got.category, tuple(got.values), tuple(got.full), tuple(got.half)) == tuple(brute(a, k))
    sa, sb = scores_of([a, b], k)
    ra, rb = rank(a, k), rank(b, k)
    assert (sa < sb) == (ra < rb) and (sa == sb) == (ra == rb)


# --- the rulings' examples, by hand ---------------------------------------------------------


def check(cards, k, category, values, full, half):
    got = showdown(cards, k)
    assert got.category == category
    assert tuple(got.values) == tuple(values)
    assert tuple(got.full) == tuple(full)
    assert tuple(got.half) == tuple(half)
    # the oracle agrees with the hand count
    assert brute_showdown(cards, k) == (category, tuple(values), tuple(full), tuple(half))


def test_category_names():
    assert combos.CATEGORY_NAMES == CATEGORY_NAMES
    assert CATEGORY_NAMES == ("high_cards", "straight", "flush", "of_a_kind", "straight_flush")


def test_ruling_high_cards_tied_sixes_score_half():
    # 12, 10, 8, 6a, 6b in five colours: 12, 10, 8 full; both 6s half
    cards = [(0, 12), (1, 10), (2, 8), (3, 6), (4, 6)]
    check(cards, 4, "high_cards", (12, 10, 8, 6), (0, 1, 2), (3, 4))


def test_ruling_straight_with_two_twelves():
    cards = [(0, 9), (1, 10), (2, 11), (3, 12), (4, 12)]
    check(cards, 4, "straight", (12, 11, 10, 9), (0, 1, 2), (3, 4))


def test_ruling_two_equal_straight_flushes_all_half():
    red = [(0, v) for v in (5, 6, 7, 8)]
    blue = [(1, v) for v in (5, 6, 7, 8)]
    check(red + blue, 4, "straight_flush", (8, 7, 6, 5), (), tuple(range(8)))


def test_ruling_exactly_four_of_a_kind_all_full():
    cards = [(0, 7), (1, 7), (2, 7), (3, 7), (4, 1), (5, 3), (6, 11), (4, 9)]
    check(cards, 4, "of_a_kind", (7, 7, 7, 7), (0, 1, 2, 3), ())


def test_ruling_long_straight_uses_its_top_k():
    cards = [(0, 5), (1, 6), (2, 7), (3, 8), (4, 9), (5, 10)]
    check(cards, 4, "straight", (10, 9, 8, 7), (2, 3, 4, 5), ())
    check(cards, 5, "straight", (10, 9, 8, 7, 6), (1, 2, 3, 4, 5), ())


def test_ruling_long_flush_uses_its_top_k():
    cards = [(2, 1), (2, 3), (2, 5), (2, 8), (2, 10), (2, 12)]
    check(cards, 4, "flush", (12, 10, 8, 5), (2, 3, 4, 5), ())
    check(cards, 5, "flush", (12, 10, 8, 5, 3), (1, 2, 3, 4, 5), ())


def test_ruling_straights_do_not_wrap():
    check([(0, 11), (1, 12), (2, 1), (3, 2)], 4, "high_cards", (12, 11, 2, 1), (0, 1, 2, 3), ())
    cards = [(0, 10), (1, 11), (2, 12), (3, 1), (4, 2)]
    check(cards, 4, "high_cards", (12, 11, 10, 2), (0, 1, 2, 4), ())
    check(cards, 5, "high_cards", (12, 11, 10, 2, 1), (0, 1, 2, 3, 4), ())


def test_ties_resolved_by_higher_values():
    # two flushes: the one with the higher values wins outright
    cards = [(0, 12), (0, 10), (0, 8), (0, 6), (1, 12), (1, 10), (1, 8), (1, 5)]
    check(cards, 4, "flush", (12, 10, 8, 6), (0, 1, 2, 3), ())
    # 9-8-7-6 beats 7-6-5-4 (two straights sharing cards)
    cards = [(0, 4), (1, 5), (2, 6), (3, 7), (4, 8), (5, 9)]
    check(cards, 4, "straight", (9, 8, 7, 6), (2, 3, 4, 5), ())


def test_two_flushes_with_the_same_values_all_half():
    cards = [(3, v) for v in (12, 10, 8, 6)] + [(5, v) for v in (12, 10, 8, 6)]
    check(cards, 4, "flush", (12, 10, 8, 6), (), tuple(range(8)))


def test_more_of_a_kind_than_k_all_half():
    # five 7s with K = 4: five ways to pick four, no card in all of them
    cards = [(c, 7) for c in range(5)] + [(5, 2)]
    check(cards, 4, "of_a_kind", (7, 7, 7, 7), (), (0, 1, 2, 3, 4))
    cards = [(c, 3) for c in range(6)] + [(6, 12)]
    check(cards, 5, "of_a_kind", (3, 3, 3, 3, 3), (), (0, 1, 2, 3, 4, 5))


def test_pairs_inside_high_cards_and_straights():
    # both 12s belong to the only best high-card combo: everything in it is full
    cards = [(0, 12), (1, 12), (2, 10), (3, 8), (4, 6)]
    check(cards, 4, "high_cards", (12, 12, 10, 8), (0, 1, 2, 3), ())
    # a doubled value in the middle of a straight
    cards = [(0, 9), (1, 10), (2, 10), (3, 11), (4, 12)]
    check(cards, 4, "straight", (12, 11, 10, 9), (0, 3, 4), (1, 2))


def test_category_order():
    # one table holding a straight and a flush: the flush wins
    cards = [(0, 1), (0, 3), (0, 5), (0, 9), (1, 10), (2, 11), (3, 12)]
    check(cards, 4, "flush", (9, 5, 3, 1), (0, 1, 2, 3), ())
    # four of a kind beats a flush; a straight flush beats four of a kind
    cards = [(0, 2), (0, 4), (0, 6), (0, 8), (1, 3), (2, 3), (3, 3), (4, 3)]
    check(cards, 4, "of_a_kind", (3, 3, 3, 3), (4, 5, 6, 7), ())
    cards = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 12), (2, 12), (3, 12), (4, 12)]
    check(cards, 4, "straight_flush", (4, 3, 2, 1), (0, 1, 2, 3), ())


@pytest.mark.parametrize("k", [4, 5])
def test_score_ladder(k):
    """Hand-made tables in strictly increasing strength, with two pairs of equals."""

    def mixed(values):  # all colours different (k <= 7)
        return tuple((i, v) for i, v in enumerate(values))

    def one(colour, values):
        return tuple((colour, v) for v in values)

    low = list(range(1, k + 1))
    top = list(range(13 - k, 13))
    ladder = [
        [mixed([2, 4, 6, 8, 10][:k])],
        [mixed([12, 10, 8, 5, 2][:k])],
        [mixed([12, 10, 8, 6, 3][:k]), mixed([12, 10, 8, 6, 3][:k][::-1])],
        [mixed([12, 12, 11, 10, 8][:k])],
        [mixed(low)],
        [mixed(top)],
        [one(0, [1, 2, 3, 5, 6][:k])],
        [one(0, [12, 11, 10, 8, 7][:k]), one(6, [12, 11, 10, 8, 7][:k])],
        [mixed([1] * k)],
        [mixed([12] * k)],
        [one(3, low)],
        [one(4, top)],
    ]
    tables = [t for group in ladder for t in group]
    scores = scores_of(tables, k)
    check_order(tables, scores, k)
    pos = 0
    previous = None
    for group in ladder:
        group_scores = scores[pos : pos + len(group)]
        pos += len(group)
        assert len(set(group_scores)) == 1
        if previous is not None:
            assert group_scores[0] > previous
        previous = group_scores[0]


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "k"),
    [
        ([(0, 1), (0, 1), (1, 2), (2, 3), (3, 4)], 4),  # duplicate
        ([(7, 1), (0, 2), (1, 3), (2, 4)], 4),  # colour out of range
        ([(-1, 1), (0, 2), (1, 3), (2, 4)], 4),
        ([(0, 0), (0, 2), (1, 3), (2, 4)], 4),  # value out of range
        ([(0, 13), (0, 2), (1, 3), (2, 4)], 4),
        ([(0, 1), (0, 2), (1, 3), (2, 4), (3, 5)], 3),  # k not 4 or 5
        ([(0, 1), (0, 2), (1, 3), (2, 4), (3, 5), (4, 6)], 6),
        ([(0, 1), (0, 2), (1, 3), (2, 4), (3, 5)], True),  # a bool is not a combo size
        ([(0, 1), (0, 2), (1, 3), (2, 4), (3, 5)], "4"),
    ],
)
def test_showdown_rejects_bad_input(cards, k):
    with pytest.raises(ValueError):
        showdown(cards, k)


def test_every_card_is_a_valid_input():
    assert len(ALL_CARDS) == NUM_COLOURS * NUM_VALUES == 84
    assert sorted(card_id(c) for c in ALL_CARDS) == list(range(84))
    # two whole colours: the straight flushes 12-11-10-9 of colours 0 and 1 tie
    check(ALL_CARDS[:24], 4, "straight_flush", (12, 11, 10, 9), (), (8, 9, 10, 11, 20, 21, 22, 23))
    half = (7, 8, 9, 10, 11, 19, 20, 21, 22, 23)
    check(ALL_CARDS[:24], 5, "straight_flush", (12, 11, 10, 9, 8), (), half)
