"""Double or Nothing: hand-made situations for each rule, checked against the rule text, the
rulings and the reference game (reference)."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs import positions
from card_envs.core.rng import seed_row
from card_envs.games.double_or_nothing import computer_move, play_for_range, stronger
from card_envs.games.double_or_nothing import engine as k
from tests.games.double_or_nothing.helpers import (
    fill_decks,
    make_env,
    rule_fields,
    situation,
    write_situation,
)
from tests.games.double_or_nothing.reference import (
    PASS,
    RANGES,
    RefDoubleOrNothing,
    cards_from_counts,
    copies_per_deck,
    counts_of,
    engine_order,
    hand_size,
    kind,
    legal_actions,
    pass_draw,
    range_action,
    scale,
)
from tests.games.double_or_nothing.reference import computer_move as ref_computer_move
from tests.games.double_or_nothing.reference import play_for_range as ref_play_for_range
from tests.games.double_or_nothing.reference import stronger as ref_stronger

STAGES = (1, 2, 3, 4)
OBS_OWN_DECK, OBS_STAGE = 9, 38


def mask_of(env, seat: int) -> np.ndarray:
    return env.observe(f"player_{seat}")["action_mask"]


def legal_of(env) -> list[int]:
    return np.flatnonzero(mask_of(env, int(env.agent_selection[-1]))).tolist()


def A(lo: int, hi: int | None = None) -> int:
    """The action of the range lo..hi (a single number when hi is left out)."""
    return range_action(lo, lo if hi is None else hi)


def step_both(env, ref, action):
    """Step the env and the reference; the whole state must agree (deck orders included:
    the shuffled cards are read from the env, see engine_order)."""
    assert legal_of(env) == ref.legal_actions()
    env.step(action)
    s = env.state_dict()
    ref.step(action, engine_order(s))
    assert rule_fields(s) == ref.state()
    for seat in (0, 1):
        np.testing.assert_array_equal(
            env.observe(f"player_{seat}")["observation"],
            np.array(ref.observation(seat), np.float32),
        )
    return s


def check_conservation(s: dict) -> None:
    stage_s = scale(s["stage"])
    per_number = list(s["trick"])
    for p in (0, 1):
        deck = counts_of(s["decks"][p])
        for v in range(8):
            per_number[v] += s["hands"][p][v] + deck[v]
    assert per_number == [8 * stage_s] * 8
    assert sum(s["cards"]) + sum(s["trick"]) == 64 * stage_s


# --- actions ---------------------------------------------------------------------------------


def test_action_numbering():
    assert k.NUM_RANGES == 36 and k.PASS == PASS == 36
    env = make_env()
    assert env.action_space("player_0").n == 37
    for a, (lo, hi) in enumerate(RANGES):
        assert k.action_of(lo, hi) == a
        assert tuple(k.range_of(a)) == (lo, hi)
    assert RANGES[0] == (1, 1) and RANGES[7] == (1, 8) and RANGES[8] == (2, 2)
    assert RANGES[35] == (8, 8)


# --- plays: sets, runs, stairs and forced copies ------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "lo", "hi", "play", "name"),
    [
        # the rule text's examples
        ([0, 0, 0, 0, 0, 0, 0, 1], 8, 8, (1, 8, 8), "set"),  # 8
        ([0, 2, 0, 0, 0, 0, 0, 0], 2, 2, (2, 2, 2), "set"),  # 2, 2
        ([0, 0, 0, 0, 5, 0, 0, 0], 5, 5, (5, 5, 5), "set"),  # 5, 5, 5, 5, 5
        ([1, 1, 0, 0, 0, 0, 0, 0], 1, 2, (1, 1, 2), "run"),  # 1, 2
        ([0, 0, 0, 1, 1, 1, 1, 1], 4, 8, (1, 4, 8), "run"),  # 4, 5, 6, 7, 8
        ([1, 1, 1, 1, 1, 1, 1, 1], 1, 8, (1, 1, 8), "run"),  # the longest run: 8 cards
        ([2, 2, 0, 0, 0, 0, 0, 0], 1, 2, (2, 1, 2), "stair"),  # 1, 2, 1, 2
        ([0, 0, 0, 0, 0, 4, 4, 0], 6, 7, (4, 6, 7), "stair"),  # 6, 7 four times
        ([2, 2, 2, 2, 0, 0, 0, 0], 1, 4, (2, 1, 4), "stair"),  # 1, 2, 3, 4 twice
        # a set has no limit: every copy of the number goes
        ([0, 0, 8, 0, 0, 0, 0, 0], 3, 3, (8, 3, 3), "set"),
    ],
)
def test_combo_kinds(hand, lo, hi, play, name):
    """Leading each kind of combination from the rule text moves exactly its cards."""
    assert play_for_range(hand, lo, hi) == play == ref_play_for_range(hand, lo, hi)
    assert kind(play) == name
    other = [0 if c == 8 else 1 for c in hand]
    env, ref = situation(hands=[hand, other], player=0)
    assert mask_of(env, 0)[A(lo, hi)] == 1
    s = step_both(env, ref, A(lo, hi))
    assert ref.events[0] == ("play", 0, play)
    copies = play[0]
    expected_trick = [copies if lo <= v <= hi else 0 for v in range(1, 9)]
    if sum(hand) == sum(expected_trick):  # the whole hand went out: the hand is won
        assert s["hands_played"] == 1
        return
    assert s["trick"] == expected_trick
    assert s["hands"][0] == [c - t for c, t in zip(hand, expected_trick, strict=True)]
    assert s["current_play"] == list(play)
    assert s["current_player"] == 1 and s["leader"] == 0


@pytest.mark.parametrize(
    ("hand", "lo", "hi", "play"),
    [
        ([0, 3, 1, 2, 0, 0, 0, 0], 2, 4, (1, 2, 4)),  # the brief's example: counts 3, 1, 2
        ([0, 3, 1, 2, 0, 0, 0, 0], 2, 3, (1, 2, 3)),
        ([0, 3, 1, 2, 0, 0, 0, 0], 3, 4, (1, 3, 4)),
        ([0, 3, 1, 2, 0, 0, 0, 0], 2, 2, (3, 2, 2)),  # one number: all three copies
        ([0, 3, 1, 2, 0, 0, 0, 0], 4, 4, (2, 4, 4)),
        ([4, 2, 3, 0, 0, 0, 0, 0], 1, 3, (2, 1, 3)),
        ([4, 2, 3, 0, 0, 0, 0, 0], 1, 1, (4, 1, 1)),
        ([3, 3, 3, 3, 3, 3, 3, 4], 1, 8, (3, 1, 8)),
        ([5, 1, 5, 5, 5, 5, 5, 5], 1, 8, (1, 1, 8)),
    ],
)
def test_forced_copies(hand, lo, hi, play):
    """Selecting lo..hi plays every copy of the scarcest number of the range, the same
    number of copies of each."""
    assert play_for_range(hand, lo, hi) == play == ref_play_for_range(hand, lo, hi)
    env, ref = situation(hands=[hand, [1, 1, 1, 1, 1, 1, 1, 1]], player=0)
    s = step_both(env, ref, A(lo, hi))
    copies = play[0]
    assert s["trick"] == [copies if lo <= v <= hi else 0 for v in range(1, 9)]
    assert s["current_play"] == list(play)
    # no other choice of copies exists: the action space has one action per range
    assert s["hands"][0] == [c - (copies if lo <= v <= hi else 0) for v, c in enumerate(hand, 1)]


def test_a_range_with_a_missing_number_cannot_be_played():
    hand = [2, 0, 3, 1, 0, 0, 0, 1]  # no 2, no 5, 6, 7
    env, ref = situation(hands=[hand, [1] * 8], player=0)
    legal = legal_of(env)
    assert legal == ref.legal_actions() == [A(1), A(3), A(3, 4), A(4), A(8)]
    for lo, hi in [(1, 2), (1, 3), (2, 4), (4, 5), (7, 8), (2, 2)]:
        assert A(lo, hi) not in legal
        assert play_for_range(hand, lo, hi) is None
    with pytest.raises(ValueError, match="illegal"):
        env.step(A(1, 3))


# --- strength ----------------------------------------------------------------------------------

STRENGTH_CASES = [
    # (a, b): a beats b, and why
    ((3, 1, 1), (1, 7, 8), "more cards beats a bigger range and a higher number"),
    ((1, 1, 3), (2, 8, 8), "more cards beats a higher number"),
    ((5, 2, 2), (1, 1, 4), "more cards beats a bigger range"),
    ((1, 1, 4), (2, 7, 8), "equal cards: the bigger range wins over a higher number"),
    ((2, 1, 2), (4, 8, 8), "equal cards: a stair beats a set of 8s"),
    ((1, 1, 2), (2, 8, 8), "equal cards: a run of two beats a pair"),
    ((1, 2, 4), (1, 1, 3), "equal cards and range: the higher top wins"),
    ((2, 7, 8), (2, 6, 7), "equal cards and range: the higher top wins (stairs)"),
    ((3, 8, 8), (3, 7, 7), "equal sets: the higher number wins"),
    ((1, 2, 2), (1, 1, 1), "single cards: the higher number wins"),
]


@pytest.mark.parametrize(("a", "b", "why"), STRENGTH_CASES)
def test_strength(a, b, why):
    """Strength: total cards, then range size, then the highest number (rule text)."""
    assert stronger(a, b) and not stronger(b, a), why
    assert ref_stronger(a, b) and not ref_stronger(b, a)
    # in play: holding exactly the cards of x, x may answer y only if x is stronger
    for x, y in ((a, b), (b, a)):
        copies, lo, hi = x
        hand = [copies if lo <= v <= hi else 0 for v in range(1, 9)]
        yc, ylo, yhi = y
        trick = [yc if ylo <= v <= yhi else 0 for v in range(1, 9)]
        other = [1, 0, 0, 0, 0, 0, 0, 0]  # the leader still holds a card
        env, ref = situation(hands=[hand, other], trick=trick, play=y, player=0)
        legal = legal_of(env)
        assert legal == ref.legal_actions()
        assert (A(lo, hi) in legal) == (x == a)
        assert PASS in legal


@pytest.mark.parametrize("play", [(1, 5, 5), (2, 3, 4), (1, 1, 8), (4, 2, 2), (3, 6, 8)])
def test_equal_plays_do_not_beat_each_other(play):
    assert not stronger(play, play)
    copies, lo, hi = play
    cards = [copies if lo <= v <= hi else 0 for v in range(1, 9)]
    env, ref = situation(hands=[cards, [1, 0, 0, 0, 0, 0, 0, 0]], trick=cards, play=play)
    assert legal_of(env) == ref.legal_actions() == [PASS]


def test_a_reply_may_be_any_stronger_play():
    """Replying to a pair of 4s with a full hand: exactly the plays stronger than it."""
    hand = [1, 2, 3, 1, 2, 2, 1, 1]
    env, ref = situation(
        hands=[hand, [0, 0, 0, 2, 0, 0, 0, 0]],
        play=(2, 4, 4),
        player=0,
        trick=[0, 0, 0, 2, 0, 0, 0, 0],
    )
    legal = legal_of(env)
    expected = [
        A(lo, hi)
        for lo, hi in RANGES
        if (p := ref_play_for_range(hand, lo, hi)) and ref_stronger(p, (2, 4, 4))
    ]
    assert legal == expected + [PASS] == ref.legal_actions()
    assert A(3) in legal  # three 3s: more cards
    assert A(5) in legal and A(2) not in legal  # a pair of 5s beats 4s, a pair of 2s does not
    assert A(1, 2) in legal  # 1, 2: a range of two beats a pair
    assert A(4) not in legal  # a single 4 is weaker


# --- leading and passing --------------------------------------------------------------------


def test_from_more_numbers_beats_a_run_beats_a_higher_set_of_as_many_cards():
    """The rule text's strength: more cards first, then more numbers, then the highest."""
    env = positions.load("double_or_nothing/more-numbers-beats").make_env()
    legal = np.flatnonzero(env.observe("player_0")["action_mask"]).tolist()
    runs = ((4, 7), (4, 8), (5, 8))  # 4 cards and 4 numbers; 5 cards; 4 cards and 4 numbers
    assert legal == sorted([*(int(k.action_of(lo, hi)) for lo, hi in runs), k.PASS])
    assert int(k.action_of(8, 8)) not in legal  # four 8s: 4 cards but 1 number
    assert int(k.action_of(6, 8)) not in legal  # 6-7-8 once each: 3 cards
    env.step(int(k.action_of(4, 7)))
    assert env.state_dict()["current_play"] == [1, 4, 7]
    assert env.agent_selection == "player_1"


