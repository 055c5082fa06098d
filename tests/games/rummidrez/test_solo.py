"""rummidrez_solo_v0: the solo variant as a single-agent Gymnasium env.

Scenarios are set up by hand in the env's row (hand, table, and the draw pile's next cards);
the last test plays a solver player over real shuffles and checks it reaches the optimum of
each shuffle, computed from the draw order alone.
"""

from __future__ import annotations

import copy
import json
import pickle
import warnings
from collections import Counter

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import card_envs
from card_envs.agents import make_agent
from card_envs.core import layout, scene
from card_envs.core.config import ConfigError
from card_envs.evaluation import evaluate_episodes
from card_envs.games.rummidrez import (
    RummidrezSolo,
    is_valid_table,
    largest_valid_subset,
)
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.solo_env import ILLEGAL_SCORE, RummidrezSoloEnv
from card_envs.registry import make_game

ID = "rummidrez_solo_v0"
N = k.NEUTRAL
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, JOKER = range(6)
SLICES = k.obs_slices(1)
FULL_DECK = np.array([k.COPIES] * k.NEUTRAL + [k.NEUTRALS])


def card(figure: int, number: int) -> int:
    return figure * 9 + number - 1


def run(figure: int, lo: int, hi: int) -> list[int]:
    """A figure group's cards, numbers lo..hi."""
    return [card(figure, n) for n in range(lo, hi + 1)]


def counts(cards) -> np.ndarray:
    return np.bincount(np.asarray(list(cards), dtype=np.int64), minlength=k.NUM_IDS)


def part(obs: np.ndarray, name: str) -> np.ndarray:
    start, size = SLICES[name]
    return np.rint(obs[start : start + size]).astype(np.int64)


def valid(cards_counts: np.ndarray, ends: bool = False) -> bool:
    return is_valid_table(cards_counts[:N].reshape(6, 9), int(cards_counts[N]), ends)


def rig(env, hand, draws=(), table=(), opened=False) -> np.ndarray:
    """Put the (reset) env at the start of a melding phase with `hand` and `table`, the draw
    pile's next cards `draws` (first drawn first) and the rest of the deck below them; return
    the observation."""
    row = env.unwrapped._row
    rest = FULL_DECK - counts(hand) - counts(table) - counts(draws)
    assert rest.min() >= 0, "more copies than the deck holds"
    pile = [*draws, *np.repeat(np.arange(k.NUM_IDS), rest)]
    row[k.HAND : k.HAND + k.NUM_IDS] = counts(hand)
    row[k.TABLE : k.TABLE + k.NUM_IDS] = counts(table)
    row[k.PLACED : k.PLACED + k.NUM_IDS] = 0
    row[k.OPENED] = int(opened)
    row[k.DRAW_N] = len(pile)
    row[k.DRAW_PILE : k.DRAW_PILE + len(pile)] = pile[::-1]  # top = last slot
    row[k.PLACE_COUNT] = 0
    row[k.TABLE_OK] = 1
    row[k.FITS] = k.solo_fits(row)
    assert env.unwrapped.game.invariant_error(row) is None
    return env.unwrapped._observe()


def fresh(seed: int = 0, **config) -> RummidrezSoloEnv:
    env = card_envs.make(ID, **config)
    env.reset(seed=seed)
    return env


def place(env, cards):
    """PLACE each card; the result of the last step."""
    out = None
    for c in cards:
        out = env.step(k.PLACE + c)
        assert not out[2], "placing a card ended the episode"
    return out


def hand_of(env) -> Counter:
    return Counter(env.state_dict()["hands"][0])


# --- the env as Gymnasium and the registry see it -------------------------------------------


def test_registered_as_a_single_agent_env():
    assert ID in card_envs.env_ids() and ID not in card_envs.multi_agent_env_ids()
    assert type(card_envs.make(ID)) is RummidrezSoloEnv
    env = gymnasium.make(card_envs.gym_id(ID), max_placements=30)
    assert env.spec.id == f"card_envs/{ID}" and type(env.unwrapped) is RummidrezSoloEnv
    assert env.unwrapped.config["max_placements"] == 30
    with pytest.raises(ValueError, match="single-agent"):
        card_envs.make_parallel(ID)
    assert ID in card_envs.registry.batched_env_ids()  # make_vec batches the one-seat game


