"""Super Zwierzaki's table (`Game.scene`) in hand-made positions: the viewer's hand one card
per kind carrying its KIND action, other hands face down, the seat to act marked, the
pending decision in words as the viewer may know it, the demand's choice of kinds. The
conformance suite checks every scene is well-formed and unchanged by a resample."""

from __future__ import annotations

import numpy as np

from card_envs.core import scene
from card_envs.games.super_zwierzaki import engine as k
from card_envs.games.super_zwierzaki.deck import KINDS
from card_envs.games.super_zwierzaki.spec import SuperZwierzaki
from card_envs.games.super_zwierzaki.table import FACES
from tests.games.super_zwierzaki.helpers import (
    DEM,
    GRIZZLY,
    KOALA,
    MAMBA,
    SOKOL,
    TYGRYS,
    ZAJAC,
    situation,
)


def panel_cards(s: dict, label: str) -> list[dict]:
    """The cards inside the panel whose label starts with `label`, left to right."""
    panel = next(it for it in s["items"] if it["kind"] == "panel" and it["label"].startswith(label))
    return [
        it
        for it in s["items"]
        if it["kind"] == "card"
        and panel["y"] <= it["y"] < panel["y"] + panel["h"]
        and panel["x"] <= it["x"] < panel["x"] + panel["w"]
    ]


def head(s: dict) -> str:
    return s["items"][0]["text"]


def marked_panels(s: dict) -> list[str]:
    return [it["label"] for it in s["items"] if it["kind"] == "panel" and it["mark"]]


def test_the_own_hand_by_kind_with_its_actions_and_the_others_face_down():
    t = situation("engine", [[SOKOL, SOKOL, KOALA], [GRIZZLY] * 5, [MAMBA, TYGRYS]], top=ZAJAC)
    game = SuperZwierzaki(num_players=3)
    s = game.scene(t.row, 0)
    assert head(s) == "you (player_0) to play a matching card or draw"
    mine = panel_cards(s, "you (player_0): 3 card(s)")
    assert [(c["label"], c["sub"], c["actions"]) for c in mine] == [
        ("Sokół", "LB bir x2", [k.KIND + SOKOL]),
        ("Koala", "LG tre", [k.KIND + KOALA]),
    ]
    # only the Sokol matches the Zajac (LB rod); drawing is the one button
    assert [c.get("action") for c in panel_cards(scene.clickable(s, t.legal()), "you")] == [
        k.KIND + SOKOL,
        None,
    ]
    assert scene.buttons(s, t.legal()) == [k.DRAW]
    for label, size in (("player_1: 5 card(s)", 5), ("player_2: 2 card(s)", 2)):
        backs = panel_cards(s, label)
        assert len(backs) == size and all(c["down"] and "label" not in c for c in backs)
    assert marked_panels(s) == ["you (player_0): 3 card(s)"]
    top = next(it for it in s["items"] if it["kind"] == "card" and it["mark"])
    assert (top["label"], top["sub"], top["colour"]) == ("Zając", "LB rod", FACES["LB"][0])
    chips = [it["label"] for it in s["items"] if it["kind"] == "chip"]
    assert chips == ["LB"]  # the given colour
    # seat 1 sees its Grizzlys and seat 0's three cards face down, marked as the seat to act
    other = game.scene(t.row, 1)
    assert [c["sub"] for c in panel_cards(other, "you (player_1)")] == ["V bea x5"]
    assert [c["down"] for c in panel_cards(other, "player_0: 3 card(s)")] == [True] * 3
    assert marked_panels(other) == ["player_0: 3 card(s)"]
    # with every card shown, every hand is face up; only the seat to act's cards are played
    every = game.scene(t.row, None)
    assert [c["label"] for c in panel_cards(every, "player_2")] == ["Mamba", "Tygrys"]
    assert all("actions" not in c for c in panel_cards(every, "player_2"))
    assert [c["actions"] for c in panel_cards(every, "player_0")] == [[SOKOL], [KOALA]]


def test_a_copies_choice_looks_like_a_turn_to_the_others():
    t = situation("engine", [[SOKOL, SOKOL, KOALA], [GRIZZLY] * 5], top=MAMBA)
    game = SuperZwierzaki(num_players=2)
    before = game.scene(t.row, 1)
    t.play(k.KIND + SOKOL)
    assert game.scene(t.row, 1) == before
    s = game.scene(t.row, 0)
    assert head(s) == "you (player_0) to choose how many Sokół Wędrowny (LB bir) to play"
    assert [c["mark"] for c in panel_cards(s, "you")] == [True, False]  # the Sokols
    assert scene.buttons(s, t.legal()) == [k.COPIES, k.COPIES + 1]


def test_a_counter_shows_as_a_chip_with_its_penalty():
    t = situation("engine", [[MAMBA], [GRIZZLY] * 5], top=ZAJAC, red=4)
    s = SuperZwierzaki(num_players=2).scene(t.row, 1)
    assert head(s) == "player_0 to answer the red points or draw 4 (the red penalty)"
    assert [it["label"] for it in s["items"] if it["kind"] == "chip"] == ["LB", "4"]
    assert "red points: draw 4 (the red penalty)" in [it.get("text") for it in s["items"]]


def test_the_demander_names_a_kind_from_the_81_without_a_function():
    t = situation("engine", [[DEM, KOALA], [GRIZZLY] * 5], top=KOALA)
    t.play(k.KIND + DEM, k.PASS)  # seat 1 lets the play through
    game = SuperZwierzaki(num_players=2)
    s = game.scene(t.row, 0)
    assert head(s) == "you (player_0) to name the kind the demand asks for"
    names = panel_cards(s, "Name a kind")
    assert [c["actions"] for c in names] == [[kind.id] for kind in KINDS if kind.function is None]
    assert all("actions" not in c for c in panel_cards(s, "you"))  # names come from the list
    assert scene.buttons(s, t.legal()) == []
    assert not any(it.get("label") == "Name a kind" for it in game.scene(t.row, 1)["items"])


def test_the_end_names_the_winner_and_marks_no_seat():
    t = situation("engine", [[SOKOL], [GRIZZLY] * 5], top=ZAJAC)
    t.play(k.KIND + SOKOL, k.PASS)  # seat 1 does not stop the win
    s = SuperZwierzaki(num_players=2).scene(t.row, 1)
    assert head(s) == "Game over: player_0 wins"
    assert marked_panels(s) == [] and np.all(t.rewards[:2] == [1, -1])
