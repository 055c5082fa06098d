"""Seat-balanced evaluation of agents, reproducible whatever the number of workers.

This is the one way games between agents are played in batch: `evaluate`, the tournaments,
`card-envs play` and the benchmarks all play their games with `play_chunk`.

`evaluate(env_id, agents, games, seed)` plays `games` games between the agents (one per
seat) and reports, per agent in the order given, its win rate, mean reward and mean score,
each with a confidence interval.

Seat balance: game g seats agent (s + g) % n in seat s, so over every n consecutive games
each agent sits in each seat once. `games` is rounded up to a multiple of the number of
players n (with a warning saying so), so every agent plays every seat equally often.

Reproducibility: the games are cut into fixed chunks of `chunk_games` games (a multiple of
n) before anything runs. Chunk c deals its games from seeds derived from (seed, c) only
(`derive_seed`, numpy's SeedSequence): game i of the chunk is dealt exactly as an AEC env
reset with seed `chunk_seed + i`, and agents that draw random numbers are seeded from
(seed, c, agent index). Workers only decide who plays a chunk, so the same seed gives the
same games and the same numbers with 1, 2 or 64 workers. Agent objects (rather than spec
strings) are copied into each chunk as they were given, for the same reason.

Confidence intervals (`confidence`, 95% by default):

- win rate: the Wilson score interval for a proportion, with p = the mean win share and
  n = games. A game's win share is 1 for a sole winner, 1/k for each of k tied winners and
  0 otherwise. For such fractional values w in [0, 1], w**2 <= w, so their variance
  E[w**2] - p**2 is at most p (1 - p), the variance Wilson's interval assumes: with ties the
  interval is conservative (a little too wide), never too narrow. Unlike a normal-
  approximation interval it stays inside [0, 1] and has non-zero width at 0% and 100%.
- mean reward, mean score: Student's t interval on the per-game values,
  mean +- t(1 - (1 - confidence) / 2, n - 1) * s / sqrt(n), s the sample standard deviation
  (ddof=1); (nan, nan) with a single game.

Runs on all cores by default (`workers=None`: one process per core, forked on Linux, spawned
elsewhere); `workers=1` plays in this process.

Agents are asked for actions in batches, for all the games of a chunk where they are to
act at once; `reset()` is called once per chunk, before its games start, so an agent that
keeps state between its moves must keep it per game itself. Agents that search the game
(`wants_rows`) get the instances' state rows (`Agent.act_positions`). Each agent's wall
time per decision is reported (`AgentStats.ms_per_move`, the table's ms/move: a batch
call's time shared evenly among its positions; measured on whatever else the machine
runs, so a cost to compare, not a constant). A tqdm progress
bar on stderr counts finished games when stderr is a terminal (`progress=True` shows it
anyway, `progress=False` never).
"""

from __future__ import annotations

import copy
import math
import multiprocessing
import os
import signal
import sys
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Any, TextIO

import numpy as np

from card_envs.agents import Agent, make_agent
from card_envs.agents.base import policy_entry
from card_envs.agents.human import check_unattended
from card_envs.core import layout
from card_envs.core.batched import SKIP
from card_envs.registry import kernel_groups, make_game, make_vec

DEFAULT_CHUNK_GAMES = 128
MAX_CHUNK_GAMES = 4096

__all__ = [
    "AgentStats",
    "Chunk",
    "DEFAULT_CHUNK_GAMES",
    "Evaluation",
    "GameBatch",
    "derive_seed",
    "evaluate",
    "play_chunk",
    "mp_context",
    "run_chunks",
    "warm_up",
    "t_interval",
    "wilson_interval",
]


