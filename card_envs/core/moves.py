"""Moves in words: the one reader of a move that a person types or a language model writes.

A legal move is `{"id": action id, "text": its words}` (`Game.legal_moves`). Two readers
share the matching here:

- `parse_move(text, moves, aliases)` (`Game.parse_action`): a move's id (digits, or a JSON
  object `{"id": 12}` / `{"move": 12}` / `{"action": "take"}`), or its exact words or one of
  its other names (the context-free `action_name`), any case, accents and spacing optional.
  Anything else is a `ValueError` that names what was given and lists the legal moves as
  `id: text`.
- `match(typed, options)` (the `human` agent): a number counting the options from 1, or a
  name, whole or a prefix that only one option has; it returns a message instead of raising,
  for the person to try again.
"""

from __future__ import annotations

import json
import numbers
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

Options = Sequence[tuple[int, Sequence[str]]]  # (action, its names: the first is shown)
ID_KEYS = ("id", "move", "action")  # the keys a JSON answer may hold its move under
_INT = re.compile(r"[+-]?\d+")


def fold(text: str) -> str:
    """Text for matching: case-folded, accents dropped, spaces collapsed."""
    if text.isascii():
        return " ".join(text.casefold().split())
    plain = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in plain if not unicodedata.combining(c)).split())


def named(typed: str, options: Options, prefixes: bool = True) -> list[tuple[int, str]]:
    """The options `typed` names, each as (action, its first name): those with a name equal
    to it (folded); when none is and `prefixes`, those with a name it begins."""
    key = fold(typed)
    if not key:
        return []
    folded = [(a, names[0], [fold(n) for n in names]) for a, names in options]
    hits = [(a, first) for a, first, keys in folded if key in keys]
    if hits or not prefixes:
        return hits
    return [(a, first) for a, first, keys in folded if any(n.startswith(key) for n in keys)]


def match(typed: str, options: Options) -> tuple[int | None, str]:
    """The action `typed` names among `options` ((action, its names)), and an empty message;
    or None and the message saying why not. A number counts the options from 1."""
    if typed.isdigit():
        i = int(typed)
        if 1 <= i <= len(options):
            return options[i - 1][0], ""
        return None, f"There is no move {typed}: type a number from 1 to {len(options)}."
    if not fold(typed):
        return None, f"Type a move's number (1 to {len(options)}) or its name; q quits."
    hits = named(typed, options)
    if len(hits) == 1:
        return hits[0][0], ""
    if hits:
        some = "; ".join(name for _, name in hits[:4]) + ("; ..." if len(hits) > 4 else "")
        return None, f"{typed!r} could be {len(hits)} moves ({some}): type more, or a number."
    return None, f"No move is called {typed!r}: type its number (1 to {len(options)}) or name."


def listing(moves: Sequence[Mapping[str, Any]]) -> str:
    """The moves one a line, as `id: text`."""
    return "\n".join(f"  {m['id']}: {m['text']}" for m in moves)


def _unwrap(given: Any) -> Any:
    """The move inside a JSON answer (an object under `ID_KEYS`, a string, a number), or the
    text itself when it is no such JSON."""
    if isinstance(given, str) and given.strip()[:1] in ("{", '"'):
        try:
            given = json.loads(given)
        except ValueError:
            return given
    if isinstance(given, dict):
        keys = [key for key in ID_KEYS if key in given]
        return _unwrap(given[keys[0]]) if len(keys) == 1 and len(given) == 1 else given
    return given


def parse_move(
    given: Any,
    moves: Sequence[Mapping[str, Any]],
    aliases: Mapping[int, Sequence[str]] | None = None,
    where: str = "",
) -> int:
    """The id of the legal move (`moves`: `{"id", "text"}`) that `given` names: its id, its
    text or one of its `aliases`, matched whole (`fold`); else a `ValueError` naming `given`
    and listing the legal moves. `where` (the env id) starts the message."""
    head = f"{where}: " if where else ""
    if not moves:
        raise ValueError(f"{head}no move can be played: the game is over (given {given!r})")
    legal = "the legal moves are (id: text):\n" + listing(moves)
    move = _unwrap(given)
    if isinstance(move, bool) or not isinstance(move, (str, numbers.Integral)):
        raise ValueError(f"{head}{given!r} names no move; {legal}")
    if not isinstance(move, str) or _INT.fullmatch(move.strip()):
        number = int(move.strip()) if isinstance(move, str) else int(move)
        if any(m["id"] == number for m in moves):
            return number
        raise ValueError(f"{head}move {given!r} is not legal here; {legal}")
    options = [(int(m["id"]), [m["text"], *(aliases or {}).get(int(m["id"]), ())]) for m in moves]
    hits = named(move, options, prefixes=False)
    ids = sorted({a for a, _ in hits})
    if len(ids) == 1:
        return ids[0]
    if ids:
        both = listing([m for m in moves if m["id"] in ids])
        raise ValueError(f"{head}{given!r} names {len(ids)} moves; give an id:\n{both}")
    raise ValueError(f"{head}{given!r} is not a legal move here; {legal}")
