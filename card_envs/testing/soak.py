"""Soak: millions of games through every env and config, the conservation laws, the
observation spaces and the state dicts checked as they are played, and the memory watched.

    python -m card_envs.testing.soak [--games N] [--aec-games N] [--env ID ...] [--quick]
                                     [--seed S] [--num-envs N] [--jobs N] [--resume FILE]
                                     [--out PAGE]

Each process plays single-threaded: the kernels are serial numba and use no BLAS.

For every batched env id (`card_envs.batched_env_ids()`: the multi-agent ids and the solo
game) and each of its test configs and soak configs (`soak_cases`; an env id's games, times
its game's `soak_share`, are split evenly between its configs):

* batched: `--games` games per env id (default 1,000,000) through `card_envs.make_vec`. Each
  seat of each instance is played either by the game's heuristic (`Game.heuristic_actions`)
  or by a uniformly random legal action (a coin per seat and instance, and a heuristic seat
  at every table: all-heuristic and mixed tables, `heuristic_seats`). After every batch step
  one compiled call, the game's `batch_check` (`core.invariants.check_all`), checks every
  row, the observation of each seat to act must lie in the observation space, and every
  `RELOAD_EVERY` steps one row must reload from its own state dict. The instances that
  finished in the step were already auto-reset inside it, so their terminal rows are rebuilt
  by replaying the step on a copy of the row taken before it (same row, same action: the
  replay must end the game with the same rewards) and checked too, with every seat's final
  observation.
* AEC: `--aec-games` games per env id (default 100,000) through `card_envs.make` (the solo
  game: its Gymnasium env), the usual `agent_iter` loop with the same mix of players; the
  row and the observation are checked after the reset and after every action, the final
  position included, and the position reloaded every `AEC_RELOAD_EVERY` actions and at the
  end.

Resident memory (from /proc/self/statm) is sampled after a warm-up (every case's envs built
with `WARM_INSTANCES` batched instances and played until each has finished a game, so numba
has compiled or loaded every kernel), at the start of each case (its envs built at full size
and played until each batched instance has finished a game, so every buffer has been
written) and at its end, and at the end of the run (of
each process, with `--jobs`). glibc's mmap threshold is fixed (see `steady_allocator`) so
that the samples follow live memory.

The report is a markdown table per env and config; the exit status is 1 on any violation,
any exception (crash) or a memory growth over 5% (per case, or over a process's run). A
failure names the env, config, seeds, instance or game and the broken law, and dumps the
offending row (`state_dict` and raw) so it can be reproduced.

A full run takes hours. With `--resume FILE` every finished case is appended to FILE (one JSON
line) as soon as it ends, and a later run with the same settings at the same commit plays
only the cases FILE does not hold: a run can be stopped and taken up again, and the report
covers every case.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import gc
import json
import math
import sys
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Any, TextIO

import numpy as np

import card_envs
from card_envs.core import layout
from card_envs.core.engine import Game
from card_envs.core.loading import StateDictError
from card_envs.evaluation.pool import mp_context
from card_envs.registry import batched_env_ids, make_game, single_agent_env_ids
from card_envs.testing.report import git_commit, header, markdown, rss_bytes

Config = dict[str, Any]

GAMES = 1_000_000  # batched games per env id
AEC_GAMES = 100_000  # AEC games per env id
QUICK_GAMES, QUICK_AEC_GAMES = 2_000, 200
NUM_ENVS = 1024  # batched instances (fewer when a case plays fewer than 4 games each)
MAX_GROWTH = 0.05  # of resident memory after the warm-up
CONFIG_SEED_STRIDE = 1_000_000  # config k of an env id: batched instance i seeded seed + k*S + i
AEC_SEED_OFFSET = 500_000  # AEC game g of config k: reset(seed=seed + k*S + offset + g)
MAX_AEC_STEPS = 1_000_000  # an AEC game not over after this many actions is a crash
AEC_RELOAD_EVERY = 200  # AEC steps between two reloads of the position (and at the end)
MAX_IDLE_STEPS = 100_000  # so is a batched run where no game ends in this many batch steps
REPLAY_LAW = "replaying the final step on the row before it does not end the game as the step did"
SPACE_LAW = "an observation leaves the observation space"
RELOAD_LAW = "the position does not reload from its own state dict"
WARM_INSTANCES = 16  # batched instances of a case's up-front warm-up: it compiles, that is all
RELOAD_EVERY = 64  # batch steps between two reloads of a row (a few ms of Python each)


# --- results ------------------------------------------------------------------------------------
@dataclass
class CaseResult:
    """One env id and config: its targets, what was played and what went wrong."""

    env_id: str
    config: Config
    config_index: int  # among the env id's test configs: fixes the seeds
    seed: int  # the run's --seed
    batched_target: int
    aec_target: int
    num_envs: int = 0  # the run's --num-envs
    batched_games: int = 0
    aec_games: int = 0
    batched_seconds: float = 0.0
    aec_seconds: float = 0.0
    batched_truncated: int = 0
    aec_truncated: int = 0
    violations: int = 0
    crashes: int = 0
    rss_start: int = 0
    rss_end: int = 0
    measured: float = 0.0  # the game's `soak_measure` summed over finished games
    measured_games: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def case_seed(self) -> int:
        return self.seed + self.config_index * CONFIG_SEED_STRIDE

    @property
    def growth(self) -> float:
        return self.rss_end / self.rss_start - 1.0 if self.rss_start else 0.0

    @property
    def where(self) -> str:
        return f"{self.env_id} {self.config}"

    def measure(self, game: Game, row: np.ndarray) -> None:
        """Add the finished game in `row` to the mean of the game's `soak_measure`."""
        if game.soak_measure_name is not None:
            self.measured += game.soak_measure(row)
            self.measured_games += 1


