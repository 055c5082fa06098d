"""double_or_nothing_v0: PettingZoo conformance, full episodes, truncation, the batched env
against the AEC env, hidden information, observation bounds and config errors."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from reference_double_or_nothing import (
    NUM_ACTIONS,
    OBS_SIZE,
    PASS,
    RefDoubleOrNothing,
    counts_of,
    engine_order,
    scale,
)

import card_envs
from agents import make_agent
from card_envs.games.double_or_nothing import engine as k

ENV_ID = "double_or_nothing_v0"
STATE_KEYS = {
    "num_players",
    "stage",
    "current_player",
    "hands",
    "decks",
    "current_play",
    "trick",
    "leader",
    "hands_played",
    "turns",
    "cards",
    "done",
    "truncated",
}


def make_env(**config):
    return card_envs.make(ENV_ID, **config)


def random_action(mask: np.ndarray, rng: random.Random, p_pass: float = 0.2) -> int:
    """A random legal action; pass with probability p_pass when it is legal."""
    legal = np.flatnonzero(mask).tolist()
    assert legal, "no legal action"
    if PASS in legal and len(legal) > 1 and rng.random() >= p_pass:
        legal.remove(PASS)
    return rng.choice(legal)


# --- PettingZoo's own tests ------------------------------------------------------------------

CONFIGS = [
    dict(stage=stage, first_leader=first, reward=reward)
    for stage in (1, 3)
    for first in (0, 1)
    for reward in ("win", "zero_sum")
]


@pytest.mark.filterwarnings("ignore:Observation:UserWarning")
@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_pettingzoo_api_test(config):
    api_test(make_env(**config), num_cycles=300)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_pettingzoo_seed_test(config):
    seed_test(lambda: make_env(**config), num_cycles=300)


# --- full episodes ---------------------------------------------------------------------------


@pytest.mark.parametrize("reward", ["win", "zero_sum"])
def test_many_full_episodes(reward):
    """Seeded random games at stages 1-2 to the end, each checked against the reference."""
    rng = random.Random(2024)
    envs = {g: make_env(stage=g, reward=reward, first_leader=g - 1) for g in (1, 2)}
    outcomes = set()
    for episode in range(40):
        stage = 1 + episode % 2
        env = envs[stage]
        env.reset(seed=episode)
        ref = RefDoubleOrNothing.from_state(env.state_dict(), reward=reward)
        p_pass = rng.uniform(0.0, 0.6)
        finals, infos = {}, {}
        steps = 0
        for agent in env.agent_iter(max_iter=100_000):
            obs, r, term, trunc, info = env.last()
            assert not trunc
            if term:
                assert obs["action_mask"].sum() == 0
                assert set(info) >= {"score", "win"}
                finals[agent] = r
                infos[agent] = dict(info)
                with pytest.raises(ValueError):
                    env.step(0)  # a finished agent may only step None
                env.step(None)
                continue
            assert r == 0.0  # no reward before the end
            assert agent == f"player_{ref.player}"
            assert np.flatnonzero(obs["action_mask"]).tolist() == ref.legal_actions()
            action = random_action(obs["action_mask"], rng, p_pass)
            env.step(action)
            ref.step(action, engine_order(env.state_dict()))
            steps += 1
        assert env.agents == []
        assert ref.status == "terminated"
        assert env.state_dict() == ref.state()
        assert finals == dict(zip(env.possible_agents, ref.rewards(), strict=True))
        assert sum(finals.values()) == (1.0 if reward == "win" else 0.0)
        scores = [infos[a]["score"] for a in env.possible_agents]
        assert scores == ref.cards() and sum(scores) == 64 * scale(stage)
        assert [infos[a]["win"] for a in env.possible_agents] == ref.wins()
        outcomes.add(ref.winner())
        assert steps == env.state_dict()["turns"]
    assert outcomes == {0, 1}  # both seats win some games


def test_reset_after_a_game_restores_agents_and_dicts():
    env = make_env()
    env.reset(seed=1)
    rng = random.Random(0)
    while env.agents and not any(env.terminations.values()):
        env.step(random_action(env.observe(env.agent_selection)["action_mask"], rng))
    for _ in env.agent_iter():
        env.step(None)
    assert env.agents == []
    env.reset(seed=2)
    assert env.agents == env.possible_agents == ["player_0", "player_1"]
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    assert env.infos == {a: {} for a in env.possible_agents}
    assert env.agent_selection == "player_0"


# --- truncation ------------------------------------------------------------------------------


@pytest.mark.parametrize("reward", ["win", "zero_sum"])
@pytest.mark.parametrize(("stage", "max_turns"), [(1, 1), (1, 7), (2, 5), (3, 4)])
def test_truncation(stage, max_turns, reward):
    """A small max_turns cuts the game after max_turns * 2**(g-1) actions: every agent is
    truncated (not terminated), and the game counts as a draw."""
    env = make_env(stage=stage, max_turns=max_turns, reward=reward)
    env.reset(seed=stage)
    rng = random.Random(0)
    limit = max_turns * scale(stage)
    for _ in range(limit):
        assert not any(env.truncations.values())
        env.step(random_action(env.observe(env.agent_selection)["action_mask"], rng))
    s = env.state_dict()
    assert s["turns"] == limit and s["done"] and s["truncated"]
    assert all(env.truncations.values()) and not any(env.terminations.values())
    draw = 0.5 if reward == "win" else 0.0
    assert [env.rewards[a] for a in env.possible_agents] == [draw, draw]
    assert [env.infos[a]["win"] for a in env.possible_agents] == [0.5, 0.5]
    assert [env.infos[a]["score"] for a in env.possible_agents] == s["cards"]
    got = {}
    for agent in env.agent_iter():
        _, r, term, trunc, _ = env.last()
        assert trunc and not term
        got[agent] = r
        env.step(None)
    assert got == {"player_0": draw, "player_1": draw}


def test_default_max_turns_is_2000_times_the_scale():
    for stage in (1, 3):
        env = make_env(stage=stage)
        assert env._row[k.CFG_MAX_TURNS] == 2000 * scale(stage)


# --- batched vs AEC --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        dict(stage=1),
        dict(stage=2, first_leader=1, reward="zero_sum"),
        dict(stage=1, max_turns=40),  # many truncated games: auto-reset after truncation
    ],
    ids=str,
)
def test_batched_matches_aec_over_several_games(config):
    num_envs, seed, games_wanted = 3, 500, 2
    vec = card_envs.make_vec(ENV_ID, num_envs, seed=seed, **config)
    obs, masks = vec.reset()
    aecs = [make_env(**config) for _ in range(num_envs)]
    for i, env in enumerate(aecs):
        env.reset(seed=seed + i)
    rng = random.Random(1)
    games = [0] * num_envs
    ends = {"terminated": 0, "truncated": 0}

    def compare_live(i):
        env = aecs[i]
        assert env.agent_selection == f"player_{vec.current_player[i]}"
        o = env.observe(env.agent_selection)
        np.testing.assert_array_equal(obs[i], o["observation"])
        np.testing.assert_array_equal(masks[i], o["action_mask"])
        np.testing.assert_array_equal(vec.states[i], env._row)  # the whole state row

    for i in range(num_envs):
        compare_live(i)
    while min(games) < games_wanted:
        actions = np.array([random_action(masks[i], rng, 0.3) for i in range(num_envs)])
        obs, masks, rewards, terminated, truncated = vec.step(actions)
        for i, env in enumerate(aecs):
            env.step(int(actions[i]))
            aec_rewards = [env.rewards[a] for a in env.possible_agents]
            np.testing.assert_array_equal(rewards[i], np.array(aec_rewards, np.float32))
            assert bool(terminated[i]) == all(env.terminations.values())
            assert bool(truncated[i]) == all(env.truncations.values())
            if terminated[i] or truncated[i]:
                games[i] += 1
                ends["terminated" if terminated[i] else "truncated"] += 1
                scores = [env.infos[a]["score"] for a in env.possible_agents]
                wins = [env.infos[a]["win"] for a in env.possible_agents]
                assert vec.final_scores[i].tolist() == scores
                assert vec.final_wins[i].tolist() == wins
                for seat, agent in enumerate(env.possible_agents):
                    np.testing.assert_array_equal(
                        vec.final_observations[i, seat], env.observe(agent)["observation"]
                    )
                env.reset()  # no seed: continues the stream, like the auto-reset
            compare_live(i)
    if "max_turns" in config:
        assert ends["truncated"] > 0
    else:
        assert ends["terminated"] > 0


def test_batched_shapes_and_first_player():
    vec = card_envs.make_vec(ENV_ID, 4, seed=0, first_leader=1, stage=2)
    obs, masks = vec.reset()
    assert obs.shape == (4, OBS_SIZE) and obs.dtype == np.float32
    assert masks.shape == (4, NUM_ACTIONS) and masks.dtype == np.int8
    assert vec.current_player.tolist() == [1] * 4
    assert (masks[:, PASS] == 0).all()
    _, _, rewards, term, trunc = vec.step(np.argmax(masks, axis=1))
    assert rewards.shape == (4, 2) and term.shape == trunc.shape == (4,)
    assert vec.current_player.tolist() == [0] * 4


def test_batched_illegal_action_raises():
    vec = card_envs.make_vec(ENV_ID, 2, seed=0)
    vec.reset()
    with pytest.raises(ValueError, match="illegal action 36 in instance 0"):
        vec.step([PASS, int(np.argmax(vec.action_masks[1]))])


# --- hidden information ----------------------------------------------------------------------


def snapshots(stage: int, seed: int, games: int = 2):
    """A reset env at many points of a few random games (both seats to act)."""
    env = make_env(stage=stage)
    rng = random.Random(seed)
    for game in range(games):
        env.reset(seed=seed * 10 + game)
        step = 0
        while not env.state_dict()["done"]:
            if step % 5 == 0:
                yield env
            env.step(random_action(env.observe(env.agent_selection)["action_mask"], rng))
            step += 1
        yield env


def redeal_hidden(row: np.ndarray, seat: int, rng: random.Random) -> None:
    """What `seat` cannot see, re-dealt in place: the opponent's hand and both decks are
    pooled, shuffled and dealt back in the same sizes."""
    opp = 1 - seat
    cap = int(row[k.CAP])
    hand = row[k.HAND + 8 * opp : k.HAND + 8 * opp + 8]
    decks = []
    for p in (0, 1):
        slots = [k.DECKS + p * cap + (row[k.HEAD + p] + i) % cap for i in range(row[k.SIZE + p])]
        decks.append(slots)
    pool = [v + 1 for v in range(8) for _ in range(hand[v])]
    for slots in decks:
        pool += [int(row[j]) for j in slots]
    rng.shuffle(pool)
    n_hand = int(hand.sum())
    hand[:] = counts_of(pool[:n_hand])
    rest = pool[n_hand:]
    for slots in decks:
        for j in slots:
            row[j] = rest.pop()


@pytest.mark.parametrize("stage", [1, 3])
def test_redealing_hidden_cards_changes_no_observation(stage):
    rng = random.Random(stage)
    checked = changed = 0
    for env in snapshots(stage, seed=stage):
        row = env._row
        saved = row.copy()
        for seat in (0, 1):
            agent = f"player_{seat}"
            before = env.observe(agent)
            state_before = env.state_dict()
            redeal_hidden(row, seat, rng)
            after = env.observe(agent)
            state_after = env.state_dict()
            changed += state_after != state_before
            np.testing.assert_array_equal(after["observation"], before["observation"])
            np.testing.assert_array_equal(after["action_mask"], before["action_mask"])
            # sizes and the seat's own hand are what it sees: unchanged
            assert state_after["hands"][seat] == state_before["hands"][seat]
            assert [len(d) for d in state_after["decks"]] == [len(d) for d in state_before["decks"]]
            row[:] = saved
        checked += 1
    assert checked > 30 and changed > checked  # the re-deal really moved cards


def test_the_opponents_hand_contents_are_not_observed():
    """Swap one card between the opponent's hand and the observer's own deck: the
    observation stays; swap one with the observer's hand: it changes (control)."""
    env = make_env()
    env.reset(seed=9)
    row = env._row
    obs = env.observe("player_0")["observation"].copy()
    s = env.state_dict()
    # a number the opponent holds and a different one on top of seat 0's deck
    top = s["decks"][0][0]
    v = next(v for v in range(1, 9) if s["hands"][1][v - 1] and v != top)
    row[k.HAND + 8 + v - 1] -= 1
    row[k.HAND + 8 + top - 1] += 1
    row[k.DECKS + row[k.HEAD]] = v
    np.testing.assert_array_equal(env.observe("player_0")["observation"], obs)
    w = next(w for w in range(1, 9) if s["hands"][0][w - 1] and w != v)
    row[k.HAND + w - 1] -= 1
    row[k.HAND + v - 1] += 1
    assert (env.observe("player_0")["observation"] != obs).any()


