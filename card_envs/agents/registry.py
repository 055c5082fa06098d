"""Agent spec strings -> agents.

Specs: `random`, `heuristic`, `computer` (games that have a built-in computer player),
`ismcts[:SIMULATIONS][:random|heuristic]` (information-set tree search, `card_envs.agents.ismcts`),
`ppo` (the MaskablePPO model shipped for the env), `ppo:path/to/model.zip`, `exit` and
`exit:path` (a network trained by expert iteration, `card_envs.training.exit`),
`rllib:path/to/rllib_module` (trained with `--backend rllib`) and `human` (a person at the
terminal, for `card-envs play`).
"""

from __future__ import annotations

from typing import Any

from card_envs.agents.base import Agent
from card_envs.agents.heuristic import ComputerAgent, HeuristicAgent
from card_envs.agents.human import HumanAgent
from card_envs.agents.random_agent import RandomAgent
from card_envs.registry import make_game

_KINDS = ("random", "heuristic", "computer", "ismcts", "ppo", "exit", "rllib", "human")
SPEC_HELP = (  # the known specs, for error messages and --help
    "random, heuristic, computer (where the game has one), ismcts[:SIMULATIONS][:random|"
    "heuristic] (tree search, 1000 simulations a move with heuristic rollouts by default), "
    "ppo (the model shipped for the env), ppo:path/to/model.zip, exit (the network shipped "
    "for the env, trained by expert iteration), exit:path/to/model.zip, "
    "rllib:path/to/rllib_module "
    "(trained with --backend rllib), human (a person at the terminal: play only)"
)


def agent_kinds() -> tuple[str, ...]:
    return _KINDS


def make_agent(spec: str | Agent, env_id: str, seed: int | None = None, **config: Any) -> Agent:
    """The agent named by `spec` for `env_id` (an Agent passes through unchanged).

    `config` is the game config (the agent may need the number of players or options);
    `seed` seeds agents that draw random numbers.
    """
    if isinstance(spec, Agent):
        return spec
    if not isinstance(spec, str):
        raise ValueError(
            f"an agent spec must be a string, got {spec!r}; known agents are {SPEC_HELP}"
        )
    if spec == "random":
        return RandomAgent(seed)
    if spec == "heuristic":
        return HeuristicAgent(make_game(env_id, **config))
    if spec == "human":
        return HumanAgent(make_game(env_id, **config))
    if spec == "computer":
        return ComputerAgent(make_game(env_id, **config))
    if spec == "ismcts" or spec.startswith("ismcts:"):
        from card_envs.agents.ismcts import make_ismcts_agent

        return make_ismcts_agent(spec, make_game(env_id, **config), seed)
    if spec in ("ppo", "exit") or spec.startswith(("ppo:", "exit:")):
        from card_envs.agents.ppo import make_ppo_agent  # torch is imported only when needed

        return make_ppo_agent(spec, env_id, seed, config)
    if spec.startswith("rllib:"):
        from card_envs.agents.rllib import make_rllib_agent  # ray is imported only when needed

        return make_rllib_agent(spec, env_id, config)
    raise ValueError(f"unknown agent spec {spec!r}; known agents are {SPEC_HELP}")
