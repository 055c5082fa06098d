"""Each game's hand-written policy, reading only the observation."""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import Agent
from card_envs.core.engine import Game


class HeuristicAgent(Agent):
    name = spec = "heuristic"

    def __init__(self, game: Game) -> None:
        self._game = game

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return self._game.heuristic_actions(observations, masks)


class ComputerAgent(Agent):
    """The built-in computer opponent of games that have one (`Game.computer_kernel`)."""

    name = spec = "computer"

    def __init__(self, game: Game) -> None:
        if type(game).computer_kernel is None:
            raise ValueError(f"{game.env_id} has no computer player; use random or heuristic")
        self._game = game

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return self._game.computer_actions(observations, masks)