# --- observation bounds ----------------------------------------------------------------------


@pytest.mark.parametrize("stage", [1, 4])
def test_observations_within_bounds(stage):
    env = make_env(stage=stage, first_leader=1)
    space = env.observation_space("player_0")
    assert space["observation"].shape == (OBS_SIZE,)
    assert space["action_mask"].shape == (NUM_ACTIONS,)
    rng = random.Random(stage)
    seen_max = np.zeros(OBS_SIZE, dtype=np.float32)
    for game in range(2 if stage == 1 else 1):
        env.reset(seed=100 + game)
        ref = RefDoubleOrNothing.from_state(env.state_dict())
        while True:
            for seat, agent in enumerate(env.possible_agents):
                o = env.observe(agent)
                assert space.contains(o), (agent, o)
                seen_max = np.maximum(seen_max, o["observation"])
                np.testing.assert_array_equal(
                    o["observation"], np.array(ref.observation(seat), np.float32)
                )
            if ref.done:
                break
            action = random_action(env.observe(env.agent_selection)["action_mask"], rng, 0.4)
            env.step(action)
            ref.step(action, engine_order(env.state_dict()))
    assert seen_max[38] == stage
    assert seen_max[9] > 22  # a deck grew beyond its start (in stage-1 units)


# --- state_dict, render, errors --------------------------------------------------------------


