"""The Super Zwierzaki deck as data: 116 kinds of card, 539 cards, read from `deck.json`
(the project's own format, described in its `about` lines) and checked once, at import.

A kind's id is its position in the file. The engine works on the arrays below, indexed by
kind id: copies, colour and class as bit masks (a Wielka 5 has every bit of both, so one
test, `mask & given != 0`, decides whether a card may be played), and function codes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DECK_PATH = Path(__file__).with_name("deck.json")
FORMAT = "card_envs deck 1"
NUM_KINDS = 116
NUM_CARDS = 539

COLOURS = ("LB", "LG", "R", "DB", "V", "O", "DG", "Y", "P")
CLASSES = (
    "bir", "hip", "ins", "hed", "rep", "fis", "fro", "sml", "mky", "aml",
    "cat", "pig", "hor", "bat", "sea", "rod", "tre", "bea", "koo", "ant",
)  # fmt: skip
ANY_COLOUR, ANY_CLASS = "ALL", "all"  # the Wielka 5 cards: every colour and every class
# function code i + 1 (0: a card without a function)
FUNCTIONS = (
    "Red", "Orc", "Oth", "Giv", "All", "Pol", "Kaz",
    "War", "Cch", "Mch", "Dem", "Stp", "Dzi", "Cyr",
)  # fmt: skip


class DeckError(ValueError):
    """The deck file does not describe a valid deck."""


@dataclass(frozen=True)
class Kind:
    id: int
    number: int  # printed on the card; not unique in the source list, so not an id
    name: str
    colour: str  # one of COLOURS, or ANY_COLOUR
    klass: str  # one of CLASSES, or ANY_CLASS
    function: str | None  # one of FUNCTIONS, or None
    copies: int


def _field(entry: dict, key: str, where: str, allowed: tuple | None = None, kind: type = str):
    if key not in entry:
        raise DeckError(f"{where}: no {key!r}")
    value = entry[key]
    if value is None and key == "function":
        return None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DeckError(f"{where}: {key} {value!r} is not a {kind.__name__}")
    if allowed is not None and value not in allowed:
        raise DeckError(f"{where}: {key} {value!r} is not one of {', '.join(map(str, allowed))}")
    return value


def _kind(i: int, entry: object) -> Kind:
    where = f"kind {i}"
    if not isinstance(entry, dict):
        raise DeckError(f"{where}: {entry!r} is not an object")
    unknown = set(entry) - {"number", "name", "colour", "class", "function", "copies"}
    if unknown:
        raise DeckError(f"{where}: unknown keys {sorted(unknown)}")
    kind = Kind(
        id=i,
        number=_field(entry, "number", where, kind=int),
        name=_field(entry, "name", where),
        colour=_field(entry, "colour", where, COLOURS + (ANY_COLOUR,)),
        klass=_field(entry, "class", where, CLASSES + (ANY_CLASS,)),
        function=_field(entry, "function", where, FUNCTIONS),
        copies=_field(entry, "copies", where, kind=int),
    )
    if kind.copies < 1:
        raise DeckError(f"{where} ({kind.name}): copies {kind.copies} is not positive")
    wild = (kind.colour == ANY_COLOUR, kind.klass == ANY_CLASS, kind.function == "All")
    if any(wild) and not all(wild):
        raise DeckError(
            f"{where} ({kind.name}): a Wielka 5 has colour {ANY_COLOUR}, class {ANY_CLASS} "
            f"and function All together; got {kind.colour}, {kind.klass}, {kind.function}"
        )
    return kind


def load_deck(path: Path = DECK_PATH) -> tuple[Kind, ...]:
    """The kinds of a deck file, checked: every field valid, NUM_KINDS kinds, NUM_CARDS cards."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DeckError(f"{path}: not a deck file of format {FORMAT!r}")
    entries = data.get("kinds")
    if not isinstance(entries, list):
        raise DeckError(f"{path}: 'kinds' is not a list")
    kinds = tuple(_kind(i, e) for i, e in enumerate(entries))
    cards = sum(k.copies for k in kinds)
    if len(kinds) != NUM_KINDS or cards != NUM_CARDS:
        raise DeckError(
            f"{path}: {len(kinds)} kinds and {cards} cards; the deck has {NUM_KINDS} and "
            f"{NUM_CARDS}"
        )
    return kinds


def _mask(code: str, codes: tuple[str, ...], any_code: str) -> int:
    return (1 << len(codes)) - 1 if code == any_code else 1 << codes.index(code)


def _table(values: list[int]) -> np.ndarray:
    a = np.array(values, dtype=np.int64)
    a.flags.writeable = False
    return a


KINDS = load_deck()
KIND_COPIES = _table([k.copies for k in KINDS])
KIND_COLOURS = _table([_mask(k.colour, COLOURS, ANY_COLOUR) for k in KINDS])
KIND_CLASSES = _table([_mask(k.klass, CLASSES, ANY_CLASS) for k in KINDS])
KIND_FUNCTION = _table(
    [0 if k.function is None else FUNCTIONS.index(k.function) + 1 for k in KINDS]
)
