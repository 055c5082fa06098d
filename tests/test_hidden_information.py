"""Observations show only what a seat may know.

Hidden: the order of the cards still to come, which cards were removed, and (unless
public_tokens=True) the other seats' token counts. Re-dealing the hidden part of the state
row or changing hidden token counts must leave every seat's observation unchanged.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers_no_thanks import PLAYER_COUNTS, make_env, obs_of, pick_action

from card_envs.games.no_thanks import engine as k

OBS_OWN_TOKENS = 34


def snapshots(num_players: int, public_tokens: bool, seed: int):
    """Yield a reset env at many points of a few random games."""
    env = make_env(num_players, public_tokens=public_tokens)
    rng = random.Random(seed)
    for game in range(3):
        env.reset(seed=seed * 10 + game)
        p_take = (0.15, 0.5, 0.85)[game]
        step = 0
        while not env.state_dict()["done"]:
            if step % 3 == 0:
                yield env
            env.step(pick_action(env.observe(env.agent_selection)["action_mask"], rng, p_take))
            step += 1
        yield env  # the finished game


def redeal_hidden(row: np.ndarray, rng: random.Random) -> None:
    """Re-deal the hidden cards in place: swap a card still to come with a removed one (while
    cards are still to come), then reorder the cards to come and the removed cards."""
    start, end = k.DECK + row[k.NEXT], k.DECK + k.NUM_PLAYED
    to_come = row[start:end].tolist()
    removed = row[end : k.DECK + k.NUM_CARDS].tolist()
    if to_come:
        i, j = rng.randrange(len(to_come)), rng.randrange(len(removed))
        to_come[i], removed[j] = removed[j], to_come[i]
    rng.shuffle(to_come)
    rng.shuffle(removed)
    row[start:end] = to_come
    row[end : k.DECK + k.NUM_CARDS] = removed


def all_observations(env) -> list[np.ndarray]:
    return [obs_of(env, seat).copy() for seat in range(env.num_agents)]


@pytest.mark.parametrize("public_tokens", [False, True])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_redealing_hidden_cards_changes_no_observation(num_players, public_tokens):
    rng = random.Random(num_players)
    checked = 0
    for env in snapshots(num_players, public_tokens, seed=num_players):
        row = env._row
        saved = row.copy()
        before = all_observations(env)
        removed_before = set(env.state_dict()["removed"])
        redeal_hidden(row, rng)
        after = env.state_dict()
        if after["deck"]:  # a card still to come was swapped with a removed one
            assert set(after["removed"]) != removed_before
        for seat, obs in enumerate(all_observations(env)):
            np.testing.assert_array_equal(obs, before[seat])
        row[:] = saved
        checked += 1
    assert checked > 30


@pytest.mark.parametrize("public_tokens", [False, True])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_other_seats_tokens(num_players, public_tokens):
    """Hidden tokens: changing the other seats' tokens leaves a seat's observation as it
    was. Public tokens: it changes exactly the slot of that seat, in turn order."""
    rng = random.Random(100 + num_players)
    n = num_players
    tokens_start = k.OBS_CARDS + k.NUM_CARDS * n
    for env in snapshots(num_players, public_tokens, seed=50 + num_players):
        row = env._row
        saved = row.copy()
        before = all_observations(env)
        for seat in range(n):
            for offset in range(1, n):  # the seat `offset` places after `seat`
                other = (seat + offset) % n
                old = int(row[k.TOKENS + other])
                new = rng.choice([t for t in range(0, 20) if t != old])
                row[k.TOKENS + other] = new
                obs = obs_of(env, seat)
                if public_tokens:
                    changed = np.flatnonzero(obs != before[seat]).tolist()
                    assert changed == [tokens_start + offset - 1]
                    assert obs[tokens_start + offset - 1] == new
                else:
                    np.testing.assert_array_equal(obs, before[seat])
                # the seat that owns the tokens sees its own count in both modes
                assert obs_of(env, other)[OBS_OWN_TOKENS] == new
                row[k.TOKENS + other] = old
        row[:] = saved


@pytest.mark.parametrize("public_tokens", [False, True])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_observation_size_and_token_slots(num_players, public_tokens):
    env = make_env(num_players, public_tokens=public_tokens)
    env.reset(seed=1)
    size = 33 + 2 + 33 * num_players + (num_players - 1 if public_tokens else 0) + 1
    space = env.observation_space("player_0")["observation"]
    assert space.shape == (size,)
    assert obs_of(env, 0).shape == (size,)
    # no other seat's token count appears anywhere in a hidden-tokens observation: make
    # every other seat's count distinctive and look for it
    row = env._row
    for q in range(1, num_players):
        row[k.TOKENS + q] = 1000 + q
    obs = obs_of(env, 0)
    hits = [q for q in range(1, num_players) if (obs == 1000 + q).any()]
    assert hits == (list(range(1, num_players)) if public_tokens else [])


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_hidden_redeal_does_not_change_masks_or_render_of_public_parts(num_players):
    """The action masks depend on public state only, and so does what the game shows."""
    rng = random.Random(7)
    env = make_env(num_players, render_mode="ansi")
    env.reset(seed=3)
    for _ in range(10):
        env.step(pick_action(env.observe(env.agent_selection)["action_mask"], rng, 0.5))
    masks = [env.observe(a)["action_mask"].tolist() for a in env.possible_agents]
    text = env.render()
    redeal_hidden(env._row, rng)
    assert [env.observe(a)["action_mask"].tolist() for a in env.possible_agents] == masks
    assert env.render() == text