def test_state_dict_is_json_with_the_keys():
    env = make_env(stage=2)
    env.reset(seed=5)
    rng = random.Random(5)
    for _ in range(150):
        s = env.state_dict()
        assert set(s) == STATE_KEYS
        assert json.loads(json.dumps(s)) == s
        if s["done"]:
            break
        env.step(random_action(env.observe(env.agent_selection)["action_mask"], rng))


def test_render_ansi():
    env = make_env(render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str) and "Stage 1" in text
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    assert "to beat" in env.render()


@pytest.mark.parametrize(
    ("kwargs", "name", "value"),
    [
        ({"stage": 0}, "stage", "0"),
        ({"stage": 11}, "stage", "11"),
        ({"stage": -2}, "stage", "-2"),
        ({"first_leader": 2}, "first_leader", "2"),
        ({"first_leader": -1}, "first_leader", "-1"),
        ({"num_players": 3}, "num_players", "3"),
        ({"num_players": 1}, "num_players", "1"),
        ({"max_turns": 0}, "max_turns", "0"),
        ({"reward": "score"}, "reward", "score"),
        ({"stage": 1.5}, "stage", "1.5"),
        ({"stage": True}, "stage", "True"),
        ({"colour": "red"}, "colour", "colour"),
    ],
)
def test_bad_config_raises_naming_the_value(kwargs, name, value):
    for factory in (card_envs.make, lambda env_id, **kw: card_envs.make_vec(env_id, 2, **kw)):
        with pytest.raises(ValueError) as err:
            factory(ENV_ID, **kwargs)
        msg = str(err.value)
        assert name in msg
        assert re.search(rf"(?<![\w.-]){re.escape(value)}(?![\w.])", msg), msg


