"""Every finished game in one SQLite file.

Table `games`: one row per game with the tournament, event, env id and config (JSON), the
chunk, table and game index, the seed it was dealt from, the agent name and spec in each
seat, each seat's rewards, scores and win share (JSON lists), its length, whether it was
truncated, (when recorded) its actions and each decision's policy (`policy`, with
`record_policy`), and each seat's decisions and the seconds its agent took for them
(`moves`, `think`; empty in databases written before they were kept, which get the columns
when opened, as they get `policy`). The key (tournament, event, table, game) makes
a game impossible to store twice. A chunk's games are written in one transaction, so a
killed run leaves whole chunks or nothing of them.

Table `tournaments`: each tournament's seed and, per event, its game, config, format and
every entrant ever entered (spec, options and the digest of what the spec loads), so that a
rerun resumes, a grown config (more entrants, events, games or tables) plays only its new
games, and a changed one (seed, an event's game or format, an entrant's spec or digest) is
refused instead of being mixed with the old games. Table `tables_drawn`: each event's
tables in schedule order (members and occurrence), which random tables keep when they grow.
A game's `table_index` is its table's key (`schedule.Table.key`), `chunk` the seed of the
first game of the chunk that played it.

A file that is not a store is refused on open with a StoreError naming it, which the
commands print as one line: not SQLite, damaged (`PRAGMA quick_check`), or another
program's database (its tables are left alone). Damage inside a row's text, which
quick_check does not read, is found when the row is read and refused the same way.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from card_envs.evaluation.arena import GameBatch
from card_envs.tournament.config import TournamentConfig
from card_envs.tournament.schedule import EventPlan, Table

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    name TEXT PRIMARY KEY,
    schedule_hash TEXT NOT NULL,
    config TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    tournament TEXT NOT NULL,
    event TEXT NOT NULL,
    env_id TEXT NOT NULL,
    config TEXT NOT NULL,
    chunk INTEGER NOT NULL,
    table_index INTEGER NOT NULL,
    game INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    agents TEXT NOT NULL,
    rewards TEXT NOT NULL,
    scores TEXT NOT NULL,
    wins TEXT NOT NULL,
    length INTEGER NOT NULL,
    truncated INTEGER NOT NULL,
    actions TEXT,
    finished_at TEXT NOT NULL,
    moves TEXT,
    think TEXT,
    policy TEXT,
    PRIMARY KEY (tournament, event, table_index, game)
);
CREATE INDEX IF NOT EXISTS games_by_chunk ON games (tournament, event, chunk);
CREATE TABLE IF NOT EXISTS tables_drawn (
    tournament TEXT NOT NULL,
    event TEXT NOT NULL,
    position INTEGER NOT NULL,
    members TEXT NOT NULL,
    occurrence INTEGER NOT NULL,
    PRIMARY KEY (tournament, event, position)
);
"""

GAME_COLUMNS = (
    "tournament",
    "event",
    "env_id",
    "config",
    "chunk",
    "table_index",
    "game",
    "seed",
    "seats",
    "agents",
    "rewards",
    "scores",
    "wins",
    "length",
    "truncated",
    "actions",
    "finished_at",
    "moves",
    "think",
    "policy",
)
ADDED_COLUMNS = ("moves", "think", "policy")  # not in databases of earlier versions


class TournamentMismatch(ValueError):
    """The database holds a tournament of that name with a different schedule."""


class StoreError(ValueError):
    """The database path is not a tournament store (nor a place where one can be created)."""


def _floats(row: np.ndarray) -> str:
    return json.dumps([float(x) for x in row])


def _decoded(values: tuple) -> dict:
    row = dict(zip(GAME_COLUMNS, values, strict=True))
    for key in (
        "config",
        "seats",
        "agents",
        "rewards",
        "scores",
        "wins",
        "actions",
        *ADDED_COLUMNS,
    ):
        if row[key] is not None:
            row[key] = json.loads(row[key])
    row["truncated"] = bool(row["truncated"])
    return row


