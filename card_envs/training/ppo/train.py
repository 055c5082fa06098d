"""The MaskablePPO baseline (sb3-contrib) from a YAML config: `card-envs train --config C`.

The learner plays one rotating seat of `num_envs` games stepped together by the batched
engine (`SingleAgentVecEnv`); the other seats draw their agent per game from the pool
(scripted agents and frozen snapshots of the learner). Output in the config's `out`:
`model.zip` (with `evaluation.keep_best`: the best periodic network; the last one is
`last_model.zip`), `results.json` (final evaluation, targets, throughput, where the time went),
`evaluations.csv`, `training.csv`, `tensorboard/`, `learning_curve.png`, `checkpoints/`, and
with `video_episodes` that many games of the trained agent in `videos/`.
`--resume` continues from the last checkpoint; `--ship` copies the model into the package
(`card_envs/models/<env_id>.zip`), where the agent spec `ppo` finds it.
"""

from __future__ import annotations

import json
import time
from typing import Any

from card_envs.training.config import TrainConfig
from card_envs.training.run import (
    budget_words,
    finish,
    results_head,
    save_final,
    start_model,
    start_run,
    training_env,
)


def train(
    config: TrainConfig, resume: bool = False, restart: bool = False, echo=print, stop_when=None
) -> dict[str, Any]:
    """Train, evaluate and save as the module doc says; returns results.json's content.
    `stop_when(rows)`, told each periodic evaluation's rows, ends the run when True."""
    from stable_baselines3.common.logger import configure

    from card_envs.training.monitor import (
        EVAL_COLUMNS,
        Monitor,
        resume_at,
    )
    from card_envs.training.opponents import OpponentPool
    from card_envs.training.video import require_moviepy

    require_moviepy(config)
    t_start = time.perf_counter()
    paths = start_run(config, resume, restart)

    pool = OpponentPool(config)
    venv = training_env(config, pool)
    model, state, imitation, elapsed = start_model(config, venv, paths, resume, echo)
    if resume:
        pool.load(paths.checkpoint_pool, model.policy)
        done = model.num_timesteps
        resume_at(paths, done)
        elapsed = state["minutes"] * 60
        echo(f"resuming {config.name} at {done:,} steps ({state['minutes']:.1f} min)")
    elif config.uses_self_play:
        pool.add_snapshot(model.policy)  # the starting policy until the first refresh
    if config.num_players > 1:
        pool.install(venv)
    model.set_logger(configure(str(paths.tensorboard), ["tensorboard"]))
    monitor = Monitor(config, paths, pool, elapsed=elapsed, echo=echo, stop_when=stop_when)
    remaining = config.total_timesteps - model.num_timesteps
    start_steps = model.num_timesteps
    t0 = time.perf_counter()
    if remaining > 0:
        budget = budget_words(config, remaining)
        drawn = dict(config.pool)
        echo(f"training {config.name}: {config.env} {config.config}, {budget}, pool {drawn}")
        model.learn(remaining, callback=monitor, reset_num_timesteps=False)
    session = time.perf_counter() - t0
    minutes = elapsed / 60 + session / 60
    if remaining > 0:
        monitor.save_checkpoint()
    best = save_final(config, paths, model)

    steps = model.num_timesteps - start_steps
    split = monitor.time_split() if remaining > 0 else {}
    results = results_head(config, "ppo") | {
        "timesteps": model.num_timesteps,
        "training_minutes": round(minutes, 2),
        "stopped_by_time_limit": monitor.stopped_by_time,
        "stopped_by_evaluation": monitor.stopped_by_evaluation,
        "session_steps_per_s": round(steps / session, 1) if steps else None,
        "training_steps_per_s": round(steps / max(session - split.get("eval_s", 0.0), 1e-9), 1)
        if steps
        else None,  # fmt: skip
        "time_split_s": {k: round(v, 1) for k, v in split.items()},
        "imitation": imitation,
        "best": best,
    }
    results |= finish(config, paths, model.policy, {"timesteps": model.num_timesteps,
                      "minutes": round(minutes, 3)}, EVAL_COLUMNS, echo=echo)  # fmt: skip
    results["command_minutes"] = round((time.perf_counter() - t_start) / 60, 2)
    paths.results.write_text(json.dumps(results, indent=2, default=float))
    venv.close()
    return results
