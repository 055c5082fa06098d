"""The learning-curve PNG of a training run, drawn from its CSV logs."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

from card_envs.training.config import RUN_OPPONENT


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _num(text: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


@dataclass(frozen=True)
class Curve:
    """What the x axis counts (a column of both CSVs, divided by `scale`), and which column
    of training.csv the second panel shows."""

    x: str = "timesteps"
    scale: float = 1e6
    x_label: str = "learner steps (millions)"
    train: str = "train_win_rate"
    train_label: str = "win rate, last 1000 games"
    train_title: str = "training games (against the pool)"


def _final_marker(ax, final: list[dict], opponent: str, color, curve: Curve) -> None:
    """The final evaluation (more games, fresh deals) as a star with its CI."""
    for r in final:
        if r["opponent"] == opponent:
            y = _num(r["win_rate"])
            err = [[y - _num(r["ci_low"])], [_num(r["ci_high"]) - y]]
            x = _num(r[curve.x]) / curve.scale
            ax.errorbar(x, y, yerr=err, fmt="*", ms=9, color=color)


def plot_learning_curve(
    evaluations: Path,
    progress: Path,
    out: Path,
    title: str,
    baseline: float | None = None,
    curve: Curve | None = None,
) -> Path:
    """Win rate (95% CI band) against each evaluation opponent with its fair share, the
    training win rate against the pool (or `curve.train`), and games won per run when
    measured (with the heuristic's baseline), all over learner steps (or `curve.x`)."""
    curve = curve or Curve()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evals = _read(evaluations)
    final = [r for r in evals if r["kind"] == "final"]
    evals = [r for r in evals if r["kind"] != "final"]
    runs = [r for r in evals if r["opponent"] == RUN_OPPONENT]
    games = [r for r in evals if r["opponent"] != RUN_OPPONENT]
    train = _read(progress)
    panels = 3 if runs or any(r["opponent"] == RUN_OPPONENT for r in final) else 2
    fig, axes = plt.subplots(1, panels, figsize=(5.2 * panels, 4), squeeze=False)
    ax = axes[0][0]
    for opponent in dict.fromkeys(r["opponent"] for r in games):
        rows = [r for r in games if r["opponent"] == opponent]
        x = [_num(r[curve.x]) / curve.scale for r in rows]
        (line,) = ax.plot(x, [_num(r["win_rate"]) for r in rows], marker="o", ms=3,
                          label=f"vs {opponent}")  # fmt: skip
        lows, highs = [_num(r["ci_low"]) for r in rows], [_num(r["ci_high"]) for r in rows]
        ax.fill_between(x, lows, highs, color=line.get_color(), alpha=0.2)
        _final_marker(ax, final, opponent, line.get_color(), curve)
    if games or final:
        fair = _num((games or final)[0]["fair_share"])
        ax.axhline(fair, color="grey", ls="--", lw=1, label=f"fair share {fair:.2f}")
    ax.set(xlabel=curve.x_label, ylabel="win rate (95% CI)", ylim=(0, 1),
           title="evaluation, seat-balanced")  # fmt: skip
    ax.legend(loc="lower right", fontsize=8)

    ax = axes[0][1]
    ax.plot([_num(r[curve.x]) / curve.scale for r in train], [_num(r[curve.train]) for r in train])
    ax.set(xlabel=curve.x_label, ylabel=curve.train_label, ylim=(0, 1),
           title=curve.train_title)  # fmt: skip

    if panels == 3:
        ax = axes[0][2]
        x = [_num(r[curve.x]) / curve.scale for r in runs]
        (line,) = ax.plot(x, [_num(r["win_rate"]) for r in runs], marker="o", ms=3,
                          label="learner")  # fmt: skip
        lows, highs = [_num(r["ci_low"]) for r in runs], [_num(r["ci_high"]) for r in runs]
        ax.fill_between(x, lows, highs, color=line.get_color(), alpha=0.2)
        _final_marker(ax, final, RUN_OPPONENT, line.get_color(), curve)
        if baseline is not None:
            ax.axhline(baseline, color="grey", ls="--", lw=1, label=f"heuristic {baseline:.2f}")
        ax.set(xlabel=curve.x_label, ylabel="games won per run (95% CI)",
               title="run env vs the computer")  # fmt: skip
        ax.legend(loc="lower right", fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
