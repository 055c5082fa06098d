"""What a training run of either backend (MaskablePPO here, RLlib in `training.rllib`)
starts and ends with: its directory checked and its config written, the resume check, and
the targets its final evaluation is held to."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from card_envs.training.config import RUN_OPPONENT, TrainConfig, TrainConfigError

FINAL_EVAL_SEED_OFFSET = 2_000_003  # final games differ from the periodic ones


def targets(config: TrainConfig, rows: list[dict], baseline: float | None) -> list[dict]:
    """The issue's targets checked against the final evaluation rows."""
    out = []
    for r in rows:
        n = r["num_players"]
        where = f"{r['setting']}: " if r["setting"] else ""
        if n == 1:  # a one-seat game: a score at least as good as the agent's on the same deals
            ok = r["mean_reward"] >= r["opponent_reward"]
            what = f"mean reward >= {r['opponent']}'s {r['opponent_reward']:.3f}"
            out.append({"target": what, "met": bool(ok)})
        elif r["opponent"] == "random":
            need = 0.9 if n == 2 else 2 / n
            ok = r["win_rate"] >= need
            what = f"{where}vs random: win rate >= {need:.3f}"
            out.append({"target": what, "met": bool(ok)})
        elif r["opponent"] == "heuristic":
            ok = r["ci_low"] > 1 / n
            what = f"{where}vs heuristic: 95% CI above {1 / n:.3f}"
            out.append({"target": what, "met": bool(ok)})
        elif r["opponent"] == RUN_OPPONENT and baseline is not None:
            ok = r["win_rate"] > baseline
            what = f"{where}games won per run > the heuristic's {baseline:.3f}"
            out.append({"target": what, "met": ok})
    return out


def _check_out(paths, resume: bool, restart: bool) -> None:
    has_run = paths.checkpoint_state.exists() or paths.progress.exists()
    if restart and paths.out.exists():
        shutil.rmtree(paths.out)
    elif resume and not paths.checkpoint_state.exists():
        raise TrainConfigError(f"--resume: no checkpoint in {paths.out}/checkpoints to resume")
    elif has_run and not resume:
        raise TrainConfigError(
            f"{paths.out} already holds a training run: pass --resume to continue it from its "
            "last checkpoint, --restart to discard it, or --out for another directory"
        )
    paths.out.mkdir(parents=True, exist_ok=True)


def check_resumable(config: TrainConfig, fingerprint: str) -> None:
    """Refuse to resume a run whose checkpoint was trained with another config."""
    if fingerprint != config.fingerprint():
        raise TrainConfigError(
            f"--resume: the config differs from the one {config.out} was trained with "
            f"(see {config.out}/config.json); use --restart or another --out"
        )


def start_run(config: TrainConfig, resume: bool, restart: bool):
    """The run's `Paths`, its directory checked (`_check_out`) and its config written; torch
    set to the config's threads. Both backends start here."""
    import torch

    from card_envs.training.monitor import Paths

    torch.set_num_threads(config.torch_threads)
    paths = Paths(Path(config.out))
    _check_out(paths, resume, restart)
    (paths.out / "config.json").write_text(json.dumps(config.as_dict(), indent=2))
    return paths