def test_from_pass_with_a_short_deck_the_pass_draws_the_one_card_there_is():
    env = positions.load("double_or_nothing/pass-with-a-short-deck").make_env()
    assert np.flatnonzero(env.observe("player_1")["action_mask"]).tolist() == [k.PASS]
    env.step(k.PASS)  # draws 2 at stage 1, but one card is left
    s = env.state_dict()
    assert s["hands"][1] == [3, 1, 0, 0, 0, 0, 0, 0] and s["decks"][1] == []
    assert sorted(s["decks"][0][-4:]) == [5, 5, 6, 6] and len(s["decks"][0]) == 54
    assert s["status"] == "running" and s["current_play"] is None
    assert s["leader"] == s["current_player"] == 0


def test_pass_only_when_replying():
    env = make_env()
    env.reset(seed=3)
    s = env.state_dict()
    assert s["current_play"] is None
    mask = mask_of(env, 0)
    assert mask[PASS] == 0
    before = env.state_dict()
    with pytest.raises(ValueError, match="illegal action 36"):
        env.step(PASS)
    assert env.state_dict() == before
    env.step(int(np.flatnonzero(mask)[0]))
    assert mask_of(env, 1)[PASS] == 1
    assert mask_of(env, 0).sum() == 0  # only the seat to act has actions


