"""Checks of what other libraries do with an env: copy it, step it with numpy actions, read its
state vector, run it as a Parallel env.

Each check takes an env id and a config and raises `AssertionError` naming the env, the config
and what broke. They play seeded random legal games of a few hundred steps at most.
`same_future` and the `play_*` functions also serve the single-agent views' tests.
"""

from __future__ import annotations

import contextlib
import copy
import io
import pickle
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium.utils.env_checker import data_equivalence

from card_envs.core.aec import CardEnv
from card_envs.core.batched import BatchedEnv
from card_envs.registry import make, make_parallel, make_vec

Config = dict[str, Any]
Trace = list[Any]

COPIES: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "deepcopy": copy.deepcopy,
}


def _where(env_id: str, config: Config) -> str:
    return f"{env_id} {config}"


def _random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of `masks` (2-D)."""
    return np.argmax((np.asarray(masks) != 0) * (1.0 + rng.random(np.shape(masks))), axis=1)


# --- playing each face, recording everything it shows -------------------------------------------


def play_aec(env: CardEnv, steps: int, seed: int) -> Trace:
    """`steps` random legal AEC steps (dead steps and new games included): per step the agent,
    `last()`, `state()` and the full state row, PRNG included."""
    rng = np.random.default_rng(seed)
    trace: Trace = []
    for _ in range(steps):
        if not env.agents:
            env.reset()  # no seed: continues the env's own random stream
        agent = env.agent_selection
        obs, reward, terminated, truncated, info = env.last()
        trace.append(
            (agent, obs, reward, terminated, truncated, info, env.state(), env._row.copy())
        )
        done = terminated or truncated
        env.step(None if done else int(_random_legal(obs["action_mask"][None], rng)[0]))
    return trace


def play_batched(venv: BatchedEnv, steps: int, seed: int) -> Trace:
    """`steps` random legal batched steps: per step everything `step` returns, the final
    observations, scores and wins, and the state rows."""
    rng = np.random.default_rng(seed)
    trace: Trace = []
    for _ in range(steps):
        out = venv.step(_random_legal(venv.action_masks, rng))
        finals = (venv.final_observations, venv.final_scores, venv.final_wins)
        trace.append(tuple(np.copy(a) for a in (*out, *finals, venv.states)))
    return trace


def play_gym(env: Any, steps: int, seed: int) -> Trace:
    """`steps` random legal steps of a single-agent Gymnasium env with `action_masks()`, reset
    (without a seed) after each episode."""
    rng = np.random.default_rng(seed)
    trace: Trace = []
    for _ in range(steps):
        result = env.step(int(_random_legal(env.action_masks()[None], rng)[0]))
        trace.append((*result, env.action_masks()))
        if result[2] or result[3]:
            trace.append((*env.reset(), env.action_masks()))
    return trace


def play_vec(venv: Any, steps: int, seed: int) -> Trace:
    """`steps` random legal steps of an SB3 VecEnv with `action_masks()`."""
    rng = np.random.default_rng(seed)
    return [
        (*venv.step(_random_legal(venv.action_masks(), rng)), venv.action_masks())
        for _ in range(steps)
    ]


def same_future(
    env: Any, play: Callable[[Any, int, int], Trace], where: str, steps: int, seed: int = 0
) -> None:
    """A pickled and a deep-copied `env` play on exactly like `env` (the same actions give the
    same trace), and playing the copies first leaves `env` as it was."""
    twins = {how: clone(env) for how, clone in COPIES.items()}
    traces = {how: play(twin, steps, seed) for how, twin in twins.items()}
    want = play(env, steps, seed)
    for how, got in traces.items():
        for t, (a, b) in enumerate(zip(got, want, strict=True)):
            if data_equivalence(a, b, exact=True):
                continue
            k = next(k for k in range(len(a)) if not data_equivalence(a[k], b[k], exact=True))
            raise AssertionError(
                f"{where}: the {how} copy differs from the original (or stepping it changed the "
                f"original) {t} steps after the copy, in item {k} of {play.__name__}'s record: "
                f"{_short(a[k])} != {_short(b[k])}"
            )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


# --- the checks -----------------------------------------------------------------------------------


def check_copies(env_id: str, config: Config, seed: int = 0) -> None:
    """Pickled and deep-copied mid-game, the AEC env and the batched env play on exactly like
    the original; the original is unaffected by stepping the copies."""
    where = _where(env_id, config)
    env = make(env_id, **config)
    env.reset(seed=seed)
    play_aec(env, 7, seed + 1)
    same_future(env, play_aec, f"{where} AEC env", steps=150, seed=seed + 2)
    venv = make_vec(env_id, 4, seed=seed, **config)
    venv.reset()
    play_batched(venv, 7, seed + 1)
    same_future(venv, play_batched, f"{where} batched env", steps=60, seed=seed + 2)


def check_numpy_actions(env_id: str, config: Config, seed: int = 0) -> None:
    """The AEC env takes numpy integer scalars and 0-d integer arrays (SB3's `predict` for one
    observation) as the int they hold; floats, bools, arrays of actions and out-of-range ints
    are refused with a ValueError naming the action, changing nothing."""
    where = _where(env_id, config)
    reference = make(env_id, **config)
    reference.reset(seed=seed)
    mask = reference.observe(reference.agent_selection)["action_mask"]
    a = int(np.flatnonzero(mask)[0])
    row = reference._row.copy()
    reference.step(a)
    n = reference.game.num_actions
    small = np.int8 if a <= np.iinfo(np.int8).max else np.int16  # the smallest that holds it
    for action in (np.int64(a), np.int32(a), np.uint16(a), np.array(a), np.array(a, small)):
        env = make(env_id, **config)
        env.reset(seed=seed)
        try:
            env.step(action)
        except ValueError as err:
            raise AssertionError(
                f"{where}: the legal action {action!r} was refused: {err}"
            ) from err
        assert np.array_equal(env._row, reference._row), f"{where}: {action!r} did not play {a}"
    env = make(env_id, **config)
    env.reset(seed=seed)
    refused = [float(a), np.float32(a), np.array(float(a)), True, np.bool_(False), np.array(True)]
    refused += [np.array([a]), np.array([[a]]), n, -1, np.int64(n), np.array(-1)]
    for action in refused:
        try:
            env.step(action)
        except ValueError as err:
            assert repr(action) in str(err), f"{where}: the error for {action!r} does not name it"
        else:
            raise AssertionError(f"{where}: action {action!r} was accepted")
        assert np.array_equal(env._row, row), f"{where}: the refused {action!r} changed the game"


def check_state_vector(env_id: str, config: Config, seed: int = 0, steps: int = 200) -> None:
    """At every step of seeded random games, `state()` is in `state_space` and is every seat's
    observation, seat 0 first."""
    where = _where(env_id, config)
    env = make(env_id, **config)
    env.reset(seed=seed)
    size = env.game.obs_size
    assert env.state_space.shape == (env.num_agents * size,), f"{where}: {env.state_space}"
    for agent, obs, *_, state, _row in play_aec(env, steps, seed):
        assert env.state_space.contains(state), f"{where}: state() not in state_space"
        seat = env.possible_agents.index(agent)
        got = state[seat * size : (seat + 1) * size]
        assert np.array_equal(got, obs["observation"]), f"{where}: {agent}'s part of state()"
    observations = [env.observe(agent)["observation"] for agent in env.possible_agents]
    assert np.array_equal(env.state(), np.concatenate(observations)), f"{where}: state()"


def check_parallel(env_id: str, config: Config, seed: int = 0) -> None:
    """`make_parallel` passes PettingZoo's parallel API and seed tests with
    `illegal_action="penalize"`, and plays a seeded game (up to 200 steps) exactly as the AEC
    env does: the same observations, masks (only the seat to act has one), rewards and
    state."""
    from pettingzoo.test import parallel_api_test, parallel_seed_test  # imports pytest: here

    where = _where(env_id, config)

    def factory():
        return make_parallel(env_id, illegal_action="penalize", **config)

    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo reports API problems as warnings
        warnings.filterwarnings("ignore", ".*illegal action", UserWarning)  # penalize warns
        try:
            parallel_api_test(factory(), num_cycles=100)
            parallel_seed_test(factory, num_cycles=100)
        except (AssertionError, UserWarning) as err:
            raise AssertionError(f"{where}: {type(err).__name__}: {err}") from err
    par, env = make_parallel(env_id, **config), make(env_id, **config)
    obs, _ = par.reset(seed=seed)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(200):  # or to the end of the game
        live = [agent for agent in par.agents if obs[agent]["action_mask"].any()]
        assert live == [env.agent_selection], f"{where}: seats with a mask {live}"
        for agent in par.agents:
            assert data_equivalence(obs[agent], env.observe(agent)), f"{where}: {agent}'s obs"
        assert np.array_equal(par.state(), env.state()), f"{where}: state()"
        action = int(_random_legal(obs[live[0]]["action_mask"][None], rng)[0])
        obs, rewards, terminations, truncations, _ = par.step(dict.fromkeys(par.agents, action))
        env.step(action)
        assert rewards == env.rewards, f"{where}: rewards {rewards} != {env.rewards}"
        if not par.agents:
            assert all(terminations.values()) or all(truncations.values()), where
            return
