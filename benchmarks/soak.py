"""Soak: millions of games through every env and config, the conservation laws checked after
every step and the memory watched.

Run from the repo root:

    python -m benchmarks.soak [--games N] [--aec-games N] [--env ID ...] [--quick] [--seed S]
                              [--num-envs N]

For every registered multi-agent env id and each of its test configs
(`card_envs.testing.cases()`; an env id's games are split evenly between its configs):

* batched: `--games` games per env id (default 1,000,000) through `card_envs.make_vec`. Each
  seat of each instance is played either by the game's heuristic (`Game.heuristic_actions`)
  or by a uniformly random legal action (a coin per seat and instance: all-random,
  all-heuristic and mixed tables). After every batch step one compiled call, the game's
  `batch_check` (`core.invariants.check_all`), checks every row. The instances that finished
  in the step were already auto-reset inside it, so their terminal rows are rebuilt by
  replaying the step on a copy of the row taken before it (same row, same action: the replay
  must end the game with the same rewards) and checked too.
* AEC: `--aec-games` games per env id (default 100,000) through `card_envs.make`, the usual
  `agent_iter` loop with the same mix of players; the row is checked after the reset and
  after every action, the final position included.

Resident memory (from /proc/self/statm) is sampled after a warm-up (every case's envs built
at full size and played until each batched instance has finished a game, so numba has
compiled or loaded every kernel and every buffer has been written), at the start of each case
(its envs built and warmed up the same way) and at its end, and at the end of the run. glibc's
mmap threshold is fixed (see `steady_allocator`) so that the samples follow live memory.

The report is a markdown table per env and config; the exit status is 1 on any invariant
violation, any exception (crash) or a memory growth over 5% (per case, or over the whole run).
A failure names the env, config, seeds, instance or game and the broken law, and dumps the
offending row (`state_dict` and raw) so it can be reproduced.
"""

from __future__ import annotations

import os

# Single-threaded everything; must be set before numpy / numba are imported.
for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import ctypes  # noqa: E402
import ctypes.util  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from time import perf_counter  # noqa: E402
from typing import Any, TextIO  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402

import card_envs  # noqa: E402
from benchmarks.machine import machine_info, rss_bytes  # noqa: E402
from benchmarks.tables import markdown  # noqa: E402
from card_envs.core import layout  # noqa: E402
from card_envs.core.engine import Game  # noqa: E402
from card_envs.testing import cases as all_cases  # noqa: E402

Config = dict[str, Any]

GAMES = 1_000_000  # batched games per env id
AEC_GAMES = 100_000  # AEC games per env id
QUICK_GAMES, QUICK_AEC_GAMES = 2_000, 200
NUM_ENVS = 1024  # batched instances (fewer when a case plays fewer than 4 games each)
MAX_GROWTH = 0.05  # of resident memory after the warm-up
CONFIG_SEED_STRIDE = 1_000_000  # config k of an env id: batched instance i seeded seed + k*S + i
AEC_SEED_OFFSET = 500_000  # AEC game g of config k: reset(seed=seed + k*S + offset + g)
MAX_AEC_STEPS = 1_000_000  # an AEC game not over after this many actions is a crash
MAX_IDLE_STEPS = 100_000  # so is a batched run where no game ends in this many batch steps
REPLAY_LAW = "replaying the final step on the row before it does not end the game as the step did"


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


@dataclass
class SoakResult:
    cases: list[CaseResult]
    games: int
    aec_games: int
    seed: int
    num_envs: int
    rss_warm: int = 0
    rss_end: int = 0
    seconds: float = 0.0
    steady_allocator: bool = False  # see `steady_allocator`

    @property
    def growth(self) -> float:
        return self.rss_end / self.rss_warm - 1.0 if self.rss_warm else 0.0

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
        f"  reproduce: python -m benchmarks.soak --env {res.env_id} --seed {res.seed} "
        f"--games {res.batched_target * _num_configs(res.env_id)} "
        f"--aec-games {res.aec_target * _num_configs(res.env_id)}"
        + (f" --num-envs {res.num_envs}" if res.num_envs != NUM_ENVS else "")
    )


