"""Property tests: random deals and random (or greedy) legal play, checked step by step
against the reference game (state, every seat's observation and mask, scores, rewards)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from card_envs.games.surfosaurus.spec import MAX_POINTS
from tests.games.surfosaurus.helpers import (
    PLAYER_COUNTS,
    check_observations,
    check_state,
    make_env,
    ref_from_env,
    step_both,
)
from tests.games.surfosaurus.reference import (
    ALL_CARDS,
    REMOVED,
    card_id,
    plays_per_round,
    total_rounds,
)
from tests.helpers_aec import last_rewards

SEEDS = st.integers(min_value=-(2**63), max_value=2**64)
POLICIES = ("random", "lowest_points", "highest_points", "heuristic")


def check_conservation(s: dict) -> None:
    """hands + draw pile + removed + display + out of play = all 84 cards, once each."""
    n = s["num_players"]
    everything = [tuple(c) for h in s["hands"] for c in h]
    everything += [tuple(c) for c in s["draw_pile"] + s["removed"] + s["out_of_play"]]
    everything += [tuple(d[:2]) for d in s["display"]]
    assert len(everything) == len(set(everything)) == 84
    assert sorted(everything) == list(ALL_CARDS)
    assert len(s["removed"]) == REMOVED[n]
    assert all(d[2] in range(-1, n) for d in s["display"])
    assert all(d[2] >= 0 for d in s["display"]) or n == 2  # dummies only with 2 players
    assert s["scores"] == [x / 2 for x in s["score2"]]
    assert all(len(h) <= 7 for h in s["hands"])


def choose(env, ref, rng: random.Random, policy: str) -> int:
    legal = ref.legal_actions()
    if policy == "random" or rng.random() < 0.2:
        return rng.choice(legal)
    points = env.game.config["points"]
    if policy == "lowest_points":
        return min(legal, key=lambda a: (points[a % 12], a))
    if policy == "highest_points":
        return max(legal, key=lambda a: (points[a % 12], a))
    o = env.observe(env.agent_selection)
    return int(env.game.heuristic_actions(o["observation"][None], o["action_mask"][None])[0])


def play_and_check(env, ref, rng: random.Random, policy: str, reward: str) -> int:
    """Play one game to the end, checking the env against the reference at every step.
    Returns the number of steps."""
    n = env.num_agents
    steps = 0
    while not ref.done:
        s = check_state(env, ref)
        check_conservation(s)
        check_observations(env, ref)
        assert env.agent_selection == f"player_{ref.player}"
        before = s
        step_both(env, ref, choose(env, ref, rng, policy))
        steps += 1
        if ref.play_in_round == 0:  # the round just ended: check the round as a whole
            after = env.state_dict()
            result = ref.results[-1]
            shown = [(c, v) for c, v, _ in result.display]
            assert len(shown) == n * (3 if n <= 3 else 2) + (2 if n == 2 else 0)
            # every displayed card is scored or removed: all leave play
            assert after["display"] == []
            assert {card_id(c) for c in shown} <= {card_id(tuple(c)) for c in after["out_of_play"]}
            scored = [result.display[i][2] for i in result.showdown.full + result.showdown.half]
            gained_cards = [
                a - b
                for a, b in zip(after["cards_collected"], before["cards_collected"], strict=True)
            ]
            assert gained_cards == [scored.count(q) for q in range(n)]
            gained2 = [a - b for a, b in zip(after["score2"], before["score2"], strict=True)]
            assert gained2 == list(result.gained2)
            assert min(gained2) >= 0
        if not ref.done:
            assert all(r == 0.0 for r in env.rewards.values())
            assert not any(env.terminations.values())
    s = check_state(env, ref)
    check_conservation(s)
    check_observations(env, ref)
    assert s["done"] and s["draw_pile"] == []
    assert steps == total_rounds(n) * plays_per_round(n)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    for q, agent in enumerate(env.possible_agents):
        assert env.infos[agent]["score"] == ref.scores()[q]
        assert env.infos[agent]["win"] == pytest.approx(ref.wins()[q])
    expected = ref.rewards(reward)
    assert [env.rewards[a] for a in env.possible_agents] == pytest.approx(expected)
    got = last_rewards(env)
    assert got == pytest.approx(dict(zip(env.possible_agents, expected, strict=True)))
    assert env.agents == []
    return steps


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@settings(max_examples=25, deadline=None)
@given(
    seed=SEEDS,
    play_seed=st.integers(0, 2**32 - 1),
    policy=st.sampled_from(POLICIES),
    reward=st.sampled_from(["win", "score"]),
)
def test_random_games_match_the_reference(num_players, seed, play_seed, policy, reward):
    env = make_env(num_players, reward=reward)
    env.reset(seed=seed)
    ref = ref_from_env(env)
    rng = random.Random(play_seed)
    play_and_check(env, ref, rng, policy, reward)


@pytest.mark.parametrize("num_players", [2, 4, 6])
@settings(max_examples=8, deadline=None)
@given(
    seed=SEEDS,
    play_seed=st.integers(0, 2**32 - 1),
    points=st.lists(
        st.one_of(st.integers(0, 20), st.integers(0, MAX_POINTS)), min_size=12, max_size=12
    ).map(tuple),
)
def test_random_games_with_a_custom_points_table(num_players, seed, play_seed, points):
    env = make_env(num_players, points=points, reward="score")
    env.reset(seed=seed)
    ref = ref_from_env(env)
    assert ref.points == points
    play_and_check(env, ref, random.Random(play_seed), "random", "score")


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@settings(max_examples=3, deadline=None)
@given(seed=SEEDS, play_seed=st.integers(0, 2**32 - 1))
def test_consecutive_games_without_reseeding(num_players, seed, play_seed):
    """reset() without a seed deals a fresh, valid game each time (same env, own stream)."""
    env = make_env(num_players)
    env.reset(seed=seed)
    rng = random.Random(play_seed)
    deals = []
    for game in range(3):
        ref = ref_from_env(env)
        deals.append((str(ref.hands), str(ref.draw_pile)))
        play_and_check(env, ref, rng, POLICIES[game], "win")
        env.reset()
    assert len(set(deals)) == 3


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_scores_are_bounded_by_the_cards_played(num_players):
    """Over many seeded games (heuristic play): a seat never scores more than the points of
    the cards it played, and scores only the cards it played."""
    env = make_env(num_players)
    rng = random.Random(num_players)
    for seed in range(3):
        env.reset(seed=1000 + seed)
        ref = ref_from_env(env)
        while not ref.done:
            step_both(env, ref, choose(env, ref, rng, "heuristic"))
        s = env.state_dict()
        points = env.game.config["points"]
        for q in range(num_players):
            played = [a for seat, a in ref.history if seat == q]
            assert s["score2"][q] <= 2 * sum(points[a % 12] for a in played)
            assert s["cards_collected"][q] <= len(played)
        # every round at least K cards score (full or half); with 2 players up to two of
        # them may be dummy cards, which nobody collects
        k = 4 if num_players <= 4 else 5
        per_round = k - 2 if num_players == 2 else k
        assert sum(s["cards_collected"]) >= total_rounds(num_players) * per_round


def test_observation_bounds_hold_over_heuristic_games():
    for n in PLAYER_COUNTS:
        env = make_env(n)
        space = env.observation_space("player_0")["observation"]
        env.reset(seed=n)
        steps = 0
        while env.agents:
            o, _, term, _, _ = env.last()
            assert space.contains(o["observation"])
            if term:
                env.step(None)
                continue
            action = env.game.heuristic_actions(o["observation"][None], o["action_mask"][None])
            env.step(int(action[0]))
            steps += 1
        assert steps == total_rounds(n) * plays_per_round(n)
