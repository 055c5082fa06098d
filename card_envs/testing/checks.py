"""The checks every registered multi-agent env must pass, each for one env id and config.

Each check raises `AssertionError` naming the env, the config and what broke; they play
seeded random legal games, so a failure reproduces. `tests/test_conformance.py` runs them
over `card_envs.testing.cases()`; a user who writes a sixth game can call them the same way.
"""

from __future__ import annotations

import copy
import io
import json
import math
import os
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import redirect_stdout
from functools import partial
from typing import Any

import numpy as np
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

from card_envs.core import layout, padding, scene, segments
from card_envs.core.aec import CardEnv
from card_envs.core.batched import BLOCK_ROWS, SKIP
from card_envs.core.threads import usable_cores
from card_envs.positions import Position, of_env
from card_envs.registry import game_class, make, make_game, make_vec

Config = dict[str, Any]
POSITIONS_PER_GAME = 50  # `positions` visits at most this many positions of a game


def _where(env_id: str, config: Config) -> str:
    return f"{env_id} {config}"


def _legal(mask: np.ndarray) -> np.ndarray:
    return np.flatnonzero(mask)


def _random_action(env: CardEnv, rng: np.random.Generator, p_last: float = 0.0) -> int:
    """A uniform legal action; the highest legal one with probability `p_last` (such play
    reaches rarer masks, e.g. a No Thanks player out of tokens)."""
    mask = env.observe(env.agent_selection)["action_mask"]
    legal = _legal(mask)
    assert len(legal), f"{env.game.env_id}: {env.agent_selection} is to act with an empty mask"
    return int(legal[-1] if rng.random() < p_last else rng.choice(legal))


def _live(env: CardEnv) -> bool:
    return bool(env.agents) and int(env._row[layout.STATUS]) == layout.RUNNING


def game_env(env_id: str, config: Config) -> CardEnv:
    """The AEC env over the game of `env_id`: `make(env_id)` for a multi-agent id, and for a
    single-agent id serving a game of its own (the solo game) that game with its one seat."""
    return CardEnv(make_game(env_id, **config))


def _length(env: CardEnv, seed: int, rng: np.random.Generator, p_last: float = 0.0) -> int:
    """The moves of the game that `_random_action` with `rng` plays from `env.reset(seed=seed)`
    (`rng` itself is left as it was, to play the same game again)."""
    ahead = copy.deepcopy(rng)
    env.reset(seed=seed)
    moves = 0
    while _live(env):
        env.step(_random_action(env, ahead, p_last))
        moves += 1
    return moves


