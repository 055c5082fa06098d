"""What happens around the PPO updates: self-play snapshots, periodic evaluation,
checkpoints, the time limit, and the CSV logs (TensorBoard gets the same numbers)."""

from __future__ import annotations

import csv
import json
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback

from card_envs.agents.ppo import PolicyAgent, frozen_copy
from card_envs.core.padding import Padding
from card_envs.evaluation import evaluate, evaluate_episodes
from card_envs.evaluation.stats import wilson_interval
from card_envs.registry import make_game, run_env_id
from card_envs.training.config import RUN_OPPONENT, TrainConfig, seat_multiple
from card_envs.training.opponents import OpponentPool

EVAL_COLUMNS = [
    "timesteps", "minutes", "kind", "setting", "num_players", "opponent", "games", "win_rate",
    "ci_low", "ci_high", "fair_share", "mean_reward", "opponent_reward",
]  # fmt: skip
TRAIN_COLUMNS = [
    "timesteps", "minutes", "steps_per_s", "train_win_rate", "episodes", "ep_len_mean",
    "approx_kl", "entropy_loss", "value_loss", "clip_fraction", "explained_variance",
    "engine_s", "opponents_s", "learner_act_s", "update_s", "eval_s",
]  # fmt: skip
PERIODIC_SEED_OFFSET = 1_000_003  # every periodic evaluation deals the same games
SB3_KEYS = ("approx_kl", "entropy_loss", "value_loss", "clip_fraction", "explained_variance")


