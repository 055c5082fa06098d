"""Leaderboards as a text table, a CSV file and a PNG plot of the ratings."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from card_envs.tournament.ratings import Leaderboard

# without ms_per_move: the same games give the same CSV (a resumed run writes the same
# file), and a wall-clock time is not the same twice
CSV_COLUMNS = (
    "place",
    "name",
    "spec",
    "games",
    "mu",
    "sigma",
    "ordinal",
    "elo",
    "elo_se",
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "mean_score",
    "mean_score_low",
    "mean_score_high",
    "seat_games",
)


def _f(x: float | None, fmt: str) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def format_table(board: Leaderboard) -> str:
    """The leaderboard as aligned text: one line per agent, best first."""
    pct = round(100 * board.confidence)
    head = (
        f"{board.event}: {board.env_id} {board.config}, {board.games} games"
        + (f" ({board.truncated} truncated)" if board.truncated else "")
        + (", Elo from a Bradley-Terry fit" if board.has_elo else "")
        + ", OpenSkill Plackett-Luce (mu ± sigma)"
    )
    width = max(5, *(len(s.name) for s in board.standings))
    cols = f"{'#':>2} {'agent':<{width}} "
    if board.has_elo:
        cols += f"{'Elo':>7} {'±se':>5} "
    cols += (
        f"{'mu':>6} {'±sigma':>6} {'mu-3σ':>6} {'win rate':>8} {f'{pct}% CI':>15} "
        f"{'score':>8} {'games':>6} {'ms/move':>8}"
    )
    lines = [head, cols, "-" * len(cols)]
    for s in board.standings:
        line = f"{s.place:>2} {s.name:<{width}} "
        if board.has_elo:
            line += f"{_f(s.elo, '7.0f')} {_f(s.elo_se, '5.0f')} "
        line += (
            f"{s.mu:>6.2f} {s.sigma:>6.2f} {s.ordinal:>6.2f} {s.win_rate:>8.3f} "
            f"{f'[{s.win_rate_low:.3f}, {s.win_rate_high:.3f}]':>15} "
            f"{s.mean_score:>8.2f} {s.games:>6} {_f(s.ms_per_move, '8.3f')}"
        )
        lines.append(line)
    lines += [f"note: {n}" for n in board.notes]
    return "\n".join(lines)


def write_csv(board: Leaderboard, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        for s in board.standings:
            row = []
            for col in CSV_COLUMNS:
                v = getattr(s, col)
                if col == "seat_games":
                    v = " ".join(map(str, v))
                elif v is None:
                    v = ""
                elif isinstance(v, float):
                    v = repr(round(v, 6))
                row.append(v)
            writer.writerow(row)
    return path


def write_plot(board: Leaderboard, path: str | Path) -> Path:
    """Horizontal bars: OpenSkill mu ± 2 sigma, and Elo ± 1.96 se for 2-player events
    (matplotlib's Agg canvas, no display needed)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = list(reversed(board.standings))  # best at the top
    names = [s.name for s in rows]
    panels = [("OpenSkill mu ± 2 sigma", [s.mu for s in rows], [2 * s.sigma for s in rows])]
    if board.has_elo and all(s.elo is not None and not math.isnan(s.elo) for s in rows):
        panels.append(("Elo ± 1.96 se", [s.elo for s in rows], [1.96 * s.elo_se for s in rows]))
    fig = Figure(figsize=(5 * len(panels) + 1, 0.45 * len(rows) + 1.6))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    y = list(range(len(rows)))
    for ax, (title, values, errors) in zip(axes, panels, strict=True):
        ax.errorbar(values, y, xerr=errors, fmt="o", capsize=4, color="tab:blue")
        ax.set_yticks(y, names if ax is axes[0] else [""] * len(y))
        ax.set_title(title, fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        ax.margins(y=0.15)
    fig.suptitle(f"{board.event} ({board.env_id}, {board.games} games)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path