def positions(
    env_id: str,
    config: Config,
    seed: int,
    games: int = 2,
    every: int = 1,
    p_last: float = 0.0,
    most: int = POSITIONS_PER_GAME,
) -> Iterator[CardEnv]:
    """The AEC env (`game_env`) at every `every`-th live position of `games` seeded random
    games, at most `most` of them a game, spread over the whole of it.

    Random play makes some games long (a 3-player Super Zwierzaki game runs to 1,500 moves,
    the solo Rummidrez game to 8,000): each game is played once to count its moves, and a
    long one is visited at a wider stride, its start, middle and end alike."""
    env = game_env(env_id, config)
    rng = np.random.default_rng(seed)
    for game in range(games):
        stride = max(every, -(-_length(env, seed + game, rng, p_last) // most))
        env.reset(seed=seed + game)
        step = 0
        while _live(env):
            if step % stride == 0:
                yield env
            env.step(_random_action(env, rng, p_last))
            step += 1


# --- PettingZoo's own tests --------------------------------------------------------------------


def check_pettingzoo(env_id: str, config: Config) -> None:
    """PettingZoo's `api_test`, `seed_test` and `render_test`."""
    # imported here: pettingzoo.test imports pytest, a tenth of a second of every command's
    # start (the CLI's parser imports this module for `conformance`'s arguments)
    from pettingzoo.test import api_test, render_test, seed_test

    with warnings.catch_warnings(), redirect_stdout(io.StringIO()):  # its progress lines
        # api_test's hints for dict observations and non-Box spaces do not apply to masked envs
        warnings.filterwarnings("ignore", message="Observation", category=UserWarning)
        api_test(make(env_id, **config), num_cycles=200)
    seed_test(lambda: make(env_id, **config), num_cycles=200)
    with redirect_stdout(io.StringIO()):
        render_test(lambda render_mode=None: make(env_id, render_mode=render_mode, **config))


# --- whole games -------------------------------------------------------------------------------


def check_games(env_id: str, config: Config, games: int = 12, seed: int = 0) -> None:
    """Seeded random games to the end: the conservation laws hold after every step, every
    observation is in its space, only the agent to act has a mask, rewards are finite and in
    the game's range, and each game ends with scores and win shares in `infos`."""
    where = _where(env_id, config)
    env = make(env_id, **config)
    game = env.game
    low, high = game.reward_range()
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=seed + g)
        wins = {}
        steps = 0
        for agent in env.agent_iter(max_iter=10_000_000):
            obs, reward, term, trunc, info = env.last()
            assert math.isfinite(reward) and low <= reward <= high, f"{where}: reward {reward}"
            error = game.invariant_error(env._row)
            assert error is None, f"{where}, game {g}, step {steps}: {error}"
            for other in env.possible_agents:
                o = env.observe(other)
                space = env.observation_space(other)
                assert space.contains(o), f"{where}: observation of {other} outside its space"
                if other != agent or term or trunc:
                    assert not o["action_mask"].any(), f"{where}: {other} has a mask"
            if term or trunc:
                assert {"score", "win"} <= set(info), f"{where}: infos of {agent}: {info}"
                wins[agent] = info["win"]
                env.step(None)
                continue
            assert obs["action_mask"].any(), f"{where}: {agent} to act with an empty mask"
            env.step(_random_action(env, rng))
            steps += 1
        assert env.agents == [], f"{where}: game {g} did not end"
        assert sorted(wins) == sorted(env.possible_agents), f"{where}: dead steps {wins}"
        assert math.isclose(sum(wins.values()), 1.0), f"{where}: win shares {wins}"
        assert steps == int(env._row[layout.TURN]), f"{where}: turn counter"


def check_batched_matches_aec(env_id: str, config: Config, seed: int = 500) -> None:
    """Instance i of a seeded batched env plays the games of an AEC env reset with seed + i
    (then reset without a seed): same rows, observations, masks, rewards, ends and results.
    On one thread: `check_threads_match` holds more threads to what one gives."""
    where = _where(env_id, config)
    num_envs, games_wanted = 3, 2
    vec = make_vec(env_id, num_envs, seed=seed, **config)
    obs, masks = vec.reset()
    aecs = [make(env_id, **config) for _ in range(num_envs)]
    for i, env in enumerate(aecs):
        env.reset(seed=seed + i)
    rng = np.random.default_rng(seed)
    games = [0] * num_envs

    def compare(i: int) -> None:
        env = aecs[i]
        assert env.agent_selection == f"player_{vec.current_player[i]}", f"{where}: seat"
        o = env.observe(env.agent_selection)
        np.testing.assert_array_equal(vec.states[i], env._row, err_msg=f"{where}: row {i}")
        np.testing.assert_array_equal(obs[i], o["observation"], err_msg=where)
        np.testing.assert_array_equal(masks[i], o["action_mask"], err_msg=where)

    for i in range(num_envs):
        compare(i)
    while min(games) < games_wanted:
        actions = np.array([rng.choice(_legal(m)) for m in masks])
        obs, masks, rewards, terminated, truncated = vec.step(actions)
        for i, env in enumerate(aecs):
            env.step(int(actions[i]))
            expected = np.array([env.rewards[a] for a in env.possible_agents], np.float32)
            np.testing.assert_array_equal(rewards[i], expected, err_msg=f"{where}: rewards")
            assert bool(terminated[i]) == all(env.terminations.values()), where
            assert bool(truncated[i]) == all(env.truncations.values()), where
            if terminated[i] or truncated[i]:
                games[i] += 1
                for seat, agent in enumerate(env.possible_agents):
                    assert vec.final_scores[i, seat] == env.infos[agent]["score"], where
                    assert vec.final_wins[i, seat] == env.infos[agent]["win"], where
                    np.testing.assert_array_equal(
                        vec.final_observations[i, seat], env.observe(agent)["observation"]
                    )
                env.reset()  # no seed: continues the stream, like the auto-reset
            compare(i)


def check_threads_match(env_id: str, config: Config, seed: int = 600) -> None:
    """A seeded batched env of three blocks of rows (`BLOCK_ROWS`, the last one short)
    stepped on two threads gives what the same env on one thread gives for the same actions
    (the heuristic's in odd instances, random legal ones in even ones, a fifth of the
    instances skipped each step): observations, masks, rewards, ends, rows and the finished
    games' final observations, scores and wins, at every step until 8 games have ended; an
    illegal action in the last block is refused by both naming that instance, with nothing
    stepped."""
    where = _where(env_id, config)
    num_envs = 2 * BLOCK_ROWS + 8
    envs = [
        make_vec(env_id, num_envs, seed=seed, num_threads=t, **config)
        for t in (1, min(2, usable_cores()))
    ]
    for venv in envs:
        venv.reset()
    game = envs[0].game
    rng = np.random.default_rng(seed)
    ended = steps = 0
    while ended < 8:
        obs, masks = envs[0].observations, envs[0].action_masks
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        actions[1::2] = game.heuristic_actions(obs[1::2], masks[1::2])
        actions[rng.random(num_envs) < 0.2] = SKIP
        one, two = (venv.step(actions) for venv in envs)
        names = ("obs", "masks", "rewards", "terminated", "truncated")
        for name, a, b in zip(names, one, two, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"{where}: {name} at step {steps}")
        for name in (
            "states",
            "current_player",
            "final_observations",
            "final_scores",
            "final_wins",
        ):
            np.testing.assert_array_equal(
                getattr(envs[0], name),
                getattr(envs[1], name),
                err_msg=f"{where}: {name} at step {steps}",
            )
        ended += int((one[3] | one[4]).sum())
        steps += 1
        assert steps < 5_000, f"{where}: only {ended} games ended in {steps} steps"
    actions = np.argmax(envs[0].action_masks, axis=1)
    actions[num_envs - 1] = envs[0].num_actions  # out of range: illegal everywhere
    before = envs[0].states.copy()
    for venv in envs:
        _raises(ValueError, lambda v=venv: v.step(actions), where, [f"instance {num_envs - 1}"])
        np.testing.assert_array_equal(venv.states, before, err_msg=f"{where}: stepped")


# --- actions -----------------------------------------------------------------------------------


def check_actions(env_id: str, config: Config, seed: int = 7) -> None:
    """At every position of a few games, every masked-in action is accepted and every
    masked-out or out-of-range one is refused with a ValueError naming it, changing nothing."""
    where = _where(env_id, config)
    for env in positions(env_id, config, seed, games=1, every=3):
        mask = env.observe(env.agent_selection)["action_mask"]
        row = env._row.copy()
        for a in _legal(mask):
            twin = copy.deepcopy(env)
            twin.step(int(a))
            assert twin.game.invariant_error(twin._row) is None, f"{where}: after {a}"
        n = env.game.num_actions
        for a in [*np.flatnonzero(mask == 0)[:5].tolist(), -1, n, n + 7]:
            try:
                env.step(a)
            except ValueError as err:
                assert str(a) in str(err), f"{where}: error for action {a} does not name it"
            else:
                raise AssertionError(f"{where}: action {a} outside the mask was accepted")
            np.testing.assert_array_equal(env._row, row, err_msg=f"{where}: refused {a}")


def check_penalize(env_id: str, config: Config, seed: int = 3) -> None:
    """`illegal_action="penalize"` behaves as PettingZoo's TerminateIllegalWrapper around the
    raising env: the same rewards, terminations, truncations and dead-step order."""
    where = _where(env_id, config)
    for env in positions(env_id, config, seed, games=5, p_last=0.8):
        illegal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)
        if not len(illegal):
            continue
        ours = copy.deepcopy(env)
        ours.illegal_action = "penalize"
        theirs = TerminateIllegalWrapper(copy.deepcopy(env), illegal_reward=-1)
        with warnings.catch_warnings(), redirect_stdout(io.StringIO()):  # the wrapper's note
            warnings.simplefilter("ignore")
            ours.step(int(illegal[0]))
            theirs.step(int(illegal[0]))
        got, want = _dead_steps(ours), _dead_steps(theirs)
        assert got == want, f"{where}: penalize gave {got}, PettingZoo's wrapper {want}"
        return
    raise AssertionError(f"{where}: no position with an illegal action was found")


