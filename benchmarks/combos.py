"""Speed of the shared combo evaluator against a plain Python brute force, in one process.

    python -m benchmarks.combos [--tables 200000] [--size 15] [--k 4]
    python -m benchmarks.combos --only rummidrez [--rummidrez-tables 3000] [--rummidrez-brute 40]
    python -m benchmarks.combos --out docs/figures/combos.md

The brute force is what a straightforward implementation does: classify every k-subset of
the table and keep the best (category, values). Both score the same random tables, and the
benchmark checks that they agree before printing the rates.

Then the Rummidrez table solver (`card_envs.games.rummidrez.solver`): `table_valid` on random
mid-game tables of 20-60 cards against the tests' plain-Python brute force
(`tests/games/rummidrez/reference.py`, loaded by path) on a subsample of the same tables, the
slowest table found (random, hand-made adversarial and local-search tables), and
`best_addition` (a hand of 14-20 cards against a 30-50 card table).

`--out PAGE` also writes the report as a figures page, with the date, commit, machine and
command.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
import signal
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from card_envs.core.combos import NUM_VALUES, best_combo_scores  # noqa: E402
from card_envs.games.rummidrez.solver import (  # noqa: E402
    COPIES,
    MAX_NEUTRALS,
    NUM_FIGURES,
    NUM_NUMBERS,
    best_addition,
    table_states,
    table_valid,
)
from card_envs.testing.report import command_line, markdown, printed, write_page  # noqa: E402

TARGET_TABLES_PER_S = 5_000_000  # 15-card tables, k = 4, one core
RZ_TARGET_RATIO = 1000  # table_valid checks/s over the brute force's, mid-game tables
RZ_TARGET_MS = 1.0  # every table


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


def combos(args) -> None:
    """The combo evaluator part of the report."""
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


# --- Rummidrez table solver ----------------------------------------------------------------

_REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "games" / "rummidrez" / "reference.py"
_DECK = NUM_FIGURES * NUM_NUMBERS  # id of the neutral in a deck drawn with np.repeat


def load_rummidrez_reference():
    """The tests' plain-Python brute force (`is_valid`), loaded by path: it imports nothing
    from card_envs, so it runs without the tests' conftest. None where it is not there (an installed
    copy of the benchmarks)."""
    if not _REFERENCE.is_file():
        return None
    if "reference_rummidrez" in sys.modules:
        return sys.modules["reference_rummidrez"]
    spec = importlib.util.spec_from_file_location("reference_rummidrez", _REFERENCE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["reference_rummidrez"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def rz_group(rng: np.random.Generator, ends: bool, spare: int) -> tuple[list, int]:
    """A random valid group: its real cards as (figure, number - 1) cells, and its number of
    neutrals (at most `spare`; between real cards, anywhere in it with `ends`)."""
    while True:
        if rng.random() < 0.5:  # figure group
            size = int(rng.integers(3, NUM_NUMBERS + 1))
            f, lo = int(rng.integers(NUM_FIGURES)), int(rng.integers(NUM_NUMBERS - size + 1))
            cells = [(f, m) for m in range(lo, lo + size)]
        else:  # colour group
            size = int(rng.integers(3, NUM_FIGURES + 1))
            n, lo = int(rng.integers(NUM_NUMBERS)), int(rng.integers(NUM_FIGURES - size + 1))
            cells = [(g, n) for g in range(lo, lo + size)]
        slots = np.arange(size) if ends else np.arange(1, size - 1)
        k = min(int(rng.integers(spare + 1)), len(slots)) if rng.random() < 0.4 else 0
        holes = set(rng.choice(slots, k, replace=False).tolist())
        if len(holes) < size:
            return [c for i, c in enumerate(cells) if i not in holes], k


def rz_valid_table(rng: np.random.Generator, ends: bool, lo: int, hi: int, twice=False):
    """(counts (6, 9), neutrals) of random valid groups laid together, lo..hi cards in all
    (at most two copies of a card and four neutrals): a table as play leaves it. `twice`:
    every group laid twice, without neutrals. Groups are added until a random size in lo..hi
    is reached or 500 draws did not fit (random groups fill about 90-105 of the 112 cards)."""
    target = int(rng.integers(lo, hi + 1))
    while True:
        counts = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
        neutrals = 0
        for attempt in range(501):
            size = counts.sum() + neutrals
            if size >= target or (attempt == 500 and size >= lo):
                return counts, neutrals
            cells, k = rz_group(rng, ends, 0 if twice else MAX_NEUTRALS - neutrals)
            times = 2 if twice else 1
            if counts.sum() + neutrals + times * len(cells) + k > hi:
                continue
            if any(counts[c] + times > COPIES for c in cells):
                continue
            for c in cells:
                counts[c] += times
            neutrals += k


def _take_one(rng, counts, neutrals):
    """One card of the table (a neutral too) taken away, uniformly."""
    cards = np.repeat(np.arange(_DECK + 1), np.append(counts.ravel(), neutrals))
    card = int(rng.choice(cards))
    if card == _DECK:
        return counts, neutrals - 1
    counts = counts.copy()
    counts.flat[card] -= 1
    return counts, neutrals


def _add_one(rng, counts, neutrals):
    """One card of the rest of the deck (a neutral too) added, uniformly."""
    rest = np.repeat(
        np.arange(_DECK + 1), np.append(COPIES - counts.ravel(), MAX_NEUTRALS - neutrals)
    )
    card = int(rng.choice(rest))
    if card == _DECK:
        return counts, neutrals + 1
    counts = counts.copy()
    counts.flat[card] += 1
    return counts, neutrals


RZ_KINDS = ("valid as laid", "a card taken away", "a card added")


def rz_tables(count: int, seed: int, lo: int = 20, hi: int = 60) -> list[tuple]:
    """Mid-game tables of lo..hi cards (neutrals included) as (counts, neutrals, ends, kind):
    in turn valid as laid, with one of its cards taken away, with one card of the rest of the
    deck added (what a player tries); every other table with neutral_at_ends."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        ends = i % 2 == 1
        kind = (i // 2) % 3
        counts, neutrals = rz_valid_table(rng, ends, lo + (kind == 1), hi - (kind == 2))
        if kind == 1:
            counts, neutrals = _take_one(rng, counts, neutrals)
        elif kind == 2:
            counts, neutrals = _add_one(rng, counts, neutrals)
        out.append((counts, neutrals, ends, kind))
    return out


def rz_adversarial(seed: int) -> dict[str, list[tuple]]:
    """Hand-made hard tables by family, each a list of (counts, neutrals, ends)."""
    rng = np.random.default_rng(seed)
    full = np.full((NUM_FIGURES, NUM_NUMBERS), COPIES, dtype=np.int64)
    both = (False, True)
    out: dict[str, list[tuple]] = {}
    out["full 112-card table, 0-4 neutrals"] = [
        (full, k, e) for k in range(MAX_NEUTRALS + 1) for e in both
    ]
    minus = []
    for cell in range(_DECK):
        counts = full.copy()
        counts.flat[cell] -= 1
        minus += [(counts, k, e) for k in range(MAX_NEUTRALS + 1) for e in both]
    out["full table, one card taken away, 0-4 neutrals"] = minus
    doubled = []
    for i in range(200):
        ends = i % 2 == 1
        counts, _ = rz_valid_table(rng, ends, 40, 108, twice=True)
        cells = np.repeat(np.arange(_DECK), counts.ravel())
        for c in rng.choice(cells, MAX_NEUTRALS, replace=False):  # 4 cards become neutrals
            counts.flat[c] -= 1
        if i % 4 >= 2:
            counts, _ = _take_one(rng, counts, 0)
        doubled.append((counts, MAX_NEUTRALS, ends))
    out["groups laid twice, 4 cards swapped for neutrals, half a card less"] = doubled
    dense = []
    for i in range(200):
        ends = i % 2 == 1
        counts, neutrals = rz_valid_table(rng, ends, 80, 112)
        dense.append((*_take_one(rng, counts, neutrals), ends))
    out["dense valid tables (80+ cards), one card taken away"] = dense
    saved = [(_grid(rows), k, e) for rows, k, e in RZ_SAVED_HARD]
    out["found by a longer local search, 20-60 cards (saved)"] = [
        c for c in saved if c[0].sum() + c[1] <= 60
    ]
    out["found by a longer local search, any size (saved)"] = saved
    return out


# The hardest tables longer runs of a local search like `rz_climb` found (most states
# expanded; 20-60 cards, and any size): figure rows 0..5 of copy counts for numbers 1..9,
# neutrals, neutral_at_ends. All invalid.
RZ_SAVED_HARD: list[tuple[str, int, bool]] = [
    ("221001000/212221100/111221111/112211001/201221112/112201000", 4, False),  # 60 cards
    ("001011212/012011201/001011111/012122122/002010211/112122211", 4, True),  # 59 cards
    ("121222111/212102212/222112221/210202112/222210212/222022210", 4, True),  # 83 cards
]


def _grid(rows: str) -> np.ndarray:
    return np.array([[int(c) for c in row] for row in rows.split("/")], dtype=np.int64)


def _rows(counts: np.ndarray) -> str:
    return "/".join("".join(str(int(c)) for c in row) for row in counts)


def rz_climb(start: tuple, steps: int, seed: int, lo: int = 20, hi: int = 112) -> tuple:
    """Local search for a harder table: from `start`, random changes of 1-3 cards or of the
    neutrals, kept when `table_states` (states the solver expands) does not drop."""
    rng = np.random.default_rng(seed)
    counts, neutrals, ends = start
    score = table_states(counts, neutrals, ends)
    for _ in range(steps):
        cand, k = counts.copy(), neutrals
        for _ in range(int(rng.integers(1, 4))):
            r = rng.random()
            if r < 0.1:
                k = int(rng.integers(MAX_NEUTRALS + 1))
            elif r < 0.55:
                cand, k = _add_one(rng, cand, k) if cand.sum() < COPIES * _DECK else (cand, k)
            elif cand.sum() > 0:
                cand, k = _take_one(rng, cand, k)
        if not lo <= cand.sum() + k <= hi:
            continue
        s = table_states(cand, k, ends)
        if s >= score:
            counts, neutrals, score = cand, k, s
    return counts, neutrals, ends


_clock = time.thread_time  # CPU time of this thread: other jobs on the machine do not count


def _best_of(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = _clock()
        fn()
        best = min(best, _clock() - start)
    return best


class _Timeout(Exception):
    pass


def _capped(fn, seconds: float):
    """(fn(), CPU seconds taken), or (None, seconds) if it takes longer than `seconds` (a
    SIGPROF timer; no cap where there is no setitimer, or with seconds <= 0)."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        start = _clock()
        return fn(), _clock() - start
    armed = [True]

    def alarm(signum, frame):
        if armed[0]:
            raise _Timeout

    old = signal.signal(signal.SIGPROF, alarm)
    start = _clock()
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        result = fn()
    except _Timeout:
        result = None
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
    return result, (_clock() - start) if result is not None else seconds


def _slowest(cases: list[tuple], repeats: int, keep: int = 5) -> tuple[float, tuple]:
    """The slowest of `cases` (counts, neutrals, ends) for table_valid: each timed once, the
    `keep` slowest again as best of `repeats`."""
    once = [_best_of(lambda c=c: table_valid(*c), 1) for c in cases]
    top = np.argsort(once)[::-1][:keep]
    timed = [(_best_of(lambda c=cases[i]: table_valid(*c), repeats), i) for i in top]
    t, i = max(timed)
    return t, cases[i]


def rz_hands(count: int, seed: int) -> list[tuple]:
    """(table, table neutrals, hand, hand neutrals, ends): a valid table of 30-50 cards and a
    hand of 14-20 cards drawn from the rest of the deck, neutrals included."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        ends = i % 2 == 1
        table, tn = rz_valid_table(rng, ends, 30, 50)
        rest = np.repeat(np.arange(_DECK + 1), np.append(COPIES - table.ravel(), MAX_NEUTRALS - tn))
        drawn = rng.choice(rest, int(rng.integers(14, 21)), replace=False)
        hand = np.bincount(drawn[drawn < _DECK], minlength=_DECK).astype(np.int64)
        hand = hand.reshape(NUM_FIGURES, NUM_NUMBERS)
        out.append((table, tn, hand, int((drawn == _DECK).sum()), ends))
    return out


def _describe(case: tuple) -> str:
    counts, k, ends = case
    return (
        f"{int(counts.sum()) + k} cards, {k} neutrals, ends={'yes' if ends else 'no'}, "
        f"{'valid' if table_valid(counts, k, ends) else 'invalid'}"
    )


def _rz_rates(args, cases, answers, reference):
    """Checks/s of table_valid (best pass) and each table's best time; the brute force on
    the first tables; the first table."""
    passes = args.rummidrez_passes
    pass_times = []
    for _ in range(passes):  # whole passes, no timer per call
        start = _clock()
        for c in cases:
            table_valid(*c)
        pass_times.append(_clock() - start)
    best = np.full(len(cases), np.inf)
    for _ in range(passes):  # then every call timed
        for i, c in enumerate(cases):
            start = _clock()
            table_valid(*c)
            best[i] = min(best[i], _clock() - start)
    rate = len(cases) / min(pass_times)
    print()
    sizes = [int(c.sum()) + k for c, k, _ in cases]
    print(
        f"Rummidrez table_valid, {len(cases):,} mid-game tables of {min(sizes)}-{max(sizes)} "
        f"cards ({sum(answers):,} valid), one core, CPU time (time.thread_time)"
    )
    print(
        f"(in turn {', '.join(RZ_KINDS)}; every other table with neutral_at_ends; random valid "
        f"groups with neutrals, seed {args.seed}; checks/s: the best of {passes} passes)"
    )
    rows = [[f"table_valid, all {len(cases):,} tables", f"{rate:,.0f}", f"{1e6 / rate:,.1f}", ""]]
    n = min(args.rummidrez_brute, len(cases)) if reference is not None else 0
    if n == 0:
        print(markdown(["method", "checks/s", "mean µs/check", "x brute force"], rows, RIGHT4))
        if args.rummidrez_brute > 0:
            print(f"brute force: not measured ({_REFERENCE} is not there)")
        return best
    capped = agreed = 0
    brute_times = np.empty(n)
    for i in range(n):
        got, brute_times[i] = _capped(
            lambda c=cases[i]: reference.is_valid(*c), args.rummidrez_brute_cap
        )
        if got is None:
            capped += 1
        elif got != answers[i]:
            raise SystemExit(f"table_valid disagrees with the brute force on table {i}")
        else:
            agreed += 1
    brute_rate = n / brute_times.sum()
    sample_rate = n / best[:n].sum()  # each table's best of the timed passes
    ratio = sample_rate / brute_rate
    rows.append(
        [
            f"table_valid, the first {n} (each its best of {passes})",
            f"{sample_rate:,.0f}",
            f"{1e6 / sample_rate:,.1f}",
            _times(ratio),
        ]
    )
    rows.append(
        [
            f"plain Python brute force, the first {n} (once)",
            f"{brute_rate:,.2f}",
            f"{1e6 / brute_rate:,.0f}",
            "1x",
        ]
    )
    print(markdown(["method", "checks/s", "mean µs/check", "x brute force"], rows, RIGHT4))
    cap = f"{args.rummidrez_brute_cap:g} s"
    per_table = brute_times / best[:n]
    print(
        f"brute force (tests/games/rummidrez/reference.py): {capped} of {n} tables stopped at the "
        f"{cap} cap and counted as {cap} (its rate is then at most, the ratio at least, the "
        f"above); agreed on the other {agreed}. Per table, brute force over table_valid: "
        f"median {_times(np.median(per_table))}, lowest {_times(per_table.min())}; brute force "
        f"median {1e3 * np.median(brute_times):,.1f} ms, slowest "
        f"{'>= ' if capped else ''}{brute_times.max():,.1f} s"
    )
    verdict = "met" if ratio >= RZ_TARGET_RATIO else "MISSED"
    print(f"target >= {RZ_TARGET_RATIO:,}x the brute force: {verdict}")
    return best


RIGHT4 = [False, True, True, True]


def _times(ratio: float) -> str:
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.2f}x"


def rummidrez(args) -> None:
    """The Rummidrez part of the report (see the module docstring)."""
    tables = rz_tables(args.rummidrez_tables, args.seed)
    cases = [(c, k, e) for c, k, e, _ in tables]
    out = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    table_valid(*cases[0])  # compile / load the caches
    table_states(*cases[0])
    best_addition(cases[0][0], cases[0][1], cases[0][0] * 0, 0, cases[0][2], out)
    answers = [bool(table_valid(*c)) for c in cases]
    reference = load_rummidrez_reference() if args.rummidrez_brute > 0 else None
    best = _rz_rates(args, cases, answers, reference)

    print()
    print("table_valid by neutrals on the table (time per table: its best of the passes)")
    rows = []
    ks = np.array([k for _, k, _ in cases])
    ok = np.array(answers)
    limit = RZ_TARGET_MS / 1e3
    for k in [*range(MAX_NEUTRALS + 1), None]:
        sel = np.ones(len(cases), bool) if k is None else ks == k
        if not sel.any():
            continue
        rows.append(
            [
                "all" if k is None else str(k),
                f"{int(sel.sum()):,}",
                f"{100 * ok[sel].mean():.0f}%",
                f"{1e6 * best[sel].mean():,.0f}",
                f"{1e6 * np.median(best[sel]):,.0f}",
                f"{1e3 * best[sel].max():.2f}",
                f"{int((sel & (best > limit)).sum())}",
                f"{int((sel & (best > limit) & ~ok).sum())}",
            ]
        )
    head = ["neutrals", "tables", "valid", "mean µs", "median µs", "slowest ms", "> 1 ms"]
    print(markdown([*head, "of which invalid"], rows, [False] + [True] * 7))

    print()
    slowest = int(np.argmax(best))  # the random tables: each its best of the passes
    name = f"random mid-game tables (the {len(cases):,} above)"
    results = [(name, len(cases), best[slowest], cases[slowest])]
    pool = [cases[i] for i in np.argsort(best)[::-1][:5]]
    for name, family in rz_adversarial(args.seed).items():
        t, case = _slowest(family, args.rummidrez_repeats)
        results.append((name, len(family), t, case))
        pool.append(case)
    if args.rummidrez_climb > 0:
        states = [table_states(*c) for c in pool]
        starts = [pool[i] for i in np.argsort(states)[::-1][:3]]
        climbed = [rz_climb(c, args.rummidrez_climb, args.seed + j) for j, c in enumerate(starts)]
        t, case = _slowest(climbed, args.rummidrez_repeats)
        name = f"local search in this run ({args.rummidrez_climb} steps from the 3 hardest above)"
        results.append((name, len(climbed), t, case))
    print(
        f"Slowest table_valid by family (random tables: best of the {args.rummidrez_passes} "
        "passes; the others: each timed once, its 5 slowest again, best of "
        f"{args.rummidrez_repeats}); states: table_states, the states the solver expands"
    )
    rows = [
        [name, f"{n:,}", f"{1e3 * t:.3f}", f"{table_states(*c):,}", _describe(c)]
        for name, n, t, c in results
    ]
    right = [False, True, True, True, False]
    print(markdown(["tables", "how many", "slowest ms", "states", "that table"], rows, right))
    name, _, t, case = max(results, key=lambda r: r[2])
    print(
        f"slowest table found: {1e3 * t:.3f} ms, {table_states(*case):,} states ({name}): "
        f"counts {_rows(case[0])} (figure rows, numbers 1-9), {case[1]} neutrals, "
        f"neutral_at_ends={case[2]}"
    )
    over = [r for r in results if r[2] > limit]
    verdict = "met" if not over else f"MISSED ({len(over)} of {len(results)} families)"
    print(f"target every table < {RZ_TARGET_MS:g} ms: {verdict}")

    hands = rz_hands(args.rummidrez_hands, args.seed)
    if not hands:
        return
    once = np.array([_best_of(lambda h=h: best_addition(*h, out), 1) for h in hands])
    worst = int(np.argmax(once))
    slow = _best_of(lambda: best_addition(*hands[worst], out), 3)
    table, tn, hand, hn, ends = hands[worst]
    print()
    print(
        f"best_addition, {len(hands)} hands of 14-20 cards (drawn from the rest of the deck) "
        "against valid tables of 30-50 cards, every other with neutral_at_ends; each call "
        "timed once"
    )
    head = ["calls/s", "mean µs", "median µs", "fastest µs", "slowest ms (best of 3)"]
    row = [
        f"{1 / once.mean():,.1f}",
        f"{1e6 * once.mean():,.0f}",
        f"{1e6 * np.median(once):,.0f}",
        f"{1e6 * once.min():,.0f}",
        f"{1e3 * slow:,.1f}",
    ]
    print(markdown(head, [row], [True] * 5))
    print(
        f"slowest: table of {int(table.sum()) + tn} cards ({tn} neutrals) {_rows(table)}, "
        f"hand of {int(hand.sum()) + hn} ({hn} neutrals) {_rows(hand)}, "
        f"neutral_at_ends={ends}"
    )


PROG = "python -m benchmarks.combos"
ABOUT = (
    f"Written by `{PROG}` (see its docstring): the shared combo evaluator against a plain "
    "Python brute force, then Rummidrez's table solver (`table_valid` against the tests' "
    "brute force, the slowest tables found, `best_addition`). Times are CPU time of one "
    "thread, and the fast and brute-force answers must agree."
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__)
    parser.add_argument("--tables", type=int, default=200_000)
    parser.add_argument("--brute-tables", type=int, default=300)
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=["combos", "rummidrez"], default=None)
    parser.add_argument("--rummidrez-tables", type=int, default=3000)
    parser.add_argument("--rummidrez-passes", type=int, default=5)
    parser.add_argument("--rummidrez-brute", type=int, default=40)
    parser.add_argument("--rummidrez-brute-cap", type=float, default=10.0, help="seconds")
    parser.add_argument("--rummidrez-repeats", type=int, default=7)
    parser.add_argument("--rummidrez-climb", type=int, default=40)
    parser.add_argument("--rummidrez-hands", type=int, default=60)
    parser.add_argument("--out", metavar="PAGE", help="also write the report as a figures page")
    args = parser.parse_args(argv)
    with printed() as report:
        if args.only != "rummidrez":
            combos(args)
        if args.only != "combos" and args.rummidrez_tables > 0:
            rummidrez(args)
    if args.out:
        title = "Combo evaluator and Rummidrez solver"
        write_page(args.out, title, ABOUT, command_line(PROG, argv), report.getvalue())


if __name__ == "__main__":
    main()
