"""Single-agent views: the learner in one seat, opponents played inside the env.

`SingleAgentEnv` is a Gymnasium env; `SingleAgentVecEnv` an SB3 `VecEnv` over the batched
engine and `MixedVecEnv` several of them, one per config (need the `train` extra:
stable-baselines3).
"""

from card_envs.wrappers.gym_env import SingleAgentEnv
from card_envs.wrappers.learner import LearnerSeats

__all__ = ["LearnerSeats", "MixedVecEnv", "SingleAgentEnv", "SingleAgentVecEnv"]


def __getattr__(name: str):
    if name in ("SingleAgentVecEnv", "MixedVecEnv"):
        try:
            from card_envs.wrappers import sb3_vec_env
        except ImportError as err:
            raise ImportError(
                f"{name} needs stable-baselines3: pip install 'card_envs[train]'"
            ) from err
        return getattr(sb3_vec_env, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