def _dead_steps(env) -> list[tuple]:
    """(agent, reward, terminated, truncated) of each dead step to the end."""
    out = []
    for agent in env.agent_iter():
        out.append((agent, *env.last()[1:4]))
        env.step(None)
    return out


# --- life cycle and configuration ---------------------------------------------------------------


def check_lifecycle(env_id: str, config: Config) -> None:
    """Use before reset raises; a seeded reset is reproducible and overrides earlier use;
    reset() without a seed continues the env's own stream; unseeded envs deal different
    games; a finished game resets cleanly; observe() returns fresh arrays."""
    where = _where(env_id, config)
    fresh = make(env_id, **config)
    for call in (lambda: fresh.step(0), lambda: fresh.observe("player_0"), fresh.last):
        _raises(RuntimeError, call, where)
    _raises(RuntimeError, fresh.state_dict, where)
    for bad in (1.5, "7", True):
        _raises(TypeError, lambda bad=bad: fresh.reset(seed=bad), where)
    a, b = make(env_id, **config), make(env_id, **config)
    a.reset(seed=123)
    b.reset(seed=999)
    b.step(_random_action(b, np.random.default_rng(0)))
    b.reset(seed=123)
    assert a.state_dict() == b.state_dict(), f"{where}: reset(seed) is not reproducible"
    for _ in range(3):
        first = a.state_dict()
        a.reset()
        b.reset()
        assert a.state_dict() == b.state_dict(), f"{where}: the streams differ"
        assert a.state_dict() != first, f"{where}: reset() dealt the same game again"
    deals = set()
    for _ in range(4):
        env = make(env_id, **config)
        env.reset()
        deals.add(json.dumps(env.state_dict()))
    assert len(deals) == 4, f"{where}: unseeded envs dealt the same game"
    o = a.observe(a.agent_selection)
    o["observation"][:] = -1
    o["action_mask"][:] = 0
    assert a.observe(a.agent_selection)["action_mask"].any(), f"{where}: observe is a view"
    rng = np.random.default_rng(1)
    while _live(a):
        a.step(_random_action(a, rng))
    for _ in a.agent_iter():
        a.step(None)
    a.reset(seed=5)
    assert a.agents == a.possible_agents, where
    assert not any(a.terminations.values()) and not any(a.truncations.values()), where
    assert a.infos == {name: {} for name in a.possible_agents}, where
    assert set(a.rewards) == set(a._cumulative_rewards) == set(a.possible_agents), where


def check_config_errors(env_id: str) -> None:
    """An unknown option, a player count out of range, an int option above its bound (every
    int option has one: the engines keep counts in int64 rows), a bad `illegal_action` or
    `render_mode` raise a ValueError naming the value (and, for a count, the range)."""
    option = game_class(env_id).options["num_players"]
    factories = {"make": make, "make_vec": lambda e, **kw: make_vec(e, 2, **kw)}
    for name, factory in factories.items():
        where = f"{env_id} {name}"
        for bad in (option.low - 1, option.high + 1):
            named = [str(bad), "num_players", str(option.low), str(option.high)]
            _raises(ValueError, partial(factory, env_id, num_players=bad), where, named)
        _raises(ValueError, partial(factory, env_id, no_such_option=1), where, ["no_such_option"])
    for name, opt in game_class(env_id).options.items():
        if type(opt.default) is int and opt.validate is None:
            assert opt.high is not None, f"{env_id}: the int option {name} has no upper bound"
            for bad in (opt.high + 1, 2**63):
                call = partial(make, env_id, **{name: bad})
                _raises(ValueError, call, env_id, [name, str(bad), str(opt.high)])
    _raises(ValueError, lambda: make(env_id, illegal_action="ignore"), env_id, ["ignore"])
    _raises(ValueError, lambda: make(env_id, render_mode="rgb"), env_id, ["rgb"])


def _raises(kind: type, call, where: str, named: tuple | list = ()) -> None:
    try:
        call()
    except kind as err:
        missing = [word for word in named if word not in str(err)]
        assert not missing, f"{where}: the error {err!r} does not name {missing}"
        return
    raise AssertionError(f"{where}: no {kind.__name__} from {call}")


# --- inspection --------------------------------------------------------------------------------


def check_state_dict(env_id: str, config: Config, seed: int = 11) -> None:
    """`state_dict()` is JSON-serialisable with the same keys all game long, and a copy."""
    where = _where(env_id, config)
    keys = None
    for env in positions(env_id, config, seed, games=1):
        s = env.state_dict()
        assert json.loads(json.dumps(s)) == s, f"{where}: state_dict is not plain JSON"
        keys = keys or set(s)
        assert set(s) == keys, f"{where}: state_dict keys changed"
        assert s["num_players"] == env.num_agents and s["done"] is False, where
        assert s["current_player"] == int(env.agent_selection.split("_")[1]), where


def _same_position(env: CardEnv, twin: CardEnv, where: str) -> None:
    assert twin.state_dict() == env.state_dict(), f"{where}: state dicts differ"
    assert twin.agent_selection == env.agent_selection, where
    for agent in env.possible_agents:
        a, b = env.observe(agent), twin.observe(agent)
        assert np.array_equal(a["observation"], b["observation"]), f"{where}: {agent} sees"
        assert np.array_equal(a["action_mask"], b["action_mask"]), f"{where}: {agent} may"
    assert twin.terminations == env.terminations and twin.truncations == env.truncations, where


def edit(state: dict, change: Callable[[dict], Any]) -> dict:
    """A copy of `state` changed by `change`: a game's table of bad state dicts lists
    (change, message) pairs for `check_refused` against one hand-written position."""
    state = copy.deepcopy(state)
    change(state)
    return state