class Paths:
    """The files of a training run, all under its `out` directory."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.model = out / "model.zip"
        self.checkpoint = out / "checkpoints" / "latest.zip"
        self.checkpoint_pool = out / "checkpoints" / "latest_pool.pt"
        self.checkpoint_state = out / "checkpoints" / "latest.json"
        self.best = out / "checkpoints" / "best_policy.pt"  # evaluation.keep_best's pick
        self.best_note = out / "checkpoints" / "best.json"
        self.last_model = out / "last_model.zip"
        self.evaluations = out / "evaluations.csv"
        self.progress = out / "training.csv"
        self.results = out / "results.json"
        self.curve = out / "learning_curve.png"
        self.tensorboard = out / "tensorboard"
        self.videos = out / "videos"


def append_rows(path: Path, columns: list[str], rows: list[dict]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        if new:
            writer.writeheader()
        writer.writerows(rows)


def resume_at(paths: Paths, timesteps: int) -> None:
    """Drop what a resumed run does again: the CSV rows after its checkpoint at `timesteps`,
    and an `evaluation.keep_best` network from after it."""
    keep_rows_until(paths.evaluations, timesteps)
    keep_rows_until(paths.progress, timesteps)
    if paths.best_note.exists():
        if json.loads(paths.best_note.read_text())["timesteps"] > timesteps:
            paths.best_note.unlink()
            paths.best.unlink(missing_ok=True)


def keep_rows_until(path: Path, timesteps: int) -> None:
    """Drop CSV rows logged after `timesteps` (a resumed run logs them again) and final
    evaluations (the resumed run ends with its own)."""
    if not path.exists():
        return
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        columns = reader.fieldnames or []
        rows = [r for r in reader if int(r["timesteps"]) <= timesteps and r.get("kind") != "final"]
    path.unlink()
    append_rows(path, columns, rows)


def evaluate_policy(
    config: TrainConfig, policy, games: int, seed: int, workers: int, every_setting: bool = False
) -> list[dict]:
    """The learner (argmax of its masked policy) against each `config.eval_against` agent
    filling every other seat, seat-balanced, plus run-env episodes if configured; in
    `config.config`, or with `every_setting` in each of `config.settings` (a mix's)."""
    return evaluate_learner(config, policy_learner(policy), games, seed, workers, every_setting)


def policy_learner(policy) -> Callable[[Padding | None], PolicyAgent]:
    """`make_learner` of a MaskablePPO policy: a frozen copy played by its argmax."""
    frozen = frozen_copy(policy)
    return lambda padding: PolicyAgent(frozen, deterministic=True, padding=padding)


def evaluate_learner(
    config: TrainConfig, make_learner, games: int, seed: int, workers: int, every_setting=False
) -> list[dict]:
    """`evaluate_policy` for any learner: `make_learner(padding)` gives the agent that plays
    a setting (its observations padded by `padding`, or its own with None)."""
    rows = []
    for setting in config.settings if every_setting else [config.config]:
        game = make_game(config.env, **setting)
        padding = Padding(game) if config.padded else None
        learner = make_learner(padding)
        learner.name = learner.spec = "learner"
        n = game.num_players
        if n == 1:
            found = _compare_alone(config, setting, learner, games, seed, workers)
        else:
            found = _against(config, setting, learner, seat_multiple(games, n), seed, workers)
        for row in found:
            row.update(setting=config.setting_name(setting), num_players=n)
        rows += found
    if config.eval_runs:  # the run env plays every stage: once, whatever the settings
        runs = evaluate_episodes(run_env_id(config.env), learner, config.eval_runs, seed=seed)
        row = _row(RUN_OPPONENT, runs.episodes, runs.mean_return, runs.mean_return_ci, None)
        rows.append(row | {"setting": "", "num_players": config.num_players})
    return rows


def _row(opponent: str, games: int, rate: float, ci, fair_share, mean_reward=None) -> dict:
    """An evaluation row: the learner's rate against `opponent` with its 95% interval (for
    the run env: games won per run), and its mean reward (the rate where none is given)."""
    return {
        "opponent": opponent, "games": games, "win_rate": rate, "ci_low": ci[0],
        "ci_high": ci[1], "fair_share": fair_share,
        "mean_reward": rate if mean_reward is None else mean_reward,
    }  # fmt: skip


def _against(
    config: TrainConfig, setting: dict, learner, games: int, seed: int, workers: int
) -> list[dict]:
    n = setting["num_players"]
    rows = []
    for spec in config.eval_against:
        ev = evaluate(
            config.env, [learner] + [spec] * (n - 1), games=games, seed=seed,
            workers=workers, progress=False, **setting,
        )  # fmt: skip
        s = ev[0]
        rows.append(_row(spec, s.games, s.win_rate, s.win_rate_ci, 1 / n, s.mean_reward))
    return rows


def _compare_alone(
    config: TrainConfig, setting: dict, learner, games: int, seed: int, workers: int
) -> list[dict]:
    """A one-seat game: the learner and each `eval_against` agent play the same deals alone
    in `setting`.
    `win_rate` is the share of deals where the learner scores better (a tie counts one half;
    fair share 1/2) with its Wilson interval; `mean_reward` is the learner's mean,
    `opponent_reward` the agent's."""

    def rewards(agent) -> np.ndarray:
        ev = evaluate(
            config.env, [agent], games=games, seed=seed, workers=workers, progress=False,
            **setting,
        )  # fmt: skip
        return ev.results.rewards[:, 0]

    mine = rewards(learner)
    rows = []
    for spec in config.eval_against:
        theirs = rewards(spec)
        p = float(np.mean((mine > theirs) + 0.5 * (mine == theirs)))
        ci = wilson_interval(p, len(mine))
        row = _row(spec, len(mine), p, ci, 0.5, float(mine.mean()))
        rows.append(row | {"opponent_reward": float(theirs.mean())})
    return rows


def keep_best(config: TrainConfig, paths, rows: list[dict], policy) -> None:
    """With `evaluation.keep_best`: keep the policy's weights when this periodic evaluation's
    win rate against that opponent is the best of the run so far (`paths.best_note` says
    which evaluation)."""
    if config.keep_best is None:
        return
    row = next(r for r in rows if r["opponent"] == config.keep_best)
    if paths.best_note.exists():
        if json.loads(paths.best_note.read_text())["win_rate"] >= row["win_rate"]:
            return
    paths.best.parent.mkdir(parents=True, exist_ok=True)
    torch.save(policy.state_dict(), paths.best)
    note = {k: row[k] for k in ("timesteps", "minutes", "opponent", "win_rate", "ci_low",
                                "ci_high")}  # fmt: skip
    paths.best_note.write_text(json.dumps(note, indent=2))


def periodic_evaluation(
    config: TrainConfig,
    policy,
    paths: Paths,
    columns: list[str],
    logger,
    echo,
    when: str,
    **fields,
) -> list[dict]:
    """A periodic evaluation (`config.eval_games`, the same deals every time) logged in
    evaluations.csv with `fields` (when it was), the SB3 `logger` (TensorBoard) and one
    echoed line; with `evaluation.keep_best`, the policy's weights kept if it did best."""
    t = time.perf_counter()
    seed = PERIODIC_SEED_OFFSET + config.seed
    rows = evaluate_policy(config, policy, config.eval_games, seed, config.eval_workers)
    for row in rows:
        row.update(fields, kind="periodic")
        run = row["opponent"] == RUN_OPPONENT
        logger.record(
            "eval/games_won_per_run" if run else f"eval/win_rate_vs_{row['opponent']}",
            row["win_rate"],
        )
    append_rows(paths.evaluations, columns, rows)
    keep_best(config, paths, rows, policy)
    echo(
        f"[{when}] "
        + "; ".join(
            ("games won per run" if r["opponent"] == RUN_OPPONENT else f"vs {r['opponent']}")
            + f": {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
            for r in rows
        )
        + f" ({time.perf_counter() - t:.1f} s)"
    )
    return rows


class Monitor(BaseCallback):
    """Self-play refresh, evaluation, checkpoints and logs, at rollout boundaries.

    Timing: engine and opponent seconds come from the env's drivers; the learner's own
    forward passes are the rest of the rollout; the update is the time between rollouts.
    """

    def __init__(
        self,
        config: TrainConfig,
        paths: Paths,
        pool: OpponentPool,
        elapsed: float = 0.0,
        echo=print,
        stop_when: Callable[[list[dict]], bool] | None = None,
    ) -> None:
        super().__init__()
        self.stop_when = stop_when  # told each periodic evaluation's rows; True: stop
        self.stopped_by_evaluation = False
        self.cfg = config
        self.paths = paths
        self.pool = pool
        self.echo = echo
        self.elapsed_before = elapsed  # wall seconds of earlier sessions (resume)
        self.wins: deque[float] = deque(maxlen=1000)
        self.lengths: deque[int] = deque(maxlen=1000)
        self.episodes = 0
        self.stopped_by_time = False
        self.eval_seconds = 0.0
        self.update_seconds = 0.0
        self.rollout_seconds = 0.0
        self._t_rollout = self._t_update = 0.0

    # --- bookkeeping --------------------------------------------------------------------
    def minutes(self) -> float:
        return (self.elapsed_before + time.perf_counter() - self._t0) / 60

    def _due(self, every: int, last: int) -> bool:
        return self.num_timesteps // every > last // every

    def _on_training_start(self) -> None:
        self._t0 = time.perf_counter()
        self._prev_steps = self.num_timesteps
        self._prev_time = self._t0
        self._start_seconds = self.training_env.seconds
        self._prev_split: dict[str, float] = {}
        if self.num_timesteps == 0:  # the untrained policy: where the curve starts
            self.run_evaluation()

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        if self._t_update:
            self.update_seconds += now - self._t_update
        self._t_rollout = now

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode" in info:
                self.wins.append(info["win"])
                self.pool.record(info["opponents"], info["win"])
                self.lengths.append(info["episode"]["l"])
                self.episodes += 1
        limit = self.cfg.time_limit_minutes
        if limit is not None and self.minutes() >= limit:
            self.stopped_by_time = True
            return False
        return not self.stopped_by_evaluation

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        self.rollout_seconds += now - self._t_rollout
        start = self.num_timesteps - self.cfg.num_envs * self.cfg.ppo.n_steps
        if self._due(self.cfg.snapshot_every, start) and self.cfg.uses_self_play:
            self.pool.add_snapshot(self.model.policy)
            self.pool.install(self.training_env)
        elif self.cfg.sampling == "pfsp":  # the shares follow the latest results
            self.pool.install(self.training_env)
        if self._due(self.cfg.eval_every, start):
            self.run_evaluation()
        if self._due(self.cfg.checkpoint_every, start):
            t_save = time.perf_counter()
            self.save_checkpoint()
            self.eval_seconds += time.perf_counter() - t_save
        self._log_progress()
        self._t_update = time.perf_counter()

    def _on_training_end(self) -> None:
        if self._t_update:
            self.update_seconds += time.perf_counter() - self._t_update
            self._t_update = 0.0

    # --- actions ------------------------------------------------------------------------
    def run_evaluation(self) -> list[dict]:
        t = time.perf_counter()
        rows = periodic_evaluation(
            self.cfg, self.model.policy, self.paths, EVAL_COLUMNS, self.logger, self.echo,
            f"{self.minutes():5.1f} min, {self.num_timesteps:,} steps",
            timesteps=self.num_timesteps, minutes=round(self.minutes(), 3),
        )  # fmt: skip
        self.eval_seconds += time.perf_counter() - t
        if self.stop_when is not None and self.stop_when(rows):
            self.stopped_by_evaluation = True
        return rows

    def save_checkpoint(self) -> None:
        self.paths.checkpoint.parent.mkdir(parents=True, exist_ok=True)
        self.model.save(self.paths.checkpoint)
        self.pool.save(self.paths.checkpoint_pool)
        state = {
            "timesteps": self.num_timesteps,
            "minutes": self.minutes(),
            "fingerprint": self.cfg.fingerprint(),
        }
        self.paths.checkpoint_state.write_text(json.dumps(state, indent=2))

    def time_split(self) -> dict[str, float]:
        """Cumulative wall seconds of this session: engine, opponents, the learner's own
        forward passes (the rest of the rollouts), PPO updates, evaluations+checkpoints."""
        secs = self.training_env.seconds
        engine = secs["engine"] - self._start_seconds["engine"]
        opponents = secs["opponents"] - self._start_seconds["opponents"]
        return {
            "engine_s": engine,
            "opponents_s": opponents,
            "learner_act_s": self.rollout_seconds - engine - opponents,
            "update_s": self.update_seconds,
            "eval_s": self.eval_seconds,
        }

    def _log_progress(self) -> None:
        now = time.perf_counter()
        steps_per_s = (self.num_timesteps - self._prev_steps) / max(now - self._prev_time, 1e-9)
        self._prev_steps, self._prev_time = self.num_timesteps, now
        split = self.time_split()
        row = {
            "timesteps": self.num_timesteps,
            "minutes": round(self.minutes(), 3),
            "steps_per_s": round(steps_per_s, 1),
            "train_win_rate": float(np.mean(self.wins)) if self.wins else np.nan,
            "episodes": self.episodes,
            "ep_len_mean": float(np.mean(self.lengths)) if self.lengths else np.nan,
            **{k: round(v - self._prev_split.get(k, 0.0), 3) for k, v in split.items()},
        }
        self._prev_split = split
        values = self.logger.name_to_value  # the previous update's train/* numbers
        for key in SB3_KEYS:
            row[key] = values.get(f"train/{key}", np.nan)
        for key in ("train_win_rate", "steps_per_s", *split):
            self.logger.record(f"card_envs/{key}", row[key])
        append_rows(self.paths.progress, TRAIN_COLUMNS, [row])
