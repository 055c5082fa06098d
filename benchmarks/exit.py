"""The expert-iteration networks (`exit`, docs/exit.md): how strong and how fast, per setting.

    python -m benchmarks.exit [--env ID ...] [--games 400] [--workers 2]
                              [--exploit DIR ...] [--out docs/figures/exit.md]

For each game with a shipped `exit` network (`card_envs/models/<env_id>.exit.zip`), at every
setting it was trained on (its note's config and mix, the main config first): `evaluate`,
seat-balanced, of `exit` in one seat against each opponent in every other seat (the
heuristic, the built-in computer where the game has one, and the shipped `ppo` where there
is one), with the win rate's 95% Wilson interval, the fair share 1/n, whether the
interval's low end clears it, and `exit`'s milliseconds per decision. A one-seat game
plays `exit` and the opponent alone on the same deals: the share of deals `exit` scores
better (ties one half, fair share 1/2) and both mean rewards. Then each network's training
curve from its note: the win rate against the heuristic after each round.

`--exploit DIR` (one per seed) adds the exploitability bounds of `exit` and `ppo` from the
cells of `python -m benchmarks.exploitability --minutes 5 --target exit --target ppo --seed S
--out DIR` (the main tournament's config of each game, the table's 5-minute budget); a cell
made against another network than the one shipped now is named, not shown.
"""

from __future__ import annotations

import argparse
import itertools
import json

import numpy as np

from benchmarks.exploitability import MAIN_TOURNAMENT, cell_dir
from card_envs.agents.ppo import has_shipped_model, model_file
from card_envs.agents.specs import spec_digest
from card_envs.evaluation import evaluate
from card_envs.evaluation.stats import wilson_interval
from card_envs.registry import batched_env_ids, make_game
from card_envs.testing.report import command_line, printed, write_page
from card_envs.tournament.config import load_config as load_tournament
from card_envs.training.ship import MODELS

PROG = "python -m benchmarks.exit"
EXPLOITED = ("exit", "ppo")
ABOUT = (
    f"Written by `{PROG}` (see its docstring): the shipped `exit` networks, trained by expert "
    "iteration (docs/exit.md), in one seat against each opponent in every other seat, "
    "seats balanced, at every setting they were trained on, with 95% Wilson intervals and "
    "their milliseconds per decision; then their training curves and, from the cells of "
    "`benchmarks.exploitability` (--exploit), their exploitability bounds beside `ppo`'s."
)


def note(env_id: str) -> dict:
    path = MODELS / model_file(env_id, "exit")
    return json.loads(path.with_suffix(".json").read_text())


def settings(shipped: dict) -> list[dict]:
    """The note's config, then every other combination of its mix."""
    config, mix = shipped["config"], shipped.get("mix") or {}
    combos = [dict(zip(mix, values, strict=True)) for values in itertools.product(*mix.values())]
    out = [config] + [{**config, **c} for c in combos]
    unique = {json.dumps(s, sort_keys=True): s for s in out}
    return list(unique.values())


def opponents(env_id: str) -> list[str]:
    found = ["heuristic"]
    if type(make_game(env_id)).computer_kernel is not None:
        found.append("computer")
    if has_shipped_model(env_id):
        found.append("ppo")
    return found


def shown(setting: dict, defaults: dict) -> str:
    """The setting's options that differ from the game's defaults (a note's JSON lists
    compared as the defaults' tuples)."""
    differs = [k for k, v in setting.items() if json.dumps(v) != json.dumps(defaults.get(k))]
    return ", ".join(f"{k}={setting[k]}" for k in differs) or "default"


def strength(env_id: str, games: int, workers: int, seed: int) -> None:
    shipped = note(env_id)
    defaults = make_game(env_id).config
    print(f"\n## {env_id}\n")
    print("| setting | against | win rate [95%] | fair share | clears it | ms/move | games |")
    print("|---|---|---|---:|---|---:|---:|")
    cleared: dict[str, list[bool]] = {}
    for setting in settings(shipped):
        n = make_game(env_id, **setting).num_players
        for opponent in opponents(env_id):
            if n == 1:
                rate, ci, fair, ms, played, extra = alone(env_id, setting, opponent, games, seed)
            else:
                ev = evaluate(env_id, ["exit"] + [opponent] * (n - 1), games, seed, workers,
                              False, **setting)  # fmt: skip
                s = ev[0]
                rate, ci, fair, ms, played, extra = (
                    s.win_rate, s.win_rate_ci, 1 / n, s.ms_per_move, ev.games, ""
                )  # fmt: skip
            ok = ci[0] > fair
            cleared.setdefault(opponent, []).append(ok)
            print(
                f"| {shown(setting, defaults)} | {opponent} | {rate:.3f} [{ci[0]:.3f}, "
                f"{ci[1]:.3f}]{extra} | {fair:.3f} | {'yes' if ok else 'no'} | {ms:.3f} | "
                f"{played} |",
                flush=True,
            )
    print()
    for opponent, oks in cleared.items():
        print(f"- against {opponent}: clears the fair share in {sum(oks)} of {len(oks)} settings")
    curve(shipped)