def check_refused(env: CardEnv, state: Any, message: str) -> None:
    """`env.load_state_dict(state)` raises a `StateDictError` matching the regex `message`,
    and leaves the env as it was (a bad dict is refused whole)."""
    import re

    from card_envs.core.loading import StateDictError

    before = env.state_dict()
    try:
        env.load_state_dict(state)
    except StateDictError as err:
        assert re.search(message, str(err)), f"{err} does not match {message!r}"
    else:
        raise AssertionError(f"load_state_dict accepted a dict that should fail with {message!r}")
    assert env.state_dict() == before, "a refused dict changed the env"


def check_load_state_dict(env_id: str, config: Config, seed: int = 17, horizon: int = 30):
    """`load_state_dict` is the inverse of `state_dict`: at positions of random games and at
    their ends, an env loaded with the dict's JSON (after a reset to another deal) shows the
    same observations, masks, agent and state dict; from there the same actions give both
    the same rewards, the same observation for the seat to act and, every 10 steps and at
    the end, the same everything (the PRNG travels in the dict: the same chance to come),
    for `horizon` steps (from the first position: to the end). A batched instance set to
    the position matches too."""
    where = _where(env_id, config)
    rng = np.random.default_rng(seed)
    twin = make(env_id, **config)
    venv = make_vec(env_id, 2, seed=seed, **config)
    venv.reset()
    for k, env in enumerate(positions(env_id, config, seed, games=2, every=7)):
        d = json.loads(json.dumps(env.state_dict()))
        twin.reset(seed=seed + 1000 + k)
        twin.load_state_dict(d)
        _same_position(env, twin, f"{where} position {k}")
        venv.set_state(1, d)
        seat = int(env.agent_selection.split("_")[1])
        assert venv.state_dict(1) == d, f"{where}: batched state dict"
        assert np.array_equal(venv.observations[1], env.observe(env.agent_selection)["observation"])
        assert np.array_equal(venv.action_masks[1], env.observe(env.agent_selection)["action_mask"])
        assert venv.current_player[1] == seat, where
        ahead = copy.deepcopy(env)
        for step in range(horizon if k else 10**6):  # the first position: to the end
            if not _live(ahead):
                break
            action = _random_action(ahead, rng)
            ahead.step(action)
            twin.step(action)
            at = f"{where} position {k} step {step}"
            assert twin.rewards == ahead.rewards, f"{at}: rewards"
            if step % 10 == 9 or not _live(ahead):  # all of it now and then, the end included
                _same_position(ahead, twin, at)
            elif _live(ahead):  # else what the acting seat sees
                a, b = (e.observe(e.agent_selection) for e in (ahead, twin))
                assert twin.agent_selection == ahead.agent_selection, at
                assert np.array_equal(a["observation"], b["observation"]), at
                assert np.array_equal(a["action_mask"], b["action_mask"]), at
        if not _live(ahead):  # the end: a finished position loads as finished
            end = copy.deepcopy(twin)
            end.load_state_dict(json.loads(json.dumps(ahead.state_dict())))
            _same_position(ahead, end, f"{where}: the end")
            assert end.infos == ahead.infos, f"{where}: scores and wins at the end"


# --- named positions -----------------------------------------------------------------------------


def _refuses_finished(env_id: str, config: Config, state: dict, where: str) -> None:
    """A batched env refuses the finished position `state`, naming why, and stays as it was."""
    venv = make_vec(env_id, 2, seed=0, **config)
    venv.reset()
    before = [venv.state_dict(i) for i in range(2)]
    why = ["instance 1: the position is finished", "batched instances hold running games"]
    _raises(ValueError, partial(venv.set_state, 1, state), where, why)
    assert [venv.state_dict(i) for i in range(2)] == before, f"{where}: refused, yet changed"


def _same_instance(venv: Any, i: int, env: CardEnv, where: str) -> None:
    """Instance `i` of the batched `venv` holds the position of the AEC `env`."""
    assert venv.state_dict(i) == env.state_dict(), f"{where}: state dict"
    seen = env.observe(env.agent_selection)
    assert venv.current_player[i] == int(env.agent_selection.split("_")[1]), f"{where}: seat"
    assert np.array_equal(venv.observations[i], seen["observation"]), f"{where}: observation"
    assert np.array_equal(venv.action_masks[i], seen["action_mask"]), f"{where}: mask"


def _one_instance_takes(env: CardEnv, position: Position, seed: int, where: str) -> None:
    """Instance 1 of 3 set to the running `position` (seeded as `env` was) holds what the AEC
    `env` holds, and still does after one step that the other instances skip, untouched."""
    venv = make_vec(env.game.env_id, 3, seed=seed, **position.config)
    venv.reset()
    others = [venv.state_dict(i) for i in (0, 2)]
    venv.set_state(1, position.state, seed=seed)
    where = f"{where} in a batched env"
    _same_instance(venv, 1, env, where)
    ahead = copy.deepcopy(env)
    action = _random_action(ahead, np.random.default_rng(seed))
    ahead.step(action)
    _, _, rewards, terminated, truncated = venv.step(np.array([SKIP, action, SKIP]))
    expected = np.array([ahead.rewards[a] for a in ahead.possible_agents], np.float32)
    assert np.array_equal(rewards[1], expected), f"{where}: rewards"
    assert [venv.state_dict(i) for i in (0, 2)] == others, f"{where}: another instance changed"
    if _live(ahead):
        _same_instance(venv, 1, ahead, f"{where}, one step on")
    else:  # the instance was dealt anew
        assert terminated[1] or truncated[1], f"{where}: the step ended the game"
    _raises(ValueError, partial(venv.set_state, 3, position.state), where, ["3 is not in 0..2"])


