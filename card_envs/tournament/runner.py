"""Run a tournament: schedule, resume from the database, play, rate, report."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from card_envs.evaluation.pool import progress_bar
from card_envs.tournament.backends import run_local, run_ray
from card_envs.tournament.config import TournamentConfig
from card_envs.tournament.ratings import Leaderboard, leaderboard
from card_envs.tournament.records import record_of, write_jsonl
from card_envs.tournament.report import write_csv, write_plot
from card_envs.tournament.schedule import EventPlan, chunks_of, plan
from card_envs.tournament.store import Store


@dataclass
class TournamentResult:
    config: TournamentConfig
    leaderboards: list[Leaderboard]
    scheduled: int  # games in the schedule
    already_stored: int  # of those, games found in the database at the start
    played: int  # games played by this run
    seconds: float
    files: list[Path] = field(default_factory=list)


def _quiet(_: str) -> None:
    pass


def play_missing(
    config: TournamentConfig,
    store: Store,
    plans: list[EventPlan],
    echo: Callable[[str], None] = _quiet,
    t0: float | None = None,
    what: str = "tournament",
) -> tuple[int, int]:
    """Play the games of `plans` that `store` does not hold yet, on `config`'s backend,
    storing each chunk as it finishes (a line per finished event when there is no progress
    bar). Returns (games scheduled, games played). The tournaments and `bench` share it."""
    t0 = time.perf_counter() if t0 is None else t0
    todo: list[tuple[EventPlan, np.ndarray]] = []
    for p in plans:
        have = store.stored_games(config.name, p.event.name)
        missing = np.array(
            [g for g in range(p.num_games) if (p.table_key(g), int(p.game_of[g])) not in have],
            dtype=np.int64,
        )
        todo += [(p, games) for games in chunks_of(missing, config.chunk_games)]
    scheduled = sum(p.num_games for p in plans)
    to_play = sum(len(games) for _, games in todo)
    echo(
        f"{what} {config.name!r}: {len(plans)} event(s), {scheduled} games scheduled; "
        f"{scheduled - to_play} already in {config.db}, {to_play} to play"
        + (f" on {config.backend}" if to_play else "")
    )
    if not todo:
        return scheduled, 0
    chunks = [
        p.chunk(games, config.seed, config.record_actions, config.record_policy)
        for p, games in todo
    ]
    if config.backend == "ray":
        results = run_ray(chunks, config.ray_address, config.workers)
    else:
        results = run_local(chunks, config.workers)
    left = {p.event.name: 0 for p, _ in todo}  # games still to play per event
    for p, games in todo:
        left[p.event.name] += len(games)
    with progress_bar(to_play, config.name, config.progress) as bar:
        for i, batch in results:
            p, games = todo[i]
            store.add_chunk(config.name, p, games, batch)
            bar.update(len(batch.lengths))
            left[p.event.name] -= len(batch.lengths)
            if not left[p.event.name] and bar.disable:  # a log's progress: by event
                echo(
                    f"event {p.event.name}: all {p.num_games} games stored "
                    f"({time.perf_counter() - t0:.0f} s)"
                )
    return scheduled, to_play


def run_tournament(
    config: TournamentConfig,
    restart: bool = False,
    echo: Callable[[str], None] = _quiet,
    write_files: bool = True,
) -> TournamentResult:
    """Play every scheduled game of `config` that is not yet in its database, then rate the
    agents of each event from all its stored games and write the leaderboards (CSV), plots
    (PNG) and, if asked, JSONL records to `config.out`."""
    t0 = time.perf_counter()
    for note in config.notes:
        echo(f"note: {note}")
    with Store(config.db) as store:
        stored = store.open_tournament(config, restart)
        plans = plan(config, store.kept_tables(config.name))
        for p in plans:
            store.save_tables(config.name, p)
        scheduled, to_play = play_missing(config, store, plans, echo, t0)
        boards = []
        for p in plans:
            have = store.stored_games(config.name, p.event.name)
            if len(have) < p.num_games:
                raise RuntimeError(
                    f"event {p.event.name}: {len(have)} games stored, {p.num_games} scheduled"
                )
            boards.append(leaderboard(p, store.event_games(config.name, p), config.seed))
        files: list[Path] = []
        if write_files:
            out = Path(config.out)
            for p, board in zip(plans, boards, strict=True):
                files.append(write_csv(board, out / f"{board.event}.csv"))
                files.append(write_plot(board, out / f"{board.event}.png"))
                if config.records:
                    rows = store.rows(config.name, p.event.name)
                    path = out / f"{board.event}.jsonl"
                    write_jsonl((record_of(r) for r in rows), path)
                    files.append(path)
    return TournamentResult(
        config, boards, scheduled, stored, to_play, time.perf_counter() - t0, files
    )
