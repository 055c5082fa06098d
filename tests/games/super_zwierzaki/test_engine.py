"""The Super Zwierzaki engine against the plain-Python reference game, in lockstep over random
play: after every action the same legal actions, hands, piles, given colours and classes,
counters, numbers, lost turns and pending decision. The engine's random events are replayed
into the reference (a reshuffled draw pile in the engine's order); after a two-War's random
half the reference takes the engine's hands."""

import random
from collections import Counter

import numpy as np
import pytest

from card_envs.core import layout
from card_envs.games.super_zwierzaki import deck
from card_envs.games.super_zwierzaki import engine as k
from tests.games.super_zwierzaki.helpers import (
    NUM_KINDS,
    Replay,
    differences,
    new_row,
    reference_of,
    take_engine_hands,
)
from tests.games.super_zwierzaki.reference import CLASS_OF, Rules, act, legal


@pytest.mark.parametrize("num_players", [2, 3, 5, 8, 12])
@pytest.mark.parametrize(
    "options",
    [{}, {"explicit_call": True}, {"skip_forced": True}, {"play_drawn": True}],
    ids=["default", "explicit_call", "skip_forced", "play_drawn"],
)
def test_the_engine_plays_as_the_reference(num_players, options):
    rewards = np.zeros(k.MAX_PLAYERS, dtype=np.float32)
    for seed in range(6):
        rules = Rules(num_players, max_turns=250, **options)
        row = new_row(rules, seed)
        replay = Replay()
        g = reference_of(row, rules, replay)
        assert differences(row, g) == []
        rng = random.Random(seed)
        history = []
        while not g.done:
            a = rng.choice(legal(g))
            history.append(a)
            war2 = g.decisions[-1].ctx.get("purpose") == "war2_hand"
            k.step(row, a, rewards)
            replay.row = row
            act(g, a)
            if war2:
                take_engine_hands(row, g)
            diff = differences(row, g)
            assert diff == [], f"seed {seed}, actions {history}: {diff}"
        assert row[layout.STATUS] != layout.RUNNING


def test_classes_are_the_decks():
    assert set(CLASS_OF) - {"all"} == set(deck.CLASSES)


# --- conservation laws and the outcome --------------------------------------------------------
def test_random_play_keeps_every_conservation_law_and_scores_the_winner():
    mask = np.zeros(k.NUM_ACTIONS, dtype=np.int8)
    rewards = np.zeros(k.MAX_PLAYERS, dtype=np.float32)
    scores = np.zeros(k.MAX_PLAYERS)
    wins = np.zeros(k.MAX_PLAYERS)
    ended = Counter()
    for n in (2, 4, 8, 12):
        for seed in range(30):
            row = new_row(Rules(n, max_turns=300), seed)
            rng = np.random.default_rng(seed)
            total = np.zeros(k.MAX_PLAYERS)
            while row[layout.STATUS] == layout.RUNNING:
                assert k.check_invariants(row) == 0
                k.legal(row, mask)
                rewards[:] = 0
                k.step(row, rng.choice(np.flatnonzero(mask)), rewards)
                total += rewards
            assert k.check_invariants(row) == 0
            k.outcome(row, scores, wins)
            assert list(scores[:n]) == [-row[k.HAND_N + s] for s in range(n)]
            if row[layout.STATUS] == layout.TERMINATED:
                w = int(row[k.WINNER])
                assert row[k.HAND_N + w] == 0 and wins[w] == 1 and wins[:n].sum() == 1
                assert total[w] == 1 and (total[:n] == -1).sum() == n - 1
                ended["won"] += 1
            else:  # no rewards; the win is shared by the fewest cards (the leader by time)
                sizes = row[k.HAND_N : k.HAND_N + n]
                leaders = sizes == sizes.min()
                assert not total.any() and (wins[:n] == leaders / leaders.sum()).all()
                ended["truncated"] += 1
    assert ended["won"] > 0 and ended["truncated"] > 0  # a check on the test itself


