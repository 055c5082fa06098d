"""Rummidrez: which of the heuristic's decisions a search on determinisations can improve,
one decision type at a time (the search's question, docs/research/rummidrez_search.md).

    python -m experiments.rummidrez_decisions [--games 200] [--players 2] [--seed 0]
                                             --mode KIND:S:M[:cards] ... [--profile GAMES]

One seat (the hero, seats balanced: game g deals seed + g // n and seats the hero at g % n)
plays the heuristic except at the decisions of one KIND; every other seat plays the
heuristic. At such a decision the hero plays every candidate move (the heuristic's first) in
each of S determinisations (`resample_hidden`, every candidate from the same redrawn row and
the same future chance: paired), follows each with the heuristic in every seat to the end,
and plays the candidate with the best total if it beats the heuristic's move by more than
M; else the heuristic's move. Kinds and their candidates:

- `draw`: draw, or take the top 1 to 4 cards of the discard pile;
- `meld`: at the first placement of a turn the heuristic would make, that placement (the
  heuristic then places the rest of its meld) or ending the meld phase with nothing placed
  (holding the meld, or the opening, for a later turn);
- `discard`: every legal discard;
- `meld-opened`, `meld-unopened`: `meld` only while the hero has opened / has not.

S = 0 plays every candidate once on the true row (a clairvoyant oracle that sees the other
hands and the draw pile's order: not an agent, an upper bound on what the decision can
change). A candidate's value is the hero's win share (from `engine.outcome`), or with
`:cards` that plus (the other seats' mean cards left - the hero's cards left) / 40: a
smaller-variance value that also counts how close a lost game was.

`--profile GAMES` plays GAMES games of heuristic play (seeds from `--seed` on) and times the
heuristic's kernel on all their positions of each phase in one batch, and the engine's
`legal`, `observe` and `step` on every position: where a heuristic rollout's time goes.
Single-threaded numba; run it niced on a shared machine.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from card_envs.core import layout
from card_envs.core.jit import njit
from card_envs.core.rng import next_u32
from card_envs.evaluation.stats import wilson_interval
from card_envs.games.rummidrez import engine as k
from card_envs.registry import make_game
from experiments.rummidrez_discards import _heuristic_move, fixed_stream, hero_deals, scratch

KINDS = {"draw": 0, "meld": 1, "discard": 2, "meld-opened": 3, "meld-unopened": 4}
DRAW_KIND, MELD_KIND, DISCARD_KIND, MELD_OPENED, MELD_UNOPENED = range(5)
MAX_CANDIDATES = k.NUM_IDS  # the discards are the most
CARDS_SCALE = 40.0  # a difference of cards left worth a whole win


@njit(cache=True)
def value(row, hero, cards):
    """The hero's value of a finished row: its win share, plus with `cards` the others' mean
    cards left minus its own over CARDS_SCALE."""
    n = row[layout.NUM_PLAYERS]
    scores, wins = np.zeros(n), np.zeros(n)
    k.outcome(row, scores, wins)
    if not cards:
        return wins[hero]
    own, others = 0, 0
    for q in range(n):
        for c in range(k.NUM_IDS):
            if q == hero:
                own += row[k.HAND + q * k.NUM_IDS + c]
            else:
                others += row[k.HAND + q * k.NUM_IDS + c]
    return wins[hero] + (others / (n - 1) - own) / CARDS_SCALE


@njit(cache=True)
def _play_out(row, hero, cards, obs, masks, picked, ends):
    """Play `row` to its end with the heuristic in every seat; the hero's value."""
    rewards = np.zeros(row[layout.NUM_PLAYERS], dtype=np.float32)
    while row[layout.STATUS] == layout.RUNNING:
        k.step(
            row, _heuristic_move(row, obs, masks, picked, row[layout.NUM_PLAYERS], ends), rewards
        )
    return value(row, hero, cards)


@njit(cache=True)
def decides(row, kind, heuristic_move):
    """Whether the seat to act in `row` is at a decision of `kind` (its heuristic move given)."""
    phase = row[k.PHASE]
    if kind == DRAW_KIND:
        return phase == k.PHASE_DRAW
    if kind == DISCARD_KIND:
        return phase == k.PHASE_DISCARD
    placing = k.PLACE <= heuristic_move < k.UNDO
    opened = row[k.OPENED + row[layout.PLAYER]] == 1
    if (kind == MELD_OPENED and not opened) or (kind == MELD_UNOPENED and opened):
        return False
    return phase == k.PHASE_MELD and placing and row[k.PLACE_COUNT] == 0


