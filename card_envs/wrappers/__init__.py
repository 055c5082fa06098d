"""Single-agent views: the learner in one seat, opponents played inside the env.

`SingleAgentEnv` is a Gymnasium env; `SingleAgentVecEnv` an SB3 `VecEnv` over the batched
engine (needs the `train` extra: stable-baselines3).
"""

from card_envs.wrappers.gym_env import SingleAgentEnv
from card_envs.wrappers.learner import LearnerSeats

__all__ = ["LearnerSeats", "SingleAgentEnv", "SingleAgentVecEnv"]


def __getattr__(name: str):
    if name == "SingleAgentVecEnv":
        try:
            from card_envs.wrappers.sb3_vec_env import SingleAgentVecEnv
        except ImportError as err:
            raise ImportError(
                "SingleAgentVecEnv needs stable-baselines3: pip install 'card_envs[train]'"
            ) from err
        return SingleAgentVecEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