def test_leading_any_play():
    """The leader may play any range it holds, from the weakest to the strongest."""
    hand = [1, 2, 3, 1, 1, 2, 1, 4]
    env, ref = situation(hands=[hand, [1] * 8], player=0)
    assert legal_of(env) == list(range(36)) == ref.legal_actions()
    step_both(env, ref, A(1, 8))  # the strongest lead here: all eight numbers
    assert env.state_dict()["trick"] == [1] * 8
    env, ref = situation(hands=[hand, [1] * 8], player=0)
    step_both(env, ref, A(1))  # the weakest: a single 1
    assert env.state_dict()["current_play"] == [1, 1, 1]


@pytest.mark.parametrize("stage", STAGES)
def test_pass_effects(stage):
    """A pass: the passer draws 2**g cards from the top of its deck; the trick goes under the
    other player's deck; the other player leads with an empty table."""
    env = make_env(stage=stage)
    env.reset(seed=10 + stage)
    ref = RefDoubleOrNothing.from_state(env.state_dict())
    # seat 0 leads its weakest play; seat 1 answers with its weakest if it can (then seat 0
    # passes), else seat 1 passes
    play = ref_computer_move(ref.hands[0], None)
    step_both(env, ref, A(play[1], play[2]))
    reply = ref_computer_move(ref.hands[1], ref.current_play)
    if reply is not None:
        step_both(env, ref, A(reply[1], reply[2]))
    before = env.state_dict()
    passer = before["current_player"]
    other = 1 - passer
    assert passer == (0 if reply else 1) and mask_of(env, passer)[PASS] == 1
    s = step_both(env, ref, PASS)
    n = pass_draw(stage)
    assert n == 2**stage == 2 * scale(stage)
    drawn = before["decks"][passer][:n]
    assert s["hands"][passer] == [
        h + c for h, c in zip(before["hands"][passer], counts_of(drawn), strict=True)
    ]
    assert s["decks"][passer] == before["decks"][passer][n:]
    old = before["decks"][other]
    assert s["decks"][other][: len(old)] == old
    assert sorted(s["decks"][other][len(old) :]) == cards_from_counts(before["trick"])
    assert s["hands"][other] == before["hands"][other]
    assert s["trick"] == [0] * 8 and s["current_play"] is None
    assert s["current_player"] == s["leader"] == other
    assert env.agent_selection == f"player_{other}"
    assert mask_of(env, other)[PASS] == 0
    assert ref.events[:3] == [
        ("pass", passer),
        ("draw", passer, n),
        ("under", other, tuple(before["trick"])),
    ]
    check_conservation(s)


