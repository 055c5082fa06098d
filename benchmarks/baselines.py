"""The trained baselines' figures, from the JSON notes of the shipped models
(`card_envs/models/<env_id>.json`, written by `card_envs.training.ship`): a summary row per
model, then per model one row per setting with the win rates and their 95% intervals against
each opponent of the final evaluation it had when it was trained.

    python -m benchmarks.baselines [--out docs/figures/baselines.md]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from card_envs.agents.ppo import model_file
from card_envs.registry import batched_env_ids
from card_envs.testing.report import command_line, printed, write_page

MODELS = Path(__file__).resolve().parent.parent / "card_envs" / "models"
PROG = "python -m benchmarks.baselines"
ABOUT = (
    f"Written by `{PROG}` from the notes shipped beside the models "
    "(`card_envs/models/<env_id>.json`): each model's final evaluation when it was trained by "
    "`card-envs train --config configs/training/<game>.yaml` on a 2-core CPU machine (AMD "
    "EPYC, no GPU, one torch thread; docs/training.md), on fresh seat-balanced games per "
    "setting and opponent (the other seats all that opponent), the learner playing the "
    "argmax of its masked policy; 95% Wilson intervals. Targets: against random, 2-player "
    "games >= 90% wins and N-player tables >= 2/N; against the heuristic, the whole interval "
    "above the fair share 1/N; a one-seat game, at least the opponent's mean reward."
)


def cell(row: dict) -> str:
    if row["opponent"] == "run":
        return f"{row['win_rate']:.2f} [{row['ci_low']:.2f}, {row['ci_high']:.2f}]"
    return f"{row['win_rate']:.1%} [{row['ci_low']:.1%}, {row['ci_high']:.1%}]"


def table(note: dict) -> str:
    rows = [r for r in note["final_evaluation"] if r["opponent"] != "run"]
    opponents = list(dict.fromkeys(r["opponent"] for r in rows))
    by_setting: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in rows:
        by_setting[r.get("setting") or "-"][r["opponent"]] = r
    head = ["setting", "games", "fair share", *(f"vs {o}" for o in opponents)]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for setting, found in by_setting.items():
        first = next(iter(found.values()))
        share = f"{first['fair_share']:.1%}"
        cells = [cell(found[o]) if o in found else "" for o in opponents]
        lines.append(f"| {setting} | {first['games']} | {share} | " + " | ".join(cells) + " |")
    runs = [r for r in note["final_evaluation"] if r["opponent"] == "run"]
    for r in runs:
        lines.append(
            f"\nGames won per run of `double_or_nothing_run_v0` ({r['games']} runs): {cell(r)}"
        )
        for spec, b in (note.get("run_baselines") or {}).items():
            interval = f"[{b['ci_low']:.2f}, {b['ci_high']:.2f}]"
            lines.append(f"- {spec} on the same runs: {b['mean']:.2f} {interval}")
    return "\n".join(lines)


def summary(note: dict) -> str:
    """One row: steps, time, and per opponent the range over settings and how many of them
    clear the fair share with their whole interval."""
    mix = note.get("mix") or {}
    settings = len({r.get("setting") for r in note["final_evaluation"] if r["opponent"] != "run"})
    cells = []
    for opponent in ("random", "heuristic"):
        rows = [r for r in note["final_evaluation"] if r["opponent"] == opponent]
        low = min(rows, key=lambda r: r["win_rate"])
        high = max(rows, key=lambda r: r["win_rate"])
        if note["config"]["num_players"] == 1:  # one seat: a mean reward at least the agent's
            met = sum(r["mean_reward"] >= r["opponent_reward"] for r in rows)
            what = "at least its mean reward"
        elif opponent == "random":  # the target: 90% head-to-head, 2/N at a table
            need = [0.9 if r["num_players"] == 2 else 2 / r["num_players"] for r in rows]
            met = sum(r["win_rate"] >= n for r, n in zip(rows, need, strict=True))
            what = "at the target"
        else:  # the target: the whole interval above the fair share
            met = sum(r["ci_low"] > r["fair_share"] for r in rows)
            what = "above fair share"
        where = (lambda r: f" ({r['setting']})") if settings > 1 else (lambda r: "")
        span = f"{low['win_rate']:.1%}{where(low)} to {high['win_rate']:.1%}{where(high)}"
        cells.append(f"{span}; {what} in {met} of {len(rows)}")
    mixed = ", ".join(f"{k} {v[0]}..{v[-1]}" for k, v in mix.items()) or "-"
    return (
        f"| {note['env']} | {mixed} | {note['timesteps'] / 1e6:.1f}M | "
        f"{note['training_minutes']:.1f} min ({note['command_minutes']:.1f} min) | "
        + " | ".join(cells)
        + " |"
    )


def ppo_notes() -> list[Path]:
    """The notes beside the shipped `ppo` models (`ppo.model_file`); the `exit` networks'
    have their own page (benchmarks/exit.py)."""
    notes = ((MODELS / model_file(env_id)).with_suffix(".json") for env_id in batched_env_ids())
    return sorted(p for p in notes if p.is_file())


def report() -> None:
    notes = [json.loads(p.read_text()) for p in ppo_notes()]
    print("| model | mixed | learner steps | training (command) | vs random | vs heuristic |")
    print("| --- | --- | ---: | ---: | --- | --- |")
    for note in notes:
        print(summary(note))
    print()
    for path in ppo_notes():
        note = json.loads(path.read_text())
        mix = note.get("mix") or {}
        print(f"## {note['env']}\n")
        print(
            f"{note['timesteps'] / 1e6:.1f}M learner steps, {note['training_minutes']:.1f} min "
            f"training, {note['command_minutes']:.1f} min the whole command; config "
            f"`{note['config']}`" + (f", mixed over `{mix}`" if mix else "") + ".\n"
        )
        print(table(note) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--out", metavar="PAGE", help="also write the tables as a figures page")
    args = parser.parse_args(argv)
    with printed() as tables:
        report()
    if args.out:
        title = "Trained baselines"
        write_page(args.out, title, ABOUT, command_line(PROG, argv), tables.getvalue())


if __name__ == "__main__":
    main()
