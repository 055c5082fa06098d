"""double_or_nothing_v0's own env contract: truncation, what the opponent's hand hides,
observations against the reference, its config errors, text and agents (the generic
contract is the conformance suite's)."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

import card_envs
from card_envs.agents import make_agent
from card_envs.core import scene
from card_envs.core.loading import HEADER_KEYS
from card_envs.games.double_or_nothing import engine as k
from tests.games.double_or_nothing.helpers import ENV_ID, make_env, situation
from tests.games.double_or_nothing.reference import (
    NUM_ACTIONS,
    OBS_SIZE,
    PASS,
    RefDoubleOrNothing,
    engine_order,
    range_action,
    scale,
)

STATE_KEYS = {
    *HEADER_KEYS,
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
    "segment_rest",
    "segments",
    "fresh",
    "pinned",
}


def random_action(mask: np.ndarray, rng: random.Random, p_pass: float = 0.2) -> int:
    """A random legal action; pass with probability p_pass when it is legal."""
    legal = np.flatnonzero(mask).tolist()
    assert legal, "no legal action"
    if PASS in legal and len(legal) > 1 and rng.random() >= p_pass:
        legal.remove(PASS)
    return rng.choice(legal)


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


# --- batched env ------------------------------------------------------------------------------


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


# --- hidden information ----------------------------------------------------------------------


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


# --- the table (scene) ----------------------------------------------------------------------

# seat 1 led 1 x 5-6 (holding three 5s, one 6, two 8s); seat 0 holds two 1s, a 3, three 4s
# and an 8, and is to reply
SCENE_HANDS = [[2, 0, 1, 3, 0, 0, 0, 1], [0, 0, 0, 0, 2, 0, 0, 2]]
SCENE_TRICK = [0, 0, 0, 0, 1, 1, 0, 0]


def scene_env():
    env, _ = situation(hands=SCENE_HANDS, trick=SCENE_TRICK, play=(1, 5, 6), player=0)
    return env


def faces(s: dict, **where) -> list[dict]:
    """The face-up cards of scene `s` with the given field values."""
    cards = [it for it in s["items"] if it["kind"] == "card" and not it["down"]]
    return [it for it in cards if all(it[f] == v for f, v in where.items())]


def test_scene_groups_the_viewers_hand_by_number_and_hides_the_opponents():
    env = scene_env()
    s = env.game.scene(env._row, 0)
    tops = [(it["label"], it["sub"]) for it in faces(s, mark=False) if it["sub"]]
    assert tops == [("1", "×2"), ("3", "×1"), ("4", "×3"), ("8", "×1")]
    assert len(faces(s, mark=False)) == 2 + 1 + 3 + 1  # a stack of each number's copies
    assert [(it["label"], it["sub"]) for it in faces(s, mark=True)] == [("5", "×1"), ("6", "×1")]
    down = [it for it in s["items"] if it["kind"] == "card" and it["down"]]
    assert down and all("label" not in it for it in down)  # seat 1's hand and both decks
    legal = np.flatnonzero(env.observe("player_0")["action_mask"])
    assert scene.buttons(s, legal) == legal.tolist()  # ranges are buttons, not cards
    assert s["items"][0]["text"] == "Stage 1, hand 1: you (player_0) to beat 1 × 5-6 or pass"
    seats = [it for it in s["items"] if it["kind"] == "panel"][1:]
    assert [(it["label"].split(":")[0], it["mark"]) for it in seats] == [
        ("you (player_0)", True),
        ("player_1", False),
    ]


def test_scene_from_the_other_seat_hides_seat_zeros_hand():
    env = scene_env()
    s = env.game.scene(env._row, 1)
    assert [it["label"] for it in faces(s, mark=False) if it["sub"]] == ["5", "8"]
    seats = [it["label"] for it in s["items"] if it["kind"] == "panel"][1:]
    assert seats[0].startswith("you (player_1): 4 in hand") and seats[1].startswith("player_0")


def test_scene_with_every_card_shown_puts_each_number_in_its_place():
    env = scene_env()
    s = env.game.scene(env._row, None)
    tops = [it["label"] for it in faces(s, mark=False) if it["sub"]]
    assert tops == ["1", "3", "4", "8", "5", "8"]  # seat 0's numbers, then seat 1's
    # the 5 to beat sits above seat 1's 5s, seat 0's 8 above seat 1's: each row's leftmost
    for label in ("5", "8"):
        left: dict[float, float] = {}
        for it in faces(s, label=label):
            left[it["y"]] = min(left.get(it["y"], it["x"]), it["x"])
        assert len(left) == 2 and len(set(left.values())) == 1, label


def test_scene_of_a_truncated_game_is_a_draw():
    env, _ = situation(hands=[[2, 1, 0, 0, 0, 0, 0, 0], [0] * 7 + [2]], turns=4, max_turns=5)
    env.step(range_action(1, 1))
    s = env.game.scene(env._row, 0)
    assert s["items"][0]["text"] == "Game over: a draw (turn limit reached)"
    assert not any(it["mark"] for it in s["items"] if it["kind"] == "panel")
