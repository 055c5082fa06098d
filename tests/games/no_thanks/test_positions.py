"""No Thanks! positions: a hand-written position plays on as the rules say, and every kind
of bad dict is refused with the field named. Every named position also passes the
conformance suite's `checks.check_named_positions` (the AEC and the batched env)."""

from __future__ import annotations

import copy
import json

import pytest

from card_envs import make, positions
from card_envs.core.loading import TURN_LIMIT, StateDictError
from card_envs.games.no_thanks.engine import NO_THANKS, TAKE
from card_envs.testing import checks


def hand_written() -> dict:
    """Three players near the end: 33 on offer with 4 tokens; 35 the last card to come."""
    return copy.deepcopy(positions.load("no_thanks/two-cards-left").state)


def test_a_hand_written_position_plays_by_the_rules():
    env = make("no_thanks_v0", num_players=3)
    env.reset(seed=1)
    env.load_state_dict(hand_written(), seed=0)
    assert env.agent_selection == "player_1"
    mask = env.observe("player_1")["action_mask"]
    assert mask.tolist() == [1, 0]  # no tokens: player_1 must take
    env.step(TAKE)  # takes 33 and the 4 tokens, then turns up 35 and acts again
    s = env.state_dict()
    assert s["current_card"] == 35 and s["tokens"] == [10, 4, 19] and s["deck"] == []
    assert s["cards"][1][-1] == 33 and s["turn"] == 61
    env.step(NO_THANKS)
    env.step(TAKE)  # player_2 takes the last card with the token: the game ends
    assert all(env.terminations.values())
    # scores: the lowest card of each run minus tokens; 12, 19+33, 27+34+35 runs
    assert env.state_dict()["scores"] == [12 - 10, 19 + 33 - 3, 27 + 34 - 20]


BAD = [
    (lambda d: d.pop("pot"), "pot: missing"),
    (lambda d: d.update(extra=1), r"extra: unknown key; a state dict of no_thanks_v0 has \["),
    (lambda d: d.update(env_id="surfosaurus_max_v0"), "env_id: 'surfosaurus_max_v0' is not"),
    (lambda d: d["config"].update(num_players=4), "config: option num_players=4, but the env"),
    (lambda d: d.update(status="over"), r"status: 'over' is not one of \['running'"),
    (lambda d: d.update(status="truncated"), "status: No Thanks! games are never truncated"),
    (lambda d: d.update(turn=-1), r"turn: -1 is not in 0\.\."),
    (lambda d: d.update(turn=5), r"turn: 5 turns cannot have taken 22 cards .* 26\.\.752 can"),
    (lambda d: d.update(turn=753), r"turn: 753 turns cannot have taken 22 cards .* 26\.\.752"),
    (lambda d: d.update(turn=2**63), rf"turn: {2**63} is not in 0\.\.{TURN_LIMIT}$"),
    (lambda d: d.update(current_player=3), r"current_player: 3 is not in 0\.\.2"),
    (lambda d: d.update(current_player="1"), "current_player: '1' is not an int"),
    (
        lambda d: d["cards"][0].append(35),
        r"every card must be in exactly one place: too many .* \[35\]",
    ),
    (lambda d: d["removed"].pop(), "removed: has 8 items, not 9"),
    (lambda d: d["cards"][2].remove(34), r"missing \[34\]"),
    (lambda d: d["cards"][2].append(36), r"cards\[2\]\[7\]: 36 is not in 3\.\.35"),
    (lambda d: d.update(cards=d["cards"][:2]), "cards: must be a list of 3 items, one per seat"),
    (lambda d: d["cards"].__setitem__(1, None), r"cards\[1\]: None is not a list"),
    (
        lambda d: d.update(tokens=[10, 1, 19]),
        r"tokens: \[10, 1, 19\] and the pot's 4 make 34, not 33",
    ),
    (lambda d: d.update(tokens=[10, -1, 20]), r"tokens\[1\]: -1 is not in 0"),
    (
        lambda d: d.update(current_card=None, deck=[33, 35]),
        "current_card: there is a card on offer exactly",
    ),
    (lambda d: d.update(scores=[0, 0, 0]), r"scores: is \[0, 0, 0\], but the position implies \["),
    (lambda d: d.update(done=True), "done: is True, but the position implies False"),
    (lambda d: d.update(rng=[0, 0, 0, 0]), "rng: the four words of the PRNG state cannot all be 0"),
    (lambda d: d.update(rng=[1, 2, 3]), "rng: has 3 items, not 4"),
]


@pytest.mark.parametrize(("change", "message"), BAD, ids=[m[:40] for _, m in BAD])
def test_bad_state_dicts_are_refused_naming_the_field(change, message):
    env = make("no_thanks_v0", num_players=3)
    env.reset(seed=3)
    checks.check_refused(env, checks.edit(hand_written(), change), message)


def test_a_finished_position_refuses_what_the_end_rules_out():
    over = {**hand_written(), "status": "terminated", "current_card": None, "deck": [33, 35]}
    with pytest.raises(StateDictError, match="the game is over, yet 2 card"):
        make("no_thanks_v0", num_players=3).load_state_dict(over)
    not_a_dict = json.dumps(hand_written())
    with pytest.raises(StateDictError, match="a state dict must be a dict, got str"):
        make("no_thanks_v0", num_players=3).load_state_dict(not_a_dict)


def test_the_most_turns_the_rules_allow_load_and_play_on():
    """22 cards taken and 4 tokens on the 23rd: at most 33 passes on each taken card, 4 on
    this one, so 22 + 22 x 33 + 4 = 752 turns; a game at that turn count plays to its end."""
    env = make("no_thanks_v0", num_players=3)
    env.reset(seed=3)
    env.load_state_dict({**hand_written(), "turn": 752})
    while not any(env.terminations.values()):
        env.step(TAKE)
    assert env.state_dict()["turn"] == 754