@njit(cache=True)
def candidates(row, kind, heuristic_move, out):
    """The candidate moves of a decision of `kind` into `out`, the heuristic's first; returns
    how many."""
    out[0] = heuristic_move
    m = 1
    if kind == DRAW_KIND:
        if row[k.DRAW_N] > 0 and heuristic_move != k.DRAW:
            out[m] = k.DRAW
            m += 1
        for depth in range(1, min(row[k.DISCARD_N], k.HINT_MAX_TAKE) + 1):
            if k.TAKE + depth - 1 != heuristic_move:
                out[m] = k.TAKE + depth - 1
                m += 1
    elif kind != DISCARD_KIND:  # the meld kinds
        out[m] = k.END_MELD
        m += 1
    else:
        allowed = np.zeros(k.NUM_IDS, dtype=np.int64)
        k._discard_allowed(row, row[layout.PLAYER], allowed)
        for c in range(k.NUM_IDS):
            if allowed[c] and k.DISCARD + c != heuristic_move:
                out[m] = k.DISCARD + c
                m += 1
    return m


@njit(cache=True)
def choose(row, kind, heuristic_move, samples, margin, cards, stream, obs, masks, picked, ends):
    """The hero's move at a decision of `kind` (see the module docstring)."""
    hero = row[layout.PLAYER]
    moves = np.zeros(MAX_CANDIDATES, dtype=np.int64)
    m = candidates(row, kind, heuristic_move, moves)
    totals = np.zeros(m)
    base, det = np.empty_like(row), np.empty_like(row)
    chance = np.zeros(4, dtype=np.int64)
    rewards = np.zeros(row[layout.NUM_PLAYERS], dtype=np.float32)
    for _ in range(max(samples, 1)):
        base[:] = row
        if samples > 0:
            for w in range(4):
                base[layout.RNG + w] = next_u32(stream) | 1
            k.resample_hidden(base, hero)
            for w in range(4):
                chance[w] = next_u32(stream) | 1
        for i in range(m):
            det[:] = base
            if samples > 0:
                det[layout.RNG : layout.RNG + 4] = chance
            k.step(det, moves[i], rewards)
            totals[i] += _play_out(det, hero, cards, obs, masks, picked, ends)
    best = 0
    for i in range(1, m):
        if totals[i] > totals[best]:
            best = i
    return moves[best] if totals[best] > totals[0] + margin else heuristic_move


@njit(cache=True)
def _play(row, hero, kind, samples, margin, cards, stream, obs, masks, picked, ends, counts):
    """Play `row` to its end; the hero's win share. `counts` adds (decisions, changed)."""
    n = row[layout.NUM_PLAYERS]
    rewards = np.zeros(n, dtype=np.float32)
    while row[layout.STATUS] == layout.RUNNING:
        a = _heuristic_move(row, obs, masks, picked, n, ends)
        if row[layout.PLAYER] == hero and decides(row, kind, a):
            b = choose(row, kind, a, samples, margin, cards, stream, obs, masks, picked, ends)
            counts[0] += 1
            counts[1] += b != a
            a = b
        k.step(row, a, rewards)
    return value(row, hero, False)


def parse_mode(text: str) -> tuple[int, int, float, bool]:
    """(kind, determinisations, margin, cards value) of a MODE argument."""
    kind, *rest = text.split(":")
    ok = kind in KINDS and len(rest) in (2, 3) and (len(rest) == 2 or rest[2] == "cards")
    try:
        samples, margin = (int(rest[0]), float(rest[1])) if ok else (0, 0.0)
    except ValueError:
        ok = False
    if not ok or samples < 0:
        raise argparse.ArgumentTypeError(
            f"bad mode {text!r}: the form is KIND:S:M[:cards], KIND one of {sorted(KINDS)}, "
            f"S determinisations (0: the true row), M the margin"
        )
    return KINDS[kind], samples, margin, len(rest) == 3


