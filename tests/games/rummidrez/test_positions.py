"""Rummidrez positions: `load_state_dict` round trips (the solo env too), a hand-written
position plays on as the rules say, and every kind of bad dict is refused with the field
named, the env unchanged (every named position also passes the conformance suite's
`checks.check_named_positions`). Cards are written as in test_rules.py:
a figure letter (P Pawn, K Knight, B Bishop, R Rook, Q Queen, J Joker) and a number, N for
a neutral."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter

import numpy as np
import pytest

from card_envs import make, make_vec, positions
from card_envs.core.loading import TURN_LIMIT, StateDictError
from card_envs.games.rummidrez import Rummidrez, RummidrezSolo, card_name
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.groups import group_error
from card_envs.testing import checks
from tests.games.rummidrez.reference import full_deck, group_is_valid

FIGURES = "PKBRQJ"


def C(text: str) -> list[int]:
    """Card ids of "P1 K5 N J9"."""
    return [
        k.NEUTRAL if w == "N" else FIGURES.index(w[0]) * 9 + int(w[1:]) - 1 for w in text.split()
    ]


def rest_of_deck(*named: list[int]) -> list[int]:
    """The cards of the 112 that `named` does not hold, in id order."""
    return sorted((Counter(full_deck()) - Counter(c for cards in named for c in cards)).elements())


def without_stale_pile_slots(row: np.ndarray) -> np.ndarray:
    """The row but its pile slots past the piles' sizes (never read before written)."""
    row = row.copy()
    for base, size in ((k.DRAW_PILE, k.DRAW_N), (k.DISCARD_PILE, k.DISCARD_N)):
        row[base + row[size] : base + k.NUM_CARDS] = 0
    return row


@pytest.mark.parametrize(
    "config", [{"num_players": 3, "match": True}, {"num_players": 2, "neutral_at_ends": True}]
)
def test_melding_play_reloads_to_the_same_row(config):
    """The heuristic melds, wins hands and matches (random play seldom opens): at every
    position the loaded row is the row, but for the pile slots past the piles."""
    env, twin = make("rummidrez_v0", **config), make("rummidrez_v0", **config)
    env.reset(seed=5)
    twin.reset(seed=6)
    while True:
        twin.load_state_dict(json.loads(json.dumps(env.state_dict())))
        assert np.array_equal(
            without_stale_pile_slots(twin._row), without_stale_pile_slots(env._row)
        )
        if all(env.terminations.values()):
            break
        seen = env.observe(env.agent_selection)
        action = env.game.heuristic_actions(seen["observation"][None], seen["action_mask"][None])
        env.step(int(action[0]))
    assert env.state_dict()["winner"] is not None


@pytest.mark.parametrize("ends", [False, True])
def test_table_groups_are_checked_as_the_reference_reads_the_rules(ends):
    """`solver.group_error`, which a loaded table's groups pass, agrees with the reference's
    brute-force reading of a group on seeded groups near the grid's lines."""
    rng = np.random.default_rng(int(ends))
    for _ in range(20000):
        size, figure_line = int(rng.integers(1, 11)), rng.random() < 0.5
        f, n = int(rng.integers(6)), int(rng.integers(9))
        line = [
            f * 9 + min(8, n + i) if figure_line else min(5, f + i) * 9 + n for i in range(size)
        ]
        group = [
            k.NEUTRAL if u < 0.3 else int(rng.integers(54)) if u > 0.95 else c
            for c, u in zip(line, rng.random(size), strict=True)
        ]
        assert (group_error(group, ends) is None) == group_is_valid(group, ends), group


# --- a hand-written position ------------------------------------------------------------------
CONFIG = {
    "num_players": 2,
    "reward": "win",
    "match": True,
    "rediscard": True,
    "max_turns": 200,
    "neutral_at_ends": False,
    "max_placements": 112,
    "hints": False,
}
TABLE = [C("K1 K2 K3 K4"), C("J1 J2 J3"), C("Q4 Q5 Q6 Q7 Q8 Q9"), C("P7 P8 P9")]
HANDS = [C("B4 R4"), C("K8 K9 B5 N N")]  # sorted by id, as the state dict shows hands


def hand_written() -> dict:
    """A match of two, both seats opened, seat 0 (10 points, the last hand's winner) to draw
    in the 41st turn of this hand. The draw pile's top is Joker 9; the cards named nowhere
    lie in id order, 48 under Joker 9, the last 40 on the discard pile (one a turn)."""
    return copy.deepcopy(positions.load("rummidrez/match-draw-turn-41").state)


def legal(env) -> list[int]:
    return np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()


