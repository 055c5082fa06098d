"""Rummidrez: hand-made situations for every rule and every choice of docs/rules/rummidrez.md,
the rule text's own examples first.

Each situation is written into a reset env's state row with the engine's slot offsets, every
one of the 112 cards in exactly one place (`check_invariants` must accept the row), and then
played through the AEC env, so masks, rewards and infos are the ones users see. Cards are
written as text: a figure letter (P Pawn, K Knight, B Bishop, R Rook, Q Queen, J Joker) and a
number 1..9, N for a neutral: "P1 N P3".
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

import card_envs
from card_envs import positions
from card_envs.core import layout, scene
from card_envs.core.config import ConfigError
from card_envs.games.rummidrez import card_name
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.spec import Rummidrez
from tests.games.rummidrez import reference as ref
from tests.games.rummidrez.reference import full_deck, group_is_valid

ENV_ID = "rummidrez_v0"
FIGURES = "PKBRQJ"
N = k.NEUTRAL
PHASES = ("draw", "meld", "discard")


def C(text: str) -> list[int]:
    """Card ids of "P1 K5 N J9"."""
    return [N if w == "N" else FIGURES.index(w[0]) * 9 + int(w[1:]) - 1 for w in text.split()]


def situation(
    config=None,
    *,
    hands,
    table="",
    discard="",
    draw="",
    rest="draw",
    player=0,
    phase="meld",
    opened=(),
    known=None,
    taken="",
    placed="",
    points=None,
    first=None,
    hand_turns=0,
    placements=None,
    seed=0,
    env=None,
):
    """A reset env (`config`) holding this position, seat `player` to act in `phase`.

    `draw` is the top of the draw pile (next card first) and `discard` the discard pile
    (bottom to top). The cards named nowhere go, in a seeded random order, under the draw
    pile (`rest="draw"`), under the discard pile (`rest="discard"`) or into the hand of seat
    `rest`, so the 112 cards are always all there. With `env`, the position is written into
    that env instead of a new one (its config and its episode's rewards so far are kept)."""
    if env is None:
        env = card_envs.make(ENV_ID, **(config or {}))
        env.reset(seed=seed)
    row = env._row
    n = env.game.num_players
    assert len(hands) == n
    hand_cards = [C(h) for h in hands]
    draw_cards, discard_cards = C(draw), C(discard)
    named = Counter(c for h in hand_cards for c in h)
    named.update(C(table) + draw_cards + discard_cards + C(placed))
    left = Counter(full_deck())
    left.subtract(named)
    assert min(left.values()) >= 0, f"more copies than the game has: {-left}"
    others = sorted(left.elements())
    random.Random(seed).shuffle(others)
    if rest == "draw":
        draw_cards += others
    elif rest == "discard":
        discard_cards = others + discard_cards
    else:
        hand_cards[rest] += others
    row[k.HAND : k.DRAW_PILE] = 0  # hands, known, table, placed, taken
    for p, cards in enumerate(hand_cards):
        for c in cards:
            row[k.HAND + p * k.NUM_IDS + c] += 1
    for p, text in enumerate(known or [""] * n):
        for c in C(text):
            row[k.KNOWN + p * k.NUM_IDS + c] += 1
    for base, text in ((k.TABLE, table), (k.PLACED, placed), (k.TAKEN, taken)):
        for c in C(text):
            row[base + c] += 1
    row[k.DRAW_N] = len(draw_cards)
    for i, c in enumerate(reversed(draw_cards)):  # the top is the last slot
        row[k.DRAW_PILE + i] = c
    row[k.DISCARD_N] = len(discard_cards)
    for i, c in enumerate(discard_cards):
        row[k.DISCARD_PILE + i] = c
    row[k.OPENED : k.OPENED + k.MAX_PLAYERS] = 0
    row[k.POINTS : k.POINTS + k.MAX_PLAYERS] = 0
    for p in opened:
        row[k.OPENED + p] = 1
    for p, v in enumerate(points or []):
        row[k.POINTS + p] = v
    row[k.PHASE] = PHASES.index(phase)
    row[layout.PLAYER] = player
    row[k.FIRST] = player if first is None else first
    row[k.HAND_TURNS] = hand_turns
    row[k.PLACE_COUNT] = len(C(placed)) if placements is None else placements
    row[k.WINNER] = -1
    row[k.REFILLED] = 0
    row[layout.STATUS] = layout.RUNNING
    row[k.TABLE_OK] = k.meld_ok(row, player)
    assert env.game.invariant_error(row) is None, env.game.invariant_error(row)
    # the AEC env caches the agent to act and its mask: refresh both
    env.agent_selection = f"player_{player}"
    type(env.game).legal_kernel(row, env._mask)
    return env


def legal(env) -> list[int]:
    return np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()


def play(env, *actions) -> dict:
    """Step the actions (each must be legal), check the row, return the state dict."""
    for a in actions:
        assert a in legal(env), (env.game.action_name(a), legal(env))
        env.step(a)
        assert env.game.invariant_error(env._row) is None
    return env.state_dict()


def place(text: str) -> list[int]:
    return [k.PLACE + c for c in C(text)]


def discard(text: str) -> int:
    return k.DISCARD + C(text)[0]


def take(count: int) -> int:
    return k.TAKE + count - 1


def table_of(state: dict) -> list[int]:
    """The table as sorted card ids, after checking the groups the state dict shows."""
    for group in state["table"]:
        assert group_is_valid(group, True), group
    return sorted(c for group in state["table"] for c in group)


def rewards(env) -> list[float]:
    return [env.rewards[a] for a in env.possible_agents]


def infos(env, key: str) -> list[float]:
    return [env.infos[a][key] for a in env.possible_agents]


def meld_allowed(config=None, *, group: str, table: str = "Q7 Q8 Q9") -> bool:
    """Whether an opened seat may end melding after placing `group` on `table`."""
    env = situation(config, hands=[group + " J9", "K9"], table=table, opened=(0, 1), rest="draw")
    play(env, *place(group))
    return k.END_MELD in legal(env)


# --- the rule text's examples ------------------------------------------------------------------

RULE_TEXT_GROUPS = [
    ("P1 P2 P3", True, "a figure group: one figure, consecutive numbers"),
    ("K5 B5 R5", True, "a colour group: one number, consecutive figures"),
    ("P4 K4 B4 R4 Q4 J4", True, "a colour group of six, every figure once"),
    ("R1 R2 R3 R4 R5 R6 R7 R8 R9", True, "a figure group of nine, every colour once"),
    ("P2 N P4", True, "a neutral as the connection between two cards"),
    ("P1 N N P4", True, "two neutrals side by side"),
    ("J1 J2 J3", True, "the Joker is a normal figure: a Joker figure group"),
    ("R6 Q6 J6", True, "the Joker is a normal figure: the top of a colour group"),
    ("P1 J2 P3", False, "the Joker is not a wild card"),
    ("P1 P2", False, "two cards are not a group"),
    ("P1 P2 P4", False, "numbers must be consecutive"),
    ("P1 K2 B3", False, "neither one figure nor one number"),
    ("P3 P3 P4", False, "no card twice in a group"),
    ("P8 P9 P1", False, "no wrap-around of the numbers"),
    ("Q2 J2 P2", False, "no wrap-around of the figures"),
    ("P1 P2 N", False, "a neutral only between two cards of its group (default)"),
    ("N K5 B5", False, "a neutral only between two cards of its group (default)"),
    ("N N N", False, "a group needs real cards"),
]


@pytest.mark.parametrize(("group", "valid", "why"), RULE_TEXT_GROUPS)
def test_rule_text_groups(group, valid, why):
    assert meld_allowed(group=group) == valid, why


def test_rule_text_opening_of_seven_cards_in_two_groups():
    """Rule text: the first play drops at least seven cards forming the player's own groups."""
    env = situation(hands=["P1 P2 P3 K4 K5 K6 K7 J9", "B5"])
    s = play(env, *place("P1 P2 P3 K4 K5 K6 K7"), k.END_MELD)
    assert s["opened"] == [True, False] and s["phase"] == "discard"
    assert table_of(s) == sorted(C("P1 P2 P3 K4 K5 K6 K7")) and s["hands"][0] == C("J9")


def test_rule_text_adding_to_an_opponents_group():
    # seat 1 opened with the Joker run, seat 0 with the Pawns; seat 0 adds to seat 1's group
    table = "J1 J2 J3 J4 J5 J6 J7 P1 P2 P3 P4 P5 P6 P7"
    env = situation(hands=["J8 K2", "B5"], table=table, opened=(0, 1))
    s = play(env, *place("J8"), k.END_MELD)
    assert table_of(s) == sorted(C(table + " J8")) and s["hands"][0] == C("K2")


def test_rule_text_using_table_cards_to_form_new_groups():
    # K4 leaves the Knight run to make a colour group with the Bishop and the Rook 4
    table = "K1 K2 K3 K4 J1 J2 J3"
    env = situation(hands=["B4 R4 P9", "B5"], table=table, opened=(0,))
    s = play(env, *place("B4 R4"), k.END_MELD)
    groups = sorted(map(sorted, s["table"]))
    assert sorted(C("K4 B4 R4")) in groups and sorted(C("K1 K2 K3")) in groups


def test_rule_text_emptying_the_hand_by_the_last_discard_wins_and_scores_the_others_cards():
    env = situation(hands=["P4 J9", "K1 K2 N N B5"], table="P1 P2 P3", opened=(0,))
    s = play(env, *place("P4"), k.END_MELD, discard("J9"))
    assert s["done"] and s["winner"] == 0 and s["points"] == [5, 0]  # neutrals count
    assert rewards(env) == [1.0, 0.0]
    assert infos(env, "score") == [5.0, 0.0] and infos(env, "win") == [1.0, 0.0]
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert legal(env) == []


@pytest.mark.parametrize(("num_players", "target"), [(2, 14), (3, 28), (4, 42)])
def test_rule_text_match_targets(num_players, target):
    assert k.target_points(num_players) == target
    hands = ["P4", "K1 K2", "N B5", "Q1 Q2"][:num_players]
    before = [target - 2] + [target - 1] * (num_players - 1)
    env = situation(
        {"num_players": num_players, "match": True},
        hands=hands,
        table="P1 P2 P3",
        opened=(0,),
        points=before,
    )
    s = play(env, *place("P4"), k.END_MELD)
    assert s["done"] and s["points"][0] == target - 2 + 2 * (num_players - 1) >= target
    assert rewards(env) == [1.0] + [0.0] * (num_players - 1)  # most points wins the match
    assert infos(env, "score") == [float(p) for p in s["points"]]


# --- cards, actions and the deal -----------------------------------------------------------------


def test_card_ids_and_the_deck():
    assert C("P1") == [0] and C("P9") == [8] and C("K1") == [9] and C("J9") == [53]
    assert C("N") == [54] == [k.NEUTRAL]
    for f, letter in enumerate(FIGURES):
        for n in range(1, 10):
            assert C(f"{letter}{n}") == [f * 9 + n - 1]
    assert card_name(C("Q7")[0]) == "Queen 7" and card_name(N) == "Neutral"
    assert k.NUM_CARDS == 112 and len(full_deck()) == 112
    env = card_envs.make(ENV_ID, num_players=3)
    env.reset(seed=5)
    s = env.state_dict()
    every = [c for h in s["hands"] for c in h] + s["draw_pile"] + s["discard_pile"]
    assert sorted(every) == full_deck()  # two of each figure card, four neutrals


def test_action_ids_and_names():
    ids = (0, 1, 111, 166, 167, 168, 223)
    assert (k.DRAW, k.TAKE, k.PLACE, k.UNDO, k.END_MELD, k.DISCARD, k.NUM_ACTIONS) == ids
    assert (ref.DRAW, ref.TAKE, ref.PLACE, ref.UNDO, ref.END_MELD, ref.DISCARD) == ids[:-1]
    assert ref.NUM_ACTIONS == 223 and k.MAX_TAKE == ref.MAX_TAKE == 110
    env = card_envs.make(ENV_ID)
    assert env.action_space("player_0").n == 223
    name = env.game.action_name
    assert name(0) == "draw"
    assert name(take(1)) == "take the top 1 of the discard pile"
    assert name(take(110)) == "take the top 110 of the discard pile"
    assert name(k.PLACE + C("R7")[0]) == "place Rook 7"
    assert name(k.PLACE + N) == "place Neutral"
    assert name(k.UNDO) == "undo this turn's placements"
    assert name(k.END_MELD) == "end melding"
    assert name(discard("J9")) == "discard Joker 9"


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_deal(num_players):
    """14 cards each, the discard pile empty (so the first turn draws), the rest to draw."""
    env = card_envs.make(ENV_ID, num_players=num_players)
    env.reset(seed=11)
    s = env.state_dict()
    assert [len(h) for h in s["hands"]] == [14] * num_players
    assert s["discard_pile"] == [] and s["table"] == [] and s["placed"] == []
    assert len(s["draw_pile"]) == 112 - 14 * num_players
    assert s["phase"] == "draw" and s["hand_turns"] == 0 and s["points"] == [0] * num_players
    assert s["opened"] == [False] * num_players and s["known"] == [[]] * num_players
    assert legal(env) == [k.DRAW]
    assert env.agent_selection == f"player_{s['current_player']}"


def test_the_first_seat_is_drawn_at_random_from_the_seed():
    firsts = {}
    for seed in range(40):
        env = card_envs.make(ENV_ID, num_players=3)
        env.reset(seed=seed)
        firsts[seed] = env.state_dict()["current_player"]
        assert int(env._row[k.FIRST]) == firsts[seed]
        again = card_envs.make(ENV_ID, num_players=3)
        again.reset(seed=seed)
        assert again.state_dict() == env.state_dict()
    assert set(firsts.values()) == {0, 1, 2}


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_play_goes_up_by_seat(num_players):
    hands = [f"{f}5 {f}6 {f}7" for f in FIGURES[:num_players]]
    last = num_players - 1
    env = situation({"num_players": num_players}, hands=hands, player=last, phase="draw")
    s = play(env, k.DRAW, k.END_MELD)
    assert s["phase"] == "discard" and s["current_player"] == last
    s = play(env, discard(f"{FIGURES[last]}5"))
    assert s["current_player"] == 0 and s["phase"] == "draw" and s["hand_turns"] == 1
    s = play(env, k.DRAW, k.END_MELD, discard("P6"))
    assert s["current_player"] == 1 % num_players and s["hand_turns"] == 2


def test_a_turn_is_draw_or_take_then_meld_then_one_discard():
    env = situation(hands=["P1 K3 J9", "B2 B3"], discard="R4 R5", draw="Q8", phase="draw")
    assert legal(env) == [k.DRAW, take(1), take(2)]
    s = play(env, k.DRAW)
    assert s["phase"] == "meld" and s["hands"][0] == sorted(C("P1 K3 J9 Q8"))
    # meld phase: a placement for each card held, and ending the melding phase (nothing placed)
    assert legal(env) == [k.PLACE + c for c in sorted(C("P1 K3 J9 Q8"))] + [k.END_MELD]
    s = play(env, k.END_MELD)
    assert s["phase"] == "discard" and s["current_player"] == 0
    assert legal(env) == [k.DISCARD + c for c in sorted(C("P1 K3 J9 Q8"))]
    s = play(env, discard("K3"))
    assert s["discard_pile"][-1] == C("K3")[0] and s["current_player"] == 1
    assert s["hands"][0] == sorted(C("P1 J9 Q8"))


# --- groups --------------------------------------------------------------------------------------


def test_a_group_has_at_most_six_or_nine_cards():
    """A colour line has six cells and a figure line nine: a neutral beside a full line has
    no cell of its own; it can only stand in a second group, at an end of it."""
    for line in ("P5 K5 B5 R5 Q5 J5", "K1 K2 K3 K4 K5 K6 K7 K8 K9"):
        assert meld_allowed(group=line)
        assert not meld_allowed(group=line + " N")
        env = situation({"neutral_at_ends": True}, hands=[line + " N J9", "P9"], opened=(0,))
        s = play(env, *place(line + " N"), k.END_MELD)
        assert len(s["table"]) == 2 and max(map(len, s["table"])) < len(C(line)) + 1


@pytest.mark.parametrize(
    ("group", "valid"),
    [("P1 P2 N", True), ("N K5 B5", True), ("N N J9", True), ("N P5 N", True), ("P1 N", False)],
)
def test_neutral_at_ends_option(group, valid):
    """With neutral_at_ends a neutral may also take an end cell of a group (on the grid)."""
    assert not meld_allowed(group=group)
    assert meld_allowed({"neutral_at_ends": True}, group=group) == valid


def test_neutrals_count_for_the_length_of_a_group():
    # P1 N P3 is three cards; a figure group of nine may hold neutrals too
    assert meld_allowed(group="P1 N P3")
    assert meld_allowed(group="K1 K2 K3 N K5 K6 N K8 K9")


def test_a_neutral_may_stand_for_a_card_whose_copies_are_elsewhere():
    table = "R3 R4 R5 R5 R6 R7"  # both Rook 5s on the table
    assert meld_allowed(group="R4 N R6", table=table)


# --- the opening meld ----------------------------------------------------------------------------


def test_opening_with_six_cards_is_refused():
    env = situation(hands=["P1 P2 P3 K1 K2 K3 J9", "B5"])
    play(env, *place("P1 P2 P3 K1 K2 K3"))
    assert legal(env) == [k.PLACE + C("J9")[0], k.UNDO]  # two groups, six cards: no
    s = play(env, k.UNDO, k.END_MELD)
    assert not s["opened"][0] and s["table"] == []


def test_from_opening_needs_seven_six_cards_in_groups_cannot_open_seven_can():
    env = positions.load("rummidrez/opening-needs-seven").make_env()
    assert env.agent_selection == "player_0" and k.END_MELD in legal(env)  # nothing placed
    play(env, *place("P1 P2 P3 K1 K2 K3"))
    assert k.END_MELD not in legal(env)  # two groups, but six cards
    s = play(env, *place("K4"), k.END_MELD)
    assert s["opened"][0] and s["phase"] == "discard"
    assert sorted(map(sorted, s["table"])) == [C("P1 P2 P3"), C("K1 K2 K3 K4")]


def test_from_take_top_k_any_top_k_of_the_discard_pile_may_be_taken_and_is_known():
    env = positions.load("rummidrez/take-top-k").make_env()
    assert legal(env) == [k.DRAW, take(1), take(2), take(3)]  # the pile holds three
    s = play(env, take(2))  # Joker 5 and Queen 5, the top two
    assert s["discard_pile"] == C("K5") and s["known"] == [sorted(C("J5 Q5")), []]
    assert s["phase"] == "meld" and len(s["hands"][0]) == 16 and env.agent_selection == "player_0"


def test_opening_with_one_run_of_seven():
    env = situation(hands=["B1 B2 B3 B4 B5 B6 B7 J9", "P5"])
    s = play(env, *place("B1 B2 B3 B4 B5 B6 B7"), k.END_MELD)
    assert s["opened"][0] and len(table_of(s)) == 7


def test_a_neutral_counts_towards_the_opening_seven():
    env = situation(hands=["P1 P2 P3 K4 N K6 K7 J9", "B5"])
    play(env, *place("P1 P2 P3 K4 N K6"))
    assert k.END_MELD not in legal(env)  # six cards, one of them the neutral
    s = play(env, *place("K7"), k.END_MELD)  # six real cards and the neutral: seven
    assert s["opened"][0] and len(table_of(s)) == 7


def test_before_opening_no_card_joins_the_table():
    # the opponent's run on the table; Q8 would extend it, but an unopened seat may not touch
    # the table, even with seven cards that are groups only together with it
    table = "Q1 Q2 Q3 Q4 Q5 Q6 Q7"
    env = situation(hands=["Q8 Q9 J1 J2 J3 J4 J5 P9", "B5"], table=table, opened=(1,))
    play(env, *place("Q8"))
    assert k.END_MELD not in legal(env)
    play(env, *place("Q9 J1 J2 J3 J4 J5"))
    assert k.END_MELD not in legal(env)  # 7 cards, valid with the table, not alone
    # once opened, the same cards join the table
    env = situation(hands=["Q8 Q9 J1 J2 J3 J4 J5 P9", "B5"], table=table, opened=(0, 1))
    s = play(env, *place("Q8 Q9 J1 J2 J3 J4 J5"), k.END_MELD)
    assert len(table_of(s)) == 14


def test_cards_taken_this_turn_may_open():
    env = situation(hands=["P1 P2 K1 K2 K3 K4 J9", "B5"], discard="R8 P3", phase="draw")
    s = play(env, take(1), *place("P1 P2 P3 K1 K2 K3 K4"), k.END_MELD)
    assert s["opened"][0] and s["known"][0] == []  # the taken P3 is on the table now


def test_ending_the_melding_phase_with_nothing_placed_is_always_legal():
    for opened in ((), (0, 1)):
        table = "J1 J2 J3" if opened else ""
        env = situation(hands=["P1 K5 R9", "B5"], table=table, opened=opened)
        assert legal(env)[-1] == k.END_MELD
        s = play(env, k.END_MELD)
        assert s["opened"][0] == bool(opened)  # placing nothing does not open
        assert table_of(s) == sorted(C(table)) and s["hands"][0] == sorted(C("P1 K5 R9"))


# --- after opening: adding to any group, rearranging ------------------------------------------


def test_splitting_a_run_to_place_a_card():
    # a second P3 splits P1..P6 into P1 P2 P3 and P3 P4 P5 P6
    table = "P1 P2 P3 P4 P5 P6"
    env = situation(hands=["P3 J9", "B5"], table=table, opened=(0,))
    s = play(env, *place("P3"), k.END_MELD)
    assert sorted(map(sorted, s["table"])) == [sorted(C("P1 P2 P3")), sorted(C("P3 P4 P5 P6"))]


def test_a_card_that_fits_nowhere_is_refused():
    env = situation(hands=["J9 P4", "B5"], table="P1 P2 P3", opened=(0,))
    play(env, *place("J9"))
    assert legal(env) == [k.PLACE + C("P4")[0], k.UNDO]
    play(env, *place("P4"))
    assert k.END_MELD not in legal(env)  # one card that fits does not carry one that does not


def test_the_table_changes_only_with_an_own_card():
    """The table is a multiset: a rearrangement alone is no move, and ending the melding phase
    with nothing placed leaves it exactly as it was."""
    table = "P1 P2 P3 P4 P5 P6 K4 B4 R4"
    env = situation(hands=["J9 Q2", "B5"], table=table, opened=(0,))
    before = env.state_dict()
    s = play(env, k.END_MELD)
    assert table_of(s) == table_of(before) and s["hands"] == before["hands"]


# --- undo and the placement cap ------------------------------------------------------------------


def test_undo_restores_the_hand():
    env = situation(hands=["P4 P5 J9 N", "B5"], table="P1 P2 P3", opened=(0,))
    before = env.state_dict()
    s = play(env, *place("P4 J9 N"))
    assert s["hands"][0] == C("P5") and s["placed"] == sorted(C("P4 J9 N"))
    assert k.END_MELD not in legal(env)
    s = play(env, k.UNDO)
    assert s["hands"] == before["hands"] and s["placed"] == [] and table_of(s) == C("P1 P2 P3")
    assert k.UNDO not in legal(env) and k.END_MELD in legal(env)
    assert s["placements"] == 3  # undone placements still count


def test_placement_cap():
    """max_placements counts PLACE actions per turn, undone ones included (7 at least, the
    cards of an opening meld)."""
    env = situation({"max_placements": 7}, hands=["P4 J9 K1", "B5"], table="P1 P2 P3", opened=(0,))
    play(env, *place("P4 J9 K1"), k.UNDO, *place("P4 J9 K1"), k.UNDO)
    s = play(env, *place("P4"))
    assert s["placements"] == 7
    assert legal(env) == [k.UNDO, k.END_MELD]  # no more placements this turn
    play(env, k.UNDO)
    assert legal(env) == [k.END_MELD]
    s = play(env, k.END_MELD, discard("J9"), k.DRAW)
    assert s["current_player"] == 1 and s["placements"] == 0  # a new turn, a new count
    assert any(k.PLACE <= a < k.UNDO for a in legal(env))


# --- taking from the discard pile, rediscarding, known cards ------------------------------------


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_take_the_top_k_cards(count):
    pile = C("P1 K2 B3 R4")  # bottom to top
    env = situation(hands=["J9", "Q5"], discard="P1 K2 B3 R4", draw="Q9", phase="draw")
    assert legal(env) == [k.DRAW, take(1), take(2), take(3), take(4)]
    s = play(env, take(count))
    got = pile[len(pile) - count :]
    assert s["discard_pile"] == pile[: len(pile) - count]
    assert s["hands"][0] == sorted(C("J9") + got) and s["known"][0] == sorted(got)
    assert s["phase"] == "meld" and s["draw_pile"][0] == C("Q9")[0]


def test_the_whole_discard_pile_may_be_taken():
    env = situation(hands=["J9", "Q5"], rest="discard", draw="Q9", phase="draw")
    size = len(env.state_dict()["discard_pile"])
    assert size > 100 and legal(env)[-1] == take(size)
    s = play(env, take(size))
    assert s["discard_pile"] == [] and len(s["hands"][0]) == size + 1


def test_a_taken_card_may_be_discarded_again_by_default():
    env = situation(hands=["P5 K7", "Q5"], discard="B2", phase="draw")
    play(env, take(1), k.END_MELD)
    assert discard("B2") in legal(env)
    s = play(env, discard("B2"))
    assert s["discard_pile"] == C("B2") and s["known"][0] == []


def test_rediscard_off_forbids_discarding_a_taken_card():
    env = situation({"rediscard": False}, hands=["P5 K7", "Q5"], discard="B2", phase="draw")
    play(env, take(1), k.END_MELD)
    assert legal(env) == [discard("P5"), discard("K7")]


def test_rediscard_off_allows_another_copy():
    env = situation({"rediscard": False}, hands=["B2 K7", "Q5"], discard="B2", phase="draw")
    play(env, take(1), k.END_MELD)
    assert legal(env) == sorted([discard("B2"), discard("K7")])  # two held, one taken


def test_rediscard_off_placed_copies_count_as_the_taken_ones_first():
    # an own B2 and a taken B2; one B2 goes to the table: it counts as the taken one, so
    # the B2 left in hand may be discarded
    env = situation(
        {"rediscard": False},
        hands=["B2 K7", "Q5"],
        table="B3 B4 B5",
        opened=(0,),
        discard="B2",
        phase="draw",
    )
    play(env, take(1), *place("B2"), k.END_MELD)
    assert legal(env) == sorted([discard("B2"), discard("K7")])


def test_rediscard_off_when_only_taken_cards_are_left_any_may_go():
    env = situation(
        {"rediscard": False},
        hands=["P4", "Q5 Q6"],
        table="P1 P2 P3",
        opened=(0,),
        discard="J9",
        phase="draw",
    )
    play(env, take(1), *place("P4"), k.END_MELD)
    assert legal(env) == [discard("J9")]
    s = play(env, discard("J9"))  # and it empties the hand: a win
    assert s["done"] and s["winner"] == 0


def test_known_cards_are_public_until_played():
    """Cards taken from the discard pile are known to every seat; each copy the seat plays
    (placed at the end of its melding phase, or discarded) lowers the count by one."""
    env = situation(
        {"num_players": 3},
        hands=["P9", "J9 Q1", "R8"],
        table="R3 Q3 J3",
        opened=(1,),
        discard="P5 K2 B3",
        player=1,
        phase="draw",
    )
    s = play(env, take(2))
    assert s["known"] == [[], sorted(C("K2 B3")), []]
    start, size = k.obs_slices(3)["known"]
    for seat, block in ((0, 0), (2, 1)):  # seat 1 is seat 0's first other, seat 2's second
        obs = env.observe(f"player_{seat}")["observation"]
        known = obs[start + block * k.NUM_IDS : start + (block + 1) * k.NUM_IDS]
        assert np.flatnonzero(known).tolist() == sorted(C("K2 B3"))
    s = play(env, *place("B3"))
    assert s["known"][1] == sorted(C("K2 B3"))  # placed, not yet played
    s = play(env, k.END_MELD)
    assert s["known"][1] == C("K2")
    s = play(env, discard("K2"))
    assert s["known"][1] == []


def test_known_count_floors_at_zero():
    # an own K2 and a taken K2 (known: one); both go to the table: known 0, not -1
    env = situation(
        hands=["K2 P9", "Q5"],
        table="K3 K4 K5 K3 K4 K5",
        opened=(0,),
        discard="K2",
        phase="draw",
    )
    s = play(env, take(1))
    assert s["known"][0] == C("K2")
    s = play(env, *place("K2 K2"), k.END_MELD)
    assert s["known"][0] == [] and env.game.invariant_error(env._row) is None


def test_known_cards_persist_across_turns():
    env = situation(hands=["P9 P8", "Q5 Q6"], discard="K2", phase="draw")
    s = play(env, take(1), k.END_MELD, discard("P9"), k.DRAW, k.END_MELD, discard("Q5"))
    assert s["current_player"] == 0 and s["known"][0] == C("K2")


# --- the draw pile runs out -----------------------------------------------------------------------


def test_an_empty_draw_pile_is_refilled_from_the_discard_pile_but_its_top():
    env = situation(hands=["P9 P8", "Q5 Q6"], draw="K2", rest="discard", phase="draw")
    pile = env.state_dict()["discard_pile"]
    s = play(env, k.DRAW, k.END_MELD, discard("P9"))
    assert s["current_player"] == 1 and s["phase"] == "draw"
    assert s["discard_pile"] == C("P9")
    assert sorted(s["draw_pile"]) == sorted(pile) and s["refilled"]
    assert legal(env) == [k.DRAW, take(1)]
    assert env.game.invariant_error(env._row) is None


@pytest.mark.parametrize("reward", ["win", "score"])
def test_no_winner_when_the_draw_pile_cannot_be_refilled(reward):
    """Draw pile empty at the start of a turn and the discard pile only its top card: the hand
    ends with no winner and no points. (In play this cannot happen: a turn that empties the
    draw pile by drawing finds a discard pile of at least one card and adds its discard;
    the position is made by hand.)"""
    env = situation(
        {"num_players": 3, "reward": reward},
        hands=["P9 P8", "Q5 Q6", "J1"],
        rest=1,
        phase="discard",
    )
    s = play(env, discard("P9"))
    assert s["done"] and not s["truncated"] and s["winner"] is None
    assert s["points"] == [0, 0, 0] and s["current_player"] == 1 and s["phase"] == "draw"
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert rewards(env) == pytest.approx([1 / 3] * 3 if reward == "win" else [0.0] * 3)
    assert infos(env, "score") == [0.0] * 3 and infos(env, "win") == [1 / 3] * 3


def test_a_match_goes_on_after_a_hand_with_no_winner():
    env = situation(
        {"match": True}, hands=["P9 P8", "Q5 Q6"], rest=1, phase="discard", points=[4, 9]
    )
    s = play(env, discard("P9"))
    assert not s["done"] and s["points"] == [4, 9] and s["current_player"] == 1
    assert [len(h) for h in s["hands"]] == [14, 14]


# --- winning and scoring ------------------------------------------------------------------------


def test_emptying_the_hand_by_melding_wins_at_once():
    env = situation(hands=["P4 P5", "K1 K2 B5"], table="P1 P2 P3", opened=(0,))
    s = play(env, *place("P4 P5"), k.END_MELD)
    assert s["done"] and s["winner"] == 0 and s["points"] == [3, 0]
    assert s["phase"] == "meld" and s["discard_pile"] == []  # no discard
    assert rewards(env) == [1.0, 0.0]


def test_an_opening_with_the_whole_hand_wins():
    env = situation(hands=["P1 P2 P3 K1 K2 K3 K4", "B5 B6"], draw="K5", phase="draw")
    s = play(env, k.DRAW, *place("P1 P2 P3 K1 K2 K3 K4 K5"), k.END_MELD)
    assert s["done"] and s["winner"] == 0 and s["opened"] == [True, False]


@pytest.mark.parametrize("num_players", [3, 4])
def test_the_winner_scores_every_other_hand(num_players):
    hands = ["P4", "K1 K2", "N B5 B6", "Q1 Q2 Q3 N"][:num_players]
    env = situation(
        {"num_players": num_players, "reward": "score"},
        hands=hands,
        table="P1 P2 P3",
        opened=(0,),
    )
    s = play(env, *place("P4"), k.END_MELD)
    gained = sum(len(C(h)) for h in hands[1:])
    assert s["points"] == [gained] + [0] * (num_players - 1)
    assert rewards(env) == [float(gained)] + [0.0] * (num_players - 1)


def test_score_reward_in_a_single_hand():
    env = situation({"reward": "score"}, hands=["P4 J9", "K1 K2 N"], table="P1 P2 P3", opened=(0,))
    s = play(env, *place("P4"), k.END_MELD)
    assert rewards(env) == [0.0, 0.0] and not s["done"]
    play(env, discard("J9"))
    assert rewards(env) == [3.0, 0.0] and infos(env, "score") == [3.0, 0.0]


# --- the match ---------------------------------------------------------------------------------


def test_match_hands_go_on_below_the_target_and_start_one_seat_on():
    # seat 1 started this hand; seat 0 wins it with 5 points, 28 is far: the next hand is
    # dealt and starts at seat 2 (one on from the seat that started, not the winner)
    env = situation(
        {"num_players": 3, "match": True, "reward": "score"},
        hands=["P4", "K1 K2", "N B5 B6"],
        table="P1 P2 P3",
        opened=(0,),
        first=1,
        hand_turns=7,
    )
    s = play(env, *place("P4"), k.END_MELD)
    assert rewards(env) == [5.0, 0.0, 0.0]
    assert not s["done"] and s["points"] == [5, 0, 0]
    assert s["current_player"] == 2 and s["phase"] == "draw" and s["first_player"] == 2
    assert s["winner"] == 0  # the winner of the last finished hand
    assert [len(h) for h in s["hands"]] == [14, 14, 14] and len(s["draw_pile"]) == 70
    assert s["table"] == [] and s["discard_pile"] == [] and s["opened"] == [False] * 3
    assert s["hand_turns"] == 0 and s["known"] == [[], [], []]
    assert env.agent_selection == "player_2" and legal(env) == [k.DRAW]
    assert env.game.invariant_error(env._row) is None


def test_a_match_over_two_hands():
    """Hand 1: seat 0 wins 5 points, short of 14; hand 2 starts at seat 1 and, written into
    the same episode, seat 1 wins 4 points more than the 10 it has: 14, the match is over."""
    env = situation(
        {"match": True}, hands=["P4", "K1 K2 N B5 B6"], table="P1 P2 P3", opened=(0,), first=0
    )
    s = play(env, *place("P4"), k.END_MELD)
    assert not s["done"] and s["points"] == [5, 0] and s["current_player"] == 1
    assert s["winner"] == 0
    situation(
        env=env,
        hands=["Q1 Q2 Q3 Q5", "J4"],
        table="J1 J2 J3",
        opened=(1,),
        player=1,
        first=1,
        points=[5, 10],
    )
    s = play(env, *place("J4"), k.END_MELD)
    assert s["done"] and s["points"] == [5, 14] and s["winner"] == 1
    assert rewards(env) == [0.0, 1.0] and infos(env, "score") == [5.0, 14.0]


def test_match_win_reward_comes_only_at_the_end():
    env = situation({"match": True}, hands=["P4", "K1 K2"], table="P1 P2 P3", opened=(0,))
    s = play(env, *place("P4"), k.END_MELD)
    assert not s["done"] and s["points"] == [2, 0] and rewards(env) == [0.0, 0.0]


# --- truncation --------------------------------------------------------------------------------


def test_max_turns_counts_the_turns_of_every_seat():
    env = card_envs.make(ENV_ID, num_players=3, max_turns=3)
    env.reset(seed=3)
    for turn in range(3):
        s = env.state_dict()
        assert not s["done"] and s["hand_turns"] == turn
        play(env, k.DRAW, k.END_MELD)
        play(env, legal(env)[0])
    s = env.state_dict()
    assert s["done"] and s["truncated"] and s["hand_turns"] == 3


def test_truncation_gives_no_reward_and_reports_the_leader_by_points():
    env = situation({"max_turns": 5}, hands=["P9 P8", "Q5"], phase="discard", hand_turns=4)
    s = play(env, discard("P9"))
    assert s["done"] and s["truncated"] and s["winner"] is None
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert rewards(env) == [0.0, 0.0]
    assert infos(env, "score") == [0.0, 0.0] and infos(env, "win") == [0.5, 0.5]


@pytest.mark.parametrize(
    ("points", "wins"), [([5, 9], [0.0, 1.0]), ([7, 7], [0.5, 0.5]), ([12, 0], [1.0, 0.0])]
)
def test_truncation_ends_the_whole_match_by_time(points, wins):
    env = situation(
        {"match": True, "reward": "score", "max_turns": 5},
        hands=["P9 P8", "Q5"],
        phase="discard",
        hand_turns=4,
        points=points,
    )
    s = play(env, discard("P9"))
    assert s["done"] and s["truncated"] and rewards(env) == [0.0, 0.0]
    assert infos(env, "score") == [float(p) for p in points] and infos(env, "win") == wins


def test_a_win_on_the_last_turn_is_not_a_truncation():
    env = situation(
        {"max_turns": 5},
        hands=["P4 J9", "Q5"],
        table="P1 P2 P3",
        opened=(0,),
        hand_turns=4,
    )
    s = play(env, *place("P4"), k.END_MELD, discard("J9"))
    assert s["done"] and not s["truncated"] and s["winner"] == 0
    assert all(env.terminations.values()) and rewards(env) == [1.0, 0.0]


# --- configs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"num_players": 1}, "num_players=1 is outside the allowed range 2..4"),
        ({"num_players": 5}, "num_players=5 is outside the allowed range 2..4"),
        ({"players": 3}, "unknown option"),
        ({"reward": "points"}, "reward='points' is not one of"),
        ({"match": "yes"}, "must be of type bool"),
        ({"rediscard": 0}, "must be of type bool"),
        ({"max_turns": 0}, "max_turns=0 is outside the allowed range"),
        ({"max_placements": 0}, "max_placements=0 is outside the allowed range 7"),
        ({"max_placements": 6}, "max_placements=6 is outside the allowed range 7"),
        ({"neutral_at_ends": None}, "must be of type bool"),
    ],
)
def test_bad_configs_raise_clear_errors(config, message):
    with pytest.raises(ConfigError, match=message):
        card_envs.make(ENV_ID, **config)
    with pytest.raises(ValueError, match=message):
        Rummidrez(**config)