# --- statistics ---------------------------------------------------------------------------
def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(p: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion p observed over n trials (see module doc for
    fractional win shares)."""
    if n < 1:
        return (math.nan, math.nan)
    z = _z(confidence)
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
    # the interval always holds p (exactly 0 at p = 0, 1 at p = 1): clip rounding errors
    return (max(0.0, min(center - half, p)), min(1.0, max(center + half, p)))


def t_interval(values: Sequence[float] | np.ndarray, confidence: float = 0.95):
    """Student's t interval for the mean of `values`: (mean, (low, high))."""
    x = np.asarray(values, dtype=np.float64)
    _z(confidence)
    if len(x) == 0:
        return math.nan, (math.nan, math.nan)
    mean = float(x.mean())
    if len(x) < 2:
        return mean, (math.nan, math.nan)
    from scipy.special import stdtrit  # Student t quantile (lighter than scipy.stats)

    q = float(stdtrit(len(x) - 1, 0.5 + confidence / 2))
    half = q * float(x.std(ddof=1)) / math.sqrt(len(x))
    return mean, (mean - half, mean + half)


# --- seeds ----------------------------------------------------------------------------------
def check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    return int(seed)


def derive_seed(seed: int, *key: int) -> int:
    """A 62-bit seed from (seed, *key) through numpy's SeedSequence: chunks and agents get
    independent streams that depend only on where they are in the schedule."""
    words = np.random.SeedSequence([check_seed(seed), *map(int, key)]).generate_state(2)
    return (int(words[1]) & 0x3FFFFFFF) << 32 | int(words[0])


# --- one chunk of games -------------------------------------------------------------------
@dataclass
class GameBatch:
    """Finished games, one row per game, in the order they were scheduled.

    Game g was dealt exactly as an AEC env `reset(seed=seeds[g])` deals; `actions[g]`, when
    recorded, are its actions in order (replaying them reproduces the game).
    """

    agent_of_seat: np.ndarray  # (games, num_players) field index of the agent in each seat
    rewards: np.ndarray  # (games, num_players) total reward of each seat
    scores: np.ndarray  # (games, num_players) final game score of each seat
    win_share: np.ndarray  # (games, num_players) 1/k for each of k tied winners, else 0
    lengths: np.ndarray  # (games,) actions taken
    truncated: np.ndarray  # (games,) whether the game was cut short by a cap
    seeds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    actions: list[list[int]] | None = None
    # (games, num_players), when measured: each seat's decisions and the seconds its agent
    # spent choosing them (a batch call's time shared evenly among its positions)
    moves: np.ndarray | None = None
    think: np.ndarray | None = None
    # per game, when recorded: each decision's policy (`card_envs.agents.base.policy_entry`;
    # None for an agent without one), in the order of `actions`
    policy: list[list[dict | None]] | None = None

    @staticmethod
    def concat(batches: Sequence[GameBatch]) -> GameBatch:
        def joined(name: str):
            parts = [getattr(b, name) for b in batches]
            if not parts or any(p is None for p in parts):
                return None
            if name in ("actions", "policy"):
                return [a for p in parts for a in p]
            return np.concatenate(parts)

        return GameBatch(
            *(np.concatenate([getattr(b, name) for b in batches]) for name in _ARRAYS),
            seeds=np.concatenate([b.seeds for b in batches]),
            actions=joined("actions"),
            moves=joined("moves"),
            think=joined("think"),
            policy=joined("policy"),
        )


_ARRAYS = ("agent_of_seat", "rewards", "scores", "win_share", "lengths", "truncated")


@dataclass
class Chunk:
    """A fixed piece of a schedule: the games one worker plays in one batched env.

    `agents` is the field (specs or Agent objects); `agent_of_seat[i]` names, for game i, the
    field index in each seat. Game i is dealt from `seed + i`; field agent k is built with
    seed `agent_seeds[k]`. `key` is the caller's label, handed back untouched.
    """

    env_id: str
    config: dict
    agents: tuple
    agent_of_seat: np.ndarray
    seed: int
    agent_seeds: tuple[int, ...]
    record: bool = False
    key: Any = None
    starts: tuple[dict, ...] | None = None  # game i starts from state dict starts[i]
    record_policy: bool = False  # with `record`: each decision's policy too

    @property
    def num_games(self) -> int:
        return len(self.agent_of_seat)


def _build_agent(spec: str | Agent, env_id: str, seed: int, config: dict) -> Agent:
    if isinstance(spec, Agent):
        return copy.deepcopy(spec)  # each chunk starts from the agent as it was given
    return make_agent(spec, env_id, seed=seed, **config)


def _agent_label(agent: str | Agent) -> str:
    return agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__)


