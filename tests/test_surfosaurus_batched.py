"""Surfosaurus MAX: the batched env against the AEC env and the reference game."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers_surfosaurus import ENV_ID, PLAYER_COUNTS, make_env, ref_from_env

import card_envs
from card_envs.core.batched import SKIP
from card_envs.games.surfosaurus import engine as k


def make_vec(num_envs, seed=None, **config):
    return card_envs.make_vec(ENV_ID, num_envs, seed=seed, **config)


def deal_of(row: np.ndarray) -> tuple[int, ...]:
    return tuple(int(c) for c in row[k.DECK : k.DECK + k.NUM_CARDS])


def choose(mask: np.ndarray, rng: random.Random) -> int:
    return rng.choice(np.flatnonzero(mask).tolist())


@pytest.mark.parametrize("reward", ["win", "score"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_batched_matches_aec_and_reference_over_several_games(num_players, reward):
    num_envs, seed, games_wanted = 3, 500 * num_players, 2
    config = dict(num_players=num_players, reward=reward)
    vec = make_vec(num_envs, seed=seed, **config)
    obs, masks = vec.reset()
    aecs = [card_envs.make(ENV_ID, **config) for _ in range(num_envs)]
    refs = []
    for i, env in enumerate(aecs):
        env.reset(seed=seed + i)
        refs.append(ref_from_env(env))
    rng = random.Random(num_players)
    games = [0] * num_envs

    def compare_live(i):
        env = aecs[i]
        seat = vec.current_player[i]
        assert env.agent_selection == f"player_{seat}" == f"player_{refs[i].player}"
        o = env.observe(env.agent_selection)
        np.testing.assert_array_equal(obs[i], o["observation"])
        np.testing.assert_array_equal(masks[i], o["action_mask"])
        np.testing.assert_array_equal(
            obs[i], np.array(refs[i].observation(int(seat)), dtype=np.float32)
        )
        assert deal_of(vec.states[i]) == deal_of(env._row)

    for i in range(num_envs):
        compare_live(i)
    steps = 0
    while min(games) < games_wanted:
        actions = np.array([choose(masks[i], rng) for i in range(num_envs)])
        obs, masks, rewards, terminated, truncated = vec.step(actions)
        steps += 1
        assert rewards.shape == (num_envs, num_players)
        for i, env in enumerate(aecs):
            env.step(int(actions[i]))
            refs[i].step(int(actions[i]))
            aec_rewards = [env.rewards[a] for a in env.possible_agents]
            np.testing.assert_array_equal(rewards[i], np.array(aec_rewards, np.float32))
            assert bool(terminated[i]) == all(env.terminations.values()) == refs[i].done
            assert not truncated[i]
            if terminated[i]:
                games[i] += 1
                np.testing.assert_allclose(rewards[i], refs[i].rewards(reward), rtol=1e-6)
                scores = [env.infos[a]["score"] for a in env.possible_agents]
                assert vec.final_scores[i].tolist() == scores == refs[i].scores()
                wins = [env.infos[a]["win"] for a in env.possible_agents]
                assert vec.final_wins[i].tolist() == pytest.approx(wins)
                assert wins == pytest.approx(refs[i].wins())
                for seat, agent in enumerate(env.possible_agents):
                    np.testing.assert_array_equal(
                        vec.final_observations[i, seat], env.observe(agent)["observation"]
                    )
                env.reset()  # no seed: continues the stream, like the auto-reset
                refs[i] = ref_from_env(env)
            compare_live(i)
    expected_length = {2: 36, 3: 54, 4: 64, 5: 50, 6: 72}[num_players]
    assert steps == games_wanted * expected_length  # every instance has the same length


@pytest.mark.parametrize("num_players", [2, 5])
def test_same_seed_same_trajectory(num_players):
    def run():
        vec = make_vec(3, seed=77, num_players=num_players)
        obs, masks = vec.reset()
        rng = random.Random(5)
        trace = [(obs.copy(), masks.copy(), vec.states.copy())]
        for _ in range(120):
            actions = [choose(masks[i], rng) for i in range(3)]
            obs, masks, rewards, term, trunc = vec.step(actions)
            trace.append((obs.copy(), masks.copy(), rewards.copy(), term.copy(), trunc.copy()))
        return trace

    a, b = run(), run()
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_shapes_dtypes_and_first_seat(num_players):
    vec = make_vec(4, seed=0, num_players=num_players)
    obs, masks = vec.reset()
    env = make_env(num_players)
    space = env.observation_space("player_0")["observation"]
    assert obs.shape == (4, space.shape[0]) and obs.dtype == np.float32
    assert masks.shape == (4, 84) and masks.dtype == np.int8
    assert (masks.sum(axis=1) == 7).all()  # seven cards in hand
    assert vec.current_player.tolist() == [0] * 4
    assert (obs >= space.low).all() and (obs <= space.high).all()
    for i in range(4):
        env.reset(seed=i)
        assert deal_of(vec.states[i]) == deal_of(env._row)
        np.testing.assert_array_equal(obs[i], env.observe("player_0")["observation"])
    assert vec.final_scores.shape == vec.final_wins.shape == (4, num_players)


def test_illegal_card_raises_naming_the_instance_and_steps_nothing():
    vec = make_vec(3, seed=9, num_players=3)
    _, masks = vec.reset()
    legal = [int(np.flatnonzero(m)[0]) for m in masks]
    illegal = int(np.flatnonzero(masks[1] == 0)[0])
    states = vec.states.copy()
    with pytest.raises(ValueError, match=r"instance 1\b"):
        vec.step([legal[0], illegal, legal[2]])
    np.testing.assert_array_equal(vec.states, states)
    vec.step(legal)  # still usable
    assert vec.current_player.tolist() == [1, 1, 1]


@pytest.mark.parametrize("bad", [84, -2, 1000])
def test_out_of_range_action_raises(bad):
    vec = make_vec(2, seed=9)
    _, masks = vec.reset()
    with pytest.raises(ValueError, match="instance 1"):
        vec.step([int(np.flatnonzero(masks[0])[0]), bad])


def test_skip_leaves_an_instance_untouched():
    vec = make_vec(3, seed=12, num_players=4)
    _, masks = vec.reset()
    before = vec.states.copy()
    a = int(np.flatnonzero(masks[1])[0])
    _, _, rewards, term, trunc = vec.step([SKIP, a, SKIP])
    np.testing.assert_array_equal(vec.states[[0, 2]], before[[0, 2]])
    assert not rewards.any() and not term.any() and not trunc.any()
    assert vec.current_player.tolist() == [0, 1, 0]