@pytest.mark.parametrize(("stage", "deck_size"), [(1, 0), (1, 1), (2, 3), (3, 7), (3, 8)])
def test_pass_with_a_short_deck_draws_what_is_there(stage, deck_size):
    s_ = scale(stage)
    hands = [[s_, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 2 * s_]]
    trick = [0, s_, 0, 0, 0, 0, 0, 0]
    env, ref = situation(
        stage, hands=hands, trick=trick, play=(s_, 2, 2), player=0, size0=deck_size
    )
    assert len(env.state_dict()["decks"][0]) == deck_size
    assert legal_of(env) == [PASS]  # s 1s do not beat s 2s
    before = env.state_dict()
    s = step_both(env, ref, PASS)
    assert s["decks"][0] == []
    assert sum(s["hands"][0]) == s_ + deck_size
    assert s["hands"][0][0] == s_ + counts_of(before["decks"][0])[0]
    assert ref.events[1] == ("draw", 0, deck_size)
    assert s["current_player"] == 1
    check_conservation(s)


# --- winning a hand ---------------------------------------------------------------------------


@pytest.mark.parametrize("stage", [1, 2, 3])
def test_hand_won_takes_the_trick_and_the_losers_hand(stage):
    """Seat 0 answers a single 4 with its last two cards (5, 5): it wins the hand; the trick
    and seat 1's hand go under seat 0's deck; both draw a new hand; seat 0 leads."""
    s_ = scale(stage)
    hands = [[0, 0, 0, 0, 2, 0, 0, 0], [1, 0, 2, 0, 0, 3, 0, 1]]
    trick = [0, 0, 0, 1, 0, 0, 0, 0]
    env, ref = situation(stage, hands=hands, trick=trick, play=(1, 4, 4), player=0, size0=30 * s_)
    before = env.state_dict()
    assert before["leader"] == 1
    s = step_both(env, ref, A(5))
    h = hand_size(stage)
    block = [0, 0, 0, 1, 2, 0, 0, 0]  # the trick after the winning play
    block = [b + x for b, x in zip(block, hands[1], strict=True)]
    old0 = before["decks"][0]
    # seat 0's deck: its old cards, then the block, minus the new hand drawn from the top
    assert s["hands"][0] == counts_of(old0[:h])
    assert s["decks"][0][: len(old0) - h] == old0[h:]
    assert sorted(s["decks"][0][len(old0) - h :]) == cards_from_counts(block)
    assert s["hands"][1] == counts_of(before["decks"][1][:h])
    assert s["decks"][1] == before["decks"][1][h:]
    assert sum(s["hands"][0]) == sum(s["hands"][1]) == h == 10 * s_
    assert s["trick"] == [0] * 8 and s["current_play"] is None
    assert s["current_player"] == s["leader"] == 0  # the winner leads the next hand
    assert s["hands_played"] == 1 and not s["done"]
    assert ref.events == [
        ("play", 0, (2, 5, 5)),
        ("hand_won", 0),
        ("under", 0, tuple(block)),
        ("draw", 0, h),
        ("draw", 1, h),
    ]
    check_conservation(s)


