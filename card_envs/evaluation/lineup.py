"""`evaluate`: seat-balanced games between a line-up of agents, reproducible whatever the
number of workers, and their `Evaluation` (statistics per agent, and a table of them).

`evaluate(env_id, agents, games, seed)` plays `games` games between the agents (one per
seat) and reports, per agent in the order given, its win rate, mean reward and mean score,
each with a confidence interval (`stats`), and its time per decision (the table's ms/move).

Seat balance: game g seats agent (s + g) % n in seat s, so over every n consecutive games
each agent sits in each seat once. `games` is rounded up to a multiple of the number of
players n (with a warning saying so), so every agent plays every seat equally often.

Reproducibility: the games are cut into fixed chunks of `chunk_games` games (a multiple of
n) before anything runs. Chunk c deals its games from seeds derived from (seed, c) only,
its agents from (seed, c, agent index) (`arena`), so the same seed gives the same games and
the same numbers with 1, 2 or 64 workers (`pool`: all cores by default).

A tqdm progress bar on stderr counts finished games when stderr is a terminal
(`progress=True` shows it anyway, `progress=False` never).
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents import Agent, make_agent
from card_envs.agents.human import check_unattended
from card_envs.agents.specs import spec_digest
from card_envs.core import layout
from card_envs.evaluation.arena import Chunk, GameBatch, agent_label, check_seed, derive_seed
from card_envs.evaluation.pool import check_workers, progress_bar, run_chunks
from card_envs.evaluation.stats import AgentStats, agent_stats, z_score
from card_envs.registry import make_game

DEFAULT_CHUNK_GAMES = 128
MAX_CHUNK_GAMES = 4096


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
    digests: list[str] | None = None  # per agent, what its spec loads (`spec_digest`)

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

    def as_dict(self) -> dict:
        """Everything needed to read the result again or to compare it with another: the
        table, the intervals, the game and its config, the seeds, and each agent's digest."""
        n = len(self.agents)
        digests = self.digests or [""] * n
        return {
            "env_id": self.env_id,
            "config": self.config,
            "seed": self.seed,
            "games": self.games,
            "games_requested": self.games_requested,
            "truncated": self.truncated,
            "confidence": self.confidence,
            "fair_share": 1 / n,
            "seconds": round(self.seconds, 3),
            "version": _version(),
            "agents": [
                {**s.as_dict(), "digest": d} for s, d in zip(self.agents, digests, strict=True)
            ],
            "game_seeds": [int(x) for x in self.results.seeds],
        }

    def write(self, path: str | os.PathLike) -> Path:
        """The result as JSON (`as_dict`) or CSV (one row per agent, the setting repeated on
        each), chosen by the file's suffix."""
        path = Path(path)
        data = self.as_dict()
        if path.suffix not in (".json", ".csv"):
            raise ValueError(f"--out {path}: the file must end in .json or .csv")
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".json":
            path.write_text(json.dumps(data, indent=1, allow_nan=True) + "\n")
            return path
        setting = {k: data[k] for k in ("env_id", "seed", "confidence", "fair_share")}
        setting["games_played"] = data["games"]
        setting["config"] = json.dumps(self.config, sort_keys=True)
        with path.open("w", newline="") as f:
            writer = csv.writer(f)
            header = ["agent", "spec", "digest", "games", "win_rate", "win_rate_low",
                      "win_rate_high", "mean_reward", "mean_reward_low", "mean_reward_high",
                      "mean_score", "mean_score_low", "mean_score_high", "ms_per_move",
                      "seat_games", *setting]  # fmt: skip
            writer.writerow(header)
            for a in data["agents"]:
                writer.writerow([
                    a["name"], a["spec"], a["digest"], a["games"], a["win_rate"],
                    *a["win_rate_ci"], a["mean_reward"], *a["mean_reward_ci"], a["mean_score"],
                    *a["mean_score_ci"], a["ms_per_move"],
                    " ".join(map(str, a["seat_games"])), *setting.values(),
                ])  # fmt: skip
        return path


def _version() -> str:
    from card_envs import __version__

    return __version__


def _half(ci: tuple[float, float]) -> str:
    half = (ci[1] - ci[0]) / 2
    return "nan" if math.isnan(half) else f"{half:.3f}"


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
    names: Sequence[str | None] | None = None,
    **config: Any,
) -> Evaluation:
    """Seat-balanced games of `env_id` between `agents` (specs or Agent objects, one per
    seat); statistics per agent in the order given. `config` is the game's config (the
    number of players is the number of agents). See the module doc for seeds, and `stats`
    for the intervals.

    With `record`, `results.actions` holds each game's actions, and with `record_policy`
    too, `results.policy` each decision's policy (`Agent.act_with_policy`).

    With `positions` (state dicts of running games, e.g. `card_envs.positions`), the games
    start from them instead of fresh deals: `games` games from each position, seat-balanced
    per position, so every agent plays each position from every seat.

    `names` label the agents in the table (None: the spec, or the Agent's name).
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
    z_score(confidence)
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
    given = list(names) if names is not None else [None] * n
    if len(given) != n:
        raise ValueError(f"names: {len(given)} names for {n} agents")
    labels = [given[k] or agent_label(a) for k, a in enumerate(field)]
    specs = [
        a if isinstance(a, str) else getattr(a, "spec", labels[k]) for k, a in enumerate(field)
    ]
    stats = [agent_stats(labels[k], specs[k], results, k, n, confidence) for k in range(n)]
    digests = [spec_digest(a, env_id) if isinstance(a, str) else "" for a in field]
    return Evaluation(
        env_id, config, seed, total, int(games), confidence, stats, results, seconds, digests
    )


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