def _illegal(chunk: Chunk, k: int, chosen: np.ndarray, masks: np.ndarray) -> None:
    for action, mask in zip(chosen.tolist(), masks, strict=True):
        if not 0 <= action < len(mask) or not mask[action]:
            raise ValueError(
                f"{chunk.env_id}: agent {_agent_label(chunk.agents[k])!r} chose illegal "
                f"action {action}; legal actions were {np.flatnonzero(mask).tolist()}"
            )


def play_chunk(chunk: Chunk) -> GameBatch:
    """Play the chunk's games, each instance of one batched env playing exactly one game;
    every agent is asked once per engine step for all games where it is to act."""
    seats = np.asarray(chunk.agent_of_seat, dtype=np.int64)
    m, n = seats.shape
    venv = make_vec(chunk.env_id, m, **chunk.config)
    if venv.num_players != n:
        raise ValueError(f"{chunk.env_id} has {venv.num_players} seats, the chunk names {n}")
    used = sorted(set(np.unique(seats).tolist()))
    agents: dict[int, Agent] = {
        k: _build_agent(chunk.agents[k], chunk.env_id, chunk.agent_seeds[k], chunk.config)
        for k in used
    }
    for agent in agents.values():
        agent.reset()
    rewards = np.zeros((m, n))
    scores = np.zeros((m, n))
    wins = np.zeros((m, n))
    lengths = np.zeros(m, dtype=np.int64)
    moves = np.zeros((m, n), dtype=np.int64)
    think = np.zeros((m, n))
    truncated = np.zeros(m, dtype=bool)
    done = np.zeros(m, dtype=bool)
    actions = np.full(m, SKIP, dtype=np.int64)
    rows = np.arange(m)
    log: list[np.ndarray] = []
    policies = [[] for _ in range(m)] if chunk.record and chunk.record_policy else None
    num_actions = venv.num_actions
    obs, masks = venv.reset(seed=chunk.seed)
    for i, state in enumerate(chunk.starts or ()):  # its chance to come: seeded as the deal
        venv.set_state(i, state, seed=chunk.seed + i)
    while not done.all():
        who = np.where(done, -1, seats[rows, venv.current_player])  # field index to act
        actions[:] = SKIP
        for k, agent in agents.items():
            hit = who == k
            if not hit.any():
                continue
            sel = hit.nonzero()[0]
            t0 = time.perf_counter()
            if policies is None:
                chosen = agent.act_positions(obs[sel], masks[sel], venv.states[sel])
            else:
                chosen, probs, values = agent.act_with_policy(
                    obs[sel], masks[sel], venv.states[sel]
                )
                for j, i in enumerate(sel.tolist()):
                    policies[i].append(
                        None if probs is None else policy_entry(probs[j], values[j], chosen[j])
                    )
            chosen = np.asarray(chosen, dtype=np.int64)
            seat = venv.current_player[sel]
            moves[sel, seat] += 1
            think[sel, seat] += (time.perf_counter() - t0) / len(sel)
            if chosen.shape != sel.shape:
                raise ValueError(
                    f"agent {_agent_label(chunk.agents[k])!r} returned {chosen.shape} "
                    f"actions for {len(sel)} observations"
                )
            if chosen.min() < 0 or chosen.max() >= num_actions or not masks[sel, chosen].all():
                _illegal(chunk, k, chosen, masks[sel])
            actions[sel] = chosen
        if chunk.record:
            log.append(actions.copy())
        active = who >= 0
        _, _, rew, term, trunc = venv.step(actions)
        rewards += rew
        lengths += active
        ended = (term | trunc) & active
        if ended.any():
            idx = ended.nonzero()[0]
            scores[idx] = venv.final_scores[idx]
            wins[idx] = venv.final_wins[idx]
            truncated[idx] = trunc[idx]
            done[idx] = True
        obs, masks = venv.observations, venv.action_masks
    recorded = None
    if chunk.record:
        table = np.stack(log) if log else np.zeros((0, m), dtype=np.int64)
        recorded = [table[: lengths[i], i].tolist() for i in range(m)]
    return GameBatch(
        seats.copy(),
        rewards,
        scores,
        wins,
        lengths,
        truncated,
        seeds=chunk.seed + np.arange(m, dtype=np.int64),
        actions=recorded,
        moves=moves,
        think=think,
        policy=policies,
    )


