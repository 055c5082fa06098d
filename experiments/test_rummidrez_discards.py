"""`python -m experiments.rummidrez_discards`: its feed test is the next seat's real draw (no
timing asserted; the games themselves are the benchmark's, too slow to compile for a test)."""

import argparse
from itertools import pairwise

import numpy as np
import pytest

from card_envs.core import layout
from card_envs.games.rummidrez import engine as k
from card_envs.registry import make_game
from experiments import rummidrez_discards as bench
from tests.games.rummidrez.helpers import heuristic_game


@pytest.mark.parametrize("players", [2, 3])
def test_a_discard_feeds_exactly_when_the_next_seat_takes_it(players):
    game = make_game("rummidrez_v0", num_players=players)
    checked = {True: 0, False: 0}
    for seed in range(3):
        rows = heuristic_game(game, seed)
        for before, after in pairwise(rows):
            discarding = before[k.PHASE] == k.PHASE_DISCARD
            if not discarding or after[layout.STATUS] != layout.RUNNING or after[k.REFILLED]:
                continue
            card = int(after[k.DISCARD_PILE + after[k.DISCARD_N] - 1])
            seat = int(before[layout.PLAYER])
            nxt = (seat + 1) % players
            assert after[layout.PLAYER] == nxt and after[k.PHASE] == k.PHASE_DRAW
            feeds = bool(bench._feeds(before, nxt, card, False))
            obs = np.zeros((1, game.obs_size), dtype=np.float32)
            mask = np.zeros((1, game.num_actions), dtype=np.int8)
            k.observe(after, nxt, obs[0])
            k.legal(after, mask[0])
            takes = int(game.heuristic_actions(obs, mask)[0]) != k.DRAW
            assert feeds == takes
            checked[feeds] += 1
    assert checked[True] > 0 and checked[False] > 0


@pytest.mark.parametrize("text", ["oracle:8", "sampled", "sampled:8:0.3:x", "ranked:8:a", "bogus"])
def test_bad_modes_are_refused_by_name(text):
    with pytest.raises(argparse.ArgumentTypeError, match=text):
        bench.parse_mode(text)


def test_modes_name_their_determinisations():
    assert bench.parse_mode("oracle") == (bench.ORACLE, 0, 0.5, bench.PLAIN)
    assert bench.parse_mode("sampled:8:0.3") == (bench.SAMPLED, 8, 0.3, bench.PLAIN)
    assert bench.parse_mode("ranked:8:3:filtered") == (bench.RANKED, 8, 3.0, bench.FILTERED)
    assert bench.parse_mode("sampled-opened:4:0.5:passed")[3] == bench.PASSED
