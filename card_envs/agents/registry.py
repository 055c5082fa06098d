"""Agent specs -> agents: the builder behind every harness (the grammar: `agents.specs`,
the table of kinds: docs/specs.md)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from card_envs.agents.base import Agent
from card_envs.agents.heuristic import ComputerAgent, HeuristicAgent
from card_envs.agents.human import HumanAgent
from card_envs.agents.random_agent import RandomAgent
from card_envs.agents.specs import (
    NETWORK_KINDS,
    AgentSpec,
    AgentSpecError,
    kind_names,
    load_target,
    parse_spec,
    plugin_kinds,
    spec_help,
)
from card_envs.registry import make_game

SPEC_HELP = spec_help()


def agent_kinds() -> tuple[str, ...]:
    """The spec kinds: the built-in ones, then those installed packages add."""
    return kind_names()


class PolicyFunctionAgent(Agent):
    """A plain batch policy `(observations, masks) -> actions` as an agent
    (`py-policy:TARGET:NAME`)."""

    def __init__(self, policy, spec: str) -> None:
        self._policy = policy
        self.spec = spec
        self.name = spec.split(":")[-1]

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.asarray(self._policy(observations, masks), dtype=np.int64)


def make_agent(
    spec: str | AgentSpec | Agent,
    env_id: str,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    **config: Any,
) -> Agent:
    """The agent named by `spec` for `env_id` (an Agent passes through unchanged).

    `config` is the game config (the agent may need the number of players or options);
    `options` are the agent's own (a tournament entry's `options`, the same as writing
    `:key=value` in the spec); `seed` seeds agents that draw random numbers.
    """
    if isinstance(spec, Agent):
        return spec
    parsed = parse_spec(spec, options)
    kind = parsed.kind
    if kind == "random":
        return RandomAgent(seed)
    if kind == "heuristic":
        return HeuristicAgent(make_game(env_id, **config))
    if kind == "human":
        return HumanAgent(make_game(env_id, **config))
    if kind == "computer":
        return ComputerAgent(make_game(env_id, **config))
    if kind == "ismcts":
        from card_envs.agents.ismcts import make_ismcts_agent

        return make_ismcts_agent(parsed.text, make_game(env_id, **config), seed)
    if kind in NETWORK_KINDS:
        from card_envs.agents.ppo import make_ppo_agent  # torch is imported only when needed

        return make_ppo_agent(parsed.text, env_id, seed, config)
    if kind == "sb3":
        from card_envs.agents.ppo import make_sb3_agent

        return make_sb3_agent(parsed.text, env_id, seed, config)
    if kind == "rllib":
        from card_envs.agents.rllib import make_rllib_agent  # ray is imported only when needed

        return make_rllib_agent(parsed.text, env_id, config)
    if kind == "llm":
        from card_envs.agents.llm import make_llm_agent

        return make_llm_agent(parsed, make_game(env_id, **config), seed)
    return _user_agent(parsed, env_id, seed, config)


def _user_agent(spec: AgentSpec, env_id: str, seed: int | None, config: dict) -> Agent:
    """A `py:`, `py-policy:` or plugin agent; any error in its code is reported as one
    AgentSpecError naming the spec (so that a worker's failure reads as one line)."""
    try:
        if spec.kind == "py-policy":
            policy = load_target(spec)
            if not callable(policy):
                raise AgentSpecError(f"{spec.args[1]} is not callable")
            if spec.options:
                policy = functools.partial(policy, **spec.option_dict)
            return PolicyFunctionAgent(policy, spec.text)
        if spec.kind == "py":
            factory, args = load_target(spec), ()
        else:
            factory, args = plugin_kinds()[spec.kind].load(), spec.args
        agent = factory(*args, env_id=env_id, seed=seed, config=dict(config), **spec.option_dict)
    except Exception as err:  # the user's code: report what it raised, with the spec
        raise AgentSpecError(
            f"agent {spec.text!r} cannot be built: {type(err).__name__}: {err}"
        ) from err
    if not isinstance(agent, Agent):
        raise AgentSpecError(
            f"agent {spec.text!r}: {spec.args[-1] if spec.args else spec.kind} returned "
            f"{type(agent).__name__}, not a card_envs.agents.Agent (use py-policy: for a "
            "plain function of (observations, masks))"
        )
    if agent.spec == Agent.spec:
        agent.spec = spec.text
    if agent.name == Agent.name:
        agent.name = spec.args[-1] if spec.kind == "py" else spec.text
    return agent