# --- running many chunks ----------------------------------------------------------------
def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_workers(workers: Any) -> int:
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive int or None (all cores), got {workers!r}")
    return int(workers)


def _init_worker() -> None:
    # Ctrl-C is the parent's to handle: it stops the pool and keeps what was finished
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # one core per worker: keep torch (PPO agents) from starting a thread per core each
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = "1"
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def mp_context():
    """The process start method of the worker pools: fork on Linux, where workers start at
    once with the compiled kernels already loaded and a script need not guard its top level
    with `if __name__ == "__main__":`; elsewhere spawn (which needs that guard in scripts)."""
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _warm_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Per distinct game, config and field, the fewest games of its first chunk that seat
    every agent it uses (unrecorded)."""
    seen: set[tuple] = set()
    out: list[Chunk] = []
    for chunk in chunks:
        key = (
            chunk.env_id,
            repr(sorted(chunk.config.items())),
            tuple(map(_agent_label, chunk.agents)),
        )
        if key in seen:
            continue
        seen.add(key)
        seats = np.asarray(chunk.agent_of_seat, dtype=np.int64)
        rows: list[int] = []
        covered: set[int] = set()
        for i, row in enumerate(seats.tolist()):
            if not covered.issuperset(row):
                rows.append(i)
                covered.update(row)
        out.append(replace(chunk, agent_of_seat=seats[rows], record=False))
    return out


def _kernel_groups(chunks: list[Chunk]) -> list[list[Chunk]]:
    """`chunks` split by the env ids' `kernel_groups()`, the dearest to compile first."""
    rank = {e: g for g, group in enumerate(kernel_groups()) for e in group}
    groups: dict[int, list[Chunk]] = {}
    for chunk in chunks:
        groups.setdefault(rank[chunk.env_id], []).append(chunk)
    return [groups[k] for k in sorted(groups)]


def _play_all(chunks: list[Chunk]) -> None:
    for chunk in chunks:
        play_chunk(chunk)


def warm_up(chunks: Sequence[Chunk], workers: int = 1) -> None:
    """Compile, in this process, every kernel the chunks will call, by playing (and
    discarding) the `_warm_chunks`.

    Worker processes then start with the kernels compiled (forked) or find them in numba's
    cache (spawned, Ray), instead of each compiling the same kernels. (The crash once
    blamed on those parallel compiles was numba's cache of the generic loops, see
    `core.batched`.) With `workers` > 1 and games of more than one `kernel_groups()` group,
    those groups are first compiled into the cache by that many processes at once: a cold
    compile of the main tournament's agents takes about 4 minutes in one process.
    """
    warm = _warm_chunks(chunks)
    groups = _kernel_groups(warm)
    if workers > 1 and len(groups) > 1:
        with mp_context().Pool(min(workers, len(groups)), _init_worker) as pool:
            list(pool.imap_unordered(_play_all, groups))
    _play_all(warm)  # from the cache now


