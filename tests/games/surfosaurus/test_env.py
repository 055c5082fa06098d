"""Surfosaurus MAX's own env contract: spaces, its errors (cards named), text and state_dict
against the reference (the generic contract is the conformance suite's)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import card_envs
from card_envs.core.scene import seat_name
from card_envs.games.surfosaurus import Surfosaurus, showdown, table
from tests.games.surfosaurus.helpers import (
    ENV_ID,
    PLAYER_COUNTS,
    STATE_KEYS,
    check_state,
    make_env,
    mask_of,
    random_action,
    ref_from_env,
    step_both,
    write_situation,
)
from tests.games.surfosaurus.reference import ALL_CARDS, card_id, card_of


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


# --- the table (scene) ----------------------------------------------------------------------

# seat 0 holds red 1 and blue 7, seat 1 three cards; this round seat 0 played green 9, seat 1
# purple 2, then a dummy orange 8 came up: seat 0 is to act
SCENE_HANDS = [[(0, 1), (4, 7)], [(1, 5), (2, 3), (6, 12)]]
SCENE_DISPLAY = [(3, 9, 0), (5, 2, 1), (1, 8, -1)]


def scene_env():
    env = make_env(2)
    env.reset(seed=0)
    fixed = {c for h in SCENE_HANDS for c in h} | {(c, v) for c, v, _ in SCENE_DISPLAY}
    rest = [c for c in ALL_CARDS if c not in fixed]
    out = rest[:6]
    write_situation(
        env,
        hands=SCENE_HANDS,
        removed=rest[6:30],
        draw_pile=rest[30:],
        out_of_play=out,
        display=SCENE_DISPLAY,
        round=2,
        full_points=[14, 0],
        half2=[9, 0],
        collected=[3, 1],
    )
    return env


def cards(scene: dict, down: bool) -> list[dict]:
    return [it for it in scene["items"] if it["kind"] == "card" and it["down"] == down]


def test_scene_shows_the_viewers_hand_as_cards_to_play_and_hides_the_others():
    env = scene_env()
    scene = env.game.scene(env._row, 0)
    hand = [it for it in cards(scene, down=False) if "actions" in it]
    assert [it["actions"] for it in hand] == [[card_id(c)] for c in SCENE_HANDS[0]]
    assert [it["label"] for it in hand] == ["1", "7"]
    assert [it["colour"] for it in hand] == [table.FACES[0][0], table.FACES[4][0]]
    # seat 1's three cards and the draw pile are face down, naming nothing
    assert len(cards(scene, down=True)) == 3 + 1
    assert all("label" not in it for it in cards(scene, down=True))
    assert scene == env.game.scene(env.game.resample_hidden(env._row, 0, seed=1), 0)


def test_scene_with_every_card_shown_opens_every_hand():
    env = scene_env()
    scene = env.game.scene(env._row, None)
    hands = [it["actions"][0] for it in cards(scene, down=False) if "actions" in it]
    assert sorted(hands) == sorted(card_id(c) for h in SCENE_HANDS for c in h)
    assert len(cards(scene, down=True)) == 1  # the draw pile only


def test_scene_shows_the_display_by_seat_the_turn_and_the_coconuts():
    env = scene_env()
    scene = env.game.scene(env._row, 1)
    display = [it for it in cards(scene, down=False) if "actions" not in it]
    assert [(it["label"], it["sub"]) for it in display] == [
        ("9", "p0"),
        ("2", "you"),
        ("8", "dummy"),
    ]
    assert [it["mark"] for it in display] == [False, False, True]  # the card just turned up
    panels = [it for it in scene["items"] if it["kind"] == "panel"]
    seats = [it["label"].split(":")[0] for it in panels[1:]]
    assert seats == ["you (player_1)", "player_0"]  # the viewer first
    assert [it["mark"] for it in panels] == [False, False, True]  # seat 0 to act
    assert panels[2]["label"].startswith("player_0: 18.5 points, 3 card(s) collected, 2 in hand")
    # seat 1's whole and half coconut, then seat 0's: 14 whole, 9 under the half is 4.5
    assert [it["label"] for it in scene["items"] if it["kind"] == "chip"] == ["0", "0", "14", "4.5"]
    head = scene["items"][0]["text"]
    assert head == "Round 3 of 6, started by player_0; player_0 to play"


def test_scene_of_a_finished_game_names_the_winner_and_marks_no_seat():
    env = make_env(3)
    env.reset(seed=2)
    while not env.state_dict()["done"]:
        env.step(first_legal(env))
    wins = [env.infos[a]["win"] for a in env.possible_agents]
    (winner,) = [p for p, w in enumerate(wins) if w == 1]
    scene = env.game.scene(env._row, 0)
    assert scene["items"][0]["text"] == f"Game over: {seat_name(winner, 0)} won"
    assert not any(it["mark"] for it in scene["items"] if it["kind"] == "panel")
