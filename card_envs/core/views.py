"""A seat's view in words and as JSON, for language models and people (`Game.view`).

`Game.view(row, seat)` is a plain dict of what `seat` may see, in plain English keys. It
starts with the keys every game shares (`header`): `game` (the env id), `you` (the seat's
agent name, "player_0"...), `to_act` (the agent to act, None once over), `turn` (the moves
made so far in this game), `done`, and `outcome` (None while the game runs; at the end `scores`
per agent, `winners`, and `truncated`). The game's own keys follow (`Game.view_fields`).
`Game.view_text` says the same in lines of text, starting with `head_lines`.

`SeatViews` gives a one-seat Gymnasium env (the learner's view of a game, the solo game, the
Double or Nothing run) the same methods, on its current row and seat.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core import layout

Game = Any  # a `core.engine.Game` (which imports this module)


def agent_name(seat: int) -> str:
    """The name the envs give seat `seat`: "player_0"..."""
    return f"player_{int(seat)}"


def plain(x: Any) -> int | float:
    """A number as JSON shows it best: an int when whole, else a float."""
    x = float(x)
    return int(x) if x.is_integer() else x


def outcome(game: Game, row: np.ndarray) -> dict:
    """A finished game's outcome: each agent's score as the game counts it, the winners
    (every seat sharing the win: a draw) and whether the game was cut short."""
    scores, _ = game.outcome(row)
    return {
        "scores": {agent_name(p): plain(s) for p, s in enumerate(scores)},
        "winners": [agent_name(p) for p in game.winners(row)],
        "truncated": bool(row[layout.STATUS] == layout.TRUNCATED),
    }


def header(game: Game, row: np.ndarray, seat: int) -> dict:
    """The keys every game's view starts with."""
    done = bool(row[layout.STATUS] != layout.RUNNING)
    return {
        "game": game.env_id,
        "you": agent_name(seat),
        "to_act": None if done else agent_name(row[layout.PLAYER]),
        "turn": int(row[layout.TURN]),
        "done": done,
        "outcome": outcome(game, row) if done else None,
    }


def who(name: str | None, view: dict) -> str:
    """An agent name in a view's text: "player_1", or "you (player_1)" for the viewer (as
    the table scenes name seats, `core.scene.seat_name`)."""
    return f"you ({name})" if name == view["you"] else str(name)


def result_words(winners: list[str], num_players: int) -> str:
    """Who won, in words, as every face says it: "a draw" (every seat shares the win), "X
    won", or "X and Y share the win"."""
    if len(winners) == num_players > 1:
        return "a draw"
    if len(winners) == 1:
        return f"{winners[0]} won"
    return " and ".join(winners) + " share the win"


def head_lines(title: str, view: dict) -> list[str]:
    """The text view's first lines: the game and the viewer, then whose turn it is or how
    the game ended (scores and winners)."""
    lines = [f"{title} ({view['game']}), as you ({view['you']}) see it."]
    if not view["done"]:
        lines.append(f"Move {view['turn'] + 1}: {who(view['to_act'], view)} to act.")
        return lines
    out = view["outcome"]
    result = result_words([who(w, view) for w in out["winners"]], len(out["scores"]))
    cut = " (cut short at the turn limit)" if out["truncated"] else ""
    lines.append(f"Game over after {view['turn']} moves{cut}: {result}.")
    scores = ", ".join(f"{who(a, view)} {s}" for a, s in out["scores"].items())
    lines.append(f"Scores: {scores}.")
    return lines


class SeatViews:
    """`view`, `view_text`, `legal_moves`, `parse_action` and `rules_summary` for an env
    with one seat of its own: `_faces()` returns (game, row, seat) of its current game."""

    def _faces(self) -> tuple[Game, np.ndarray, int]:
        raise NotImplementedError

    def view(self) -> dict:
        """The seat's view as a JSON-able dict (`Game.view`)."""
        game, row, seat = self._faces()
        return game.view(row, seat)

    def view_text(self) -> str:
        """The seat's view as text for a prompt (`Game.view_text`)."""
        game, row, seat = self._faces()
        return game.view_text(row, seat)

    def legal_moves(self) -> list[dict]:
        """The seat's legal moves as `{"id", "text"}` (`Game.legal_moves`): none once over."""
        game, row, seat = self._faces()
        return game.legal_moves(row, seat)

    def parse_action(self, text: str) -> int:
        """The action id of the legal move `text` names (`Game.parse_action`)."""
        game, row, _ = self._faces()
        return game.parse_action(row, text)

    @property
    def rules_summary(self) -> str:
        """The game's rules in brief, for a prompt."""
        return self._faces()[0].rules_summary
