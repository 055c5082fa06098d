"""Super Zwierzaki positions: a hand-written Oth duel plays on as the rules say, every kind
of bad dict is refused with the field named, and counts past their observation caps load.
Every named position also passes the conformance suite's `checks.check_named_positions`
(the AEC and the batched env)."""

from __future__ import annotations

import copy
import json
from collections import Counter

import numpy as np
import pytest

from card_envs import make, positions
from card_envs.core.loading import StateDictError
from card_envs.games.super_zwierzaki import deck
from card_envs.games.super_zwierzaki import engine as sz
from card_envs.games.super_zwierzaki.engine import KIND, PASS
from card_envs.testing import checks
from tests.games.super_zwierzaki.helpers import (
    ALIGATOR,
    CZAPLA,
    GRIZZLY,
    KANGUR,
    KOALA,
    MAMBA,
    OTH,
    RED2,
    SOKOL,
    TYGRYS,
    ZAJAC,
    kind,
)

SZ = "super_zwierzaki_v0"
SZYMPANS = kind("Szympans")  # DB mky, Oth
CONFIG = {"num_players": 3, "explicit_call": False, "skip_forced": False}
CONFIG |= {"play_drawn": False, "max_turns": 1000}


HEAD = [ZAJAC, SOKOL, GRIZZLY, KANGUR, CZAPLA, TYGRYS, KOALA, MAMBA]  # the next 8 draws
HANDS = [sorted([RED2, MAMBA, KOALA]), [ALIGATOR, GRIZZLY], [SZYMPANS, TYGRYS, CZAPLA]]
DISCARD = [KANGUR, OTH]


def rest_of_deck(*places: list[int]) -> list[int]:
    """The cards of the deck not in `places`, sorted."""
    deck_cards = Counter({kind.id: kind.copies for kind in deck.KINDS})
    return sorted((deck_cards - Counter(c for place in places for c in place)).elements())


def hand_written() -> dict:
    """Three seats, numbered in seat order. Seat 0 played an Orangutan (Oth) on its turn,
    no one stopped it, so the duel is on at 1 point and seat 0, which caused it, moves first.
    Seat 1 holds no duel card; seat 2 a Szympans (Oth)."""
    return copy.deepcopy(positions.load("super_zwierzaki/oth-duel").state)


def legal(env) -> list[int]:
    return np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()


def test_a_hand_written_oth_duel_plays_by_the_rules():
    env = make(SZ, num_players=3)
    env.reset(seed=1)
    env.load_state_dict(hand_written(), seed=0)
    assert env.agent_selection == "player_0"
    assert legal(env) == [KIND + RED2, PASS]  # a Red is a duel card; Mamba and Koala are not
    env.step(KIND + RED2)  # a Red: +2, the duel at 3 points
    s = env.state_dict()
    assert s["duel"] == {"kind": "Oth", "points": 3, "folded": []}
    assert s["given_colours"] == ["R"] and s["phase"] == {"what": "duel", "seat": 1}
    assert legal(env) == [PASS]  # seat 1 has no duel card: it can only fold
    env.step(PASS)
    assert legal(env) == [KIND + SZYMPANS, PASS]  # seat 2: an Oth in an Oth duel
    env.step(KIND + SZYMPANS)  # +1: 4 points; seat 1 has folded, so seat 0 moves
    assert env.state_dict()["phase"] == {"what": "duel", "seat": 0}
    assert legal(env) == [PASS]
    env.step(PASS)  # only seat 2 is left: it wins, and the others draw 4 each, seat 0 first
    s = env.state_dict()
    assert s["duel"] is None and s["effects"] == []
    assert s["hands"] == [
        sorted([MAMBA, KOALA, *HEAD[:4]]),
        sorted([ALIGATOR, GRIZZLY, *HEAD[4:]]),
        sorted([TYGRYS, CZAPLA]),
    ]
    assert s["discard_pile"] == [*DISCARD, RED2, SZYMPANS]
    assert s["given_colours"] == ["DB"] and s["given_classes"] == ["mky"]
    # the turn of seat 0, which caused the duel, is over: seat 1's turn, the 9th
    assert s["phase"] == {"what": "turn", "seat": 1} and s["turns"] == 8
    assert env.rewards == {f"player_{p}": 0.0 for p in range(3)}


def setitem(key, value):
    return lambda d: d.update({key: value})


