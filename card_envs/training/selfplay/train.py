"""All-seat self-play PPO: `card-envs train --config C` where C has a `selfplay:` section.

Every seat of every game is the one network being trained, so every decision of the game
is a sample (in the one-seat PPO path, 3 of 4 at four players are played by opponents
inside the env and lost). A rollout steps all `num_envs` games (a mix: an equal share per
setting, observations padded) `ppo.n_steps` times, one forward pass for every game's seat
to act; each seat's decisions form a chain credited and advanced by GAE over that seat's
own decisions (`selfplay.rollout`: rewards on other seats' steps, game ends, cut-off games
bootstrapped from the seat's final observation, open decisions carried to the next
rollout). Then `ppo.n_epochs` passes of clipped PPO in minibatches of about
`ppo.batch_size` (`selfplay.update`). With `selfplay.opponent_seats` some seats are the
pool's (`opponents.pool`: scripted agents, and `self`: frozen snapshots taken every
`opponents.snapshot_every` steps), and their decisions are no samples.

A learner step here is a decision that entered an update. The outputs are the PPO path's:
`model.zip` (a MaskablePPO file, so `ppo:<out>/model.zip` plays it in every harness),
`results.json`, `evaluations.csv`, `training.csv`, `tensorboard/`, `learning_curve.png`,
`checkpoints/`, a progress bar on a terminal; `--resume` goes on from the last checkpoint
(the games in play then are not saved: the resumed run deals new ones).
"""

from __future__ import annotations

import json
import time
import warnings
from collections import deque
from dataclasses import replace
from typing import Any

import numpy as np
import torch

from card_envs.evaluation.pool import progress_bar
from card_envs.training.config import UNBOUNDED, TrainConfig
from card_envs.training.monitor import (
    EVAL_COLUMNS,
    TRAIN_COLUMNS,
    Paths,
    append_rows,
    periodic_evaluation,
    resume_at,
)
from card_envs.training.opponents import OpponentPool
from card_envs.training.run import (
    budget_words,
    finish,
    results_head,
    save_final,
    start_model,
    start_run,
    training_env,
)
from card_envs.training.selfplay.rollout import Samples
from card_envs.training.selfplay.table import Table
from card_envs.training.selfplay.update import act, fast_tanh, update, values_of

RESUME_SEED = 1_000_033  # a resumed run deals other games than the first session
UPDATE_KEYS = ("approx_kl", "entropy_loss", "value_loss", "clip_fraction", "explained_variance")


