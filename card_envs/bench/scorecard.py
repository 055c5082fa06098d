"""A candidate's scorecard: per cell its win rate with a 95% Wilson interval against the
fair share, its mean score and its milliseconds per decision; per game a one-line summary;
optionally the exploitability bounds. Written as Markdown, JSON and a PNG.

A multi-seat cell's win rate is the candidate's share of wins (a k-way tie counts 1/k), fair
share 1/players. A one-seat cell compares the candidate with the panel agent deal by deal:
the share of deals it scores more (a tie counts one half), fair share 1/2.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from card_envs.bench.protocol import Cell
from card_envs.evaluation.arena import GameBatch
from card_envs.evaluation.stats import agent_stats, ms_per_move, t_interval, wilson_interval

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Skipped:
    """A cell the candidate does not play, and why (its agent cannot be built at the cell's
    config, or it searches state rows that a Gymnasium env does not give)."""

    cell: Cell
    reason: str


@dataclass(frozen=True)
class CellResult:
    name: str
    env_id: str
    setting: str
    panel: str
    kind: str
    games: int
    fair_share: float
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_score: float
    mean_score_ci: tuple[float, float]
    ms_per_move: float
    panel_mean_score: float | None = None  # one-seat cells: the panel agent's on the deals

    @property
    def verdict(self) -> str:
        """above / below the fair share when the interval clears it, else within."""
        low, high = self.win_rate_ci
        return "above" if low > self.fair_share else "below" if high < self.fair_share else "within"


def cell_result(cell: Cell, games: GameBatch) -> CellResult:
    """The cell's numbers from its stored games (field index 0: the candidate)."""
    if cell.kind == "seats":
        s = agent_stats("candidate", "", games, 0, cell.num_players, CONFIDENCE)
        return CellResult(
            cell.name, cell.env_id, cell.setting, cell.panel, cell.kind, s.games,
            1 / cell.num_players, s.win_rate, s.win_rate_ci, s.mean_score, s.mean_score_ci,
            s.ms_per_move,
        )  # fmt: skip
    mine, theirs = games.agent_of_seat[:, 0] == 0, games.agent_of_seat[:, 0] == 1
    order = np.argsort(games.seeds[mine]), np.argsort(games.seeds[theirs])
    a, b = games.rewards[mine, 0][order[0]], games.rewards[theirs, 0][order[1]]
    if len(a) != len(b) or (games.seeds[mine][order[0]] != games.seeds[theirs][order[1]]).any():
        raise ValueError(f"{cell.name}: the candidate's and the panel's deals differ")
    share = float(np.mean((a > b) + 0.5 * (a == b))) if len(a) else math.nan
    score, score_ci = t_interval(a, CONFIDENCE)
    return CellResult(
        cell.name, cell.env_id, cell.setting, cell.panel, cell.kind, len(a), 0.5, share,
        wilson_interval(share, len(a), CONFIDENCE), score, score_ci,
        ms_per_move(games, games.agent_of_seat == 0), float(b.mean()),
    )  # fmt: skip