BAD = [
    # the header and the keys
    (lambda d: d.pop("reshuffled"), "reshuffled: missing"),
    (setitem("extra", 1), r"extra: unknown key; a state dict of super_zwierzaki_v0 has \["),
    (lambda d: d["config"].update(explicit_call=True), "config: option explicit_call=True, but"),
    (setitem("turn", 2**63), r"turn: 9223372036854775808 is not in 0\.\.9007199254740992"),
    # cards
    (lambda d: d["hands"][0].insert(0, MAMBA), r"every card must be in exactly one place: too ma"),
    (lambda d: d["hands"][1].remove(GRIZZLY), rf"missing \[{GRIZZLY}\]"),
    (lambda d: d["hands"][2].append(116), r"hands\[2\]\[3\]: 116 is not in 0\.\.115"),
    (lambda d: d["hands"].pop(), "hands: must be a list of 3 items, one per seat"),
    (lambda d: d["hands"][0].reverse(), r"hands\[0\]: \[34, 18, 0\]: list items in increasing"),
    (lambda d: d["discard_pile"].clear(), "every card must be in exactly one place"),
    (setitem("draw_pile", "none"), "draw_pile: 'none' is not a list"),
    # the table
    (setitem("numbers", [0, 1]), r"numbers: has 2 items, not 3"),
    (setitem("numbers", [0, 1, 1]), r"numbers: \[0, 1, 1\] is not an order of play"),
    # a count past its observation cap grows by at most so much per action (the turn is 20)
    (setitem("lost_turns", [0, -1, 0]), r"lost_turns\[1\]: -1 is not in 0\.\.115 \(15, and 5 "),
    (setitem("lost_turns", [0, 116, 0]), r"lost_turns\[1\]: 116 is not in 0\.\.115 \(15, and 5 "),
    (setitem("lost_turns", [0, "1", 0]), r"lost_turns\[1\]: '1' is not an int"),
    (setitem("given_colours", ["R"]), r"given_colours: are not those of the top card \(kind 36\)"),
    (setitem("given_colours", ["DB", "DB"]), "given_colours: 'DB' is there twice"),
    (setitem("given_classes", ["xyz"]), r"given_classes\[0\]: 'xyz' is not one of"),
    (lambda d: d["counters"].update(red=3), "counters.red: 3 is not a multiple of 2"),
    (
        lambda d: d["counters"].update(orc=318),
        r"counters.orc: 318 is not in 0\.\.315 \(15, and 15 more per action played: turn 20\)",
    ),
    (lambda d: d["counters"].update(red=2, green=1), "counters: at most one of them is above"),
    (lambda d: d["counters"].update(purple=1), "counters.purple: unknown key"),
    (lambda d: d["counters"].update(demand=1), "demand: a demand .kind and by. is given exactly"),
    (setitem("last_named", RED2), f"last_named: kind {RED2} has a function"),
    (setitem("turn_seat", 3), r"turn_seat: 3 is not in 0\.\.2"),
    (setitem("turns", 1001), r"turns: 1001 is not in 0\.\.1000"),
    (setitem("winner", 2), "winner: there is a winner exactly when the game is terminated"),
    # the pending decision and its player
    (setitem("decisions", []), "decisions: a running game has a decision pending"),
    (setitem("decisions", [{"what": "bid", "seat": 0}]), r"decisions\[0\].what: 'bid' is not"),
    (setitem("decisions", [{"what": "duel", "seat": 0, "kind": 1}]), r"\[0\].kind: unknown key"),
    (setitem("decisions", [{"what": "duel"}]), r"decisions\[0\].seat: missing"),
    (
        lambda d: d.update(decisions=[{"what": "turn", "seat": 1}], duel=None),
        r"decisions\[0\].seat: 1: a turn is the turn's seat's",
    ),
    (setitem("decisions", [{"what": "turn", "seat": 0}]), "no duel is on before the turn's play"),
    (setitem("duel", None), "duel: a duel is on exactly while a duel move is pending"),
    (lambda d: d["duel"].update(folded=[0]), r"decisions\[0\].seat: seat 0 has folded"),
    (lambda d: d["duel"].update(folded=[1, 2]), r"duel.folded: \[1, 2\]: a duel ends when"),
    (lambda d: d["duel"].update(folded=[1, 1]), r"duel.folded: \[1, 1\]: list distinct items"),
    (lambda d: d["duel"].update(kind="Red"), r"duel.kind: 'Red' is not one of \['Oth', 'Giv'\]"),
    (lambda d: d["duel"].update(points=0), r"duel.points: 0 is not in 1\.\.170 \(130, and 2 "),
    (lambda d: d["duel"].update(points=171), r"duel.points: 171 is not in 1\.\.170"),
    (
        lambda d: d["decisions"].append({"what": "call", "seat": 1}),
        r"decisions\[1\]: calls are asked only with explicit_call",
    ),
    (
        lambda d: d.update(decisions=[{"what": "drawn", "seat": 0, "kind": MAMBA}], duel=None),
        r"decisions\[0\].what: a drawn card is a decision only with play_drawn",
    ),
    (
        setitem("decisions", [{"what": "react", "seat": 2, "window": "play", "of": 0, "asked": 1}]),
        r"decisions\[0\].seat: 2 is not 1 place\(s\) after seat 0",
    ),
    (
        setitem("decisions", [{"what": "pick", "seat": 0, "purpose": "give", "left": 1, "to": 0}]),
        r"decisions\[0\].to: is the deciding seat 0",
    ),
    # the effect queue
    (setitem("effects", [{"effect": "explode", "seat": 0, "a": 0, "b": 0}]), "'explode' is not"),
    (setitem("effects", [{"effect": "add", "seat": 0, "a": 0, "b": 3}]), r"\[0\].b: 3 is not a"),
    (setitem("effects", [{"effect": "war", "seat": 0, "a": 1, "b": 0}]), r"\[0\].a: 1 is not in"),
    (setitem("effects", [{"effect": "war", "seat": 1, "a": 0, "b": 0}]), r"\[0\].seat: 1: a play"),
    (setitem("effects", [{"effect": "war", "seat": 0}]), r"effects\[0\].a: missing"),
    # what others know of a hand
    (lambda d: d["fixed"].__setitem__(0, [GRIZZLY]), r"fixed\[0\]: with late\[0\] holds cards"),
    (lambda d: d["late"].__setitem__(1, [GRIZZLY]), r"late\[1\]: cards are late .* only after"),
    # derived fields that contradict the position
    (setitem("phase", {"what": "duel", "seat": 2}), "phase: is .*, but the position implies"),
    (setitem("current_player", 1), "current_player: is 1, but the position implies 0"),
    (setitem("done", True), "done: is True, but the position implies False"),
    (setitem("num_players", 4), "num_players: is 4, but the position implies 3"),
]