def test_leading_the_whole_hand_wins_it_at_once():
    hands = [[0, 0, 2, 2, 2, 0, 0, 0], [3, 1, 0, 0, 0, 0, 2, 4]]
    env, ref = situation(hands=hands, player=0, size0=26, hands_played=4)
    s = step_both(env, ref, A(3, 5))
    assert s["hands_played"] == 5
    assert ref.events[:3] == [
        ("play", 0, (2, 3, 5)),
        ("hand_won", 0),
        ("under", 0, (3, 1, 2, 2, 2, 0, 2, 4)),
    ]
    assert s["current_player"] == 0 and s["current_play"] is None
    assert sum(s["hands"][1]) == 10


def test_the_replier_who_empties_its_hand_wins_and_leads():
    """Seat 1 led; seat 0 passes; seat 1 leads again; seat 0 goes out on the reply."""
    hands = [[0, 0, 0, 0, 0, 0, 1, 1], [2, 2, 0, 0, 0, 0, 0, 0]]
    env, ref = situation(hands=hands, player=1, size0=30)
    step_both(env, ref, A(1))  # seat 1 leads a pair of 1s
    s = step_both(env, ref, PASS)  # seat 0 passes: draws 2; the 1s go under seat 1's deck
    assert s["current_player"] == 1 and s["leader"] == 1
    step_both(env, ref, A(2))  # a pair of 2s empties seat 1's hand: it wins the hand
    s = env.state_dict()
    assert s["hands_played"] == 1
    assert ref.events[1] == ("hand_won", 1)
    assert s["current_player"] == s["leader"] == 1
    # now seat 1 leads a new hand; seat 0 goes out by replying with its whole hand
    hands = [[0, 0, 0, 0, 0, 0, 1, 1], [3, 0, 0, 0, 0, 0, 0, 5]]
    env, ref = situation(
        hands=hands, trick=[1, 0, 0, 0, 0, 0, 0, 0], play=(1, 1, 1), player=0, size0=30
    )
    s = step_both(env, ref, A(7, 8))
    assert ref.events[1:3] == [("hand_won", 0), ("under", 0, (4, 0, 0, 0, 0, 0, 1, 6))]
    assert s["current_player"] == s["leader"] == 0


# --- the end of the game ---------------------------------------------------------------------


def _end_situation(stage, loser_deck, reward="win"):
    """Seat 0 goes out with a single 8 over seat 1's single 2; seat 1 keeps 5 cards in hand
    (which go to seat 0); seat 1's deck then holds `loser_deck` cards."""
    s_ = scale(stage)
    hands = [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 2, 0, 3, 0, 0, 0]]
    trick = [0, 1, 0, 0, 0, 0, 0, 0]
    total = 64 * s_ - 7
    return situation(
        stage,
        hands=hands,
        trick=trick,
        play=(1, 2, 2),
        player=0,
        size0=total - loser_deck,
        reward=reward,
    )


@pytest.mark.parametrize("reward", ["win", "zero_sum"])
@pytest.mark.parametrize("stage", [1, 2, 3])
def test_game_end_fewer_cards_loses(stage, reward):
    """After a hand, a player whose deck holds fewer cards than a hand cannot draw one: the
    game ends and the player with fewer cards (here the short one) loses."""
    need = hand_size(stage)
    env, ref = _end_situation(stage, need - 1, reward)
    s = step_both(env, ref, A(8))
    assert s["done"] and not s["truncated"]
    assert s["hands"] == [[0] * 8, [0] * 8]  # nobody drew a new hand
    assert s["cards"] == [64 * scale(stage) - (need - 1), need - 1]
    assert ref.winner() == 0
    assert all(env.terminations.values()) and not any(env.truncations.values())
    win = [1.0, 0.0] if reward == "win" else [1.0, -1.0]
    assert [env.rewards[a] for a in env.possible_agents] == win
    assert [env.infos[a]["win"] for a in env.possible_agents] == [1.0, 0.0]
    assert [env.infos[a]["score"] for a in env.possible_agents] == s["cards"]
    assert mask_of(env, 0).sum() == mask_of(env, 1).sum() == 0


@pytest.mark.parametrize("stage", [1, 2, 3])
def test_a_deck_of_exactly_a_hand_plays_on(stage):
    need = hand_size(stage)
    env, ref = _end_situation(stage, need)
    s = step_both(env, ref, A(8))
    assert not s["done"]
    assert s["decks"][1] == [] and sum(s["hands"][1]) == need
    assert s["current_player"] == 0


def test_winning_the_last_hand_does_not_save_a_short_deck():
    """Seat 0 goes out but its own deck, even with the trick and seat 1's hand, is short: the
    game ends and seat 0, with fewer cards, loses."""
    hands = [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 2, 0, 0, 0, 0, 0]]
    trick = [0, 1, 0, 0, 0, 0, 0, 0]
    env, ref = situation(hands=hands, trick=trick, play=(1, 2, 2), player=0, size0=3)
    s = step_both(env, ref, A(8))
    assert s["done"]
    assert s["cards"] == [3 + 4, 64 - 7]
    assert ref.winner() == 1
    assert [env.infos[a]["win"] for a in env.possible_agents] == [0.0, 1.0]
    assert [env.rewards[a] for a in env.possible_agents] == [0.0, 1.0]