@dataclass
class Scorecard:
    protocol: str
    spec: str
    digest: str  # of what the spec loads for every env benched (`run.candidate_digest`)
    reads_rows: bool  # the candidate searches state rows: it sees every hidden card
    cells: list[CellResult]
    skipped: list[Skipped] = field(default_factory=list)  # cells it cannot play
    complete: bool = False  # every cell of the protocol was asked for
    exploit: list[dict] = field(default_factory=list)  # `--exploit`: one entry per game
    played: int = 0  # games and runs this run played (the others came from the store)
    seconds: float = 0.0  # this run's wall time: the one figure of the machine, with ms/move
    # an `llm` candidate: model, base_url and this run's counts (`agents.llm.Counts`)
    language_model: dict | None = None

    @property
    def env_ids(self) -> list[str]:
        return list(dict.fromkeys(c.env_id for c in self.cells))

    def summary(self, env_id: str) -> str:
        """One line: how often the interval clears the fair share, and the mean margin."""
        mine = [c for c in self.cells if c.env_id == env_id]
        counts = {v: sum(c.verdict == v for c in mine) for v in ("above", "within", "below")}
        margin = 100 * float(np.mean([c.win_rate - c.fair_share for c in mine]))
        return (
            f"{env_id}: above the fair share in {counts['above']} of {len(mine)} cells, "
            f"within it in {counts['within']}, below in {counts['below']}; mean margin "
            f"{margin:+.1f} points"
        )

    def as_dict(self) -> dict:
        return {
            "protocol": self.protocol,
            "spec": self.spec,
            "digest": self.digest,
            "reads_state_rows": self.reads_rows,
            "complete": self.complete,
            "summary": {e: self.summary(e) for e in self.env_ids},
            "cells": [{**asdict(c), "verdict": c.verdict} for c in self.cells],
            "skipped": [{"cell": s.cell.name, "reason": s.reason} for s in self.skipped],
            "exploit": self.exploit,
            "played": self.played,
            "seconds": round(self.seconds, 1),
            "language_model": self.language_model,
        }

    def model_line(self) -> str:
        """The `llm` candidate's line: the model, where, and its illegal answers."""
        m = self.language_model or {}
        head = f"language model `{m.get('model')}` at {m.get('base_url')}"
        if not m.get("answers"):
            return f"{head}: no answers in this run (its games were read from the store)"
        rate = 100 * m["illegal"] / m["answers"]
        text = (
            f"{head}: illegal answers {m['illegal']:,} of {m['answers']:,} ({rate:.1f}%); "
            f"{m['fallbacks']:,} of {m['decisions']:,} decisions played by its fallback"
        )
        if m.get("http_errors"):
            text += f"; {m['http_errors']:,} HTTP errors"
        return text + " (this run's games)"

    def markdown(self, level: int = 2) -> str:
        h = "#" * level
        lines = [
            f"{h} `{self.spec}` on {self.protocol}",
            "",
            f"- digest of what the spec loads: `{self.digest}`",
            "- "
            + (
                "**reads state rows**: it searches the true state, every hidden card included"
                if self.reads_rows
                else "plays from its seat's view in words only (`Game.view_text`, its legal "
                "moves): no hidden card"
                if self.language_model is not None
                else "plays from its observations only"
            ),
            "- "
            + (
                "every cell of the protocol"
                if self.complete
                else f"partial: {len(self.cells)} cells, not the whole protocol"
            ),
        ]
        if self.language_model is not None:
            lines.append(f"- {self.model_line()}")
        lines.append(
            f"- this run: {self.played:,} games played in {self.seconds:,.0f} s, the others "
            "read from the store"
            if self.played
            else "- this run: every game read from the store"
        )
        if self.skipped:
            lines.append(f"- not played ({len(self.skipped)} cells):")
            why: dict[str, list[str]] = {}
            for s in self.skipped:
                where = f"{s.cell.env_id} {s.cell.setting}"
                if where not in why.setdefault(s.reason, []):
                    why[s.reason].append(where)
            lines += [f"  - {', '.join(where)}: {reason}" for reason, where in why.items()]
        lines += ["", *(f"- {self.summary(e)}" for e in self.env_ids)]
        for env_id in self.env_ids:
            lines += ["", f"{h}# {env_id}", ""]
            lines += [
                "| setting | against | win rate [95%] | fair share | verdict | mean score "
                "[95%] | ms/move | games |",
                "|---|---|---|---:|---|---|---:|---:|",
            ]
            for c in (c for c in self.cells if c.env_id == env_id):
                score = f"{c.mean_score:.2f} [{c.mean_score_ci[0]:.2f}, {c.mean_score_ci[1]:.2f}]"
                if c.panel_mean_score is not None:
                    score += f" (theirs {c.panel_mean_score:.2f})"
                lines.append(
                    f"| {c.setting} | `{c.panel}` | {c.win_rate:.3f} [{c.win_rate_ci[0]:.3f}, "
                    f"{c.win_rate_ci[1]:.3f}] | {c.fair_share:.3f} | {c.verdict} | {score} | "
                    f"{c.ms_per_move:.3f} | {c.games} |"
                )
        if self.exploit:
            lines += ["", f"{h}# Exploitability", ""]
            lines += [
                "| game | config | learner steps | exploiter win rate [95%] | fair share "
                "| bound, points [95%] |",
                "|---|---|---:|---|---:|---|",
            ]
            for e in self.exploit:
                (low, high), (b_low, b_high) = e["exploiter_ci"], e["bound_points_ci"]
                lines.append(
                    f"| {e['env']} | {e['config']} | {e['learner_steps']:,} | "
                    f"{e['exploiter_win_rate']:.3f} [{low:.3f}, {high:.3f}] | "
                    f"{e['fair_share']:.3f} | {e['bound_points']:+.1f} "
                    f"[{b_low:+.1f}, {b_high:+.1f}] |"
                )
        return "\n".join(lines) + "\n"

    def plot(self, path: str | Path) -> Path:
        """Each cell's win rate minus its fair share, in points, with its interval: one
        panel per game (matplotlib's Agg canvas)."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        path = Path(path)
        envs = self.env_ids
        heights = [sum(c.env_id == e for c in self.cells) for e in envs]
        fig = Figure(figsize=(7, 0.22 * sum(heights) + 0.9 * len(envs) + 0.6))
        FigureCanvasAgg(fig)
        axes = fig.subplots(len(envs), 1, squeeze=False, height_ratios=heights)[:, 0]
        for ax, env_id in zip(axes, envs, strict=True):
            mine = [c for c in self.cells if c.env_id == env_id][::-1]
            y = np.arange(len(mine))
            x = [100 * (c.win_rate - c.fair_share) for c in mine]
            err = np.array(
                [[100 * (c.win_rate - c.win_rate_ci[0]), 100 * (c.win_rate_ci[1] - c.win_rate)]
                 for c in mine]
            ).T  # fmt: skip
            colors = [{"above": "tab:green", "below": "tab:red"}.get(c.verdict, "tab:gray")
                      for c in mine]  # fmt: skip
            for k, color in enumerate(colors):
                ax.errorbar(x[k], y[k], xerr=err[:, k : k + 1], fmt="o", ms=3, color=color,
                            capsize=2, lw=1)  # fmt: skip
            ax.axvline(0, color="black", lw=0.8)
            ax.set_yticks(y, [f"{c.setting} vs {c.panel}" for c in mine], fontsize=6)
            ax.set_title(env_id, fontsize=9)
            ax.tick_params(axis="x", labelsize=7)
            ax.grid(axis="x", alpha=0.3)
        axes[-1].set_xlabel("win rate minus fair share, points (95% interval)", fontsize=8)
        fig.suptitle(f"{self.spec} on {self.protocol}", fontsize=10)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=110)
        return path

    def write(self, out: str | Path) -> list[Path]:
        """scorecard.md, scorecard.json and scorecard.png in the directory `out`."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        md, js = out / "scorecard.md", out / "scorecard.json"
        md.write_text(self.markdown())
        js.write_text(json.dumps(self.as_dict(), indent=1, allow_nan=True) + "\n")
        return [md, js, self.plot(out / "scorecard.png")]