def _num_configs(env_id: str) -> int:
    return sum(1 for e, _ in all_cases() if e == env_id)


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


class BatchPlayers:
    """Who plays each seat of each instance: the game's heuristic or a uniformly random legal
    action, by a coin per seat and instance drawn once."""

    def __init__(self, game: Game, num_envs: int, rng: np.random.Generator) -> None:
        self.game = game
        self.rng = rng
        self.heuristic = rng.random((num_envs, game.num_players)) < 0.5
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


# --- the batched part ---------------------------------------------------------------------------
class BatchedSoak:
    """One batched env of the case, stepped with every row checked after every step and every
    terminal row checked by replaying its last step."""

    def __init__(self, res: CaseResult, num_envs: int, log: TextIO | None) -> None:
        self.res, self.log = res, log
        self.seed = res.case_seed
        self.venv = card_envs.make_vec(res.env_id, num_envs, seed=self.seed, **res.config)
        self.game = game = self.venv.game
        self.check = batch_checker(game)
        self.step_kernel = type(game).step_kernel
        self.players = BatchPlayers(game, num_envs, np.random.default_rng(self.seed))
        self.before = np.empty_like(self.venv.states)
        self.games_of = np.zeros(num_envs, dtype=np.int64)  # games each instance finished
        self.rewards = np.zeros(game.num_players, dtype=np.float32)
        self.stopped = False
        self.idle = 0
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
                finished = np.flatnonzero(terminated | truncated)
                broken = []
                for i in finished:
                    message = self.replay(i, actions[i], rewards[i], truncated[i])
                    if message:
                        broken.append((i, message))
                if not self.verify(broken, finished):
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

    def replay(self, i: int, action: int, rewards: np.ndarray, truncated: bool) -> str | None:
        """Step instance i's copy from before the step again: it must end the game with the
        rewards the batched step gave, in a row that obeys the laws. The broken law, or None."""
        row = self.before[i]
        self.rewards[:] = 0.0
        self.step_kernel(row, int(action), self.rewards)
        want = layout.TRUNCATED if truncated else layout.TERMINATED
        if row[layout.STATUS] != want or not np.array_equal(self.rewards, rewards):
            return (
                f"{REPLAY_LAW} (status {int(row[layout.STATUS])}, want {want}; rewards "
                f"{self.rewards.tolist()}, the step gave {rewards.tolist()})"
            )
        code = int(self.game.engine.check_invariants(row))
        return law(self.game, code) if code else None

    def verify(
        self, terminal: list[tuple[int, str]], finished: np.ndarray, after: str = "step"
    ) -> bool:
        """Check every row in one compiled call; with the broken terminal rows found by
        `replay` (of the `finished` instances), record the violations and stop this part.
        True when all is well."""
        first, _code = self.check(self.venv.states)
        if first < 0 and not terminal:
            return True
        game, states, check = self.game, self.venv.states, self.game.engine.check_invariants
        broken = []  # (instance, its game counted from 0, what, row)
        for i, message in terminal:
            what = f"its final position, rebuilt by replaying the last step: {message}"
            broken.append((i, self.games_of[i], what, self.before[i]))
        if first >= 0:
            new_game = np.zeros(len(states), dtype=np.bool_)
            new_game[finished] = True
            for i in range(first, len(states)):
                c = int(check(states[i]))
                if c:
                    game_index = self.games_of[i] + new_game[i]
                    what = "the row after the " + ("auto-reset" if new_game[i] else after)
                    broken.append((i, game_index, f"{what}: {law(game, c)}", states[i]))
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
    """The AEC env of the case, playing seeded games with every position checked."""

    def __init__(self, res: CaseResult, log: TextIO | None) -> None:
        self.res, self.log = res, log
        self.env = card_envs.make(res.env_id, **res.config)
        self.game = self.env.game
        self.seat = {agent: i for i, agent in enumerate(self.env.possible_agents)}
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
        """AEC game g: reset with seed base + g, players (a coin per seat, then their random
        choices) from default_rng([base, g]); abandoned at its first broken law."""
        env, game = self.env, self.game
        rng = np.random.default_rng([self.base, g])
        heuristic = rng.random(game.num_players) < 0.5
        env.reset(seed=self.base + g)
        if self.broken(g, 0):
            return
        steps = 0
        for agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            if heuristic[self.seat[agent]]:
                action = int(game.heuristic_actions(obs["observation"][None], mask[None])[0])
            else:
                legal = np.flatnonzero(mask)
                action = int(legal[int(rng.random() * len(legal))])
            env.step(action)
            steps += 1
            if self.broken(g, steps):
                return
            if steps > MAX_AEC_STEPS:
                raise RuntimeError(f"game not over after {MAX_AEC_STEPS:,} actions")
        self.res.aec_truncated += int(env._row[layout.STATUS] == layout.TRUNCATED)

    def broken(self, g: int, steps: int) -> bool:
        """Check the position; a violation is counted (and the first one reported)."""
        row = self.env._row
        code = int(self.game.engine.check_invariants(row))
        if not code:
            return False
        self.res.violations += 1
        if not self.reported:
            self.reported = True
            over = row[layout.STATUS] != layout.RUNNING
            lines = [
                f"VIOLATION {self.res.where}: AEC game {g} (reset(seed={self.base + g}), "
                f"players from default_rng([{self.base}, {g}])), after {steps} action(s)"
                f"{' (final position)' if over else ''}: {law(self.game, code)}",
                "  the game is abandoned; the AEC run goes on with the next games",
                reproduce(self.res),
                *dump_row(self.game, row),
            ]
            record(self.res, lines, self.log)
        return True


