"""The other seats' token counts are hidden unless public_tokens=True (the rulings).

Changing them leaves a seat's observation as it was; with public tokens exactly their slots
change. (That no observation depends on the cards to come or the removed ones is the
conformance suite's hidden-information check.)
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from card_envs.games.no_thanks import engine as k
from tests.games.no_thanks.helpers import PLAYER_COUNTS, make_env, obs_of, pick_action

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


def all_observations(env) -> list[np.ndarray]:
    return [obs_of(env, seat).copy() for seat in range(env.num_agents)]


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
