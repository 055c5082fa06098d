"""Tournament configs (YAML files or dicts), validated: a wrong key or value stops with a
message naming it and what is allowed.

```yaml
name: main                      # the tournament's name in the database (default: file stem)
seed: 0                         # everything is derived from it
db: runs/tournaments.sqlite     # SQLite file holding every finished game
out: runs/tournaments/main      # leaderboards (CSV), rating plots (PNG), records (JSONL)
backend: local                  # local (processes on this machine) or ray
workers: null                   # local: processes (null = all cores); ray: CPUs of a local Ray
ray_address: null               # ray: address of an existing cluster (null = start a local one)
chunk_games: 128                # games per task (and per database transaction)
record_actions: true            # store each game's actions (for JSONL records and replay)
record_policy: false            # and each decision's policy: the top actions' probabilities and
                                #   the value, for agents that have them (ppo, ismcts)
records: false                  # also write <out>/<event>.jsonl after the run
progress: auto                  # true, false, or auto: a progress bar only on a terminal
events:                         # one or more games, each with its own field of agents
  - env: no_thanks_v0
    name: no_thanks             # default: the env id
    config: {num_players: 4}    # the game's options
    agents:                     # spec strings, or {name, spec} to enter one spec twice
      - heuristic
      - random
      - {name: random_b, spec: random}
    format: random_tables       # round_robin (default for 2 players) or random_tables
    tables: 200                 # random_tables: how many tables to draw
    games: 8                    # games per table (per pairing), a multiple of the players
    rank_by: score_low          # win (default), score_low or score_high: how games rank seats
```
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from card_envs.config_file import Checks, ConfigFileError
from card_envs.registry import make_game, multi_agent_env_ids

FORMATS = ("round_robin", "random_tables")
RANK_BY = ("win", "score_low", "score_high")
BACKENDS = ("local", "ray")
DEFAULT_DB = "runs/tournaments.sqlite"
DEFAULT_OUT = "runs/tournaments"
DEFAULT_GAMES_2P = 100  # per pairing
DEFAULT_GAMES_PER_PLAYER = 4  # a table plays 4 x num_players games by default


class TournamentConfigError(ConfigFileError):
    """A tournament config with a wrong key or value."""


_check = Checks(TournamentConfigError)


@dataclass(frozen=True)
class Entry:
    """One agent of an event's field: a unique name, the spec that builds it with its own
    options, and the digest of what the spec loads (`agents.specs.spec_digest`): an edited
    `py:` file or a network shipped anew is another entrant under the same spec."""

    name: str
    spec: str
    options: dict = field(default_factory=dict)
    digest: str = ""

    def agent_spec(self):
        """The parsed spec with its options, its paths made absolute for workers."""
        from card_envs.agents.specs import parse_spec

        return parse_spec(self.spec, self.options).portable()


@dataclass(frozen=True)
class Event:
    """One game of a tournament, its config and the field of agents that play it."""

    name: str
    env: str
    config: dict
    agents: tuple[Entry, ...]
    num_players: int
    format: str
    games: int  # per table (a pairing is a table of two), a multiple of num_players
    tables: int | None  # random_tables only
    rank_by: str

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.agents]

    @property
    def specs(self) -> list[str]:
        return [e.spec for e in self.agents]


@dataclass(frozen=True)
class TournamentConfig:
    name: str
    seed: int
    db: str
    out: str
    backend: str
    workers: int | None
    ray_address: str | None
    chunk_games: int
    record_actions: bool
    records: bool
    progress: bool | None  # None: auto, a bar only when stderr is a terminal
    events: tuple[Event, ...]
    notes: tuple[str, ...] = field(default=(), compare=False)
    # not in the schedule: the same games are played with or without it
    record_policy: bool = False

    def schedule_dict(self) -> dict:
        """What decides the games: two runs with equal dicts play the same games."""
        return {
            "seed": self.seed,
            "chunk_games": self.chunk_games,
            "record_actions": self.record_actions,
            "events": [asdict(e) for e in self.events],
        }

    def schedule_hash(self) -> str:
        blob = json.dumps(self.schedule_dict(), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


TOP_KEYS = {
    "name": "the tournament's name (letters, digits, _ . -)",
    "seed": "non-negative int",
    "db": "path of the SQLite file",
    "out": "directory for leaderboards, plots and records",
    "backend": f"one of {list(BACKENDS)}",
    "workers": "positive int or null (all cores)",
    "ray_address": "Ray cluster address or null (start a local Ray)",
    "chunk_games": "positive int, games per task",
    "record_actions": "true or false",
    "record_policy": "true or false (store each decision's policy with the actions)",
    "records": "true or false (write JSONL records after the run)",
    "progress": "true, false or auto (a progress bar only when stderr is a terminal)",
    "events": "a list of events (or one event's keys at the top level)",
}
EVENT_KEYS = {
    "name": "the event's name (default: the env id)",
    "env": f"one of {multi_agent_env_ids()}",
    "config": "mapping of the game's options",
    "agents": "list of agent specs or {name, spec, options} mappings",
    "format": f"one of {list(FORMATS)}",
    "games": "positive int: games per table (per pairing)",
    "tables": "positive int: number of random tables",
    "rank_by": f"one of {list(RANK_BY)}",
}


def _entries(where: str, env_id: str, config: dict, agents: Any) -> tuple[Entry, ...]:
    from card_envs.agents import make_agent
    from card_envs.agents.human import check_unattended
    from card_envs.agents.specs import spec_digest

    if not isinstance(agents, list) or not agents:
        _check.fail(where, f"agents={agents!r} must be a non-empty list of agent specs")
    out: list[Entry] = []
    for k, item in enumerate(agents):
        at = f"{where}.agents[{k}]"
        if isinstance(item, str):
            name, options = item, {}
        elif isinstance(item, dict):
            keys = {"name": "", "spec": "", "options": "the agent's own options"}
            _check.unknown_keys(at, item, keys)
            if "spec" not in item:
                _check.fail(at, "needs a 'spec' (and optionally a 'name' and 'options')")
            item_spec = _check.str(at, "spec", item["spec"])
            name = _check.str(at, "name", item.get("name", item_spec))
            options = item.get("options") or {}
            if not isinstance(options, dict):
                _check.fail(at, f"options={options!r} must be a mapping of the agent's options")
            item = item_spec
        else:
            _check.fail(
                at,
                f"{item!r} must be a spec string or a mapping with 'name', 'spec' and "
                "'options' (an agent of your own is named by a py: spec, docs/specs.md)",
            )
        try:
            agent = make_agent(item, env_id, seed=0, options=options, **config)
            check_unattended(agent, "a tournament")
            entry = Entry(name, item, dict(options), spec_digest(item, env_id))
        except (ValueError, ImportError, OSError) as err:
            _check.fail(at, f"agent {item!r}: {err}")
        out.append(entry)
    seen: set[str] = set()
    for e in out:
        if e.name in seen:
            _check.fail(
                where,
                f"agent name {e.name!r} appears twice; give copies their own names, e.g. "
                f"{{name: {e.name}_b, spec: {e.spec}}} in a config file, {e.name}_b={e.spec} "
                "in --agents",
            )
        seen.add(e.name)
    return tuple(out)


def _event(where: str, raw: Any, notes: list[str]) -> Event:
    if not isinstance(raw, dict):
        _check.fail(
            where, f"an event must be a mapping with keys {sorted(EVENT_KEYS)}, got {raw!r}"
        )
    _check.unknown_keys(where, raw, EVENT_KEYS)
    if "env" not in raw:
        _check.fail(where, f"missing key 'env' (one of {multi_agent_env_ids()})")
    env_id = raw["env"]
    if env_id not in multi_agent_env_ids():
        allowed = multi_agent_env_ids()
        _check.fail(where, f"env={env_id!r} is not a multi-agent env id; allowed: {allowed}")
    config = raw.get("config", {}) or {}
    if not isinstance(config, dict):
        _check.fail(where, f"config={config!r} must be a mapping of the game's options")
    try:
        game = make_game(env_id, **config)
    except (ValueError, TypeError) as err:
        _check.fail(f"{where}.config", str(err))
    n = game.num_players
    config = {**config, "num_players": n}
    if "agents" not in raw:
        _check.fail(where, "missing key 'agents' (a list of agent specs)")
    agents = _entries(where, env_id, config, raw["agents"])
    field_size = len(agents)
    if field_size < n:
        _check.fail(
            where,
            f"{env_id} with num_players={n} needs at least {n} agents, got {field_size}; "
            "enter a spec again under another name ({name: random_b, spec: random} in a "
            "config file, random_b=random in --agents)",
        )
    name = _check.name(where, "name", raw.get("name", env_id))
    default_format = "round_robin" if n == 2 or field_size == n else "random_tables"
    fmt = _check.choice(where, "format", raw.get("format", default_format), FORMATS)
    default_games = DEFAULT_GAMES_2P if n == 2 else DEFAULT_GAMES_PER_PLAYER * n
    games = _check.int(where, "games", raw.get("games", default_games))
    if games % n:
        rounded = -(-games // n) * n
        notes.append(
            f"{where} ({name}): games={games} rounded up to {rounded}, a multiple of the {n} "
            "players, so every agent sits in every seat equally often"
        )
        games = rounded
    tables = raw.get("tables")
    if fmt == "round_robin":
        if tables is not None:
            _check.fail(
                where,
                "tables is only for format random_tables (round_robin plays every "
                f"{n}-agent table once: {math.comb(field_size, n)} tables)",
            )
    else:
        tables = _check.int(where, "tables", field_size if tables is None else tables)
    rank_by = _check.choice(where, "rank_by", raw.get("rank_by", "win"), RANK_BY)
    return Event(name, env_id, config, agents, n, fmt, games, tables, rank_by)


def _progress(source: str, value: Any) -> bool | None:
    if value == "auto":
        return None
    if not isinstance(value, bool):
        _check.fail(source, f"progress={value!r} must be true, false or auto")
    return value


def parse_config(raw: Any, source: str = "config", default_name: str = "tournament"):
    """A validated TournamentConfig from a parsed YAML document (a dict)."""
    if not isinstance(raw, dict):
        _check.fail(source, f"a tournament config must be a mapping, got {type(raw).__name__}")
    raw = dict(raw)
    if "events" not in raw and "env" in raw:  # one event written at the top level
        event = {k: raw.pop(k) for k in list(raw) if k in EVENT_KEYS and k != "name"}
        raw["events"] = [event]
    _check.unknown_keys(source, raw, TOP_KEYS)
    if "events" not in raw:
        _check.fail(source, "missing key 'events' (a list of events, each with env and agents)")
    events_raw = raw["events"]
    if not isinstance(events_raw, list) or not events_raw:
        _check.fail(source, f"events={events_raw!r} must be a non-empty list")
    notes: list[str] = []
    events = tuple(_event(f"{source}: events[{i}]", e, notes) for i, e in enumerate(events_raw))
    names = [e.name for e in events]
    for n in names:
        if names.count(n) > 1:
            _check.fail(source, f"event name {n!r} is used twice; give each event its own 'name'")
    name = _check.name(source, "name", raw.get("name", default_name))
    backend = _check.choice(source, "backend", raw.get("backend", "local"), BACKENDS)
    seed = _check.int(source, "seed", raw.get("seed", 0), low=0)
    record_actions = _check.bool(source, "record_actions", raw.get("record_actions", True))
    records = _check.bool(source, "records", raw.get("records", False))
    if records and not record_actions:
        _check.fail(source, "records: true needs record_actions: true (records are the actions)")
    record_policy = _check.bool(source, "record_policy", raw.get("record_policy", False))
    if record_policy and not record_actions:
        _check.fail(source, "record_policy: true needs record_actions: true (one per action)")
    return TournamentConfig(
        name=name,
        seed=seed,
        db=_check.str(source, "db", raw.get("db", DEFAULT_DB)),
        out=_check.str(source, "out", raw.get("out", f"{DEFAULT_OUT}/{name}")),
        backend=backend,
        workers=_check.int(source, "workers", raw.get("workers"), allow_none=True),
        ray_address=_check.str(source, "ray_address", raw.get("ray_address"), allow_none=True),
        chunk_games=_check.int(source, "chunk_games", raw.get("chunk_games", 128)),
        record_actions=record_actions,
        records=records,
        record_policy=record_policy,
        progress=_progress(source, raw.get("progress", "auto")),
        events=events,
        notes=tuple(notes),
    )


def load_config(path: str | Path, **overrides: Any) -> TournamentConfig:
    """Read and validate a YAML tournament config; `overrides` (not None) replace top-level
    keys (the command line's flags)."""
    raw = _check.read_yaml(path, overrides)
    return parse_config(raw, source=str(path), default_name=Path(path).stem)
