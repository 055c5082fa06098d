"""Property tests: random deals and random legal play, checked against the reference game."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from card_envs.core.loading import game_fields
from card_envs.games.no_thanks import score
from tests.games.no_thanks.helpers import (
    NO_THANKS,
    PLAYER_COUNTS,
    TAKE,
    make_env,
    pick_action,
    ref_from_env,
    total_tokens,
)
from tests.games.no_thanks.reference import ref_score
from tests.helpers_aec import last_rewards

ALL_CARDS = list(range(3, 36))
SEEDS = st.integers(min_value=-(2**63), max_value=2**64)


def check_conservation(s: dict) -> None:
    n = s["num_players"]
    assert sum(s["tokens"]) + s["pot"] == total_tokens(n)
    assert min(s["tokens"]) >= 0 and s["pot"] >= 0
    held = [c for hand in s["cards"] for c in hand]
    current = [] if s["current_card"] is None else [s["current_card"]]
    everything = held + s["deck"] + current + s["removed"]
    assert len(everything) == len(set(everything)) == 33
    assert sorted(everything) == ALL_CARDS
    assert len(s["removed"]) == 9


def play_and_check(env, ref, rng: random.Random, p_take: float, public_tokens: bool, reward):
    """Play one game to the end, checking the env against the reference at every step.
    Returns the number of takes."""
    n = env.num_agents
    space = env.observation_space("player_0")
    takes = 0
    while not ref.done:
        s = env.state_dict()
        assert game_fields(s) == ref.state()
        check_conservation(s)
        seat = ref.player
        assert env.agent_selection == f"player_{seat}"
        for q, agent in enumerate(env.possible_agents):
            o = env.observe(agent)
            assert space.contains(o), (agent, o)
            np.testing.assert_array_equal(
                o["observation"], np.array(ref.observation(q, public_tokens), np.float32)
            )
            expected_mask = [int(a in ref.legal_actions()) for a in (TAKE, NO_THANKS)]
            assert o["action_mask"].tolist() == (expected_mask if q == seat else [0, 0])
        action = pick_action(env.observe(env.agent_selection)["action_mask"], rng, p_take)
        env.step(action)
        ref.step(action)
        takes += action == TAKE
        if not ref.done:
            assert all(r == 0.0 for r in env.rewards.values())
            assert not any(env.terminations.values())
    s = env.state_dict()
    assert game_fields(s) == ref.state()
    check_conservation(s)
    assert s["done"] and takes == 24
    assert all(env.terminations.values()) and not any(env.truncations.values())
    for q, agent in enumerate(env.possible_agents):
        o = env.observe(agent)
        assert space.contains(o)
        np.testing.assert_array_equal(
            o["observation"], np.array(ref.observation(q, public_tokens), np.float32)
        )
        assert env.infos[agent]["score"] == ref.scores()[q]
    expected = ref.rewards(reward)
    assert [env.rewards[a] for a in env.possible_agents] == pytest.approx(expected)
    # rewards as last() hands them out, dead steps included
    got = last_rewards(env)
    assert got == pytest.approx(dict(zip(env.possible_agents, expected, strict=True)))
    assert env.agents == []
    if reward == "win":
        winners = [q for q in range(n) if expected[q] > 0]
        assert winners == ref.winners()
        assert sum(got.values()) == pytest.approx(1.0)
    return takes


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@settings(max_examples=25, deadline=None)
@given(
    seed=SEEDS,
    play_seed=st.integers(0, 2**32 - 1),
    p_take=st.floats(0.02, 0.98),
    public_tokens=st.booleans(),
    reward=st.sampled_from(["win", "score"]),
)
def test_random_games_match_the_reference(
    num_players, seed, play_seed, p_take, public_tokens, reward
):
    env = make_env(num_players, public_tokens=public_tokens, reward=reward)
    env.reset(seed=seed)
    ref = ref_from_env(env)
    assert ref.state() == game_fields(env.state_dict())
    rng = random.Random(play_seed)
    assert play_and_check(env, ref, rng, p_take, public_tokens, reward) == 24


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, play_seed=st.integers(0, 2**32 - 1), p_take=st.floats(0.05, 0.95))
def test_consecutive_games_without_reseeding(num_players, seed, play_seed, p_take):
    """reset() without a seed deals a fresh, valid game each time (same env, own stream)."""
    env = make_env(num_players)
    env.reset(seed=seed)
    rng = random.Random(play_seed)
    deals = []
    for _ in range(3):
        ref = ref_from_env(env)
        deals.append((tuple(ref.draw_order), tuple(ref.removed)))
        play_and_check(env, ref, rng, p_take, False, "win")
        env.reset()
    assert len(set(deals)) == 3


@settings(max_examples=300, deadline=None)
@given(
    cards=st.sets(st.integers(3, 35)).map(sorted).flatmap(st.permutations),
    tokens=st.integers(0, 77),
)
def test_score_function_matches_reference(cards, tokens):
    assert score(cards, tokens) == ref_score(cards, tokens)


@settings(max_examples=200, deadline=None)
@given(cards=st.sets(st.integers(3, 35), min_size=1), tokens=st.integers(0, 77))
def test_score_properties(cards, tokens):
    s = score(cards, tokens)
    # at most the sum of all cards, at least the lowest card, minus tokens
    assert min(cards) - tokens <= s <= sum(cards) - tokens
    # adding the card just above the highest one never changes the score
    top = max(cards)
    if top < 35:
        assert score([*cards, top + 1], tokens) == s
    # adding a card two below the lowest (not adjacent) adds exactly that card
    low = min(cards)
    if low - 2 >= 3:
        assert score([*cards, low - 2], tokens) == s + low - 2
    # one more token is one point less
    assert score(cards, tokens + 1) == s - 1


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@settings(max_examples=10, deadline=None)
@given(seed=SEEDS)
def test_stingy_play_only_takes_when_forced(num_players, seed):
    """Seats that pass whenever they may: every take is forced (0 tokens), and the game
    still ends after exactly 24 takes."""
    env = make_env(num_players)
    env.reset(seed=seed)
    ref = ref_from_env(env)
    takes = 0
    while not ref.done:
        mask = env.observe(env.agent_selection)["action_mask"]
        if mask[NO_THANKS]:
            action = NO_THANKS
        else:
            assert ref.tokens[ref.player] == 0
            action = TAKE
        env.step(action)
        ref.step(action)
        takes += action == TAKE
        assert game_fields(env.state_dict()) == ref.state()
    assert takes == 24
    assert [env.infos[a]["score"] for a in env.possible_agents] == ref.scores()
