"""No Thanks' own env contract: its errors, text, state_dict and options (the generic
contract is the conformance suite's)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import card_envs
from card_envs.core.loading import HEADER_KEYS, game_fields
from tests.games.no_thanks.helpers import (
    ENV_ID,
    NO_THANKS,
    PLAYER_COUNTS,
    TAKE,
    make_env,
    pick_action,
    ref_from_env,
)

STATE_KEYS = {
    *HEADER_KEYS,
    "num_players",
    "current_player",
    "current_card",
    "pot",
    "tokens",
    "cards",
    "deck",
    "removed",
    "done",
    "scores",
}


def drain_tokens(env) -> None:
    """Everybody passes until nobody has a token left; seat 0 is then to act."""
    n = env.num_agents
    for _ in range(n * env.state_dict()["tokens"][0]):
        env.step(NO_THANKS)
    assert env.state_dict()["tokens"] == [0] * n
    assert env.agent_selection == "player_0"


# --- PettingZoo's own tests ------------------------------------------------------------


# api_test's generic hints (dict observations, non-Box spaces) do not apply to masked envs


# --- full episodes ------------------------------------------------------------------------


# --- spaces -------------------------------------------------------------------------------


# --- render -------------------------------------------------------------------------------


def test_render_ansi_returns_text_with_the_card_on_offer():
    env = make_env(3, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str) and text
    assert str(env.state_dict()["current_card"]) in text
    for _ in range(24):
        env.step(TAKE)
    assert isinstance(env.render(), str)


# --- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [4.0, "4", True, None])
def test_player_count_of_wrong_type_raises(bad):
    with pytest.raises(ValueError, match="num_players"):
        make_env(bad)


def test_numpy_player_count_is_accepted():
    env = make_env(np.int64(5))
    env.reset(seed=0)
    assert env.num_agents == 5 and env.state_dict()["tokens"] == [11] * 5


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"colour": "red"}, "colour"),
        ({"num_player": 4}, "num_player"),
        ({"reward": "points"}, "points"),
        ({"public_tokens": "yes"}, "public_tokens"),
        ({"illegal_action": "ignore"}, "ignore"),
    ],
)
def test_bad_option_raises_naming_it(kwargs, name):
    with pytest.raises(ValueError, match=name):
        card_envs.make(ENV_ID, **kwargs)


def test_illegal_action_raises_with_the_legal_actions():
    env = make_env(3)
    env.reset(seed=4)
    drain_tokens(env)
    before = env.state_dict()
    with pytest.raises(ValueError) as err:
        env.step(NO_THANKS)
    assert "[0]" in str(err.value)
    assert "player_0" in str(err.value)
    assert env.state_dict() == before
    assert env.agent_selection == "player_0"
    env.step(TAKE)  # the env is still usable
    assert env.state_dict()["tokens"][0] == 33


@pytest.mark.parametrize("action", [np.int64(1), np.int8(1), np.uint8(1)])
def test_numpy_integer_actions_are_accepted(action):
    env = make_env(3)
    env.reset(seed=4)
    env.step(action)
    assert env.state_dict()["pot"] == 1


def test_penalize_mode_plays_legal_actions_normally():
    env = make_env(3, illegal_action="penalize")
    env.reset(seed=6)
    ref = ref_from_env(env)
    for action in (NO_THANKS, NO_THANKS, TAKE, TAKE, NO_THANKS):
        env.step(action)
        ref.step(action)
    assert game_fields(env.state_dict()) == ref.state()
    assert not any(env.terminations.values())


# --- state_dict and seeding -----------------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_state_dict_is_json_and_has_the_keys(num_players):
    env = make_env(num_players)
    env.reset(seed=num_players)
    rng = random.Random(0)
    while True:
        s = env.state_dict()
        assert set(s) == STATE_KEYS
        assert json.loads(json.dumps(s)) == s
        assert s["num_players"] == num_players
        assert len(s["tokens"]) == len(s["cards"]) == len(s["scores"]) == num_players
        assert all(hand == sorted(hand) for hand in s["cards"])
        if s["done"]:
            assert s["current_card"] is None
            break
        env.step(pick_action(env.observe(env.agent_selection)["action_mask"], rng, 0.4))


def test_state_dict_is_a_copy():
    env = make_env(3)
    env.reset(seed=0)
    s = env.state_dict()
    s["tokens"][0] = 99
    s["deck"].clear()
    assert env.state_dict()["tokens"][0] == 11
    assert len(env.state_dict()["deck"]) == 23
