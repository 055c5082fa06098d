"""Which agents sit at which tables, and what seeds each game: by what it is, not by its
place in a schedule, so that a tournament can grow without playing its games again.

A table is its members (entrant names, in the order their seats rotate) and, for a table
drawn again with the same members in the same order, its occurrence. Game j of a table is
dealt from a seed derived from (seed, event name, members, occurrence, j), and in game j
seat s is taken by member (s + j) mod num_players: at every table each member sits in every
seat the same number of times.

Round robin (the default for 2-player games): every set of `num_players` entrants is one
table (every pairing, for 2 players), its members in name order, so adding an entrant adds
the tables it sits at and leaves the others as they were.

Random tables (the default for N-player games with a field larger than a table): the
tables already stored are kept (those whose members are all still entered), then tables are
drawn one after another until there are `tables` of them and no entrant has sat at two
tables more than another. Each draw seats the `num_players` entrants that have sat at the
fewest tables so far, ties broken by a random order seeded by (seed, event, draw number),
in a random order. In a fresh tournament that gives `tables` tables in which the numbers of
any two entrants differ by at most one; an entrant added later gets tables of its own (with
the entrants that sat least) until it has sat as often as the others, so the tournament
then has more than `tables` tables. Raising `tables` draws the difference.

Chunks: the games of the schedule that are not stored, in (table, game) order, are cut
into chunks of `chunk_games`. A chunk is the unit of work (a process or Ray task) and of
storage (one transaction); its agents are seeded by (seed, event, its first game, entrant
name). The deals depend only on what a game is. Agents that draw random numbers (`random`,
`ismcts`) draw from the stream of the chunk that played the game, so the games a grown
tournament adds are reproducible, but may differ from those a fresh run of the final config
plays where such an agent sits.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

import numpy as np

from card_envs.evaluation.arena import Chunk, derive_seed
from card_envs.tournament.config import Event, TournamentConfig

_TABLE_DRAW = 0x7AB1E5  # key of the table-drawing stream, apart from the game streams
_AGENTS = 0xA6E27  # key of the agents' streams


def name_key(*parts: str | int) -> int:
    """A stable 53-bit key of names and numbers (seeds and database keys are made of it):
    53 bits, so that a browser's JSON numbers hold a table's key exactly."""
    digest = hashlib.sha256("\0".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 53) - 1)


@dataclass(frozen=True)
class Table:
    """A table: its members in seat-rotation order and which time they sit so."""

    members: tuple[str, ...]
    occurrence: int = 0

    def key(self, event: str) -> int:
        """The table's key in the store (`games.table_index`) and its games' seed stream."""
        return name_key(event, *self.members, self.occurrence)


def draw_tables(event: Event, seed: int, kept: list[Table] = ()) -> list[Table]:
    """The tables of `event`: round robin's every set of entrants, or the random tables kept
    from the store followed by new draws (see the module doc)."""
    n, names = event.num_players, event.names
    if event.format == "round_robin":
        return [Table(tuple(sorted(c))) for c in itertools.combinations(names, n)]
    entered = set(names)
    tables = [t for t in kept if entered.issuperset(t.members)]
    counts = {name: 0 for name in names}  # tables each entrant sits at
    seen: dict[tuple[str, ...], int] = {}  # tables of each ordered set of members

    def sit(members: tuple[str, ...]) -> None:
        seen[members] = seen.get(members, 0) + 1
        for m in members:
            counts[m] += 1

    for t in tables:
        sit(t.members)
    stream = name_key(event.name)
    while len(tables) < event.tables or max(counts.values()) - min(counts.values()) > 1:
        rng = np.random.default_rng(derive_seed(seed, stream, _TABLE_DRAW, len(tables)))
        ties = rng.random(len(names))
        order = sorted(range(len(names)), key=lambda k: (counts[names[k]], ties[k]))
        members = tuple(names[k] for k in rng.permutation(order[:n]))
        tables.append(Table(members, seen.get(members, 0)))
        sit(members)
    return tables


@dataclass
class EventPlan:
    """An event's scheduled games in (table, game) order, with their seats and seeds."""

    event: Event
    tables: list[Table]
    keys: list[int]  # each table's key (`Table.key`)
    table_of: np.ndarray  # (games,) table index of each game
    game_of: np.ndarray  # (games,) game index within its table
    agent_of_seat: np.ndarray  # (games, num_players) field index in each seat
    seeds: np.ndarray  # (games,) the seed each game is dealt from

    @property
    def num_games(self) -> int:
        return len(self.table_of)

    def table_key(self, g: int) -> int:
        """The key of game `g`'s table."""
        return self.keys[int(self.table_of[g])]

    def members(self) -> list[tuple[int, ...]]:
        """Each table's members as field indices."""
        index = {name: k for k, name in enumerate(self.event.names)}
        return [tuple(index[m] for m in t.members) for t in self.tables]

    def chunk(
        self, games: np.ndarray, seed: int, record: bool, record_policy: bool = False
    ) -> Chunk:
        """The chunk that plays the plan's games `games` (indices into the plan)."""
        games = np.asarray(games, dtype=np.int64)
        ev = self.event
        first = (self.table_key(int(games[0])), int(self.game_of[games[0]]))
        return Chunk(
            ev.env,
            ev.config,
            tuple(e.agent_spec() for e in ev.agents),
            self.agent_of_seat[games],
            int(self.seeds[games[0]]),
            tuple(derive_seed(seed, _AGENTS, *first, name_key(e.name)) for e in ev.agents),
            record=record,
            key=games,
            record_policy=record_policy,
            seeds=tuple(int(s) for s in self.seeds[games]),
        )


def plan_event(event: Event, seed: int, kept: list[Table] = ()) -> EventPlan:
    n, g = event.num_players, event.games
    tables = draw_tables(event, seed, list(kept))
    index = {name: k for k, name in enumerate(event.names)}
    members = np.array([[index[m] for m in t.members] for t in tables], dtype=np.int64)
    members = members.reshape(len(tables), n)
    table_of = np.repeat(np.arange(len(tables)), g)
    game_of = np.tile(np.arange(g), len(tables))
    rotation = (np.arange(n)[None, :] + game_of[:, None]) % n
    agent_of_seat = members[table_of[:, None], rotation]
    keys = [t.key(event.name) for t in tables]
    seeds = np.array(
        [derive_seed(seed, keys[t], j) for t, j in zip(table_of, game_of, strict=True)],
        dtype=np.int64,
    )
    return EventPlan(event, tables, keys, table_of, game_of, agent_of_seat, seeds)


def plan(config: TournamentConfig, kept: dict[str, list[Table]] | None = None) -> list[EventPlan]:
    """Every event's plan; `kept`: the random tables each event has in the store."""
    kept = kept or {}
    return [plan_event(e, config.seed, kept.get(e.name, [])) for e in config.events]


def chunks_of(todo: np.ndarray, chunk_games: int) -> list[np.ndarray]:
    """The games still to play (plan indices, in plan order) cut into chunks."""
    return [todo[s : s + chunk_games] for s in range(0, len(todo), chunk_games)]
