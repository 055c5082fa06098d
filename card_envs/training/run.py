"""What a training run of every way of training (`training.ppo`, `training.selfplay`,
`training.exit`, `training.rllib`) starts and ends with: its directory checked and its
config written, the resume check, the MaskablePPO network the first three train, the final
evaluation and the targets it is held to."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from card_envs.evaluation import evaluate_episodes
from card_envs.registry import make_game, run_env_id
from card_envs.training.config import RUN_OPPONENT, TrainConfig, TrainConfigError
from card_envs.training.curves import plot_learning_curve

FINAL_EVAL_SEED_OFFSET = 2_000_003  # final games differ from the periodic ones
RUN_BASELINES = ("computer", "heuristic")  # play the run env's runs too; the target: heuristic


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


def budget_words(config: TrainConfig, remaining: int) -> str:
    """How long a run goes on, in words: its learner steps, its time limit, or both."""
    from card_envs.training.config import UNBOUNDED

    budget = f"{remaining:,} learner steps"
    if config.time_limit_minutes is None:
        return budget
    if config.total_timesteps >= UNBOUNDED:
        return f"{config.time_limit_minutes:g} min"
    return f"{budget} or {config.time_limit_minutes:g} min, whichever comes first"


def results_head(config: TrainConfig, agent: str) -> dict[str, Any]:
    """The first keys of every way's results.json: the run, its game and its agent spec."""
    return {
        "command_minutes": None,  # set at the end: the whole call, start-up and evaluations
        "agent": agent,
        "name": config.name,
        "env": config.env,
        "config": config.config,
        "mix": dict(config.mix),
        "device": torch_device(config),
    }


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


def torch_device(config: TrainConfig) -> str:
    """The torch device the network trains on: `config.device`, with `auto` the first GPU
    when torch sees one. A GPU that torch does not see is refused, naming what it has."""
    import torch

    if config.device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if config.device.startswith("cuda"):
        index = int(config.device.partition(":")[2] or 0)
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if index >= count:
            build = f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU only"
            raise TrainConfigError(
                f"device={config.device!r}: torch {torch.__version__} ({build}) sees "
                f"{count} GPU(s); use device: cpu, or auto (a GPU when there is one)"
            )
    return config.device


def start_run(config: TrainConfig, resume: bool, restart: bool):
    """The run's `Paths`, its directory checked (`_check_out`) and its config written; torch
    set to the config's threads and its device checked. Every backend starts here."""
    import torch

    from card_envs.training.monitor import Paths

    torch.set_num_threads(config.torch_threads)
    torch_device(config)
    paths = Paths(Path(config.out))
    _check_out(paths, resume, restart)
    (paths.out / "config.json").write_text(json.dumps(config.as_dict(), indent=2))
    return paths


def training_env(config: TrainConfig, pool):
    """The learner's VecEnv: `config.num_envs` games of `config.config`, or with a mix an
    equal share for every setting with padded observations. Opponents come from `pool`
    (a placeholder in pure self-play until the first snapshot is installed)."""
    from card_envs.wrappers import MixedVecEnv, SingleAgentVecEnv

    parts = []
    settings = config.settings
    for part, setting in enumerate(settings):
        agents, weights = pool.agents_and_weights(part)
        if config.num_players == 1:  # a one-seat game: nobody to draw
            weights = None
        elif not agents:
            agents, weights = ["random"], [1.0]
        parts.append(SingleAgentVecEnv(
            config.env, config.num_envs // len(settings), opponents=agents, seat="rotate",
            seed=config.seed + 7_919 * part, pool_weights=weights, pad=config.padded,
            num_threads=config.num_threads, **setting,
        ))  # fmt: skip
    return MixedVecEnv(parts) if config.padded else parts[0]


def start_model(config: TrainConfig, venv, paths, resume: bool, echo=print):
    """The run's MaskablePPO model, loaded from its checkpoint (refused if the config
    changed) or new, warm-started by imitation when the config asks. Returns the model, the
    checkpoint's state (None when new), the imitation's report and its seconds."""
    from sb3_contrib import MaskablePPO

    if resume:
        state = json.loads(paths.checkpoint_state.read_text())
        check_resumable(config, state["fingerprint"])
        model = MaskablePPO.load(paths.checkpoint, env=venv, device=torch_device(config))
        return model, state, None, 0.0
    model = MaskablePPO(
        "MlpPolicy", venv, seed=config.seed, device=torch_device(config), verbose=0,
        **config.ppo.kwargs(),
    )  # fmt: skip
    if config.imitation is None:
        return model, None, None, 0.0
    from card_envs.training.imitation import imitate_policy

    t_imitation = time.perf_counter()
    imitation = imitate_policy(model, config, config.imitation, echo=echo)
    return model, None, imitation, time.perf_counter() - t_imitation


def save_final(config: TrainConfig, paths, model) -> dict | None:
    """model.zip: the run's last network, or with `evaluation.keep_best` its best one (loaded
    into `model`, so that the final evaluation plays it; the last saved as last_model.zip).
    Returns the best one's note (None without keep_best)."""
    import torch

    if config.keep_best is None or not paths.best_note.exists():
        model.save(paths.model)
        return None
    model.save(paths.last_model)
    model.policy.load_state_dict(torch.load(paths.best, weights_only=True))
    model.save(paths.model)
    return json.loads(paths.best_note.read_text())


def finish(
    config: TrainConfig, paths, policy, when: dict, columns: list[str], curve=None, echo=print
) -> dict[str, Any]:
    """What every finished run reports (results.json's part shared by PPO and expert
    iteration): the final evaluation in every setting (its rows logged with `when`), the
    run env's baselines, the videos and the targets; and the learning curve drawn."""
    from card_envs.training.monitor import append_rows, evaluate_policy, policy_learner
    from card_envs.training.video import record_videos

    echo(f"final evaluation: {config.final_eval_games} games per opponent")
    rows = evaluate_policy(
        config, policy, config.final_eval_games,
        config.seed + FINAL_EVAL_SEED_OFFSET, workers=config.eval_workers, every_setting=True,
    )  # fmt: skip
    for row in rows:
        row.update(when, kind="final")
    append_rows(paths.evaluations, columns, rows)
    run_baselines = {}  # games won per run by each baseline agent on the same runs
    for spec in RUN_BASELINES if config.eval_runs else ():
        ep = evaluate_episodes(
            run_env_id(config.env),
            spec,
            config.eval_runs,
            seed=config.seed + FINAL_EVAL_SEED_OFFSET,
        )
        run_baselines[spec] = {
            "mean": ep.mean_return, "ci_low": ep.mean_return_ci[0], "ci_high": ep.mean_return_ci[1]
        }  # fmt: skip
    baseline = run_baselines["heuristic"]["mean"] if run_baselines else None
    videos = (
        record_videos(config, policy_learner(policy), paths.videos) if config.video_episodes else []
    )
    defaults = make_game(config.env).config
    changed = {k: v for k, v in config.config.items() if v != defaults.get(k)}
    plot_learning_curve(
        paths.evaluations, paths.progress, paths.curve,
        f"{config.name}: {config.env} {changed}", baseline, curve,
    )  # fmt: skip
    return {
        "final_evaluation": rows,
        "run_baselines": run_baselines,
        "targets": targets(config, rows, baseline),
        "videos": [str(v.relative_to(paths.out)) for v in videos],
    }