def test_a_hand_written_position_plays_by_the_rules():
    """The rule text: a player may use a table group's cards to form new groups (Knight 4
    leaves the Knight run for a colour group with Bishop 4 and Rook 4), and who runs out of
    cards wins, scoring the cards left in the other hands; 14 points win a match of two."""
    env = make("rummidrez_v0", **CONFIG)
    env.reset(seed=1)
    env.load_state_dict(hand_written(), seed=0)
    assert env.agent_selection == "player_0"
    assert legal(env) == [k.DRAW] + [k.TAKE + i for i in range(40)]  # draw, or take 1..40
    env.step(k.DRAW)
    s = env.state_dict()
    assert s["hands"][0] == sorted(C("B4 R4 J9")) and len(s["draw_pile"]) == 48
    env.step(k.PLACE + C("B4")[0])
    assert k.END_MELD not in legal(env)  # Knight 4 and Bishop 4 are no group
    env.step(k.PLACE + C("R4")[0])
    assert k.END_MELD in legal(env)  # Knight 1-3, and Knight 4, Bishop 4, Rook 4
    env.step(k.END_MELD)
    s = env.state_dict()
    assert s["phase"] == "discard" and s["hands"][0] == C("J9")
    assert sorted(c for g in s["table"] for c in g) == sorted(sum(TABLE, C("B4 R4")))
    assert all(group_error(g) is None for g in s["table"])
    assert legal(env) == [k.DISCARD + C("J9")[0]]
    env.step(k.DISCARD + C("J9")[0])  # the hand is empty: seat 0 wins it and the match
    s = env.state_dict()
    assert s["status"] == "terminated" and s["winner"] == 0
    assert s["points"] == [10 + 5, 3] and s["scores"] == [15.0, 3.0]  # seat 1 held 5 cards
    assert s["discard_pile"][-1] == C("J9")[0] and s["turn"] == 205
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": 0.0}
    end = make("rummidrez_v0", **CONFIG)
    end.load_state_dict(s)  # a finished position loads as finished
    assert all(end.terminations.values()) and end.infos == env.infos and legal(end) == []


def test_any_valid_split_of_the_table_is_the_same_position():
    """The rules let the table be rearranged, so the engine keeps its cards only: the state
    dict shows one split, and loads any split into valid groups, in any order."""
    env = make("rummidrez_v0", **CONFIG)
    env.load_state_dict(hand_written(), seed=0)
    shown = env.state_dict()
    split = TABLE[:2] + [C("P7 P8 P9"), C("Q7 Q8 Q9"), C("Q4 Q5 Q6")]
    env.load_state_dict({**hand_written(), "table": split[::-1]}, seed=0)
    assert env.state_dict() == shown


