"""Surfosaurus MAX positions: `load_state_dict` round trips, a hand-written position (the rule
text's straight with two 12s, one a dummy) plays on as the rules say, and every kind of bad
dict is refused with the field named. Every named position also passes the conformance
suite's `checks.check_named_positions` (the AEC and the batched env)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from card_envs import make, positions
from card_envs.core.loading import StateDictError
from card_envs.games.surfosaurus import engine as k
from card_envs.games.surfosaurus.engine import card_id
from card_envs.games.surfosaurus.spec import DEFAULT_POINTS, MAX_POINTS
from card_envs.testing import checks, corners

ENV_ID = "surfosaurus_max_v0"
RED_4 = card_id(0, 4)


@pytest.mark.parametrize("num_players", [2, 5])
def test_the_loaded_row_reads_the_same_and_resamples_the_same(num_players):
    """Every slot the engine reads again is loaded as it was (a hand's cards may sit in other
    slots of it), so `resample_hidden` draws the same determinisation."""
    for env in checks.positions(ENV_ID, {"num_players": num_players}, seed=4, every=3):
        game, row = env.game, env._row
        new = game.load_state_dict(json.loads(json.dumps(game.state_dict(row))))
        assert np.array_equal(new[: k.HANDS], row[: k.HANDS])  # counters and scores
        hands = slice(k.HANDS, k.DISP_CARD)
        assert sorted(new[hands]) == sorted(row[hands]), "the hands"
        shown = int(row[k.DISP_N])
        for base in (k.DISP_CARD, k.DISP_SEAT):
            assert np.array_equal(new[base : base + shown], row[base : base + shown])
        unseen = [*range(k.DECK, k.DECK + int(k.removed_cards(num_players)))]
        unseen += [*range(k.DECK + int(row[k.DRAW]), k.OUT)]  # removed cards and the pile
        assert np.array_equal(new[unseen], row[unseen]) and np.array_equal(
            new[k.OUT :], row[k.OUT :]
        )
        for seat in range(num_players):
            ours, theirs = (game.resample_hidden(r, seat, seed=9) for r in (row, new))
            assert game.state_dict(theirs) == game.state_dict(ours)


CONFIG = {"num_players": 2, "reward": "win", "points": list(DEFAULT_POINTS), "hints": False}
HANDS = [
    [[0, 1], [0, 2], [0, 3], [1, 1], [1, 2], [5, 6], [6, 6]],
    [[0, 4], [1, 3], [1, 4], [2, 1], [2, 2], [5, 7], [6, 7]],
]
# round 0 so far: seat 0 red 9, seat 1 orange 10, a dummy yellow 12, seat 0 green 11, seat 1
# blue 12, a dummy purple 1, seat 0 black 2
DISPLAY = [[0, 9, 0], [1, 10, 1], [2, 12, -1], [3, 11, 0], [4, 12, 1], [5, 1, -1], [6, 2, 0]]


def hand_written() -> dict:
    """Two players, the last play of round 0: seat 1 to play. The cards nobody has seen are
    the others in order: 24 set aside, then the pile."""
    return copy.deepcopy(positions.load("surfosaurus_max/last-play-of-round-0").state)


def loaded(d: dict | None = None, **config):
    env = make(ENV_ID, **config)
    env.reset(seed=1)
    env.load_state_dict(d or hand_written())
    return env


def test_a_hand_written_position_scores_the_round_by_the_rules():
    """Seat 1 plays red 4: the best 4-card combo is the straight 9-10-11-12 with two 12s, so
    9, 10 and 11 score full and both 12s half (rules, "Who scores"): seat 0 gets 9 (4 points)
    and 11 (2) full, seat 1 gets 10 (3) full and its 12 half (2 / 2); the dummy's half goes
    to nobody. Then round 1 starts with seat 1."""
    env = loaded()
    s = env.state_dict()
    assert env.agent_selection == "player_1" and s["starting_player"] == 0
    assert np.flatnonzero(env.observe("player_1")["action_mask"]).tolist() == sorted(
        card_id(c, v) for c, v in HANDS[1]
    )
    pile_top = s["draw_pile"][0]
    env.step(RED_4)
    s = env.state_dict()
    assert s["full_points"] == [6, 3] and s["half_points2"] == [0, 2]
    assert s["score2"] == [12, 8] and s["scores"] == [6.0, 4.0] and s["cards_collected"] == [2, 2]
    assert s["out_of_play"] == sorted([c, v] for c, v, _ in DISPLAY + [[0, 4, 1]])
    assert s["display"] == [] and s["round"] == 1 and s["play_in_round"] == 0
    assert s["starting_player"] == s["current_player"] == 1 and env.agent_selection == "player_1"
    assert pile_top in s["hands"][1] and [0, 4] not in s["hands"][1]
    obs = env.observe("player_0")["observation"]
    scores = k.NUM_CARDS * 5  # after the hand, the 3 display blocks and out of play
    assert obs[scores : scores + 6].tolist() == [6, 0, 2, 3, 1, 2]  # full, half, collected
    loaded(s)  # the new position loads as it is


def test_the_hint_is_what_the_card_would_score():
    """With hints, red 4's slot holds what seat 1 would score with it: 3 + 2 / 2."""
    d = hand_written()
    d["config"]["hints"] = True
    obs = loaded(d, hints=True).observe("player_1")["observation"]
    assert obs[-k.NUM_CARDS + RED_4] == 4.0


def after_round_0() -> dict:
    env = loaded()
    env.step(RED_4)
    return env.state_dict()


