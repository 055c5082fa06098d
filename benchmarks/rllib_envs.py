"""How RLlib's env runners should step our games: RLlib's own `MultiAgentEnvRunner` over
its `PettingZooEnv` wrapper of the AEC env (`card_envs.make`) or over our `TurnEnv` (an
engine row stepped by the game's kernels), or our `BatchedEnvRunner` (a runner's games in
one `BatchedEnv` per setting, one forward pass per module and step). With a mixed config
`TurnEnv` and the batched runner play every setting, the AEC env its first one only.

    python -m benchmarks.rllib_envs [--config configs/training/no_thanks_rllib.yaml]
                                    [--iterations 4] [--rounds 3] [--runners 0 1 2]

Each variant trains the config's learner for `--iterations` PPO iterations after one
warm-up, alternating in rounds, with the driver's env runner (`--runners 0`, no Ray
actors) or with remote ones; each prints learner steps/s (as the runner counts them: see
docs/research/rllib.md), env steps/s and the wall time per iteration, all by the wall clock
(RLlib's own timers are moving averages that keep much of their first value). Torch gets
the config's `torch_threads` in the driver. Needs the `rllib` extra.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import card_envs
from card_envs.training.config import load_config
from card_envs.training.rllib.env import TurnEnv, agent_id, observation_space


def _ours(d: dict) -> dict:
    """PettingZoo's `player_<k>` keys as TurnEnv's agent ids (the policy mapping reads them)."""
    return {k if k == "__all__" else agent_id(int(k.rsplit("_", 1)[1])): v for k, v in d.items()}


def _renamed(obs: dict) -> dict:
    return _ours({
        agent: {
            "observations": o["observation"],
            "action_mask": o["action_mask"].astype(np.float32),
        }
        for agent, o in obs.items()
    })  # fmt: skip


def aec_env(env_config: dict):
    """RLlib's PettingZooEnv over our AEC env (the config's first setting), its agents and
    keys renamed for the policy mapping and the masked module."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    class AECEnv(PettingZooEnv):
        def __init__(self, config: dict) -> None:
            env = card_envs.make(config["env_id"], **config["settings"][0])
            super().__init__(env)
            space = observation_space(env.unwrapped.game)
            self.possible_agents = list(_ours(dict.fromkeys(env.possible_agents)))
            self.observation_spaces = dict.fromkeys(self.possible_agents, space)
            self.observation_space = gym.spaces.Dict(self.observation_spaces)
            self.action_spaces = _ours(self.action_spaces)
            self.action_space = gym.spaces.Dict(self.action_spaces)

        def reset(self, *, seed=None, options=None):
            obs, info = super().reset(seed=seed, options=options)
            return _renamed(obs), info

        def step(self, action):
            ((_, act),) = action.items()  # the one seat to act
            obs, *rest = super().step({self.env.agent_selection: act})
            return (_renamed(obs), *(_ours(d) for d in rest))

    return AECEnv(env_config)


VARIANTS = ("PettingZooEnv(AEC)", "TurnEnv", "BatchedEnvRunner")


def _build(name: str, cfg, runners: int):
    """The variant's Algorithm: RLlib's runner over the AEC env or over `TurnEnv`, or the
    batched runner."""
    from ray.tune.registry import register_env

    from card_envs.training.rllib.train import ENV_NAME, algorithm_config

    conf = algorithm_config(cfg, runners, batched=name == "BatchedEnvRunner")
    # after algorithm_config, which registers TurnEnv
    register_env(ENV_NAME, aec_env if name == "PettingZooEnv(AEC)" else TurnEnv)
    return conf.build_algo()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rllib_envs")
    p.add_argument("--config", default="configs/training/no_thanks_rllib.yaml")
    p.add_argument("--iterations", type=int, default=4, help="timed PPO iterations per variant")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runners", type=int, nargs="+", default=[0], help="0: the driver's runner")
    p.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    args = p.parse_args(argv)

    import ray
    import torch

    from card_envs.training.rllib.train import LEARNER

    cfg = load_config(args.config)
    torch.set_num_threads(cfg.torch_threads)  # the driver's runner and learner, all variants
    ray.init(include_dashboard=False, log_to_driver=False)
    for runners in args.runners:
        for rnd in range(args.rounds):
            for name in args.variants:
                algo = _build(name, cfg, runners)
                algo.train()  # warm-up
                steps, env_steps = 0, 0
                t0 = time.perf_counter()
                for _ in range(args.iterations):
                    sampled = algo.train()["env_runners"]
                    steps += sampled["num_module_steps_sampled"].get(LEARNER, 0)
                    env_steps += sampled["num_env_steps_sampled"]
                elapsed = time.perf_counter() - t0
                print(
                    f"{runners} remote runner(s), round {rnd + 1}: {name}: "
                    f"{steps / elapsed:,.0f} learner steps/s, {env_steps / elapsed:,.0f} env "
                    f"steps/s, {elapsed / args.iterations:.2f} s per iteration",
                    flush=True,
                )
                algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