# --- bad dicts --------------------------------------------------------------------------------
BAD = [
    (lambda d: d.pop("hands"), "hands: missing"),
    (lambda d: d.update(extra=1), r"extra: unknown key; a state dict of rummidrez_v0 has \["),
    (lambda d: d["config"].update(match=False), "config: option match=False, but the env"),
    (
        lambda d: d["hands"][0].append(54),
        r"every card must be in exactly one place: too many .*\[54\]",
    ),
    (lambda d: d["draw_pile"].pop(), r"every card must be in exactly one place: missing \["),
    (lambda d: d["hands"][0].append(55), r"hands\[0\]\[2\]: 55 is not in 0\.\.54"),
    (lambda d: d.update(hands=HANDS * 2), "hands: must be a list of 2 items, one per seat"),
    (lambda d: d.update(points=[10, 3, 0]), "points: has 3 items, not 2"),
    (lambda d: d.update(rng=[1, 2, 3]), "rng: has 3 items, not 4"),
    (lambda d: d.update(table="K1 K2 K3"), "table: 'K1 K2 K3' is not a list of groups"),
    (
        lambda d: d["table"].__setitem__(1, C("J3 J2 J1")),
        r"table\[1\]: Joker 3, Joker 2, Joker 1 is not a group: not one figure .* low to high",
    ),
    (
        lambda d: d["table"].__setitem__(0, C("K1 K2 K4 K3")),
        r"table\[0\]: .* is not a group: not one figure",
    ),
    (
        lambda d: (d["table"][3].append(54), d["hands"][1].remove(54), d["known"][1].clear()),
        r"table\[3\]: .* a neutral stands only between two cards .*neutral_at_ends=False",
    ),
    (lambda d: d.update(phase="solo"), r"phase: 'solo' is not one of \['draw'"),
    (lambda d: d.update(current_player=1), "current_player: is 1, but play goes up by seat"),
    (lambda d: d.update(current_player=2), r"current_player: 2 is not in 0\.\.1"),
    (lambda d: d.update(hand_turns=201), r"hand_turns: 201 is not in 0\.\.200"),
    (lambda d: d.update(status="truncated"), "hand_turns: is 40: a hand is truncated exactly"),
    (lambda d: d.update(status="terminated"), r"hands\[0\]: the winner has emptied its hand"),
    (lambda d: d.update(placements=1), "placements: a turn in its draw phase has placed"),
    (lambda d: d.update(taken=C("B4")), "taken: a turn in its draw phase has placed and taken"),
    (lambda d: d.update(turn=100), "turn: 100 actions cannot have played 40 turn"),
    (lambda d: d["known"][0].append(54), "known.0.: seat 0 is known to hold Neutral, not in"),
    (lambda d: d.update(opened=[True, 1]), r"opened\[1\]: 1 is not true or false"),
    (lambda d: d.update(opened=[True, False]), r"hands\[1\]: seat 1 has not opened, so"),
    (
        lambda d: d.update(hand_turns=20, turn=100),
        "discard_pile: holds 40 cards, but a turn discards one: at most 20 after 20 turn",
    ),
    (
        lambda d: d.update(draw_pile=d["draw_pile"] + d["discard_pile"], discard_pile=[]),
        r"draw_pile: holds 89 cards, but without a refill .*: 44\.\.84 after 40 turn",
    ),
    (
        lambda d: d.update(winner=1, points=[10, 0]),
        "points: seat 1 won the last hand, which gave it a point",
    ),
    (
        lambda d: d.update(points=[14, 3]),
        r"points: are \[14, 3\], but a seat with 14 ends the match",
    ),
    (lambda d: d.update(scores=[3.0, 10.0]), r"scores: is \[3.0, 10.0\], but the position implies"),
    (lambda d: d.update(done=True), "done: is True, but the position implies False"),
    (lambda d: d.update(num_players=3), "num_players: is 3, but the position implies 2"),
]


@pytest.mark.parametrize(("change", "message"), BAD, ids=[m[:40] for _, m in BAD])
def test_bad_state_dicts_are_refused_naming_the_field(change, message):
    env = make("rummidrez_v0", **CONFIG)
    env.reset(seed=3)
    checks.check_refused(env, checks.edit(hand_written(), change), message)


def test_a_finished_position_must_have_ended_as_the_rules_end_a_game():
    single = {**CONFIG, "match": False}
    running = {**hand_written(), "config": single, "points": [0, 0], "winner": None}
    make("rummidrez_v0", **single).load_state_dict(running)  # the same hand, not a match
    ended = {**running, "status": "terminated"}
    with pytest.raises(StateDictError, match="draw_pile: a hand without winner ends as a turn"):
        make("rummidrez_v0", **single).load_state_dict(ended)
    with pytest.raises(StateDictError, match="winner: the hand's winner ends the game"):
        make("rummidrez_v0", **single).load_state_dict({**running, "winner": 0})


# --- the solo game ----------------------------------------------------------------------------
def solo_policy(env, obs: np.ndarray, rng: np.random.Generator) -> int:
    """The heuristic, or now and then a random legal action."""
    mask = env.action_masks()
    if rng.random() < 0.3:
        return int(rng.choice(np.flatnonzero(mask)))
    return int(env.game.heuristic_actions(obs[None], mask[None].astype(np.int8))[0])


@pytest.mark.parametrize("config", RummidrezSolo.test_configs, ids=str)
def test_the_solo_env_continues_identically(config):
    """At positions of seeded solo games, an env loaded with the dict's JSON (after a reset
    to another deal) returns the same observation and shows the same mask and state dict
    (the row is the row but for the pile slots past the draw pile); from there the same
    actions give the same observations, rewards, ends and infos. The end loads as over."""
    env = make("rummidrez_solo_v0", **config)
    twin = make("rummidrez_solo_v0", **config)
    rng = np.random.default_rng(0)
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            twin.reset(seed=seed + 100)
            again, _ = twin.load_state_dict(json.loads(json.dumps(env.state_dict())))
            assert np.array_equal(again, obs) and twin.state_dict() == env.state_dict()
            assert np.array_equal(twin.action_masks(), env.action_masks())
            assert np.array_equal(
                without_stale_pile_slots(twin._row), without_stale_pile_slots(env._row)
            )
            for _ in range(3):  # the same future
                action = solo_policy(env, obs, rng)
                ahead, step = env.step(action), twin.step(action)
                assert np.array_equal(ahead[0], step[0]) and ahead[1:] == step[1:]
                obs, done = ahead[0], ahead[2]
                if done:
                    break
        twin.load_state_dict(json.loads(json.dumps(env.state_dict())))
        assert twin.state_dict() == env.state_dict()
        with pytest.raises(RuntimeError, match="the episode is over"):
            twin.step(k.END_MELD)  # a finished position loads as finished


