"""`python -m benchmarks.game_lengths --env`: whole games, one per row (no timing asserted)."""

import numpy as np
import pytest

from benchmarks import game_lengths
from card_envs import make_vec
from card_envs.core.batched import SKIP

pytestmark = pytest.mark.slow  # see pyproject's markers: out of the fast tier

ENV = "super_zwierzaki_v0"


def batched_heuristic_lengths(config: dict, games: int, seed: int) -> tuple[np.ndarray, ...]:
    """Steps and truncation of the first game of each instance of make_vec, every seat the
    heuristic (deterministic, so the same games as `play_games` must play)."""
    venv = make_vec(ENV, games, seed=seed, **config)
    obs, masks = venv.reset()
    steps = np.zeros(games, dtype=np.int64)
    truncated = np.zeros(games, dtype=bool)
    done = np.zeros(games, dtype=bool)
    while not done.all():
        actions = np.where(done, SKIP, venv.game.heuristic_actions(obs, masks))
        _, masks, _, term, trunc = venv.step(actions)
        obs = venv.observations
        steps += ~done
        truncated |= trunc & ~done
        done |= term | trunc
    return steps, truncated


def test_heuristic_games_match_the_batched_env():
    config = {"num_players": 3, "max_turns": 60}
    res = game_lengths.play_games(ENV, config, "heuristic", 16, seed=7)
    steps, truncated = batched_heuristic_lengths(config, 16, seed=7)
    assert np.array_equal(res["steps"], steps)
    assert np.array_equal(res["truncated"], truncated)
    assert (res["steps"] > 0).all()


def test_truncated_games_stop_at_the_cap():
    for policy in game_lengths.POLICIES:
        res = game_lengths.play_games(ENV, {"num_players": 4, "max_turns": 25}, policy, 12, 1)
        assert res["truncated"].any(), policy
        assert (res["turns"][res["truncated"]] == 25).all(), policy
        assert (res["turns"] <= 25).all() and (res["steps"] > 0).all(), policy


def test_skip_forced_asks_fewer_decisions_in_the_same_heuristic_games():
    base = {"num_players": 4, "max_turns": 40}
    asked = game_lengths.play_games(ENV, base, "heuristic", 8, 2)
    skipped = game_lengths.play_games(ENV, {**base, "skip_forced": True}, "heuristic", 8, 2)
    assert np.array_equal(asked["turns"], skipped["turns"])
    assert np.array_equal(asked["truncated"], skipped["truncated"])
    assert (skipped["steps"] <= asked["steps"]).all() and skipped["steps"].sum() < asked[
        "steps"
    ].sum()


def test_wilson_interval():
    lo, hi = game_lengths.wilson(45, 100)
    assert 0.35 < lo < 0.45 < hi < 0.55
    assert game_lengths.wilson(0, 10)[0] < 1e-12 and game_lengths.wilson(10, 10)[1] > 1 - 1e-12
