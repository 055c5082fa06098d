"""Shared helpers for the Surfosaurus MAX tests (no tests here): making envs, reading deals,
writing hand-made situations into the state row, comparing the env with the reference.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

import card_envs
from card_envs.core import layout
from card_envs.core.loading import HEADER_KEYS
from card_envs.games.surfosaurus import engine as k
from tests.games.surfosaurus.reference import (
    ALL_CARDS,
    HAND_SIZE,
    NUM_CARDS,
    REMOVED,
    Card,
    RefSurfosaurus,
    card_id,
    plays_per_round,
)

ENV_ID = "surfosaurus_max_v0"
PLAYER_COUNTS = (2, 3, 4, 5, 6)
STATE_KEYS = {
    *HEADER_KEYS,
    "num_players",
    "k",
    "current_player",
    "round",
    "rounds",
    "starting_player",
    "play_in_round",
    "hands",
    "draw_pile",
    "removed",
    "display",
    "out_of_play",
    "full_points",
    "half_points2",
    "score2",
    "cards_collected",
    "scores",
    "done",
}


def make_env(num_players: int = 2, **kwargs):
    return card_envs.make(ENV_ID, num_players=num_players, **kwargs)


def _pairs(cards) -> list[Card]:
    return [(int(c), int(v)) for c, v in cards]


def ref_from_env(env) -> RefSurfosaurus:
    """A reference game with the deal the env has just made (call right after reset)."""
    s = env.state_dict()
    assert s["round"] == 0 and s["play_in_round"] == 0 and not s["display"]
    return RefSurfosaurus(
        s["num_players"],
        [_pairs(h) for h in s["hands"]],
        _pairs(s["draw_pile"]),
        _pairs(s["removed"]),
        env.game.config["points"],
    )


def obs_of(env, seat: int) -> np.ndarray:
    return env.observe(env.possible_agents[seat])["observation"]


def mask_of(env, seat: int) -> np.ndarray:
    return env.observe(env.possible_agents[seat])["action_mask"]


def random_action(mask: np.ndarray, rng: random.Random) -> int:
    legal = np.flatnonzero(mask).tolist()
    assert legal, "no legal action"
    return rng.choice(legal)


def check_state(env, ref: RefSurfosaurus) -> dict:
    """The env's state_dict agrees with the reference on every key the rules fix."""
    s = env.state_dict()
    assert set(s) == STATE_KEYS
    want = ref.state()
    got = {key: s[key] for key in want}
    got["removed"] = sorted(got["removed"])
    got["out_of_play"] = sorted(got["out_of_play"])
    assert got == want
    return s


def check_observations(env, ref: RefSurfosaurus) -> None:
    """Every seat's observation and mask agree with the reference."""
    space = env.observation_space("player_0")
    skip = list(ref.round_position_slots()) if ref.done else []
    for seat, agent in enumerate(env.possible_agents):
        o = env.observe(agent)
        assert space.contains(o), agent
        want = np.array(ref.observation(seat), dtype=np.float32)
        got = o["observation"].copy()
        got[skip] = want[skip]
        np.testing.assert_array_equal(got, want, err_msg=f"seat {seat}")
        legal = ref.legal_actions() if seat == ref.player and not ref.done else []
        assert np.flatnonzero(o["action_mask"]).tolist() == legal, f"seat {seat}"


def step_both(env, ref: RefSurfosaurus, card: Card | int) -> None:
    """Play a card ((colour, value) or id) in the env and in the reference."""
    a = card if isinstance(card, int) else card_id(card)
    assert env.agent_selection == f"player_{ref.player}"
    env.step(a)
    ref.step(a)


# --- hand-made positions ----------------------------------------------------------------


