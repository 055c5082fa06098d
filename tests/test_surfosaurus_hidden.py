"""Observations show only what a seat may know.

Hidden from a seat: the other hands, the order (and content) of the draw pile and the cards
removed face down. Re-dealing exactly those cards in the state row must leave that seat's
observation (and, when it is to act, its action mask) unchanged; the public part (display,
out of play, scores, cards collected, round position, pile size, hand sizes) stays.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers_surfosaurus import PLAYER_COUNTS, make_env, mask_of, obs_of, random_action

from card_envs.core import layout
from card_envs.games.surfosaurus import engine as k


def snapshots(num_players: int, seed: int):
    """Yield the env at many points of a few random games (the finished game included)."""
    env = make_env(num_players)
    rng = random.Random(seed)
    for game in range(2):
        env.reset(seed=seed * 10 + game)
        step = 0
        while not env.state_dict()["done"]:
            if step % 3 == 0:
                yield env
            env.step(random_action(mask_of(env, env.state_dict()["current_player"]), rng))
            step += 1
        yield env


def hidden_slots(row: np.ndarray, seat: int) -> list[int]:
    """Row slots holding a card hidden from `seat`: the other hands (empty slots left out),
    the draw pile and the removed cards."""
    n = int(row[layout.NUM_PLAYERS])
    slots = []
    for p in range(n):
        if p != seat:
            for j in range(k.HAND_SIZE):
                if row[k.HANDS + p * k.HAND_SIZE + j] >= 0:
                    slots.append(k.HANDS + p * k.HAND_SIZE + j)
    slots += range(k.DECK + int(row[k.DRAW]), k.DECK + k.NUM_CARDS)
    slots += range(k.DECK, k.DECK + int(k.removed_cards(n)))
    return slots


def redeal_hidden(row: np.ndarray, seat: int, rng: random.Random) -> bool:
    """Shuffle the hidden cards among the hidden slots; True if anything moved."""
    slots = hidden_slots(row, seat)
    cards = row[slots].tolist()
    for _ in range(5):
        rng.shuffle(cards)
        if cards != row[slots].tolist():
            break
    moved = cards != row[slots].tolist()
    row[slots] = cards
    return moved


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_hidden_redeal_changes_no_observation(num_players):
    """Re-deal the other hands, the pile order and the removed cards: no seat notices."""
    rng = random.Random(num_players)
    checked = moved = 0
    for env in snapshots(num_players, seed=num_players):
        row = env._row
        saved = row.copy()
        to_act = int(env.state_dict()["current_player"])
        for seat in range(num_players):
            before = obs_of(env, seat).copy()
            mask = mask_of(env, seat).copy()
            public = {
                key: value
                for key, value in env.state_dict().items()
                if key in ("display", "out_of_play", "score2", "cards_collected", "round")
            }
            sizes = [len(h) for h in env.state_dict()["hands"]]
            pile = len(env.state_dict()["draw_pile"])
            own = env.state_dict()["hands"][seat]
            moved += redeal_hidden(row, seat, rng)
            after = env.state_dict()
            assert after["hands"][seat] == own
            assert [len(h) for h in after["hands"]] == sizes and len(after["draw_pile"]) == pile
            assert {key: after[key] for key in public} == public
            np.testing.assert_array_equal(obs_of(env, seat), before)
            if seat == to_act:
                type(env.game).legal_kernel(row, env._mask)
                np.testing.assert_array_equal(mask_of(env, seat), mask)
            row[:] = saved
            type(env.game).legal_kernel(row, env._mask)
            checked += 1
    assert checked > 50 and moved > 40


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_observation_sees_no_other_hand_pile_or_removed_card(num_players):
    """Directly: no slot of a seat's observation changes when a hidden card changes place
    with another hidden card in a different zone (other hand <-> pile <-> removed)."""
    rng = random.Random(100 + num_players)
    env = make_env(num_players)
    env.reset(seed=5)
    for _ in range(num_players + 1):
        env.step(random_action(mask_of(env, env.state_dict()["current_player"]), rng))
    row = env._row
    n = num_players
    seat = 0
    other = 1
    before = obs_of(env, seat).copy()
    other_before = obs_of(env, other).copy()
    hand = k.HANDS + other * k.HAND_SIZE
    pile_top = k.DECK + int(row[k.DRAW])
    # swap one of the other seat's cards with the top of the pile, then (if any) with a
    # removed card
    row[hand], row[pile_top] = row[pile_top], row[hand]
    np.testing.assert_array_equal(obs_of(env, seat), before)
    if k.removed_cards(n):
        row[hand], row[k.DECK] = row[k.DECK], row[hand]
        np.testing.assert_array_equal(obs_of(env, seat), before)
    # the other seat does see its own hand change
    assert not np.array_equal(obs_of(env, other)[:84], other_before[:84])


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_observation_size(num_players):
    n = num_players
    env = make_env(n)
    env.reset(seed=1)
    size = 84 + 84 * (n + 1) + 84 + 3 * n + 2 + n + 1
    assert env.observation_space("player_0")["observation"].shape == (size,)
    assert obs_of(env, 0).shape == (size,)
    assert size == {2: 431, 6: 783}.get(n, size)