@pytest.mark.parametrize("reward", ["win", "zero_sum"])
def test_equal_cards_at_the_end_is_a_draw(reward):
    """Both decks short with equal cards: a draw. With every card in play this cannot
    happen (all 64*s cards are in the two decks then, so at most one deck is short); the
    position is made up to pin the ruling."""
    hands = [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 2, 0, 0, 0, 0, 0]]
    trick = [0, 1, 0, 0, 0, 0, 0, 0]
    decks = [[1, 1], [4, 4, 4, 4, 4, 4]]
    env, ref = situation(
        hands=hands, trick=trick, play=(1, 2, 2), player=0, decks=decks, reward=reward
    )
    s = step_both(env, ref, A(8))
    assert s["done"] and s["cards"] == [6, 6]
    assert ref.winner() is None
    expected = [0.5, 0.5] if reward == "win" else [0.0, 0.0]
    assert [env.rewards[a] for a in env.possible_agents] == expected
    assert [env.infos[a]["win"] for a in env.possible_agents] == [0.5, 0.5]


@pytest.mark.parametrize("reward", ["win", "zero_sum"])
@pytest.mark.parametrize(("deck0", "cards", "winner"), [(1, [5, 6], 1), (3, [7, 6], 0)])
def test_both_decks_short_with_unequal_cards_fewer_loses(reward, deck0, cards, winner):
    """Both decks short after a hand, with unequal cards: the player with fewer cards loses,
    even when it won the last hand (the ruling). Made up like the draw above: with every card
    in play at most one deck can be short."""
    hands = [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 2, 0, 0, 0, 0, 0]]
    trick = [0, 1, 0, 0, 0, 0, 0, 0]
    decks = [[1] * deck0, [4, 4, 4, 4, 4, 4]]
    env, ref = situation(
        hands=hands, trick=trick, play=(1, 2, 2), player=0, decks=decks, reward=reward
    )
    s = step_both(env, ref, A(8))
    assert s["done"] and not s["truncated"] and s["cards"] == cards
    assert ref.winner() == winner
    win = [1.0 if seat == winner else 0.0 for seat in (0, 1)]
    assert [env.infos[a]["win"] for a in env.possible_agents] == win
    expected = win if reward == "win" else [2 * w - 1 for w in win]
    assert [env.rewards[a] for a in env.possible_agents] == expected


def test_no_game_end_check_on_a_pass():
    """A short deck only matters when a new hand is due: passing with an empty deck goes on."""
    hands = [[2, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 1, 2]]
    trick = [0, 0, 0, 0, 0, 1, 0, 0]
    env, ref = situation(hands=hands, trick=trick, play=(1, 6, 6), player=1, size0=0)
    s = step_both(env, ref, A(8))  # seat 1 answers; seat 0 (deck empty) passes
    s = step_both(env, ref, PASS)
    assert not s["done"] and s["decks"][0] == []
    assert s["current_player"] == 1


def test_truncation_is_a_draw():
    hands = [[2, 1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 2]]
    env, ref = situation(hands=hands, player=0, turns=4, max_turns=5)
    s = step_both(env, ref, A(1))
    assert s["done"] and s["truncated"] and s["turns"] == 5
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert [env.rewards[a] for a in env.possible_agents] == [0.5, 0.5]
    assert [env.infos[a]["win"] for a in env.possible_agents] == [0.5, 0.5]


def test_going_out_on_the_last_turn_ends_the_game_not_truncates_it():
    hands = [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 2, 0, 3, 0, 0, 0]]
    trick = [0, 1, 0, 0, 0, 0, 0, 0]
    env, ref = situation(
        hands=hands,
        trick=trick,
        play=(1, 2, 2),
        player=0,
        size0=64 - 7 - 9,
        turns=9,
        max_turns=10,
    )
    s = step_both(env, ref, A(8))
    assert s["done"] and not s["truncated"]
    assert all(env.terminations.values())


# --- stages and the start of a game -------------------------------------------------------


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("seed", [0, 1, 77])
def test_stage_sizes(stage, seed):
    """Stage g: each player's deck is 4*2**(g-1) of each number 1..8; hands of 10*2**(g-1)."""
    s_ = scale(stage)
    env = make_env(stage=stage)
    env.reset(seed=seed)
    s = env.state_dict()
    assert s["stage"] == stage
    assert copies_per_deck(stage) == 4 * s_ and hand_size(stage) == 10 * s_
    for p in (0, 1):
        assert sum(s["hands"][p]) == 10 * s_
        assert len(s["decks"][p]) == 22 * s_
        own = [h + d for h, d in zip(s["hands"][p], counts_of(s["decks"][p]), strict=True)]
        assert own == [4 * s_] * 8  # each player's own shuffled deck
        obs = env.observe(f"player_{p}")["observation"]
        assert obs[:8].sum() == 10  # counts are scaled to stage 1
        assert obs[OBS_OWN_DECK] == 22 and obs[OBS_STAGE] == stage
    assert s["cards"] == [32 * s_, 32 * s_]
    assert s["trick"] == [0] * 8 and s["current_play"] is None
    assert s["hands_played"] == 0 and s["turns"] == 0 and not s["done"]
    check_conservation(s)


