"""The per-setting tables of docs/training.md, from the JSON notes of the shipped models
(`card_envs/models/<env_id>.json`, written by `training.ship`): one row per setting, win
rates with their 95% intervals against each opponent of the final evaluation.

    python docs/scripts/training_tables.py > /tmp/tables.md
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

MODELS = Path(__file__).resolve().parents[2] / "card_envs" / "models"


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


def main() -> None:
    for path in sorted(MODELS.glob("*.json")):
        note = json.loads(path.read_text())
        mix = note.get("mix") or {}
        print(f"### {note['env']}\n")
        print(
            f"{note['timesteps'] / 1e6:.1f}M learner steps, {note['training_minutes']:.1f} min "
            f"training, {note['command_minutes']:.1f} min the whole command; config "
            f"`{note['config']}`" + (f", mixed over `{mix}`" if mix else "") + ".\n"
        )
        print(table(note) + "\n")


if __name__ == "__main__":
    main()