# --- the run ------------------------------------------------------------------------------------
def plan(
    env_ids: list[str] | None, games: int, aec_games: int, seed: int, num_envs: int = NUM_ENVS
) -> list[CaseResult]:
    """The cases to play: each env id's games split evenly (rounded up) between its configs."""
    chosen = [(e, c) for e, c in all_cases() if env_ids is None or e in env_ids]
    out = []
    for env_id in dict.fromkeys(e for e, _ in chosen):
        configs = [c for e, c in chosen if e == env_id]
        for k, config in enumerate(configs):
            out.append(
                CaseResult(
                    env_id,
                    config,
                    k,
                    seed,
                    math.ceil(games / len(configs)),
                    math.ceil(aec_games / len(configs)),
                    num_envs,
                )
            )
    return out


def instances(res: CaseResult, num_envs: int) -> int:
    """Batched instances for a case: `num_envs`, or fewer so each plays about 4 games."""
    return max(1, min(num_envs, math.ceil(res.batched_target / 4)))


def warm_up(res: CaseResult, num_envs: int) -> None:
    """Build the case's envs at full size and play until every batched instance has finished a
    game, and one AEC game, so numba has compiled (or loaded) every kernel and every buffer has
    been written once. A failure here is the case's (a crash or a violation), and the case is
    not played."""
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
        BatchedSoak(trial, instances(res, num_envs), None).run(warm_up=True)
        AecSoak(trial, None).run(games=1)
    except Exception as err:  # noqa: BLE001
        record_crash(trial, "warm-up", err, None)
    res.crashes += trial.crashes
    res.violations += trial.violations
    res.failures += [f"(warm-up) {f}" for f in trial.failures]


def run_case(res: CaseResult, num_envs: int, log: TextIO | None) -> None:
    try:
        batched = BatchedSoak(res, instances(res, num_envs), log)
        aec = AecSoak(res, log)
    except Exception as err:  # noqa: BLE001
        record_crash(res, "building the envs", err, log)
        return
    batched.run(warm_up=True)
    aec.run(games=1)
    res.rss_start = rss_bytes()  # the envs are alive in both samples: no need to collect
    batched.run()
    aec.run()
    res.rss_end = rss_bytes()


