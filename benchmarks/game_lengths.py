"""How long real games are, and how often they hit a truncation cap.

    python -m benchmarks.game_lengths [--games 2000]
    python -m benchmarks.game_lengths --env super_zwierzaki_v0 --players 2 3 4 6 8 12 \\
        [--games 400] [--heuristic-games 400] [--skip-forced both]

Without `--env`: plays seat-rotated games between built-in agents
(`card_envs.evaluation.evaluate`, on all cores) and prints, per line-up, the mean / 99th
percentile / longest game in actions and the share of games that were truncated (for games
that have a cap, such as Double or Nothing's max_turns).

With `--env ID`: one table row per player count (and `skip_forced` setting, for games that
have it) and table (all seats random, all seats the game's heuristic), single-threaded:
`--games` games of random play and `--heuristic-games` of heuristic play, each game on a row
of its own, seeded as instance i of `card_envs.make_vec(ID, games, seed)` is (seed + i), and
stepped by the same engine kernels the batched env binds until it ends (no auto-reset, so
every game is counted once and long games are not under-counted). Steps are the decisions a
seat was asked (with `skip_forced`, the ones taken unasked are not counted), turns the game's
own turn count (`state_dict()["turns"]`, lost turns included; "-" for a game without one),
truncated the games cut at the cap (`max_turns`), with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import math
from time import perf_counter
from typing import Any

import numpy as np

from card_envs.core import layout
from card_envs.core.jit import njit
from card_envs.evaluation import evaluate
from card_envs.registry import make_game

LINEUPS: list[tuple[str, dict, list[str]]] = [
    ("no_thanks_v0", {}, ["heuristic", "random", "random"]),
    ("surfosaurus_max_v0", {}, ["heuristic", "random", "random", "random"]),
    *(
        ("double_or_nothing_v0", {"stage": g}, pair)
        for g in (1, 2, 4)
        for pair in (["random", "random"], ["computer", "computer"], ["heuristic", "computer"])
    ),
]
POLICIES = ("random", "heuristic")


# --- one game per row, stepped by the engine's kernels ---------------------------------------
@njit
def _observe_rows(states, idx, obs, masks, observe_fn, legal_fn):  # pragma: no cover - compiled
    for j in range(idx.shape[0]):
        row = states[idx[j]]
        observe_fn(row, row[layout.PLAYER], obs[j])
        legal_fn(row, masks[j])


@njit
def _step_rows(states, idx, actions, rewards, step_fn):  # pragma: no cover - compiled
    for j in range(idx.shape[0]):
        rewards[:] = 0.0
        step_fn(states[idx[j]], actions[j], rewards)


def _random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def play_games(
    env_id: str, config: dict[str, Any], policy: str, games: int, seed: int
) -> dict[str, np.ndarray]:
    """`games` whole games of `env_id`, every seat played by `policy` ("random" or
    "heuristic"): per game its steps (decisions asked), turns and whether it was truncated."""
    game = make_game(env_id, **config)
    kernels = type(game)
    states = np.zeros((games, game.state_size), dtype=np.int64)
    for i in range(games):
        game.write_config(states[i])
        game.reset_row(states[i], seed + i)  # as instance i of make_vec(env_id, games, seed)
    obs = np.zeros((games, game.obs_size), dtype=np.float32)
    masks = np.zeros((games, game.num_actions), dtype=np.int8)
    rewards = np.zeros(game.num_players, dtype=np.float32)
    rng = np.random.default_rng(seed)
    steps = np.zeros(games, dtype=np.int64)
    turns = np.zeros(games, dtype=np.int64)
    truncated = np.zeros(games, dtype=bool)
    active = np.flatnonzero(states[:, layout.STATUS] == layout.RUNNING)
    while active.size:
        m = active.size
        _observe_rows(states, active, obs, masks, kernels.observe_kernel, kernels.legal_kernel)
        if policy == "random":
            actions = _random_actions(masks[:m], rng)
        else:
            actions = game.heuristic_actions(obs[:m], masks[:m])
        if not masks[np.arange(m), actions].all():
            raise ValueError(f"{env_id}: the {policy} policy chose an illegal action")
        _step_rows(states, active, actions.astype(np.int64), rewards, kernels.step_kernel)
        status = states[active, layout.STATUS]
        ended = active[status != layout.RUNNING]
        for i in ended.tolist():
            steps[i] = states[i, layout.TURN]
            turns[i] = game.state_dict(states[i]).get("turns", -1)
            truncated[i] = states[i, layout.STATUS] == layout.TRUNCATED
        active = active[status == layout.RUNNING]
    return {"steps": steps, "turns": turns, "truncated": truncated}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k / n."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def players_table(
    env_id: str,
    players: list[int],
    games: dict[str, int],
    skip_forced: list[bool] | None,
    seed: int,
    max_turns: int | None,
) -> None:
    """Print the `--env` table (see the module doc)."""
    print(
        "| players | skip_forced | table | games | mean steps | p99 steps | max steps "
        "| mean turns | truncated (95% CI) | seconds |"
    )
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in players:
        for skip in skip_forced or [None]:
            for policy in POLICIES:
                if games[policy] <= 0:
                    continue
                config: dict[str, Any] = {"num_players": n}
                if skip is not None:
                    config["skip_forced"] = skip
                if max_turns is not None:
                    config["max_turns"] = max_turns
                start = perf_counter()
                res = play_games(env_id, config, policy, games[policy], seed)
                seconds = perf_counter() - start
                s, t, cut = res["steps"], res["turns"], res["truncated"]
                k = int(cut.sum())
                turns = "-" if (t < 0).any() else f"{t.mean():,.0f}"  # no turn count
                lo, hi = wilson(k, len(cut))
                print(
                    f"| {n} | {'-' if skip is None else ('on' if skip else 'off')} | "
                    f"all {policy} | {len(s)} | {s.mean():,.0f} | {np.percentile(s, 99):,.0f} "
                    f"| {s.max():,} | {turns} | {100 * k / len(cut):.1f}% "
                    f"[{100 * lo:.1f}%, {100 * hi:.1f}%] | {seconds:.1f} |",
                    flush=True,
                )


def lineups_table(games: int, seed: int) -> None:
    print("| env | config | agents | mean | p99 | max | truncated |")
    print("|---|---|---|---:|---:|---:|---:|")
    for env_id, config, specs in LINEUPS:
        res = evaluate(env_id, specs, games, seed, progress=False, **config).results
        truncated = res.truncated.mean() * 100
        shown = config or "default"
        print(
            f"| {env_id} | {shown} | {','.join(specs)} | {res.lengths.mean():.0f} "
            f"| {np.percentile(res.lengths, 99):.0f} | {res.lengths.max()} | {truncated:.2f}% |"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.game_lengths",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--games", type=int, default=None, help="games per row (default 2000; with --env 400)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--env", metavar="ID", help="one env: a row per player count and table")
    parser.add_argument(
        "--players", type=int, nargs="+", help="with --env: player counts (default: all allowed)"
    )
    parser.add_argument(
        "--heuristic-games",
        type=int,
        default=None,
        help="with --env: games of all-heuristic tables (default: as --games; 0 skips them)",
    )
    parser.add_argument(
        "--skip-forced",
        choices=("off", "on", "both"),
        default=None,
        help="with --env, for games with that option: skip_forced off, on or both (default off)",
    )
    parser.add_argument(
        "--max-turns", type=int, default=None, help="with --env: the game's max_turns option"
    )
    args = parser.parse_args(argv)
    if args.env is None:
        lineups_table(2000 if args.games is None else args.games, args.seed)
        return
    game_class = type(make_game(args.env))
    option = game_class.options["num_players"]
    players = args.players or list(range(option.low, option.high + 1))
    for n in players:
        make_game(args.env, num_players=n)  # validates the count
    skip = None
    if args.skip_forced is not None or "skip_forced" in game_class.options:
        if "skip_forced" not in game_class.options:
            parser.error(f"{args.env} has no skip_forced option")
        skip = {"off": [False], "on": [True], "both": [False, True]}[args.skip_forced or "off"]
    games = 400 if args.games is None else args.games
    heuristic = games if args.heuristic_games is None else args.heuristic_games
    counts = {"random": games, "heuristic": heuristic}
    players_table(args.env, players, counts, skip, args.seed, args.max_turns)


if __name__ == "__main__":
    main()