def run_chunks(
    chunks: Sequence[Chunk], workers: int | None = None
) -> Iterator[tuple[int, GameBatch]]:
    """Play `chunks`, yielding (index, batch) as they finish (in-process when workers=1 or
    there is a single chunk; else in a pool of processes, after `warm_up`)."""
    workers = min(check_workers(workers), len(chunks))
    if multiprocessing.current_process().daemon:  # a daemon process may not have children
        workers = 1
    if workers <= 1:
        for i, chunk in enumerate(chunks):
            yield i, play_chunk(chunk)
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    warm_up(chunks, workers)

    with ProcessPoolExecutor(workers, mp_context=mp_context(), initializer=_init_worker) as pool:
        futures = {pool.submit(play_chunk, chunk): i for i, chunk in enumerate(chunks)}
        try:
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in sorted(finished, key=futures.__getitem__):
                    yield futures[fut], fut.result()
        finally:
            for fut in futures:
                fut.cancel()


def show_progress(setting: bool | None, stream: TextIO) -> bool:
    """Whether to draw a progress bar on `stream`: as `setting` says, or (None: auto) only
    when the stream is a terminal, so that logs and pipes get no carriage-return frames."""
    if setting is None:
        return stream.isatty()
    return setting


def progress_bar(total: int, desc: str, setting: bool | None):
    """A tqdm bar on stderr counting games, shown as `show_progress` decides (without tqdm's
    monitor thread, so that worker processes are never forked from a process with a second
    thread of ours)."""
    from tqdm import tqdm

    class _Bar(tqdm):
        monitor_interval = 0

    shown = show_progress(setting, sys.stderr)
    return _Bar(total=total, desc=desc, unit="game", disable=not shown, file=sys.stderr)


# --- evaluate -------------------------------------------------------------------------------
@dataclass(frozen=True)
class AgentStats:
    """One agent's results over all its games (all seats)."""

    name: str
    spec: str
    games: int
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_reward: float
    mean_reward_ci: tuple[float, float]
    mean_score: float
    mean_score_ci: tuple[float, float]
    seat_games: tuple[int, ...]  # games played in each seat
    ms_per_move: float = math.nan  # wall time the agent took per decision (nan: not measured)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Evaluation(Sequence):
    """Per-agent statistics in the order the agents were given (index it like a list)."""

    env_id: str
    config: dict
    seed: int
    games: int
    games_requested: int
    confidence: float
    agents: list[AgentStats]
    results: GameBatch
    seconds: float

    def __getitem__(self, i):
        return self.agents[i]

    def __len__(self) -> int:
        return len(self.agents)

    @property
    def truncated(self) -> int:
        return int(self.results.truncated.sum())

    def table(self) -> str:
        pct = round(100 * self.confidence)
        lines = [
            f"{self.env_id} {self.config}: {self.games} games, seats balanced, seed {self.seed}"
            + (f" ({self.truncated} truncated)" if self.truncated else ""),
            f"{'#':>3} {'agent':<20} {'win rate':>8} {f'{pct}% CI':>15} "
            f"{'reward':>9} {'± ci':>7} {'score':>9} {'± ci':>7} {'games':>7} {'ms/move':>8}",
        ]
        for i, s in enumerate(self.agents):
            lines.append(
                f"{i:>3} {s.name:<20} {s.win_rate:>8.3f} "
                f"{f'[{s.win_rate_ci[0]:.3f}, {s.win_rate_ci[1]:.3f}]':>15} "
                f"{s.mean_reward:>9.3f} {_half(s.mean_reward_ci):>7} "
                f"{s.mean_score:>9.2f} {_half(s.mean_score_ci):>7} {s.games:>7} "
                f"{s.ms_per_move:>8.3f}"
            )
        return "\n".join(lines)


def _half(ci: tuple[float, float]) -> str:
    half = (ci[1] - ci[0]) / 2
    return "nan" if math.isnan(half) else f"{half:.3f}"