def check_named_positions(env_id: str, seed: int = 23) -> None:
    """Every named position of `env_id` (`card_envs.positions.of_env`: its game's positions
    file) loads in the AEC env as written and round trips through its state dict's JSON; a
    running one also goes into one instance of a batched env (`_one_instance_takes`) and
    plays on to the end, which loads as the end. A finished position, the named one or that
    end, is refused by the batched env's `set_state` with a clear error."""
    for position in of_env(env_id):
        where = f"{env_id} position {position.name}"
        env = position.make_env(seed=seed)
        state = env.state_dict()
        assert {k: state[k] for k in position.state} == position.state, f"{where}: as written"
        twin = make(env_id, **position.config)
        twin.reset(seed=seed + 1)
        twin.load_state_dict(json.loads(json.dumps(state)))
        _same_position(env, twin, f"{where}: reloaded")
        if _live(env):
            _one_instance_takes(env, position, seed, where)
            rng = np.random.default_rng(seed)
            while _live(env):
                env.step(_random_action(env, rng))
            end = json.loads(json.dumps(env.state_dict()))
            twin.load_state_dict(end)
            _same_position(env, twin, f"{where}: its end reloaded")
            assert twin.infos == env.infos, f"{where}: scores and wins at the end"
        _refuses_finished(env_id, position.config, env.state_dict(), where)


RENDER_EVERY = 16  # check_render renders every step of a game's start, then every 16th


