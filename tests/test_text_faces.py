"""A seat's view as text and as JSON, the legal moves in words and `parse_action` (issue 60):
hand-made positions of every game, what each seat's view shows and what it hides. The
generic checks (JSON, shared keys, every move parsed, nothing hidden after a resample) run
on every game and config in the conformance suite (`check_text_faces`,
`check_hidden_information`)."""

from __future__ import annotations

import json
from typing import Any

import gymnasium
import pytest

import card_envs
from card_envs import positions
from card_envs.core.moves import match, parse_move
from card_envs.games.double_or_nothing import engine as don
from card_envs.games.rummidrez import engine as rz
from card_envs.games.super_zwierzaki import engine as sz
from card_envs.games.surfosaurus.engine import card_id
from card_envs.registry import env_ids, make_game

HEAD = ["game", "you", "to_act", "turn", "done", "outcome"]


def strings(value: Any) -> set[str]:
    """Every string in a JSON-like value, keys included."""
    if isinstance(value, dict):
        return set(value) | {s for v in value.values() for s in strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in strings(v)}
    return {value} if isinstance(value, str) else set()


def refused(env, given: Any) -> str:
    """The message of `parse_action`'s refusal of `given`."""
    with pytest.raises(ValueError) as err:
        env.parse_action(given)
    return str(err.value)


# --- No Thanks ----------------------------------------------------------------------------------


def test_no_thanks_hides_other_tokens_unless_public():
    env = positions.load("no_thanks/take-and-go-again").make_env()
    view = env.view("player_1")
    assert list(view)[:6] == HEAD
    assert view["game"] == "no_thanks_v0" and view["you"] == "player_1"
    assert view["to_act"] == "player_0" and view["turn"] == 14 and view["outcome"] is None
    assert view["card_on_offer"] == 20 and view["tokens_on_card"] == 2
    assert view["cards_still_to_come"] == 19 and view["your_tokens"] == 11
    assert view["tokens_public"] is False
    zero, one, _, three = view["players"]
    assert zero == {"player": "player_0", "cards": [17, 18, 19], "runs": [[17, 18, 19]],
                    "card_points": 17}  # fmt: skip
    assert one["tokens"] == 11 and one["points"] == -11  # its own
    assert three["runs"] == [[30]] and "tokens" not in three and "points" not in three
    text = env.view_text("player_1")
    assert "Card on offer: 20, with 2 token(s) on it" in text
    assert "Your tokens: 11." in text
    assert "player_0: 17-19; cards 17\n" in text  # no tokens, no points
    assert "you (player_1): no cards; cards 0, 11 token(s), -11 points" in text

    state = env.state_dict()
    public = card_envs.make("no_thanks_v0", num_players=4, public_tokens=True)
    public.load_state_dict({**state, "config": {**state["config"], "public_tokens": True}})
    seen = public.view("player_1")["players"]
    assert [p["tokens"] for p in seen] == [10, 11, 10, 11]
    assert seen[0]["points"] == 7  # 17 for the run, minus 10 tokens


def test_no_thanks_moves_and_parse_action():
    env = positions.load("no_thanks/take-and-go-again").make_env()
    moves = [
        {"id": 0, "text": "take 20 (2 tokens)"},
        {"id": 1, "text": "no thanks (pay a token on 20)"},
    ]
    assert env.legal_moves() == env.legal_moves("player_0") == moves
    assert env.legal_moves("player_1") == []  # only the seat to act has moves
    for given, action in [(0, 0), ("1", 1), (" 0 \n", 0), ('{"move": 1}', 1), ('{"id": 0}', 0),
                          ("take 20 (2 tokens)", 0), ("  TAKE 20   (2 Tokens) ", 0),
                          ("no thanks (pay a token on 20)", 1), ("take", 0), ("No Thanks", 1),
                          ('{"move": "no thanks"}', 1)]:  # fmt: skip
        assert env.parse_action(given) == action, given
    for given in ("7", 7, -1, "take 20", "pass", "", "{}", "0.0"):
        message = refused(env, given)
        assert repr(given) in message
        assert "0: take 20 (2 tokens)" in message and "1: no thanks (pay a token on 20)" in message
    out = positions.load("no_thanks/last-card").make_env()  # player_1 has no tokens
    assert out.legal_moves() == [{"id": 0, "text": "take 35 (4 tokens)"}]
    message = refused(out, "no thanks")
    assert "0: take 35 (4 tokens)" in message and "1:" not in message