def test_stage_ten_is_accepted():
    env = make_env(stage=10)
    env.reset(seed=0)
    s = env.state_dict()
    assert sum(s["hands"][0]) == 10 * 512 and len(s["decks"][1]) == 22 * 512


def test_illegal_action_raises_and_changes_nothing():
    env = make_env()
    env.reset(seed=4)
    before = env.state_dict()
    with pytest.raises(ValueError, match=r"illegal action 36 \(pass\) for player_0"):
        env.step(PASS)
    for bad in (37, -1, 1.0, None, "3"):
        with pytest.raises(ValueError):
            env.step(bad)
    assert env.state_dict() == before


def test_penalize_mode_ends_the_game_with_minus_one():
    env = make_env(illegal_action="penalize")
    env.reset(seed=4)
    with pytest.warns(UserWarning, match="illegal"):
        env.step(PASS)  # pass when leading: illegal
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}


def test_use_before_reset_raises():
    env = make_env()
    with pytest.raises(RuntimeError, match="reset"):
        env.state_dict()


# --- agents ------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["computer", "heuristic", "random"])
def test_agents_play_legal_actions_to_the_end(spec):
    agent = make_agent(spec, ENV_ID, seed=0, stage=2)
    opponent = make_agent("computer", ENV_ID, stage=2)
    env = make_env(stage=2)
    for game in range(3):
        env.reset(seed=game)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            who = agent if (name == "player_0") == (game % 2 == 0) else opponent
            action = who.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)
        assert env.state_dict()["done"]


def test_agent_specs_errors():
    with pytest.raises(ValueError, match="nonsense"):
        make_agent("nonsense", ENV_ID)
    with pytest.raises(ValueError, match="stage"):
        make_agent("heuristic", ENV_ID, stage=0)