def test_a_hand_written_solo_position_and_the_batched_solo_env():
    """Fourteen cards that are two groups of seven: laid at once, they open and empty the
    hand, for the best score, 14."""
    hand = C("P1 P2 P3 P4 P5 P6 P7 K1 K2 K3 K4 K5 K6 K7")
    position = {
        "env_id": "rummidrez_solo_v0",
        "config": {
            "num_players": 1,
            "neutral_at_ends": False,
            "max_placements": 112,
            "hints": False,
        },
        "status": "running",
        "turn": 0,
        "num_players": 1,
        "current_player": 0,
        "phase": "meld",
        "hands": [hand],
        "table": [],
        "placed": [],
        "draw_pile": rest_of_deck(hand),
        "discard_pile": [],
        "known": [[]],
        "opened": [False],
        "points": [0],
        "hand_turns": 0,
        "placements": 0,
        "taken": [],
        "first_player": 0,
        "refilled": False,
        "winner": None,
    }
    env = make("rummidrez_solo_v0")
    obs, info = env.load_state_dict(position)
    assert info == {"cards_drawn": 14, "opened": False}
    for c in hand:
        env.step(k.PLACE + c)
    _, reward, done, _, info = env.step(k.END_MELD)
    assert done and reward == -14.0 and info["score"] == 14 and info["hand_empty"]
    venv = make_vec("rummidrez_solo_v0", 2, seed=0)
    venv.reset()
    venv.set_state(1, position)
    assert np.flatnonzero(venv.action_masks[1]).tolist() == [
        k.PLACE + c for c in sorted(set(hand))
    ] + [k.END_MELD]
    for bad, message in [
        ({"phase": "draw"}, "phase: a solo turn is a melding phase only"),
        ({"status": "truncated"}, "status: the solo game is never truncated"),
        ({"hand_turns": 3, "turn": 3}, "draw_pile: holds 98 cards, but the solo game deals 14"),
        (
            {"draw_pile": position["draw_pile"][1:], "discard_pile": position["draw_pile"][:1]},
            "discard_pile: the solo game has no discard pile",
        ),
        ({"winner": 0}, "winner: the hand's winner ends the game"),
    ]:
        with pytest.raises(StateDictError, match=message):
            env.load_state_dict({**position, **bad})


# --- corners (issue 36) ------------------------------------------------------------------------
CARD_NAMES = [card_name(c) for c in range(k.NUM_IDS)]
MATCH = Rummidrez.test_configs[3]  # two players, a match, max_turns=8, max_placements=10
AGENTS = ("player_0", "player_1")


def refused(call, *args) -> str:
    """The message of the `ValueError` that `call(*args)` raises."""
    with pytest.raises(ValueError) as err:
        call(*args)
    return str(err.value)


def test_describe_action_names_only_the_discard_pile():
    """Issue 36: two players, `reset(seed=0)`: the discard pile is empty, yet
    `describe_action(110)` named 110 cards, the last 28 of them both dealt hands, and
    `describe_action(1)` a card of the other seat's hand. An illegal take is now a
    `ValueError` naming the legal actions, for every viewer, and no card; the game's
    `describe` hook, which a caller past that guard may reach, reads the discard pile
    only; a legal take names the pile's top cards."""
    env = make("rummidrez_v0", num_players=2)
    env.reset(seed=0)
    actor = int(env.agent_selection[-1])
    for action in (k.TAKE, k.TAKE + k.MAX_TAKE - 1):  # ids 1 and 110
        for seat in (None, *AGENTS):
            text = refused(env.describe_action, action, seat)
            assert re.search(rf"action {action} .*legal actions are \[0\]$", text), text
            assert not [name for name in CARD_NAMES if name in text], text
        for viewer in (0, 1):
            text = refused(env.game.describe, env._row, action, actor, viewer)
            assert re.search(rf"action {action} .*0 card\(s\) in the discard pile", text), text
            assert not [name for name in CARD_NAMES if name in text], text
    env = make("rummidrez_v0", **CONFIG)
    env.load_state_dict(hand_written(), seed=0)  # 40 cards on the discard pile
    top = ", ".join(card_name(c) for c in hand_written()["discard_pile"][-3:])
    for seat in (None, *AGENTS):
        assert env.describe_action(k.TAKE + 2, seat) == f"take the top 3 of the discard pile: {top}"
    with pytest.raises(ValueError, match=r"action 41 .*40 card\(s\) in the discard pile"):
        env.game.describe(env._row, k.TAKE + 40, 0, 1)


