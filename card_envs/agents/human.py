"""A person at a terminal as an agent: spec `human`.

`HumanAgent.choose(view, options)` shows a view (the table as the person's seat sees it) and
the legal actions as a numbered list, and reads a number or an action's name: the whole name
or a prefix that only one action has, any case, accents optional (`core.moves.match`, whose
matching `Game.parse_action` shares). Anything else is refused with a message and asked
again; `q` raises `Quit`. `card-envs play` (`card_envs.play`) calls
it with the table and the action descriptions of the seat's position; `act` alone, where
only an observation is known, lists the actions' context-free names.

The human agent plays one game at a time: `evaluate` and tournaments, which play batches of
games unattended, refuse it (`check_unattended`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from card_envs.agents.base import Agent
from card_envs.core.engine import Game
from card_envs.core.moves import match

CLEAR = "\033[2J\033[H"  # ANSI: clear the screen, cursor to the top


class Quit(Exception):
    """The person typed `q`: leave the game."""


class Terminal:
    """Text in and out; the streams are injectable for tests."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def show(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def ask(self, prompt: str) -> str:
        """A line typed after `prompt`; end of input is `Quit`."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise Quit
        return line.strip()

    def clear(self) -> None:
        """A clean screen: ANSI on a terminal, else blank lines that push the text away."""
        self.stdout.write(CLEAR if self.stdout.isatty() else "\n" * 60)
        self.stdout.flush()


class HumanAgent(Agent):
    name = spec = "human"
    interactive = True  # needs a person: refused where games are played unattended

    def __init__(self, game: Game, terminal: Terminal | None = None) -> None:
        self._game = game
        self.terminal = terminal or Terminal()

    def choose(self, view: str, options: Sequence[tuple[int, Sequence[str]]]) -> int:
        """Show `view` and the options ((action, [description, other names...])), numbered
        from 1; the action the person picks."""
        t = self.terminal
        if view:
            t.show(view)
        t.show("Your moves:")
        for i, (_, names) in enumerate(options, 1):
            t.show(f"  {i:>3}. {names[0]}")
        while True:
            typed = t.ask(f"Your move (1-{len(options)}, a name, or q to quit): ")
            if typed.lower() in ("q", "quit"):
                raise Quit
            action, message = match(typed, options)
            if action is not None:
                return action
            t.show(message)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.empty(len(masks), dtype=np.int64)
        for i, mask in enumerate(masks):
            view = f"Game {i + 1} of {len(masks)}:" if len(masks) > 1 else ""
            names = [(int(a), [self._game.action_name(int(a))]) for a in np.flatnonzero(mask)]
            out[i] = self.choose(view, names)
        return out


def check_unattended(agent: Agent, where: str) -> None:
    """A clear error when `agent` needs a person and `where` plays games unattended."""
    if getattr(agent, "interactive", False):
        raise ValueError(
            f"the {agent.spec!r} agent needs a person at a terminal: it plays in "
            f"'card-envs play ENV_ID --agents human,...', one game at a time, not in {where}, "
            "which plays batches of games unattended"
        )