def test_the_defaults():
    game = Rummidrez()
    assert game.config == {
        "num_players": 2,
        "reward": "win",
        "match": False,
        "rediscard": True,
        "max_turns": 200,
        "neutral_at_ends": False,
        "max_placements": 112,
        "hints": False,
        "history": 0,
    }


# --- the observation and hidden information ------------------------------------------------------


def test_observation_slices_and_what_they_hold():
    names = ["hand", "table", "placed", "discard_depth", "discard_depth2", "known"]
    names += ["hand_sizes", "opened", "points", "to_act", "phase", "piles", "hint"]
    for n, size in ((2, 342), (3, 401), (4, 460)):
        slices = k.obs_slices(n)
        assert list(slices) == names and k.obs_size(n) == size
        assert slices["known"][1] == 55 * (n - 1) and slices["hint"] == (size, 0)
        starts = [start for start, _ in slices.values()]
        assert starts == sorted(starts) and sum(v for _, v in slices.values()) == size
    env = situation(
        {"num_players": 3, "match": True},
        hands=["P4 P4 J9", "K1 K2 Q7", "N B5"],
        table="P1 P2 P3",
        placed="B6",
        opened=(0, 2),
        discard="Q1 R7 Q1 R7 N",  # bottom to top
        points=[3, 0, 8],
        known=["", "K2", ""],
        player=1,
    )
    draw = len(env.state_dict()["draw_pile"])

    def view(seat):
        obs = env.observe(f"player_{seat}")["observation"]
        return {name: obs[a : a + b] for name, (a, b) in k.obs_slices(3).items()}

    def counts(text):
        out = np.zeros(55, np.float32)
        for c in C(text):
            out[c] += 1
        return out

    o = view(0)
    np.testing.assert_array_equal(o["hand"], counts("P4 P4 J9"))
    np.testing.assert_array_equal(o["table"], counts("P1 P2 P3"))
    np.testing.assert_array_equal(o["placed"], counts("B6"))  # the seat to act's placements
    depth = {c: o["discard_depth"][c] for c in np.flatnonzero(o["discard_depth"])}
    assert depth == {C("N")[0]: 1, C("R7")[0]: 2, C("Q1")[0]: 3}
    depth2 = {c: o["discard_depth2"][c] for c in np.flatnonzero(o["discard_depth2"])}
    assert depth2 == {C("R7")[0]: 4, C("Q1")[0]: 5}
    np.testing.assert_array_equal(o["known"], np.concatenate([counts("K2"), counts("")]))
    assert o["hand_sizes"].tolist() == [3, 2]  # seat 1 (its placed card not counted), seat 2
    assert o["opened"].tolist() == [1, 0, 1] and o["points"].tolist() == [3, 0, 8]
    assert o["to_act"].tolist() == [0, 1, 0] and o["phase"].tolist() == [0, 1, 0]
    assert o["piles"].tolist() == [draw, 5]
    o = view(2)  # the others from seat 2's left: seat 0, then seat 1
    np.testing.assert_array_equal(o["hand"], counts("N B5"))
    np.testing.assert_array_equal(o["known"], np.concatenate([counts(""), counts("K2")]))
    assert o["hand_sizes"].tolist() == [3, 3]
    assert o["opened"].tolist() == [1, 1, 0] and o["points"].tolist() == [8, 3, 0]
    assert o["to_act"].tolist() == [0, 0, 1]