def test_the_hint_is_the_whole_hand_exactly_when_it_completes_the_table():
    """Solo hints: the best play places everything once table and hand form a valid table,
    so the hint is the remaining hand then, whatever its size, else nothing."""
    env = fresh(hints=True)
    start, size = k.obs_slices(1, True)["hint"]
    hint = slice(start, start + size)
    pawns = [card(0, n) for n in range(1, 10)]
    knights = [card(1, n) for n in range(1, 10)]
    obs = rig(env, hand=[*pawns, *knights], draws=[card(2, 5)])  # two 9-card groups
    np.testing.assert_array_equal(obs[hint], counts([*pawns, *knights]))
    obs, *_ = place(env, pawns[:4])  # placing moves cards out of the hint, nothing else
    np.testing.assert_array_equal(obs[hint], counts([*pawns[4:], *knights]))
    obs = rig(env, hand=[*pawns, *knights[:8], card(5, 5)], draws=[card(2, 5)])  # Joker 5 alone
    assert not obs[hint].any()
    obs, *_ = env.step(k.END_MELD)  # draws Bishop 5: still no valid table
    assert not obs[hint].any()
    obs = rig(env, hand=knights[3:], table=pawns, opened=True, draws=[card(1, 3)])
    np.testing.assert_array_equal(obs[hint], counts(knights[3:]))  # with the table
    obs, *_ = env.step(k.END_MELD)  # the hand goes on: Knight 3 joins the run
    np.testing.assert_array_equal(obs[hint], counts(knights[2:]))
    assert not fresh(hints=False).unwrapped._row[k.FITS]


def test_the_batched_env_plays_the_gym_envs_games():
    """make_vec batches RummidrezSolo (training needs it): instance i plays the game a
    gym env reset with seed + i plays, observation for observation."""
    config = dict(hints=True, max_placements=9)
    venv = card_envs.make_vec(ID, 3, seed=40, **config)
    assert venv.num_players == 1 and type(venv.game) is RummidrezSolo
    obs, masks = venv.reset()
    envs = [card_envs.make(ID, **config) for _ in range(3)]
    singles = [env.reset(seed=40 + i)[0] for i, env in enumerate(envs)]
    rng = np.random.default_rng(0)
    for _ in range(300):
        np.testing.assert_array_equal(obs, np.stack(singles))
        np.testing.assert_array_equal(masks.astype(bool), [e.action_masks() for e in envs])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, masks, rewards, term, _ = venv.step(actions)
        for i, env in enumerate(envs):
            singles[i], reward, done, _, _ = env.step(actions[i])
            assert rewards[i, 0] == reward and term[i] == done == 0  # random play is long


def test_agents_are_built_for_the_solo_game():
    """No multi-agent twin has its observations: agents are built for RummidrezSolo."""
    env = fresh()
    assert env.agent_env == ID and type(make_game(ID)) is RummidrezSolo
    assert make_game(ID).obs_size == env.observation_space.shape[0]
    agent = make_agent("random", env.agent_env, seed=0)
    obs, mask = env.unwrapped._observe(), env.action_masks()
    assert mask[agent.act(obs, mask)]
    stats = evaluate_episodes(ID, "random", episodes=1, seed=0)
    assert stats.episodes == 1 and -224 <= stats.mean_return <= -14


