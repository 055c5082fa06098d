"""The batched env's own contract (shapes, read-only views, seeding, SKIP, errors), on No
Thanks; that it plays the AEC env's games is the conformance suite's check."""

from __future__ import annotations

import copy
import importlib.util
import os
import random
import subprocess
import sys

import numpy as np
import pytest

import card_envs
from card_envs.core import threads
from card_envs.core.batched import SKIP
from card_envs.core.threads import usable_cores
from card_envs.games.no_thanks import engine as k
from tests.games.no_thanks.helpers import ENV_ID, NO_THANKS, PLAYER_COUNTS, TAKE, make_env


def make_vec(num_envs, seed=None, **config):
    return card_envs.make_vec(ENV_ID, num_envs, seed=seed, **config)


def deal_of(row: np.ndarray) -> tuple[int, ...]:
    return tuple(int(c) for c in row[k.DECK : k.DECK + k.NUM_CARDS])


def choose(mask: np.ndarray, rng: random.Random, p_take: float) -> int:
    if not mask[NO_THANKS]:
        return TAKE
    return TAKE if rng.random() < p_take else NO_THANKS


@pytest.mark.parametrize("num_players", [3, 6])
def test_same_seed_same_trajectory(num_players):
    def run():
        vec = make_vec(4, seed=77, num_players=num_players)
        obs, masks = vec.reset()
        rng = random.Random(5)
        trace = [(obs.copy(), masks.copy(), vec.states.copy())]
        for _ in range(400):
            actions = [choose(masks[i], rng, 0.4) for i in range(4)]
            obs, masks, rewards, term, trunc = vec.step(actions)
            trace.append((obs.copy(), masks.copy(), rewards.copy(), term.copy(), trunc.copy()))
        return trace

    a, b = run(), run()
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            np.testing.assert_array_equal(u, v)


def test_reset_seed_argument_overrides_construction_seed():
    a = make_vec(3, seed=1)
    b = make_vec(3, seed=2)
    a.reset()
    b.reset(seed=1)
    np.testing.assert_array_equal(a.states, b.states)
    env = make_env(3)
    for i in range(3):
        env.reset(seed=1 + i)
        assert deal_of(a.states[i]) == deal_of(env._row)


def test_second_reset_without_seed_continues_each_instance_stream():
    """The batched env's docs: a later reset() without a seed continues each instance's
    stream, like AEC reset() without a seed. So a seeded run stays reproducible and
    instance i's second deal is the AEC env's second deal after reset(seed=seed + i)."""
    vec = make_vec(3, seed=40)
    vec.reset()
    vec.reset()
    env = make_env(3)
    for i in range(3):
        env.reset(seed=40 + i)
        env.reset()
        assert deal_of(vec.states[i]) == deal_of(env._row), f"instance {i}"


def test_different_instances_get_different_deals():
    vec = make_vec(16, seed=3)
    vec.reset()
    deals = {deal_of(row) for row in vec.states}
    assert len(deals) == 16
    for row in vec.states:
        assert sorted(deal_of(row)) == list(range(3, 36))


def test_unseeded_batched_envs_differ():
    a, b = make_vec(2), make_vec(2)
    a.reset()
    b.reset()
    assert deal_of(a.states[0]) != deal_of(b.states[0])


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_shapes_and_dtypes(num_players):
    vec = make_vec(5, seed=0, num_players=num_players)
    obs, masks = vec.reset()
    env = make_env(num_players)
    size = env.observation_space("player_0")["observation"].shape[0]
    assert obs.shape == (5, size) and obs.dtype == np.float32
    assert masks.shape == (5, 2) and masks.dtype == np.int8
    assert vec.current_player.tolist() == [0] * 5  # seat 0 starts every game
    out = vec.step(np.zeros(5, dtype=np.int64))
    obs, masks, rewards, term, trunc = out
    assert rewards.shape == (5, num_players)
    assert term.shape == trunc.shape == (5,)
    assert term.dtype == trunc.dtype == np.bool_
    assert vec.final_scores.shape == (5, num_players)
    assert vec.final_observations.shape == (5, num_players, size)
    low = env.observation_space("player_0")["observation"].low
    high = env.observation_space("player_0")["observation"].high
    assert (obs >= low).all() and (obs <= high).all()


def test_returned_arrays_are_read_only():
    vec = make_vec(2, seed=0)
    obs, masks = vec.reset()
    arrays = [obs, masks, *vec.step([1, 1]), vec.current_player, vec.final_scores]
    arrays.append(vec.final_observations)
    for arr in arrays:
        assert not arr.flags.writeable
        with pytest.raises(ValueError):
            arr[...] = 0


def test_illegal_action_raises_naming_the_instance_and_steps_nothing():
    vec = make_vec(3, seed=9, num_players=3)
    vec.reset()
    for _ in range(33):  # everyone passes until nobody has a token
        vec.step([NO_THANKS] * 3)
    assert vec.action_masks.tolist() == [[1, 0]] * 3
    states = vec.states.copy()
    with pytest.raises(ValueError, match=r"instance 1\b") as err:
        vec.step([TAKE, NO_THANKS, TAKE])
    assert "[0]" in str(err.value)  # the legal actions there
    np.testing.assert_array_equal(vec.states, states)  # no instance was stepped
    vec.step([TAKE, TAKE, TAKE])  # still usable
    assert (vec.states[:, k.TOKENS] == 33).all()


@pytest.mark.parametrize("bad", [2, 7, -2, -100])
def test_out_of_range_action_raises(bad):
    vec = make_vec(3, seed=9)
    vec.reset()
    with pytest.raises(ValueError, match="instance 2"):
        vec.step([0, 0, bad])


