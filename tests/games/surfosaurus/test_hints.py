"""The `hints` option of Surfosaurus MAX: 84 observation slots after the plain ones giving,
for each card in hand, what the seat would score if the round ended with that card added to
the display. Checked against the brute-force showdown of the reference."""

from __future__ import annotations

import random

import numpy as np
import pytest

from card_envs.agents import make_agent
from card_envs.games.surfosaurus import engine as k
from tests.games.surfosaurus.helpers import PLAYER_COUNTS, make_env, obs_of, random_action
from tests.games.surfosaurus.reference import DEFAULT_POINTS, NUM_CARDS, brute_showdown, card_id


def expected_hints(state: dict, seat: int, points=DEFAULT_POINTS) -> np.ndarray:
    size = state["k"]
    display = [((c, v), s) for c, v, s in state["display"]]
    out = np.zeros(NUM_CARDS)
    for card in state["hands"][seat]:
        table = [c for c, _ in display] + [tuple(card)]
        mine = [s == seat for _, s in display] + [True]
        if len(table) < size:
            continue
        show = brute_showdown(table, size)
        gain = sum(points[table[i][1] - 1] for i in show.full if mine[i])
        gain += sum(points[table[i][1] - 1] / 2 for i in show.half if mine[i])
        out[card_id(tuple(card))] = gain
    return out


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_hints_are_the_points_each_card_would_score_now_and_plain_slots_are_unchanged(n):
    plain, hinted = make_env(n), make_env(n, hints=True)
    size = k.obs_size(n)
    space = hinted.observation_space(hinted.possible_agents[0])["observation"]
    assert space.shape == (size + NUM_CARDS,)
    rng = random.Random(n)
    checked = scored = 0
    for seed in range(2):
        plain.reset(seed=seed)
        hinted.reset(seed=seed)
        while hinted.agents:
            agent = hinted.agent_selection
            if hinted.terminations[agent] or hinted.truncations[agent]:
                plain.step(None)
                hinted.step(None)
                continue
            seat = hinted.possible_agents.index(agent)
            state = hinted.state_dict()
            obs = obs_of(hinted, seat)
            np.testing.assert_array_equal(obs[:size], obs_of(plain, seat))
            want = expected_hints(state, seat)
            np.testing.assert_allclose(obs[size:], want)
            checked += 1
            scored += bool(want.any())
            action = random_action(obs_of(hinted, seat)[:NUM_CARDS] > 0, rng)
            plain.step(action)
            hinted.step(action)
    assert checked > 50 and scored > 5  # the hints were non-zero in many positions


def test_the_heuristic_plays_a_card_with_the_largest_hint():
    env = make_env(4, hints=True)
    agent = make_agent("heuristic", "surfosaurus_max_v0", num_players=4, hints=True)
    size = k.obs_size(4)
    for seed in range(5):
        env.reset(seed=seed)
        while env.agents:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            hints = obs["observation"][size:]
            mask = obs["action_mask"]
            action = agent.act(obs["observation"], mask)
            assert hints[action] == hints[mask == 1].max()
            env.step(action)


def test_the_heuristic_plays_a_legal_card_whatever_the_points_table():
    """With every value worth 10,000 points (the most allowed) a card that scores nothing
    was weighed at -10 (its cost / 1000) and lost to the start value -1: the heuristic
    answered -1, no card. It compares gain, then cost, and plays a game to its end."""
    from card_envs import make
    from card_envs.games.surfosaurus.spec import MAX_POINTS

    env = make("surfosaurus_max_v0", num_players=6, points=(MAX_POINTS,) * 12)
    agent = make_agent("heuristic", "surfosaurus_max_v0", num_players=6, points=(MAX_POINTS,) * 12)
    env.reset(seed=0)
    while not any(env.terminations.values()):
        obs = env.observe(env.agent_selection)
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1
        env.step(action)
