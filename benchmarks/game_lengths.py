"""How long real games are, and how often they hit a truncation cap.

    python -m benchmarks.game_lengths [--games 2000]

Plays seat-rotated games between built-in agents (`card_envs.evaluation.evaluate`, on all
cores) and prints, per line-up, the mean / 99th percentile / longest game in actions and the
share of games that were truncated (for games that have a cap, such as Double or Nothing's
max_turns).
"""

from __future__ import annotations

import argparse

import numpy as np

from card_envs.evaluation import evaluate

LINEUPS: list[tuple[str, dict, list[str]]] = [
    ("no_thanks_v0", {}, ["heuristic", "random", "random"]),
    ("surfosaurus_max_v0", {}, ["heuristic", "random", "random", "random"]),
    *(
        ("double_or_nothing_v0", {"stage": g}, pair)
        for g in (1, 2, 4)
        for pair in (["random", "random"], ["computer", "computer"], ["heuristic", "computer"])
    ),
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.game_lengths", description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print("| env | config | agents | mean | p99 | max | truncated |")
    print("|---|---|---|---:|---:|---:|---:|")
    for env_id, config, specs in LINEUPS:
        res = evaluate(env_id, specs, args.games, args.seed, progress=False, **config).results
        truncated = res.truncated.mean() * 100
        shown = config or "default"
        print(
            f"| {env_id} | {shown} | {','.join(specs)} | {res.lengths.mean():.0f} "
            f"| {np.percentile(res.lengths, 99):.0f} | {res.lengths.max()} | {truncated:.2f}% |"
        )


if __name__ == "__main__":
    main()
