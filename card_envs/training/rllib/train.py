"""`card-envs train --backend rllib`: RLlib PPO (new API stack) on the same YAML configs.

One learned module (`main`) plays a seat drawn per game; every other seat maps, per game, to
a module drawn from the opponent pool by weight: the scripted agents as fixed modules
(`AgentModule`, one per setting), and `self` as `snapshots` frozen copies of `main`
(`snapshot_0..`, all the starting policy at first, the oldest refreshed every
`snapshot_every` learner steps). The mapping is RLlib's `policy_mapping_fn`; only `main`
trains. With a `mix`, the env runners play every setting with padded observations
(training/rllib/batched.py, or env.py under RLlib's runner), so `main` and the snapshots
play them all; the periodic evaluations play `config`, the final one every setting.
`imitation` fits `main` to the teacher before PPO (training/imitation.py);
`video_episodes` records the trained agent.

Output in `out`, as the SB3 path: `results.json` (the final evaluation by the project's own
harness, targets, throughput), `evaluations.csv`, `training.csv`, `tensorboard/`,
`checkpoints/` (the Algorithm, for `--resume`) and `rllib_module/` (the learner, which the
agent spec `rllib:<out>/rllib_module` plays, in every setting it trained on) and
`videos/`.

Ray: a local instance started by the command, or a cluster with `--address auto` (or
`ray://...`, or the `rllib.address` key) after `ray start --head` / `ray start --address=...`.
"""

from __future__ import annotations

import json
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.registry import make_game
from card_envs.training.config import SELF, TrainConfig, TrainConfigError

LEARNER = "main"
ENV_NAME = "card_envs_turns"


class SeatMapping:
    """RLlib's `policy_mapping_fn`: per game, the learner's seat and the other seats'
    modules, drawn by weight from a generator seeded by the game's id (so every seat of a
    game agrees, whichever env runner asks). The agent id names the setting
    (`env.parse_agent_id`): its player count places the learner, and a scripted opponent
    is that setting's module."""

    def __init__(
        self, players: list[int], pool: list[tuple[list[str], float, str]], seed: int
    ) -> None:
        self.players = players  # of each setting
        self.modules = [ids for ids, _, _ in pool]
        weights = np.array([w for _, w, _ in pool], dtype=np.float64)
        self.weights = weights / weights.sum()
        self.seed = seed

    def __call__(self, agent_id: str, episode, **kwargs) -> str:
        from card_envs.training.rllib.env import parse_agent_id

        part, seat = parse_agent_id(agent_id)
        game = zlib.crc32(str(episode.id_).encode())
        if seat == game % self.players[part]:
            return LEARNER
        rng = np.random.default_rng([self.seed, game, seat])
        return self.modules[rng.choice(len(self.modules), p=self.weights)][part]


def pool_modules(config: TrainConfig) -> list[tuple[list[str], float, str]]:
    """(module id in each setting, weight, agent spec) of every opponent: scripted agent k
    as `agent_<k>_s<part>`, one module per setting, as it reads its setting's own
    observations (and a spec such as `ppo:path` is no valid module id); `self` split over
    the snapshot slots `snapshot_<j>` (spec `self`), each one module for every setting, as
    `main` is."""
    parts = range(len(config.settings))
    out = []
    for k, (spec, weight) in enumerate(config.pool):
        if spec == SELF:
            share = weight / config.snapshots
            out += [([f"snapshot_{j}"] * len(parts), share, SELF) for j in range(config.snapshots)]
        else:
            out.append(([f"agent_{k}_s{part}" for part in parts], weight, spec))
    return out


def check_supported(config: TrainConfig) -> None:
    if config.num_players == 1:
        raise TrainConfigError(
            f"--backend rllib trains multi-agent envs; {config.env} has one seat"
        )
    if config.device != "cpu":
        raise TrainConfigError(
            f"--backend rllib: device={config.device!r} is the sb3 backend's; RLlib puts its "
            "learners on GPUs by rllib.num_gpus_per_learner"
        )
    if config.keep_best is not None:
        raise TrainConfigError("--backend rllib ends with its last network: evaluation.keep_best "
                               "needs the sb3 backend")  # fmt: skip
    if config.sampling != "uniform":
        raise TrainConfigError(
            f"--backend rllib draws the snapshots uniformly; opponents.sampling: "
            f"{config.sampling} needs the sb3 backend"
        )
    from card_envs.agents import make_agent

    scripted = [spec for _, _, spec in pool_modules(config) if spec != SELF]
    for spec in scripted:
        for setting in config.settings:
            if make_agent(spec, config.env, seed=0, **setting).wants_rows:
                raise TrainConfigError(
                    f"--backend rllib: the pool agent {spec!r} searches the game's rows "
                    f"(in {setting}), which an RLlib module does not see; its opponents act "
                    "on observations"
                )


