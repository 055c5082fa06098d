"""Declared, validated game options: a wrong key or value fails loudly, naming what is allowed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# the highest count an option takes (`max_turns`, `max_placements`): far beyond any game
# played, and small enough that every count an engine derives from it fits its int64 row
COUNT_CAP = 1_000_000


class ConfigError(ValueError):
    """A config key or value that the game does not accept."""


@dataclass(frozen=True)
class Option:
    """One option of a game: its default, its type and the values it may take."""

    default: Any
    doc: str
    choices: tuple | None = None
    low: int | None = None
    high: int | None = None
    # for structured values: returns the normalised value or raises ValueError saying why
    validate: Callable[[Any], Any] | None = None

    def check(self, owner: str, name: str, value: Any) -> Any:
        if self.validate is not None:
            try:
                return self.validate(value)
            except (TypeError, ValueError) as err:
                raise ConfigError(f"{owner}: option {name}={value!r}: {err}") from None
        kind = type(self.default)
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            if not (kind is int and hasattr(value, "__index__") and not isinstance(value, bool)):
                raise ConfigError(
                    f"{owner}: option {name}={value!r} must be of type {kind.__name__}"
                )
            value = int(value)
        if self.choices is not None and value not in self.choices:
            raise ConfigError(f"{owner}: option {name}={value!r} is not one of {self.choices}")
        if self.low is not None and value < self.low or self.high is not None and value > self.high:
            raise ConfigError(
                f"{owner}: option {name}={value!r} is outside the allowed range "
                f"{self.low}..{self.high}"
            )
        return value


def resolve(owner: str, options: Mapping[str, Option], given: Mapping[str, Any]) -> dict:
    """Defaults overlaid with `given`, every key and value checked."""
    unknown = sorted(set(given) - set(options))
    if unknown:
        raise ConfigError(
            f"{owner}: unknown option(s) {unknown}; allowed options are {sorted(options)}"
        )
    return {
        name: opt.check(owner, name, given[name]) if name in given else opt.default
        for name, opt in options.items()
    }