@dataclass
class SoakResult:
    cases: list[CaseResult]
    games: int
    aec_games: int
    seed: int
    num_envs: int
    jobs: int = 1
    # per process that played cases: resident memory after its warm-up, and at its end
    memory: list[tuple[int, int]] = field(default_factory=list)
    seconds: float = 0.0
    steady_allocator: bool = False  # see `steady_allocator`
    resumed: int = 0  # cases taken from the `--resume` file, played by an earlier run

    @property
    def growth(self) -> float:
        """The largest growth of a process's resident memory from its warm-up to its end."""
        return max((end / warm - 1.0 for warm, end in self.memory if warm), default=0.0)

    @property
    def violations(self) -> int:
        return sum(c.violations for c in self.cases)

    @property
    def crashes(self) -> int:
        return sum(c.crashes for c in self.cases)

    def problems(self) -> list[str]:
        """Why the soak fails, empty when it passes."""
        out = []
        if self.violations:
            out.append(f"{self.violations} invariant violation(s)")
        if self.crashes:
            out.append(f"{self.crashes} crash(es)")
        for c in self.cases:
            if c.growth > MAX_GROWTH:
                out.append(f"{c.where}: resident memory grew {c.growth:.1%}")
        if self.growth > MAX_GROWTH:
            out.append(f"whole run: resident memory grew {self.growth:.1%}")
        short = [
            c.where
            for c in self.cases
            if c.batched_games < c.batched_target or c.aec_games < c.aec_target
        ]
        if short and not (self.violations or self.crashes):
            out.append(f"not played to the end: {short}")
        return out


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter


