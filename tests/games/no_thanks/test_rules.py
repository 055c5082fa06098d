"""Hand-made No Thanks! situations: the rule texts' own examples first, then each rule."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs import positions
from card_envs.core.loading import game_fields
from card_envs.games.no_thanks import score
from tests.games.no_thanks.helpers import (
    NO_THANKS,
    PLAYER_COUNTS,
    TAKE,
    make_env,
    mask_of,
    obs_of,
    ref_from_env,
    ref_situation,
    total_tokens,
    write_situation,
)
from tests.games.no_thanks.reference import ref_score
from tests.helpers_aec import last_rewards

EXPECTED_TOKENS = {3: 11, 4: 11, 5: 11, 6: 9, 7: 7}  # the rule text's table
OBS_POT, OBS_OWN_TOKENS = 33, 34


# --- scoring: the rule texts' examples --------------------------------------------------


def test_rule_text_examples():
    # rule text: 11, 12, 15, 16, 17, 20 -> only 11, 15 and 20 count
    assert score([11, 12, 15, 16, 17, 20], 0) == 11 + 15 + 20
    assert score([20, 16, 11, 17, 15, 12], 0) == 11 + 15 + 20  # order does not matter
    # RULINGS: 3, 10-13, 20 with 5 tokens scores 28
    assert score([3, 10, 11, 12, 13, 20], 5) == 28


@pytest.mark.parametrize(
    ("cards", "tokens", "expected"),
    [
        ([], 0, 0),
        ([], 11, -11),
        ([35], 0, 35),
        ([3], 3, 0),
        (list(range(3, 36)), 0, 3),  # one run of all 33 cards
        (list(range(3, 36, 2)), 0, sum(range(3, 36, 2))),  # no two consecutive
        ([34, 35, 3, 4, 5], 2, 3 + 34 - 2),
        ([10, 12, 14, 13, 11], 4, 10 - 4),
    ],
)
def test_score_hands(cards, tokens, expected):
    assert score(cards, tokens) == expected
    assert ref_score(cards, tokens) == expected  # the oracle agrees with the hand count


def test_score_accepts_numpy_ints_and_returns_int():
    result = score(np.array([5, 6, 9]), np.int64(1))
    assert result == 5 + 9 - 1
    assert type(result) is int


@pytest.mark.parametrize(
    ("cards", "tokens"),
    [
        ([2], 0),  # below the lowest card
        ([36], 0),  # above the highest card
        ([0], 0),
        ([-5], 0),
        ([5, 5], 0),  # duplicate
        ([3.0], 0),  # not an int
        (["7"], 0),
        ([None], 0),
        ([5], -1),  # negative tokens
        ([5], 1.5),
        ([5], "3"),
        ([5], None),
        ([5], True),  # a bool is not a token count
        ([True, 5], 0),
    ],
)
def test_score_rejects_bad_input(cards, tokens):
    with pytest.raises(ValueError):
        score(cards, tokens)


# --- setup --------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_starting_tokens(num_players):
    env = make_env(num_players)
    env.reset(seed=num_players)
    s = env.state_dict()
    assert s["tokens"] == [EXPECTED_TOKENS[num_players]] * num_players
    assert s["pot"] == 0
    assert s["cards"] == [[] for _ in range(num_players)]
    for seat in range(num_players):
        assert obs_of(env, seat)[OBS_OWN_TOKENS] == EXPECTED_TOKENS[num_players]
        assert obs_of(env, seat)[OBS_POT] == 0


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.parametrize("seed", [0, 1, 2, 12345, -7, 2**62])
def test_deck_composition(num_players, seed):
    env = make_env(num_players)
    env.reset(seed=seed)
    s = env.state_dict()
    played = [s["current_card"], *s["deck"]]
    assert len(played) == 24
    assert len(s["removed"]) == 9
    assert sorted(played + s["removed"]) == list(range(3, 36))
    assert not s["done"]


def test_removed_cards_and_first_card_are_spread_over_the_deck():
    env = make_env(3)
    removed = np.zeros(36, dtype=int)
    first = np.zeros(36, dtype=int)
    env.reset(seed=0)
    for _ in range(330):
        s = env.state_dict()
        removed[s["removed"]] += 1
        first[s["current_card"]] += 1
        env.reset()
    # each card is removed with probability 9/33 (about 90 of 330 deals) and turned up
    # first with probability 1/33 (about 10): loose bounds, many standard deviations wide
    assert removed[:3].sum() == first[:3].sum() == 0
    assert removed[3:].min() >= 45 and removed[3:].max() <= 135
    assert first[3:].max() <= 30 and (first[3:] > 0).sum() >= 28


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_seat_zero_starts(num_players):
    env = make_env(num_players)
    env.reset(seed=3)
    for game in range(4):
        assert env.agent_selection == "player_0"
        assert env.state_dict()["current_player"] == 0
        # play the game out with seat 0 passing once then everyone taking
        first = True
        for _agent in env.agent_iter():
            obs, _, term, _, _ = env.last()
            if term:
                env.step(None)
                continue
            env.step(NO_THANKS if first else TAKE)
            first = False
        if game % 2:
            env.reset()
        else:
            env.reset(seed=game)


def test_no_thanks_moves_token_and_passes():
    env = make_env(4)
    env.reset(seed=11)
    start = env.state_dict()
    card = start["current_card"]
    for step in range(1, 6):  # wraps from the last seat back to seat 0
        seat = (step - 1) % 4
        before = env.state_dict()
        assert env.agent_selection == f"player_{seat}"
        env.step(NO_THANKS)
        after = env.state_dict()
        assert after["tokens"][seat] == before["tokens"][seat] - 1
        assert after["pot"] == before["pot"] + 1 == step
        assert after["current_player"] == (seat + 1) % 4
        assert env.agent_selection == f"player_{(seat + 1) % 4}"
        assert after["current_card"] == card  # the card stays on offer
        assert after["deck"] == start["deck"]
        assert after["cards"] == before["cards"]
        assert after["tokens"][:seat] + after["tokens"][seat + 1 :] == (
            before["tokens"][:seat] + before["tokens"][seat + 1 :]
        )
        assert obs_of(env, seat)[OBS_POT] == step
        assert obs_of(env, seat)[OBS_OWN_TOKENS] == after["tokens"][seat]


def test_take_gives_pot_and_acts_again():
    env = make_env(3)
    env.reset(seed=5)
    start = env.state_dict()
    env.step(NO_THANKS)  # seat 0
    env.step(NO_THANKS)  # seat 1
    assert env.agent_selection == "player_2"
    env.step(TAKE)  # seat 2 takes the card and the 2 tokens
    s = env.state_dict()
    assert s["cards"] == [[], [], [start["current_card"]]]
    assert s["tokens"] == [10, 10, 13]
    assert s["pot"] == 0
    assert s["current_player"] == 2
    assert env.agent_selection == "player_2"
    assert s["current_card"] == start["deck"][0]
    assert s["deck"] == start["deck"][1:]
    assert not any(env.terminations.values())
    # and seat 2 may take again at once
    env.step(TAKE)
    s = env.state_dict()
    assert s["cards"][2] == sorted([start["current_card"], start["deck"][0]])
    assert s["tokens"] == [10, 10, 13]
    assert s["current_card"] == start["deck"][1]
    assert env.agent_selection == "player_2"


def test_taking_with_an_empty_pot_gives_no_tokens():
    env = make_env(5)
    env.reset(seed=8)
    first = env.state_dict()["current_card"]
    env.step(TAKE)
    s = env.state_dict()
    assert s["tokens"] == [11] * 5
    assert s["cards"][0] == [first]
    assert s["current_player"] == 0


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_no_tokens_must_take(num_players):
    env = make_env(num_players)
    env.reset(seed=21)
    t = EXPECTED_TOKENS[num_players]
    card = env.state_dict()["current_card"]
    # everyone passes until every seat is out of tokens
    for i in range(num_players * t):
        seat = i % num_players
        assert env.agent_selection == f"player_{seat}"
        assert mask_of(env, seat).tolist() == [1, 1]
        env.step(NO_THANKS)
    s = env.state_dict()
    assert s["tokens"] == [0] * num_players
    assert s["pot"] == total_tokens(num_players)
    assert s["current_card"] == card
    assert env.agent_selection == "player_0"
    assert mask_of(env, 0).tolist() == [1, 0]
    with pytest.raises(ValueError):
        env.step(NO_THANKS)
    assert env.state_dict() == s  # the refused action changed nothing
    # the forced take collects the whole pot: seat 0 now holds every token and may pass
    env.step(TAKE)
    s = env.state_dict()
    assert s["tokens"] == [total_tokens(num_players)] + [0] * (num_players - 1)
    assert mask_of(env, 0).tolist() == [1, 1]
    env.step(NO_THANKS)
    assert mask_of(env, 1).tolist() == [1, 0]  # seat 1 has nothing: it must take


def test_only_the_seat_to_act_has_a_non_empty_mask():
    env = make_env(5)
    env.reset(seed=2)
    env.step(NO_THANKS)
    env.step(NO_THANKS)
    for seat in range(5):
        expected = [1, 1] if seat == 2 else [0, 0]
        assert mask_of(env, seat).tolist() == expected


# --- the end of the game ------------------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_game_ends_when_the_24th_card_is_taken(num_players):
    env = make_env(num_players)
    env.reset(seed=num_players * 7)
    ref = ref_from_env(env)
    takes = 0
    # pass while the pot is small (and tokens allow), then take
    while not env.state_dict()["done"]:
        assert not any(env.terminations.values())
        legal = ref.legal_actions()
        action = NO_THANKS if ref.pot < num_players - 1 and NO_THANKS in legal else TAKE
        env.step(action)
        ref.step(action)
        takes += action == TAKE
        assert env.state_dict()["done"] == (takes == 24)
    assert takes == 24
    s = env.state_dict()
    assert s["current_card"] is None and s["deck"] == []
    assert game_fields(s) == ref.state()
    assert all(env.terminations.values()) and len(env.terminations) == num_players
    assert not any(env.truncations.values())
    for seat, agent in enumerate(env.possible_agents):
        assert env.infos[agent]["score"] == ref.scores()[seat]
        assert mask_of(env, seat).tolist() == [0, 0]
        assert obs_of(env, seat)[:33].sum() == 0  # no card on offer
        assert obs_of(env, seat)[-1] == 0  # no card to come


def test_last_card_on_offer_ends_the_game_on_take_not_on_pass():
    env = make_env(3)
    env.reset(seed=0)
    s = env.state_dict()
    order = [s["current_card"], *s["deck"]]
    situation = dict(
        draw_order=order,
        removed=s["removed"],
        turned=24,
        pot=0,
        tokens=[11, 11, 11],
        cards=[order[0:8], order[8:16], order[16:23]],
        player=0,
    )
    write_situation(env, **situation)
    assert env.state_dict()["deck"] == []
    env.step(NO_THANKS)
    env.step(NO_THANKS)
    assert not env.state_dict()["done"]
    env.step(TAKE)  # seat 2 takes the last card with 2 tokens on it
    s = env.state_dict()
    assert s["done"]
    assert s["cards"][2] == sorted(order[16:24])
    assert s["tokens"] == [10, 10, 13]
    expected = [
        ref_score(order[0:8], 10),
        ref_score(order[8:16], 10),
        ref_score(order[16:24], 13),
    ]
    assert s["scores"] == expected
    assert [env.infos[a]["score"] for a in env.possible_agents] == expected


def _tie_situation():
    # 3 players, the last card (3) is on offer to seat 0, which holds 4 and 1 token:
    # seat 0: {3, 4} - 1 = 2; seat 1: {10} - 8 = 2; seat 2: {35} - 0 = 35.
    removed = [5, 6, 7, 8, 9, 11, 12, 13, 14]
    others = [c for c in range(3, 36) if c not in removed and c not in (3, 4, 10, 35)]
    order = [4, 10, 35, *others, 3]
    return dict(
        draw_order=order,
        removed=removed,
        turned=24,
        pot=0,
        tokens=[1, 8, 0],
        cards=[[4], [10], [35, *others]],
        player=0,
    )


def test_tied_winners_share():
    situation = _tie_situation()
    env = make_env(3)
    env.reset(seed=0)
    write_situation(env, **situation)
    env.step(TAKE)
    ref = ref_situation(3, **situation)
    ref.step(TAKE)
    scores = [env.infos[a]["score"] for a in env.possible_agents]
    assert scores == ref.scores()
    assert scores[0] == 3 - 1 and scores[1] == 10 - 8
    assert scores[2] > 2
    assert ref.winners() == [0, 1]
    rewards = last_rewards(env)
    assert rewards == {"player_0": 0.5, "player_1": 0.5, "player_2": 0.0}
    assert env.agents == []


def test_from_tied_winners_the_forced_take_ends_with_two_winners_sharing():
    env = positions.load("no_thanks/tied-winners").make_env()
    assert mask_of(env, 0).tolist() == [1, 0]  # no tokens: must take
    env.step(TAKE)  # the last card: the game ends
    scores = [env.infos[a]["score"] for a in env.possible_agents]
    assert scores == [20 + 22 + 24 + 35 - 2, 12 + 21 - 8, 23 + 25 - 23]
    assert [env.infos[a]["win"] for a in env.possible_agents] == [0.0, 0.5, 0.5]
    assert last_rewards(env) == {"player_0": 0.0, "player_1": 0.5, "player_2": 0.5}


def test_from_last_token_the_last_token_may_be_placed_and_then_the_card_must_be_taken():
    env = positions.load("no_thanks/last-token").make_env()
    assert mask_of(env, 0).tolist() == [1, 1]  # one token: either
    env.step(NO_THANKS)
    env.step(NO_THANKS)
    env.step(NO_THANKS)
    state = env.state_dict()
    assert state["tokens"] == [0, 14, 14] and state["pot"] == 5 and state["current_card"] == 30
    assert env.agent_selection == "player_0" and mask_of(env, 0).tolist() == [1, 0]


def test_from_bridge_two_runs_taking_the_gap_card_counts_one_series():
    env = positions.load("no_thanks/bridge-two-runs").make_env()
    assert env.state_dict()["scores"][0] == 20 + 22 - 9  # two series before
    env.step(TAKE)
    state = env.state_dict()
    assert state["cards"][0] == [20, 21, 22] and state["tokens"][0] == 9 + 3
    assert state["scores"][0] == 20 - 12  # one series 20-22: only 20 counts
    assert env.agent_selection == "player_0" and state["current_card"] == 3  # goes again


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_seat_zero_takes_everything_the_others_tie(num_players):
    # seat 0 takes all 24 cards: everyone else keeps the starting tokens and ties for
    # the lowest score, so the other num_players - 1 seats share the win
    env = make_env(num_players)
    env.reset(seed=99)
    ref = ref_from_env(env)
    for _ in range(24):
        assert env.agent_selection == "player_0"
        env.step(TAKE)
        ref.step(TAKE)
    assert env.state_dict()["done"]
    t = EXPECTED_TOKENS[num_players]
    expected_scores = [ref_score(ref.draw_order, t)] + [-t] * (num_players - 1)
    assert [env.infos[a]["score"] for a in env.possible_agents] == expected_scores
    rewards = last_rewards(env)
    share = 1.0 / (num_players - 1)
    assert rewards["player_0"] == 0.0
    for agent in env.possible_agents[1:]:
        assert rewards[agent] == pytest.approx(share)
    assert sum(rewards.values()) == pytest.approx(1.0)


def test_single_winner_gets_one():
    env = make_env(3)
    env.reset(seed=4)
    # seat 0 passes, seat 1 takes everything: seat 0 has 10 tokens, seat 2 has 11
    env.step(NO_THANKS)
    for _ in range(24):
        env.step(TAKE)
    scores = [env.infos[a]["score"] for a in env.possible_agents]
    assert scores[0] == -10 and scores[2] == -11
    rewards = last_rewards(env)
    assert rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 1.0}


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_score_reward(num_players):
    env = make_env(num_players, reward="score")
    env.reset(seed=31)
    ref = ref_from_env(env)
    # seat k passes k times on each card it sees then takes: varied hands and tokens
    passes = 0
    while not ref.done:
        seat = ref.player
        legal = ref.legal_actions()
        action = NO_THANKS if passes < seat and NO_THANKS in legal else TAKE
        passes = 0 if action == TAKE else passes + 1
        env.step(action)
        ref.step(action)
        if not ref.done:
            assert all(r == 0.0 for r in env.rewards.values())
    expected = {a: -float(s) for a, s in zip(env.possible_agents, ref.scores(), strict=True)}
    assert [env.infos[a]["score"] for a in env.possible_agents] == ref.scores()
    assert last_rewards(env) == expected


def test_reward_score_on_the_tie_situation():
    situation = _tie_situation()
    env = make_env(3, reward="score")
    env.reset(seed=0)
    write_situation(env, **situation)
    env.step(TAKE)
    ref = ref_situation(3, **situation)
    ref.step(TAKE)
    assert last_rewards(env) == {
        a: -float(s) for a, s in zip(env.possible_agents, ref.scores(), strict=True)
    }