def alone(env_id: str, setting: dict, opponent: str, games: int, seed: int):
    """A one-seat game: `exit` and `opponent` play the same deals alone."""
    runs = {
        spec: evaluate(env_id, [spec], games, seed, 1, False, **setting)
        for spec in ("exit", opponent)
    }
    mine, theirs = (runs[s].results.rewards[:, 0] for s in ("exit", opponent))
    p = float(np.mean((mine > theirs) + 0.5 * (mine == theirs)))
    extra = f"; mean reward {mine.mean():.3f} vs {theirs.mean():.3f}"
    return p, wilson_interval(p, len(mine)), 0.5, runs["exit"][0].ms_per_move, len(mine), extra


def curve(shipped: dict) -> None:
    rows = shipped.get("curve") or []
    if not rows:
        return
    print("\nTraining curve (periodic evaluations against the heuristic, main config):\n")
    print("| round | minutes | win rate [95%] |")
    print("|---:|---:|---|")
    for r in rows:
        print(
            f"| {r['round']} | {r['minutes']:.1f} | {r['win_rate']:.3f} "
            f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] |"
        )


def exploitability(env_ids: list[str], runs: list[str]) -> None:
    """`exit` and `ppo` in the exploitability cells of `runs` (benchmarks.exploitability
    output directories), for the main tournament's event of each game."""
    events = {e.env: e for e in load_tournament(MAIN_TOURNAMENT).events}
    print("\n## Exploitability\n")
    print("| game | target | seed | learner steps | exploiter win rate [95%] | fair share "
          "| bound, points [95%] |")  # fmt: skip
    print("|---|---|---:|---:|---|---:|---|")
    bounds: dict[tuple[str, str], list[float]] = {}
    for env_id in env_ids:
        event = events.get(env_id)
        if event is None:
            continue
        for run, target in itertools.product(runs, EXPLOITED):
            path = cell_dir(run, event.name, target) / "results.json"
            if not path.exists():
                print(f"| {env_id} | `{target}` | | | no run in {run} | | |")
                continue
            e = json.loads(path.read_text())["exploit"]
            if e.get("target_networks") != spec_digest(target, env_id):
                print(f"| {env_id} | `{target}` | | | {run}: made against another network | | |")
                continue
            (low, high), (b_low, b_high) = e["exploiter_ci"], e["bound_points_ci"]
            bounds.setdefault((env_id, target), []).append(e["bound_points"])
            print(
                f"| {env_id} | `{target}` | {e['seed']} | {e['learner_steps']:,} "
                f"| {e['exploiter_win_rate']:.3f} [{low:.3f}, {high:.3f}] "
                f"| {e['fair_share']:.3f} "
                f"| {e['bound_points']:+.1f} [{b_low:+.1f}, {b_high:+.1f}] |"
            )
    print()
    for env_id in env_ids:
        if env_id not in events:
            print(f"- {env_id}: not in the main tournament (one seat: nobody to exploit it)")
            continue
        means = {t: np.mean(bounds[env_id, t]) for t in EXPLOITED if (env_id, t) in bounds}
        print(f"- {env_id}: mean bound " + ", ".join(f"`{t}` {m:+.1f}" for t, m in means.items()))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--env", action="append", choices=batched_env_ids())
    parser.add_argument("--games", type=int, default=400, help="games per cell (default 400)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--exploit", action="append", default=[], metavar="DIR",
        help="a benchmarks.exploitability output directory (repeatable: one per seed)",
    )  # fmt: skip
    parser.add_argument("--out", metavar="PAGE", help="also write the tables as a figures page")
    args = parser.parse_args(argv)
    env_ids = args.env or [e for e in batched_env_ids() if has_shipped_model(e, "exit")]
    if not env_ids:
        raise SystemExit("no exit network is shipped (card_envs/models/<env_id>.exit.zip)")
    with printed() as tables:
        for env_id in env_ids:
            strength(env_id, args.games, args.workers, args.seed)
        if args.exploit:
            exploitability(env_ids, args.exploit)
    if args.out:
        page = tables.getvalue()
        write_page(args.out, "Expert iteration", ABOUT, command_line(PROG, argv), page)


if __name__ == "__main__":
    main()