@pytest.mark.parametrize("first_leader", [0, 1])
def test_first_leader(first_leader):
    env = make_env(first_leader=first_leader)
    for seed in range(3):
        env.reset(seed=seed)
        s = env.state_dict()
        assert s["current_player"] == s["leader"] == first_leader
        assert env.agent_selection == f"player_{first_leader}"
        assert mask_of(env, first_leader)[PASS] == 0
        assert mask_of(env, 1 - first_leader).sum() == 0


def test_first_leader_default_is_seat_zero():
    env = make_env()
    env.reset(seed=4)
    assert env.agent_selection == "player_0"


def test_decks_are_shuffled():
    """The top card of a fresh deck is spread over the numbers (about 1/8 each)."""
    env = make_env()
    tops = np.zeros(9, dtype=int)
    env.reset(seed=0)
    for _ in range(400):
        s = env.state_dict()
        tops[s["decks"][0][0]] += 1
        tops[s["decks"][1][0]] += 1
        env.reset()
    assert tops[0] == 0 and tops[1:].min() >= 50 and tops[1:].max() <= 150


def test_cards_put_under_a_deck_are_shuffled():
    """The order of a trick put under a deck varies (a run 1..6 does not stay sorted)."""
    orders = set()
    for seed in range(30):
        hands = [[1, 1, 1, 1, 1, 1, 0, 1], [0, 0, 0, 0, 0, 0, 2, 0]]
        env, _ = situation(hands=hands, player=0, size0=25)
        seed_row(env._row, seed)
        env.step(A(1, 6))
        env.step(PASS)
        orders.add(tuple(env.state_dict()["decks"][0][-6:]))
    assert all(sorted(o) == [1, 2, 3, 4, 5, 6] for o in orders)
    assert len(orders) >= 20


def test_decks_wrapping_around_their_buffers():
    """Decks are ring buffers: a deck whose top sits near the end of its buffer draws and
    takes cards across the end."""
    hands = [[1, 1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 2, 2]]
    env = make_env()
    env.reset(seed=0)
    cap = int(env._row[k.CAP])
    decks = fill_decks(1, hands, [0] * 8, 28)
    write_situation(env, hands=hands, decks=decks, player=0, heads=(cap - 1, cap - 2))
    ref = RefDoubleOrNothing.from_state(env.state_dict())
    assert env.state_dict()["decks"] == decks
    step_both(env, ref, A(1))
    step_both(env, ref, A(7))
    step_both(env, ref, PASS)  # seat 0 draws 2 across the end; the trick goes under seat 1
    assert env._row[k.HEAD] == 1 and env.state_dict()["decks"][0] == decks[0][2:]
    for _ in range(60):  # two computers play on, through a few hands
        if ref.done:
            break
        play = ref_computer_move(ref.hands[ref.player], ref.current_play)
        step_both(env, ref, PASS if play is None else A(play[1], play[2]))
        check_conservation(env.state_dict())
    assert ref.hands_played >= 1


# --- rewards ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("reward", "expected"), [("win", [0.0, 1.0]), ("zero_sum", [-1.0, 1.0])])
def test_rewards_through_last(reward, expected):
    # seat 1 goes out; seat 0's deck is short
    hands = [[0, 0, 2, 0, 3, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 1]]
    env, ref = situation(
        hands=hands,
        trick=[0, 1, 0, 0, 0, 0, 0, 0],
        play=(1, 2, 2),
        player=1,
        size0=5,
        reward=reward,
    )
    step_both(env, ref, A(8))
    got = {}
    for agent in env.agent_iter():
        _, r, term, trunc, info = env.last()
        assert term and not trunc
        got[agent] = r
        env.step(None)
    assert got == {"player_0": expected[0], "player_1": expected[1]}
    assert ref.rewards() == expected


# --- the helper functions --------------------------------------------------------------------


def test_play_for_range_by_hand():
    counts = [0, 3, 1, 2, 0, 0, 0, 0]
    assert play_for_range(counts, 2, 4) == (1, 2, 4)
    assert play_for_range(counts, 2, 2) == (3, 2, 2)
    assert play_for_range(counts, 1, 4) is None  # no 1
    assert play_for_range(counts, 4, 5) is None  # no 5
    assert play_for_range(np.array(counts), 2, 3) == (1, 2, 3)
    assert play_for_range(tuple(counts), 4, 4) == (2, 4, 4)
    assert all(type(x) is int for x in play_for_range(np.array(counts, np.int32), 2, 4))