def test_resample_hidden_keeps_what_the_seat_sees():
    env = situation(
        {"num_players": 3},
        hands=["P4 P5 J9", "K1 K2 B6 Q7", "N B5"],
        table="P1 P2 P3",
        opened=(0,),
        discard="Q1 R7 K2",
        known=["", "K2", ""],
        placed="",
        player=1,
        phase="meld",
    )
    row = env._row
    game = env.game
    seen = {}
    changed = 0
    for seat in range(3):
        obs = np.empty(game.obs_size, np.float32)
        k.observe(row, seat, obs)
        seen[seat] = obs
    for seed in range(12):
        seat = seed % 3
        new = game.resample_hidden(row, seat, seed)
        assert game.invariant_error(new) is None
        obs = np.empty(game.obs_size, np.float32)
        k.observe(new, seat, obs)
        np.testing.assert_array_equal(obs, seen[seat])
        before, after = game.state_dict(row), game.state_dict(new)
        assert after["hands"][seat] == before["hands"][seat]
        assert after["known"] == before["known"] and table_of(after) == table_of(before)
        assert [len(h) for h in after["hands"]] == [len(h) for h in before["hands"]]
        assert after["discard_pile"] == before["discard_pile"]
        assert set(C("K2")) <= set(after["hands"][1])  # a known card stays where it is
        changed += after["hands"] != before["hands"]
    assert changed >= 8


