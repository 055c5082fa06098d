"""Which agents sit at which tables, and the fixed chunks the games are played in.

Round robin (the default for 2-player games): every set of `num_players` agents of the field
is one table (every pairing, for 2 players), in `itertools.combinations` order.

Random tables (the default for N-player games with a field larger than a table): `tables`
tables are drawn one after another. Each draw seats the `num_players` agents that have sat
at the fewest tables so far, ties broken by a seeded random order, so at every point the
numbers of tables of any two agents differ by at most one; who meets whom varies with the
random tie-breaks. The members of a table are put in a random order.

Seats: a table plays `games` games (a multiple of num_players); in game j, seat s is taken
by member (s + j) mod num_players. So at every table each member sits in every seat the
same number of times, and over the tournament every agent plays every seat equally often.

Chunks: an event's games, in (table, game) order, are cut into consecutive chunks of
`chunk_games`; chunk c of event e is dealt from seeds derived from (seed, e, c) only, its
agents seeded from (seed, e, c, 1 + agent). A chunk is the unit of work (a process or Ray
task) and of storage (one database transaction), so an interrupted run resumes by playing
the chunks that are not in the database, and gets the same games as an uninterrupted one.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from card_envs.evaluation.arena import Chunk, derive_seed
from card_envs.tournament.config import Event, TournamentConfig

_TABLE_DRAW = 0x7AB1E5  # key of the table-drawing stream, apart from the chunk streams


def draw_tables(event: Event, seed: int, event_index: int) -> list[tuple[int, ...]]:
    """The members (field indices) of each table, in table order."""
    n, size = event.num_players, len(event.agents)
    if event.format == "round_robin":
        return [tuple(c) for c in itertools.combinations(range(size), n)]
    rng = np.random.default_rng(derive_seed(seed, event_index, _TABLE_DRAW))
    counts = np.zeros(size, dtype=np.int64)
    tables = []
    for _ in range(event.tables):
        order = np.lexsort((rng.random(size), counts))  # fewest tables first, random ties
        members = order[:n]
        counts[members] += 1
        tables.append(tuple(int(m) for m in rng.permutation(members)))
    return tables


@dataclass
class EventPlan:
    """An event's games in (table, game) order and its chunks."""

    index: int
    event: Event
    tables: list[tuple[int, ...]]
    table_of: np.ndarray  # (games,) table index of each game
    game_of: np.ndarray  # (games,) game index within its table
    agent_of_seat: np.ndarray  # (games, num_players) field index in each seat
    bounds: list[tuple[int, int]]  # [start, stop) of each chunk

    @property
    def num_games(self) -> int:
        return len(self.table_of)

    def chunk(self, c: int, seed: int, record: bool, record_policy: bool = False) -> Chunk:
        start, stop = self.bounds[c]
        ev = self.event
        return Chunk(
            ev.env,
            ev.config,
            tuple(e.agent_spec() for e in ev.agents),
            self.agent_of_seat[start:stop],
            derive_seed(seed, self.index, c),
            tuple(derive_seed(seed, self.index, c, 1 + k) for k in range(len(ev.agents))),
            record=record,
            key=(self.index, c),
            record_policy=record_policy,
        )


def plan_event(event: Event, seed: int, event_index: int, chunk_games: int) -> EventPlan:
    n, g = event.num_players, event.games
    tables = draw_tables(event, seed, event_index)
    table_of = np.repeat(np.arange(len(tables)), g)
    game_of = np.tile(np.arange(g), len(tables))
    members = np.array(tables, dtype=np.int64).reshape(len(tables), n)
    rotation = (np.arange(n)[None, :] + game_of[:, None]) % n
    agent_of_seat = members[table_of[:, None], rotation]
    total = len(table_of)
    bounds = [(s, min(s + chunk_games, total)) for s in range(0, total, chunk_games)]
    return EventPlan(event_index, event, tables, table_of, game_of, agent_of_seat, bounds)


def plan(config: TournamentConfig) -> list[EventPlan]:
    return [plan_event(e, config.seed, i, config.chunk_games) for i, e in enumerate(config.events)]
