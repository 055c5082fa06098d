"""Ship a finished training run into the package: `card_envs/models/<env_id>.zip`, where the
agent spec `ppo` finds it (an expert-iteration run: `<env_id>.exit.zip`, the agent `exit`),
with a JSON note of its config and final numbers next to it.

The shipped file is for playing: the optimizer's running moments (twice the size of the
weights) are replaced by a fresh optimizer, and the last rollout's observations that SB3
keeps in `data` (`_last_obs`: num_envs x observation size floats, as large as the weights
at 256 Super Zwierzaki games) are left out, which keeps models small. To train further,
resume from the run's checkpoint instead.

    python -m card_envs.training.ship runs/training/no_thanks
    card-envs train --config configs/training/no_thanks.yaml --ship   # train, then ship

Shipping is a maintainer's act: a network already in the package is frozen by the standard
benchmark (bench-v1 names its digest) and by the main tournament's store (an entrant's
digest may not change), so replacing one needs `force`. A network of your own needs no
shipping: every harness plays it as `ppo:runs/training/<name>/model.zip`.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from card_envs.agents.ppo import model_file

MODELS = Path(__file__).resolve().parent.parent / "models"
# rollout state SB3 saves by default; a model loaded to play never reads it
ROLLOUT_STATE = ("_last_obs", "_last_episode_starts", "_last_original_obs", "ep_info_buffer",
                 "ep_success_buffer")  # fmt: skip
NOTE_KEYS = ("name", "env", "config", "timesteps", "training_minutes", "command_minutes")


class ShipError(ValueError):
    """Shipping would replace a network that the benchmark and the tournaments freeze."""


def check_overwrite(run: Path, target: Path, force: bool) -> None:
    """Refuse to replace the shipped `target` unless `force` (see the module docstring)."""
    if target.exists() and not force:
        raise ShipError(
            f"{target} is a shipped network, frozen by bench-v1 and the main tournament "
            f"(they name its digest): replacing it needs --force, a maintainer's act. To use "
            f"your own model, name it as an agent: ppo:{run / 'model.zip'}"
        )


def ship(run: Path, models: Path = MODELS, force: bool = False) -> Path:
    """Copy `run`/model.zip to `models`/<env_id>.zip and write <env_id>.json beside it; an
    existing network there is replaced only with `force` (`check_overwrite`)."""
    results_file = run / "results.json"
    if not results_file.is_file() or not (run / "model.zip").is_file():
        raise FileNotFoundError(f"{run} is not a finished training run (no results.json)")
    results = json.loads(results_file.read_text())
    models.mkdir(parents=True, exist_ok=True)
    target = models / model_file(results["env"], results.get("agent", "ppo"))
    check_overwrite(run, target, force)
    _save_for_play(run / "model.zip", target)
    note = {k: results[k] for k in NOTE_KEYS}
    note["mix"] = results.get("mix", {})  # the settings trained on besides `config`
    note["final_evaluation"] = [
        {k: None if v != v else v for k, v in row.items()}  # NaN (not JSON) -> null
        for row in results["final_evaluation"]
    ]
    note["run_baselines"] = results.get("run_baselines", {})
    if results.get("agent") == "exit":  # its training curve: the win rate after each round
        note["rounds"] = results["rounds"]
        note["start"] = results.get("start")  # the network the first round searched with
        note["curve"] = heuristic_curve(run / "evaluations.csv")
    target.with_suffix(".json").write_text(json.dumps(note, indent=2) + "\n")
    return target


def heuristic_curve(evaluations: Path) -> list[dict]:
    """The periodic evaluations against the heuristic of an expert-iteration run, per round."""
    with evaluations.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "periodic"]
    keys = ("win_rate", "ci_low", "ci_high", "minutes")
    return [
        {"round": int(r["round"]), **{k: float(r[k]) for k in keys}}
        for r in rows
        if r["opponent"] == "heuristic"
    ]


def _save_for_play(source: Path, target: Path) -> None:
    """`source` (our own run's model) saved again with an empty optimizer state and without
    its rollout state."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(source, device="cpu")
    policy = model.policy
    policy.optimizer = policy.optimizer_class(
        policy.parameters(), lr=model.lr_schedule(1), **policy.optimizer_kwargs
    )
    model.save(target, exclude=list(ROLLOUT_STATE))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m card_envs.training.ship")
    parser.add_argument("run", type=Path, help="a finished training run's folder")
    parser.add_argument("--force", action="store_true", help="replace a shipped network")
    args = parser.parse_args()
    try:
        print(f"shipped {ship(args.run, force=args.force)}")
    except (ShipError, FileNotFoundError) as err:
        raise SystemExit(str(err)) from None
