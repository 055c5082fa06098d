"""The Rummidrez heuristic: its decisions in hand-made situations, and its strength."""

import numpy as np
import pytest

from card_envs.core import layout
from card_envs.evaluation import evaluate
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.solver import table_valid
from card_envs.games.rummidrez.spec import Rummidrez, RummidrezSolo

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, JOKER = range(6)
N = k.NEUTRAL
JUNK = [JOKER * 9 + 8, ROOK * 9, QUEEN * 9 + 2, BISHOP * 9 + 7]  # far from everything below


def card(figure: int, number: int) -> int:
    return figure * 9 + number - 1


def situation(hand, table=(), placed=(), discard=(), opened=False, phase=k.PHASE_MELD):
    """A 2-player row with seat 0 to act: its hand, the table (with seat 1 opened when it
    holds cards), this turn's placements and the discard pile (bottom to top)."""
    game = Rummidrez()
    row = game.new_row()
    game.reset_row(row, 0)
    row[k.HAND : k.DRAW_PILE] = 0
    for base, cards in ((k.HAND, hand), (k.TABLE, table), (k.PLACED, placed)):
        for c in cards:
            row[base + c] += 1
    row[k.DISCARD_PILE : k.DISCARD_PILE + len(discard)] = discard
    row[k.DISCARD_N] = len(discard)
    row[layout.PLAYER] = 0
    row[k.PHASE] = phase
    row[k.OPENED] = int(opened)
    row[k.OPENED + 1] = int(len(table) > 0)
    row[k.TABLE_OK] = k.meld_ok(row, 0)
    return game, row


def act(game, row) -> int:
    """The heuristic's action; with `hints` (2-4 players), where it reads the engine's hint
    instead of solving, it must be the same."""
    obs = np.zeros((1, game.obs_size), dtype=np.float32)
    mask = np.zeros((1, k.NUM_ACTIONS), dtype=np.int8)
    k.observe(row, row[layout.PLAYER], obs[0])
    k.legal(row, mask[0])
    action = int(game.heuristic_actions(obs, mask)[0])
    assert mask[0, action], action
    if game.num_players > 1 and not game.config["hints"]:
        hinted = Rummidrez(**{**game.config, "hints": True})
        obs = np.zeros((1, hinted.obs_size), dtype=np.float32)
        row = row.copy()
        row[k.CFG_HINTS] = 1
        k.observe(row, row[layout.PLAYER], obs[0])
        assert int(hinted.heuristic_actions(obs, mask)[0]) == action
    return action


def meld(game, row) -> list[int]:
    """The heuristic's actions until the melding phase is over."""
    actions = []
    while row[k.PHASE] == k.PHASE_MELD and row[layout.STATUS] == layout.RUNNING:
        actions.append(act(game, row))
        k.step(row, actions[-1], np.zeros(game.num_players, dtype=np.float32))
    return actions


def table_of(row) -> list[int]:
    return sorted(c for c in range(k.NUM_IDS) for _ in range(row[k.TABLE + c]))


PAWNS = [card(PAWN, n) for n in (1, 2, 3, 4)]
KNIGHTS = [card(KNIGHT, n) for n in (5, 6, 7)]


def test_opens_with_a_meld_of_seven_and_ends_melding():
    game, row = situation(PAWNS + KNIGHTS + JUNK)
    actions = meld(game, row)
    assert actions == [k.PLACE + c for c in sorted(PAWNS + KNIGHTS)] + [k.END_MELD]
    assert table_of(row) == sorted(PAWNS + KNIGHTS)
    assert row[k.OPENED] == 1 and row[k.PHASE] == k.PHASE_DISCARD


def test_does_not_open_with_six():
    game, row = situation(PAWNS[:3] + KNIGHTS + JUNK)
    assert meld(game, row) == [k.END_MELD]
    assert table_of(row) == []


def test_adds_to_a_group_on_the_table_after_opening():
    table = [card(PAWN, n) for n in (1, 2, 3)]
    game, row = situation([card(PAWN, 4), *JUNK], table=table, opened=True)
    assert meld(game, row) == [k.PLACE + card(PAWN, 4), k.END_MELD]
    assert table_of(row) == sorted(table + [card(PAWN, 4)])


def test_rearranges_the_table_to_lay_a_card():
    # Pawn 2-7 on the table: Knight 2 and Bishop 2 join Pawn 2, Pawn 3-7 stay a run
    table = [card(PAWN, n) for n in range(2, 8)]
    hand = [card(KNIGHT, 2), card(BISHOP, 2), *JUNK]
    game, row = situation(hand, table=table, opened=True)
    actions = meld(game, row)
    assert sorted(actions[:-1]) == [k.PLACE + card(KNIGHT, 2), k.PLACE + card(BISHOP, 2)]
    assert actions[-1] == k.END_MELD