def test_resample_hidden_keeps_the_refilled_draw_pile():
    """After a refill the draw pile is what every seat saw as the discard pile: a seat with
    memory knows its cards, so a determinisation must not trade them for the cards of other
    hands (the engine protocol: "keeping the row consistent with everything `seat` has
    seen")."""
    env = situation(hands=["P9 P8", "Q5 Q6"], draw="K2", rest="discard", phase="draw")
    pile = env.state_dict()["discard_pile"]
    s = play(env, k.DRAW, k.END_MELD, discard("P9"))
    assert sorted(s["draw_pile"]) == sorted(pile) and s["current_player"] == 1
    orders = set()
    for seed in range(10):
        new = env.game.resample_hidden(env._row, 0, seed)
        assert env.game.invariant_error(new) is None
        after = env.game.state_dict(new)
        assert sorted(after["draw_pile"]) == sorted(pile)
        assert after["hands"] == s["hands"]  # after a refill every hand stays
        orders.add(tuple(after["draw_pile"]))
    assert len(orders) > 1  # the order nobody saw is redrawn


def test_state_dicts_tell_apart_states_that_play_on_differently():
    # the same position, once with B2 taken this turn and once with B2 held from before: with
    # rediscard=False the discards differ, so the state dicts must too
    config = {"rediscard": False, "match": True}
    taken = situation(config, hands=["B2 K7", "Q5"], known=["B2", ""], taken="B2")
    held = situation(config, hands=["B2 K7", "Q5"], known=["B2", ""])
    play(taken, k.END_MELD)
    play(held, k.END_MELD)
    assert legal(taken) != legal(held)
    assert taken.state_dict() != held.state_dict()
    # the same position in a match, hands started by seat 0 and by seat 1: the next hand
    # starts at seat 1 or at seat 0
    firsts = [
        situation(config, hands=["P4", "K1"], table="P1 P2 P3", opened=(0,), first=f)
        for f in (0, 1)
    ]
    assert firsts[0].state_dict() != firsts[1].state_dict()