@pytest.mark.parametrize("config", Rummidrez.test_configs, ids=str)
def test_the_corner_positions_reach_what_random_play_never_does(config):
    """Issue 36: in 36 random games of 2-4 players no card ever reached the table. The
    corner positions (`Rummidrez.stress_positions`) hold a 90-card table with three
    neutrals, a hand of 28 cards of pairs and the four neutrals, draw piles of 0 and 1
    cards, the longest discard pile the turns allow, a placement short of the cap, the
    last turn before truncation; from one of them the heuristic empties its hand, and in
    a match ends it."""
    game = Rummidrez(**config)
    states = game.stress_positions(29)
    table = max((s["table"] for s in states), key=lambda t: sum(map(len, t)))
    assert sum(map(len, table)) == 90 and sum(g.count(k.NEUTRAL) for g in table) == 3
    hand = next(h for s in states for h in s["hands"] if h.count(k.NEUTRAL) == k.NEUTRALS)
    assert len(hand) >= 28 and list(Counter(hand).values()).count(k.COPIES) >= 12
    assert {0, 1, 2} <= {len(s["draw_pile"]) for s in states}
    turns, cap = config["max_turns"], config["max_placements"]
    assert max(len(s["discard_pile"]) for s in states) == turns - 1
    assert max(s["placements"] for s in states) == cap - 1
    assert max(s["hand_turns"] for s in states) == turns - 1
    env = make("rummidrez_v0", **config)
    env.load_state_dict(states[2])  # two cards that end a run of the table
    p = env.agent_selection
    while not all(env.terminations.values()) and env.agent_selection == p:
        seen = env.observe(p)
        env.step(
            int(game.heuristic_actions(seen["observation"][None], seen["action_mask"][None])[0])
        )
    s = env.state_dict()
    assert s["winner"] == int(p[-1]) and s["status"] == "terminated"
    if config.get("match"):
        assert s["points"][s["winner"]] >= k.target_points(2)


def test_a_finished_match_gives_its_winner_no_more_than_its_last_hand_brought():
    """Found by the mutation check from the corner positions: a finished match loaded with
    any number of points for its winner (2**63 was an OverflowError; 1000 left the
    observation's bounds). The winner came from below the target with the cards of the
    other hands: its points are in max(target, those)..target - 1 + those."""
    env = make("rummidrez_v0", **MATCH)
    env.load_state_dict(Rummidrez(**MATCH).stress_positions(29)[6])  # a winning discard
    env.step(int(legal(env)[0]))
    end = env.state_dict()
    w, target = end["winner"], int(k.target_points(2))
    gained = len(end["hands"][1 - w])
    assert end["points"][w] == target - 1 + gained  # the most a match of two can end with
    env.load_state_dict(end)
    for points in (target + gained, 1000, 2**63):
        changed = [points if q == w else p for q, p in enumerate(end["points"])]
        bad = {**end, "points": changed, "scores": [float(p) for p in changed]}
        checks.check_refused(
            env, bad, rf"points: .*\({max(target, gained)}\.\.{target - 1 + gained}\)"
        )


def test_turn_is_bounded_by_the_turns_the_hand_played():
    """Found by the mutation check: `turn` 2**63 was an OverflowError. One hand of
    `hand_turns` turns played has at most (hand_turns + 1) * (3 + 2 * max_placements)
    actions (a draw, the placements and as many undos, END_MELD, a discard); a match has
    no bound of its own (its hands without a winner are not counted), only the row's:
    `turn` up to `core.loading.TURN_LIMIT`."""
    single = {**CONFIG, "match": False}
    env = make("rummidrez_v0", **single)
    hand = {**hand_written(), "config": single, "points": [0, 0], "winner": None}
    most = (hand["hand_turns"] + 1) * (3 + 2 * single["max_placements"])
    env.load_state_dict({**hand, "turn": most})
    checks.check_refused(
        env, {**hand, "turn": most + 1}, rf"turn: {most + 1} is not in \d+\.\.{most}"
    )
    env = make("rummidrez_v0", **CONFIG)
    env.load_state_dict({**hand_written(), "turn": TURN_LIMIT})
    for turn in (TURN_LIMIT + 1, 2**63, 10**30):
        checks.check_refused(
            env, {**hand_written(), "turn": turn}, rf"turn: {turn} is not in 0\.\.{TURN_LIMIT}"
        )
