"""Checks of what other libraries do with an env: step it with numpy actions, read its state
vector.

Each check takes an env id and a config and raises `AssertionError` naming the env, the config
and what broke. They play seeded random legal games of a few hundred steps at most.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core.aec import CardEnv
from card_envs.registry import make

Config = dict[str, Any]
Trace = list[Any]


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


# --- the checks -----------------------------------------------------------------------------------


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
    for action in (np.int64(a), np.int32(a), np.uint16(a), np.array(a), np.array(a, np.int8)):
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