def test_finishes_placing_what_it_started():
    # stateless: with Pawn 1 and 2 already placed it completes the opening meld
    placed = PAWNS[:2]
    game, row = situation(PAWNS[2:] + KNIGHTS + JUNK, placed=placed)
    actions = meld(game, row)
    assert sorted(actions[:-1]) == [k.PLACE + c for c in sorted(PAWNS[2:] + KNIGHTS)]
    assert actions[-1] == k.END_MELD and table_of(row) == sorted(PAWNS + KNIGHTS)


def test_undoes_placements_that_cannot_be_completed():
    game, row = situation(JUNK, placed=[card(PAWN, 1), card(ROOK, 5)])
    assert act(game, row) == k.UNDO


def test_takes_the_discard_top_when_it_completes_a_group():
    hand = [card(KNIGHT, 5), card(KNIGHT, 6), *JUNK]
    table = [card(PAWN, n) for n in (1, 2, 3)]
    discard = [card(JOKER, 2), card(KNIGHT, 7)]
    game, row = situation(hand, table=table, discard=discard, opened=True, phase=k.PHASE_DRAW)
    assert act(game, row) == k.TAKE
    k.step(row, k.TAKE, np.zeros(2, dtype=np.float32))
    knights = sorted(hand[:2] + [card(KNIGHT, 7)])
    assert meld(game, row) == [k.PLACE + c for c in knights] + [k.END_MELD]


def test_draws_rather_than_take_two_cards_to_lay_one():
    table = [card(PAWN, n) for n in (1, 2, 3)]
    discard = [card(PAWN, 4), card(JOKER, 2)]
    game, row = situation(JUNK, table=table, discard=discard, opened=True, phase=k.PHASE_DRAW)
    assert act(game, row) == k.DRAW


def test_takes_two_cards_that_make_the_opening_possible():
    hand = PAWNS[:3] + [card(KNIGHT, 5), card(KNIGHT, 6)] + JUNK
    discard = [card(QUEEN, 9), card(KNIGHT, 7), card(KNIGHT, 8)]
    game, row = situation(hand, discard=discard, phase=k.PHASE_DRAW)
    assert act(game, row) == k.TAKE + 1  # the top 2: Knight 5-8 and Pawn 1-3 are 7 cards


def test_takes_a_neutral_that_completes_a_group():
    hand = [card(KNIGHT, 5), card(KNIGHT, 7), *JUNK]
    table = [card(PAWN, n) for n in (1, 2, 3)]
    game, row = situation(hand, table=table, discard=[N], opened=True, phase=k.PHASE_DRAW)
    assert act(game, row) == k.TAKE


def test_discards_neither_a_card_of_a_group_in_hand_nor_a_neutral():
    # Pawn 1-3 form a group (its ends have 3 neighbour points); the square Rook/Queen 5-6
    # forms none (4 points each): one of the square goes
    square = [card(ROOK, 5), card(ROOK, 6), card(QUEEN, 5), card(QUEEN, 6)]
    game, row = situation(PAWNS[:3] + square + [N], phase=k.PHASE_DISCARD)
    assert act(game, row) - k.DISCARD in square


def test_discards_the_loneliest_card():
    # Pawn 1, 2, N, 4 is a group; Bishop 5 and 7 are two apart; Joker 9 has no one
    hand = PAWNS[:2] + [card(PAWN, 4), card(BISHOP, 5), card(BISHOP, 7), card(JOKER, 9), N]
    game, row = situation(hand, phase=k.PHASE_DISCARD)
    assert act(game, row) == k.DISCARD + card(JOKER, 9)


@pytest.mark.parametrize(
    "agents, games, least",
    [(["heuristic", "random"], 24, 0.8), (["heuristic", "random", "random", "random"], 12, 0.6)],
)
def test_beats_random(agents, games, least):
    # measured over 400 games: 1.000 [0.990, 1.000] at 2 and at 4 players
    ev = evaluate("rummidrez_v0", agents, games=games, seed=7, workers=1, progress=False)
    assert ev[0].win_rate >= least


@pytest.mark.parametrize("config", [dict(neutral_at_ends=True), dict(rediscard=False)])
def test_plays_legally_under_the_options(config):
    # evaluate raises on an illegal action
    ev = evaluate(
        "rummidrez_v0", ["heuristic"] * 3, games=6, seed=3, workers=1, progress=False, **config
    )
    assert ev.truncated == 0