class SelfPlay:
    """The games of every setting, and the rollouts the network plays in them."""

    def __init__(self, config: TrainConfig, policy, pool: OpponentPool, rollouts: int) -> None:
        settings = config.settings
        seed = config.seed + RESUME_SEED * rollouts
        self.config = config
        self.policy = policy
        self.pool = pool
        self.tables = [
            Table(config, setting, config.num_envs // len(settings), seed + 7_919 * part)
            for part, setting in enumerate(settings)
        ]
        self.generator = torch.Generator().manual_seed(seed)
        self.install_pool()
        for table in self.tables:
            table.reset()
        self.act_seconds = 0.0
        self.episodes: deque[tuple[int, float]] = deque(maxlen=1000)
        self.games = 0

    def install_pool(self) -> None:
        """The pool seats draw from the pool's agents as they are now (new snapshots)."""
        if self.config.selfplay.opponent_seats > 0:
            for part, table in enumerate(self.tables):
                table.set_pool(*self.pool.agents_and_weights(part))

    def _value_of(self, observations: np.ndarray) -> np.ndarray:
        masks = np.ones((len(observations), self.tables[0].venv.num_actions), dtype=bool)
        return values_of(self.policy, observations, masks)

    def collect(self) -> Samples:
        """One rollout: `ppo.n_steps` steps of every game; its closed decisions."""
        for _ in range(self.config.ppo.n_steps):
            t0 = time.perf_counter()
            picks = [(t, *t.to_decide()) for t in self.tables]
            obs = np.concatenate([t.observe(t.venv.observations[rows]) for t, rows, _ in picks])
            masks = np.concatenate([t.venv.action_masks[rows] != 0 for t, rows, _ in picks])
            actions, log_p, values = act(self.policy, obs, masks, self.generator)
            self.act_seconds += time.perf_counter() - t0
            k = 0
            for table, rows, seats in picks:
                part = slice(k, k + len(rows))
                k += len(rows)
                table.rollout.add(rows, seats, obs[part], masks[part], actions[part],
                                  log_p[part], values[part])  # fmt: skip
                chosen = np.empty(table.venv.num_envs, dtype=np.int64)
                chosen[rows] = actions[part]
                table.pool_actions(chosen)
                table.step(chosen, self._value_of)
        ppo = self.config.ppo
        for table in self.tables:
            self.games += len(table.finished)
            self.episodes.extend(table.finished)
            table.finished.clear()
        closed = [t.rollout.finish(ppo.gamma, ppo.gae_lambda) for t in self.tables]
        return Samples.concatenate(closed)

    def seconds(self) -> dict[str, float]:
        """Wall seconds of the engine, the pool agents, and the network's forward passes."""
        return {
            "engine_s": sum(t.seconds["engine"] for t in self.tables),
            "opponents_s": sum(t.seconds["opponents"] for t in self.tables),
            "learner_act_s": self.act_seconds,
        }


def train_selfplay(
    config: TrainConfig, resume: bool = False, restart: bool = False, echo=print, stop_when=None
) -> dict[str, Any]:
    """Train, evaluate and save as the module doc says; returns results.json's content.
    `stop_when(rows)`, told each periodic evaluation's rows, ends the run when True."""
    from stable_baselines3.common.logger import configure

    from card_envs.training.video import require_moviepy

    require_moviepy(config)  # before training, as the other ways do: not after the hour
    t_start = time.perf_counter()
    paths = start_run(config, resume, restart)
    pool = OpponentPool(config)
    spaces = training_env(replace(config, num_envs=len(config.settings)), pool)
    with warnings.catch_warnings():  # SB3 checks its own rollout size, which is not used
        warnings.simplefilter("ignore")
        model, state, imitation, elapsed = start_model(config, spaces, paths, resume, echo)
    spaces.close()
    policy = model.policy
    fast_tanh(policy)
    policy.set_training_mode(False)
    done = rollouts = 0
    if resume:
        pool.load(paths.checkpoint_pool, policy)
        done, rollouts, elapsed = state["timesteps"], state["rollouts"], state["minutes"] * 60
        resume_at(paths, done)
        echo(f"resuming {config.name} at {done:,} steps ({state['minutes']:.1f} min)")
    elif config.uses_self_play and config.selfplay.opponent_seats > 0:
        pool.add_snapshot(policy)  # the starting policy until the first snapshot is due
    run = SelfPlay(config, policy, pool, rollouts)
    logger = configure(str(paths.tensorboard), ["tensorboard"])
    t0 = time.perf_counter()
    split = {"update_s": 0.0, "eval_s": 0.0}

    def minutes() -> float:
        return (elapsed + time.perf_counter() - t0) / 60

    def evaluate() -> bool:
        """A periodic evaluation; whether `stop_when` ends the run after it."""
        t = time.perf_counter()
        rows = periodic_evaluation(
            config, policy, paths, EVAL_COLUMNS, logger, echo,
            f"{minutes():5.1f} min, {done:,} steps", timesteps=done, minutes=round(minutes(), 3),
        )  # fmt: skip
        logger.dump(done)
        split["eval_s"] += time.perf_counter() - t
        return stop_when is not None and stop_when(rows)

    def checkpoint() -> None:
        t = time.perf_counter()
        paths.checkpoint.parent.mkdir(parents=True, exist_ok=True)
        model.num_timesteps = done
        model.save(paths.checkpoint)
        pool.save(paths.checkpoint_pool)
        state = {"timesteps": done, "rollouts": rollouts, "minutes": minutes(),
                 "fingerprint": config.fingerprint()}  # fmt: skip
        paths.checkpoint_state.write_text(json.dumps(state, indent=2))
        split["eval_s"] += time.perf_counter() - t

    stopped = by_evaluation = False
    if done == 0:
        by_evaluation = evaluate()  # the untrained network: where the curve starts
    echo(_opening(config, done))
    start_steps, prev = done, (done, time.perf_counter(), run.seconds() | split)
    total = None if config.total_timesteps >= UNBOUNDED else config.total_timesteps
    with progress_bar(total, config.name, None, unit="step") as bar:
        bar.update(done)
        while done < config.total_timesteps and not by_evaluation:
            if config.time_limit_minutes is not None and minutes() >= config.time_limit_minutes:
                stopped = True
                break
            samples = run.collect()
            t = time.perf_counter()
            losses = update(policy, samples, config.ppo, run.generator)
            split["update_s"] += time.perf_counter() - t
            before, done, rollouts = done, done + len(samples), rollouts + 1
            bar.update(len(samples))
            if _due(config.snapshot_every, before, done) and config.uses_self_play:
                pool.add_snapshot(policy)
                run.install_pool()
            if _due(config.eval_every, before, done):
                by_evaluation = evaluate()
            if _due(config.checkpoint_every, before, done):
                checkpoint()
            prev = _log(paths, logger, run, split, losses, done, minutes(), prev)
    session = time.perf_counter() - t0
    if done > start_steps:
        checkpoint()
    model.num_timesteps = done
    best = save_final(config, paths, model)
    steps = done - start_steps
    seconds = run.seconds() | split
    results = results_head(config, "selfplay") | {
        "timesteps": done,
        "training_minutes": round(minutes(), 2),
        "stopped_by_time_limit": stopped,
        "stopped_by_evaluation": by_evaluation,
        "session_steps_per_s": round(steps / session, 1) if steps else None,
        "training_steps_per_s": round(steps / max(session - split["eval_s"], 1e-9), 1)
        if steps
        else None,  # fmt: skip
        "time_split_s": {k: round(v, 1) for k, v in seconds.items()},
        "games": run.games,
        "imitation": imitation,
        "best": best,
    }
    when = {"timesteps": done, "minutes": round(minutes(), 3)}
    results |= finish(config, paths, policy, when, EVAL_COLUMNS, echo=echo)
    results["command_minutes"] = round((time.perf_counter() - t_start) / 60, 2)
    paths.results.write_text(json.dumps(results, indent=2, default=float))
    return results


def _opening(config: TrainConfig, done: int) -> str:
    budget = budget_words(config, config.total_timesteps - done)
    seats = config.selfplay.opponent_seats
    pool = f", {seats:.0%} of the seats from the pool {dict(config.pool)}" if seats else ""
    return f"all-seat self-play {config.name}: {config.env} {config.config}, {budget}{pool}"


def _due(every: int, before: int, now: int) -> bool:
    return now // every > before // every


def _log(paths: Paths, logger, run: SelfPlay, split: dict, losses: dict, done: int,
         minutes: float, prev: tuple) -> tuple:  # fmt: skip
    """One training.csv row (and TensorBoard's numbers) for the rollout just trained;
    returns what the next row counts from."""
    now = time.perf_counter()
    steps, then, seconds = prev
    current = run.seconds() | split
    lengths = [n for n, _ in run.episodes]
    shares = [w for _, w in run.episodes if w == w]  # games with a pool seat
    row = {
        "timesteps": done,
        "minutes": round(minutes, 3),
        "steps_per_s": round((done - steps) / max(now - then, 1e-9), 1),
        "train_win_rate": float(np.mean(shares)) if shares else np.nan,
        "episodes": run.games,
        "ep_len_mean": float(np.mean(lengths)) if lengths else np.nan,
        **{k: losses[k] for k in UPDATE_KEYS},
        **{k: round(v - seconds.get(k, 0.0), 3) for k, v in current.items()},
    }
    for key in UPDATE_KEYS:
        logger.record(f"train/{key}", losses[key])
    for key in ("train_win_rate", "steps_per_s", "ep_len_mean"):
        logger.record(f"card_envs/{key}", row[key])
    logger.dump(done)
    append_rows(paths.progress, TRAIN_COLUMNS, [row])
    return done, now, current