@pytest.mark.parametrize("actions", [[0, 0], [0, 0, 0, 0], [[0, 0, 0]], 0, []])
def test_wrong_actions_shape_raises(actions):
    vec = make_vec(3, seed=9)
    vec.reset()
    with pytest.raises(ValueError, match="shape"):
        vec.step(actions)


def test_skip_leaves_an_instance_untouched():
    vec = make_vec(3, seed=12)
    vec.reset()
    vec.step([NO_THANKS, NO_THANKS, NO_THANKS])
    before = vec.states.copy()
    obs_before = vec.observations.copy()
    _, _, rewards, term, trunc = vec.step([SKIP, TAKE, SKIP])
    np.testing.assert_array_equal(vec.states[[0, 2]], before[[0, 2]])
    np.testing.assert_array_equal(vec.observations[[0, 2]], obs_before[[0, 2]])
    assert not rewards.any() and not term.any() and not trunc.any()
    assert vec.states[1, k.TOKENS + 1] == 12  # seat 1 took the card and the 1 token on it
    # the skipped instances then continue exactly as an unskipped twin does
    twin = make_vec(3, seed=12)
    twin.reset()
    twin.step([NO_THANKS, NO_THANKS, NO_THANKS])
    np.testing.assert_array_equal(twin.states[[0, 2]], vec.states[[0, 2]])


def test_step_before_reset_raises():
    vec = make_vec(2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step([0, 0])


@pytest.mark.parametrize("num_envs", [0, -1, 2.0, True, "3"])
def test_bad_num_envs_raises(num_envs):
    with pytest.raises(ValueError, match="num_envs"):
        make_vec(num_envs)


def test_tied_winners_share_in_batched_env():
    # seat 0 takes all 24 cards: the other seats tie on minus their starting tokens
    vec = make_vec(2, seed=5, num_players=5)
    vec.reset()
    for _ in range(23):
        _, _, rewards, term, _ = vec.step([TAKE, TAKE])
        assert not term.any() and not rewards.any()
    _, _, rewards, term, _ = vec.step([TAKE, TAKE])
    assert term.all()
    np.testing.assert_allclose(rewards, [[0, 0.25, 0.25, 0.25, 0.25]] * 2)
    assert (vec.final_scores[:, 1:] == -11).all()
    assert vec.current_player.tolist() == [0, 0]  # the auto-reset game starts at seat 0


def test_float_actions_are_refused_not_truncated():
    venv = card_envs.make_vec("no_thanks_v0", 2, seed=0)
    venv.reset()
    with pytest.raises(ValueError, match="integers.*float"):
        venv.step(np.array([0.7, 1.2]))


_PLAY_ONE_STEP = """
import sys
import numpy as np
import card_envs
from card_envs.core.batched import SKIP
venv = card_envs.make_vec(sys.argv[1], 4, seed=0)
obs, masks = venv.reset()
venv.step(np.where(masks.any(axis=1), masks.argmax(axis=1), SKIP))
print("played", sys.argv[1])
"""


@pytest.mark.slow
def test_a_later_process_compiles_another_game_into_the_same_cache(tmp_path):
    """Numba's cache index of a function that takes kernels as arguments would hold the
    kernels of every game it saw; a later process that saved another game's entry failed
    ("underlying object has vanished") once those from earlier processes were collected,
    which NUMBA_FUNCTION_CACHE_SIZE=0 makes immediate. The generic loops are not cached."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), NUMBA_FUNCTION_CACHE_SIZE="0")
    for env_id in ("no_thanks_v0", "double_or_nothing_v0"):
        done = subprocess.run(
            [sys.executable, "-c", _PLAY_ONE_STEP, env_id], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.split() == ["played", env_id]


@pytest.mark.parametrize("bad", [0, -1, "all", 1.0, True])
def test_bad_num_threads_is_refused_naming_the_range(bad):
    top = usable_cores()
    with pytest.raises(ValueError, match=rf"num_threads must be an int in 1\.\.{top}.*{bad!r}"):
        make_vec(2, num_threads=bad)


def test_more_threads_than_cores_is_refused():
    top = usable_cores()
    with pytest.raises(ValueError, match=rf"1\.\.{top} .*got {top + 1}"):
        make_vec(2, num_threads=top + 1)


def test_none_threads_means_every_usable_core():
    assert make_vec(2, num_threads=None).num_threads == usable_cores()


def test_a_copy_keeps_its_threads_and_plays_on():
    vec = make_vec(4, seed=3, num_threads=usable_cores())
    vec.reset()
    twin = copy.deepcopy(vec)
    assert twin.num_threads == vec.num_threads
    for _ in range(30):
        actions = np.argmax(vec.action_masks, axis=1)
        a = [x.copy() for x in vec.step(actions)]
        b = twin.step(actions)
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


def test_without_a_threading_layer_the_env_warns_and_steps_on_one_thread(monkeypatch):
    monkeypatch.setattr(threads, "usable_cores", lambda: 4)
    monkeypatch.setattr(threads, "threading_layer", lambda: None)
    with pytest.warns(RuntimeWarning, match="num_threads=2: numba could not load a threading"):
        vec = make_vec(2, seed=0, num_threads=2)
    assert vec.num_threads == 1
    vec.reset()
    vec.step(np.argmax(vec.action_masks, axis=1))


def test_threading_layer_is_none_when_numba_cannot_load_the_one_asked_for():
    """Asking numba for TBB where it is not installed is a real build without a layer."""
    assert importlib.util.find_spec("tbb") is None, "this check needs TBB absent"
    code = "from card_envs.core.threads import threading_layer; print(threading_layer())"
    env = {**os.environ, "NUMBA_THREADING_LAYER": "tbb"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "None"