def agent_stats(
    name: str, spec: str, results: GameBatch, agent: int, n: int, confidence: float
) -> AgentStats:
    """Statistics of field agent `agent` over the games it played in `results`."""
    mask = results.agent_of_seat == agent
    games = int(mask.any(axis=1).sum())
    share = results.win_share[mask]
    win_rate = float(share.mean()) if len(share) else math.nan
    reward, reward_ci = t_interval(results.rewards[mask], confidence)
    score, score_ci = t_interval(results.scores[mask], confidence)
    return AgentStats(
        name=name,
        spec=spec,
        games=games,
        win_rate=win_rate,
        win_rate_ci=wilson_interval(win_rate, len(share), confidence),
        mean_reward=reward,
        mean_reward_ci=reward_ci,
        mean_score=score,
        mean_score_ci=score_ci,
        seat_games=tuple(int(c) for c in mask.sum(axis=0)) if n else (),
        ms_per_move=ms_per_move(results, mask),
    )


def ms_per_move(results: GameBatch, mask: np.ndarray) -> float:
    """Milliseconds of choosing per decision over the seats in `mask` (nan: not measured)."""
    if results.moves is None or results.think is None or not results.moves[mask].sum():
        return math.nan
    return 1000.0 * float(results.think[mask].sum()) / float(results.moves[mask].sum())


def _drive(
    chunks: Sequence[Chunk], workers: int | None, progress: bool | None, desc: str
) -> list[GameBatch]:
    out: list[GameBatch | None] = [None] * len(chunks)
    with progress_bar(sum(c.num_games for c in chunks), desc, progress) as bar:
        for i, batch in run_chunks(chunks, workers):
            out[i] = batch
            bar.update(chunks[i].num_games)
    return out  # type: ignore[return-value]


