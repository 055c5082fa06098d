"""Reading a state dict back into a row: the checks every game's loader shares.

`Game.load_state_dict(d)` is the inverse of `Game.state_dict(row)`. It never builds a row the
game cannot be in. It works in layers:

- The header: `env_id`, `config`, `status`, `turn`, and optionally `rng`.
- The game's own fields: the game's `load_fields(reader, row)` reads them with a `Reader`,
  whose every complaint names the field and what was allowed. The game checks that every
  card is in exactly one place (`Reader.partition`) and that counts add up.
- The engine's conservation laws (`check_invariants`), as the last guard.
- Every other key of the dict must equal what the built position implies. Those are the
  fields the game derives, such as the scores or `done`. A dict that contradicts itself is
  refused there.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from card_envs.core import layout

STATUS_NAMES = ("running", "terminated", "truncated")  # layout.RUNNING, TERMINATED, TRUNCATED
HEADER_KEYS = ("env_id", "config", "status", "turn", "rng")  # every game's state dict has them
HISTORY_KEY = "history"  # the kept public actions, with the `history` option on
RNG_WORD = 1 << 32  # the PRNG state is four 32-bit words
# the highest `turn` any state dict may give: the int64 row holds it and every turn played
# on from it; each game's loader bounds the turn further by what its position allows
TURN_LIMIT = 1 << 62
FIELD = object()  # `value` not given: read the field named `key` (a given value may be None)


class StateDictError(ValueError):
    """A state dict that no game of this env and config can be in."""


def plain(value: Any) -> Any:
    """`value` as JSON would give it back (tuples as lists, numpy scalars as numbers)."""
    return json.loads(json.dumps(value, default=lambda x: x.item()))


class Reader:
    """The fields of one state dict, read with checks; errors say
    `<env_id> state dict: <field>: <what was wrong>`."""

    def __init__(self, env_id: str, d: Any) -> None:
        self.env_id = env_id
        if not isinstance(d, dict):
            raise StateDictError(f"{env_id}: a state dict must be a dict, got {type(d).__name__}")
        self.d = d

    def fail(self, key: str, message: str) -> None:
        raise StateDictError(f"{self.env_id} state dict: {key}: {message}")

    def get(self, key: str) -> Any:
        if key not in self.d:
            self.fail(key, "missing")
        return self.d[key]

    def int(self, key: str, low: int, high: int | None = None, value: Any = FIELD) -> int:
        """An int in low..high (`value` instead of the field's own, for list items)."""
        v = self.get(key) if value is FIELD else value
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            self.fail(key, f"{v!r} is not an int")
        if v < low or (high is not None and v > high):
            self.fail(key, f"{v} is not in {low}..{'' if high is None else high}")
        return int(v)

    def bool(self, key: str) -> bool:
        v = self.get(key)
        if not isinstance(v, bool):
            self.fail(key, f"{v!r} is not true or false")
        return v

    def choice(self, key: str, names: Sequence[str]) -> int:
        """The index of the field's value in `names`."""
        v = self.get(key)
        if v not in names:
            self.fail(key, f"{v!r} is not one of {list(names)}")
        return list(names).index(v)

    def ints(
        self,
        key: str,
        low: int,
        high: int | None = None,
        length: int | None = None,
        value: Any = FIELD,
    ) -> list[int]:
        """A list of ints in low..high, of `length` items when given."""
        v = self.get(key) if value is FIELD else value
        if not isinstance(v, (list, tuple)):
            self.fail(key, f"{v!r} is not a list")
        if length is not None and len(v) != length:
            self.fail(key, f"has {len(v)} items, not {length}")
        return [self.int(f"{key}[{i}]", low, high, x) for i, x in enumerate(v)]

    def per_seat(self, key: str, n: int) -> list:
        """A list with one item per seat."""
        v = self.get(key)
        if not isinstance(v, (list, tuple)) or len(v) != n:
            self.fail(key, f"must be a list of {n} items, one per seat; got {v!r}")
        return list(v)

    def partition(self, places: dict[str, Iterable[Any]], cards: Iterable[Any]) -> None:
        """Every card of `cards` (a multiset) in exactly one of `places`: nothing missing,
        nothing twice, nothing foreign."""
        have: Counter = Counter()
        for items in places.values():
            have.update(items)
        want = Counter(cards)
        extra, missing = have - want, want - have
        if extra or missing:
            where = ", ".join(places)
            parts = []
            if extra:
                parts.append(f"too many of or unknown cards {sorted(extra.elements())}")
            if missing:
                parts.append(f"missing {sorted(missing.elements())}")
            self.fail(where, "every card must be in exactly one place: " + "; ".join(parts))


def game_fields(d: dict) -> dict:
    """A state dict without its header: the game's own fields (what a reference
    implementation of the rules holds)."""
    return {k: v for k, v in d.items() if k not in (*HEADER_KEYS, HISTORY_KEY)}


def stored_config(config: dict) -> dict:
    """The config without `history` when it is off: state dicts written before that option
    existed load unchanged."""
    return {k: v for k, v in config.items() if k != "history" or v}


def header(row: np.ndarray, env_id: str, config: dict) -> dict:
    """The keys every game's state dict starts with."""
    return {
        "env_id": env_id,
        "config": plain(dict(config)),
        "status": STATUS_NAMES[int(row[layout.STATUS])],
        "turn": int(row[layout.TURN]),
        "rng": [int(w) for w in row[layout.RNG : layout.RNG + 4]],
    }


def read_identity(r: Reader, config: dict) -> None:
    """`env_id` and `config` must be the env's own (every env's state dict starts with them;
    `read_header` for a game, also the run env's)."""
    env_id = r.get("env_id")
    if env_id != r.env_id:
        r.fail("env_id", f"{env_id!r} is not this env's {r.env_id!r}")
    given = r.get("config")
    if not isinstance(given, dict):
        r.fail("config", f"{given!r} is not a mapping of options")
    given, config = stored_config(given), stored_config(config)
    for name in sorted(set(given) | set(config)):
        if plain(given.get(name)) != plain(config.get(name)):
            r.fail(
                "config",
                f"option {name}={given.get(name)!r}, but the env was made with "
                f"{name}={config.get(name)!r}; make the env with the position's config",
            )


def read_header(r: Reader, row: np.ndarray, config: dict, seed: int | None) -> None:
    """`env_id` and `config` must be this game's; `status`, `turn` and the PRNG go into the
    row. Without `rng`, the PRNG (the chance to come) is seeded from `seed`."""
    from card_envs.core import rng

    read_identity(r, config)
    row[layout.STATUS] = r.choice("status", STATUS_NAMES)
    row[layout.TURN] = r.int("turn", 0, TURN_LIMIT)
    if "rng" in r.d:
        words = r.ints("rng", 0, RNG_WORD - 1, length=4)
        if not any(words):
            r.fail("rng", "the four words of the PRNG state cannot all be 0")
        row[layout.RNG : layout.RNG + 4] = words
    else:
        rng.seed_row(row, int(np.random.SeedSequence(seed).generate_state(1)[0]))


def check_implied(r: Reader, implied: dict) -> None:
    """Every key of the dict is a key the game writes, and says what the position implies."""
    for key, value in r.d.items():
        if key not in implied:
            r.fail(key, f"unknown key; a state dict of {r.env_id} has {sorted(implied)}")
        want = implied[key]
        if key == "config" and isinstance(value, dict):  # `history=0` written out or not
            value, want = stored_config(value), stored_config(want)
        if plain(value) == plain(want):
            continue
        r.fail(key, f"is {value!r}, but the position implies {want!r}")
