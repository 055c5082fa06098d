"""Super Zwierzaki property tests: the engine through the AEC env
(`card_envs.make("super_zwierzaki_v0", ...)`) in random play, over player counts 2..12 and
every combination of the options, drawn by hypothesis.

What `card_envs.testing.checks` already runs on this env (fixed seeds, one option at a time,
through `test_conformance.py`): conservation laws after every step, observations in their
space, the PettingZoo API, and `check_actions` (every 3rd position of one game: masked-in
actions accepted, five masked-out ones refused). Here, beyond that:
- the 539 cards are in `state_dict()` (hands, draw pile, discard pile) at every step, and no
  game outlives its turn cap: it ends with a winner whose hand is empty, or is truncated
  exactly at `max_turns` turns;
- every mask is exact: it is the reference game's set of legal actions for the position the
  env's `state_dict()` describes (`reference.legal`), at every step; and at
  sampled positions every masked-in action is accepted (on a copy of the env) and every
  masked-out action is refused with a ValueError that changes nothing.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import card_envs
from card_envs.core import layout
from card_envs.games.super_zwierzaki import deck, spec
from tests.games.super_zwierzaki.helpers import (
    CZAPLA,
    DZI,
    GRIZZLY,
    KOALA,
    MAMBA,
    NINE_CARDS,
    SOKOL,
    WAR,
    ZAJAC,
    situation,
)
from tests.games.super_zwierzaki.reference import (
    COLOUR_OF,
    COPIES,
    DRAW,
    KIND,
    NINE,
    NUM_ACTIONS,
    PASS,
    SEAT,
    Decision,
    Game,
    Rules,
    legal,
)

ENV_ID = "super_zwierzaki_v0"
ALL_CARDS = Counter({kind.id: kind.copies for kind in deck.KINDS})
ONE_KIND_OF_COLOUR = {c: COLOUR_OF.index(c) for c in deck.COLOURS}
SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
CONFIGS = st.fixed_dictionaries(
    {
        "num_players": st.integers(2, 12),
        "explicit_call": st.booleans(),
        "skip_forced": st.booleans(),
        "play_drawn": st.booleans(),
        "max_turns": st.sampled_from([1, 3, 20, 60, 150]),
    }
)


def reference_at(s: dict) -> Game:
    """The reference game at the position a `state_dict()` describes, with the pending
    decision and just the context `legal` reads."""
    n = s["num_players"]
    g = Game(
        Rules(n),
        [Counter(h) for h in s["hands"]],
        s["draw_pile"][::-1],
        list(s["discard_pile"]),
        frozenset(s["given_colours"]),
        frozenset(s["given_classes"]),
        list(s["numbers"]),
        random.Random(0),
    )
    g.counters.update(s["counters"])
    if s["demand"]:
        g.demand_kind, g.demand_by = s["demand"]["kind"], s["demand"]["by"]
    if s["duel"]:
        g.duel = {"kind": s["duel"]["kind"], "points": s["duel"]["points"]}
    phase = s["phase"]
    keys = ("kind", "purpose", "first", "giver", "taken")
    ctx = {key: phase[key] for key in keys if key in phase}
    if phase["what"] == "react":
        ctx["on"] = phase["window"]
    if phase["what"] == "nine":
        ctx["laid"] = [ONE_KIND_OF_COLOUR[c] for c in phase["colours_laid"]]
    g.decisions.append(Decision(phase["what"], phase["seat"], ctx))
    return g


def mask_of(env) -> np.ndarray:
    return env.observe(env.agent_selection)["action_mask"]


def check_mask_exact(env) -> None:
    """Every masked-in action is accepted by a copy of the env (the row keeps its laws);
    every masked-out action is refused with a ValueError naming it, changing nothing."""
    mask = mask_of(env)
    row, agent = env._row.copy(), env.agent_selection
    for a in np.flatnonzero(mask):
        twin = copy.deepcopy(env)
        twin.step(int(a))
        assert twin.game.invariant_error(twin._row) is None, (a, twin.state_dict()["phase"])
        assert twin._row[layout.TURN] == row[layout.TURN] + 1, a
    for a in np.flatnonzero(mask == 0):
        try:
            env.step(int(a))
        except ValueError as err:
            assert f"illegal action {a} " in str(err)
        else:
            raise AssertionError(f"masked-out action {a} was accepted")
        assert np.array_equal(env._row, row) and env.agent_selection == agent


def choose(mask: np.ndarray, rng: random.Random, hoard: bool) -> int:
    """A uniform legal action; a hoarder plays 9 kolorow whenever it can, every copy it holds
    of a kind it plays, and otherwise draws on two turns in three, so that hands grow and
    rarer decisions (9 kolorow, combinations) come up."""
    actions = np.flatnonzero(mask).tolist()
    if hoard and NINE in actions:
        return NINE
    if hoard and COPIES in actions:
        return actions[-1]  # the most copies

    if hoard and DRAW in actions and rng.random() < 2 / 3:
        return DRAW
    return rng.choice(actions)


def play(config: dict, seed: int, play_seed: int, hoard: bool, check_every: int = 0) -> dict:
    """One random game on the env; checks at every step; full mask checks every
    `check_every` steps (0: never). Returns the final state_dict."""
    env = card_envs.make(ENV_ID, **config)
    env.reset(seed=seed)
    rng = random.Random(play_seed)
    steps = 0
    while True:
        s = env.state_dict()
        cards = Counter(s["draw_pile"]) + Counter(s["discard_pile"])
        for hand in s["hands"]:
            cards += Counter(hand)
        assert cards == ALL_CARDS
        assert s["turns"] <= config["max_turns"]
        if s["done"]:
            return s
        mask = mask_of(env)
        assert len(mask) == NUM_ACTIONS and s["current_player"] == s["phase"]["seat"]
        assert np.flatnonzero(mask).tolist() == sorted(legal(reference_at(s))), s["phase"]
        if check_every and steps % check_every == 0:
            check_mask_exact(env)
        env.step(choose(mask, rng, hoard))
        steps += 1


@settings(max_examples=40, deadline=None)
@given(config=CONFIGS, seed=SEEDS, play_seed=SEEDS, hoard=st.booleans())
def test_random_play_keeps_the_539_cards_and_ends_or_truncates(config, seed, play_seed, hoard):
    s = play(config, seed, play_seed, hoard)
    if s["winner"] is not None:
        assert s["hands"][s["winner"]] == [] and s["turns"] <= config["max_turns"]
    else:
        assert s["turns"] == config["max_turns"]


@settings(max_examples=15, deadline=None)
@given(
    config=CONFIGS,
    seed=SEEDS,
    play_seed=SEEDS,
    hoard=st.booleans(),
    check_every=st.integers(5, 25),
)
def test_every_mask_is_exact(config, seed, play_seed, hoard, check_every):
    play(config, seed, play_seed, hoard, check_every)


def test_the_random_players_reach_every_kind_of_decision():
    """A check on the test itself: the two random players of the tests above (uniform and
    hoarding) reach every decision, seat and pick purpose and window in a few games, so the
    mask comparisons meet all of them; but a two-War (two of the five War cards played
    together) comes up about once in 40 games, so its decisions are checked in
    `test_masks_are_exact_through_hand_made_plays`."""
    seen = set()
    for seed in range(8):
        config = dict(num_players=2 + seed, play_drawn=seed % 2 == 0, explicit_call=True)
        env = card_envs.make(ENV_ID, max_turns=150, **config)
        env.reset(seed=seed)
        rng = random.Random(seed)
        while not env.state_dict()["done"]:
            phase = env.state_dict()["phase"]
            seen.add((phase["what"], phase.get("purpose") or phase.get("window")))
            env.step(choose(mask_of(env), rng, hoard=seed % 2 == 1))
    expected = {(what, None) for what in ("turn", "copies", "colour", "name", "nine")}
    expected |= {(what, None) for what in ("duel", "call", "drawn")}
    expected |= {("seat", purpose) for purpose in spec.SEAT_PURPOSES if "war2" not in purpose}
    expected |= {("pick", purpose) for purpose in spec.PICK_PURPOSES}
    expected |= {("react", window) for window in spec.WINDOWS}
    assert seen - expected <= {("seat", p) for p in spec.SEAT_PURPOSES}
    assert expected <= seen, expected - seen


def env_at(t) -> card_envs.core.aec.CardEnv:
    """An env holding the engine row of a hand-made situation (`helpers`)."""
    env = card_envs.make(ENV_ID, num_players=t.n)
    env.reset(seed=0)
    env._row[:] = t.row
    env.agent_selection = env.possible_agents[t.seat]
    env._kernels.legal_kernel(env._row, env._mask)
    return env


@pytest.mark.parametrize(
    ("hands", "top", "actions"),
    [
        # two War: the giver, the receiver, then the hand of each seat in turn
        (
            [[WAR, WAR, MAMBA, ZAJAC], [KOALA], [SOKOL, SOKOL, CZAPLA]],
            GRIZZLY,
            [KIND + WAR, COPIES + 1, PASS, PASS, SEAT + 2, SEAT + 1, SEAT + 1, SEAT + 2],
        ),
        # 9 kolorow, the give window, the recipient and the card kept
        (
            [NINE_CARDS + [ZAJAC, SOKOL], [KOALA, DZI]],
            SOKOL,
            [NINE] + [KIND + x for x in NINE_CARDS] + [PASS, SEAT + 1],
        ),
    ],
    ids=["two_war", "nine_colours"],
)
def test_masks_are_exact_through_hand_made_plays(hands, top, actions):
    rest = ALL_CARDS - Counter([top]) - sum((Counter(h) for h in hands), Counter())
    env = env_at(situation("engine", hands, top=top, draw=sorted(rest.elements())))
    for a in [*actions, None]:
        s = env.state_dict()
        assert np.flatnonzero(mask_of(env)).tolist() == sorted(legal(reference_at(s)))
        check_mask_exact(env)
        if a is not None:
            env.step(a)
