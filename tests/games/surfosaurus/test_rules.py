"""Hand-made Surfosaurus MAX situations: each rule and each ruling played out in real rounds.

Expected numbers are worked out by hand from the rule text and the rulings (points per value
max(2, 13 - v): 1->12, 2->11, ..., 10->3, 11->2, 12->2; scores in half points) and checked
against the reference game as well. The tests named test_rule_* pin the rules and are cited
by docs/rules/surfosaurus_max.md.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from card_envs import positions
from card_envs.games.surfosaurus import engine as k
from tests.games.surfosaurus.helpers import (
    PLAYER_COUNTS,
    build_deal,
    check_observations,
    check_state,
    make_env,
    mask_of,
    random_action,
    ref_from_env,
    step_both,
    write_deal,
    write_situation,
)
from tests.games.surfosaurus.reference import ALL_CARDS, card_id
from tests.helpers_aec import last_rewards

# the rule text's tables, by player count
REMOVED = {2: 24, 3: 12, 4: 0, 5: 4, 6: 0}
CARDS_PER_PLAYER = {2: 3, 3: 3, 4: 2, 5: 2, 6: 2}
COMBO_SIZE = {2: 4, 3: 4, 4: 4, 5: 5, 6: 5}
STARTS_EACH = {2: 3, 3: 2, 4: 2, 5: 1, 6: 1}
ROUNDS = {2: 6, 3: 6, 4: 8, 5: 5, 6: 6}
GAME_LENGTH = {2: 36, 3: 54, 4: 64, 5: 50, 6: 72}
# cards left in each hand when the game ends (the pile runs out near the end)
FINAL_HAND = {2: 6, 3: 6, 4: 5, 5: 6, 6: 2}
# default points of values 1..12, written out
POINTS = {1: 12, 2: 11, 3: 10, 4: 9, 5: 8, 6: 7, 7: 6, 8: 5, 9: 4, 10: 3, 11: 2, 12: 2}


def play_round(env, ref, plays, check_every_step=True):
    """Play the given (colour, value) cards in order, in the env and the reference."""
    for card in plays:
        step_both(env, ref, card)
        if check_every_step:
            check_state(env, ref)
            check_observations(env, ref)


def deal_for_round(num_players, plays, start=0, seed=0, pile_top=()):
    """A deal in which seat (start + j) % n holds the card of play j."""
    hands: dict[int, list] = {}
    for j, card in enumerate(plays):
        hands.setdefault((start + j) % num_players, []).append(card)
    return build_deal(num_players, hands=hands, pile_top=pile_top, seed=seed)


def run_round(num_players, plays, seed=0, **config):
    env = make_env(num_players, **config)
    env.reset(seed=seed)
    ref = write_deal(env, **deal_for_round(num_players, plays, seed=seed))
    check_state(env, ref)
    check_observations(env, ref)
    play_round(env, ref, plays)
    return env, ref


# --- setup --------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.parametrize("seed", [0, 1, -5, 2**40])
def test_rule_removed_cards_and_deal_by_player_count(num_players, seed):
    env = make_env(num_players)
    env.reset(seed=seed)
    s = env.state_dict()
    assert len(s["removed"]) == REMOVED[num_players]
    assert [len(h) for h in s["hands"]] == [7] * num_players
    assert len(s["draw_pile"]) == 84 - REMOVED[num_players] - 7 * num_players
    everything = [tuple(c) for h in s["hands"] for c in h]
    everything += [tuple(c) for c in s["draw_pile"] + s["removed"]]
    assert sorted(everything) == list(ALL_CARDS)
    assert s["display"] == [] and s["out_of_play"] == []
    assert s["score2"] == [0] * num_players and s["cards_collected"] == [0] * num_players
    assert s["scores"] == [0.0] * num_players
    assert (s["round"], s["play_in_round"], s["starting_player"], s["current_player"]) == (
        0,
        0,
        0,
        0,
    )
    assert not s["done"]
    assert env.agent_selection == "player_0"
    hand0 = sorted(card_id(tuple(c)) for c in s["hands"][0])
    assert np.flatnonzero(mask_of(env, 0)).tolist() == hand0


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_removed_cards_are_spread_over_the_deck(num_players):
    env = make_env(num_players)
    env.reset(seed=0)
    removed = np.zeros(84, dtype=int)
    dealt = np.zeros(84, dtype=int)
    deals = 300
    for _ in range(deals):
        s = env.state_dict()
        removed[[card_id(tuple(c)) for c in s["removed"]]] += 1
        dealt[[card_id(tuple(c)) for c in s["hands"][0]]] += 1
        env.reset()
    # each card is removed with probability R/84 and in seat 0's hand with 7/84: loose bounds
    expected = deals * REMOVED[num_players] / 84
    assert removed.min() >= expected * 0.15 and removed.max() <= expected * 2.2
    assert dealt.min() >= 3 and dealt.max() <= 60


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_rule_combo_size_by_player_count(num_players):
    env = make_env(num_players)
    env.reset(seed=1)
    assert env.state_dict()["k"] == COMBO_SIZE[num_players]


@pytest.mark.parametrize("num_players", [4, 5])
def test_rule_combo_size_decides_the_round(num_players):
    """Four 7s are a combo with K = 4 (4 players) but not with K = 5 (5 players), where the
    best 5 cards are the high cards 12, 11, 10, 9 and one of the four 7s."""
    plays = [(0, 7), (1, 7), (2, 7), (3, 7), (4, 12), (5, 11), (6, 10), (0, 9), (1, 2), (2, 1)]
    plays = plays[: 2 * num_players]
    env, ref = run_round(num_players, plays)
    s = env.state_dict()
    if num_players == 4:
        # seats 0..3 played the 7s (6 points each, full)
        assert s["score2"] == [12, 12, 12, 12]
        assert s["cards_collected"] == [1, 1, 1, 1]
    else:
        # 12 (seat 4, 2 pts), 11 (seat 0, 2), 10 (seat 1, 3), 9 (seat 2, 4) full; every 7
        # half (6 / 2 = 3 each, seats 0..3)
        assert s["score2"] == [4 + 6, 6 + 6, 8 + 6, 6, 4]
        assert s["cards_collected"] == [2, 2, 2, 1, 1]
    assert ref.results[0].gained2 == tuple(s["score2"])


# --- turns, rounds, the game's length --------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_rule_turn_order_and_starting_player_rotation(num_players):
    """Play j of round r is by seat (r % n + j) % n; each round is n x (3 or 2) plays."""
    n = num_players
    env = make_env(n)
    env.reset(seed=10 + n)
    rng = random.Random(n)
    per_round = n * CARDS_PER_PLAYER[n]
    for r in range(ROUNDS[n]):
        for j in range(per_round):
            s = env.state_dict()
            seat = (r % n + j) % n
            assert (s["round"], s["play_in_round"]) == (r, j)
            assert s["starting_player"] == r % n
            assert s["current_player"] == seat
            assert env.agent_selection == f"player_{seat}"
            for q in range(n):  # only the seat to act may play, only cards in its hand
                hand = sorted(card_id(tuple(c)) for c in s["hands"][q]) if q == seat else []
                assert np.flatnonzero(mask_of(env, q)).tolist() == hand
            assert not s["done"]
            env.step(random_action(mask_of(env, seat), rng))
    assert env.state_dict()["done"]
    assert all(env.terminations.values())


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_rule_rounds_per_player_count(num_players):
    n = num_players
    env = make_env(n)
    env.reset(seed=3)
    ref = ref_from_env(env)
    rng = random.Random(0)
    starts = []
    steps = 0
    while not ref.done:
        if ref.play_in_round == 0:
            starts.append(env.state_dict()["starting_player"])
        step_both(env, ref, random_action(mask_of(env, ref.player), rng))
        steps += 1
    assert env.state_dict()["rounds"] == ROUNDS[n] == len(starts)
    assert env.state_dict()["round"] == ROUNDS[n]  # rounds finished
    assert steps == GAME_LENGTH[n] == ROUNDS[n] * n * CARDS_PER_PLAYER[n]
    assert sorted(starts) == sorted(list(range(n)) * STARTS_EACH[n])
    assert starts == [r % n for r in range(ROUNDS[n])]
    check_state(env, ref)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_rule_a_turn_plays_then_draws(num_players):
    """The card leaves the hand for the display (with its seat); the top card of the pile
    goes to the player's hand; nothing else moves (3+ players: no dummy cards)."""
    n = num_players
    env = make_env(n)
    env.reset(seed=20 + n)
    rng = random.Random(n)
    for _ in range(n * CARDS_PER_PLAYER[n] - 1):  # one round but its last play
        before = env.state_dict()
        seat = before["current_player"]
        action = random_action(mask_of(env, seat), rng)
        card = [action // 12, action % 12 + 1]
        env.step(action)
        after = env.state_dict()
        top = before["draw_pile"][0]
        hand = [c for c in before["hands"][seat] if c != card] + [top]
        assert after["hands"][seat] == sorted(hand)
        new = after["display"][len(before["display"]) :]
        assert new[0] == [*card, seat]
        if n == 2 and before["play_in_round"] in (1, 3):  # a dummy after the 2nd and 4th play
            assert new[1:] == [[*before["draw_pile"][1], -1]]
        else:
            assert len(new) == 1 and after["draw_pile"] == before["draw_pile"][1:]
        for q in range(n):
            if q != seat:
                assert after["hands"][q] == before["hands"][q]
        assert after["score2"] == before["score2"]


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_rule_no_draw_when_the_pile_is_empty(num_players):
    """Once the pile is empty a play is not followed by a draw: hands shrink, and at the end
    of the game every seat holds the number of cards the arithmetic of the rules gives."""
    n = num_players
    env = make_env(n)
    env.reset(seed=30 + n)
    ref = ref_from_env(env)
    rng = random.Random(n)
    emptied = False
    while not ref.done:
        before = env.state_dict()
        seat = before["current_player"]
        size = len(before["hands"][seat])
        step_both(env, ref, random_action(mask_of(env, seat), rng))
        after = env.state_dict()
        if before["draw_pile"]:
            assert len(after["hands"][seat]) == size
            assert before["draw_pile"][0] in after["hands"][seat]
        else:
            emptied = True
            assert len(after["hands"][seat]) == size - 1
            assert after["draw_pile"] == []
    assert emptied
    assert [len(h) for h in env.state_dict()["hands"]] == [FINAL_HAND[n]] * n
    check_state(env, ref)


def test_rule_no_draw_when_the_pile_is_empty_hand_made():
    """3 players, last round (seat 2 starts), one card left in the pile: seat 2 draws it,
    seats 0 and 1 draw nothing and their hands shrink."""
    rng = random.Random(4)
    cards = list(ALL_CARDS)
    rng.shuffle(cards)
    removed, cards = cards[:12], cards[12:]
    hands = [cards[0:7], cards[7:14], cards[14:21]]
    pile = [cards[21]]
    out = cards[22:]
    env = make_env(3)
    env.reset(seed=0)
    ref = write_situation(
        env, hands=hands, draw_pile=pile, removed=removed, out_of_play=out, round=5
    )
    check_state(env, ref)
    assert obs_pile_size(env) == 1
    step_both(env, ref, hands[2][0])
    s = check_state(env, ref)
    assert len(s["hands"][2]) == 7 and list(pile[0]) in s["hands"][2] and s["draw_pile"] == []
    step_both(env, ref, hands[0][0])
    step_both(env, ref, hands[1][0])
    s = check_state(env, ref)
    assert [len(h) for h in s["hands"]] == [6, 6, 7]
    check_observations(env, ref)
    assert obs_pile_size(env) == 0


def obs_pile_size(env) -> float:
    return float(env.observe("player_0")["observation"][-1])


# --- the two-player dummy cards ----------------------------------------------------------


def test_rule_two_player_dummy_cards_score_for_nobody():
    """2 players: the 3rd and 6th pile cards of round 0 are turned up as dummy cards after
    the 2nd and the 4th play. Here the dummies are two of four 1s: the four of a kind scores
    full, 12 points for each player's 1, and the dummies' 24 points go to nobody."""
    plays = [(0, 1), (1, 1), (4, 5), (6, 3), (5, 9), (4, 11)]  # seats 0, 1, 0, 1, 0, 1
    fillers = [(6, 6), (6, 7), (5, 6), (5, 7), (6, 12), (5, 12)]
    pile_top = [fillers[0], fillers[1], (2, 1), fillers[2], fillers[3], (3, 1)]
    pile_top += fillers[4:]
    env = make_env(2)
    env.reset(seed=0)
    ref = write_deal(env, **deal_for_round(2, plays, pile_top=pile_top))
    start_pile = env.state_dict()["draw_pile"]
    play_round(env, ref, plays[:2])
    s = env.state_dict()
    assert s["display"] == [[0, 1, 0], [1, 1, 1], [2, 1, -1]]
    assert s["draw_pile"] == start_pile[3:]
    # the dummy is observed in its own block (after the n seat blocks), by both seats
    for seat in range(2):
        obs = env.observe(f"player_{seat}")["observation"]
        assert obs[84 * 3 + card_id((2, 1))] == 1.0
    play_round(env, ref, plays[2:4])
    s = env.state_dict()
    assert s["display"][3:] == [[4, 5, 0], [6, 3, 1], [3, 1, -1]]
    play_round(env, ref, plays[4:5])
    assert len(env.state_dict()["display"]) == 7  # no dummy after the 5th play
    play_round(env, ref, plays[5:])
    s = env.state_dict()
    assert s["display"] == [] and s["round"] == 1
    assert s["score2"] == [24, 24] and s["scores"] == [12.0, 12.0]
    assert s["cards_collected"] == [1, 1]
    assert s["draw_pile"] == start_pile[8:]  # 6 draws and 2 dummies, no third dummy
    dummies = [[2, 1], [3, 1]]
    assert all(d in s["out_of_play"] for d in dummies)
    assert all(d not in h for d in dummies for h in s["hands"])
    sd = ref.results[0].showdown
    assert sd.category == "of_a_kind" and sd.full == (0, 1, 2, 5)


def test_rule_dummy_in_an_unresolvable_tie_scores_for_nobody():
    """The straight 9-10-11-12 with two 12s, one of them a dummy: 9, 10, 11 full, both 12s
    half; seat 1's 12 scores half (1 point), the dummy's half goes to nobody."""
    plays = [(0, 9), (1, 10), (3, 11), (4, 12), (6, 2), (0, 4)]  # seats 0, 1, 0, 1, 0, 1
    pile_top = [(6, 6), (6, 7), (2, 12), (5, 6), (5, 7), (5, 1)]
    env = make_env(2)
    env.reset(seed=0)
    ref = write_deal(env, **deal_for_round(2, plays, pile_top=pile_top))
    play_round(env, ref, plays)
    s = env.state_dict()
    # seat 0: 9 (4 pts) and 11 (2 pts) full; seat 1: 10 (3 pts) full, 12 half (2 / 2)
    assert s["score2"] == [8 + 4, 6 + 2]
    assert s["scores"] == [6.0, 4.0]
    assert s["cards_collected"] == [2, 2]
    sd = ref.results[0].showdown
    assert sd.category == "straight" and sd.half == (2, 4)  # the dummy 12 and seat 1's 12


def test_rule_dummy_cards_follow_the_second_and_fourth_play_in_every_round():
    """In round 1 seat 1 starts: the dummies still come after the 2nd and 4th play."""
    env = make_env(2)
    env.reset(seed=8)
    ref = ref_from_env(env)
    rng = random.Random(1)
    while not ref.done:
        r = ref.round
        pile = env.state_dict()["draw_pile"]
        for _ in range(6):
            step_both(env, ref, random_action(mask_of(env, ref.player), rng))
            if ref.play_in_round == 5:
                display = env.state_dict()["display"]
                seats = [d[2] for d in display]
                start = r % 2
                assert seats == [start, 1 - start, -1, start, 1 - start, -1, start]
                assert display[2][:2] == pile[2] and display[5][:2] == pile[5]
        check_state(env, ref)
        assert ref.results[-1].display[2][2] == ref.results[-1].display[5][2] == -1


def test_rule_no_dummy_from_an_empty_pile():
    """2 players, last round, 3 cards in the pile: two draws, then the last card becomes the
    first dummy; after the 4th play the pile is empty and no dummy is turned up."""
    rng = random.Random(9)
    cards = list(ALL_CARDS)
    rng.shuffle(cards)
    removed, hands, pile, out = cards[:24], [cards[24:31], cards[31:38]], cards[38:41], cards[41:]
    env = make_env(2)
    env.reset(seed=0)
    ref = write_situation(
        env, hands=hands, draw_pile=pile, removed=removed, out_of_play=out, round=5
    )
    assert env.agent_selection == "player_1"  # round 5 starts at seat 5 % 2
    check_observations(env, ref)
    for j in range(6):
        step_both(env, ref, random_action(mask_of(env, ref.player), rng))
        s = check_state(env, ref)
        if j == 1:
            assert s["display"][-1] == [*pile[2], -1] and s["draw_pile"] == []
        if j == 4:
            assert [d[2] for d in s["display"]] == [1, 0, -1, 1, 0, 1]
    assert s["done"]
    assert len(ref.results[-1].display) == 7
    assert len(s["out_of_play"]) == len(out) + 7
    assert [len(h) for h in s["hands"]] == [5, 5]


# --- scoring: the rulings' examples in real rounds (4 players, K = 4) ----------------------

# play j is by seat j % 4; expected: half points per seat and cards collected
RULING_ROUNDS = {
    # 12, 10, 8 full; both 6s half (7 / 2 each)
    "high_cards_tied_sixes": (
        [(0, 12), (1, 10), (2, 8), (3, 1), (3, 6), (4, 6), (5, 3), (6, 2)],
        [4 + 7, 6 + 7, 10, 0],
        [2, 2, 1, 0],
    ),
    # 9, 10, 11 full; both 12s half (2 / 2 each)
    "straight_with_two_twelves": (
        [(0, 9), (1, 10), (2, 11), (3, 12), (4, 12), (5, 1), (6, 3), (0, 5)],
        [8 + 2, 6, 4, 2],
        [2, 1, 1, 1],
    ),
    # 5-6-7-8 in colour 0 and in colour 4: all eight half
    "two_equal_straight_flushes": (
        [(0, 5), (4, 6), (0, 7), (4, 8), (4, 5), (0, 6), (4, 7), (0, 8)],
        [8 + 8, 7 + 7, 6 + 6, 5 + 5],
        [2, 2, 2, 2],
    ),
    # exactly four 7s, nothing better: all four full (6 points each)
    "exactly_four_sevens": (
        [(0, 7), (1, 7), (2, 7), (3, 7), (4, 1), (5, 2), (6, 3), (4, 11)],
        [12, 12, 12, 12],
        [1, 1, 1, 1],
    ),
}

TOP_K_ROUNDS = {
    # straight 5..10: only 7, 8, 9, 10 count
    "straight_5_to_10_uses_7_to_10": (
        [(0, 5), (1, 6), (2, 7), (3, 8), (4, 9), (5, 10), (6, 1), (0, 12)],
        [8, 6, 12, 10],
        [1, 1, 1, 1],
    ),
    # six cards of colour 2: its top four 12, 10, 8, 5 count, not its 1 and 3 (and the
    # straight 1-5 loses to the flush)
    "six_card_flush_uses_its_top_four": (
        [(2, 1), (2, 3), (2, 5), (2, 8), (2, 10), (2, 12), (0, 2), (1, 4)],
        [6, 4, 16, 10],
        [1, 1, 1, 1],
    ),
    # 10, 11, 12, 1 is no straight: high cards 12, 11, 10, 7
    "no_wrap_from_12_to_1": (
        [(0, 10), (1, 11), (2, 12), (3, 1), (4, 2), (5, 3), (6, 5), (0, 7)],
        [6, 4, 4, 12],
        [1, 1, 1, 1],
    ),
}


def _check_scored_round(name, plays, score2, collected):
    env, ref = run_round(4, plays)
    s = env.state_dict()
    assert s["score2"] == score2, name
    assert s["scores"] == [x / 2 for x in score2]
    assert s["cards_collected"] == collected
    assert s["display"] == []
    assert sorted(s["out_of_play"]) == sorted([list(c) for c in plays])
    assert (s["round"], s["starting_player"], s["current_player"]) == (1, 1, 1)
    assert list(ref.results[0].gained2) == score2  # the brute-force oracle agrees
    observed = env.observe("player_0")["observation"]
    scores_at = 84 * 7
    for seat in range(4):
        assert observed[scores_at + 3 * seat + 2] == collected[seat]


@pytest.mark.parametrize("name", list(RULING_ROUNDS))
def test_rule_ruling_examples_in_a_real_round(name):
    _check_scored_round(name, *RULING_ROUNDS[name])


@pytest.mark.parametrize("name", list(TOP_K_ROUNDS))
def test_rule_top_k_and_no_wrap_in_a_real_round(name):
    _check_scored_round(name, *TOP_K_ROUNDS[name])


def test_rule_combo_order_in_a_real_round():
    """3 players, 9 cards holding the straight 9-10-11-12 and the flush 2-5-8-11 of colour
    0: the flush is stronger, only its cards score."""
    plays = [(0, 2), (1, 9), (0, 5), (2, 10), (0, 8), (3, 11), (0, 11), (4, 12), (5, 1)]
    env, ref = run_round(3, plays)
    s = env.state_dict()
    # seat 0: 2 (11 pts) and 11 (2 pts); seat 1: 8 (5 pts); seat 2: 5 (8 pts)
    assert s["score2"] == [26, 10, 16]
    assert s["cards_collected"] == [2, 1, 1]
    assert ref.results[0].showdown.category == "flush"


@pytest.mark.parametrize(
    ("card", "full_points"),
    [((3, 12), [2, 4 + 2]), ((1, 3), [6 + 6, 6])],  # green 12; orange 3 makes nothing better
    ids=["straight-flush", "four-of-a-kind"],
)
def test_rule_from_straight_flush_beats_four_of_a_kind(card, full_points):
    """The last play decides which combo wins: green 12 completes the straight flush 9-12
    (seat 1's 9 and 12, seat 0's 11, the dummy's 10 for nobody); otherwise the four 7s win
    (seat 0's red and blue, seat 1's orange, the dummy's yellow), 6 points each (default
    table: 12 - value + 1 for values 1..11, 2 for 12)."""
    env = positions.load("surfosaurus_max/straight-flush-beats-four-of-a-kind").make_env()
    assert env.agent_selection == "player_1"
    env.step(card_id(card))
    s = env.state_dict()
    assert s["round"] == 1 and s["full_points"] == full_points and s["half_points2"] == [0, 0]


@pytest.mark.parametrize(
    ("card", "full_points"),
    [((6, 8), [5] * 5), ((4, 9), [12, 10, 8, 6, 4])],  # black 8; blue 9
    ids=["five-of-a-kind", "flush"],
)
def test_rule_from_five_card_combo_five_players_score_the_best_five(card, full_points):
    """Five of a kind beats a flush; four 8s are no combo of five, so the flush beats them.
    Points: 12 - value + 1 (8: 5; blue 1, 3, 5, 7, 9: 12, 10, 8, 6, 4)."""
    env = positions.load("surfosaurus_max/five-card-combo").make_env()
    assert env.agent_selection == "player_4"
    env.step(card_id(card))
    s = env.state_dict()
    assert s["round"] == 1 and s["full_points"] == full_points and s["half_points2"] == [0] * 5


def test_rule_each_player_scores_only_its_own_cards():
    """The same four 7s, played by different seats: the points follow the cards."""
    plays = [(0, 7), (4, 1), (1, 7), (5, 2), (2, 7), (6, 3), (3, 7), (4, 11)]
    env, _ = run_round(4, plays)
    # seats 0 and 2 played the four 7s (j = 0, 2, 4, 6)
    assert env.state_dict()["score2"] == [24, 0, 24, 0]
    assert env.state_dict()["cards_collected"] == [2, 0, 2, 0]


# --- points ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", range(1, 13))
def test_rule_default_points_table(value):
    """Four of a kind of `value`, one card per seat, all full: every seat gets points(v)."""
    junk_values = [v for v in (1, 3, 9, 11, 5) if v != value][:4]
    junk = [(4, junk_values[0]), (5, junk_values[1]), (6, junk_values[2]), (4, junk_values[3])]
    plays = [(0, value), (1, value), (2, value), (3, value), *junk]
    env, _ = run_round(4, plays)
    assert env.state_dict()["score2"] == [2 * POINTS[value]] * 4
    assert env.game.config["points"] == tuple(POINTS[v] for v in range(1, 13))


@pytest.mark.parametrize(
    ("points", "score2"),
    [
        # value v is worth v: 12 and 10 and 8 full, the 6s half (6 / 2)
        (tuple(range(1, 13)), [24 + 6, 20 + 6, 16, 0]),
        # every card is worth 1: a half card is worth 0.5
        ((1,) * 12, [2 + 1, 2 + 1, 2, 0]),
        # only 6s are worth anything (3 points; half = 1.5)
        ((0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0), [3, 3, 0, 0]),
    ],
)
def test_rule_custom_points_table(points, score2):
    plays, _, collected = RULING_ROUNDS["high_cards_tied_sixes"]
    env, _ = run_round(4, plays, points=points)
    s = env.state_dict()
    assert s["score2"] == score2
    assert s["scores"] == [x / 2 for x in score2]
    assert s["cards_collected"] == collected


def test_rule_half_points_are_exact():
    """Half of 7 points (a tied 6) is 3.5: scores keep the half exactly."""
    plays, score2, _ = RULING_ROUNDS["high_cards_tied_sixes"]
    env, _ = run_round(4, plays)
    s = env.state_dict()
    assert s["scores"][:2] == [5.5, 6.5]
    obs = env.observe("player_0")["observation"]
    scores_at = 84 * 7
    # seat 0: 2 points under the whole coconut, 3.5 under the half coconut
    assert obs[scores_at : scores_at + 3].tolist() == [2.0, 3.5, 2.0]


@pytest.mark.parametrize(
    "points",
    [(1,) * 11, (1,) * 13, (-1,) + (2,) * 11, (1.5,) * 12, 12, (10**15,) * 12, (10_001,) * 12],
)
def test_bad_points_table_raises(points):
    with pytest.raises(ValueError, match=r"points.*0\.\.10000"):
        make_env(3, points=points)


def test_rule_largest_points_values_keep_exact_scores():
    """At the top of the allowed range one point still decides: the 12 (10,000) against the
    10 (9,999), the tied 6s half of 9,999 each; scores and the float keys stay exact."""
    points = (0,) * 5 + (9_999,) + (0,) * 3 + (9_999,) + (0,) + (10_000,)
    plays, _, _ = RULING_ROUNDS["high_cards_tied_sixes"]
    env, _ = run_round(4, plays, points=points)
    assert env.state_dict()["score2"][:2] == [2 * 10_000 + 9_999, 2 * 9_999 + 9_999]
    scores, wins = np.zeros(4), np.zeros(4)
    k.outcome(env._row, scores, wins)
    assert scores.tolist()[:2] == [14_999.5, 14_998.5] and wins.tolist() == [1, 0, 0, 0]
    obs = env.observe("player_0")["observation"]
    assert obs[84 * 7 : 84 * 7 + 2].tolist() == [10_000.0, 4_999.5]


# --- every displayed card leaves play ----------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_rule_every_displayed_card_leaves_play(num_players):
    env = make_env(num_players)
    env.reset(seed=40 + num_players)
    ref = ref_from_env(env)
    rng = random.Random(num_players)
    while not ref.done:
        step_both(env, ref, random_action(mask_of(env, ref.player), rng))
        if ref.play_in_round == 0:  # a round just ended
            s = check_state(env, ref)
            result = ref.results[-1]
            shown = [[c, v] for c, v, _ in result.display]
            assert s["display"] == []
            assert all(c in s["out_of_play"] for c in shown)
            assert not any(c in h for c in shown for h in s["hands"])
            assert not any(c in s["draw_pile"] for c in shown)
            scored = len(result.showdown.full) + len(result.showdown.half)
            assert 0 < scored <= len(shown)
    s = env.state_dict()
    assert len(s["out_of_play"]) == sum(len(r.display) for r in ref.results)


# --- the end: ranking, tie-breakers, rewards ---------------------------------------------------


def _last_round_of_four(full_points, half2, collected, reward="win"):
    """4 players in the last round (round 7: seat 3 starts, the pile is empty). The round:
    four 7s, one from each seat (6 points each, full) and four cards that score nothing."""
    plays = [(0, 7), (1, 7), (2, 7), (3, 7), (4, 1), (5, 3), (6, 9), (4, 11)]
    rng = random.Random(0)
    rest = [c for c in ALL_CARDS if c not in plays]
    rng.shuffle(rest)
    hands = []
    for q in range(4):
        own = [plays[j] for j in range(8) if (3 + j) % 4 == q]
        hands.append(own + rest[:5])
        rest = rest[5:]
    env = make_env(4, reward=reward)
    env.reset(seed=0)
    ref = write_situation(
        env,
        hands=hands,
        draw_pile=[],
        removed=[],
        out_of_play=rest,
        round=7,
        full_points=full_points,
        half2=half2,
        collected=collected,
    )
    check_state(env, ref)
    check_observations(env, ref)
    assert env.agent_selection == "player_3"
    play_round(env, ref, plays)
    assert ref.done and env.state_dict()["done"]
    check_observations(env, ref)
    return env, ref


def test_rule_tie_break_by_cards_collected():
    # before: seat 0 20 pts / 5 cards; seat 1 19 + a half card's 1 = 20 pts / 4 cards;
    # seat 2 19 pts / 12 cards; seat 3 nothing. Each gets 6 points and 1 card.
    env, ref = _last_round_of_four([20, 19, 19, 0], [0, 2, 0, 0], [5, 4, 12, 0])
    scores = [env.infos[a]["score"] for a in env.possible_agents]
    assert scores == [26.0, 26.0, 25.0, 6.0]
    assert env.state_dict()["cards_collected"] == [6, 5, 13, 1]
    wins = [env.infos[a]["win"] for a in env.possible_agents]
    assert wins == [1.0, 0.0, 0.0, 0.0]  # the most cards (seat 2) does not beat more points
    assert ref.winners() == [0]
    assert last_rewards(env) == {"player_0": 1.0, "player_1": 0.0, "player_2": 0.0, "player_3": 0.0}


def test_rule_all_tied_share_the_win():
    env, ref = _last_round_of_four([20, 19, 20, 0], [0, 2, 0, 0], [5, 5, 5, 0])
    assert [env.infos[a]["score"] for a in env.possible_agents] == [26.0, 26.0, 26.0, 6.0]
    wins = [env.infos[a]["win"] for a in env.possible_agents]
    assert wins == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0.0])
    assert ref.winners() == [0, 1, 2]
    rewards = last_rewards(env)
    assert [rewards[a] for a in env.possible_agents] == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0])


