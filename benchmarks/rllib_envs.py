"""Which env RLlib's runners should step: our `TurnEnv` (an engine row stepped by the game's
kernels) or RLlib's own `PettingZooEnv` wrapper around the AEC env (`card_envs.make`).

    python -m benchmarks.rllib_envs [--config configs/training/no_thanks_rllib.yaml]
                                    [--iterations 4] [--rounds 2]

Both train the config's learner in the driver's env runner (no Ray actors, so nothing else
competes), alternating in rounds; each prints learner steps/s and RLlib's `env_step_timer`
(the env's time per step of all the runner's games). Needs the `rllib` extra.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import card_envs
from training.config import load_config
from training.rllib.env import TurnEnv, agent_id, observation_space


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


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rllib_envs")
    p.add_argument("--config", default="configs/training/no_thanks_rllib.yaml")
    p.add_argument("--iterations", type=int, default=4, help="timed PPO iterations per env")
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args(argv)

    import ray
    from ray.tune.registry import register_env

    from training.rllib.train import ENV_NAME, LEARNER, algorithm_config

    cfg = load_config(args.config)
    ray.init(include_dashboard=False, log_to_driver=False)
    for rnd in range(args.rounds):
        for name, make in (("TurnEnv (engine row)", TurnEnv), ("PettingZooEnv(AEC)", aec_env)):
            conf = algorithm_config(cfg, 0)
            register_env(ENV_NAME, make)  # after algorithm_config, which registers TurnEnv
            algo = conf.build_algo()
            algo.train()  # warm-up
            steps, env_ms, t0 = 0, [], time.perf_counter()
            for _ in range(args.iterations):
                runners = algo.train()["env_runners"]
                steps += runners["num_module_steps_sampled"].get(LEARNER, 0)
                env_ms.append(1e3 * runners.get("env_step_timer", np.nan))
            rate = steps / (time.perf_counter() - t0)
            print(
                f"round {rnd + 1}: {name}: {rate:,.0f} learner steps/s, env step "
                f"{np.nanmean(env_ms):.2f} ms per step of the runner's games",
                flush=True,
            )
            algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
