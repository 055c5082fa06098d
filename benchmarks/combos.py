"""Speed of the shared combo evaluator against a plain Python brute force, in one process.

    python -m benchmarks.combos [--tables 200000] [--size 15] [--k 4]

The brute force is what a straightforward implementation does: classify every k-subset of
the table and keep the best (category, values). Both score the same random tables, and the
benchmark checks that they agree before printing the rates.
"""

from __future__ import annotations

import argparse
import itertools
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from card_envs.core.combos import NUM_VALUES, best_combo_scores  # noqa: E402

TARGET_TABLES_PER_S = 5_000_000  # 15-card tables, k = 4, one core


def brute_force_key(cards: list[int], k: int) -> tuple[int, tuple[int, ...]]:
    """Best (category, values high to low) over every k-subset, categories 0..4 as in combos."""
    best = (-1, ())
    for sub in itertools.combinations(cards, k):
        colours = {c // NUM_VALUES for c in sub}
        values = sorted((c % NUM_VALUES + 1 for c in sub), reverse=True)
        run = all(values[i] - 1 == values[i + 1] for i in range(k - 1))
        if run and len(colours) == 1:
            category = 4
        elif len(set(values)) == 1:
            category = 3
        elif len(colours) == 1:
            category = 2
        elif run:
            category = 1
        else:
            category = 0
        best = max(best, (category, tuple(values)))
    return best


def _encode(key: tuple[int, tuple[int, ...]]) -> int:
    score = key[0]
    for v in key[1]:
        score = score * 13 + v
    return score


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.combos", description=__doc__)
    parser.add_argument("--tables", type=int, default=200_000)
    parser.add_argument("--brute-tables", type=int, default=300)
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    tables = np.argsort(rng.random((args.tables, 84)), axis=1)[:, : args.size].astype(np.int64)
    best_combo_scores(tables[:10], args.k)  # compile / load the cache
    fast = []
    for _ in range(5):
        start = time.perf_counter()
        scores = best_combo_scores(tables, args.k)
        fast.append(args.tables / (time.perf_counter() - start))
    sample = tables[: args.brute_tables]
    start = time.perf_counter()
    brute = [_encode(brute_force_key(t.tolist(), args.k)) for t in sample]
    brute_rate = len(sample) / (time.perf_counter() - start)
    if brute != scores[: len(sample)].tolist():
        raise SystemExit("the evaluator disagrees with the brute force")
    rate = float(np.median(fast))
    print(f"best_combo_scores, {args.size}-card tables, k={args.k}, one core")
    print("| method | tables/s | ns/table | x brute force |")
    print("|---|---:|---:|---:|")
    print(f"| card_envs.core.combos | {rate:,.0f} | {1e9 / rate:.0f} | {rate / brute_rate:,.0f}x |")
    print(f"| plain Python brute force | {brute_rate:,.0f} | {1e9 / brute_rate:,.0f} | 1x |")
    verdict = "met" if rate >= TARGET_TABLES_PER_S else "MISSED"
    print(f"target >= {TARGET_TABLES_PER_S:,} tables/s: {verdict}; agreed on {len(sample)} tables")


if __name__ == "__main__":
    main()
