"""Shared helpers for the No Thanks! tests: making envs, reading deals, writing situations."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

import card_envs
from card_envs.core import layout
from card_envs.games.no_thanks import engine as k
from tests.games.no_thanks.reference import NUM_PLAYED, RefNoThanks, starting_tokens

ENV_ID = "no_thanks_v0"
PLAYER_COUNTS = (3, 4, 5, 6, 7)
TAKE, NO_THANKS = 0, 1


def make_env(num_players: int = 3, **kwargs):
    return card_envs.make(ENV_ID, num_players=num_players, **kwargs)


def ref_from_env(env) -> RefNoThanks:
    """A reference game with the deal the env has just made (call right after reset)."""
    s = env.state_dict()
    assert s["pot"] == 0 and not any(s["cards"]), "call ref_from_env right after reset"
    return RefNoThanks(s["num_players"], [s["current_card"], *s["deck"]], s["removed"])


def obs_of(env, seat: int) -> np.ndarray:
    return env.observe(env.possible_agents[seat])["observation"]


def mask_of(env, seat: int) -> np.ndarray:
    return env.observe(env.possible_agents[seat])["action_mask"]


def pick_action(mask: np.ndarray, rng: random.Random, p_take: float) -> int:
    legal = np.flatnonzero(mask).tolist()
    assert legal, "no legal action"
    if len(legal) == 1:
        return legal[0]
    return TAKE if rng.random() < p_take else NO_THANKS


def write_situation(
    env,
    *,
    draw_order: Sequence[int],
    removed: Sequence[int],
    turned: int,
    pot: int,
    tokens: Sequence[int],
    cards: Sequence[Sequence[int]],
    player: int,
) -> None:
    """Write a mid-game position into a reset AEC env's state row.

    `draw_order` lists the 24 played cards in the order they are turned up and `turned`
    how many of them have been turned up (the card on offer is draw_order[turned - 1]).
    """
    n = env.num_agents
    assert len(draw_order) == NUM_PLAYED and len(removed) == 9
    assert sorted([*draw_order, *removed]) == list(range(3, 36))
    assert 1 <= turned <= NUM_PLAYED and len(tokens) == n and len(cards) == n
    row = env._row
    row[k.DECK : k.DECK + NUM_PLAYED] = draw_order
    row[k.DECK + NUM_PLAYED : k.DECK + 33] = removed
    row[k.NEXT] = turned
    row[k.CARD] = draw_order[turned - 1]
    row[k.POT] = pot
    for p in range(n):
        row[k.TOKENS + p] = tokens[p]
        mask = 0
        for c in cards[p]:
            mask |= 1 << c
        row[k.CARDS + p] = mask
    row[layout.PLAYER] = player
    row[layout.STATUS] = layout.RUNNING
    # the AEC env caches the seat to act and its action mask: refresh both
    env.agent_selection = env.possible_agents[player]
    type(env.game).legal_kernel(row, env._mask)


def ref_situation(num_players, *, draw_order, removed, turned, pot, tokens, cards, player):
    """The reference game in the same position as `write_situation` writes."""
    ref = RefNoThanks(num_players, draw_order, removed)
    ref.turned = turned
    ref.current = draw_order[turned - 1]
    ref.pot = pot
    ref.tokens = list(tokens)
    ref.cards = [set(c) for c in cards]
    ref.player = player
    return ref


def total_tokens(num_players: int) -> int:
    return num_players * starting_tokens(num_players)