def win_rates(modes: list[str], games: int, players: int, seed: int) -> None:
    game = make_game("rummidrez_v0", num_players=players)
    obs, masks, picked = scratch(game)
    print("| hero's decisions | players | games | win rate [95% CI] | decisions | changed | s |")
    print("|---|---:|---:|---|---:|---:|---:|")
    for text in modes:
        kind, samples, margin, cards = parse_mode(text)
        stream = fixed_stream()
        counts = np.zeros(2, dtype=np.int64)
        start, won = time.perf_counter(), 0.0
        for row, hero in hero_deals(game, games, seed):
            won += _play(
                row, hero, kind, samples, margin, cards, stream, obs, masks, picked, False, counts
            )
        low, high = wilson_interval(won / games, games)
        print(
            f"| {text} | {players} | {games} | {won / games:.3f} [{low:.3f}, {high:.3f}] | "
            f"{counts[0]} | {counts[1]} | {time.perf_counter() - start:.0f} |",
            flush=True,
        )


def positions_by_phase(games: int, seed: int) -> dict[int, tuple[np.ndarray, ...]]:
    """Per phase, (rows, observations, masks, heuristic moves as (n, 1)) of every position of
    `games` games of 2-player heuristic play."""
    game = make_game("rummidrez_v0")
    found: dict[int, list[list[np.ndarray]]] = {}
    obs = np.zeros((1, game.obs_size), dtype=np.float32)
    mask = np.zeros((1, game.num_actions), dtype=np.int8)
    rewards = np.zeros(2, dtype=np.float32)
    for g in range(games):
        row = game.new_row()
        game.reset_row(row, seed + g)
        while row[layout.STATUS] == layout.RUNNING:
            k.observe(row, row[layout.PLAYER], obs[0])
            k.legal(row, mask[0])
            a = game.heuristic_actions(obs, mask)[:1]
            lists = found.setdefault(int(row[k.PHASE]), [[], [], [], []])
            for kept, item in zip(lists, (row, obs[0], mask[0], a), strict=True):
                kept.append(item.copy())
            k.step(row, int(a[0]), rewards)
    return {phase: tuple(np.array(kept) for kept in lists) for phase, lists in found.items()}


@njit(cache=True)
def _engine_steps(rows, moves, mask, obs):
    """`legal`, `observe` and `step` on a copy of every row (the row copied too)."""
    rewards = np.zeros(2, dtype=np.float32)
    for i in range(rows.shape[0]):
        row = rows[i].copy()
        k.legal(row, mask)
        k.observe(row, row[layout.PLAYER], obs)
        k.step(row, moves[i], rewards)


def profile(games: int, seed: int) -> None:
    game = make_game("rummidrez_v0")
    found = positions_by_phase(games, seed)
    print("| part | positions per game | µs per position | ms per game |")
    print("|---|---:|---:|---:|")
    names = {k.PHASE_DRAW: "heuristic, draw", k.PHASE_MELD: "heuristic, meld"}
    for phase in sorted(found):
        _, obs, masks, _ = found[phase]
        game.heuristic_actions(obs[:1], masks[:1])  # compiled before timing
        start = time.perf_counter()
        game.heuristic_actions(obs, masks)
        seconds = time.perf_counter() - start
        name = names.get(phase, "heuristic, discard")
        print(
            f"| {name} | {len(obs) / games:.1f} | {seconds / len(obs) * 1e6:.1f} | "
            f"{seconds / games * 1e3:.2f} |"
        )
    rows = np.concatenate([found[phase][0] for phase in sorted(found)])
    moves = np.concatenate([found[phase][3][:, 0] for phase in sorted(found)])
    mask = np.zeros(game.num_actions, dtype=np.int8)
    obs = np.zeros(game.obs_size, dtype=np.float32)
    _engine_steps(rows[:1], moves[:1], mask, obs)
    start = time.perf_counter()
    _engine_steps(rows, moves, mask, obs)
    seconds = time.perf_counter() - start
    print(
        f"| engine: legal, observe, step | {len(rows) / games:.1f} | "
        f"{seconds / len(rows) * 1e6:.1f} | {seconds / games * 1e3:.2f} |"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", action="append", default=[])
    parser.add_argument("--profile", type=int, default=0, metavar="GAMES")
    args = parser.parse_args(argv)
    if not args.mode and not args.profile:
        parser.error("give --mode KIND:S:M[:cards] (repeatable) or --profile GAMES")
    for text in args.mode:
        parse_mode(text)  # a bad mode fails before any game
    if args.profile:
        profile(args.profile, args.seed)
    if args.mode:
        win_rates(args.mode, args.games, args.players, args.seed)


if __name__ == "__main__":
    main()