def test_a_finished_game_shows_its_outcome_and_has_no_moves():
    env = positions.load("no_thanks/rule-text-scoring").make_env()
    view = env.view("player_2")
    assert view["done"] is True and view["to_act"] is None
    scores = view["outcome"]["scores"]
    assert list(scores) == ["player_0", "player_1", "player_2"]
    assert view["outcome"]["winners"] == [min(scores, key=scores.get)]
    assert view["outcome"]["truncated"] is False and view["card_on_offer"] is None
    assert "Game over after" in env.view_text("player_2")
    assert env.legal_moves() == [] and env.legal_moves("player_0") == []
    assert "over" in refused(env, "0")


# --- Surfosaurus MAX ----------------------------------------------------------------------------


def test_surfosaurus_shows_the_own_hand_and_hides_the_others():
    env = positions.load("surfosaurus_max/last-play-of-round-0").make_env()
    state = env.state_dict()
    names = ("red", "orange", "yellow", "green", "blue", "purple", "black")
    hands = [[f"{names[c]} {v}" for c, v in hand] for hand in state["hands"]]
    for seat in (0, 1):
        view = env.view(f"player_{seat}")
        assert view["your_hand"] == hands[seat]
        assert not strings(view) & set(hands[1 - seat])  # the other hand, nowhere
        assert [p["cards_in_hand"] for p in view["players"]] == [7, 7]
        assert set(view["players"][0]) == {
            "player", "cards_in_hand", "points", "points_from_full_cards",
            "points_from_half_cards", "cards_collected",
        }  # fmt: skip
        text = env.view_text(f"player_{seat}")
        assert all(card not in text.split(", ") for card in hands[1 - seat])
    view = env.view("player_0")
    assert view["round"] == 1 and view["cards_played_this_round"] == 5
    assert view["combo_size"] == 4 and view["points_per_value"]["1"] == 12
    assert [d["played_by"] for d in view["display"]] == [
        d["played_by"] for d in env.view("player_1")["display"]
    ]
    # seat 1 acts: its moves name its own cards; seat 0, which cannot see them, gets none
    assert [m["text"] for m in env.legal_moves()] == [f"play {c}" for c in hands[1]]
    assert env.legal_moves("player_0") == []
    assert env.parse_action("Yellow 1") == card_id(2, 1)
    assert env.parse_action("play purple 7") == card_id(5, 7)
    assert "'play red 1'" in refused(env, "play red 1")  # seat 0's card


def test_surfosaurus_hints_say_what_each_card_would_score():
    game = make_game("surfosaurus_max_v0", num_players=2, hints=True)
    state = positions.load("surfosaurus_max/last-play-of-round-0").state
    row = game.load_state_dict({**state, "config": {**state["config"], "hints": True}})
    gains = game.view(row, 1)["points_if_the_round_ended_with"]
    assert list(gains) == game.view(row, 1)["your_hand"]
    assert max(gains.values()) > 0  # the display holds 5 cards: every card completes a combo


# --- Double or Nothing --------------------------------------------------------------------------


def test_double_or_nothing_counts_the_other_hand_only():
    env = positions.load("double_or_nothing/beat-a-double-run").make_env()
    zero, one = env.view("player_0"), env.view("player_1")
    assert zero["your_hand"] == {"7": 3, "8": 3} and zero["opponent_hand_size"] == 3
    assert one["your_hand"] == {"1": 2, "2": 1} and one["opponent_hand_size"] == 6
    assert zero["your_deck_size"] == 46 and zero["opponent_deck_size"] == 5
    beat = {"copies": 2, "numbers": [5, 6], "cards": 4, "played_by": "player_1"}
    assert zero["play_to_beat"] == one["play_to_beat"] == beat
    assert zero["play_area"] == {"5": 2, "6": 2} and zero["trick_led_by"] == "player_1"
    assert zero["cards_owned"] == {"player_0": 52, "player_1": 8}  # the trick is no one's
    assert "1 x" not in env.view_text("player_0") and "Your hand (6 cards): 3 x 7, 3 x 8" in (
        env.view_text("player_0")
    )
    moves = env.legal_moves()
    assert moves == [
        {"id": int(don.action_of(7, 8)), "text": "play 3 x 7-8 (6 cards)"},
        {"id": don.PASS, "text": "pass (draw 2 cards)"},
    ]
    assert env.parse_action("7-8") == env.parse_action("play 3 x 7-8 (6 cards)") == moves[0]["id"]
    assert env.parse_action("PASS") == don.PASS
    message = refused(env, "8")  # digits are an id (action 8, the range 2..2), not a number
    assert "'8'" in message and f"{don.PASS}: pass (draw 2 cards)" in message


