"""Checks shared by the YAML config files (tournaments, training): every wrong key or value
stops with a message naming where it is, the value, and what is allowed."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class ConfigFileError(ValueError):
    """A config file (or dict) with a wrong key or value."""


class Checks:
    """Value checks that raise `error` (a ConfigFileError subclass) as `<where>: <message>`."""

    def __init__(self, error: type[ConfigFileError] = ConfigFileError) -> None:
        self.error = error

    def fail(self, where: str, msg: str):
        raise self.error(f"{where}: {msg}")

    def unknown_keys(self, where: str, given: dict, allowed: dict | set) -> None:
        for key in given:
            if key not in allowed:
                self.fail(where, f"unknown key {key!r}; allowed keys are {sorted(allowed)}")

    def mapping(self, where: str, key: str, value: Any) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(where, f"{key}={value!r} must be a mapping")
        return value

    def int(self, where: str, key: str, value: Any, low: int = 1, allow_none: bool = False):
        if value is None and allow_none:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            what = f"an int >= {low}" + (" or null" if allow_none else "")
            self.fail(where, f"{key}={value!r} must be {what}")
        return value

    def float(
        self,
        where: str,
        key: str,
        value: Any,
        low: float = 0.0,
        high: float = float("inf"),
        allow_none: bool = False,
    ):
        """A number in [low, high]; YAML ints are accepted (and made floats)."""
        if value is None and allow_none:
            return None
        if isinstance(value, str):  # YAML 1.1 reads 3e-4 (no dot) as a string
            try:
                value = float(value)
            except ValueError:
                pass
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not (low <= value <= high)
        ):
            what = f"a number in [{low}, {high}]" + (" or null" if allow_none else "")
            self.fail(where, f"{key}={value!r} must be {what}")
        return float(value)

    def bool(self, where: str, key: str, value: Any) -> bool:
        if not isinstance(value, bool):
            self.fail(where, f"{key}={value!r} must be true or false")
        return value

    def str(self, where: str, key: str, value: Any, allow_none: bool = False):
        if value is None and allow_none:
            return None
        if not isinstance(value, str) or not value.strip():
            self.fail(where, f"{key}={value!r} must be a non-empty string")
        return value

    def choice(self, where: str, key: str, value: Any, choices: tuple) -> Any:
        if value not in choices:
            self.fail(where, f"{key}={value!r} is not one of {list(choices)}")
        return value

    def name(self, where: str, key: str, value: Any) -> str:
        value = self.str(where, key, value)
        if not all(c.isalnum() or c in "_.-" for c in value):
            self.fail(where, f"{key}={value!r} may only use letters, digits, '_', '.' and '-'")
        return value

    def read_yaml(self, path: str | Path, overrides: dict | None = None) -> Any:
        """The parsed YAML document at `path` with `overrides` (those not None) replacing
        its top-level keys (the command line's flags); a missing file or bad YAML is an
        error."""
        import yaml

        p = Path(path)
        if not p.is_file():
            raise self.error(f"{path}: no such config file")
        try:
            raw = yaml.safe_load(p.read_text())
        except yaml.YAMLError as err:
            raise self.error(f"{path}: not valid YAML: {err}") from None
        if isinstance(raw, dict) and overrides:
            raw = {**raw, **{k: v for k, v in overrides.items() if v is not None}}
        return raw