def check_render(env_id: str, config: Config, seed: int = 5) -> None:
    """ansi returns text, human prints it, rgb_array returns a picture (see `check_picture`)
    of one size all game that changes over it, no mode warns and returns None. A random
    8-player Super Zwierzaki game runs to thousands of steps and a picture costs tens of
    milliseconds, so the modes are checked at each of the first `RENDER_EVERY` steps, then
    at every `RENDER_EVERY`-th (wider in a long game: `POSITIONS_PER_GAME` in all), and at
    the end."""
    where = _where(env_id, config)
    text_env = make(env_id, render_mode="ansi", **config)
    human = make(env_id, render_mode="human", **config)
    picture = make(env_id, render_mode="rgb_array", **config)
    plain = make(env_id, **config)
    envs = (text_env, human, picture, plain)
    rng = np.random.default_rng(seed)
    stride = max(RENDER_EVERY, -(-_length(plain, seed, rng) // POSITIONS_PER_GAME))
    for env in envs:
        env.reset(seed=seed)
    first = check_picture(picture.render(), where)
    step = 0
    while _live(text_env):
        if step < RENDER_EVERY or step % stride == 0:
            text = text_env.render()
            assert isinstance(text, str) and text.strip(), f"{where}: ansi render {text!r}"
            out = io.StringIO()
            with redirect_stdout(out):
                assert human.render() is None
            assert out.getvalue().strip() == text, f"{where}: human render differs from ansi"
            frame = check_picture(picture.render(), where)
            # a video (Gymnasium's RecordVideo) needs frames of one size
            assert frame.shape == first.shape, f"{where}: {first.shape} then {frame.shape}"
        step += 1
        action = _random_action(text_env, rng)
        with redirect_stdout(io.StringIO()):
            for env in envs:
                env.step(action)
    assert isinstance(text_env.render(), str), f"{where}: no text at the end"
    last = check_picture(picture.render(), where)
    assert last.shape == first.shape and (last != first).any(), f"{where}: the picture is still"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert plain.render() is None
    assert any("render_mode" in str(w.message) for w in caught), f"{where}: no warning"


def check_picture(frame: Any, where: str) -> np.ndarray:
    """`frame` is an rgb_array render: a height x width x 3 uint8 array showing something
    (more than a few colours: not a blank table)."""
    ok = isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3
    assert ok and frame.dtype == np.uint8, f"{where}: rgb_array render {type(frame)}"
    packed = (frame[::2, ::2].astype(np.int32) << [16, 8, 0]).sum(axis=2)
    assert len(np.unique(packed)) > 8, f"{where}: a blank picture"
    return frame


def check_scene(env_id: str, config: Config, seed: int = 9) -> None:
    """`Game.scene` draws every position of two games from every seat and with all cards
    shown: plain JSON of known item kinds inside the scene's width, every action an item
    carries in range, and each legal action of the seat to act either carried by an item or
    left for a button; a face-down card names nothing."""
    where = _where(env_id, config)
    fields = {
        "card": {"x", "y", "w", "h", "down", "mark"},
        "chip": {"x", "y", "r", "label", "colour", "ink"},
        "text": {"x", "y", "text", "size", "anchor", "bold", "colour"},
        "panel": {"x", "y", "w", "h", "label", "mark", "colour"},
    }
    for env in positions(env_id, config, seed, games=2, every=3):
        game, row = env.game, env._row
        legal = _legal(_mask(env, row))
        for viewer in (None, *range(game.num_players)):
            s = game.scene(row, viewer)
            assert json.loads(json.dumps(s)) == s, f"{where}: scene is not plain JSON"
            assert s["height"] > 0 and s["width"] > 0, where
            carried = set()
            for it in s["items"]:
                kind = it["kind"]
                assert kind in fields and fields[kind] <= set(it), f"{where}: bad item {it}"
                assert -1 <= it["x"] <= s["width"] + 1, f"{where}: {it} is off the table"
                if kind == "card" and it["down"]:
                    assert "label" not in it and "sub" not in it, f"{where}: {it} names a card"
                for a in it.get("actions", ()):
                    assert 0 <= a < game.num_actions, f"{where}: {it} carries action {a}"
                    carried.add(a)
            assert set(scene.buttons(s, legal)) | carried >= set(legal.tolist()), where


# --- hidden information ------------------------------------------------------------------------


def check_padding(env_id: str, config: Config, seed: int = 13) -> None:
    """The game's `obs_segments` cover its observation, and the padded layout
    (`core.padding`, what one ppo model for every config reads) keeps every slot of it:
    each segment at the start of its room, absent seats and segments 0, the config's
    features set, inside the padded bounds."""
    env = make(env_id, **config)
    game = env.unwrapped.game
    where = _where(env_id, config)
    pad = padding.Padding(game)  # raises when the segments miss the observation's size
    taken = np.concatenate([pad.index, pad.ones])
    assert len(np.unique(taken)) == len(taken), f"{where}: padded slots overlap"
    assert taken.max() < pad.size, f"{where}: a slot beyond the padded size"
    rest = np.ones(pad.size, dtype=bool)
    rest[taken] = False
    low, high = pad.bounds(game)
    rooms = segments.rooms(type(game).obs_segments, padding.player_range(type(game))[1])
    own = segments.slices(type(game).obs_segments, game.config)
    for live in positions(env_id, config, seed, games=1, every=3):
        obs = live.observe(live.agent_selection)["observation"]
        padded = pad(obs)
        assert np.array_equal(padded[pad.index], obs), f"{where}: padding lost a slot"
        assert (padded[pad.ones] == 1).all() and not padded[rest].any(), where
        assert ((low <= padded) & (padded <= high)).all(), f"{where}: outside padded bounds"
        for name, (start, size) in own.items():
            room_start, room = rooms[name]
            block = padded[room_start : room_start + room]
            assert np.array_equal(block[:size], obs[start : start + size]), f"{where}: {name}"
            assert not block[size:].any(), f"{where}: {name} spills into absent seats"


# A resampled row is played to the end from every 8th checked position: the play-outs were
# two thirds of this check's time (a random 8-player Super Zwierzaki game is thousands of
# steps), and one in 8 of some hundreds of positions still covers every phase of a game.
PLAY_OUT_EVERY = 8
TEXT_VIEWS_EVERY = 2  # positions: the text views (built in Python) cost half the check


def check_hidden_information(env_id: str, config: Config, seed: int = 21) -> None:
    """`resample_hidden(row, seat)` changes nothing `seat` can see (observation, and mask when
    it is to act), keeps the conservation laws, redraws something in most positions (the other
    seats' observations too when they hold private cards), and the new row plays on to the
    end (from every `PLAY_OUT_EVERY`-th position); so an observation never depends on what
    its seat cannot see. With the same PRNG state, it redraws a resampled row exactly as the
    row itself: the redraw depends on nothing `seat` cannot see (what a search from it
    chooses neither)."""
    where = _where(env_id, config)
    checked = redrawn = others_changed = 0
    rng = np.random.default_rng(seed)
    for k, env in enumerate(positions(env_id, config, seed, games=2, every=4)):
        game, row = env.game, env._row
        to_act = int(row[layout.PLAYER])
        for seat in range(game.num_players):
            new = game.resample_hidden(row, seat, int(rng.integers(1 << 62)))
            assert game.invariant_error(new) is None, f"{where}: {game.invariant_error(new)}"
            again = int(rng.integers(1 << 62))
            np.testing.assert_array_equal(
                game.resample_hidden(new, seat, again),
                game.resample_hidden(row, seat, again),
                err_msg=f"{where}: the redraw depends on the hidden cards it replaces",
            )
            before, after = _observe(env, row, seat), _observe(env, new, seat)
            np.testing.assert_array_equal(after, before, err_msg=f"{where}: seat {seat} sees it")
            if seat == to_act:
                np.testing.assert_array_equal(_mask(env, new), _mask(env, row), err_msg=where)
            assert game.render(new, seat) == game.render(row, seat), f"{where}: render leaks"
            assert game.scene(new, seat) == game.scene(row, seat), f"{where}: scene leaks"
            if k % TEXT_VIEWS_EVERY == 0:
                _check_text_views(game, row, new, seat, where)
            _check_descriptions(env, row, new, seat, rng, where)
            _check_history(env, row, new, seat, rng, where)
            hidden = np.ones(len(row), bool)
            hidden[layout.RNG : layout.RNG + 4] = False
            redrawn += bool((new[hidden] != row[hidden]).any())
            others_changed += any(
                (_observe(env, new, q) != _observe(env, row, q)).any()
                for q in range(game.num_players)
                if q != seat
            )
            checked += 1
        if k % PLAY_OUT_EVERY == 0:
            _play_out(env, game.resample_hidden(row, to_act, seed), rng, where)
    assert checked >= 8, f"{where}: only {checked} positions"
    if game.hidden_cards:
        assert redrawn >= checked // 2, f"{where}: redrawn in only {redrawn} of {checked}"
    if game.resamples_hands():
        assert others_changed >= checked // 4, f"{where}: others changed {others_changed}"


def _check_text_views(game, row: np.ndarray, new: np.ndarray, seat: int, where: str) -> None:
    """The seat's text faces show nothing it cannot see: in `new`, a resample for `seat`, its
    view (`Game.view`), its view's text and its legal moves (the seat to act's; none for
    another seat) are what they are in `row`."""
    view = game.view(row, seat)
    assert game.view(new, seat) == view, (
        f"{where}: seat {seat}'s view leaks: {_diff(view, game.view(new, seat))}"
    )
    assert game.view_text(new, seat) == game.view_text(row, seat), f"{where}: view_text leaks"
    moves = game.legal_moves(row, seat)
    assert game.legal_moves(new, seat) == moves, f"{where}: seat {seat}'s legal moves leak"


def _diff(a: Any, b: Any, path: str = "view") -> str:
    """Where two JSON-like values first differ, for a message."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            if a.get(key, ...) != b.get(key, ...):
                return _diff(a.get(key, ...), b.get(key, ...), f"{path}[{key!r}]")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _diff(x, y, f"{path}[{i}]")
    return f"{path}: {a!r} or {b!r}"


def _check_descriptions(
    env: CardEnv, row: np.ndarray, new: np.ndarray, seat: int, rng: np.random.Generator, where: str
) -> None:
    """`describe_action` as `seat` may know it names nothing `seat` cannot see: in `new`, a
    resample for `seat`, the actor's own descriptions are the same; another seat's action,
    legal in both rows, is described the same when `seat` sees the same after it."""
    game = env.game
    legal = _legal(_mask(env, row))
    if int(row[layout.PLAYER]) == seat:
        for a in legal:
            text = game.describe_action(row, a)
            assert game.describe_action(new, a) == text, f"{where}: {text!r} leaks"
        return
    both = legal[_mask(env, new)[legal] == 1]
    rewards = np.zeros(game.num_players, dtype=np.float32)
    for a in rng.permutation(both)[:3]:
        text, other = game.describe_action(row, a, seat), game.describe_action(new, a, seat)
        after, after_new = row.copy(), new.copy()
        env._kernels.step_kernel(after, int(a), rewards)
        env._kernels.step_kernel(after_new, int(a), rewards)
        if (_observe(env, after, seat) == _observe(env, after_new, seat)).all():
            assert other == text, f"{where}: seat {seat} reads {text!r} or {other!r}"


def _check_history(
    env: CardEnv, row: np.ndarray, new: np.ndarray, seat: int, rng: np.random.Generator, where: str
) -> None:
    """With `history=K`, another seat's action enters `seat`'s history slice as nothing
    `seat` cannot see: an action legal in `row` and in `new` (a resample for `seat`) after
    which `seat` sees the same game slots in both gives the same entry, and so do two
    actions after which `seat` sees the same game slots (the history tells it nothing the
    game does not show)."""
    game = env.game
    if not game.history or int(row[layout.PLAYER]) == seat:
        return
    own = game.game_obs_size
    legal = _legal(_mask(env, row))
    both = legal[_mask(env, new)[legal] == 1]
    rewards = np.zeros(game.num_players, dtype=np.float32)

    def after(start: np.ndarray, a: int) -> np.ndarray:
        stepped = start.copy()
        env._kernels.step_kernel(stepped, int(a), rewards)
        return _observe(env, stepped, seat)

    for a in rng.permutation(both)[:3]:
        got, got_new = after(row, a), after(new, a)
        if (got[:own] == got_new[:own]).all():
            assert (got[own:] == got_new[own:]).all(), f"{where}: the history of {a} leaks"
    seen: dict[bytes, tuple[int, np.ndarray]] = {}
    for a in rng.permutation(legal)[:12]:
        obs = after(row, a)
        first = seen.setdefault(obs[:own].tobytes(), (int(a), obs[own:]))
        assert (first[1] == obs[own:]).all(), (
            f"{where}: seat {seat} sees the same after actions {first[0]} and {a}, but their "
            "history entries differ"
        )


def _observe(env: CardEnv, row: np.ndarray, seat: int) -> np.ndarray:
    out = np.empty(env.game.obs_size, dtype=np.float32)
    env._kernels.observe_kernel(row, seat, out)
    return out


def _mask(env: CardEnv, row: np.ndarray) -> np.ndarray:
    out = np.empty(env.game.num_actions, dtype=np.int8)
    env._kernels.legal_kernel(row, out)
    return out


def _play_out(env: CardEnv, row: np.ndarray, rng: np.random.Generator, where: str) -> None:
    """Play a resampled row to the end with random legal actions, checking every step."""
    rewards = np.zeros(env.game.num_players, dtype=np.float32)
    for _ in range(10_000_000):
        if row[layout.STATUS] != layout.RUNNING:
            return
        env._kernels.step_kernel(row, int(rng.choice(_legal(_mask(env, row)))), rewards)
        assert env.game.invariant_error(row) is None, f"{where}: resampled row broke"
    raise AssertionError(f"{where}: a resampled game did not end")


# --- text and JSON faces ------------------------------------------------------------------------

VIEW_KEYS = ("game", "you", "to_act", "turn", "done", "outcome")  # every view starts with them
PLAIN = (str, int, float, bool, type(None))
FACED_POSITIONS = 40  # positions of random play that `check_text_faces` checks all of
PARSED_MOVES = 6  # moves per position that `_check_parse` reads every way
GARBAGE = ("", "   ", "no such move, thanks ~~", "{}", '{"move": null}', "1.5", "[0]")


def check_text_faces(env_id: str, config: Config, seed: int = 31) -> None:
    """At positions of random play, at their ends and at the game's corner positions, for
    every seat: `Game.view` is plain JSON (str, int, float, bool, None, lists and dicts with
    str keys; a `json` round trip gives it back) starting with the shared keys and their
    values, `view_text` is text, and the env's `view`, `view_text` and `legal_moves` are the
    game's. The legal moves are the seat to act's legal actions in order with the words of
    `describe_action` (none for another seat, none once over); `parse_action` takes each
    move's id (an int, digits, JSON) and its words (any case and spacing) and refuses an
    illegal id and garbage with a `ValueError` naming what was given and listing every
    legal move as `id: text`. The game has a rules summary."""
    where = _where(env_id, config)
    game = make_game(env_id, **config)
    assert isinstance(game.rules_summary, str) and len(game.rules_summary.split()) >= 50, (
        f"{where}: {type(game).__name__}.rules_summary is missing or a stub"
    )
    seen = 0
    for k, env in enumerate(positions(env_id, config, seed, games=2, every=7, p_last=0.2)):
        if k >= FACED_POSITIONS and k % 10:  # long games (the solo game's): every 10th on
            continue
        _check_faces(env, f"{where} position {k}")
        _check_parse(env.game, env._row, f"{where} position {k}")
        seen += 1
    end = env._row.copy()
    assert end[layout.STATUS] != layout.RUNNING, f"{where}: the games did not end"
    _check_faces(env, f"{where} at the end")
    for agent in env.possible_agents:
        assert env.legal_moves(agent) == [], f"{where}: {agent} has moves after the end"
    try:
        env.parse_action("0")
    except ValueError as err:
        assert "over" in str(err), f"{where}: {err} does not say the game is over"
    else:
        raise AssertionError(f"{where}: parse_action took a move after the end")
    for k, d in enumerate(game.stress_positions(seed)):
        env.load_state_dict(d)
        _check_faces(env, f"{where} corner position {k}")
        _check_parse(game, env._row, f"{where} corner position {k}")
    assert seen >= 4, f"{where}: only {seen} positions"
    for call in (lambda: env.view("player_99"), lambda: env.legal_moves("player_99")):
        _raises(ValueError, call, f"{where}: agent 'player_99'", ["player_99"])


def _plain(value: Any, where: str, path: str = "view") -> None:
    """`value` holds only JSON's own types (no tuples, numpy numbers, non-str keys)."""
    if isinstance(value, dict):
        for key, item in value.items():
            assert type(key) is str, f"{where}: {path} has the key {key!r}, not a str"
            _plain(item, where, f"{path}[{key!r}]")
    elif type(value) is list:
        for i, item in enumerate(value):
            _plain(item, where, f"{path}[{i}]")
    else:
        assert type(value) in PLAIN, f"{where}: {path} is {value!r}, a {type(value).__name__}"
        assert not isinstance(value, float) or math.isfinite(value), f"{where}: {path} {value}"


def _check_faces(env: CardEnv, where: str) -> None:
    """Every seat's view, text and moves at the env's position (see `check_text_faces`)."""
    game, row = env.game, env._row
    running = row[layout.STATUS] == layout.RUNNING
    actor = int(row[layout.PLAYER])
    legal = game.legal_actions(row).tolist()
    for seat, agent in enumerate(env.possible_agents):
        at = f"{where}, {agent}"
        view = game.view(row, seat)
        _plain(view, at)
        assert type(view) is dict and json.loads(json.dumps(view)) == view, f"{at}: not JSON"
        assert tuple(view)[: len(VIEW_KEYS)] == VIEW_KEYS, f"{at}: the view starts {list(view)}"
        expected = {
            "game": game.env_id,
            "you": agent,
            "to_act": env.possible_agents[actor] if running else None,
            "turn": int(row[layout.TURN]),
            "done": not running,
        }
        got = {key: view[key] for key in expected}
        assert got == expected, f"{at}: the view's head is {got}, not {expected}"
        outcome = view["outcome"]
        if running:
            assert outcome is None, f"{at}: a running game has the outcome {outcome}"
        else:
            assert set(outcome) == {"scores", "winners", "truncated"}, f"{at}: {outcome}"
            assert list(outcome["scores"]) == env.possible_agents, f"{at}: {outcome}"
            assert outcome["winners"], f"{at}: a finished game without winners"
        text = game.view_text(row, seat)
        assert isinstance(text, str) and text.strip(), f"{at}: view_text is {text!r}"
        moves = game.legal_moves(row, seat)
        if running and seat == actor:
            assert [m["id"] for m in moves] == legal, f"{at}: the moves are not the legal ones"
            for m in moves:
                assert list(m) == ["id", "text"] and type(m["id"]) is int, f"{at}: {m}"
                assert m["text"] == game.describe_action(row, m["id"]), f"{at}: {m}"
            assert game.legal_moves(row) == moves, f"{at}: legal_moves() is not the actor's"
        else:
            assert moves == [], f"{at}: moves for a seat not to act: {moves[:3]}"
        assert env.view(agent) == view and env.view_text(agent) == text, f"{at}: env differs"
        assert env.legal_moves(agent) == moves, f"{at}: the env's legal moves differ"
    if running:
        assert env.view() == game.view(row, actor), f"{where}: view() is not the actor's"
        assert env.view_text() == game.view_text(row, actor), f"{where}: view_text()"
        assert env.legal_moves() == game.legal_moves(row), f"{where}: legal_moves()"
        assert env.rules_summary == game.rules_summary, f"{where}: rules_summary"


def _check_parse(game, row: np.ndarray, where: str) -> None:
    """`parse_action` takes every legal move by id and words and refuses anything else,
    listing the legal moves."""
    moves = game.legal_moves(row)
    if not moves:
        return
    step = max(1, len(moves) // PARSED_MOVES)  # a spread of them where there are many
    for m in moves[::step]:
        a, text = m["id"], m["text"]
        ways = (a, str(a), f"  {a} ", json.dumps({"id": a}), json.dumps({"move": text}), text)
        ways += (f" {text.upper()} ", "  ".join(text.split()))
        for way in ways:
            got = game.parse_action(row, way)
            assert got == a, f"{where}: parse_action({way!r}) is {got}, not {a} ({text!r})"
        name = game.action_name(a).title()
        if name.strip().lstrip("+-").isdigit():  # digits are an id ("5": a range's name)
            continue
        try:  # a context-free name may be shared by several legal moves (refused then)
            got = game.parse_action(row, name)
        except ValueError as err:
            assert "give an id" in str(err), f"{where}: {name!r}: {err}"
        else:
            assert got == a, f"{where}: parse_action({name!r}) is {got}, not {a}"
    legal = {m["id"] for m in moves}
    illegal = [a for a in range(game.num_actions) if a not in legal][:1] + [game.num_actions, -1]
    listed = [f"{m['id']}: {m['text']}" for m in moves]
    for given in [*illegal, *(str(a) for a in illegal), *GARBAGE]:
        try:
            got = game.parse_action(row, given)
        except ValueError as err:
            message = str(err)
            assert repr(given) in message, f"{where}: {message[:200]} does not name {given!r}"
            missing = [line for line in listed if line not in message]
            assert not missing, f"{where}: refusing {given!r} does not list {missing[:2]}"
        else:
            raise AssertionError(f"{where}: parse_action({given!r}) gave {got}")


# --- compiled and plain Python -----------------------------------------------------------------

_NO_JIT_SCRIPT = """
import importlib, json, sys
import card_envs
from card_envs.testing.checks import trace
env_id, game, configs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
if env_id not in card_envs.env_ids():  # registered at run time: register it here too
    module, _, name = game.partition(":")
    card_envs.register_game(getattr(importlib.import_module(module), name))
print(json.dumps([trace(env_id, config) for config in configs]))
"""


def trace(env_id: str, config: Config, seed: int = 3, steps: int = 150) -> list:
    """What a build plays from a seed, for comparing two builds: the state dicts along random
    AEC play (games follow each other), then the rows of a batched env driven by the game's
    heuristic."""
    out = []
    env = make(env_id, **config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if not _live(env):
            env.reset()
        env.step(_random_action(env, rng))
        out.append(env.state_dict())
    vec = make_vec(env_id, 2, seed=seed, **config)
    obs, masks = vec.reset()
    for _ in range(steps):
        obs, masks, *_ = vec.step(vec.game.heuristic_actions(obs, masks))
        out.append(vec.states.tolist())
    return out


def check_no_jit(env_id: str, configs: list[Config]) -> None:
    """`NUMBA_DISABLE_JIT=1` plays exactly the games the compiled engine plays, in both faces
    and with the heuristic (one subprocess for all the configs, which registers a game
    registered at run time again, from its class's module)."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    cls = game_class(env_id)
    game = f"{cls.__module__}:{cls.__qualname__}"
    done = subprocess.run(
        [sys.executable, "-c", _NO_JIT_SCRIPT, env_id, game, json.dumps(configs)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"{env_id} without JIT: {done.stderr}"
    plain = json.loads(done.stdout)
    for config, got in zip(configs, plain, strict=True):
        expected = json.loads(json.dumps(trace(env_id, config)))
        assert got == expected, f"{_where(env_id, config)}: the builds play different games"
