"""The `card-envs` command line."""

from __future__ import annotations

import argparse
import ast
import sys
import time

import numpy as np

from card_envs.arena import play
from card_envs.registry import env_ids, make_vec


def _parse_config(pairs: list[str]) -> dict:
    config = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--config takes key=value, got {pair!r}")
        try:
            config[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            config[key] = value
    return config


def _mean_ci(x: np.ndarray) -> str:
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else float("nan")
    return f"{x.mean():8.3f} ± {half:.3f}"


def cmd_play(args: argparse.Namespace) -> None:
    from agents import make_agent

    config = _parse_config(args.config)
    if "num_players" not in config:
        config["num_players"] = len(args.agents)
    venv = make_vec(args.env_id, args.num_envs, seed=args.seed, **config)
    agents = [
        make_agent(spec, args.env_id, seed=args.seed + k, **config)
        for k, spec in enumerate(args.agents)
    ]
    start = time.perf_counter()
    res = play(venv, agents, args.games, seed=args.seed)
    secs = time.perf_counter() - start
    print(f"{args.env_id} {config}: {args.games} games, seats rotated, seed {args.seed}")
    print(f"{'#':>4} {'agent':<12} {'win rate (95% CI)':>20} {'reward':>18} {'score':>20}")
    for a, spec in enumerate(args.agents):
        print(
            f"{a:>4} {spec:<12} {_mean_ci(res.per_agent(res.win_share, a)):>20}"
            f" {_mean_ci(res.per_agent(res.rewards, a)):>18}"
            f" {_mean_ci(res.per_agent(res.scores, a)):>20}"
        )
    steps = int(res.lengths.sum())
    print(f"{steps} steps in {secs:.2f} s ({steps / secs:,.0f} steps/s, incl. agents)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="card-envs", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the env ids")
    p = sub.add_parser("play", help="headless games between built-in agents, results table")
    p.add_argument("env_id", help=f"one of {env_ids()}")
    p.add_argument(
        "--agents",
        type=lambda s: s.split(","),
        required=True,
        help="comma-separated agent specs, one per seat (random, heuristic)",
    )
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-envs", type=int, default=256, help="instances stepped together")
    p.add_argument("--config", nargs="*", default=[], help="env options as key=value")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            print("\n".join(env_ids()))
        else:
            cmd_play(args)
    except ValueError as err:
        print(f"card-envs: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