def test_rule_most_points_wins_before_cards():
    # half a point ahead beats nine more cards
    env, _ = _last_round_of_four([20, 20, 0, 0], [1, 0, 0, 0], [1, 10, 0, 0])
    assert [env.infos[a]["score"] for a in env.possible_agents] == [26.5, 26.0, 6.0, 6.0]
    assert [env.infos[a]["win"] for a in env.possible_agents] == [1.0, 0.0, 0.0, 0.0]


def test_rule_rewards_score_mode_gives_final_points():
    env, _ = _last_round_of_four([20, 19, 19, 0], [1, 2, 0, 0], [5, 4, 12, 0], reward="score")
    expected = {"player_0": 26.5, "player_1": 26.0, "player_2": 25.0, "player_3": 6.0}
    assert [env.infos[a]["win"] for a in env.possible_agents] == [1.0, 0.0, 0.0, 0.0]
    assert last_rewards(env) == expected


@pytest.mark.parametrize("reward", ["win", "score"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_rule_rewards_only_at_the_end(num_players, reward):
    env = make_env(num_players, reward=reward)
    env.reset(seed=50 + num_players)
    ref = ref_from_env(env)
    rng = random.Random(num_players)
    while not ref.done:
        step_both(env, ref, random_action(mask_of(env, ref.player), rng))
        if not ref.done:
            assert all(r == 0.0 for r in env.rewards.values())
            assert not any(env.terminations.values())
    expected = ref.rewards(reward)
    assert [env.rewards[a] for a in env.possible_agents] == pytest.approx(expected)
    for q, agent in enumerate(env.possible_agents):
        assert env.infos[agent]["score"] == ref.scores()[q]
        assert env.infos[agent]["win"] == pytest.approx(ref.wins()[q])
    assert sum(ref.wins()) == pytest.approx(1.0)
    got = last_rewards(env)
    assert [got[a] for a in env.possible_agents] == pytest.approx(expected)