def steady_allocator() -> bool:
    """Fix glibc's mmap threshold at its default, 128 KiB (glibc raises it as big blocks are
    freed, and later buffers of that size then stay in its heap after they are freed): every
    numpy buffer is then returned to the OS when freed, and resident memory follows live
    memory instead of the allocator's high-water mark. False where that is not glibc."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_MMAP_THRESHOLD, 128 * 1024))
    except (OSError, AttributeError):
        return False


# --- failures -----------------------------------------------------------------------------------
def law(game: Game, code: int) -> str:
    return f"law {code}: {game.engine.INVARIANT_ERRORS[code]}"


def dump_row(game: Game, row: np.ndarray) -> list[str]:
    """The row as `state_dict` (when the game can still read it) and raw: enough to reproduce
    the position (`env._row[:] = row` in an AEC env of the same config)."""
    try:
        state = json.dumps(game.state_dict(row))
    except Exception as err:  # noqa: BLE001 - a broken row may not even have a state_dict
        state = f"(state_dict failed: {type(err).__name__}: {err})"
    return [f"  state_dict: {state}", f"  row: {row.tolist()}"]


def reproduce(res: CaseResult) -> str:
    return (
        f"  reproduce: python -m card_envs.testing.soak --env {res.env_id} --seed {res.seed} "
        f"--games {res.batched_target * _num_configs(res.env_id)} "
        f"--aec-games {res.aec_target * _num_configs(res.env_id)}"
        + (f" --num-envs {res.num_envs}" if res.num_envs != NUM_ENVS else "")
    )


def _num_configs(env_id: str) -> int:
    return sum(1 for e, _ in soak_cases() if e == env_id)


def soak_cases() -> list[tuple[str, Config]]:
    """(env id, config) the soak plays: every batched id (the multi-agent ones and the solo
    game) with each of its test configs and the configs its game adds for the soak
    (`Game.soak_configs`: Rummidrez's full-length hands, which its test configs cut short)."""
    out = []
    for env_id in batched_env_ids():
        cls = type(make_game(env_id))
        out += [(env_id, dict(c)) for c in (*cls.test_configs, *cls.soak_configs)]
    return out


def face(res: CaseResult, log: TextIO | None) -> AecSoak:
    """The one-game-at-a-time part of a case: the AEC env, or a single-agent id's own env."""
    kind = GymSoak if res.env_id in single_agent_env_ids() else AecSoak
    return kind(res, log)


def record(res: CaseResult, lines: list[str], log: TextIO | None) -> None:
    """Keep a failure's report; say its first line on the log at once."""
    res.failures.append("\n".join(lines))
    if log is not None:
        print(lines[0], file=log, flush=True)


def record_crash(res: CaseResult, where: str, err: BaseException, log: TextIO | None) -> None:
    res.crashes += 1
    tb = traceback.format_exception(type(err), err, err.__traceback__)
    lines = [f"CRASH {res.where}, {where}: {type(err).__name__}: {err}", reproduce(res)]
    lines += ["  " + line for chunk in tb[-4:] for line in chunk.rstrip().splitlines()]
    record(res, lines, log)


# --- players ------------------------------------------------------------------------------------
def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row: the argmax of random keys in [1, 2) on the
    legal actions and 0 on the others."""
    keys = rng.random(masks.shape, dtype=np.float32)
    keys += 1.0
    keys *= masks
    return keys.argmax(axis=1)


def heuristic_seats(rng: np.random.Generator, tables: int, seats: int) -> np.ndarray:
    """Which seats of each table the heuristic plays: a coin per seat, and one seat of a
    table that the coins left all random (random Rummidrez seats never lay a meld, so a
    random-only table would check nothing of the table): all-heuristic and mixed tables."""
    coins = rng.random((tables, seats)) < 0.5
    none = np.flatnonzero(~coins.any(axis=1))
    coins[none, rng.integers(0, seats, len(none))] = True
    return coins


class BatchPlayers:
    """Who plays each seat of each instance: the game's heuristic or a uniformly random legal
    action (`heuristic_seats`, drawn once)."""

    def __init__(self, game: Game, num_envs: int, rng: np.random.Generator) -> None:
        self.game = game
        self.rng = rng
        self.heuristic = heuristic_seats(rng, num_envs, game.num_players)
        self._rows = np.arange(num_envs)
        self._actions = np.zeros(num_envs, dtype=np.int64)

    def act(self, obs: np.ndarray, masks: np.ndarray, player: np.ndarray) -> np.ndarray:
        heuristic = self.heuristic[self._rows, player]
        out = self._actions
        chance = np.flatnonzero(~heuristic)
        if len(chance):
            out[chance] = random_legal(masks[chance], self.rng)
        planned = np.flatnonzero(heuristic)
        if len(planned):
            out[planned] = self.game.heuristic_actions(obs[planned], masks[planned])
        return out


def batch_checker(game: Game) -> Any:
    """The game's compiled `batch_check(states) -> (first broken row or -1, code)`; for a
    game whose `batched.py` has none (a registered game of one's own), the same row by row
    from Python, slower."""
    compiled = getattr(type(game).batched, "batch_check", None)
    if compiled is not None:
        return compiled
    check = game.engine.check_invariants

    def row_by_row(states: np.ndarray) -> tuple[int, int]:
        for i in range(len(states)):
            code = int(check(states[i]))
            if code:
                return i, code
        return -1, 0

    return row_by_row


def outside(observations: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The indices of the observations (rows of the last axis' vectors) outside low..high."""
    bad = (observations < low) | (observations > high)
    return np.flatnonzero(bad.any(axis=tuple(range(1, bad.ndim))))


def reload_error(game: Game, row: np.ndarray) -> str | None:
    """Why `row` does not reload from its own state dict (through JSON: the same state dict
    and, in a running game, the same observation of the seat to act), or None."""
    d = json.loads(json.dumps(game.state_dict(row)))
    try:
        again = game.load_state_dict(d)
    except StateDictError as err:
        return f"{RELOAD_LAW}: {err}"
    if game.state_dict(again) != d:
        return f"{RELOAD_LAW}: it loads as another position"
    seat = int(row[layout.PLAYER])
    obs = [np.empty(game.obs_size, dtype=np.float32) for _ in range(2)]
    for r, out in zip((row, again), obs, strict=True):
        type(game).observe_kernel(r, seat, out)
    if not np.array_equal(*obs):
        return f"{RELOAD_LAW}: seat {seat} sees another observation"
    return None


# --- the batched part ---------------------------------------------------------------------------
class BatchedSoak:
    """One batched env of the case, stepped with every row checked after every step (the laws,
    the observation of the seat to act inside its space, every `RELOAD_EVERY` steps one row
    reloaded from its state dict) and every terminal row checked by replaying its last step
    (the laws, every seat's final observation inside its space)."""

    def __init__(self, res: CaseResult, num_envs: int, log: TextIO | None) -> None:
        self.res, self.log = res, log
        self.seed = res.case_seed
        self.venv = card_envs.make_vec(res.env_id, num_envs, seed=self.seed, **res.config)
        self.game = game = self.venv.game
        self.low, self.high = game.obs_bounds()
        self.check = batch_checker(game)
        self.step_kernel = type(game).step_kernel
        self.players = BatchPlayers(game, num_envs, np.random.default_rng(self.seed))
        self.before = np.empty_like(self.venv.states)
        self.games_of = np.zeros(num_envs, dtype=np.int64)  # games each instance finished
        self.rewards = np.zeros(game.num_players, dtype=np.float32)
        self.stopped = False
        self.idle = 0
        self.steps = 0
        self.venv.reset()
        self.verify([], np.zeros(0, dtype=np.int64), "first reset")

    def run(self, warm_up: bool = False) -> None:
        """Step until the case's target of games; to warm up, only until every instance has
        finished a game (so every row of every buffer, the final observations and results
        included, has been written: numpy's zeroed buffers take memory only then)."""
        if self.stopped:
            return
        res, venv, states, before = self.res, self.venv, self.venv.states, self.before
        count = np.count_nonzero
        start = perf_counter()
        try:
            while res.batched_games < res.batched_target and not (
                warm_up and self.games_of.min() > 0
            ):
                actions = self.players.act(
                    venv.observations, venv.action_masks, venv.current_player
                )
                np.copyto(before, states)
                _obs, _masks, rewards, terminated, truncated = venv.step(actions)
                self.steps += 1
                finished = np.flatnonzero(terminated | truncated)
                problems = []
                for i in finished:
                    message = self.replay(i, actions[i], rewards[i], truncated[i])
                    if message:
                        problems.append((i, f"its final position, {message}", before[i], True))
                problems += self.observed(finished)
                if self.steps % RELOAD_EVERY == 0:
                    i = self.steps // RELOAD_EVERY % len(states)
                    message = reload_error(self.game, states[i])
                    if message:
                        problems.append((i, f"the row after the step: {message}", states[i], False))
                if not self.verify(problems, finished):
                    return
                if len(finished):
                    res.batched_games += len(finished)
                    res.batched_truncated += int(count(truncated))
                    self.games_of[finished] += 1
                    self.idle = 0
                else:
                    self.idle += 1
                    if self.idle > MAX_IDLE_STEPS:
                        raise RuntimeError(f"no game ended in {MAX_IDLE_STEPS:,} batch steps")
        except Exception as err:  # noqa: BLE001 - a crash is a result of the soak
            self.stopped = True
            record_crash(res, f"batched env (instance i seeded {self.seed} + i)", err, self.log)
        finally:
            res.batched_seconds += perf_counter() - start

    def observed(self, finished: np.ndarray) -> list[tuple[int, str, np.ndarray, bool]]:
        """The instances whose observation of the seat to act, or (finished ones) whose final
        observations of every seat, leave the observation space."""
        venv = self.venv
        out = [
            (i, f"the row after the step: {SPACE_LAW} (the seat to act)", venv.states[i], False)
            for i in outside(venv.observations, self.low, self.high)
        ]
        finals = venv.final_observations[finished]
        for j in outside(finals, self.low, self.high):
            i = finished[j]
            out.append((i, f"its final position: {SPACE_LAW}", self.before[i], True))
        return out

    def replay(self, i: int, action: int, rewards: np.ndarray, truncated: bool) -> str | None:
        """Step instance i's copy from before the step again: it must end the game with the
        rewards the batched step gave, in a row that obeys the laws (and is measured). The
        broken law, or None."""
        row = self.before[i]
        self.rewards[:] = 0.0
        self.step_kernel(row, int(action), self.rewards)
        want = layout.TRUNCATED if truncated else layout.TERMINATED
        if row[layout.STATUS] != want or not np.array_equal(self.rewards, rewards):
            return (
                f"rebuilt by replaying the last step: {REPLAY_LAW} (status "
                f"{int(row[layout.STATUS])}, want {want}; rewards {self.rewards.tolist()}, the "
                f"step gave {rewards.tolist()})"
            )
        code = int(self.game.engine.check_invariants(row))
        if code:
            return f"rebuilt by replaying the last step: {law(self.game, code)}"
        self.res.measure(self.game, row)
        return None

    def verify(
        self,
        problems: list[tuple[int, str, np.ndarray, bool]],
        finished: np.ndarray,
        after: str = "step",
    ) -> bool:
        """Check every row in one compiled call; with the `problems` found beside it
        (instance, what, its row, whether it is the final row of the instance's finished
        game), record the violations and stop this part. True when all is well."""
        first, _code = self.check(self.venv.states)
        if first < 0 and not problems:
            return True
        game, states, check = self.game, self.venv.states, self.game.engine.check_invariants
        new_game = np.zeros(len(states), dtype=np.bool_)
        new_game[finished] = True
        broken = [  # (instance, its game counted from 0, what, row)
            (i, self.games_of[i] + (not final and new_game[i]), what, row)
            for i, what, row, final in problems
        ]
        if first >= 0:
            for i in range(first, len(states)):
                c = int(check(states[i]))
                if c:
                    what = "the row after the " + ("auto-reset" if new_game[i] else after)
                    broken.append(
                        (i, self.games_of[i] + new_game[i], f"{what}: {law(game, c)}", states[i])
                    )
        self.res.violations += len(broken)
        i, game_index, message, row = broken[0]
        lines = [
            f"VIOLATION {self.res.where}: batched instance {i} (seeded {self.seed + i}, its game "
            f"{game_index} counted from 0, turn {int(row[layout.TURN])}): {message}",
            f"  {len(broken)} row(s) broken in this batch step; this batched run stops here",
            reproduce(self.res),
            *dump_row(game, row),
        ]
        record(self.res, lines, self.log)
        self.stopped = True
        return False


# --- the AEC part -------------------------------------------------------------------------------
class AecSoak:
    """The AEC env of the case, playing seeded games with every position checked: the laws,
    the observation of the seat to act (every seat's at the end) inside its space, and every
    `AEC_RELOAD_EVERY` steps and at the end the position reloaded from its state dict."""

    face = "AEC"

    def __init__(self, res: CaseResult, log: TextIO | None) -> None:
        self.res, self.log = res, log
        self.env = card_envs.make(res.env_id, **res.config)
        self.game = self.env.game
        self.low, self.high = self.game.obs_bounds()
        self.base = res.case_seed + AEC_SEED_OFFSET
        self.stopped = False
        self.reported = False

    def run(self, games: int | None = None) -> None:
        """Play games until the case's target (or `games` more)."""
        res = self.res
        stop = res.aec_target if games is None else min(res.aec_target, res.aec_games + games)
        start = perf_counter()
        try:
            while not self.stopped and res.aec_games < stop:
                self.play(res.aec_games)
                res.aec_games += 1
        except Exception as err:  # noqa: BLE001 - a crash is a result of the soak
            self.stopped = True
            where = f"AEC game {res.aec_games} (reset(seed={self.base + res.aec_games}))"
            record_crash(res, where, err, self.log)
        finally:
            res.aec_seconds += perf_counter() - start

    def play(self, g: int) -> None:
        """AEC game g: reset with seed base + g, players (`heuristic_seats`, then their
        random choices) from default_rng([base, g]); abandoned at its first broken law. Each
        position is checked as the seat to act observes it (`last()`), the final one with
        every seat's observation, before the dead steps."""
        env, game = self.env, self.game
        rng = np.random.default_rng([self.base, g])
        heuristic = heuristic_seats(rng, 1, game.num_players)[0]
        seat = {agent: i for i, agent in enumerate(env.possible_agents)}
        env.reset(seed=self.base + g)
        steps = 0
        for agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                break
            if self.broken(g, steps, obs["observation"]):
                return
            mask = obs["action_mask"]
            if heuristic[seat[agent]]:
                action = int(game.heuristic_actions(obs["observation"][None], mask[None])[0])
            else:
                legal = np.flatnonzero(mask)
                action = int(legal[int(rng.random() * len(legal))])
            env.step(action)
            steps += 1
            if steps > MAX_AEC_STEPS:
                raise RuntimeError(f"game not over after {MAX_AEC_STEPS:,} actions")
        final = np.stack([env.observe(agent)["observation"] for agent in env.possible_agents])
        if self.broken(g, steps, final):
            return
        for _agent in env.agent_iter():
            env.step(None)
        self.res.aec_truncated += int(env._row[layout.STATUS] == layout.TRUNCATED)
        self.res.measure(game, env._row)

    def broken(self, g: int, steps: int, observed: np.ndarray) -> bool:
        """Check the position (`observed`: its observations to check); a violation is
        counted (and the first one reported)."""
        game, row = self.game, self.env._row
        over = row[layout.STATUS] != layout.RUNNING
        code = int(game.engine.check_invariants(row))
        problem = law(game, code) if code else None
        if problem is None and len(outside(np.atleast_2d(observed), self.low, self.high)):
            problem = SPACE_LAW
        if problem is None and (over or steps % AEC_RELOAD_EVERY == 0):
            problem = reload_error(game, row)
        if problem is None:
            return False
        self.res.violations += 1
        if not self.reported:
            self.reported = True
            lines = [
                f"VIOLATION {self.res.where}: {self.face} game {g} (reset(seed={self.base + g}), "
                f"players from default_rng([{self.base}, {g}])), after {steps} action(s)"
                f"{' (final position)' if over else ''}: {problem}",
                f"  the game is abandoned; the {self.face} run goes on with the next games",
                reproduce(self.res),
                *dump_row(game, row),
            ]
            record(self.res, lines, self.log)
        return True


class GymSoak(AecSoak):
    """A single-agent id's Gymnasium env (the solo game) in place of an AEC env: seeded
    episodes played by the heuristic (its one seat: `heuristic_seats`), every position
    checked as `AecSoak` checks it."""

    face = "Gymnasium"

    def play(self, g: int) -> None:
        env, game = self.env, self.game
        rng = np.random.default_rng([self.base, g])
        heuristic = heuristic_seats(rng, 1, 1)[0, 0]
        obs, _info = env.reset(seed=self.base + g)
        if self.broken(g, 0, obs):
            return
        for steps in range(1, MAX_AEC_STEPS + 1):
            mask = env.action_masks().astype(np.int8)
            if heuristic:
                action = int(game.heuristic_actions(obs[None], mask[None])[0])
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            obs, _reward, terminated, truncated, _info = env.step(action)
            if self.broken(g, steps, obs):
                return
            if terminated or truncated:
                self.res.aec_truncated += int(truncated)
                self.res.measure(game, env._row)
                return
        raise RuntimeError(f"episode not over after {MAX_AEC_STEPS:,} actions")


# --- the run ------------------------------------------------------------------------------------
def plan(
    env_ids: list[str] | None, games: int, aec_games: int, seed: int, num_envs: int = NUM_ENVS
) -> list[CaseResult]:
    """The cases to play: each env id's games (times its game's `soak_share`) split evenly
    (rounded up) between its configs."""
    chosen = [(e, c) for e, c in soak_cases() if env_ids is None or e in env_ids]
    out = []
    for env_id in dict.fromkeys(e for e, _ in chosen):
        configs = [c for e, c in chosen if e == env_id]
        share = type(make_game(env_id)).soak_share / len(configs)
        for k, config in enumerate(configs):
            batched, aec = (math.ceil(n * share) for n in (games, aec_games))
            out.append(CaseResult(env_id, config, k, seed, batched, aec, num_envs))
    return out


def instances(res: CaseResult, num_envs: int) -> int:
    """Batched instances for a case: `num_envs`, or fewer so each plays about 4 games."""
    return max(1, min(num_envs, math.ceil(res.batched_target / 4)))


def warm_up(res: CaseResult, num_envs: int) -> None:
    """Build the case's envs with at most `WARM_INSTANCES` batched instances and play until
    every one has finished a game, and one AEC game, so numba has compiled (or loaded) every
    kernel before the process's memory is sampled (the case warms its full-size envs again
    when it starts: `run_case`). A failure here is the case's (a crash or a violation), and
    the case is not played."""
    trial = CaseResult(  # the case's targets, so that a failure's reproduce line is the case's
        res.env_id,
        res.config,
        res.config_index,
        res.seed,
        res.batched_target,
        res.aec_target,
        res.num_envs,
    )
    try:
        BatchedSoak(trial, min(WARM_INSTANCES, instances(res, num_envs)), None).run(warm_up=True)
        face(trial, None).run(games=1)
    except Exception as err:  # noqa: BLE001
        record_crash(trial, "warm-up", err, None)
    res.crashes += trial.crashes
    res.violations += trial.violations
    res.failures += [f"(warm-up) {f}" for f in trial.failures]


def run_case(res: CaseResult, num_envs: int, log: TextIO | None) -> None:
    try:
        batched = BatchedSoak(res, instances(res, num_envs), log)
        aec = face(res, log)
    except Exception as err:  # noqa: BLE001
        record_crash(res, "building the envs", err, log)
        return
    batched.run(warm_up=True)
    aec.run(games=1)
    res.rss_start = rss_bytes()  # the envs are alive in both samples: no need to collect
    batched.run()
    aec.run()
    res.rss_end = rss_bytes()


def case_key(res: CaseResult, commit: str) -> str:
    """What makes two runs of a case the same run: the code, the case and its targets."""
    fields = [commit, res.env_id, res.config, res.seed, res.batched_target, res.aec_target]
    return json.dumps([*fields, res.num_envs], sort_keys=True)


def save_case(path: Path, commit: str, res: CaseResult) -> None:
    """Append a finished case to the `--resume` file under the commit the run started at
    (one line: an append of a line is atomic enough for the processes of one run, and a
    killed run loses only its open cases)."""
    line = json.dumps({"commit": commit, **asdict(res)})
    with open(path, "a") as f:
        f.write(line + "\n")


def saved_cases(path: Path, cases: list[CaseResult], commit: str) -> dict[str, CaseResult]:
    """The planned cases that the `--resume` file already holds, by `case_key`."""
    planned = {case_key(c, commit): c for c in cases}
    out: dict[str, CaseResult] = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        record = json.loads(line)
        saved_commit = record.pop("commit")
        res = CaseResult(**record)
        key = case_key(res, saved_commit)
        if key in planned:
            res.config = planned[key].config  # JSON made its tuples lists
            out[key] = res
    return out


def play_cases(
    cases: list[CaseResult],
    num_envs: int,
    log: TextIO | None,
    save: tuple[Path, str] | None = None,
) -> tuple[list[CaseResult], tuple[int, int]]:
    """Warm up every case, then play each (see the module docstring), in this process: the
    cases and the resident memory after the warm-up and at the end."""
    for res in cases:
        _say(log, f"warming up {res.where} ...")
        warm_up(res, num_envs)
    gc.collect()
    warm = rss_bytes()
    for res in cases:
        if res.crashes or res.violations:  # the warm-up failed: nothing to soak
            _say(log, f"{res.where}: not played, its warm-up failed:")
            _say(log, "\n".join(res.failures))
            if save is not None:
                save_case(*save, res)
            continue
        _say(log, f"{res.where}: {res.batched_target:,} batched, {res.aec_target:,} AEC games")
        run_case(res, num_envs, log)
        _say(
            log,
            f"  {res.where}: {res.batched_games:,} batched games in {res.batched_seconds:.1f} s, "
            f"{res.aec_games:,} AEC games in {res.aec_seconds:.1f} s, "
            f"{res.violations} violation(s), {res.crashes} crash(es), "
            f"memory {res.rss_start / 2**20:.0f} -> {res.rss_end / 2**20:.0f} MB",
        )
        if save is not None:
            save_case(*save, res)
    gc.collect()
    return cases, (warm, rss_bytes())


def _play_part(cases: list[CaseResult], num_envs: int, talk: bool, save: tuple[Path, str] | None):
    """`play_cases` in a worker process (its log is the worker's stderr, or none)."""
    return play_cases(cases, num_envs, sys.stderr if talk else None, save)


def soak(
    env_ids: list[str] | None = None,
    games: int = GAMES,
    aec_games: int = AEC_GAMES,
    seed: int = 0,
    num_envs: int = NUM_ENVS,
    log: TextIO | None = sys.stderr,
    jobs: int = 1,
    resume: Path | None = None,
) -> SoakResult:
    """Play every case (see the module docstring) and return what happened; with `jobs`
    above 1, the cases dealt in turn to that many forked processes (each single-threaded;
    every case's games and seeds are the same as in one process). With `resume`, the cases
    that file holds are taken from it and each case played is added to it."""
    start = perf_counter()
    cases = plan(env_ids, games, aec_games, seed, num_envs)
    commit = git_commit()
    saved = saved_cases(resume, cases, commit) if resume is not None else {}
    todo = [c for c in cases if case_key(c, commit) not in saved]
    save = None if resume is None else (resume, commit)
    jobs = min(jobs, max(1, len(todo)))
    result = SoakResult(cases, games, aec_games, seed, num_envs, jobs)
    result.resumed = len(cases) - len(todo)
    if jobs == 1:
        played, memory = play_cases(todo, num_envs, log, save)
        done = [(played, memory)] if todo else []
    else:
        parts = [(todo[j::jobs], num_envs, log is not None, save) for j in range(jobs)]
        with mp_context().Pool(jobs) as pool:
            done = pool.starmap(_play_part, parts)
    for part, memory in done:
        saved.update((case_key(c, commit), c) for c in part)
        result.memory.append(memory)
    result.cases = [saved[case_key(c, commit)] for c in cases]
    result.seconds = perf_counter() - start
    return result


def _say(log: TextIO | None, text: str) -> None:
    if log is not None:
        print(text, file=log, flush=True)


# --- report -------------------------------------------------------------------------------------


def _config_text(config: Config) -> str:
    return ", ".join(f"{k}={v}" for k, v in config.items()) or "default"


def _rate(games: int, seconds: float) -> str:
    return f"{games / seconds:,.0f}" if seconds > 0 else "-"


def _measure(env_id: str, total: float, games: int) -> str:
    """The mean of the game's `soak_measure` and its name, or - for a game without one."""
    name = type(make_game(env_id)).soak_measure_name
    return f"{total / games:.1f} {name}" if name and games else "-"


def _mb(x: int) -> str:
    return f"{x / 2**20:,.0f}" if x else "-"


def table(result: SoakResult) -> str:
    head = [
        "env",
        "config",
        "batched games",
        "AEC games",
        "batched games/s",
        "AEC games/s",
        "truncated (batched / AEC)",
        "violations",
        "crashes",
        "mean at the end",
        "RSS start MB",
        "RSS end MB",
        "growth",
    ]
    rows = []
    by_env: dict[str, list[CaseResult]] = {}
    for c in result.cases:
        by_env.setdefault(c.env_id, []).append(c)
    for env_id, group in by_env.items():
        for c in group:
            rows.append(
                [
                    env_id,
                    _config_text(c.config),
                    f"{c.batched_games:,}",
                    f"{c.aec_games:,}",
                    _rate(c.batched_games, c.batched_seconds),
                    _rate(c.aec_games, c.aec_seconds),
                    f"{c.batched_truncated:,} / {c.aec_truncated:,}",
                    str(c.violations),
                    str(c.crashes),
                    _measure(group[0].env_id, c.measured, c.measured_games),
                    _mb(c.rss_start),
                    _mb(c.rss_end),
                    f"{c.growth:+.1%}" if c.rss_start else "-",
                ]
            )

        def total(attr: str, group: list[CaseResult] = group) -> int:
            return sum(getattr(c, attr) for c in group)

        rows.append(
            [
                f"**{env_id}**",
                f"**all {len(group)} configs**",
                f"**{total('batched_games'):,}**",
                f"**{total('aec_games'):,}**",
                _rate(total("batched_games"), total("batched_seconds")),
                _rate(total("aec_games"), total("aec_seconds")),
                f"{total('batched_truncated'):,} / {total('aec_truncated'):,}",
                f"**{total('violations')}**",
                f"**{total('crashes')}**",
                _measure(env_id, total("measured"), total("measured_games")),
                "",
                "",
                "",
            ]
        )
    right = [False, False, *[True] * 11]
    return markdown(head, rows, right)


def report(result: SoakResult, command: str = "python -m card_envs.testing.soak") -> str:
    """The run as a Markdown page: what was checked, where it ran, the table, memory, time and
    the verdict (with every failure's report)."""
    problems = result.problems()
    lines = [
        "# Soak",
        "",
        "Written by `python -m card_envs.testing.soak` (see its docstring): games of every batched "
        "env id and config played by the heuristic and random seats (a heuristic seat at "
        "every table), in the batched env and one at a time (the AEC env; the solo game's "
        "Gymnasium env), with the conservation laws checked after every step, every "
        "observation checked against the observation space, positions reloaded from their "
        "own state dicts as they are played, and the memory watched.",
        "",
        *header(command),
        f"- settings: {result.games:,} batched and {result.aec_games:,} one-at-a-time games "
        f"per env id (times its `soak_share`, split between its configs), up to "
        f"{result.num_envs} batched instances, seed {result.seed}, {result.jobs} "
        "single-threaded process(es)",
        "",
        table(result),
        "",
        "- resident memory after the warm-up and at the end, MB: "
        + ", ".join(f"{_mb(warm)} -> {_mb(end)}" for warm, end in result.memory)
        + f" (one process each; growth at most {result.growth:+.1%}, at most {MAX_GROWTH:.0%} "
        "allowed, per case too; "
        + (
            "glibc's mmap threshold fixed at 128 KiB)"
            if result.steady_allocator
            else "the allocator's high-water mark)"
        ),
        f"- wall time {result.seconds / 60:.1f} min ({result.seconds:,.0f} s)"
        + (
            f" for {len(result.cases) - result.resumed} case(s); {result.resumed} taken from "
            "earlier runs at the same commit (`--resume`; their times and memory are in the table)"
            if result.resumed
            else ""
        ),
    ]
    failures = [f for c in result.cases for f in c.failures]
    if failures:
        lines += ["", "## Failures", "", "```", *failures, "```"]
    lines += ["", "**FAIL**: " + "; ".join(problems) if problems else "**PASS**", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m card_envs.testing.soak",
        description="Millions of games through every env and config with the conservation "
        "laws checked after every step; exits 1 on a violation, a crash or memory growth.",
    )
    parser.add_argument(
        "--games",
        type=int,
        help=f"batched games per env id, split between its configs (default {GAMES:,})",
    )
    parser.add_argument(
        "--aec-games", type=int, help=f"AEC games per env id (default {AEC_GAMES:,})"
    )
    parser.add_argument(
        "--env",
        action="append",
        metavar="ID",
        help="env id to soak (repeatable; default: every batched id)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_GAMES:,} batched and {QUICK_AEC_GAMES:,} AEC games per env id "
        "(a few seconds each) unless --games / --aec-games say otherwise",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of envs and players")
    parser.add_argument(
        "--num-envs", type=int, default=NUM_ENVS, help=f"batched instances (default {NUM_ENVS})"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes the cases are dealt to (default 1)"
    )
    parser.add_argument("--out", help="also write the report to this Markdown page")
    parser.add_argument(
        "--resume",
        metavar="FILE",
        type=Path,
        help="add each finished case to FILE (JSON lines) and skip the cases it holds from an "
        "earlier run with the same settings at the same commit",
    )
    args = parser.parse_args(argv)
    games = args.games if args.games is not None else QUICK_GAMES if args.quick else GAMES
    aec_games = args.aec_games
    if aec_games is None:
        aec_games = QUICK_AEC_GAMES if args.quick else AEC_GAMES
    known = batched_env_ids()
    unknown = [e for e in args.env or [] if e not in known]
    if unknown:
        parser.error(f"unknown batched env id(s) {unknown}; known ids are {known}")
    if min(games, aec_games, args.num_envs, args.jobs) < 1:
        parser.error("--games, --aec-games, --num-envs and --jobs must be at least 1")
    steady = steady_allocator()
    result = soak(
        args.env, games, aec_games, args.seed, args.num_envs, jobs=args.jobs, resume=args.resume
    )
    result.steady_allocator = steady
    command = " ".join(
        ["python -m card_envs.testing.soak", *(sys.argv[1:] if argv is None else argv)]
    )
    page = report(result, command)
    if args.out:
        Path(args.out).write_text(page)
    print(page, flush=True)
    return 1 if result.problems() else 0


if __name__ == "__main__":
    raise SystemExit(main())