class Store:
    def __init__(self, path: str | Path, check: bool = True) -> None:
        """Open the store at `path`, or create it where there is no file (or an empty
        SQLite database). `check`: first run `PRAGMA quick_check`, which reads the whole
        file (once per process is enough for a file nobody else writes)."""
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(self.path, timeout=60)
        except sqlite3.DatabaseError as err:  # e.g. a directory
            raise self._refused(err) from None
        try:
            self._open(check)
        except sqlite3.DatabaseError as err:  # e.g. "file is not a database"
            self.conn.close()
            raise self._refused(err) from None
        except StoreError:
            self.conn.close()
            raise

    def _open(self, check: bool) -> None:
        if check:
            found = [row[0] for row in self.conn.execute("PRAGMA quick_check")]
            if found != ["ok"]:
                raise self._refused(f"damaged: PRAGMA quick_check says {found[0]}")
        query = "SELECT name FROM sqlite_master WHERE type = 'table'"
        tables = sorted(row[0] for row in self.conn.execute(query))
        if tables and not {"tournaments", "games"} <= set(tables):
            raise self._refused(f"an SQLite database of something else, with tables {tables}")
        self.conn.executescript(SCHEMA)
        have = {r[1] for r in self.conn.execute("PRAGMA table_info(games)")}
        missing = [c for c in GAME_COLUMNS if c not in have and c not in ADDED_COLUMNS]
        if missing:
            raise self._refused(f"its games table has no columns {missing}")
        with self.conn:
            for column in ADDED_COLUMNS:
                if column not in have:
                    self.conn.execute(f"ALTER TABLE games ADD COLUMN {column} TEXT")

    def _refused(self, why: object) -> StoreError:
        """The error naming the file and why, on one line of printable ASCII (a damaged
        row's text is quoted in SQLite's message)."""
        text = " ".join(str(why).split()).encode("ascii", "replace").decode()
        text = text if len(text) <= 120 else text[:117] + "..."
        return StoreError(f"{self.path}: cannot be used as a tournament store ({text})")

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Rows read with a damage quick_check does not see (text that is not UTF-8 or not
        JSON) refused as StoreError naming the file."""
        try:
            yield
        except (sqlite3.DatabaseError, json.JSONDecodeError) as err:
            raise self._refused(f"damaged: {err}") from None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- tournaments ------------------------------------------------------------------
    def open_tournament(self, config: TournamentConfig, restart: bool = False) -> int:
        """Register the tournament, or check that the stored one can grow into `config`
        (`growth_problem`) and record what it adds; with `restart`, forget its games first.
        Returns the number of its games already stored."""
        with self._reading(), self.conn:
            if restart:
                for table, key in (("games", "tournament"), ("tables_drawn", "tournament"),
                                   ("tournaments", "name")):  # fmt: skip
                    self.conn.execute(f"DELETE FROM {table} WHERE {key} = ?", (config.name,))
            row = self.conn.execute(
                "SELECT config FROM tournaments WHERE name = ?", (config.name,)
            ).fetchone()
            registry = registry_of(config)
            if row is not None:
                stored = json.loads(row[0])
                problem = growth_problem(stored, registry)
                if problem:
                    raise TournamentMismatch(
                        f"tournament {config.name!r} in {self.path}: {problem}; rerun with "
                        "--restart to discard its games, or choose another name (--name) or "
                        "database (--db)"
                    )
                registry = merged(stored, registry)
            self.conn.execute(
                "INSERT OR REPLACE INTO tournaments VALUES (?, ?, ?, ?)",
                (
                    config.name,
                    config.schedule_hash(),
                    json.dumps(registry, sort_keys=True, default=str),
                    time.strftime("%Y-%m-%dT%H:%M:%S"),
                ),
            )
        return self.count(config.name)

    def kept_tables(self, tournament: str) -> dict[str, list[Table]]:
        """Each event's stored tables, in schedule order."""
        rows = self.conn.execute(
            "SELECT event, members, occurrence FROM tables_drawn WHERE tournament = ? "
            "ORDER BY event, position",
            (tournament,),
        )
        out: dict[str, list[Table]] = {}
        for event, members, occurrence in rows:
            out.setdefault(event, []).append(Table(tuple(json.loads(members)), int(occurrence)))
        return out

    def save_tables(self, tournament: str, plan: EventPlan) -> None:
        """The event's tables as planned (the kept ones first, in their order), then the
        stored ones the plan left out (a removed entrant's), so that entering it again
        brings its tables back."""
        planned = set(plan.tables)
        left_out = [
            t for t in self.kept_tables(tournament).get(plan.event.name, []) if t not in planned
        ]
        tables = [*plan.tables, *left_out]
        with self.conn:
            self.conn.execute(
                "DELETE FROM tables_drawn WHERE tournament = ? AND event = ?",
                (tournament, plan.event.name),
            )
            self.conn.executemany(
                "INSERT INTO tables_drawn VALUES (?, ?, ?, ?, ?)",
                [
                    (tournament, plan.event.name, k, json.dumps(list(t.members)), t.occurrence)
                    for k, t in enumerate(tables)
                ],
            )

    def stored_games(self, tournament: str, event: str) -> set[tuple[int, int]]:
        """(table key, game index) of every stored game of the event."""
        rows = self.conn.execute(
            "SELECT table_index, game FROM games WHERE tournament = ? AND event = ?",
            (tournament, event),
        )
        return {(int(t), int(g)) for t, g in rows}

    def count(self, tournament: str, event: str | None = None) -> int:
        sql, args = "SELECT COUNT(*) FROM games WHERE tournament = ?", [tournament]
        if event is not None:
            sql += " AND event = ?"
            args.append(event)
        return int(self.conn.execute(sql, args).fetchone()[0])

    # --- games ------------------------------------------------------------------------
    def add_chunk(
        self, tournament: str, plan: EventPlan, games: np.ndarray, batch: GameBatch
    ) -> None:
        """Store a finished chunk's games (`games`: their indices in the plan) in one
        transaction."""
        ev = plan.event
        if batch.lengths.shape[0] != len(games):
            raise ValueError(f"a chunk of {ev.name}: expected {len(games)} games")
        config = json.dumps(ev.config, sort_keys=True)
        now = time.strftime("%Y-%m-%dT%H:%M:%S")
        label = int(plan.seeds[games[0]])
        rows = []
        for i, g in enumerate(np.asarray(games).tolist()):
            seats = batch.agent_of_seat[i]
            rows.append(
                (
                    tournament,
                    ev.name,
                    ev.env,
                    config,
                    label,
                    plan.table_key(g),
                    int(plan.game_of[g]),
                    int(batch.seeds[i]),
                    json.dumps([ev.agents[k].name for k in seats]),
                    json.dumps([ev.agents[k].spec for k in seats]),
                    _floats(batch.rewards[i]),
                    _floats(batch.scores[i]),
                    _floats(batch.win_share[i]),
                    int(batch.lengths[i]),
                    int(batch.truncated[i]),
                    None if batch.actions is None else json.dumps(batch.actions[i]),
                    now,
                    None if batch.moves is None else json.dumps(batch.moves[i].tolist()),
                    None if batch.think is None else _floats(batch.think[i]),
                    None if batch.policy is None else json.dumps(batch.policy[i]),
                )
            )
        marks = ", ".join("?" * len(GAME_COLUMNS))
        with self.conn:
            self.conn.executemany(
                f"INSERT INTO games ({', '.join(GAME_COLUMNS)}) VALUES ({marks})", rows
            )

    def rows(
        self, tournament: str, event: str | None = None, actions: bool = True
    ) -> Iterator[dict]:
        """The stored games as dicts, in (event, table, game) order (`actions=False` leaves
        the actions and the policies out, as None)."""
        columns = [c if c not in ("actions", "policy") or actions else "NULL" for c in GAME_COLUMNS]
        sql = f"SELECT {', '.join(columns)} FROM games WHERE tournament = ?"
        args: list = [tournament]
        if event is not None:
            sql += " AND event = ?"
            args.append(event)
        sql += " ORDER BY event, table_index, game"
        with self._reading():
            for values in self.conn.execute(sql, args):
                yield _decoded(values)

    def game(self, tournament: str, event: str, table: int, game: int) -> dict | None:
        """One stored game as `rows` gives it, or None."""
        sql = (
            f"SELECT {', '.join(GAME_COLUMNS)} FROM games "
            "WHERE tournament = ? AND event = ? AND table_index = ? AND game = ?"
        )
        with self._reading():
            values = self.conn.execute(sql, (tournament, event, table, game)).fetchone()
            return None if values is None else _decoded(values)

    def recorded(self, limit: int) -> list[dict]:
        """The first `limit` games stored with their actions: tournament, event, env_id,
        table, game, seats and length (a listing to pick a replay from)."""
        keys = ("tournament", "event", "env_id", "table_index", "game", "seats", "length")
        sql = (
            f"SELECT {', '.join(keys)} FROM games WHERE actions IS NOT NULL "
            "ORDER BY tournament, event, table_index, game LIMIT ?"
        )
        out = []
        with self._reading():
            for values in self.conn.execute(sql, (limit,)):
                row = dict(zip(keys, values, strict=True))
                row["table"] = row.pop("table_index")
                row["seats"] = json.loads(row["seats"])
                out.append(row)
        return out

    def event_games(self, tournament: str, plan: EventPlan) -> GameBatch:
        """An event's stored games between entrants still entered, as arrays in (table,
        game) order; `agent_of_seat` holds indices into the event's field. A removed
        entrant's games stay stored, out of the ratings."""
        index = {e.name: k for k, e in enumerate(plan.event.agents)}
        n = plan.event.num_players
        rows = [
            r
            for r in self.rows(tournament, plan.event.name, actions=False)
            if all(name in index for name in r["seats"])
        ]
        m = len(rows)

        def arr(key, dtype=np.float64):
            return np.array([r[key] for r in rows], dtype=dtype).reshape(m, n)

        def timed(key, dtype=np.float64):  # None when any game was stored without it
            return None if any(r[key] is None for r in rows) else arr(key, dtype)

        return GameBatch(
            np.array([[index[s] for s in r["seats"]] for r in rows], dtype=np.int64).reshape(m, n),
            arr("rewards"),
            arr("scores"),
            arr("wins"),
            np.array([r["length"] for r in rows], dtype=np.int64),
            np.array([r["truncated"] for r in rows], dtype=bool),
            seeds=np.array([r["seed"] for r in rows], dtype=np.int64),
            actions=None,
            moves=timed("moves", np.int64),
            think=timed("think"),
        )


