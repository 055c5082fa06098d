"""card_envs: fast, faithful multi-agent RL environments for card games."""

from card_envs.registry import (
    env_ids,
    gym_id,
    make,
    make_parallel,
    make_vec,
    multi_agent_env_ids,
    pettingzoo_module,
    register_envs,
    register_game,
)

__version__ = "0.1.0"
__all__ = [
    "env_ids",
    "gym_id",
    "make",
    "make_agent",
    "make_parallel",
    "make_vec",
    "multi_agent_env_ids",
    "register_game",
]


def __getattr__(name: str):
    """`card_envs.make_agent` (agents.make_agent), imported when first asked for, so that
    `import card_envs` stays as light as the envs need."""
    if name == "make_agent":
        from card_envs.agents import make_agent

        return make_agent
    raise AttributeError(f"module 'card_envs' has no attribute {name!r}")


register_envs()
# `from card_envs import no_thanks_v0`: one PettingZoo-style module per multi-agent id
for _env_id in multi_agent_env_ids():
    globals()[_env_id] = pettingzoo_module(_env_id)
    __all__.append(_env_id)