@pytest.mark.parametrize(("change", "message"), BAD, ids=[m[:40] for _, m in BAD])
def test_bad_state_dicts_are_refused_naming_the_field(change, message):
    env = make(SZ, num_players=3)
    env.reset(seed=3)
    checks.check_refused(env, checks.edit(hand_written(), change), message)


def test_a_finished_position_must_be_an_end_the_game_reaches():
    env = make(SZ, num_players=3)
    won = {**hand_written(), "status": "terminated", "decisions": [], "duel": None, "winner": 2}
    won["current_player"] = 2
    with pytest.raises(StateDictError, match="winner: seat 2 wins its win round with an empty"):
        env.load_state_dict(won)
    won["hands"][0] = sorted(won["hands"][0] + won["hands"][2])
    won["hands"][2] = []
    with pytest.raises(StateDictError, match="winner: seat 2 wins its win round"):
        env.load_state_dict(won)  # its win round was never held
    won["win_rounds"] = [2]
    env.load_state_dict(won)
    assert all(env.terminations.values()) and env.infos["player_2"]["win"] == 1.0
    cut = {**hand_written(), "status": "truncated", "decisions": [], "duel": None, "turns": 999}
    cut["current_player"] = 0
    with pytest.raises(StateDictError, match="turns: a truncated game stops at the turn cap"):
        env.load_state_dict(cut)
    with pytest.raises(StateDictError, match="a state dict must be a dict, got str"):
        env.load_state_dict(json.dumps(hand_written()))


# --- counts past their observation caps (issue 36) -------------------------------------------
ORKA = kind("Orka Oceaniczna")  # V sea, Orc: the deck's five Orcs are its copies
DANAID = kind("Danaid Wędrowny")  # LG ins, Stp


def counters_seen(env, agent: str) -> list[float]:
    start, size = sz.obs_slices(env.game.num_players)["counters"]
    return env.observe(agent)["observation"][start : start + size].tolist()


def assert_in_space_and_reloads(env) -> None:
    for agent in env.possible_agents:
        assert env.observation_space(agent).contains(env.observe(agent)), agent
    twin = make(SZ, **env.game.config)
    twin.load_state_dict(json.loads(json.dumps(env.state_dict())))
    assert twin.state_dict() == env.state_dict()


