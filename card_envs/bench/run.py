"""Run the benchmark for one candidate: every cell's games that the store does not hold yet,
then its scorecard from all of them.

The games go to a tournament store (SQLite, `runs/bench.sqlite` by default) under the
tournament `<version>:<spec>:<digest>`, one event per cell, so a rerun resumes, and an
edited agent (another digest) is benched afresh beside the old one. The multi-seat cells
and `rummidrez_solo_v0` are played in chunks by the tournaments' backends (processes on
every core, or Ray); the runs of `double_or_nothing_run_v0`, a Gymnasium env, in this
process.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents import llm, make_agent
from card_envs.agents.specs import AgentSpec, parse_spec, spec_digest
from card_envs.bench import protocol
from card_envs.bench.protocol import CANDIDATE, Cell
from card_envs.bench.scorecard import Scorecard, Skipped, cell_result
from card_envs.evaluation.arena import GameBatch, derive_seed
from card_envs.evaluation.episodes import evaluate_episodes
from card_envs.evaluation.pool import progress_bar
from card_envs.registry import agent_env_id, batched_env_ids
from card_envs.tournament.config import Entry, Event, TournamentConfig
from card_envs.tournament.runner import play_missing
from card_envs.tournament.schedule import EventPlan, Table, name_key
from card_envs.tournament.store import Store

DEFAULT_DB = "runs/bench.sqlite"
CHUNK_GAMES = 128  # above every cell's games: a cell is one chunk, so a resumed run deals
#   its agents' random streams as an uninterrupted one does


class BenchError(ValueError):
    """A benchmark that cannot be run as asked (a stale protocol, an unknown env id)."""


@dataclass(frozen=True)
class Settings:
    """Where and how the games are played; none of it changes a number."""

    db: str = DEFAULT_DB
    backend: str = "local"
    workers: int | None = None
    ray_address: str | None = None
    progress: bool | None = None
    restart: bool = False


def select(
    env_ids: Sequence[str] | None,
    cells: Sequence[Cell] = protocol.CELLS,
    players: Sequence[int] | None = None,
) -> list[Cell]:
    """The protocol's cells of `env_ids` (None: all of them) with `players` seats (None:
    any number)."""
    have = list(dict.fromkeys(c.env_id for c in cells))
    unknown = [e for e in env_ids or () if e not in have]
    if unknown:
        raise BenchError(f"--env {unknown[0]!r}: {protocol.VERSION} has cells of {have}")
    chosen = [c for c in cells if not env_ids or c.env_id in env_ids]
    counts = sorted({c.num_players for c in chosen})
    if players and not set(players) & set(counts):
        raise BenchError(f"--players {list(players)}: the cells asked for have {counts}")
    return [c for c in chosen if not players or c.num_players in players]


def _playable(agent: AgentSpec, chosen: Sequence[Cell]) -> tuple[list[Cell], list[Skipped], bool]:
    """The cells the candidate can play, those it cannot with the reason, and whether it
    reads state rows. The agent is built at every cell's config before any game is played:
    one that refuses a config (a model trained for another player count, a `py:` agent that
    raises ValueError for a game it does not play) sits those cells out; one that can play
    no cell at all is an error."""

    def built_at(cell: Cell) -> tuple[str, dict]:  # the agent's env id and config, as in games
        env_id = agent_env_id(cell.env_id)
        return env_id, cell.options if cell.env_id == env_id else {}

    reasons: dict[tuple[str, str], str] = {}
    reads_rows = needs_rows = False
    for cell in chosen:
        env_id, config = built_at(cell)
        key = (env_id, repr(sorted(config.items())))
        if key in reasons:
            continue
        try:
            built = make_agent(agent, env_id, seed=0, **config)
        except ValueError as err:  # ModelError, AgentSpecError, a user's refusal
            reasons[key] = str(err)
            continue
        reasons[key] = ""
        needs_rows = needs_rows or bool(built.wants_rows)
        # an `llm` agent reads rows only through the seat's view: no hidden card
        reads_rows = reads_rows or bool(built.wants_rows and not built.views_only)
    playable, skipped = [], []
    for cell in chosen:
        env_id, config = built_at(cell)
        why = reasons[env_id, repr(sorted(config.items()))]
        if not why and needs_rows and cell.env_id not in batched_env_ids():
            why = "a Gymnasium env hands an agent no state rows"
        (skipped.append(Skipped(cell, why)) if why else playable.append(cell))
    if not playable:
        raise BenchError(f"{agent.text} can play none of the cells asked for: {skipped[0].reason}")
    return playable, skipped, reads_rows


def panel_digests(cells: Sequence[Cell]) -> dict[tuple[str, str], str]:
    """What each panel agent of `cells` loads, by (agent env, spec); a protocol whose panel
    networks are not the ones it was frozen with is refused."""
    digests = {}
    for env_id, agent in sorted({(agent_env_id(c.env_id), c.panel) for c in cells}):
        digest = digests[env_id, agent] = spec_digest(agent, env_id)
        frozen = protocol.NETWORKS.get((env_id, agent))
        if agent in ("ppo", "exit") and digest != frozen:
            raise BenchError(
                f"the shipped {agent} network of {env_id} is not {protocol.VERSION}'s "
                f"(digest {digest}, the protocol's {frozen}): a network shipped anew makes "
                "a new protocol version"
            )
    return digests


def candidate_digest(spec: AgentSpec, env_ids: Sequence[str]) -> str:
    """One digest of what the spec loads for every env it is benched on."""
    parts = [f"{e}={spec_digest(spec, agent_env_id(e))}" for e in env_ids]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _event(cell: Cell, spec: AgentSpec, digest: str, panel_digest: str) -> Event:
    candidate = Entry(CANDIDATE, spec.text, {}, digest)
    panel = Entry(cell.panel, cell.panel, {}, panel_digest)
    return Event(
        cell.name, cell.env_id, cell.options, (candidate, panel), cell.num_players,
        "bench", cell.games, None, "win",
    )  # fmt: skip


def cell_plan(cell: Cell, event: Event) -> EventPlan:
    """The cell's games. Seats: the candidate (field index 0) in seat j mod n of game j, the
    panel agent (1) in the others. Same deals: the candidate's table and the panel agent's,
    each playing every deal. Deals from (SEED, the cell's name) only."""
    n, g = cell.num_players, cell.games
    stream = name_key(cell.name)
    j = np.arange(g)
    if cell.kind == "seats":
        tables = [Table((CANDIDATE, cell.panel))]
        seats = np.ones((g, n), dtype=np.int64)
        seats[j, j % n] = 0
        table_of, game_of = np.zeros(g, dtype=np.int64), j
    else:
        tables = [Table((CANDIDATE,)), Table((cell.panel,))]
        seats = np.repeat(np.array([[0], [1]], dtype=np.int64), g, axis=0)
        table_of, game_of = np.repeat(np.arange(2), g), np.tile(j, 2)
    if cell.env_id in batched_env_ids():
        seeds = np.array([derive_seed(protocol.SEED, stream, k) for k in game_of])
    else:  # a Gymnasium env's episode e is reset with seed base + e (`evaluate_episodes`)
        seeds = derive_seed(protocol.SEED, stream) + game_of
    keys = [t.key(cell.name) for t in tables]
    return EventPlan(event, tables, keys, table_of, game_of, seats, seeds.astype(np.int64))


def _play_runs(
    config: TournamentConfig, store: Store, plans: list[EventPlan], echo: Callable
) -> int:
    """The episodes of the single-agent cells that are not stored, one table at a time."""
    todo = []
    for p in plans:
        have = store.stored_games(config.name, p.event.name)
        for t, key in enumerate(p.keys):
            games = np.flatnonzero(p.table_of == t)
            if any((key, int(p.game_of[k])) not in have for k in games):
                todo.append((p, t, games))
    total = sum(len(games) for _, _, games in todo)
    if not total:
        return 0
    echo(f"{total} runs of a single-agent env to play in this process")
    with progress_bar(total, "runs", config.progress) as bar:
        for p, t, games in todo:
            agent = p.event.agents[t].agent_spec()
            first = int(p.seeds[games[0]])
            stats = evaluate_episodes(p.event.env, agent, len(games), first, **p.event.config)
            m = len(games)
            returns = stats.returns.reshape(m, 1)
            batch = GameBatch(
                np.full((m, 1), t, dtype=np.int64), returns, returns, np.zeros((m, 1)),
                stats.lengths, np.zeros(m, dtype=bool), seeds=first + np.arange(m),
                actions=None, moves=stats.lengths.reshape(m, 1),
                think=stats.lengths.reshape(m, 1) * stats.ms_per_move / 1000,
            )  # fmt: skip
            store.add_chunk(config.name, p, games, batch)
            bar.update(m)
    return total


def bench(
    spec: str | AgentSpec,
    options: dict[str, Any] | None = None,
    env_ids: Sequence[str] | None = None,
    settings: Settings = Settings(),
    echo: Callable[[str], None] = print,
    cells: Sequence[Cell] | None = None,
    players: Sequence[int] | None = None,
) -> Scorecard:
    """Bench the agent `spec` (with its `options`) on the protocol's cells of `env_ids`
    (None: every cell) with `players` seats (None: any) and return its scorecard. `cells`
    replaces the protocol's (tests). Cells the agent cannot play are listed, not played."""
    chosen = select(env_ids, protocol.CELLS if cells is None else cells, players)
    panel = panel_digests(chosen)
    agent = parse_spec(spec, options).portable()
    playable, skipped, reads_rows = _playable(agent, chosen)
    envs = list(dict.fromkeys(c.env_id for c in playable))
    digest = candidate_digest(agent, envs)
    events = [_event(c, agent, digest, panel[agent_env_id(c.env_id), c.panel]) for c in playable]
    config = TournamentConfig(
        name=f"{protocol.VERSION}:{agent.text}:{digest}", seed=protocol.SEED, db=settings.db,
        out="", backend=settings.backend, workers=settings.workers,
        ray_address=settings.ray_address, chunk_games=CHUNK_GAMES, record_actions=False,
        records=False, progress=settings.progress, events=tuple(events),
    )  # fmt: skip
    plans = [cell_plan(c, e) for c, e in zip(playable, events, strict=True)]
    batched = [p for p in plans if p.event.env in batched_env_ids()]
    runs = [p for p in plans if p.event.env not in batched_env_ids()]
    t0 = time.perf_counter()
    counting = llm.usage_counts() if agent.kind == "llm" else nullcontext(llm.Usage())
    with Store(settings.db) as store, counting as usage:
        stored = store.open_tournament(config, settings.restart)
        echo(f"{config.name}: {len(playable)} cells, {stored} games already in {settings.db}")
        _, played = play_missing(config, store, batched, echo, t0, what="bench")
        played += _play_runs(config, store, runs, echo)
        results = [
            cell_result(c, store.event_games(config.name, p))
            for c, p in zip(playable, plans, strict=True)
        ]
    model = None
    if agent.kind == "llm":  # its answers, counted by the processes that played (`llm`);
        name, url = llm.endpoint(agent)  # the panel has no `llm` agent: all are the candidate's
        model = {"model": name, "base_url": url, **asdict(usage.total())}
    return Scorecard(
        protocol.VERSION, agent.text, digest, reads_rows, results, skipped,
        complete=len(chosen) == len(protocol.CELLS) and cells is None, played=played,
        seconds=time.perf_counter() - t0, language_model=model,
    )  # fmt: skip


def default_out(spec: AgentSpec | str) -> Path:
    from card_envs.training.exploit import slug

    text = spec.text if isinstance(spec, AgentSpec) else spec
    return Path("runs/bench") / slug(text)
