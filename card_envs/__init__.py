"""card_envs: fast, faithful multi-agent RL environments for card games."""

from card_envs.registry import env_ids, make, make_parallel, make_vec, multi_agent_env_ids

__version__ = "0.1.0"
__all__ = ["env_ids", "make", "make_parallel", "make_vec", "multi_agent_env_ids", "__version__"]