@pytest.mark.slow
@pytest.mark.parametrize("hints", [False, True])
@pytest.mark.parametrize("seed", [1, 2])
def test_solo_reaches_the_optimum(seed, hints):
    """Solo: the fewest drawn cards that form a valid table is fixed by the shuffle. With
    `hints` the policy plays the hint (the engine's check, `FITS`) instead of checking."""
    game = RummidrezSolo(hints=hints)
    row = game.new_row()
    game.reset_row(row, seed)
    counts = np.zeros(k.NUM_IDS, dtype=np.int64)
    best = 0
    for i in range(k.NUM_CARDS):  # the draw order: the 14 dealt first, then the pile's top
        counts[row[k.DRAW_PILE + k.NUM_CARDS - 1 - i]] += 1
        if i >= k.HAND_SIZE - 1 and table_valid(
            counts[:54].reshape(6, 9).copy(), counts[54], False
        ):
            best = i + 1
            break
    while row[layout.STATUS] == layout.RUNNING:
        k.step(row, act(game, row), np.zeros(1, dtype=np.float32))
    assert k.solo_score(row) == best


def top_of_discard(row, depth: int) -> np.ndarray:
    counts = np.zeros(k.NUM_IDS, dtype=np.float32)
    for d in range(depth):
        counts[row[k.DISCARD_PILE + row[k.DISCARD_N] - 1 - d]] += 1
    return counts


@pytest.mark.parametrize("num_players", [2, 3])
def test_the_hint_is_the_heuristics_move_in_every_phase(num_players):
    """With `hints` the observation names the heuristic's move: in the draw phase the top k
    cards of the discard pile it takes (none: it draws), in the meld phase the cards it would
    still place, in the discard phase the card it discards; nothing for hands over
    HINT_MAX_HAND cards. The heuristic reading the hint plays what it computes without it."""
    hinted = Rummidrez(num_players=num_players, hints=True, max_turns=40)
    plain = Rummidrez(num_players=num_players, max_turns=40)
    start, size = k.obs_slices(num_players, True)["hint"]
    rng = np.random.default_rng(num_players)
    obs = np.zeros((1, hinted.obs_size), dtype=np.float32)
    plain_obs = np.zeros((1, plain.obs_size), dtype=np.float32)
    mask = np.zeros((1, k.NUM_ACTIONS), dtype=np.int8)
    checked = {"take": 0, "draw": 0, "place": 0, "end": 0, "discard": 0, "large": 0}
    for seed in range(8):
        row = hinted.new_row()
        hinted.reset_row(row, seed)
        while row[layout.STATUS] == layout.RUNNING:
            p = row[layout.PLAYER]
            k.observe(row, p, obs[0])
            k.legal(row, mask[0])
            plain_row = row.copy()
            plain_row[k.CFG_HINTS] = 0
            k.observe(plain_row, p, plain_obs[0])
            np.testing.assert_array_equal(obs[0, : plain.obs_size], plain_obs[0])
            action = int(plain.heuristic_actions(plain_obs, mask)[0])
            assert int(hinted.heuristic_actions(obs, mask)[0]) == action
            hint = obs[0, start : start + size]
            if plain_obs[0, : k.NUM_IDS].sum() > k.HINT_MAX_HAND:
                assert not hint.any()
                checked["large"] += 1
            elif row[k.PHASE] == k.PHASE_DRAW:
                depth = 0 if action == k.DRAW else action - k.TAKE + 1
                np.testing.assert_array_equal(hint, top_of_discard(row, depth))
                checked["take" if depth else "draw"] += 1
            elif row[k.PHASE] == k.PHASE_MELD:
                if k.PLACE <= action < k.UNDO:
                    assert hint[action - k.PLACE] >= 1
                    checked["place"] += 1
                else:  # nothing to place, or `max_placements` allows no more this turn
                    assert not hint.any() or not mask[0, k.PLACE : k.UNDO].any()
                    checked["end"] += 1
            else:
                expected = np.zeros(k.NUM_IDS, dtype=np.float32)
                expected[action - k.DISCARD] = 1
                np.testing.assert_array_equal(hint, expected)
                checked["discard"] += 1
            assert k.check_invariants(row) == 0
            if p != 0 and rng.random() < 0.5:  # random moves reach other positions
                action = int(rng.choice(np.flatnonzero(mask[0])))
            k.step(row, action, np.zeros(num_players, dtype=np.float32))
    assert min(checked.values()) >= 5, checked
