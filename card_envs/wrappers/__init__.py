"""Views of the envs: the learner in one seat with the opponents played inside the env, and
the Parallel env in the form other libraries take.

`SingleAgentEnv` is a Gymnasium env; `SingleAgentVecEnv` an SB3 `VecEnv` over the batched
engine and `MixedVecEnv` several of them, one per config (need the `train` extra:
stable-baselines3). `FlatParallelEnv` (`make_flat_parallel`) is the Parallel env with flat
observations and the action masks in the infos, for AgileRL and SuperSuit.
"""

from card_envs.wrappers.flat_parallel import FlatParallelEnv, make_flat_parallel
from card_envs.wrappers.gym_env import SingleAgentEnv
from card_envs.wrappers.learner import LearnerSeats

__all__ = [
    "FlatParallelEnv",
    "LearnerSeats",
    "MixedVecEnv",
    "SingleAgentEnv",
    "SingleAgentVecEnv",
    "make_flat_parallel",
]


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