# --- the table drawn (`Game.scene`) --------------------------------------------------------------
def panel_cards(scene: dict, label: str) -> list[dict]:
    """The cards inside the panel whose label starts with `label`, left to right."""
    panel = next(
        it for it in scene["items"] if it["kind"] == "panel" and it["label"].startswith(label)
    )
    return [
        it
        for it in scene["items"]
        if it["kind"] == "card" and panel["y"] <= it["y"] < panel["y"] + panel["h"]
    ]


def marked_panels(scene: dict) -> list[str]:
    return [it["label"] for it in scene["items"] if it["kind"] == "panel" and it["mark"]]


def test_the_table_shows_the_own_hand_with_its_actions_and_hides_the_others():
    env = situation(
        {"num_players": 3},
        hands=["P1 K5 N", "J9 Q1", "R8"],
        known=["", "Q1", ""],
        table="R3 Q3 J3",
        opened=(1,),
        discard="P5 K2 B3",
        phase="draw",
    )
    s = env.game.scene(env._row, 0)
    mine = panel_cards(s, "you (player_0): 3 card(s), not opened")
    assert [c["label"] for c in mine] == ["P1", "K5", "N"]
    assert [c["actions"] for c in mine] == [[k.PLACE + c, k.DISCARD + c] for c in C("P1 K5 N")]
    # seat 1: the Q1 everyone saw it take, one card face down; seat 2: one face down
    theirs = panel_cards(s, "player_1: 2 card(s), opened")
    assert [c.get("label") for c in theirs] == ["Q1", None] and theirs[1]["down"]
    assert [c["down"] for c in panel_cards(s, "player_2: 1 card(s)")] == [True]
    assert marked_panels(s) == ["you (player_0): 3 card(s), not opened"]
    # the discard pile, bottom to top: a click takes the card and every card above it
    pile = [it for it in s["items"] if it.get("actions", [-1])[0] in range(k.TAKE, k.PLACE)]
    assert [(c["label"], c["actions"], c["mark"]) for c in pile] == [
        ("P5", [take(3)], False),
        ("K2", [take(2)], False),
        ("B3", [take(1)], True),
    ]
    labels = [it.get("label") for it in s["items"] if it["kind"] == "card"]
    assert ["R3", "Q3", "J3"] == labels[labels.index("R3") : labels.index("R3") + 3]
    assert scene.buttons(s, legal(env)) == [k.DRAW]  # every take is a card of the pile
    # seat 1 sees its own hand and not seat 0's; with every card shown, all hands are open
    assert [c.get("label") for c in panel_cards(env.game.scene(env._row, 1), "player_0")] == [
        None
    ] * 3
    everything = env.game.scene(env._row, None)
    assert [c["label"] for c in panel_cards(everything, "player_1")] == ["Q1", "J9"]
    assert [c["label"] for c in panel_cards(everything, "player_2")] == ["R8"]


