"""Surfosaurus MAX: PettingZoo API conformance and the env's own contract (spaces, errors,
rendering, state_dict, seeding), with many full episodes against the reference."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from helpers_aec import last_rewards
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
from pettingzoo.test import api_test, seed_test
from reference_surfosaurus import card_of

import card_envs
from card_envs.games.surfosaurus import Surfosaurus, showdown

GAME_LENGTH = {2: 36, 3: 54, 4: 64, 5: 50, 6: 72}


def first_legal(env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def first_illegal(env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])


# --- PettingZoo's own tests ------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Observation:UserWarning")
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_api_test(num_players):
    api_test(make_env(num_players), num_cycles=100)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_seed_test(num_players):
    seed_test(lambda: make_env(num_players), num_cycles=100)


def test_registered():
    assert ENV_ID in card_envs.env_ids()
    env = card_envs.make(ENV_ID)
    assert isinstance(env.game, Surfosaurus)
    assert env.possible_agents == ["player_0", "player_1"]  # 2 players by default
    assert callable(showdown)


# --- full episodes ------------------------------------------------------------------------


@pytest.mark.parametrize("reward", ["win", "score"])
def test_many_full_episodes(reward):
    rng = random.Random(2024)
    envs = {n: make_env(n, reward=reward) for n in PLAYER_COUNTS}
    for episode in range(150):
        n = PLAYER_COUNTS[episode % len(PLAYER_COUNTS)]
        env = envs[n]
        env.reset(seed=episode)
        ref = ref_from_env(env)
        assert env.agents == env.possible_agents and env.num_agents == n
        steps = 0
        finals = {}
        for agent in env.agent_iter(max_iter=1000):
            obs, r, term, trunc, info = env.last()
            assert not trunc
            if term:
                assert not obs["action_mask"].any()  # a dead step: empty mask
                assert set(info) >= {"score", "win"}
                finals[agent] = r
                with pytest.raises(ValueError):
                    env.step(0)  # only None is allowed for a finished agent
                env.step(None)
                continue
            assert r == 0.0
            assert agent == f"player_{ref.player}"
            action = random_action(obs["action_mask"], rng)
            env.step(action)
            ref.step(action)
            steps += 1
        assert env.agents == []
        assert ref.done and steps == GAME_LENGTH[n]
        expected = dict(zip(env.possible_agents, ref.rewards(reward), strict=True))
        assert finals == pytest.approx(expected)
        if reward == "win":
            assert sum(finals.values()) == pytest.approx(1.0)


def test_reset_after_game_restores_agents_and_dicts():
    env = make_env(3)
    env.reset(seed=1)
    while not env.state_dict()["done"]:
        env.step(first_legal(env))
    for _agent in env.agent_iter():
        env.step(None)
    assert env.agents == []
    env.reset(seed=2)
    assert env.agents == env.possible_agents
    assert not any(env.terminations.values())
    assert env.infos == {a: {} for a in env.possible_agents}
    assert env.agent_selection == "player_0"
    assert env.state_dict()["round"] == 0


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


def test_observe_returns_fresh_arrays():
    env = make_env(3)
    env.reset(seed=0)
    a = env.observe("player_0")
    a["observation"][:] = -1
    a["action_mask"][:] = 0
    b = env.observe("player_0")
    assert b["observation"].min() >= 0 and b["action_mask"].sum() == 7


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


def test_render_human_prints(capsys):
    env = make_env(2, render_mode="human")
    env.reset(seed=3)
    capsys.readouterr()
    assert env.render() is None
    assert capsys.readouterr().out.strip()
    env.step(first_legal(env))
    assert capsys.readouterr().out.strip()


# --- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda env: env.step(0),
        lambda env: env.observe("player_0"),
        lambda env: env.state_dict(),
        lambda env: env.last(),
    ],
    ids=["step", "observe", "state_dict", "last"],
)
def test_use_before_reset_raises(call):
    with pytest.raises(RuntimeError, match="reset"):
        call(make_env(3))


@pytest.mark.parametrize("bad", [1, 7, 0, -2])
def test_bad_player_count(bad):
    for factory in (card_envs.make, lambda name, **kw: card_envs.make_vec(name, 2, **kw)):
        with pytest.raises(ValueError, match="num_players"):
            factory(ENV_ID, num_players=bad)


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


@pytest.mark.parametrize("bad", [84, -1, None, 1.0, "3", True, np.array([3])])
def test_out_of_range_or_malformed_action_raises(bad):
    env = make_env(3)
    env.reset(seed=4)
    before = env.state_dict()
    with pytest.raises(ValueError):
        env.step(bad)
    assert env.state_dict() == before


def test_numpy_integer_actions_are_accepted():
    env = make_env(3)
    env.reset(seed=4)
    env.step(np.int16(first_legal(env)))
    assert env.state_dict()["play_in_round"] == 1


def test_penalize_mode_gives_minus_one_and_ends_the_game():
    env = make_env(4, illegal_action="penalize")
    env.reset(seed=6)
    env.step(first_legal(env))
    with pytest.warns(UserWarning, match="illegal"):
        env.step(first_illegal(env))  # seat 1 plays a card it does not hold
    assert all(env.terminations.values())
    assert env.rewards["player_1"] == -1.0
    got = last_rewards(env)
    assert got == {a: (-1.0 if a == "player_1" else 0.0) for a in env.possible_agents}


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


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_reset_with_seed_is_reproducible(num_players):
    a, b = make_env(num_players), make_env(num_players)
    a.reset(seed=123)
    b.reset(seed=999)
    b.step(first_legal(b))
    b.reset(seed=123)
    assert a.state_dict() == b.state_dict()
    for _ in range(3):
        a.reset()
        b.reset()
        assert a.state_dict() == b.state_dict()


def test_unseeded_envs_deal_different_games():
    deals = set()
    for _ in range(5):
        env = make_env(2)
        env.reset()
        deals.add(json.dumps(env.state_dict()["hands"]))
    assert len(deals) == 5


@pytest.mark.parametrize("seed", [1.5, "7", True])
def test_non_int_seed_raises(seed):
    with pytest.raises(TypeError):
        make_env(3).reset(seed=seed)