def evaluate(
    env_id: str,
    agents: Iterable[str | Agent],
    games: int = 1000,
    seed: int = 0,
    workers: int | None = None,
    progress: bool | None = None,
    *,
    confidence: float = 0.95,
    chunk_games: int = DEFAULT_CHUNK_GAMES,
    record: bool = False,
    record_policy: bool = False,
    positions: Sequence[dict] | None = None,
    **config: Any,
) -> Evaluation:
    """Seat-balanced games of `env_id` between `agents` (specs or Agent objects, one per
    seat); statistics per agent in the order given. `config` is the game's config (the
    number of players is the number of agents). See the module doc for seeds and intervals.

    With `record`, `results.actions` holds each game's actions, and with `record_policy`
    too, `results.policy` each decision's policy (`Agent.act_with_policy`).

    With `positions` (state dicts of running games, e.g. `card_envs.positions`), the games
    start from them instead of fresh deals: `games` games from each position, seat-balanced
    per position, so every agent plays each position from every seat.
    """
    field = list(agents)
    n = len(field)
    if n == 0:
        raise ValueError("evaluate needs at least one agent")
    config = dict(config)
    if config.setdefault("num_players", n) != n:
        raise ValueError(
            f"{env_id}: num_players={config['num_players']!r} but {n} agents were given "
            "(one agent per seat)"
        )
    make_game(env_id, **config)  # validates the env id and the config
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    seed = check_seed(seed)
    check_workers(workers)
    _z(confidence)
    if isinstance(chunk_games, bool) or not isinstance(chunk_games, int) or chunk_games < 1:
        raise ValueError(f"chunk_games must be a positive int, got {chunk_games!r}")
    for k, spec in enumerate(field):  # a bad spec fails here, before any worker starts
        if not isinstance(spec, (str, Agent)):
            raise ValueError(f"agent {k}: expected a spec string or an Agent, got {spec!r}")
        agent = make_agent(spec, env_id, seed=0, **config) if isinstance(spec, str) else spec
        check_unattended(agent, "evaluate")
    starts = None
    if positions is not None:
        starts = _checked_positions(env_id, config, positions)
    total = -(-int(games) // n) * n
    if total != games:
        warnings.warn(
            f"{env_id}: playing {total} games instead of {games}, a multiple of the {n} "
            "players, so every agent sits in every seat equally often",
            stacklevel=2,
        )
    size = min(-(-chunk_games // n) * n, -(-MAX_CHUNK_GAMES // n) * n)
    order = (np.arange(n)[None, :] + np.arange(total)[:, None]) % n
    if starts is not None:  # every position `total` times, seat-balanced
        order = np.tile(order, (len(starts), 1))
        starts = tuple(d for d in starts for _ in range(total))
        total *= len(positions)
    chunks = [
        Chunk(
            env_id,
            config,
            tuple(field),
            order[start : start + size],
            derive_seed(seed, c),
            tuple(derive_seed(seed, c, 1 + k) for k in range(n)),
            record=record or record_policy,
            key=c,
            record_policy=record_policy,
            starts=None if starts is None else starts[start : start + size],
        )
        for c, start in enumerate(range(0, total, size))
    ]
    t0 = time.perf_counter()
    results = GameBatch.concat(_drive(chunks, workers, progress, env_id))
    seconds = time.perf_counter() - t0
    names = [_agent_label(a) for a in field]
    specs = [a if isinstance(a, str) else getattr(a, "spec", names[k]) for k, a in enumerate(field)]
    stats = [agent_stats(names[k], specs[k], results, k, n, confidence) for k in range(n)]
    return Evaluation(env_id, config, seed, total, int(games), confidence, stats, results, seconds)


def _checked_positions(env_id: str, config: dict, positions: Sequence[dict]) -> list[dict]:
    """The positions, each loaded once here so a bad one fails before any game is played."""
    game = make_game(env_id, **config)
    if not positions:
        raise ValueError(f"{env_id}: positions is empty; give at least one state dict")
    for k, state in enumerate(positions):
        row = game.load_state_dict(state)
        if row[layout.STATUS] != layout.RUNNING:
            raise ValueError(f"{env_id}: position {k} is a finished game; nothing to play")
    return list(positions)


# --- single-agent envs ----------------------------------------------------------------------
@dataclass(frozen=True)
class EpisodeStats:
    """An agent's returns over episodes of a single-agent env (e.g. games won per run)."""

    env_id: str
    agent: str
    episodes: int
    mean_return: float
    mean_return_ci: tuple[float, float]
    returns: np.ndarray = field(repr=False, compare=False)


def evaluate_episodes(
    env_id: str,
    agent: str | Agent,
    episodes: int = 300,
    seed: int = 0,
    confidence: float = 0.95,
    **config: Any,
) -> EpisodeStats:
    """Mean return of `agent` over `episodes` episodes of the single-agent env `env_id`
    (episode e is reset with seed `seed + e`), with a t-interval. The episodes run side by
    side and the agent acts for all live ones at once, as in `evaluate`. Agent specs are built for
    the env's `agent_env` (the multi-agent env with the same observations and actions)."""
    from card_envs.registry import make

    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ValueError(f"episodes must be a positive int, got {episodes!r}")
    seed = check_seed(seed)
    env = make(env_id, **config)
    if not hasattr(env, "action_masks"):
        raise ValueError(f"{env_id} is not a single-agent env with action masks")
    actor = make_agent(agent, getattr(env, "agent_env", env_id), seed=seed)
    check_unattended(actor, "evaluate_episodes")
    actor.reset()
    # all episodes side by side, so the agent is asked once per step for all that are live
    envs = [env] + [make(env_id, **config) for _ in range(episodes - 1)]
    obs = [e.reset(seed=seed + i)[0] for i, e in enumerate(envs)]
    live = list(range(episodes))
    returns = np.zeros(episodes)
    while live:
        actions = actor.act_batch(
            np.stack([obs[i] for i in live]), np.stack([envs[i].action_masks() for i in live])
        )
        still = []
        for i, action in zip(live, actions, strict=True):
            obs[i], reward, terminated, truncated, _ = envs[i].step(int(action))
            returns[i] += reward
            if not (terminated or truncated):
                still.append(i)
        live = still
    mean, ci = t_interval(returns, confidence)
    return EpisodeStats(env_id, _agent_label(agent), episodes, mean, ci, returns)