def test_the_table_in_the_meld_and_discard_phases():
    """Placed cards show marked in a panel of their own; a hand card is placed in the meld
    phase and discarded in the discard phase (the same click); UNDO and END_MELD are buttons."""
    env = situation(
        hands=["P1 P2 P3 K7", "Q5"], table="J1 J2 J3", opened=(0, 1), placed="", rest="draw"
    )
    play(env, *place("P1 P2"))
    s = env.game.scene(env._row, 0)
    assert [(c["label"], c["mark"]) for c in panel_cards(s, "Placed this turn by you")] == [
        ("P1", True),
        ("P2", True),
    ]
    clicks = scene.clickable(s, legal(env))
    mine = panel_cards(clicks, "you (player_0)")
    assert [c["label"] for c in mine] == ["P3", "K7"]
    assert [c["action"] for c in mine] == place("P3 K7")
    assert scene.buttons(s, legal(env)) == [k.UNDO]  # P1 P2 alone make no group
    play(env, *place("P3"), k.END_MELD)
    clicks = scene.clickable(env.game.scene(env._row, 0), legal(env))
    assert [c["action"] for c in panel_cards(clicks, "you (player_0)")] == [discard("K7")]
    assert "Placed this turn" not in str(env.game.scene(env._row, 0))


def test_the_table_at_the_end_names_the_winner():
    env = situation(hands=["P4", "Q5 Q6"], table="P1 P2 P3", opened=(0,), phase="discard")
    play(env, discard("P4"))
    s = env.game.scene(env._row, 1)
    assert s["items"][0]["text"] == "Game over: player_0 wins with 2 point(s)"
    assert marked_panels(s) == []
