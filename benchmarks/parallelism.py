"""Processes or threads: which way `evaluate` (and the tournaments, which play through it)
and the soak use the cores, measured.

    python -m benchmarks.parallelism [--games 2000] [--soak-games 4000] [--env ID ...]
                                     [--out docs/figures/parallelism.md]

Both play batches of games through the batched env, and can use the cores two ways: worker
processes, each playing its share of the games with the env on one thread (what they do),
or one process with the env on every core's thread (`make_vec(..., num_threads=T)`). For
every env id (default config) this plays the same work three ways in one run, on a machine
with C usable cores:

* `evaluate`: the heuristic against random players, `--games` seat-balanced games, with
  `workers=1` (one process, one thread), `workers=C` (processes) and `workers=1` with the
  arena's env on C threads (the arena's `make_vec` given `num_threads=C` for the
  measurement: the library has no such option, as the table shows why);
* the soak (`card_envs.testing.soak.soak`, every config of the id, `--soak-games` batched
  games, no one-at-a-time games), with `jobs=1`, `jobs=C` and `jobs=1` with its env on C
  threads (its `make_vec` given `num_threads=C` likewise).

The share of one process's time spent in the env's `step` (timed around
`BatchedEnv.step`) is printed beside them: threads can only speed up that share.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from time import perf_counter
from typing import Any
from unittest import mock

import card_envs
from card_envs.core.batched import BatchedEnv
from card_envs.core.threads import usable_cores
from card_envs.evaluation import arena, evaluate
from card_envs.registry import make_game, multi_agent_env_ids
from card_envs.testing import soak as soak_module
from card_envs.testing.report import command_line, markdown, printed, write_page

PROG = "python -m benchmarks.parallelism"
ABOUT = (
    f"Written by `{PROG}` (see its docstring): `evaluate` and the soak on the cores as worker "
    "processes (what they do) or as the batched env's threads, the same work each way."
)


@contextmanager
def step_clock() -> Iterator[list[float]]:
    """Seconds spent in `BatchedEnv.step` while inside (in this process)."""
    spent = [0.0]
    step = BatchedEnv.step

    def timed(self: BatchedEnv, actions: Any):
        start = perf_counter()
        try:
            return step(self, actions)
        finally:
            spent[0] += perf_counter() - start

    with mock.patch.object(BatchedEnv, "step", timed):
        yield spent


@contextmanager
def env_threads(target: Any, threads: int) -> Iterator[None]:
    """`target.make_vec` (a module's reference to it) gives envs on `threads` threads."""
    with mock.patch.object(target, "make_vec", functools.partial(card_envs.make_vec,
                                                                 num_threads=threads)):  # fmt: skip
        yield


def timed(run: Callable[[], Any]) -> float:
    start = perf_counter()
    run()
    return perf_counter() - start


def measure(env_id: str, games: int, soak_games: int, cores: int) -> dict[str, Any]:
    """Seconds of each way, and the env's share of the one-process time."""
    players = make_game(env_id).num_players
    field = ["heuristic"] + ["random"] * (players - 1)
    games = -(-games // players) * players  # seat-balanced: a multiple of the players

    def play(workers: int) -> None:
        evaluate(env_id, field, games=games, workers=workers, progress=False)

    def soak(jobs: int) -> None:
        soak_module.soak([env_id], games=soak_games, aec_games=0, jobs=jobs, log=None)

    play(1)  # compile or load every kernel before any clock runs
    soak(1)
    out: dict[str, Any] = {}
    for name, run in (("evaluate", play), ("soak", soak)):
        with step_clock() as spent:
            one = timed(lambda run=run: run(1))
        processes = timed(lambda run=run: run(cores))
        target = arena if name == "evaluate" else soak_module.card_envs
        with env_threads(target, cores):
            threads = timed(lambda run=run: run(1))
        out[name] = {"one": one, "processes": processes, "threads": threads, "step": spent[0]}
        print(f"{env_id} {name}: {out[name]}", file=sys.stderr, flush=True)
    return out


def table(results: dict[str, Any], cores: int) -> str:
    head = ["env", "job", "1 process", f"{cores} processes", f"1 process, {cores} threads"]
    head.append("env step share")
    rows = []
    for env_id, by_job in results.items():
        for job, r in by_job.items():
            rows.append([
                env_id, job, f"{r['one']:.1f} s",
                f"{r['processes']:.1f} s ({r['one'] / r['processes']:.2f}x)",
                f"{r['threads']:.1f} s ({r['one'] / r['threads']:.2f}x)",
                f"{r['step'] / r['one']:.0%}",
            ])  # fmt: skip
    return markdown(head, rows, [False, False, True, True, True, True])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", action="append", metavar="ID", help="env id (repeatable)")
    parser.add_argument("--games", type=int, default=2000, help="evaluation games per id")
    parser.add_argument("--soak-games", type=int, default=4000, help="soak games per id")
    parser.add_argument("--out", metavar="PAGE", help="also write the report as a figures page")
    args = parser.parse_args(argv)
    env_ids = list(dict.fromkeys(args.env or multi_agent_env_ids()))
    unknown = sorted(set(env_ids) - set(multi_agent_env_ids()))
    if unknown:
        parser.error(f"unknown env id(s) {unknown}; known: {multi_agent_env_ids()}")
    cores = usable_cores()
    if cores < 2:
        parser.error("this machine has one usable core: nothing to compare")
    results = {env_id: measure(env_id, args.games, args.soak_games, cores) for env_id in env_ids}
    with printed() as report:
        print(
            f"{args.games:,} evaluation games (heuristic against random) and {args.soak_games:,} "
            f"soak games (every config, batched only) per env id, default configs; wall "
            f"seconds, and the speed-up over one process on one thread\n"
        )
        print(table(results, cores))
    if args.out:
        write_page(args.out, "Processes or threads", ABOUT, command_line(PROG, argv),
                   report.getvalue())  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
