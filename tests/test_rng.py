"""The per-row PRNG (card_envs.core.rng): range, uniformity, shuffles, seeding."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from card_envs.core import rng
from card_envs.core.layout import RNG


def seeded_row(seed: int, size: int = 16) -> np.ndarray:
    row = np.zeros(size, dtype=np.int64)
    rng.seed_row(row, seed)
    return row


def chi_square(counts: np.ndarray) -> float:
    expected = counts.sum() / len(counts)
    return float(((counts - expected) ** 2 / expected).sum())


@pytest.mark.parametrize("n", [1, 2, 3, 7, 33, 1000, 2**31 - 1])
def test_below_stays_in_range(n):
    row = seeded_row(n)
    draws = [rng.below(row, n) for _ in range(2000)]
    assert min(draws) >= 0 and max(draws) < n
    if n == 1:
        assert set(draws) == {0}
    if 1 < n <= 33:
        assert set(draws) == set(range(n))  # 2000 draws hit every value


@pytest.mark.parametrize("n", [6, 33])
def test_below_is_roughly_uniform(n):
    row = seeded_row(20240 + n)
    draws = np.array([rng.below(row, n) for _ in range(60_000)])
    counts = np.bincount(draws, minlength=n)
    assert len(counts) == n
    # chi-square critical values at p = 1e-6 are about 36 (df 5) and 80 (df 32)
    bound = {6: 36.0, 33: 80.0}[n]
    assert chi_square(counts) < bound


def test_below_with_large_non_power_of_two_bound_is_unbiased():
    # n = 3 * 2**29 (inside the documented range n < 2**31): a plain `u32 % n` would give
    # the three thirds of [0, n) the rates 3/8, 3/8, 2/8; it must be 1/3 each
    n = 3 * 2**29
    row = seeded_row(5)
    draws = np.array([rng.below(row, n) for _ in range(30_000)])
    assert draws.min() >= 0 and draws.max() < n
    thirds = np.bincount(draws // 2**29, minlength=3)
    assert len(thirds) == 3
    assert chi_square(thirds) < 30.0  # df 2; the modulo bias would give about 940


def test_next_u32_is_32_bits_and_advances_the_row():
    row = seeded_row(1)
    seen = set()
    for _ in range(1000):
        before = row[RNG : RNG + 4].copy()
        x = rng.next_u32(row)
        assert 0 <= x < 2**32
        assert not np.array_equal(before, row[RNG : RNG + 4])
        seen.add(int(x))
    assert len(seen) > 990
    assert max(seen) >= 2**31  # the top bit is used
    assert (row[RNG : RNG + 4] < 2**32).all() and (row[RNG : RNG + 4] >= 0).all()


def test_rows_only_use_their_own_slots():
    row = seeded_row(3, size=12)
    row[4:] = np.arange(100, 108)
    for _ in range(50):
        rng.next_u32(row)
    assert row[4:].tolist() == list(range(100, 108))


@pytest.mark.parametrize(("lo", "hi"), [(4, 40), (10, 11), (10, 10), (5, 8), (20, 40)])
def test_shuffle_slice_is_a_permutation_of_the_slice_only(lo, hi):
    row = seeded_row(lo * 100 + hi, size=40)
    row[4:] = np.arange(1000, 1036)
    values = row[4:].copy()
    rng.shuffle_slice(row, lo, hi)
    assert sorted(row[lo:hi].tolist()) == sorted(values[lo - 4 : hi - 4].tolist())
    np.testing.assert_array_equal(row[4:lo], values[: lo - 4])  # before the slice
    np.testing.assert_array_equal(row[hi:], values[hi - 4 :])  # after the slice
    if hi - lo >= 8:
        assert row[lo:hi].tolist() != values[lo - 4 : hi - 4].tolist()  # it did shuffle


def test_shuffle_slice_visits_every_permutation_evenly():
    row = seeded_row(77, size=8)
    counts = dict.fromkeys(itertools.permutations((5, 6, 7)), 0)
    for _ in range(6000):
        row[5:8] = (5, 6, 7)
        rng.shuffle_slice(row, 5, 8)
        counts[tuple(row[5:8].tolist())] += 1
    assert sum(counts.values()) == 6000  # only permutations of the slice came out
    assert chi_square(np.array(list(counts.values()))) < 35.0  # df 5, p ~ 1e-6


def test_shuffle_slice_moves_every_card_to_every_place():
    row = seeded_row(8, size=4 + 33)
    first_place = np.zeros(33, dtype=int)
    for _ in range(3300):
        row[4:] = np.arange(33)
        rng.shuffle_slice(row, 4, 37)
        assert sorted(row[4:].tolist()) == list(range(33))
        first_place[row[4]] += 1
    assert chi_square(first_place) < 80.0


def test_shuffle_sorted_ignores_the_order_it_is_given():
    """The same values in any order come out in the same order from the same PRNG state,
    and every order of (5, 5, 6, 7) comes out over many draws."""
    values = [7, 5, 6, 5]
    seen = set()
    for seed in range(200):
        outs = []
        for order in itertools.permutations(values):
            row = seeded_row(seed)
            arr = np.array(order, dtype=np.int64)
            rng.shuffle_sorted(row, arr)
            outs.append(arr.tolist())
        assert all(out == outs[0] for out in outs), seed
        assert sorted(outs[0]) == sorted(values)
        seen.add(tuple(outs[0]))
    assert len(seen) == 12  # 4! / 2! distinct orders


def test_shuffle_sorted_is_a_sort_then_a_fisher_yates_shuffle():
    """Against a plain reference: Python's sort, then a swap with `below` from the top down,
    over lengths up to a deck and a half, with repeated values."""
    gen = np.random.default_rng(5)
    for n in (*range(12), 40, 106, 161):
        values = gen.integers(0, max(1, n // 2), size=n).astype(np.int64)
        row, ref_row = seeded_row(n), seeded_row(n)
        expected = sorted(values.tolist())
        for i in range(n - 1, 0, -1):
            j = rng.below(ref_row, i + 1)
            expected[i], expected[j] = expected[j], expected[i]
        rng.shuffle_sorted(row, values)
        assert values.tolist() == expected, n
        np.testing.assert_array_equal(row, ref_row)  # the same draws


def test_shuffle_sorted_shuffles_a_slice_of_the_row_in_place():
    row = seeded_row(3, size=40)
    row[4:] = np.arange(1000, 1036)
    rng.shuffle_sorted(row, row[10:30])
    assert sorted(row[10:30].tolist()) == list(range(1006, 1026))
    assert row[10:30].tolist() != list(range(1006, 1026))
    np.testing.assert_array_equal(row[4:10], np.arange(1000, 1006))
    np.testing.assert_array_equal(row[30:], np.arange(1026, 1036))


def test_seed_words_are_deterministic_32_bit_and_distinct():
    words = {}
    # seeds are used modulo 2**64, so these are 1004 different seeds
    for seed in itertools.chain(range(-500, 500), [2**63 - 1, 2**63, 2**64 + 1000, 10**30]):
        w = rng.seed_words(seed)
        assert len(w) == 4
        assert all(0 <= x < 2**32 for x in w)
        assert any(w)  # xoshiro must not start from the all-zero state
        assert rng.seed_words(seed) == w
        words[seed] = tuple(w)
    assert len(set(words.values())) == len(words)


def test_seed_words_accepts_numpy_ints():
    assert rng.seed_words(np.int64(12)) == rng.seed_words(12)
    assert rng.seed_words(np.uint32(12)) == rng.seed_words(12)


@pytest.mark.parametrize("seed", [1.0, 1.5, "1", None, True, False, np.float64(2), [1]])
def test_non_int_seed_raises_type_error(seed):
    with pytest.raises(TypeError):
        rng.seed_words(seed)
    with pytest.raises(TypeError):
        rng.seed_row(np.zeros(8, dtype=np.int64), seed)


@settings(max_examples=50, deadline=None)
@given(a=st.integers(-(2**70), 2**70), b=st.integers(-(2**70), 2**70))
def test_different_seeds_give_different_streams(a, b):
    ra, rb = seeded_row(a), seeded_row(b)
    xs = [rng.next_u32(ra) for _ in range(4)]
    ys = [rng.next_u32(rb) for _ in range(4)]
    # seeds are taken modulo 2**64
    assert (xs == ys) == (a % 2**64 == b % 2**64)


def test_same_seed_same_stream():
    a, b = seeded_row(99), seeded_row(99)
    assert [rng.below(a, 1000) for _ in range(100)] == [rng.below(b, 1000) for _ in range(100)]
