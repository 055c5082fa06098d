"""The ISMCTS agent: simulations per second per core, and win rates against the heuristic.

    python -m benchmarks.ismcts [--env ID ...] [--positions 20] [--simulations 200] [--ms 10]
                                [--out docs/figures/ismcts_speed.md]
    python -m benchmarks.ismcts --strength [--env ID ...] [--games 200] [--workers 1]
                                [--against heuristic|ppo] [--out docs/figures/ismcts_strength.md]

Speed (the default): for each env (default config), `--positions` positions with a choice
the search weighs (two or more of `Game.searched_moves`), from every 5th position of seeded
games in which every seat plays the heuristic; for each rollout setting in `SETTINGS`, one
agent searches every position with `--simulations` simulations (after a warm-up search, so
no compile time counts). The table gives simulations per second of one core, microseconds
per simulation and the simulations that fit in `--ms` milliseconds.

Strength (`--strength`): for each env, `evaluate` (seat-balanced, `--workers` processes)
of the game's two budgets (`strength_specs`) against the heuristic in every other seat: win
rate of the searching seat with its 95% Wilson interval, the fair share 1/n, and its
milliseconds per decision as measured (forced moves included, which cost nothing).
`--against ppo` seats the shipped trained model (`ppo`) in every other seat instead, at the
config that model was trained with (`card_envs.agents.ppo.shipped_config`), which the table prints;
against the heuristic the games use the env's default config.

Single-threaded numba; the numbers depend on the machine and on what else runs on it.
`--out PAGE` also writes the table as a figures page, with the date, commit, machine and
command (`docs/figures/ismcts_speed.md`, `ismcts_strength.md`, `ismcts_vs_ppo.md`).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from card_envs.agents.ismcts import ISMCTSAgent
from card_envs.agents.ppo import shipped_config
from card_envs.core import layout
from card_envs.evaluation import evaluate
from card_envs.registry import game_class, make_game, multi_agent_env_ids
from card_envs.testing.report import command_line, printed, write_page

# rollout settings measured for speed: (rollout policy, depth cap or None)
SETTINGS = [("random", None), ("heuristic", None), ("random", 15), ("heuristic", 40)]


def strength_specs(env_id: str) -> list[str]:
    """The specs measured for strength: the game's budget of about 10 ms per decision on the
    machine of docs/agents.md, and its larger one (`Game.ismcts_10ms`, `ismcts_larger`)."""
    cls = game_class(env_id)
    return [spec for spec in (cls.ismcts_10ms, cls.ismcts_larger) if spec is not None]


def searched_env_ids() -> list[str]:
    """The multi-agent ids whose games have a measured search budget."""
    return [e for e in multi_agent_env_ids() if game_class(e).ismcts_10ms is not None]


def positions(env_id: str, count: int, seed: int = 0) -> np.ndarray:
    """`count` rows with a choice the search weighs, from every 5th position of seeded games
    of heuristic play."""
    game = make_game(env_id)
    kernels = type(game)
    rows: list[np.ndarray] = []
    obs = np.zeros((1, game.obs_size), dtype=np.float32)
    mask = np.zeros((1, game.num_actions), dtype=np.int8)
    rewards = np.zeros(game.num_players, dtype=np.float32)
    while len(rows) < count:
        row = game.new_row()
        game.reset_row(row, seed)
        seed += 1
        step = 0
        while row[layout.STATUS] == layout.RUNNING and len(rows) < count:
            kernels.observe_kernel(row, row[layout.PLAYER], obs[0])
            kernels.legal_kernel(row, mask[0])
            if step % 5 == 0 and len(game.searched_moves(row)) > 1:
                rows.append(row.copy())
            kernels.step_kernel(row, int(game.heuristic_actions(obs, mask)[0]), rewards)
            step += 1
    return np.stack(rows)


def speed(env_ids: list[str], count: int, simulations: int, ms: float) -> None:
    print(f"| env | rollout | depth | simulations/s | µs/simulation | simulations in {ms:g} ms |")
    print("|---|---|---:|---:|---:|---:|")
    for env_id in env_ids:
        game = make_game(env_id)
        rows = positions(env_id, count)
        masks = np.zeros((len(rows), game.num_actions), dtype=np.int8)  # unused by the search
        for rollout, depth in SETTINGS:
            agent = ISMCTSAgent(game, simulations, rollout, seed=0, max_depth=depth)
            agent.act_rows(rows[:1], masks[:1])  # the tree's first allocation
            start = time.perf_counter()
            agent.act_rows(rows, masks)
            rate = simulations * len(rows) / (time.perf_counter() - start)
            print(
                f"| {env_id} | {rollout} | {depth or 'end'} | {rate:,.0f} | {1e6 / rate:,.1f} "
                f"| {rate * ms / 1000:,.0f} |",
                flush=True,
            )


def strength(env_ids: list[str], games: int, workers: int, seed: int, against: str) -> None:
    print("| env | config | agent | against | win rate | 95% CI | fair share | ms/move | games |")
    print("|---|---|---|---|---:|---|---:|---:|---:|")
    for env_id in env_ids:
        config = {}
        if against == "ppo":
            config = shipped_config(env_id)
            if config is None:
                raise SystemExit(f"{env_id} ships no ppo model")
        n = make_game(env_id, **config).num_players
        shown = ", ".join(f"{k}={v}" for k, v in config.items()) or f"default ({n} players)"
        for spec in strength_specs(env_id):
            ev = evaluate(
                env_id, [spec] + [against] * (n - 1), games, seed, workers, False, **config
            )
            s = ev[0]
            print(
                f"| {env_id} | {shown} | {spec} | {against} | {s.win_rate:.3f} | "
                f"[{s.win_rate_ci[0]:.3f}, {s.win_rate_ci[1]:.3f}] | {1 / n:.3f} | "
                f"{s.ms_per_move:.2f} | {ev.games} |",
                flush=True,
            )


PROG = "python -m benchmarks.ismcts"
SPEED = (
    "ISMCTS speed",
    f"Written by `{PROG}` (see its docstring): simulations per second of the `ismcts` agent "
    "on one core, per rollout setting, averaged over positions of heuristic play with a "
    "choice the search weighs.",
)
STRENGTH_PAGE = (
    "ISMCTS strength",
    f"Written by `{PROG} --strength` (see its docstring): win rates of the search in one seat, "
    "seats balanced, with 95% Wilson intervals, and its measured milliseconds per decision "
    "(forced moves included).",
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--env", action="append", choices=multi_agent_env_ids())
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--ms", type=float, default=10.0)
    parser.add_argument("--strength", action="store_true")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--against", choices=["heuristic", "ppo"], default="heuristic")
    parser.add_argument("--out", metavar="PAGE", help="also write the table as a figures page")
    args = parser.parse_args(argv)
    env_ids = args.env or searched_env_ids()
    with printed() as table:
        if args.strength:
            strength(env_ids, args.games, args.workers, args.seed, args.against)
        else:
            speed(env_ids, args.positions, args.simulations, args.ms)
    if args.out:
        title, about = STRENGTH_PAGE if args.strength else SPEED
        write_page(args.out, title, about, command_line(PROG, argv), table.getvalue())


if __name__ == "__main__":
    main()
