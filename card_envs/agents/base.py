"""The agent interface shared by evaluation, tournaments, wrappers and training."""

from __future__ import annotations

import numpy as np


class Agent:
    """Chooses actions from observations and action masks.

    `act_batch` is the primitive: environments ask all instances that wait for this agent at
    once. `act` is the single-observation convenience built on it.

    Agents that search the game (`wants_rows`) choose from the engine's state rows instead,
    with `act_rows`; they must read what the seat to act cannot see only through the game's
    `resample_hidden`, or only through the seat's own views (`views_only`: `Game.view_text`,
    `legal_moves`, as the `llm` agent). Agents that keep state per game (`wants_games`) get
    the id of each row's game as `act_batch(..., games=ids)`. Harnesses call
    `act_positions`, which gives each kind what it reads. The contract in full: docs/your_agent.md.
    """

    name: str = "agent"
    spec: str = "agent"
    wants_rows: bool = False
    views_only: bool = False  # with wants_rows: the rows are read through the seat's views
    wants_games: bool = False

    def reset(self) -> None:
        """Called before a batch of games starts: a chunk of `evaluate` and the tournaments
        (many games at once), a reset of the learner views, each game of `play` and the
        browser. Per-game state is keyed by the game ids (`wants_games`), not by resets."""

    def reseed(self, seed: int | None) -> None:
        """Restart the agent's own random stream, so that an env reset with a seed replays
        the same games (agents that draw no random numbers ignore it)."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def act_rows(self, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for the seats to act (`row[layout.PLAYER]`) in a batch of state rows."""
        raise NotImplementedError(f"{type(self).__name__} reads observations, not rows")

    def act_positions(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rows: np.ndarray,
        games: np.ndarray | None = None,
    ) -> np.ndarray:
        """Actions for a batch of positions, each given as the observation of the seat to
        act, its action mask, the state row and the id of its game (unique among the games
        in play): `act_rows` when the agent wants rows, else `act_batch` (with `games=` when
        it wants them)."""
        if self.wants_rows:
            return self.act_rows(rows, masks)
        if self.wants_games:
            if games is None:
                raise ValueError(f"{self!r} wants game ids, and this harness gave none")
            return self.act_batch(observations, masks, games=games)
        return self.act_batch(observations, masks)

    def act_with_policy(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rows: np.ndarray,
        games: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """`act_positions`' actions, with what they were chosen from for game records and
        the browser: each position's probabilities over the actions (zero for illegal
        ones; a search's visit shares) and the agent's value of it for the seat to act
        (NaN where it has none). Agents without a policy give None for both."""
        return self.act_positions(observations, masks, rows, games), None, None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"


TOP_ACTIONS = 5  # the most probable actions a game record keeps per decision


def policy_entry(probabilities: np.ndarray, value: float, chosen: int) -> dict:
    """A decision's policy as records keep it: the `TOP_ACTIONS` most probable actions with
    their probabilities (and the chosen one, if it is not among them), most probable first,
    and the value (None when the agent has none)."""
    order = np.argsort(-probabilities, kind="stable")[:TOP_ACTIONS]
    top = [int(a) for a in order if round(float(probabilities[a]), 4) > 0]
    if chosen not in top:
        top.append(int(chosen))
    return {
        "top": [[a, round(float(probabilities[a]), 4)] for a in top],
        "value": None if np.isnan(value) else round(float(value), 4),
    }
