"""Rummidrez: what the heuristic loses by feeding the next seat its discards, and how much of
that a determinised estimate recovers (the search's question, docs/research/rummidrez_search.md).

    python -m experiments.rummidrez_discards [--games 400] [--players 2] [--seed 0]
                                            [--mode MODE ...] [--auc GAMES]

One seat (the hero, seats balanced: game g deals seed + g // n and seats the hero at g % n)
plays the heuristic except for its discards; every other seat plays the heuristic. A discard
"feeds" the next seat when that seat's draw rule (`engine.take_choice`, the heuristic's)
would take it from the pile. The hero keeps the heuristic's discard unless it feeds; then it
plays the heuristic's discard among the cards that do not (if any). Modes:

- `heuristic`: the heuristic's discards (the fair share, a check of the harness);
- `oracle`, `oracle-opened`, `oracle-unopened`: the feed test on the next seat's real hand
  (reading hidden cards: an upper bound, not a legal agent), always, or only while the next
  seat has opened / not opened;
- `sampled:S:T` and `sampled:S:T:filtered|passed`: the feed test on S determinisations
  (`resample_hidden`), a card counting as feeding when it feeds in more than a share T of
  them; `filtered` redraws (up to 30 times) a determinisation that gives an opened seat a
  group in hand, or an unopened one an opening, which a seat that melds all it can would not
  hold; `passed` also redraws one in which, with 2 players, the other seat would take from
  the pile below the top card (its own discard) with that card in hand: it let those pass;
- `sampled-opened:S:T[:filtered|passed]`: `sampled:S:T` only while the next seat has opened;
- `ranked:S:R[:filtered|passed]`: of the heuristic's R preferred discards (its keep score), the one
  that feeds in the fewest of S determinisations (ties: the heuristic's order).

`--auc GAMES` plays GAMES games of heuristic play and, at every discard, compares the oracle's
answer for each legal card with its sampled feed share (16 determinisations: plain, filtered,
passed, and plain with the feed test on the discarded card alone, leaving out the pile below
it, which the real next seat has already let pass): the share of (feeding, not feeding) pairs
ranked right, by whether the next seat has opened. Single-threaded numba; run it niced on a
shared machine.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator

import numpy as np

from card_envs.core import layout
from card_envs.core.jit import njit
from card_envs.core.rng import next_u32
from card_envs.evaluation.stats import wilson_interval
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.heuristic import heuristic_actions
from card_envs.games.rummidrez.solver import NUM_FIGURES, NUM_NUMBERS, best_addition
from card_envs.registry import make_game

HEURISTIC, ORACLE, ORACLE_OPENED, ORACLE_UNOPENED, SAMPLED, SAMPLED_OPENED, RANKED = range(7)
MODES = {
    "heuristic": HEURISTIC,
    "oracle": ORACLE,
    "oracle-opened": ORACLE_OPENED,
    "oracle-unopened": ORACLE_UNOPENED,
    "sampled": SAMPLED,
    "sampled-opened": SAMPLED_OPENED,
    "ranked": RANKED,
}
SAMPLING = ("sampled", "sampled-opened", "ranked")  # the modes that take S:T or S:R
REDRAWS = 30  # tries of a filtered determinisation
PLAIN, FILTERED, PASSED = range(3)  # determinisations: as drawn, filtered, filtered + let pass


@njit(cache=True)
def _heuristic_move(row, obs, masks, picked, num_players, ends):
    k.legal(row, masks[0])
    k.observe(row, row[layout.PLAYER], obs[0])
    heuristic_actions(obs, masks, picked, num_players, ends, False)
    return picked[0]


@njit(cache=True)
def _feeds(row, q, c, ends, depth=k.HINT_MAX_TAKE):
    """Whether seat q's draw rule would take from the discard pile with card c on top,
    looking `depth` cards deep (the rule's own depth by default; 1: the card alone)."""
    hand = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    table = np.zeros_like(hand)
    hand_n = k._counts(row, k.HAND + q * k.NUM_IDS, hand)
    opened = row[k.OPENED + q] == 1
    table_n = k._counts(row, k.TABLE, table) if opened else 0
    top = np.zeros(k.HINT_MAX_TAKE, dtype=np.int64)
    top[0] = c
    top_n = 1
    while top_n < depth and top_n <= row[k.DISCARD_N]:
        top[top_n] = row[k.DISCARD_PILE + row[k.DISCARD_N] - top_n]
        top_n += 1
    out = np.zeros_like(hand)
    return k.take_choice(top, top_n, opened, table, table_n, hand, hand_n, ends, out) > 0


@njit(cache=True)
def _plausible(det, seat, ends):
    """No other seat holds a group after opening, or an opening before it."""
    hand = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    empty = np.zeros_like(hand)
    out = np.zeros_like(hand)
    for q in range(det[layout.NUM_PLAYERS]):
        if q != seat:
            hand_n = k._counts(det, k.HAND + q * k.NUM_IDS, hand)
            r = best_addition(empty, np.int64(0), hand, hand_n, ends, out)
            if r >= (1 if det[k.OPENED + q] == 1 else k.OPEN_MIN):
                return False
    return True


@njit(cache=True)
def _let_pass(det, seat, ends):
    """With 2 players: the other seat would not take from the pile below the top card (its
    own last discard, put back in its hand), which it let pass at its draw."""
    q = (seat + 1) % det[layout.NUM_PLAYERS]
    dn = det[k.DISCARD_N]
    if det[layout.NUM_PLAYERS] != 2 or dn < 2:
        return True
    hand = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    table = np.zeros_like(hand)
    hand_n = k._counts(det, k.HAND + q * k.NUM_IDS, hand)
    x = det[k.DISCARD_PILE + dn - 1]
    if x == k.NEUTRAL:
        hand_n += 1
    else:
        hand[x // NUM_NUMBERS, x % NUM_NUMBERS] += 1
    opened = det[k.OPENED + q] == 1
    table_n = k._counts(det, k.TABLE, table) if opened else 0
    top = np.zeros(k.HINT_MAX_TAKE, dtype=np.int64)
    top_n = 0
    while top_n < k.HINT_MAX_TAKE and top_n < dn - 1:
        top[top_n] = det[k.DISCARD_PILE + dn - 2 - top_n]
        top_n += 1
    out = np.zeros_like(hand)
    return k.take_choice(top, top_n, opened, table, table_n, hand, hand_n, ends, out) == 0


@njit(cache=True)
def _feed_shares(row, allowed, samples, filtered, stream, ends, shares, depth=k.HINT_MAX_TAKE):
    """Per card, the share of `samples` determinisations in which discarding it feeds."""
    seat = row[layout.PLAYER]
    q = (seat + 1) % row[layout.NUM_PLAYERS]
    det = np.empty_like(row)
    shares[:] = 0.0
    for _ in range(samples):
        for _ in range(REDRAWS if filtered else 1):
            det[:] = row
            for w in range(4):
                det[layout.RNG + w] = next_u32(stream) | 1
            k.resample_hidden(det, seat)
            if filtered == PLAIN or (
                _plausible(det, seat, ends) and (filtered == FILTERED or _let_pass(det, seat, ends))
            ):
                break
        for c in range(k.NUM_IDS):
            if allowed[c] and _feeds(det, q, c, ends, depth):
                shares[c] += 1.0 / samples


@njit(cache=True)
def _ranked_discard(row, allowed, samples, first, filtered, stream, ends):
    """Of the heuristic's `first` preferred discards, the one that feeds in the fewest
    determinisations (ties: the heuristic's order)."""
    seat = row[layout.PLAYER]
    hand = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    table = np.zeros_like(hand)
    hand_n = k._counts(row, k.HAND + seat * k.NUM_IDS, hand)
    k._counts(row, k.TABLE, table)
    left = allowed.copy()
    order = np.full(first, -1, dtype=np.int64)
    for i in range(first):
        if left.sum() == 0:
            break
        order[i] = k.discard_choice(left, table, hand, hand_n, ends, np.zeros_like(hand))
        left[order[i]] = 0
    if order[1] < 0:
        return k.DISCARD + order[0]
    shares = np.zeros(k.NUM_IDS)
    _feed_shares(row, allowed, samples, filtered, stream, ends, shares)
    best = order[0]
    for i in range(1, first):
        if order[i] >= 0 and shares[order[i]] < shares[best]:
            best = order[i]
    return k.DISCARD + best


@njit(cache=True)
def _hero_discard(row, heuristic_move, mode, samples, threshold, filtered, stream, ends):
    seat = row[layout.PLAYER]
    q = (seat + 1) % row[layout.NUM_PLAYERS]
    opened = row[k.OPENED + q] == 1
    allowed = np.zeros(k.NUM_IDS, dtype=np.int64)
    k._discard_allowed(row, seat, allowed)
    shares = np.zeros(k.NUM_IDS)
    if (
        mode == ORACLE
        or (mode == ORACLE_OPENED and opened)
        or (mode == ORACLE_UNOPENED and not opened)
    ):
        for c in range(k.NUM_IDS):
            shares[c] = 1.0 if allowed[c] and _feeds(row, q, c, ends) else 0.0
    elif mode == SAMPLED or (mode == SAMPLED_OPENED and opened):
        _feed_shares(row, allowed, samples, filtered, stream, ends, shares)
    elif mode == RANKED:
        return _ranked_discard(row, allowed, samples, int(threshold), filtered, stream, ends)
    if shares[heuristic_move - k.DISCARD] <= threshold:
        return heuristic_move
    safe = allowed.copy()
    for c in range(k.NUM_IDS):
        if shares[c] > threshold:
            safe[c] = 0
    if safe.sum() == 0:
        return heuristic_move
    hand = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    table = np.zeros_like(hand)
    hand_n = k._counts(row, k.HAND + seat * k.NUM_IDS, hand)
    k._counts(row, k.TABLE, table)
    return k.DISCARD + k.discard_choice(safe, table, hand, hand_n, ends, np.zeros_like(hand))


@njit(cache=True)
def _play(row, hero, mode, samples, threshold, filtered, stream, obs, masks, picked, ends):
    """Play `row` to its end; the hero's win share."""
    n = row[layout.NUM_PLAYERS]
    rewards = np.zeros(n, dtype=np.float32)
    while row[layout.STATUS] == layout.RUNNING:
        a = _heuristic_move(row, obs, masks, picked, n, ends)
        if row[layout.PLAYER] == hero and row[k.PHASE] == k.PHASE_DISCARD and mode != HEURISTIC:
            a = _hero_discard(row, a, mode, samples, threshold, filtered, stream, ends)
        k.step(row, a, rewards)
    scores, wins = np.zeros(n), np.zeros(n)
    k.outcome(row, scores, wins)
    return wins[hero]


@njit(cache=True)
def _ranking_pairs(row, filtered, depth, stream, obs, masks, picked, ends, found, m):
    """Play `row` by the heuristic; at each discard write a line of `found` from line `m` on
    per legal card: (the next seat has opened, the card feeds it, its sampled feed share).
    Returns the next free line."""
    n = row[layout.NUM_PLAYERS]
    rewards = np.zeros(n, dtype=np.float32)
    allowed = np.zeros(k.NUM_IDS, dtype=np.int64)
    shares = np.zeros(k.NUM_IDS)
    while row[layout.STATUS] == layout.RUNNING:
        a = _heuristic_move(row, obs, masks, picked, n, ends)
        if row[k.PHASE] == k.PHASE_DISCARD:
            seat = row[layout.PLAYER]
            q = (seat + 1) % n
            k._discard_allowed(row, seat, allowed)
            _feed_shares(row, allowed, 16, filtered, stream, ends, shares, depth)
            for c in range(k.NUM_IDS):
                if allowed[c] and m < found.shape[0]:
                    found[m, 0] = row[k.OPENED + q]
                    found[m, 1] = _feeds(row, q, c, ends)
                    found[m, 2] = shares[c]
                    m += 1
        k.step(row, a, rewards)
    return m


def parse_mode(text: str) -> tuple[int, int, float, int]:
    """(mode, samples, threshold or cards ranked, determinisations) of a MODE argument."""
    name, *rest = text.split(":")
    ok = name in MODES and (len(rest) in (2, 3) if name in SAMPLING else not rest)
    ok = ok and (len(rest) < 3 or rest[2] in ("filtered", "passed"))
    try:
        samples, value = (int(rest[0]), float(rest[1])) if ok and rest else (0, 0.5)
    except ValueError:
        ok = False
    if not ok:
        raise argparse.ArgumentTypeError(
            f"bad mode {text!r}: one of heuristic, oracle, oracle-opened, oracle-unopened, "
            f"sampled:S:T[:filtered|passed], sampled-opened:S:T[:filtered|passed], "
            f"ranked:S:R[:filtered|passed]"
        )
    return (
        MODES[name],
        samples,
        value,
        PLAIN if len(rest) < 3 else (FILTERED, PASSED)[rest[2] == "passed"],
    )


def scratch(game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The one-row buffers the heuristic kernels share: observation, mask, picked move."""
    obs = np.zeros((1, game.obs_size), dtype=np.float32)
    masks = np.zeros((1, game.num_actions), dtype=np.int8)
    return obs, masks, np.zeros(1, dtype=np.int64)


def fixed_stream() -> np.ndarray:
    """The search's PRNG stream, started alike for every mode: modes meet the same draws."""
    stream = np.zeros(layout.RNG + 4, dtype=np.int64)
    stream[layout.RNG :] = (1, 2, 3, 4)
    return stream


def hero_deals(game, games: int, seed: int) -> Iterator[tuple[np.ndarray, int]]:
    """(row, hero seat) of game g: the deal seed + g // n, the hero at seat g % n, so that
    every seat plays each deal once."""
    n = game.num_players
    for g in range(games):
        row = game.new_row()
        game.reset_row(row, seed + g // n)
        yield row, g % n


def win_rates(modes: list[str], games: int, players: int, seed: int) -> None:
    game = make_game("rummidrez_v0", num_players=players)
    obs, masks, picked = scratch(game)
    print("| hero's discards | players | games | win rate [95% CI] | fair share | s |")
    print("|---|---:|---:|---|---:|---:|")
    for text in modes:
        mode, samples, threshold, filtered = parse_mode(text)
        stream = fixed_stream()
        start, won = time.perf_counter(), 0.0
        for row, hero in hero_deals(game, games, seed):
            won += _play(
                row, hero, mode, samples, threshold, filtered, stream, obs, masks, picked, False
            )
        low, high = wilson_interval(won / games, games)
        print(
            f"| {text} | {players} | {games} | {won / games:.3f} [{low:.3f}, {high:.3f}] | "
            f"{1 / players:.3f} | {time.perf_counter() - start:.0f} |",
            flush=True,
        )


def ranking(games: int, players: int, seed: int) -> None:
    game = make_game("rummidrez_v0", num_players=players)
    obs, masks, picked = scratch(game)
    print(
        "| determinisations | next seat | cards | feeding | mean share if feeding / not | "
        "pairs ranked right |"
    )
    print("|---|---|---:|---:|---|---:|")
    kinds = ((PLAIN, k.HINT_MAX_TAKE), (FILTERED, k.HINT_MAX_TAKE), (PASSED, k.HINT_MAX_TAKE))
    for filtered, depth in (*kinds, (PLAIN, 1)):
        stream = fixed_stream()
        found, m = np.zeros((games * 400, 3)), 0
        for g in range(games):
            row = game.new_row()
            game.reset_row(row, seed + g)
            m = _ranking_pairs(row, filtered, depth, stream, obs, masks, picked, False, found, m)
        data = found[:m]
        for opened in (0, 1):
            d = data[data[:, 0] == opened]
            pos, neg = d[d[:, 1] == 1, 2], d[d[:, 1] == 0, 2]
            right = (pos[:, None] > neg[None, :]).mean() + 0.5 * (
                pos[:, None] == neg[None, :]
            ).mean()
            name = ("plain", "filtered", "passed")[filtered] + (
                "" if depth > 1 else ", top card alone"
            )
            print(
                f"| {name} "
                f"| {'opened' if opened else 'not opened'} "
                f"| {len(d)} | {len(pos) / len(d):.3f} | {pos.mean():.3f} / {neg.mean():.3f} | "
                f"{right:.3f} |",
                flush=True,
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", action="append")
    parser.add_argument("--auc", type=int, default=0, metavar="GAMES")
    args = parser.parse_args(argv)
    for text in args.mode or []:
        parse_mode(text)  # a bad mode fails before any game
    if args.auc:
        ranking(args.auc, args.players, args.seed)
    if args.mode or not args.auc:
        win_rates(args.mode or ["heuristic", "oracle"], args.games, args.players, args.seed)


if __name__ == "__main__":
    main()
