"""PettingZoo API conformance and the env's own contract (errors, rendering, state_dict)."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest
from helpers_no_thanks import (
    ENV_ID,
    NO_THANKS,
    PLAYER_COUNTS,
    TAKE,
    make_env,
    pick_action,
    ref_from_env,
)
from pettingzoo.test import api_test, seed_test

import card_envs

STATE_KEYS = {
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
@pytest.mark.filterwarnings("ignore:Observation:UserWarning")
@pytest.mark.parametrize("public_tokens", [False, True])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_api_test(num_players, public_tokens):
    env = make_env(num_players, public_tokens=public_tokens)
    api_test(env, num_cycles=200)


@pytest.mark.parametrize("public_tokens", [False, True])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_seed_test(num_players, public_tokens):
    seed_test(lambda: make_env(num_players, public_tokens=public_tokens), num_cycles=200)


# --- full episodes ------------------------------------------------------------------------


@pytest.mark.parametrize("reward", ["win", "score"])
def test_many_full_episodes(reward):
    rng = random.Random(2024)
    envs = {n: make_env(n, reward=reward) for n in PLAYER_COUNTS}
    for episode in range(200):
        n = PLAYER_COUNTS[episode % len(PLAYER_COUNTS)]
        env = envs[n]
        env.reset(seed=episode)
        ref = ref_from_env(env)
        p_take = rng.uniform(0.05, 0.95)
        assert env.agents == env.possible_agents and env.num_agents == n
        assert env.agents is not env.possible_agents
        steps = 0
        finals = {}
        for agent in env.agent_iter(max_iter=10_000):
            obs, r, term, trunc, info = env.last()
            assert not trunc
            if term:
                # a dead step: last() still works, with an all-zero mask
                assert obs["action_mask"].tolist() == [0, 0]
                assert "score" in info
                finals[agent] = r
                with pytest.raises(ValueError):
                    env.step(TAKE)  # only None is allowed for a finished agent
                env.step(None)
                continue
            assert r == 0.0  # no reward before the end
            assert agent == f"player_{ref.player}"
            action = pick_action(obs["action_mask"], rng, p_take)
            env.step(action)
            ref.step(action)
            steps += 1
        assert env.agents == []
        assert sorted(finals) == sorted(env.possible_agents)
        assert ref.done
        expected = dict(zip(env.possible_agents, ref.rewards(reward), strict=True))
        assert finals == pytest.approx(expected)
        if reward == "win":
            assert sum(finals.values()) == pytest.approx(1.0)
            assert all(v in (0.0, pytest.approx(1.0 / len(ref.winners()))) for v in finals.values())
        assert steps >= 24


def test_reset_after_game_restores_agents_and_dicts():
    env = make_env(4)
    env.reset(seed=1)
    for _ in range(24):
        env.step(TAKE)
    for _agent in env.agent_iter():
        env.step(None)
    assert env.agents == []
    env.reset(seed=2)
    assert env.agents == env.possible_agents
    for d in (env.rewards, env._cumulative_rewards, env.terminations, env.truncations):
        assert set(d) == set(env.possible_agents)
    assert not any(env.terminations.values())
    assert env.infos == {a: {} for a in env.possible_agents}
    assert env.agent_selection == "player_0"


# --- spaces -------------------------------------------------------------------------------


@pytest.mark.parametrize("public_tokens", [False, True])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_spaces_are_stable_objects(num_players, public_tokens):
    env = make_env(num_players, public_tokens=public_tokens)
    assert env.possible_agents == [f"player_{i}" for i in range(num_players)]
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == 2
    env.reset(seed=0)
    space = env.observation_space("player_0")
    env.step(NO_THANKS)
    assert env.observation_space("player_0") is space
    obs = env.observe("player_1")
    assert obs["observation"].dtype == np.float32
    assert obs["action_mask"].dtype == np.int8
    assert space.contains(obs)


def test_observe_returns_fresh_arrays():
    env = make_env(3)
    env.reset(seed=0)
    a = env.observe("player_0")
    a["observation"][:] = -1
    a["action_mask"][:] = 0
    b = env.observe("player_0")
    assert b["observation"].min() >= 0
    assert b["action_mask"].tolist() == [1, 1]


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


def test_render_human_prints(capsys):
    env = make_env(3, render_mode="human")
    env.reset(seed=3)
    capsys.readouterr()
    assert env.render() is None
    out = capsys.readouterr().out
    assert str(env.state_dict()["current_card"]) in out
    env.step(NO_THANKS)  # human mode renders after each step
    assert capsys.readouterr().out.strip()


def test_render_without_mode_returns_none():
    env = make_env(3)
    env.reset(seed=3)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_bad_render_mode_raises():
    with pytest.raises(ValueError, match="rgb_array"):
        make_env(3, render_mode="rgb_array")


# --- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda env: env.step(TAKE),
        lambda env: env.observe("player_0"),
        lambda env: env.state_dict(),
    ],
    ids=["step", "observe", "state_dict"],
)
def test_use_before_reset_raises(call):
    env = make_env(3)
    with pytest.raises(RuntimeError, match="reset"):
        call(env)


def test_last_before_reset_raises():
    env = make_env(3)
    with pytest.raises(RuntimeError, match="reset"):
        env.last()


def test_unknown_env_id_raises_naming_it_and_listing_ids():
    for factory in (card_envs.make, lambda name: card_envs.make_vec(name, 2)):
        with pytest.raises(ValueError) as err:
            factory("no_such_game_v9")
        assert "no_such_game_v9" in str(err.value)
        assert ENV_ID in str(err.value)
    assert ENV_ID in card_envs.env_ids()


@pytest.mark.parametrize("bad", [2, 8, 0, -3, 100])
def test_bad_player_count(bad):
    for factory in (card_envs.make, lambda name, **kw: card_envs.make_vec(name, 2, **kw)):
        with pytest.raises(ValueError) as err:
            factory(ENV_ID, num_players=bad)
        msg = str(err.value)
        assert "num_players" in msg
        assert re.search(rf"(?<![\d-]){bad}(?!\d)", msg), msg
        assert re.search(r"(?<!\d)3(?!\d).*(?<!\d)7(?!\d)", msg), msg


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


@pytest.mark.parametrize("bad", [2, -1, 99, None, 0.0, 1.0, "0", True, np.array([0])])
def test_out_of_range_or_malformed_action_raises(bad):
    env = make_env(3)
    env.reset(seed=4)
    before = env.state_dict()
    with pytest.raises(ValueError):
        env.step(bad)
    assert env.state_dict() == before


@pytest.mark.parametrize("action", [np.int64(1), np.int8(1), np.uint8(1)])
def test_numpy_integer_actions_are_accepted(action):
    env = make_env(3)
    env.reset(seed=4)
    env.step(action)
    assert env.state_dict()["pot"] == 1


@pytest.mark.parametrize("num_players", [3, 7])
def test_penalize_mode_gives_minus_one_and_ends_the_game(num_players):
    env = make_env(num_players, illegal_action="penalize")
    env.reset(seed=6)
    drain_tokens(env)
    with pytest.warns(UserWarning, match="illegal"):
        env.step(NO_THANKS)  # illegal: seat 0 has no token
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -1.0
    assert all(env.rewards[a] == 0.0 for a in env.possible_agents[1:])
    assert env.infos["player_0"].get("illegal_move") is True
    got = {}
    for agent in env.agent_iter():
        obs, r, term, _, _ = env.last()
        assert term
        assert obs["action_mask"].tolist() == [0, 0]
        got[agent] = r
        env.step(None)
    assert got == {a: (-1.0 if a == "player_0" else 0.0) for a in env.possible_agents}
    assert env.agents == []
    env.reset(seed=1)  # a new game works normally
    assert env.agents == env.possible_agents and not any(env.terminations.values())


def test_penalize_mode_plays_legal_actions_normally():
    env = make_env(3, illegal_action="penalize")
    env.reset(seed=6)
    ref = ref_from_env(env)
    for action in (NO_THANKS, NO_THANKS, TAKE, TAKE, NO_THANKS):
        env.step(action)
        ref.step(action)
    assert env.state_dict() == ref.state()
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


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_reset_with_seed_is_reproducible(num_players):
    a, b = make_env(num_players), make_env(num_players)
    a.reset(seed=123)
    b.reset(seed=999)
    b.step(NO_THANKS)
    b.reset(seed=123)  # reseeding overrides any earlier use
    assert a.state_dict() == b.state_dict()
    # reset() without a seed continues each env's own stream identically
    for _ in range(3):
        a.reset()
        b.reset()
        assert a.state_dict() == b.state_dict()


def test_reset_without_seed_continues_the_stream():
    env = make_env(3)
    env.reset(seed=5)
    first = env.state_dict()
    env.reset()
    second = env.state_dict()
    assert (first["deck"], first["removed"]) != (second["deck"], second["removed"])
    env.reset(seed=5)
    assert env.state_dict() == first


def test_unseeded_envs_deal_different_games():
    deals = set()
    for _ in range(5):
        env = make_env(3)
        env.reset()
        s = env.state_dict()
        deals.add((s["current_card"], *s["deck"], *s["removed"]))
    assert len(deals) == 5


@pytest.mark.parametrize("seed", [1.5, "7", True, [1]])
def test_non_int_seed_raises(seed):
    env = make_env(3)
    with pytest.raises(TypeError):
        env.reset(seed=seed)
