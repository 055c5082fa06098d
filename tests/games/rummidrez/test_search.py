"""Rummidrez's `ismcts` (`games/rummidrez/search.py` on `core.ismcts`'s PAIRED search): it
weighs only laying down or holding a meld, plays the heuristic's move everywhere else,
decides by the paired rule on whole simulations, and scores a simulation by win share and
cards left, as a plain-Python reference computes them."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs.agents.ismcts import ISMCTSAgent
from card_envs.core import ismcts, layout
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez import search
from card_envs.registry import make_game
from tests.games.rummidrez.helpers import heuristic_game

SIMULATIONS = 8


def heuristic_move(game, row: np.ndarray) -> int:
    obs = np.zeros((1, game.obs_size), dtype=np.float32)
    mask = np.zeros((1, game.num_actions), dtype=np.int8)
    k.observe(row, row[layout.PLAYER], obs[0])
    k.legal(row, mask[0])
    return int(game.heuristic_actions(obs, mask)[0])


def test_it_weighs_only_laying_down_or_holding_a_meld():
    """Where the heuristic would place a card and ending the meld phase is legal (nothing
    placed yet, or the placed cards make a valid table), the search weighs that placement
    against END_MELD; at every other decision it weighs nothing."""
    game = make_game("rummidrez_v0")
    weighed = 0
    for row in heuristic_game(game, 0)[:-1]:
        h = heuristic_move(game, row)
        mask = np.zeros(game.num_actions, dtype=np.int8)
        k.legal(row, mask)
        placing = row[k.PHASE] == k.PHASE_MELD and k.PLACE <= h < k.UNDO
        expected = [h, k.END_MELD] if placing and mask[k.END_MELD] else [h]
        assert sorted(game.searched_moves(row)) == sorted(expected)
        weighed += len(expected) == 2
    assert weighed >= 2


def test_it_plays_the_heuristic_except_where_it_weighs_and_sometimes_holds():
    game = make_game("rummidrez_v0")
    agent = ISMCTSAgent(game, SIMULATIONS, seed=0)
    held = laid = 0
    for seed in range(3):
        for row in heuristic_game(game, seed)[:-1]:
            mask = np.zeros((1, game.num_actions), dtype=np.int8)
            k.legal(row, mask[0])
            move = int(agent.act_rows(row[None], mask)[0])
            h = heuristic_move(game, row)
            if len(game.searched_moves(row)) == 1:
                assert move == h
            else:
                assert move in (h, k.END_MELD)
                held += move == k.END_MELD
                laid += move == h
    assert held > 0 and laid > 0


def test_the_paired_rule_matches_a_reference():
    """Every weighed move is played in the same number of simulations; the move is the
    heuristic's unless another's summed value beats it by PAIRED_MARGIN a round."""
    game = make_game("rummidrez_v0")
    agent = ISMCTSAgent(game, SIMULATIONS, seed=1)
    checked = 0
    for row in heuristic_game(game, 4)[:-1]:
        weighed = game.searched_moves(row)
        if len(weighed) < 2:
            continue
        mask = np.zeros((1, game.num_actions), dtype=np.int8)
        k.legal(row, mask[0])
        move = int(agent.act_rows(row[None], mask)[0])
        child, visits, _, value, _ = agent._tree
        rounds = SIMULATIONS // len(weighed)
        assert visits[0] == rounds * len(weighed)
        assert [visits[child[0, a]] for a in weighed] == [rounds] * len(weighed)
        assert (child[0, np.setdiff1d(np.arange(game.num_actions), weighed)] < 0).all()
        h = heuristic_move(game, row)
        best = max(weighed, key=lambda a: (value[child[0, a]], a == h))
        beats = value[child[0, best]] > value[child[0, h]] + ismcts.PAIRED_MARGIN * rounds
        assert move == (best if beats else h)
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("players", [2, 3])
def test_a_simulation_is_scored_by_win_share_and_cards_left(players):
    """On the ends of whole games (a winner) and of games cut by `max_turns` (none)."""
    games = [make_game("rummidrez_v0", num_players=players, max_turns=t) for t in (100, 6)]
    finished = [heuristic_game(game, seed)[-1] for game in games for seed in range(3)]
    assert {int(row[k.WINNER]) >= 0 for row in finished} == {True, False}
    for row in finished:
        assert row[layout.STATUS] != layout.RUNNING
        scores, shares = np.zeros(players), np.zeros(players)
        k.outcome(row, scores, shares)
        scores2, values = np.zeros(players), np.zeros(players)
        search.search_value(row, scores2, values)
        np.testing.assert_array_equal(scores2, scores)
        cards = [int(row[k.HAND + q * k.NUM_IDS : k.HAND + (q + 1) * k.NUM_IDS].sum())
                 for q in range(players)]  # fmt: skip
        for q in range(players):
            others = (sum(cards) - cards[q]) / (players - 1)
            raw = shares[q] + (others - cards[q]) / search.CARDS_SCALE
            assert values[q] == pytest.approx(min(max((raw + 1) / 3, 0.0), 1.0))


def test_the_solo_game_is_searched_and_scored_by_its_own_cards_left():
    """One seat has no others to compare hands with: a simulation's value is its win share
    minus its cards left / CARDS_SCALE (a division by the others' count crashed the solo
    search at its first weighed decision), and the search plays its weighed decisions."""
    game = make_game("rummidrez_solo_v0", hints=True)
    agent = ISMCTSAgent(game, SIMULATIONS, seed=2)
    weighed = 0
    for seed in range(2):
        rows = heuristic_game(game, seed)
        for row in rows[:-1]:
            moves = game.searched_moves(row)
            if len(moves) < 2:
                continue
            mask = np.zeros((1, game.num_actions), dtype=np.int8)
            k.legal(row, mask[0])
            assert int(agent.act_rows(row[None], mask)[0]) in moves
            weighed += 1
        end = rows[-1]
        scores, shares = np.zeros(1), np.zeros(1)
        k.outcome(end, scores, shares)
        values = np.zeros(1)
        search.search_value(end, np.zeros(1), values)
        raw = shares[0] - end[k.HAND : k.HAND + k.NUM_IDS].sum() / search.CARDS_SCALE
        assert values[0] == pytest.approx(min(max((raw + 1) / 3, 0.0), 1.0))
    assert weighed >= 2