# --- what a tournament is, and how it may grow --------------------------------------------
def registry_of(config: TournamentConfig) -> dict:
    """What decides a tournament's games, as stored: the seed and, per event, its game,
    config, format, ranking and entrants (spec, options, digest)."""
    return {
        "version": 2,
        "seed": config.seed,
        "record_actions": config.record_actions,
        "events": {
            e.name: {
                "env": e.env,
                "config": e.config,
                "format": e.format,
                "rank_by": e.rank_by,
                "entrants": {
                    a.name: {"spec": a.spec, "options": a.options, "digest": a.digest}
                    for a in e.agents
                },
            }
            for e in config.events
        },
    }


def growth_problem(stored: dict, new: dict) -> str | None:
    """Why the stored tournament cannot grow into `new` (None: it can). Entrants, events,
    games and tables may be added; the seed, an event's game, config, format or ranking, and
    an entrant's spec, options or digest may not change."""
    if stored.get("version") != 2:
        return "it was stored by an earlier version of card_envs"
    if stored["seed"] != new["seed"]:
        return f"its seed is {stored['seed']}, not {new['seed']}"
    if stored["record_actions"] != new["record_actions"]:
        return f"it was played with record_actions: {str(stored['record_actions']).lower()}"
    for name, event in new["events"].items():
        old = stored["events"].get(name)
        if old is None:
            continue
        for key in ("env", "config", "format", "rank_by"):
            if json.dumps(old[key], sort_keys=True) != json.dumps(event[key], sort_keys=True):
                return f"event {name!r} was played with {key} {old[key]!r}, not {event[key]!r}"
        for entrant, entry in event["entrants"].items():
            before = old["entrants"].get(entrant)
            if before is None or before == entry:
                continue
            what = next(k for k in ("spec", "options", "digest") if before[k] != entry[k])
            change = (
                "what its spec loads changed (an edited file, a network shipped anew)"
                if what == "digest"
                else f"its {what} was {before[what]!r}, now {entry[what]!r}"
            )
            return (
                f"entrant {entrant!r} of event {name!r} changed: {change}; its stored games "
                "are the old agent's: enter the new one under another name"
            )
    return None


def merged(stored: dict, new: dict) -> dict:
    """The stored registry with what `new` adds (a removed entrant is remembered, so that
    entering it again with other code is refused as well)."""
    events = {name: dict(e, entrants=dict(e["entrants"])) for name, e in stored["events"].items()}
    for name, event in new["events"].items():
        if name in events:
            events[name]["entrants"].update(event["entrants"])
        else:
            events[name] = event
    return {**new, "events": events}