BAD = [
    (lambda d: d.pop("display"), "display: missing"),
    (lambda d: d.update(extra=1), r"extra: unknown key; a state dict of surfosaurus_max_v0 has"),
    (lambda d: d.update(env_id="no_thanks_v0"), "env_id: 'no_thanks_v0' is not this env's"),
    (lambda d: d["config"].update(num_players=3), "config: option num_players=3, but the env"),
    (lambda d: d.update(status="truncated"), "status: Surfosaurus MAX games are never truncated"),
    (lambda d: d.update(status="terminated"), "status: the game ends at round 6, play 6, not at"),
    (lambda d: d.update(round=7), r"round: 7 is not in 0\.\.6"),
    (lambda d: d.update(round=6), "status: all 6 rounds are played: 'terminated', not 'running'"),
    (lambda d: d.update(play_in_round=6), r"play_in_round: 6 plays end a round; .* at 0\.\.5"),
    (lambda d: d.update(turn=4), "turn: 4, but round 0, play 5 is turn 5"),
    (
        lambda d: d["draw_pile"].__setitem__(0, d["draw_pile"][1]),
        r"every card must be in exactly one place: too many .*; missing \[\(",
    ),
    (
        lambda d: d["hands"][0].__setitem__(2, [0, 4]),
        r"too many .* \[\(0, 4\)\]; missing \[\(0, 3\)\]",
    ),
    (lambda d: d["hands"][0].__setitem__(0, [7, 1]), r"hands\[0\]\[0\]\[0\]: 7 is not in 0\.\.6"),
    (
        lambda d: d["hands"][0].__setitem__(0, [0, 13]),
        r"hands\[0\]\[0\]\[1\]: 13 is not in 1\.\.12",
    ),
    (
        lambda d: d["hands"][0].__setitem__(0, "red 1"),
        r"hands\[0\]\[0\]: 'red 1' is not a \[colour",
    ),
    (lambda d: d["hands"][0].pop(), r"hands\[0\]: holds 6 card\(s\); at this point seat 0 holds 7"),
    (lambda d: d.update(hands=d["hands"][:1]), "hands: must be a list of 2 items, one per seat"),
    (lambda d: d["hands"][0].reverse(), r"hands\[0\]: list the cards in order"),
    (lambda d: d["removed"].pop(), r"removed: holds 23 card\(s\); 2 players set aside 24"),
    (
        lambda d: d["draw_pile"].pop(),
        r"draw_pile: holds 38 card\(s\); at this point the pile holds 39",
    ),
    (lambda d: d["display"].pop(), r"display: holds 6 card\(s\); at this point it holds 7"),
    (
        lambda d: d["display"][2].__setitem__(2, 0),
        "display.2.: seat 0, but card 3 of the round is a dummy",
    ),
    (
        lambda d: d["display"][1].__setitem__(2, 0),
        "display.1.: seat 0, but card 2 of the round is seat 1's",
    ),
    (lambda d: d["display"][0].__setitem__(2, 2), r"display\[0\]\[2\]: 2 is not in -1\.\.1"),
    (
        lambda d: d["out_of_play"].append(d["display"].pop()[:2]),
        r"out_of_play: holds 1 card\(s\); 0 finished round\(s\) put out of play 0",
    ),
    (lambda d: d.update(cards_collected=[1, 0]), "cards_collected: 1 collected, but 0 left play"),
    (
        lambda d: d.update(full_points=[5, 0]),
        "full_points: seat 0's full and half points add up to 5",
    ),
    (lambda d: d.update(half_points2=[0, -1]), r"half_points2\[1\]: -1 is not in 0\.\."),
    (lambda d: d.update(score2=[1, 0]), r"score2: is \[1, 0\], but the position implies \[0, 0\]"),
    (lambda d: d.update(current_player=0), "current_player: is 0, but the position implies 1"),
    (lambda d: d.update(starting_player=1), "starting_player: is 1, but the position implies 0"),
    (lambda d: d.update(done=True), "done: is True, but the position implies False"),
    (lambda d: d.update(k=5), "k: is 5, but the position implies 4"),
    (lambda d: d.update(rng=[1, 2, 3]), "rng: has 3 items, not 4"),
]


@pytest.mark.parametrize(("change", "message"), BAD, ids=[m[:40] for _, m in BAD])
def test_bad_state_dicts_are_refused_naming_the_field(change, message):
    env = make(ENV_ID)
    env.reset(seed=3)
    checks.check_refused(env, checks.edit(hand_written(), change), message)


def test_points_must_be_what_the_collected_cards_can_be_worth():
    """After round 0 the 8 cards out of play are worth 2, 2, 2, 3, 4, 9, 11 and 12 points:
    two of them are worth 4 to 23, so seat 0's 1 point is impossible."""
    d = after_round_0()
    loaded(d)
    with pytest.raises(
        StateDictError,
        match=r"seat 0's .* add up to 1, but 2 card\(s\) out of play are worth 4\.\.23",
    ):
        loaded(checks.edit(d, lambda d: d.update(full_points=[1, 3])))
    with pytest.raises(StateDictError, match="out_of_play: list the cards in order"):
        loaded(checks.edit(d, lambda d: d["out_of_play"].reverse()))


@pytest.mark.parametrize("num_players", [2, 6])
def test_corner_positions_with_the_largest_points_keep_their_bounds(num_players):
    """Every value worth the most points allowed: from the corners (one seat holding every
    point, all tied) the scores and hints stay exact and inside the observation bounds."""
    config = {"num_players": num_players, "points": (MAX_POINTS,) * 12, "hints": True}
    corners.check_stress(ENV_ID, config)