def ppo_spec(config: TrainConfig):
    """The RLModuleSpec of `main` and of every snapshot: masked PPO on the run's
    observations (padded with a mix)."""
    import gymnasium as gym
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from card_envs.training.rllib.env import observation_space
    from card_envs.training.rllib.modules import MaskedPPOModule

    game = make_game(config.env, **config.config)
    return RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=observation_space(game, config.padded),
        action_space=gym.spaces.Discrete(game.num_actions),
        model_config=DefaultModelConfig(fcnet_hiddens=list(config.ppo.net_arch)),
    )


def algorithm_config(config: TrainConfig, num_env_runners: int, batched: bool = True):
    """The PPOConfig of a run: env, runners, learners, modules, mapping and PPO settings.
    With `num_learners` learners, each takes its share of the batch and minibatch (RLlib's
    sizes are per learner), so an update means the same whatever the count. `batched`: env
    runners that step all their games in one engine call per setting (`BatchedEnvRunner`,
    several times faster, docs/research/rllib.md); else RLlib's own runner over `TurnEnv`s."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from card_envs.training.rllib.batched import BatchedEnvRunner
    from card_envs.training.rllib.env import TurnEnv
    from card_envs.training.rllib.modules import AgentModule

    register_env(ENV_NAME, TurnEnv)
    settings = config.settings
    specs = {LEARNER: ppo_spec(config)}
    pool = pool_modules(config)
    for ids, _, spec in pool:
        for part, module in enumerate(ids):
            if spec == SELF:
                specs[module] = ppo_spec(config)
                continue
            cfg = {
                "env_id": config.env, "config": settings[part], "spec": spec,
                "seed": config.seed + part, "padded": config.padded,
            }  # fmt: skip
            specs[module] = RLModuleSpec(module_class=AgentModule, model_config=cfg)
    ppo, rl = config.ppo, config.rllib
    batch = rl.train_batch_size or config.num_players * config.num_envs * ppo.n_steps
    learners = max(rl.num_learners, 1)
    players = [make_game(config.env, **s).num_players for s in settings]
    return (
        PPOConfig()
        # RLlib's env check steps unmasked random actions, which our envs refuse
        .environment(
            ENV_NAME,
            env_config={
                "env_id": config.env,
                "settings": settings,
                "padded": config.padded,
                "num_threads": config.num_threads,  # the batched runner's env (BatchedGames)
            },
            disable_env_checking=True,
        )
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=rl.num_envs_per_env_runner,
            env_runner_cls=BatchedEnvRunner if batched else None,
            # a sample takes as long as the runner's share of the batch needs: with RLlib's
            # 60 s timeout a large batch (the shipped configs') was dropped every iteration
            sample_timeout_s=None,
        )
        .learners(
            num_learners=rl.num_learners,
            num_gpus_per_learner=rl.num_gpus_per_learner,
        )
        .multi_agent(
            policies=set(specs),
            policy_mapping_fn=SeatMapping(players, pool, config.seed),
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=-(-batch // learners),
            minibatch_size=-(-ppo.batch_size // learners),
            num_epochs=ppo.n_epochs,
            lr=ppo.learning_rate,
            gamma=ppo.gamma,
            lambda_=ppo.gae_lambda,
            clip_param=ppo.clip_range,
            entropy_coeff=ppo.ent_coef,
            vf_loss_coeff=ppo.vf_coef,
            grad_clip=ppo.max_grad_norm,
        )
        .debugging(seed=config.seed)
    )


def set_everywhere(algo, module_id: str, weights: dict) -> None:
    """Put `weights` into module `module_id` on the learners, whose modules a checkpoint
    keeps (a resumed run restores the env runners' from there), and on every env runner
    (RLlib's `sync_weights` skips weights whose sequence number the runner has seen, so they
    are set directly)."""
    algo.learner_group.set_weights({module_id: weights})

    def install(runner):
        runner.module[module_id].set_state(weights)

    algo.env_runner_group.foreach_env_runner(install, local_env_runner=True)


def copy_learner(algo, slot: str) -> None:
    """Freeze `main`'s current weights into the snapshot module `slot`, everywhere."""
    set_everywhere(algo, slot, algo.learner_group.get_weights(module_ids=[LEARNER])[LEARNER])


def restore(algo, path: Path, slots: list[str]) -> None:
    """Restore the checkpoint at `path`, then put the learner's snapshot weights on every env
    runner: RLlib's own sync after a restore is an asynchronous request that it drops for a
    runner with as many `set_state` requests in flight as it allows, and such a runner kept
    its untrained snapshots (seen on a busy machine)."""
    algo.restore_from_path(path)
    weights = algo.learner_group.get_weights(module_ids=slots)
    for slot in slots:
        set_everywhere(algo, slot, weights[slot])


def warm_start(algo, config: TrainConfig, echo=print) -> dict:
    """`imitation`: fit `main` to the teacher's decisions (training/imitation.py) on a full
    local copy of the learner's module (an env runner's lacks the value head; the learners
    may be remote), then put its weights on the learners and every env runner. Returns
    results.json's `imitation`."""
    from ray.rllib.core.columns import Columns

    from card_envs.training.imitation import imitate

    module = ppo_spec(config).build()
    module.set_state(algo.learner_group.get_weights(module_ids=[LEARNER])[LEARNER])

    def heads(obs, masks):
        batch = {Columns.OBS: {"observations": obs, "action_mask": masks.float()}}
        logits = module.forward_train(batch)[Columns.ACTION_DIST_INPUTS]
        return logits, module.compute_values(batch)

    info = imitate(module, heads, config, config.imitation, echo=echo)
    set_everywhere(algo, LEARNER, module.get_state())
    return info


class Run:
    """The state of a run kept beside RLlib's checkpoint: learner steps, wall minutes, the
    next snapshot slot and when the next snapshot, evaluation and checkpoint are due."""

    def __init__(self, config: TrainConfig) -> None:
        self.steps = 0
        self.minutes = 0.0
        self.slot = 0
        self.due = {
            "snapshot": config.snapshot_every,
            "evaluation": config.eval_every,
            "checkpoint": config.checkpoint_every,
        }

    def to_json(self, fingerprint: str) -> str:
        return json.dumps({**self.__dict__, "fingerprint": fingerprint}, indent=2)

    @classmethod
    def from_json(cls, config: TrainConfig, text: str) -> Run:
        from card_envs.training.run import check_resumable

        run = cls(config)
        data = json.loads(text)
        check_resumable(config, data.pop("fingerprint"))
        run.__dict__.update(data)
        return run


def train(
    config: TrainConfig,
    resume: bool = False,
    restart: bool = False,
    address: str | None = None,
    num_env_runners: int | None = None,
    echo=print,
) -> dict[str, Any]:
    """Train with RLlib as the module doc says; returns results.json's content."""
    import ray
    from torch.utils.tensorboard import SummaryWriter

    from card_envs.agents.rllib import RLModuleAgent, save_info
    from card_envs.training.monitor import (
        EVAL_COLUMNS,
        append_rows,
        evaluate_learner,
        resume_at,
    )
    from card_envs.training.run import FINAL_EVAL_SEED_OFFSET, start_run, targets
    from card_envs.training.video import record_videos, require_moviepy

    check_supported(config)
    require_moviepy(config)
    t_start = time.perf_counter()
    paths = start_run(config, resume, restart)
    algo_dir = (paths.out / "checkpoints" / "rllib").resolve()
    runners = config.rllib.num_env_runners if num_env_runners is None else num_env_runners
    address = address or config.rllib.address
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)

    algo = algorithm_config(config, runners).build_algo()  # this run's scale, also on resume
    snapshots = [ids[0] for ids, _, spec in pool_modules(config) if spec == SELF]
    imitation = None
    if resume:
        run = Run.from_json(config, paths.checkpoint_state.read_text())
        restore(algo, algo_dir, snapshots)
        resume_at(paths, run.steps)  # rows after the checkpoint are redone
        echo(f"resuming {config.name} at {run.steps:,} learner steps ({run.minutes:.1f} min)")
    else:
        run = Run(config)
        if config.imitation is not None:
            t_imitation = time.perf_counter()
            imitation = warm_start(algo, config, echo)
            run.minutes = (time.perf_counter() - t_imitation) / 60  # counts towards the limit
        for slot in snapshots:
            copy_learner(algo, slot)  # the starting policy until the first refresh
    writer = SummaryWriter(str(paths.tensorboard))
    eval_seconds = 0.0

    def learner(padding):
        return RLModuleAgent(algo.get_module(LEARNER), padding)

    def evaluate(games: int, seed: int, kind: str) -> list[dict]:
        nonlocal eval_seconds
        t = time.perf_counter()
        every = kind == "final"
        rows = evaluate_learner(config, learner, games, seed, config.eval_workers, every)
        for row in rows:
            row.update(timesteps=run.steps, minutes=round(run.minutes, 3), kind=kind)
        append_rows(paths.evaluations, EVAL_COLUMNS, rows)
        eval_seconds += time.perf_counter() - t
        return rows

    session_start, session_steps = time.perf_counter(), 0
    base_minutes = run.minutes
    stopped_by_time = False
    echo(
        f"training {config.name} with RLlib: {config.env} {config.config}, "
        f"{config.total_timesteps - run.steps:,} learner steps, {runners} env runner(s)"
    )
    split = {"sampling_s": 0.0, "update_s": 0.0, "iterations": 0}
    while run.steps < config.total_timesteps:
        result = algo.train()
        if "env_runners" not in result:
            raise RuntimeError(
                "RLlib sampled nothing this iteration: every env runner failed (see the Ray "
                "logs, /tmp/ray/session_latest/logs)"
            )
        timers = result.get("timers", {})
        split["sampling_s"] += timers.get("env_runner_sampling_timer", 0.0)
        split["update_s"] += timers.get("learner_update_timer", 0.0)
        split["iterations"] += 1
        sampled = result["env_runners"]["num_module_steps_sampled"].get(LEARNER, 0)
        run.steps += int(sampled)
        session_steps += int(sampled)
        run.minutes = base_minutes + (time.perf_counter() - session_start) / 60
        returns = result["env_runners"].get("module_episode_returns_mean", {})
        row = {
            "timesteps": run.steps,
            "minutes": round(run.minutes, 3),
            "steps_per_s": round(session_steps / (time.perf_counter() - session_start), 1),
            "train_win_rate": returns.get(LEARNER, np.nan),
            "episodes": result["env_runners"].get("num_episodes", 0),
            "ep_len_mean": result["env_runners"].get("episode_len_mean", np.nan),
        }
        append_rows(paths.progress, list(row), [row])
        for key, value in row.items():
            if key != "timesteps":
                writer.add_scalar(f"train/{key}", value, run.steps)
        if snapshots and run.steps >= run.due["snapshot"]:
            copy_learner(algo, snapshots[run.slot % len(snapshots)])
            run.slot += 1
            run.due["snapshot"] += config.snapshot_every
        if run.steps >= run.due["evaluation"]:
            for r in evaluate(config.eval_games, config.seed + 1_000_003, "periodic"):
                writer.add_scalar(f"eval/win_rate_vs_{r['opponent']}", r["win_rate"], run.steps)
            run.due["evaluation"] += config.eval_every
        if run.steps >= run.due["checkpoint"]:
            _save(algo, algo_dir, paths, run, config)
            run.due["checkpoint"] += config.checkpoint_every
        if config.time_limit_minutes and run.minutes >= config.time_limit_minutes:
            stopped_by_time = True
            break
    session = time.perf_counter() - session_start
    training = session - eval_seconds  # the final evaluation comes after
    _save(algo, algo_dir, paths, run, config)
    module_dir = (paths.out / "rllib_module").resolve()
    algo.get_module(LEARNER).save_to_path(module_dir)
    save_info(module_dir, config.env, config.settings, config.padded)
    echo(f"final evaluation: {config.final_eval_games} games per opponent")
    rows = evaluate(config.final_eval_games, config.seed + FINAL_EVAL_SEED_OFFSET, "final")
    videos = record_videos(config, learner, paths.videos) if config.video_episodes else []
    results = {
        "backend": "rllib",
        "command_minutes": round((time.perf_counter() - t_start) / 60, 2),
        "name": config.name,
        "env": config.env,
        "config": config.config,
        "mix": dict(config.mix),
        "timesteps": run.steps,
        "training_minutes": round(run.minutes, 2),
        "stopped_by_time_limit": stopped_by_time,
        "session_steps_per_s": round(session_steps / session, 1) if session_steps else None,
        "training_steps_per_s": round(session_steps / training, 1) if session_steps else None,
        "time_split_s": {k: round(v, 2) for k, v in split.items()},
        "env_steps_per_iteration": algo.config.train_batch_size_per_learner,
        "num_env_runners": runners,
        "num_learners": config.rllib.num_learners,
        "imitation": imitation,
        "final_evaluation": rows,
        "run_baselines": {},
        "targets": targets(config, rows, None),
        "videos": [str(v.relative_to(paths.out)) for v in videos],
        "agent_spec": f"rllib:{module_dir}",
    }
    paths.results.write_text(json.dumps(results, indent=2, default=float))
    writer.close()
    algo.stop()
    return results


def _save(algo, algo_dir: Path, paths, run: Run, config: TrainConfig) -> None:
    algo.save_to_path(algo_dir)
    paths.checkpoint_state.parent.mkdir(parents=True, exist_ok=True)
    paths.checkpoint_state.write_text(run.to_json(config.fingerprint()))