@pytest.mark.parametrize(
    ("corrupt", "law"),
    [
        (lambda r: r.__setitem__(k.HANDS + 3, r[k.HANDS + 3] + 1), 3),  # size no longer matches
        (
            lambda r: (
                r.__setitem__(k.HANDS + 3, r[k.HANDS + 3] + 1),
                r.__setitem__(k.HAND_N, r[k.HAND_N] + 1),
            ),
            2,
        ),
        (lambda r: r.__setitem__(k.DRAW_PILE, (r[k.DRAW_PILE] + 1) % NUM_KINDS), 2),
        (lambda r: (r.__setitem__(k.COUNTERS, 2), r.__setitem__(k.COUNTERS + 1, 3)), 4),
        (lambda r: r.__setitem__(k.NUMBERS + 1, r[k.NUMBERS]), 5),
        (lambda r: r.__setitem__(k.GIVEN_CLASSES, 0), 6),
        (lambda r: r.__setitem__(k.DISCARD_N, 0), 1),
        (lambda r: r.__setitem__(k.STACK_N, 0), 1),
    ],
)
def test_a_broken_row_names_the_broken_law(corrupt, law):
    row = new_row(Rules(3), 5)
    assert k.check_invariants(row) == 0
    corrupt(row)
    assert k.check_invariants(row) == law, k.INVARIANT_ERRORS[k.check_invariants(row)]


# --- the observation --------------------------------------------------------------------------
def _redeal_hidden(row: np.ndarray, seat: int, rng: np.random.Generator) -> np.ndarray:
    """The row with every card `seat` cannot see (other hands, the draw pile) dealt again,
    each hand keeping its size (also what `seat` could know from the past: the resampling
    bookkeeping is cleared)."""
    out = row.copy()
    out[k.FIXED : k.STATE_SIZE] = 0
    n = int(row[layout.NUM_PLAYERS])
    others = [q for q in range(n) if q != seat]
    pool = [int(c) for c in row[k.DRAW_PILE : k.DRAW_PILE + row[k.DRAW_N]]]
    for q in others:
        for kind in range(NUM_KINDS):
            pool += [kind] * int(row[k.HANDS + q * NUM_KINDS + kind])
            out[k.HANDS + q * NUM_KINDS + kind] = 0
    rng.shuffle(pool)
    for q in others:
        for _ in range(int(row[k.HAND_N + q])):
            out[k.HANDS + q * NUM_KINDS + pool.pop()] += 1
    out[k.DRAW_PILE : k.DRAW_PILE + len(pool)] = pool
    assert k.check_invariants(out) == 0
    return out


def test_the_observation_shows_only_the_own_hand_and_public_facts():
    mask = np.zeros(k.NUM_ACTIONS, dtype=np.int8)
    rewards = np.zeros(k.MAX_PLAYERS, dtype=np.float32)
    for n in (2, 5):
        size = k.obs_size(n)
        a, b = np.zeros(size, dtype=np.float32), np.zeros(size, dtype=np.float32)
        sl = k.obs_slices(n)
        for seed in range(4):
            row = new_row(Rules(n, max_turns=200, play_drawn=True), seed)
            rng = np.random.default_rng(seed)
            while row[layout.STATUS] == layout.RUNNING:
                for seat in range(n):
                    k.observe(row, seat, a)
                    k.observe(_redeal_hidden(row, seat, rng), seat, b)
                    assert np.array_equal(a, b), (seed, seat)
                seat = int(row[layout.PLAYER])
                k.observe(row, seat, a)
                start, length = sl["hand"]
                own = row[k.HANDS + seat * NUM_KINDS : k.HANDS + (seat + 1) * NUM_KINDS]
                assert list(a[start : start + length]) == list(own)
                start, length = sl["hand_sizes"]
                assert a[start] == row[k.HAND_N + seat] and a[start : start + length].sum() == (
                    row[k.HAND_N : k.HAND_N + n].sum()
                )
                start, length = sl["piles"]
                assert start + length == size and a[start] == row[k.DRAW_N]
                k.legal(row, mask)
                k.step(row, rng.choice(np.flatnonzero(mask)), rewards)
