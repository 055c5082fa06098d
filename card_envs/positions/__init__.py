"""Named positions: hand-written game states to start an env from, stored as readable YAML.

    from card_envs import positions
    env = positions.load("no_thanks/last-card").make_env()     # an AEC env at that position
    positions.names()                                          # every built-in name

A positions file maps names to entries:

```yaml
last-card:
  description: the last card is on offer; player_1 has no tokens left and must take it
  env: no_thanks_v0
  config: {num_players: 3}           # the game's options (defaults fill the rest)
  state:                             # a state dict (`env.state_dict()`) without env_id,
    status: running                  #   config and, optionally, rng: the chance still to
    turn: 60                         #   come is then seeded when the position is loaded
    current_player: 1
    ...
```

Keys the game derives (scores, done) may be left out; given, they are checked. Every
position is checked by the game's `load_state_dict` when it is read, so a bad file stops
with the position's name and the field at fault. The built-in files are this package's
`<game>.yaml` (the name `no_thanks/last-card` is entry `last-card` of `no_thanks.yaml`); any
other file can be read with `read_file` (`card-envs evaluate --positions FILE`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from card_envs.core.loading import plain

HERE = Path(__file__).resolve().parent
ENTRY_KEYS = {"description", "env", "config", "state"}


class PositionError(ValueError):
    """A positions file or entry that cannot be read, or an unknown name."""


@dataclass(frozen=True)
class Position:
    name: str
    description: str
    env_id: str
    config: dict  # the game's full config
    state: dict  # a state dict for `load_state_dict` (env_id and config included)

    def make_env(self, seed: int | None = None, **kwargs: Any):
        """An AEC env of the position's game (`kwargs`: render_mode, illegal_action) at the
        position; `seed` seeds the chance still to come when the state has no `rng`."""
        from card_envs.registry import make

        env = make(self.env_id, **self.config, **kwargs)
        env.reset(seed=seed)
        env.load_state_dict(self.state, seed=seed)
        return env


def _entry(name: str, raw: Any) -> Position:
    from card_envs.registry import make_game

    if not isinstance(raw, dict):
        raise PositionError(f"position {name}: an entry must be a mapping, got {raw!r}")
    unknown = set(raw) - ENTRY_KEYS
    if unknown or not {"env", "state"} <= set(raw):
        raise PositionError(
            f"position {name}: keys {sorted(raw)}; an entry has env, state and optionally "
            "description and config"
        )
    try:
        game = make_game(raw["env"], **(raw.get("config") or {}))
    except (ValueError, TypeError) as err:
        raise PositionError(f"position {name}: {err}") from None
    if not isinstance(raw["state"], dict):
        raise PositionError(f"position {name}: state must be a mapping")
    state = {"env_id": game.env_id, "config": plain(game.config), **raw["state"]}
    try:
        game.load_state_dict(state)  # checked now: a bad file fails when read
    except ValueError as err:
        raise PositionError(f"position {name}: {err}") from None
    return Position(name, str(raw.get("description", "")), game.env_id, dict(game.config), state)


def read_file(path: str | Path, prefix: str = "") -> list[Position]:
    """Every position of a positions file, in file order, each checked."""
    import yaml

    p = Path(path)
    if not p.is_file():
        raise PositionError(f"{path}: no such positions file")
    try:
        raw = _parse(p)
    except yaml.YAMLError as err:
        raise PositionError(f"{path}: not valid YAML: {err}") from None
    if not isinstance(raw, dict) or not raw:
        raise PositionError(f"{path}: a positions file maps names to positions")
    return [_entry(f"{prefix}{name}", entry) for name, entry in raw.items()]


def _parse(path: Path):
    """The YAML document at `path`, parsed by libyaml where PyYAML has it (its wheels do):
    six times faster than the Python parser, which made up most of a web app's start."""
    import yaml

    return yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def names() -> list[str]:
    """Every built-in position's name (`<game>/<entry>`)."""
    return [f"{f.stem}/{name}" for f in sorted(HERE.glob("*.yaml")) for name in _parse(f)]


def every() -> list[Position]:
    """Every built-in position, each file read and checked once, in `names()` order."""
    return [p for f in sorted(HERE.glob("*.yaml")) for p in read_file(f, prefix=f"{f.stem}/")]


def of_env(env_id: str) -> list[Position]:
    """Every built-in position of `env_id`, in file order (only the files naming it are
    read and checked)."""
    found: list[Position] = []
    for f in sorted(HERE.glob("*.yaml")):
        if any(entry["env"] == env_id for entry in _parse(f).values()):
            found += [p for p in read_file(f, prefix=f"{f.stem}/") if p.env_id == env_id]
    return found


def load(name: str) -> Position:
    """The built-in position `name` (`<game>/<entry>`, see `names()`)."""
    game, _, entry = name.partition("/")
    path = HERE / f"{game}.yaml"
    if not entry or not path.is_file():
        raise PositionError(f"unknown position {name!r}; known: {names()}")
    for position in read_file(path, prefix=f"{game}/"):
        if position.name == name:
            return position
    raise PositionError(f"unknown position {name!r}; known: {names()}")