def test_an_orc_chain_past_the_cap_is_seen_saturated_reloads_and_costs_its_points():
    """Issue 36: an answer chain across a refill passes the 15 orc points of the deck's five
    Orcs. The observation shows 15 (saturated), the state dict reloads, the penalty is 18."""
    env = make(SZ, num_players=3)
    env.reset(seed=0)
    d = env.state_dict()
    assert d["phase"] == {"what": "turn", "seat": 0}
    i = d["draw_pile"].index(ORKA)  # an Orka swapped into seat 0's hand for one of its cards
    d["draw_pile"][i], d["hands"][0] = d["hands"][0][0], sorted([*d["hands"][0][1:], ORKA])
    d["counters"]["orc"] = 15
    del d["rng"]
    env.load_state_dict(d, seed=0)
    for action in (KIND + ORKA, PASS, PASS):  # the Orc, no Cyr in the window
        env.step(action)
    s = env.state_dict()
    assert s["counters"]["orc"] == 18 and s["phase"] == {"what": "colour", "seat": 0}
    assert counters_seen(env, "player_0") == [0.0, 15.0, 0.0, 0.0]
    assert_in_space_and_reloads(env)
    env.step(sz.COLOUR)  # seat 1 holds no Orc or Cyr: it draws the 18 points
    hands = [len(h) for h in env.state_dict()["hands"]]
    env.step(sz.DRAW)
    assert [len(h) for h in env.state_dict()["hands"]][1] == hands[1] + 18


def test_a_duel_past_its_cap_is_seen_saturated_and_its_losers_draw_every_point():
    d = hand_written()
    d["duel"]["points"] = 130  # every Oth and every Red of the deck in the duel
    env = make(SZ, num_players=3)
    env.load_state_dict(d, seed=0)
    env.step(KIND + RED2)  # 132
    start = sz.obs_slices(3)["duel"][0] + 3
    assert env.observe("player_1")["observation"][start] == 130.0
    assert_in_space_and_reloads(env)
    env.step(PASS)
    env.step(KIND + SZYMPANS)  # 133
    sizes = [len(h) for h in env.state_dict()["hands"]]
    env.step(PASS)  # seat 2 wins: seats 0 and 1 draw 133 each
    assert [len(h) for h in env.state_dict()["hands"]] == [sizes[0] + 133, sizes[1] + 133, 2]
    assert_in_space_and_reloads(env)


def test_lost_turns_past_their_cap_are_seen_saturated_and_reload():
    """Two Stp on 15 green points make 17: the next seat loses 17 turns, this one and 16."""
    env = make(SZ, num_players=3)
    env.reset(seed=0)
    d = env.state_dict()
    stp = [i for i, c in enumerate(d["draw_pile"]) if c == DANAID][:2]
    for i, j in zip(stp, (0, 1), strict=True):
        d["draw_pile"][i], d["hands"][0][j] = d["hands"][0][j], DANAID
    d["hands"][0].sort()
    d["counters"]["green"] = 15
    env.load_state_dict(d)
    env.step(KIND + DANAID)
    env.step(sz.COPIES + 1)  # both: 17 green points
    env.step(PASS)
    env.step(PASS)
    assert env.state_dict()["phase"]["purpose"] == "discard"  # two identical: one card goes
    env.step(legal(env)[0])
    assert env.state_dict()["phase"] == {"what": "turn", "seat": 1}
    env.step(sz.DRAW)
    assert env.state_dict()["lost_turns"] == [0, 16, 0]
    start = sz.obs_slices(3)["lost"][0]
    assert env.observe("player_1")["observation"][start] == 15.0  # its own lost turns: at the cap
    assert_in_space_and_reloads(env)


def test_a_penalty_larger_than_the_cards_there_are_draws_them_all_and_ends():
    env = make(SZ, num_players=3)
    env.reset(seed=0)
    d = env.state_dict()
    d["turn"] = 10**14  # a counter grows 10 red points an action at most
    d["counters"]["red"] = 10**15
    env.load_state_dict(d)
    env.step(sz.DRAW)
    s = env.state_dict()
    assert len(s["hands"][0]) == deck.NUM_CARDS - 10 - 1 and s["counters"]["red"] == 0
    assert s["draw_pile"] == [] and len(s["discard_pile"]) == 1
    assert_in_space_and_reloads(env)


def test_describe_action_of_an_id_the_decision_does_not_take_names_it_and_the_legal_ones():
    """Issue 36: `describe_action(116)` (play one copy) at a turn raised an IndexError."""
    env = make(SZ, num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 116 \(1 copies\) is not legal here; the legal"):
        env.describe_action(116)
    legal_now = str(legal(env))
    with pytest.raises(ValueError) as err:
        env.describe_action(sz.CALL, "player_1")
    assert legal_now in str(err.value)
    row, game = env._row, env.game  # the game's own hook, called past the guard
    with pytest.raises(ValueError, match="action 116 does not answer a turn decision"):
        game.describe(row, 116, 0, 0)