def test_the_run_env_shows_the_current_game_and_the_run():
    run = card_envs.make("double_or_nothing_run_v0", max_stage=3)
    with pytest.raises(RuntimeError, match="reset"):
        run.view()
    run.reset(seed=3)
    view = run.view()
    assert list(view)[:6] == HEAD and view["you"] == "player_0"
    assert (view["run_game"], view["max_stage"], view["games_won"]) == (1, 3, 0)
    assert run.view_text().startswith("A run against the computer: game 1 of at most 3")
    moves = run.legal_moves()
    assert moves and run.parse_action(moves[0]["text"]) == moves[0]["id"]
    assert "computer" in run.rules_summary and run.rules_summary.startswith("Double or Nothing")


# --- Rummidrez ----------------------------------------------------------------------------------


def test_rummidrez_shows_hand_sizes_and_the_cards_seen_taken():
    env = positions.load("rummidrez/take-top-k").make_env()
    state = env.state_dict()
    name = card_envs.games.rummidrez.card_name
    one = env.view("player_1")
    assert one["phase"] == "draw" and one["discard_pile"] == ["Knight 5", "Joker 5", "Queen 5"]
    assert one["your_hand"] == [name(c) for c in state["hands"][1]]
    assert one["players"][0] == {"player": "player_0", "cards_in_hand": 14, "opened": False,
                                 "points": 0, "known_cards": []}  # fmt: skip
    assert "known_cards" not in one["players"][1]  # its own hand is shown whole
    own = {name(c) for c in state["hands"][1]}
    assert not (strings(one) - own) & {name(c) for c in state["hands"][0]}
    assert one["draw_pile_cards"] == len(state["draw_pile"]) and "draw_pile" not in one
    take = env.parse_action("take the top 2 of the discard pile: Joker 5, Queen 5")
    assert take == rz.TAKE + 1 == env.parse_action("take the top 2 of the discard pile")
    env.step(take)
    assert env.view("player_1")["players"][0]["known_cards"] == ["Queen 5", "Joker 5"]
    assert "known to hold Queen 5, Joker 5" in env.view_text("player_1")
    env.step(env.parse_action("place queen 5"))
    one = env.view("player_1")
    assert one["phase"] == "meld" and one["placed_this_turn"] == ["Queen 5"]
    assert one["players"][0]["known_cards"] == ["Joker 5"]  # the placed copy is seen placed
    assert env.legal_moves("player_1") == []
    texts = [m["text"] for m in env.legal_moves()]
    assert "undo this turn's placements" in texts and "end melding" not in texts  # 1 card: no group


def test_the_solo_game_has_no_discard_pile_and_no_other_seats():
    env = card_envs.make("rummidrez_solo_v0")
    env.reset(seed=1)
    view = env.view()
    assert view["game"] == "rummidrez_solo_v0" and view["phase"] == "meld"
    assert len(view["your_hand"]) == 14 and view["cards_drawn"] == 14
    assert "discard_pile" not in view and "players" not in view
    game, row = env.unwrapped.game, env.unwrapped._row
    redrawn = game.resample_hidden(row, 0, seed=5)  # another order of the draw pile
    assert game.state_dict(redrawn)["draw_pile"] != env.state_dict()["draw_pile"]
    assert game.view(redrawn, 0) == view
    assert game.view_text(redrawn, 0) == env.view_text()
    assert env.parse_action("End Melding") == rz.END_MELD
    env.step(rz.END_MELD)
    assert env.view()["cards_drawn"] == 15  # the automatic draw
    assert "Rummidrez solo" in env.view_text() and "Solo" in env.rules_summary


# --- Super Zwierzaki ----------------------------------------------------------------------------