@pytest.mark.parametrize(
    ("counts", "lo", "hi"),
    [
        ([1] * 7, 1, 2),  # 7 counts
        ([1] * 9, 1, 2),
        ([1, -1, 1, 1, 1, 1, 1, 1], 1, 2),  # negative
        ([1.0] * 8, 1, 2),  # not ints
        ([1] * 8, 0, 2),  # lo below 1
        ([1] * 8, 3, 9),  # hi above 8
        ([1] * 8, 5, 4),  # lo > hi
    ],
)
def test_play_for_range_rejects_bad_input(counts, lo, hi):
    with pytest.raises(ValueError):
        play_for_range(counts, lo, hi)


def test_stronger_by_hand():
    assert stronger((1, 1, 3), (2, 8, 8))
    assert not stronger((2, 8, 8), (1, 1, 3))
    assert not stronger((1, 4, 4), (1, 4, 4))
    assert stronger((4, 1, 1), (1, 1, 3))  # four cards beat three


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ((0, 1, 1), (1, 1, 1)),  # no copies
        ((1, 1, 1), (-1, 2, 2)),
        ((1, 3, 2), (1, 1, 1)),  # lo > hi
        ((1, 0, 1), (1, 1, 1)),
        ((1, 1, 1), (1, 1, 9)),
    ],
)
def test_stronger_rejects_bad_plays(a, b):
    with pytest.raises(ValueError):
        stronger(a, b)


@pytest.mark.parametrize(
    ("counts", "to_beat", "expected", "why"),
    [
        ([2, 0, 1, 0, 0, 0, 0, 0], None, (1, 3, 3), "leading: fewest cards (the pair of 1s is 2)"),
        ([0, 0, 0, 0, 0, 0, 1, 1], None, (1, 7, 7), "leading: the lower number"),
        ([2, 2, 0, 0, 0, 0, 0, 0], None, (2, 1, 1), "leading: a pair, not the run 1, 2 (smaller)"),
        ([0, 0, 0, 2, 0, 0, 0, 0], (1, 5, 5), (2, 4, 4), "replying: the only stronger play"),
        ([0, 1, 1, 2, 0, 0, 0, 0], (1, 5, 5), (2, 4, 4), "replying: the pair of 4s, not 2, 3"),
        ([0, 1, 1, 0, 0, 0, 0, 1], (1, 5, 5), (1, 8, 8), "replying: a single 8 is enough"),
        ([1, 0, 0, 0, 0, 0, 0, 0], (2, 3, 3), None, "no stronger play: pass"),
        ([3, 0, 0, 0, 0, 0, 0, 0], (3, 1, 1), None, "an equal play does not beat"),
        ([0, 0, 0, 0, 0, 3, 1, 1], (1, 1, 2), (1, 6, 7), "replying to 1, 2: 6, 7 < 7, 8 < 6-8"),
        ([0, 0, 0, 0, 0, 0, 0, 0], None, None, "an empty hand has no play"),
    ],
)
def test_computer_move_by_hand(counts, to_beat, expected, why):
    assert computer_move(counts, to_beat) == expected, why
    assert ref_computer_move(counts, to_beat) == expected


def test_computer_move_prefers_cards_then_range_then_numbers():
    # replying to a single 8: every two-card play beats it; the pair (range 1) wins over the
    # run 1, 2 (range 2) even with higher numbers, and the lowest pair wins among pairs
    counts = [1, 1, 0, 0, 0, 2, 0, 2]
    assert computer_move(counts, (1, 8, 8)) == (2, 6, 6)
    counts = [1, 1, 0, 0, 0, 0, 0, 0]
    assert computer_move(counts, (1, 8, 8)) == (1, 1, 2)


@pytest.mark.parametrize(
    ("counts", "to_beat"),
    [
        ([1] * 7, None),
        ([1, 1, 1, 1, 1, 1, 1, -2], None),
        ([0.5] * 8, None),
        ([1] * 8, (0, 1, 1)),
        ([1] * 8, (1, 2, 1)),
        ([1] * 8, (1, 1, 9)),
    ],
)
def test_computer_move_rejects_bad_input(counts, to_beat):
    with pytest.raises(ValueError):
        computer_move(counts, to_beat)


# --- conservation through whole games ---------------------------------------------------------


@pytest.mark.parametrize("stage", [1, 2, 3])
def test_card_conservation_through_computer_games(stage):
    """Two computers play whole games: every card stays in a hand, a deck or the trick."""
    env = make_env(stage=stage)
    for seed in range(3):
        env.reset(seed=seed)
        ref = RefDoubleOrNothing.from_state(env.state_dict())
        while not ref.done:
            p = ref.player
            play = ref_computer_move(ref.hands[p], ref.current_play)
            action = PASS if play is None else A(play[1], play[2])
            assert action in legal_actions(ref.hands[p], ref.current_play)
            env.step(action)
            s = env.state_dict()
            ref.step(action, engine_order(s))
            assert rule_fields(s) == ref.state()
            check_conservation(s)
        assert ref.status == "terminated"