def write_situation(
    env,
    *,
    hands: Sequence[Sequence[Card]],
    draw_pile: Sequence[Card],
    removed: Sequence[Card],
    display: Sequence[tuple[int, int, int]] = (),
    out_of_play: Sequence[Card] = (),
    round: int = 0,
    full_points: Sequence[int] | None = None,
    half2: Sequence[int] | None = None,
    collected: Sequence[int] | None = None,
) -> RefSurfosaurus:
    """Write a position into a reset AEC env's state row; return the reference game in the
    same position. `display` is this round's cards so far, in play order, as (colour, value,
    seat) with seat -1 for a dummy; the seat to act follows from the round and the display.
    """
    n = env.num_agents
    ref = RefSurfosaurus.situation(
        n,
        hands=hands,
        draw_pile=draw_pile,
        removed=removed,
        display=display,
        out_of_play=out_of_play,
        round=round,
        full_points=full_points,
        half2=half2,
        collected=collected,
        points=env.game.config["points"],
    )
    assert all(len(h) <= HAND_SIZE for h in hands)
    row = env._row
    ids = [card_id(c) for c in removed]
    ids += [card_id(c) for h in hands for c in h]
    ids += [card_id((c, v)) for c, v, _ in display]
    ids += [card_id(c) for c in out_of_play]
    ids += [card_id(c) for c in draw_pile]
    assert sorted(ids) == list(range(NUM_CARDS))
    # the deck: removed cards first, then the cards dealt or played, then the draw pile
    row[k.DECK : k.DECK + NUM_CARDS] = ids
    row[k.DRAW] = NUM_CARDS - len(draw_pile)
    for p in range(k.MAX_PLAYERS):
        slots = [card_id(c) for c in hands[p]] if p < n else []
        row[k.HANDS + p * HAND_SIZE : k.HANDS + (p + 1) * HAND_SIZE] = slots + [-1] * (
            HAND_SIZE - len(slots)
        )
    row[k.OUT : k.OUT + NUM_CARDS] = 0
    for c in out_of_play:
        row[k.OUT + card_id(c)] = 1
    row[k.DISP_N] = len(display)
    for i, (c, v, s) in enumerate(display):
        row[k.DISP_CARD + i] = card_id((c, v))
        row[k.DISP_SEAT + i] = s
    row[k.ROUND] = round
    row[k.START] = ref.starting_player
    row[k.PLAY] = ref.play_in_round
    for p in range(n):
        row[k.FULL_PTS + p] = ref.full2[p] // 2
        row[k.HALF2 + p] = ref.half2[p]
        row[k.COLLECTED + p] = ref.collected[p]
    row[layout.PLAYER] = ref.player
    row[layout.STATUS] = layout.RUNNING
    row[layout.TURN] = round * plays_per_round(n) + ref.play_in_round
    # the AEC env caches the seat to act and its action mask: refresh both
    env.agent_selection = env.possible_agents[ref.player]
    type(env.game).legal_kernel(row, env._mask)
    return ref


def build_deal(
    num_players: int,
    hands: dict[int, Sequence[Card]] | None = None,
    pile_top: Sequence[Card] = (),
    seed: int = 0,
    removed: Sequence[Card] = (),
) -> dict:
    """A full deal (hands, draw_pile, removed) with the given cards in the given hands and
    on top of the draw pile; everything else is dealt at random."""
    hands = {p: list(h) for p, h in (hands or {}).items()}
    fixed = [c for h in hands.values() for c in h] + list(pile_top) + list(removed)
    assert len(set(fixed)) == len(fixed)
    rest = [c for c in ALL_CARDS if c not in set(fixed)]
    random.Random(seed).shuffle(rest)
    need = REMOVED[num_players] - len(removed)
    out_removed = list(removed) + rest[:need]
    rest = rest[need:]
    out_hands = []
    for p in range(num_players):
        h = hands.get(p, [])
        fill = HAND_SIZE - len(h)
        out_hands.append(h + rest[:fill])
        rest = rest[fill:]
    return {"hands": out_hands, "draw_pile": list(pile_top) + rest, "removed": out_removed}


def write_deal(env, **deal) -> RefSurfosaurus:
    """Start a new game in the env with `build_deal`'s deal."""
    return write_situation(env, **deal)
