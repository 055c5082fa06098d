"""Shared helpers for the Double or Nothing tests (no tests here): hand-made positions
written into the state row, with the reference game in the same position."""

from __future__ import annotations

import random

import card_envs
from card_envs.core import layout
from card_envs.core.loading import game_fields
from card_envs.games.double_or_nothing import engine as k
from card_envs.games.double_or_nothing.spec import HISTORY_KEYS
from tests.games.double_or_nothing.reference import RefDoubleOrNothing, cards_from_counts, scale

ENV_ID = "double_or_nothing_v0"


def rule_fields(s: dict) -> dict:
    """A state dict without its header and the hidden-information bookkeeping: the keys the
    reference game holds."""
    return {key: v for key, v in game_fields(s).items() if key not in HISTORY_KEYS}


def make_env(**config):
    return card_envs.make(ENV_ID, **config)


def fill_decks(stage, hands, trick, size0, seed=0):
    """Decks holding every card not in the hands or the trick (so cards are conserved):
    a random order, the first `size0` cards to seat 0, the rest to seat 1."""
    s = scale(stage)
    rest = [8 * s - hands[0][v] - hands[1][v] - trick[v] for v in range(8)]
    assert min(rest) >= 0, "more cards than the game has"
    cards = cards_from_counts(rest)
    random.Random(seed).shuffle(cards)
    return [cards[:size0], cards[size0:]]


def write_situation(
    env,
    *,
    hands,
    decks,
    trick=(0,) * 8,
    play=None,
    player=0,
    leader=None,
    hands_played=0,
    turns=0,
    heads=(0, 0),
):
    """Write a position into a reset AEC env's state row. `play` is the play to beat
    (copies, lo, hi) or None when `player` leads; the leader defaults to the seat that
    made `play` (else `player`). `heads` places each deck's top card in its ring buffer."""
    row = env._row
    cap = int(row[k.CAP])
    for p in (0, 1):
        assert len(hands[p]) == 8 and len(decks[p]) <= cap
        row[k.HAND + 8 * p : k.HAND + 8 * p + 8] = hands[p]
        row[k.HEAD + p] = heads[p]
        row[k.SIZE + p] = len(decks[p])
        for i, card in enumerate(decks[p]):
            row[k.DECKS + p * cap + (heads[p] + i) % cap] = card
    row[k.TRICK : k.TRICK + 8] = trick
    copies, lo, hi = play if play else (0, 0, 0)
    row[k.BEAT_COPIES], row[k.BEAT_LO], row[k.BEAT_HI] = copies, lo, hi
    if leader is None:
        leader = player if play is None else 1 - player
    row[k.LEADER] = leader
    row[k.HANDS_PLAYED] = hands_played
    row[layout.TURN] = turns
    row[layout.PLAYER] = player
    row[layout.STATUS] = layout.RUNNING
    # the AEC env caches the seat to act and its action mask: refresh both
    env.agent_selection = f"player_{player}"
    type(env.game).legal_kernel(row, env._mask)


def situation(stage=1, *, hands, trick=(0,) * 8, size0=None, decks=None, **kw):
    """A reset env (config from kw) with the given position and the reference game in it."""
    config = {key: kw.pop(key) for key in ("max_turns", "reward") if key in kw}
    env = make_env(stage=stage, **config)
    env.reset(seed=0)
    if decks is None:
        total = 64 * scale(stage) - sum(map(sum, hands)) - sum(trick)
        decks = fill_decks(stage, hands, trick, total // 2 if size0 is None else size0)
    write_situation(env, hands=hands, decks=decks, trick=trick, **kw)
    ref = RefDoubleOrNothing.from_state(env.state_dict(), **config)
    return env, ref
