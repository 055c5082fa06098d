"""Videos of the trained agent (`video_episodes`): a few episodes in its single-agent view,
drawn from its seat (`render_mode="rgb_array"`) and written by Gymnasium's RecordVideo, so
a run shows how its agent plays and not only how often it wins."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import gymnasium
from gymnasium.wrappers import RecordVideo

from card_envs.agents import Agent
from card_envs.core.padding import Padding
from card_envs.registry import gym_id, make_game
from card_envs.training.config import TrainConfig

MAX_FRAMES = 300  # an episode's video stops here (RecordVideo holds the frames in memory)
VIDEO_SEED_OFFSET = 3_000_017  # other deals than the evaluations'


def require_moviepy(config: TrainConfig) -> None:
    """Fail before training, not after it, when the videos cannot be written."""
    if config.video_episodes and importlib.util.find_spec("moviepy") is None:
        raise ImportError(
            f"video_episodes={config.video_episodes} needs moviepy: pip install moviepy "
            '(or pip install -e ".[train]")'
        )


def opponent(config: TrainConfig) -> str | None:
    """Who fills the other seats in the videos: the last agent of `evaluation.against` (by
    default the heuristic); nobody in a one-seat game."""
    return None if config.num_players == 1 else config.eval_against[-1]


def record_videos(
    config: TrainConfig, make_learner: Callable[[Padding | None], Agent], folder: Path
) -> list[Path]:
    """`config.video_episodes` episodes of the trained agent in `config.config` as
    `<name>-episode-<i>.mp4` files in `folder`; the learner's seat rotates between them.
    `make_learner(padding)` gives the agent, as for `monitor.evaluate_learner` (either
    backend gives one)."""
    learner = make_learner(
        Padding(make_game(config.env, **config.config)) if config.padded else None
    )
    others = {} if opponent(config) is None else {"opponents": opponent(config)}
    env = gymnasium.make(gym_id(config.env), render_mode="rgb_array", **others, **config.config)
    recorder = RecordVideo(
        env,
        str(folder),
        episode_trigger=lambda _: True,
        video_length=MAX_FRAMES,
        name_prefix=config.name,
    )
    for episode in range(config.video_episodes):
        seed = config.seed + VIDEO_SEED_OFFSET if episode == 0 else None
        obs, _ = recorder.reset(seed=seed)
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            action = int(learner.act_batch(obs[None], mask[None])[0])
            obs, _, terminated, truncated, _ = recorder.step(action)
            done = terminated or truncated
    recorder.close()
    return [folder / f"{config.name}-episode-{i}.mp4" for i in range(config.video_episodes)]