def test_gymnasium_env_checker_passes():
    """As for every single-agent env: the checker samples an action before a seeded reset,
    which may be illegal after it, so it runs with illegal_action="penalize"."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's notes on our Box bounds
        check_env(card_envs.make(ID, illegal_action="penalize"))
        check_env(card_envs.make(ID, illegal_action="penalize", neutral_at_ends=True))
        env = card_envs.make(ID, render_mode="ansi", illegal_action="penalize")
        check_env(env, skip_render_check=False)


def test_bad_config_fails_naming_the_option():
    with pytest.raises(ConfigError, match=f"{ID}: unknown option.*'colour'"):
        card_envs.make(ID, colour=3)
    with pytest.raises(ConfigError, match="num_players=2 is outside"):
        card_envs.make(ID, num_players=2)
    with pytest.raises(ConfigError, match="max_placements=0 is outside"):
        card_envs.make(ID, max_placements=0)
    with pytest.raises(ValueError, match="render_mode='human'"):
        card_envs.make(ID, render_mode="human")
    with pytest.raises(ValueError, match="illegal_action='skip'"):
        card_envs.make(ID, illegal_action="skip")


def test_use_before_reset_raises():
    env = card_envs.make(ID)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(k.END_MELD)
    with pytest.raises(RuntimeError, match="reset"):
        env.state_dict()


def _random_trace(env, seed: int, steps: int) -> list:
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(steps):
        mask = env.action_masks()
        legal = np.flatnonzero(mask)
        # mostly END_MELD, so that games move on through the deck
        a = k.END_MELD if mask[k.END_MELD] and rng.random() < 0.5 else int(rng.choice(legal))
        obs, reward, term, trunc, info = env.step(a)
        trace.append((a, obs.tolist(), reward, term, trunc, info))
        if term or trunc:
            obs, info = env.reset()
            trace.append(("reset", obs.tolist(), info))
    return trace


def test_seeded_reset_is_reproducible_and_reset_continues_the_stream():
    a, b = card_envs.make(ID), card_envs.make(ID)
    obs_a, _ = a.reset(seed=11)
    b.reset(seed=3)
    b.step(k.END_MELD)
    obs_b, _ = b.reset(seed=11)
    assert np.array_equal(obs_a, obs_b) and a.state_dict() == b.state_dict()
    assert _random_trace(a, 0, 400) == _random_trace(b, 0, 400)  # episodes and resets
    assert a.state_dict() == b.state_dict()
    first = a.state_dict()
    a.reset()
    assert a.state_dict() != first  # no seed: the next deal of the stream
    deals = set()
    for seed in (None, None, 1, 2):
        deals.add(json.dumps(fresh(seed).state_dict()))
    assert len(deals) == 4


def test_copies_play_on_like_the_original():
    env = fresh(5)
    _random_trace(env, 1, 30)
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert _random_trace(twin, 2, 150) == _random_trace(copy.deepcopy(env), 2, 150)
        twin.action_space.seed(3)
        for _ in range(10):
            assert twin.action_masks()[twin.action_space.sample()]


def test_state_dict_and_render():
    env = card_envs.make(ID, render_mode="ansi")
    env.reset(seed=2)
    s = env.state_dict()
    assert json.loads(json.dumps(s)) == s
    assert len(s["hands"][0]) == 14 and len(s["draw_pile"]) == 98 and s["phase"] == "meld"
    text = env.render()
    assert "player_0 to act (meld phase)" in text and "Draw pile: 98 card(s)" in text
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert fresh().render() is None
    assert any("render_mode" in str(w.message) for w in caught)


def test_the_table_shows_the_hand_the_table_and_the_draw_pile():
    """No discard pile in solo; the hand's cards are placed by a click; the draw pile is one
    face-down card with its size."""
    env = fresh()
    hand = [*run(PAWN, 1, 3), card(QUEEN, 9), N]
    rig(env, hand, table=run(ROOK, 4, 6), opened=True)
    game, row = env.unwrapped.game, env.unwrapped._row
    s = game.scene(row, 0)
    assert s == game.scene(row, None)  # nothing is hidden in solo
    cards = [it for it in s["items"] if it["kind"] == "card"]
    assert [c.get("label") for c in cards] == [None, "R4", "R5", "R6", "P1", "P2", "P3", "Q9", "N"]
    assert [c.get("actions") for c in cards[4:]] == [[k.PLACE + c, k.DISCARD + c] for c in hand]
    texts = [it["text"] for it in s["items"] if it["kind"] == "text"]
    assert f"{k.NUM_CARDS - len(hand) - 3} left" in texts
    assert not any(t.startswith("Discard pile") for t in texts)
    legal = np.flatnonzero(env.action_masks())
    assert scene.buttons(s, legal) == [k.END_MELD]


# --- the solo rules --------------------------------------------------------------------------


def test_the_first_observation_has_14_cards_and_a_melding_phase():
    env = card_envs.make(ID)
    obs, info = env.reset(seed=7)
    assert env.observation_space.contains(obs)
    assert part(obs, "hand").sum() == 14 and part(obs, "table").sum() == 0
    assert part(obs, "phase").tolist() == [0, 1, 0]  # no draw phase
    assert part(obs, "piles").tolist() == [98, 0]
    assert info == {"cards_drawn": 14, "opened": False}
    mask = env.action_masks()
    legal = set(np.flatnonzero(mask).tolist())
    hand = set(np.flatnonzero(part(obs, "hand")).tolist())
    assert legal == {k.PLACE + c for c in hand} | {k.END_MELD}  # no draw, take or discard


def test_end_meld_with_cards_left_draws_exactly_one_card():
    env = fresh()
    hand = [*run(PAWN, 1, 7), *run(KNIGHT, 1, 2), *run(QUEEN, 5, 9)]
    rig(env, hand, draws=[card(JOKER, 4), card(ROOK, 1)])
    obs, reward, term, trunc, info = env.step(k.END_MELD)  # nothing placed: just a draw
    assert (reward, term, trunc) == (0.0, False, False)
    assert hand_of(env) == Counter([*hand, card(JOKER, 4)])
    assert part(obs, "piles")[0] == 112 - 15 and info["cards_drawn"] == 15
    assert part(obs, "phase").tolist() == [0, 1, 0]
    place(env, run(PAWN, 1, 7))  # the opening, leaving cards in hand
    obs, reward, term, _, info = env.step(k.END_MELD)
    assert (reward, term, info["opened"]) == (0.0, False, True)
    assert part(obs, "table").sum() == 7 and part(obs, "hand").sum() == 15 - 7 + 1
    assert hand_of(env)[card(ROOK, 1)] == 1 and info["cards_drawn"] == 16


def test_the_opening_needs_seven_cards_in_groups_of_their_own():
    env = fresh()
    hand = [*run(PAWN, 1, 4), *run(KNIGHT, 4, 6), card(JOKER, 9), N, *run(BISHOP, 1, 5)]
    rig(env, hand)
    place(env, run(PAWN, 1, 3) + run(KNIGHT, 4, 6))  # two groups, 6 cards
    assert not env.action_masks()[k.END_MELD]
    with pytest.raises(ValueError, match=f"illegal action {k.END_MELD}"):
        env.step(k.END_MELD)
    place(env, [card(JOKER, 9)])  # 7 cards, one of them in no group
    assert not env.action_masks()[k.END_MELD]
    env.step(k.UNDO)
    assert env.action_masks()[k.END_MELD]  # nothing placed: always legal
    place(env, run(PAWN, 1, 4) + run(KNIGHT, 4, 6))  # 7 cards in groups
    assert env.action_masks()[k.END_MELD]
    place(env, [N])  # a neutral not between two real cards of a group
    assert not env.action_masks()[k.END_MELD]
    env.step(k.UNDO)
    bishops = [card(BISHOP, n) for n in (1, 3, 4, 5)]
    place(env, [*bishops, N])  # Bishop 1, N, 3, 4, 5: five cards, a neutral inside
    assert not env.action_masks()[k.END_MELD]
    place(env, run(PAWN, 1, 3))  # and Pawn 1-3: 8 cards
    assert env.action_masks()[k.END_MELD]
    _, _, _, _, info = env.step(k.END_MELD)
    assert info["opened"]
    assert env.state_dict()["table"] == [run(PAWN, 1, 3), [bishops[0], N, *bishops[1:]]]


def test_neutral_at_ends_reaches_the_engine():
    hand = [N, card(PAWN, 2), card(PAWN, 3), *run(KNIGHT, 1, 4), *run(ROOK, 1, 7)]
    for ends in (False, True):
        env = fresh(neutral_at_ends=ends)
        rig(env, hand)
        place(env, [N, card(PAWN, 2), card(PAWN, 3), *run(KNIGHT, 1, 4)])
        assert env.action_masks()[k.END_MELD] == ends


def test_max_placements_counts_undone_placements():
    env = fresh(max_placements=7)  # the least allowed: the 7 cards of an opening
    rig(env, [*run(PAWN, 1, 7), *run(KNIGHT, 1, 7)])
    place(env, run(PAWN, 1, 4))
    env.step(k.UNDO)
    place(env, run(PAWN, 1, 3))
    assert not env.action_masks()[k.PLACE : k.UNDO].any()
    assert env.action_masks()[k.UNDO] and not env.action_masks()[k.END_MELD]


def test_after_opening_cards_join_the_table_and_rearrange_it():
    env = fresh()
    table = [*run(PAWN, 1, 4), *run(KNIGHT, 5, 7)]
    hand = [card(PAWN, 5), card(KNIGHT, 4), card(BISHOP, 4), card(JOKER, 9), card(QUEEN, 1)]
    rig(env, hand, draws=[card(ROOK, 2)], table=table, opened=True)
    place(env, [card(JOKER, 9)])  # fits nowhere
    assert not env.action_masks()[k.END_MELD]
    env.step(k.UNDO)
    place(env, [card(PAWN, 5)])  # joins Pawn 1-4
    assert env.action_masks()[k.END_MELD]
    env.step(k.UNDO)
    # Bishop 4 fits only in a colour group with Knight 4 and the Pawn 4 of Pawn 1-4
    place(env, [card(BISHOP, 4)])
    assert not env.action_masks()[k.END_MELD]
    place(env, [card(KNIGHT, 4)])
    assert env.action_masks()[k.END_MELD]
    obs, reward, term, _, info = env.step(k.END_MELD)
    assert (reward, term) == (0.0, False)
    groups = env.state_dict()["table"]
    assert sorted(map(sorted, groups)) == sorted(
        map(sorted, [run(PAWN, 1, 3), [card(PAWN, 4), card(KNIGHT, 4), card(BISHOP, 4)],
                     run(KNIGHT, 5, 7)])
    )  # fmt: skip
    assert part(obs, "table").sum() == 9 and part(obs, "hand").sum() == 3 + 1


def test_emptying_the_hand_ends_with_minus_the_cards_drawn():
    """Open with 7, join and start groups, then empty the hand: reward -(cards on the table)
    = -(cards drawn)."""
    env = fresh()
    hand = [*run(PAWN, 1, 9), *run(KNIGHT, 1, 4), card(JOKER, 9)]  # Joker 9 fits nowhere
    rig(env, hand, draws=[card(QUEEN, 9), card(ROOK, 9), card(PAWN, 1)])
    assert not valid(counts(hand)) and not valid(counts([*hand, card(QUEEN, 9)]))
    place(env, run(PAWN, 1, 7))
    env.step(k.END_MELD)  # draws Queen 9
    place(env, [card(PAWN, 8), card(PAWN, 9), *run(KNIGHT, 1, 4)])
    _, reward, term, _, info = env.step(k.END_MELD)  # draws Rook 9
    assert (reward, term, info["cards_drawn"]) == (0.0, False, 16)
    obs, reward, term, trunc, info = place(env, [card(JOKER, 9), card(QUEEN, 9), card(ROOK, 9)])
    assert env.action_masks()[k.END_MELD] and part(obs, "hand").sum() == 0
    obs, reward, term, trunc, info = env.step(k.END_MELD)
    assert (reward, term, trunc) == (-16.0, True, False)
    assert info == {"cards_drawn": 16, "opened": True, "score": 16, "hand_empty": True}
    assert part(obs, "table").sum() == 16 and part(obs, "piles")[0] == 112 - 16
    assert not env.action_masks().any() and env.state_dict()["scores"] == [16.0]
    with pytest.raises(RuntimeError, match="over"):
        env.step(k.END_MELD)


def test_a_hand_that_forms_a_table_at_once_scores_14():
    env = fresh()
    hand = [*run(PAWN, 1, 9), *run(KNIGHT, 3, 7)]
    rig(env, hand)
    place(env, hand)
    _, reward, term, _, info = env.step(k.END_MELD)
    assert (reward, term, info["score"], info["cards_drawn"]) == (-14.0, True, 14, 14)


def test_an_empty_deck_with_cards_in_hand_ends_with_minus_112_plus_the_hand():
    env = fresh(3)
    for turn in range(98):  # never placing: every END_MELD draws one
        _, reward, term, _, info = env.step(k.END_MELD)
        assert (reward, term, info["cards_drawn"]) == (0.0, False, 15 + turn)
    obs, reward, term, trunc, info = env.step(k.END_MELD)  # the deck is empty
    assert (reward, term, trunc) == (-224.0, True, False)
    assert info["score"] == 224 and not info["hand_empty"]
    assert part(obs, "hand").sum() == 112 and part(obs, "phase").sum() == 0
    # opened with 7: the hand keeps 105 cards
    env = fresh(4)
    hand = [*run(PAWN, 1, 7), *run(JOKER, 1, 2), *run(QUEEN, 5, 9)]
    rig(env, hand)
    place(env, run(PAWN, 1, 7))
    for _ in range(98):
        _, reward, term, *_ = env.step(k.END_MELD)
        assert not term
    _, reward, term, _, info = env.step(k.END_MELD)
    assert (reward, term, info["score"], info["opened"]) == (-(112 + 105), True, 217, True)


def test_illegal_actions_raise_and_change_nothing():
    env = fresh(1)
    row = env.unwrapped._row.copy()
    absent = next(c for c in range(k.NUM_IDS) if not part(env.unwrapped._observe(), "hand")[c])
    for a in (k.DRAW, k.TAKE, k.UNDO, k.DISCARD, k.PLACE + absent, -1, k.NUM_ACTIONS):
        with pytest.raises(ValueError, match=f"illegal action {a}"):
            env.step(a)
        assert np.array_equal(env.unwrapped._row, row)
    with pytest.raises(ValueError, match="must be an int"):
        env.step(1.0)


def test_penalize_ends_the_episode_with_the_worst_score():
    env = fresh(1, illegal_action="penalize")
    obs, reward, term, trunc, info = env.step(k.DRAW)
    assert (reward, term, trunc) == (-float(ILLEGAL_SCORE), True, False)
    assert info["illegal_action"] and info["score"] == ILLEGAL_SCORE == 224
    low, high = RummidrezSolo().reward_range()
    assert low == reward and high == 0.0  # no finished or lost game scores worse
    with pytest.raises(RuntimeError, match="over"):
        env.step(k.END_MELD)
    obs, _ = env.reset(seed=1)
    assert part(obs, "hand").sum() == 14


def test_action_masks_are_the_legality_the_observation_implies():
    """Along random games: PLACE c iff c is in hand (while the turn has placements left),
    UNDO iff something is placed, END_MELD iff nothing is placed or the placed cards make a
    valid table (opened) or an opening of >= 7 (not opened), decided from the observation."""
    cap = 20
    env = card_envs.make(ID, max_placements=cap)
    rng = np.random.default_rng(0)
    checked_end = Counter()
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        placements, plan = 0, []
        for _ in range(500):
            hand, table, placed = part(obs, "hand"), part(obs, "table"), part(obs, "placed")
            opened = part(obs, "opened")[0] == 1
            if placed.sum() == 0:
                can_end = True
            elif opened:
                can_end = valid(table + placed)
            else:
                can_end = placed.sum() >= k.OPEN_MIN and valid(placed)
            want = np.zeros(k.NUM_ACTIONS, dtype=bool)
            want[k.PLACE : k.UNDO] = (hand > 0) & (placements < cap)
            want[k.UNDO] = placed.sum() > 0
            want[k.END_MELD] = can_end
            mask = env.action_masks()
            assert np.array_equal(mask, want)
            assert env.observation_space.contains(obs)
            checked_end[(bool(placed.sum()), can_end)] += 1
            # now and then a turn places the largest part of the hand that fits (valid or
            # not), so that END_MELD is checked on tables of both kinds
            if placements == 0 and rng.random() < 0.5:
                plan = _largest_fit(hand, table if opened else table * 0)
            if plan and mask[k.PLACE + plan[0]]:
                a = k.PLACE + plan.pop(0)
            elif mask[k.END_MELD] and rng.random() < 0.5:
                a, plan = k.END_MELD, []
            else:
                a = int(rng.choice(np.flatnonzero(mask)))
            placements = 0 if a == k.END_MELD else placements + (k.PLACE <= a < k.UNDO)
            obs, _, done, _, _ = env.step(a)
            if done:
                break
    assert checked_end[(True, True)] >= 10 and checked_end[(True, False)] >= 10


def _largest_fit(hand: np.ndarray, table: np.ndarray) -> list[int]:
    """The cards of the largest part of `hand` that forms a valid table with `table`."""
    fit, neutrals = largest_valid_subset(
        hand[:N].reshape(6, 9), int(hand[N]), table[:N].reshape(6, 9), int(table[N])
    )
    return np.repeat(np.arange(k.NUM_IDS), np.append(fit.ravel(), neutrals)).tolist()


def test_maskable_ppo_learns_without_error():
    from sb3_contrib import MaskablePPO

    env = card_envs.make(ID)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    obs, _ = env.reset(seed=0)
    for _ in range(20):
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, _, term, _, _ = env.step(action)
        if term:
            obs, _ = env.reset()


# --- the best score of a shuffle -----------------------------------------------------------


def optimum(order: list[int], ends: bool) -> int:
    """The smallest t >= 14 such that the first t cards of `order` form a valid table."""
    for t in range(14, len(order) + 1):
        if valid(counts(order[:t]), ends):
            return t
    raise AssertionError("even the whole deck is no valid table")


def solver_turn(env, obs, ends: bool):
    """One melding phase of the solver player: everything if table + hand is a valid table,
    else (not opened) the largest valid part of the hand if it has >= 7 cards; then END_MELD."""
    hand, table = part(obs, "hand"), part(obs, "table")
    if valid(hand + table, ends):
        chosen = hand
    elif not part(obs, "opened")[0]:
        fit, neutrals = largest_valid_subset(
            hand[:N].reshape(6, 9), int(hand[N]), neutral_at_ends=ends
        )
        chosen = np.append(fit.ravel(), neutrals)
        if chosen.sum() < k.OPEN_MIN:
            chosen = chosen * 0
    else:
        chosen = hand * 0
    place(env, np.repeat(np.arange(k.NUM_IDS), chosen))
    return env.step(k.END_MELD)


@pytest.mark.parametrize("ends", [False, True])
def test_the_solver_player_reaches_the_optimum_of_the_shuffle(ends):
    seeds = range(4) if not ends else range(2)
    for seed in seeds:
        env = card_envs.make(ID, neutral_at_ends=ends)
        obs, _ = env.reset(seed=seed)
        s = env.state_dict()
        order = [*s["hands"][0], *s["draw_pile"]]  # the 14 dealt, then the draws in order
        assert sorted(order) == sorted(np.repeat(np.arange(k.NUM_IDS), FULL_DECK).tolist())
        best = optimum(order, ends)
        while True:
            obs, reward, term, trunc, info = solver_turn(env, obs, ends)
            if term or trunc:
                break
        assert not trunc and info["hand_empty"]
        assert info["score"] == info["cards_drawn"] == best == -reward, (seed, info, best)
        assert env.unwrapped._row[layout.STATUS] == layout.TERMINATED