def test_super_zwierzaki_shows_other_hands_as_counts():
    env = positions.load("super_zwierzaki/red-points-pending").make_env()
    state = env.state_dict()
    label = card_envs.games.super_zwierzaki.describe.card_label
    zero = env.view("player_0")
    assert zero["to_act"] == zero["turn_of"] == "player_1"
    assert zero["counters"] == {"red": 2, "orc": 0, "green": 0, "demand": 0}
    assert zero["top_card"] == label(24) and zero["playable_colours"] == ["R"]
    assert [p["cards_in_hand"] for p in zero["players"]] == [4, 5, 5]
    assert all(set(p) == {"player", "cards_in_hand", "lost_turns"} for p in zero["players"])
    hand = sorted((c["card"], c["copies"]) for c in zero["your_hand"])
    assert hand == sorted([(label(0), 1), (label(18), 2), (label(51), 1)])
    others = {label(kind) for kind in state["hands"][1]} - {label(k) for k in state["hands"][0]}
    assert not strings(zero) & others
    assert zero["order_of_play"] == ["player_1", "player_2", "player_0"]
    assert "player_1 to answer the red points or draw 2 (the red penalty)" in zero["decision"]
    texts = [m["text"] for m in env.legal_moves()]
    assert texts == [f"play {label(k)}" for k in (3, 34, 105)] + ["draw 2 (the red penalty)"]
    assert env.parse_action(f"play {label(34)}") == sz.KIND + 34
    assert env.parse_action("DRAW 2 (THE RED PENALTY)") == sz.DRAW
    assert f"'play {label(0)}'" in refused(env, f"play {label(0)}")  # Mamba does not answer


def test_a_copies_choice_is_named_to_the_chooser_only():
    """Seat 1 holds two Komar (a Red) and plays one: the choice of how many is its own, the
    others see it still at its turn (as its observation and the table scene tell it)."""
    position = positions.load("super_zwierzaki/red-points-pending")
    state = json.loads(json.dumps(position.state))
    state["hands"][1] = [0, 3, 18, 34, 34]
    pile = state["draw_pile"]
    pile[pile.index(34)] = 105  # the Cyraneczka goes to the draw pile instead
    env = card_envs.make("super_zwierzaki_v0", **position.config)
    env.load_state_dict(state)
    env.step(sz.KIND + 34)
    chooser, other = env.view("player_1")["decision"], env.view("player_0")["decision"]
    komar = card_envs.games.super_zwierzaki.describe.card_label(34)
    assert komar in chooser and "how many" in chooser
    assert komar not in other and other.startswith("player_1 to answer the red points")
    assert [m["text"] for m in env.legal_moves()] == [f"play 1x {komar}", f"play 2x {komar}"]
    assert env.parse_action(f"play 2x {komar}") == sz.COPIES + 1


# --- every env ------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", [i for i in env_ids() if i != "double_or_nothing_run_v0"])
def test_rules_summaries_are_prompt_sized(env_id):
    summary = make_game(env_id).rules_summary
    assert 150 <= len(summary.split()) <= 350
    assert "Moves here:" in summary
    assert summary == summary.strip() and "  " not in summary


def test_the_learners_gymnasium_view_has_the_faces():
    env = gymnasium.make("card_envs/no_thanks_v0-single", opponents="random", seat=1)
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.view()
    env.reset(seed=4)
    faces = env.unwrapped
    assert faces.view()["you"] == "player_1" and faces.view()["to_act"] == "player_1"
    assert faces.rules_summary.startswith("No Thanks!")
    done = False
    while not done:
        moves = faces.legal_moves()
        assert moves and faces.parse_action(moves[0]["text"]) == moves[0]["id"]
        _, _, terminated, truncated, _ = env.step(faces.parse_action(str(moves[0]["id"])))
        done = terminated or truncated
    view = faces.view()  # the finished game, as render() shows it
    assert view["done"] and view["you"] == "player_1" and view["outcome"]["winners"]
    assert faces.legal_moves() == []


def test_one_matcher_for_people_and_models():
    options = [(3, ["play red 1", "red 1"]), (5, ["play red 12", "red 12"])]
    assert match("2", options) == (5, "")  # a person counts the list from 1
    assert match("play red 1", options) == (3, "")  # the exact name before prefixes
    assert match("play r", options)[0] is None  # two prefixes
    moves = [{"id": 3, "text": "play red 1"}, {"id": 5, "text": "play red 12"}]
    assert parse_move("3", moves) == 3  # a model gives ids
    assert parse_move("Red 12", moves, {5: ["red 12"]}) == 5
    with pytest.raises(ValueError, match="'play red' is not a legal move here"):
        parse_move("play red", moves)  # no prefixes for a model
    with pytest.raises(ValueError, match="names 2 moves"):
        parse_move("same", [{"id": 1, "text": "same"}, {"id": 2, "text": "Same"}])
