"""A game on the server, played, watched or replayed in the browser.

A `Match` holds one game's row, the agent in each seat (None for the person's seat) and
every move made, each already put in words for every viewer (`Game.describe_action` as that
seat may know it, and with every card shown), so that a view for any seat is read off
without replaying. `view(viewer)` is all the browser gets: the scene as `viewer` sees it,
the moves in `viewer`'s words, the legal moves when `viewer` is the person to act, and the
result at the end. Nothing in it depends on what `viewer` cannot see (the tests resample
the hidden cards and compare).

A move of an agent with a policy (`Agent.act_with_policy`: ppo, ismcts), watched or from a
record that kept it, carries the agent's top actions with their probabilities and its value.
They are shown only to a viewer who sees every card or sits in the seat that moved: what an
agent weighs depends on its own hidden cards.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from card_envs.agents import Agent, make_agent
from card_envs.agents.base import policy_entry
from card_envs.core import layout, scene
from card_envs.core.engine import Game
from card_envs.play import winners_text
from card_envs.registry import make, make_game, multi_agent_env_ids

HUMAN = "human"
LOG_LINES = 40  # the most recent moves a view carries


class MatchError(ValueError):
    """A request the match cannot follow (an illegal move, not the person's turn); the
    server answers it with 400 or 409 and this message."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _check_legal(action: int, legal: np.ndarray, describe: Callable[[int], str]) -> None:
    """MatchError naming the legal actions in words when `action` is not one of them."""
    if action not in legal:
        names = [f"{a} ({describe(int(a))})" for a in legal]
        raise MatchError(f"action {action} is not legal now; legal: {', '.join(names)}")


class Match:
    """A game in `row` with `agents[i]` in seat i (None: nobody moves it by itself), the
    person in seat `human` (or nobody), `names` to show for the seats."""

    def __init__(
        self, game: Game, seed: int, agents: list[Agent | None], names: list[str], human=None
    ) -> None:
        self.game = game
        self.env_id = game.env_id
        self.agents = agents
        self.specs = names
        self.human = human
        self.seed = seed
        self.lock = threading.Lock()  # one request at a time moves the game
        self.row = game.new_row()
        game.reset_row(self.row, seed)
        self.start: str | None = None  # the named position played on from, if any
        self.moves: list[dict] = []  # seat, action, words: {viewer key: text}
        self._mask = np.zeros(game.num_actions, dtype=np.int8)
        self._obs = np.zeros(game.obs_size, dtype=np.float32)
        self._rewards = np.zeros(game.num_players, dtype=np.float32)

    @classmethod
    def new(
        cls,
        env_id: str,
        config: dict[str, Any],
        specs: list[str],
        seed: int = 0,
        names: list[str] | None = None,
    ) -> Match:
        """`specs[i]` plays seat i: an agent spec, or "human" for the person (at most one);
        `names[i]` is how the seat is shown (default: the spec)."""
        if env_id not in multi_agent_env_ids():
            raise MatchError(f"unknown env id {env_id!r}; the games are {multi_agent_env_ids()}")
        config = dict(config)
        config.setdefault("num_players", len(specs))
        game = make_game(env_id, **config)
        n = game.num_players
        if len(specs) != n:
            raise MatchError(f"{env_id} with num_players={n} needs {n} agents, got {len(specs)}")
        humans = [p for p, s in enumerate(specs) if s == HUMAN]
        if len(humans) > 1:
            raise MatchError(f"one person per game in the browser, got seats {humans}")
        agents = [
            None if s == HUMAN else make_agent(s, env_id, seed=seed + p, **game.config)
            for p, s in enumerate(specs)
        ]
        shown = list(specs) if names is None else list(names)
        return cls(game, seed, agents, shown, humans[0] if humans else None)

    @classmethod
    def replay(cls, record: dict, step: int) -> Match:
        """The game of a record (JSONL, or a tournament store's game) after its first `step`
        actions."""
        actions = [int(a) for a in record["actions"]]
        if not 0 <= step <= len(actions):
            raise MatchError(f"step {step} is outside 0..{len(actions)}")
        game = make_game(record["env_id"], **record["config"])
        match = cls(game, int(record["seed"]), [None] * game.num_players, list(record["seats"]))
        policy = record.get("policy") or [None] * len(actions)  # records may lack it
        for a, entry in zip(actions[:step], policy, strict=False):
            if match.over or a not in match.legal():
                raise MatchError(f"the record's action {a} at step {len(match.moves)} is illegal")
            match._apply(a, entry)
        return match

    def start_from(self, name: str, state: dict) -> None:
        """Play on from the position `name` (a state dict) instead of the deal; the chance
        still to come is seeded with the match's seed. Before any move only."""
        self.row = self.game.load_state_dict(state, self.seed)
        self.start = name

    # --- state --------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return int(self.row[layout.STATUS]) != layout.RUNNING

    @property
    def to_act(self) -> int:
        return int(self.row[layout.PLAYER])

    def legal(self) -> np.ndarray:
        type(self.game).legal_kernel(self.row, self._mask)
        return np.flatnonzero(self._mask)

    # --- moves --------------------------------------------------------------------------
    def play(self, action: int) -> None:
        """The person's move: it must be their turn and a legal action."""
        if self.over:
            raise MatchError("the game is over", 409)
        if self.to_act != self.human:
            raise MatchError(f"it is player_{self.to_act}'s turn, not yours", 409)
        _check_legal(action, self.legal(), lambda a: self.game.describe_action(self.row, a))
        self._apply(action)

    def step_agent(self) -> None:
        """One move of the agent to act (watching, or the seats after the person's)."""
        if self.over:
            raise MatchError("the game is over", 409)
        p = self.to_act
        agent = self.agents[p]
        if agent is None:
            raise MatchError(f"player_{p} is yours to play", 409)
        type(self.game).observe_kernel(self.row, p, self._obs)
        self.legal()
        chosen, probs, values = agent.act_with_policy(
            self._obs[None], self._mask[None], self.row[None], np.array([self.seed])
        )
        action = int(chosen[0])
        self._apply(action, None if probs is None else policy_entry(probs[0], values[0], action))

    def run_agents(self) -> None:
        """Agents move until the person is to act or the game is over."""
        while not self.over and self.to_act != self.human:
            self.step_agent()

    def _apply(self, action: int, policy: dict | None = None) -> None:
        """Make the move, put in words for every viewer; `policy` (a record's or
        `policy_entry`'s: top [action, ..., probability] and value) in words for the viewers
        who may see it: every card, and the seat that moved."""
        game, row = self.game, self.row
        words = {str(v): game.describe_action(row, action, v) for v in range(game.num_players)}
        words["all"] = game.describe_action(row, action)
        move = {"seat": self.to_act, "action": action, "words": words}
        if policy is not None:
            seat = self.to_act
            top = [(int(item[0]), float(item[-1])) for item in policy["top"]]
            move["policy"] = {
                "value": policy["value"],
                "top": {
                    key: [{"text": game.describe_action(row, a, v), "p": p} for a, p in top]
                    for key, v in (("all", None), (str(seat), seat))
                },
            }
        self.moves.append(move)
        self._rewards[:] = 0
        type(game).step_kernel(row, action, self._rewards)

    # --- views --------------------------------------------------------------------------
    def view(self, viewer: int | None) -> dict:
        """What the browser shows `viewer` (None: every card): plain JSON."""
        game, row = self.game, self.row
        pic = game.scene(row, viewer)
        live = not self.over and viewer is not None and self.to_act == viewer == self.human
        legal = self.legal() if live else np.zeros(0, dtype=np.int64)
        key = "all" if viewer is None else str(viewer)
        out = {
            "env_id": self.env_id,
            "title": game.title,
            "seats": self.specs,
            "viewer": viewer,
            "to_act": None if self.over else self.to_act,
            "step": len(self.moves),
            "scene": scene.clickable(pic, legal),
            "buttons": [
                {"action": int(a), "label": game.describe_action(row, int(a))}
                for a in scene.buttons(pic, legal)
            ],
            "log": self._opening() + [self._logged(m, key) for m in self.moves[-LOG_LINES:]],
            "over": self.over,
            "result": self.result() if self.over else None,
        }
        return out

    @staticmethod
    def _logged(move: dict, key: str) -> dict:
        """A move as the log shows it to viewer `key`, with the agent's policy if it may."""
        out = {"who": f"player_{move['seat']}", "text": move["words"][key]}
        policy = move.get("policy")
        if policy is not None and key in policy["top"]:
            out["policy"] = {"top": policy["top"][key], "value": policy["value"]}
        return out

    def _opening(self) -> list[dict]:
        """The log's first line for a game that started from a position: the moves do not
        say how the table came to be."""
        if self.start is None:
            return []
        return [{"who": "start", "text": f"the game started from position {self.start}"}]

    def result(self) -> dict:
        scores, wins = self.game.outcome(self.row)
        text = winners_text(self.game, self.row, self.specs)
        if int(self.row[layout.STATUS]) == layout.TRUNCATED:
            text = f"cut short at the turn limit; by the game's ranking {text}"
        return {"scores": scores.tolist(), "wins": wins.tolist(), "text": text}


class SoloMatch:
    """A single-agent env played by the person in the browser: Double or Nothing's run
    against the built-in computer, Rummidrez solo. The same face to the server as `Match`;
    the person is seat 0 and the only viewer, the computer's moves are in the log."""

    human = 0

    def __init__(self, env_id: str, config: dict[str, Any], seed: int = 0) -> None:
        self.env = make(env_id, **config)
        self.env_id = env_id
        self.lock = threading.Lock()
        self.moves: list[dict] = []  # who, text
        self.computer = getattr(self.env, "move_log", False) is not False
        if self.computer:
            self.env.move_log = []
        _, self.info = self.env.reset(seed=seed)
        self._log_computer()
        self.total = 0.0
        self.over = False
        self.truncated = False

    @property
    def to_act(self) -> int:
        return 0

    def legal(self) -> np.ndarray:
        return np.flatnonzero(self.env.action_masks())

    def play(self, action: int) -> None:
        if self.over:
            raise MatchError("the episode is over", 409)
        _check_legal(action, self.legal(), self.env.describe_action)
        self.moves.append({"who": "you", "text": self.env.describe_action(action)})
        _, reward, terminated, truncated, self.info = self.env.step(action)
        self._log_computer()
        self.total += reward
        self.over = bool(terminated or truncated)
        self.truncated = bool(truncated)

    def step_agent(self) -> None:
        raise MatchError("a solo game moves when the person plays", 409)

    def run_agents(self) -> None:
        """The computer moves inside the env's step."""

    def _log_computer(self) -> None:
        if self.computer:
            self.moves += [{"who": "computer", "text": m} for m in self.env.move_log]
            self.env.move_log.clear()

    def view(self, viewer: int | None) -> dict:
        pic = self.env.scene()
        legal = np.zeros(0, dtype=np.int64) if self.over else self.legal()
        facts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in self.info.items())
        return {
            "env_id": self.env_id,
            "title": self.env_id,
            "seats": [HUMAN],
            "viewer": 0,
            "to_act": None if self.over else 0,
            "step": len(self.moves),
            "scene": scene.clickable(pic, legal),
            "buttons": [
                {"action": int(a), "label": self.env.describe_action(int(a))}
                for a in scene.buttons(pic, legal)
            ],
            "log": self.moves[-LOG_LINES:],
            "over": self.over,
            "result": {
                "scores": [self.total],
                "wins": [],
                "text": f"return {self.total:g}{' (truncated)' if self.truncated else ''}; {facts}",
            }
            if self.over
            else None,
        }
