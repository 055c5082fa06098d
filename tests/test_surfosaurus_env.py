"""Surfosaurus MAX's own env contract: spaces, its errors (cards named), text and state_dict
against the reference (the generic contract is the conformance suite's)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from helpers_surfosaurus import (
    ENV_ID,
    PLAYER_COUNTS,
    STATE_KEYS,
    check_state,
    make_env,
    mask_of,
    random_action,
    ref_from_env,
    step_both,
)
from reference_surfosaurus import card_of

import card_envs
from card_envs.games.surfosaurus import Surfosaurus, showdown


def first_legal(env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def first_illegal(env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])


# --- PettingZoo's own tests ------------------------------------------------------------


def test_registered():
    assert ENV_ID in card_envs.env_ids()
    env = card_envs.make(ENV_ID)
    assert isinstance(env.game, Surfosaurus)
    assert env.possible_agents == ["player_0", "player_1"]  # 2 players by default
    assert callable(showdown)


# --- full episodes ------------------------------------------------------------------------


# --- spaces -------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_spaces(num_players):
    n = num_players
    env = make_env(n)
    size = 84 * (n + 3) + 4 * n + 3
    for agent in env.possible_agents:
        assert env.action_space(agent).n == 84
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.observation_space(agent)["observation"].shape == (size,)
        assert env.observation_space(agent)["action_mask"].shape == (84,)
    env.reset(seed=0)
    env.step(first_legal(env))
    obs = env.observe("player_1")
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert env.observation_space("player_1").contains(obs)


# --- render -------------------------------------------------------------------------------


def test_render_ansi_shows_the_display_and_the_hand():
    env = make_env(2, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str) and text
    hand = np.flatnonzero(mask_of(env, 0)).tolist()
    assert all(env.game.action_name(a) in text for a in hand)  # seat 0 sees its hand
    played = first_legal(env)
    env.step(played)
    assert env.game.action_name(played) in env.render()  # the display
    while not env.state_dict()["done"]:
        env.step(first_legal(env))
    assert isinstance(env.render(), str)


# --- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"reward": "points"}, "reward"),
        ({"colours": 7}, "colours"),
        ({"points": (1, 2, 3)}, "points"),
        ({"num_players": 3.0}, "num_players"),
    ],
)
def test_bad_option_raises_naming_it(kwargs, name):
    with pytest.raises(ValueError, match=name):
        card_envs.make(ENV_ID, **kwargs)


@pytest.mark.parametrize("num_players", [2, 6])
def test_illegal_card_raises_naming_it_and_the_legal_ones(num_players):
    env = make_env(num_players)
    env.reset(seed=4)
    before = env.state_dict()
    bad = first_illegal(env)
    with pytest.raises(ValueError) as err:
        env.step(bad)
    msg = str(err.value)
    assert str(bad) in msg and "player_0" in msg
    legal = np.flatnonzero(mask_of(env, 0)).tolist()
    assert str(legal) in msg
    assert env.game.action_name(bad) in msg  # the card by name, e.g. its colour and value
    colour, value = card_of(bad)
    assert env.game.action_name(bad).endswith(f" {value}")
    assert env.state_dict() == before
    env.step(first_legal(env))  # still usable


def test_card_of_another_seat_is_illegal():
    env = make_env(3)
    env.reset(seed=4)
    other = env.state_dict()["hands"][1][0]
    with pytest.raises(ValueError):
        env.step(other[0] * 12 + other[1] - 1)


# --- state_dict and seeding -----------------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_state_dict_is_json_and_has_the_keys(num_players):
    env = make_env(num_players)
    env.reset(seed=num_players)
    ref = ref_from_env(env)
    rng = random.Random(0)
    while True:
        s = check_state(env, ref)
        assert set(s) == STATE_KEYS
        assert json.loads(json.dumps(s)) == s
        assert all(hand == sorted(hand) for hand in s["hands"])
        assert all(isinstance(x, int) for x in s["score2"] + s["cards_collected"])
        assert all(isinstance(x, float) for x in s["scores"])
        if s["done"]:
            break
        step_both(env, ref, random_action(mask_of(env, ref.player), rng))


def test_state_dict_is_a_copy():
    env = make_env(3)
    env.reset(seed=0)
    s = env.state_dict()
    s["hands"][0].clear()
    s["draw_pile"].clear()
    assert len(env.state_dict()["hands"][0]) == 7
    assert len(env.state_dict()["draw_pile"]) == 84 - 12 - 21