def soak(
    env_ids: list[str] | None = None,
    games: int = GAMES,
    aec_games: int = AEC_GAMES,
    seed: int = 0,
    num_envs: int = NUM_ENVS,
    log: TextIO | None = sys.stderr,
) -> SoakResult:
    """Play every case (see the module docstring) and return what happened."""
    start = perf_counter()
    result = SoakResult(
        plan(env_ids, games, aec_games, seed, num_envs), games, aec_games, seed, num_envs
    )
    for res in result.cases:
        _say(log, f"warming up {res.where} ...")
        warm_up(res, num_envs)
    gc.collect()
    result.rss_warm = rss_bytes()
    for res in result.cases:
        if res.crashes or res.violations:  # the warm-up failed: nothing to soak
            _say(log, f"{res.where}: not played, its warm-up failed:")
            _say(log, "\n".join(res.failures))
            continue
        _say(log, f"{res.where}: {res.batched_target:,} batched, {res.aec_target:,} AEC games")
        run_case(res, num_envs, log)
        _say(
            log,
            f"  {res.batched_games:,} batched games in {res.batched_seconds:.1f} s, "
            f"{res.aec_games:,} AEC games in {res.aec_seconds:.1f} s, "
            f"{res.violations} violation(s), {res.crashes} crash(es), "
            f"memory {res.rss_start / 2**20:.0f} -> {res.rss_end / 2**20:.0f} MB",
        )
    gc.collect()
    result.rss_end = rss_bytes()
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
                "",
                "",
                "",
            ]
        )
    right = [False, False, *[True] * 10]
    return markdown(head, rows, right)


def report(result: SoakResult) -> str:
    m = machine_info()
    problems = result.problems()
    lines = [
        f"soak {datetime.date.today().isoformat()}: {m['cpu']} ({m['logical_cpus']} logical "
        f"CPUs, {m['usable_cpus']} usable), {m['platform']}",
        f"python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"card_envs {card_envs.__version__}",
        f"settings: {result.games:,} batched and {result.aec_games:,} AEC games per env id "
        f"(split between its configs), up to {result.num_envs} batched instances, seed "
        f"{result.seed}, single-threaded",
        "",
        table(result),
        "",
        f"resident memory after the warm-up {_mb(result.rss_warm)} MB, at the end "
        f"{_mb(result.rss_end)} MB ({result.growth:+.1%}; at most {MAX_GROWTH:.0%} allowed, "
        "per case too; "
        + (
            "glibc's mmap threshold fixed at 128 KiB)"
            if result.steady_allocator
            else "the allocator's high-water mark)"
        ),
        f"wall time {result.seconds / 60:.1f} min ({result.seconds:,.0f} s)",
    ]
    failures = [f for c in result.cases for f in c.failures]
    if failures:
        lines += ["", "Failures:", *failures]
    lines += ["", "FAIL: " + "; ".join(problems) if problems else "PASS"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.soak",
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
        help="env id to soak (repeatable; default: every registered multi-agent id)",
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
    args = parser.parse_args(argv)
    games = args.games if args.games is not None else QUICK_GAMES if args.quick else GAMES
    aec_games = args.aec_games
    if aec_games is None:
        aec_games = QUICK_AEC_GAMES if args.quick else AEC_GAMES
    known = card_envs.multi_agent_env_ids()
    unknown = [e for e in args.env or [] if e not in known]
    if unknown:
        parser.error(f"unknown multi-agent env id(s) {unknown}; known ids are {known}")
    if games < 1 or aec_games < 1 or args.num_envs < 1:
        parser.error("--games, --aec-games and --num-envs must be at least 1")
    steady = steady_allocator()
    result = soak(args.env, games, aec_games, args.seed, args.num_envs)
    result.steady_allocator = steady
    print(report(result), flush=True)
    return 1 if result.problems() else 0


if __name__ == "__main__":
    raise SystemExit(main())
