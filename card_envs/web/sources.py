"""Recorded games the server may replay: only files named on its command line.

The browser never sends a path. It lists the games of the JSONL record files and the
tournament stores (SQLite) given to `card-envs serve --records/--store`, and asks for one by
its source's index and its (tournament,) event, table and game.
"""

from __future__ import annotations

from pathlib import Path

from card_envs.tournament.records import read_jsonl
from card_envs.tournament.store import Store
from card_envs.web.match import MatchError

LISTED = 500  # games listed per source and event, the first ones


class Sources:
    def __init__(self, records: list[str] = (), stores: list[str] = ()) -> None:
        self._files = [Path(p) for p in records]
        self._stores = [Path(p) for p in stores]
        for path in (*self._files, *self._stores):
            if not path.is_file():
                raise ValueError(f"{path}: no such file")
        self._records = [list(read_jsonl(p)) for p in self._files]
        for p in self._stores:
            Store(p).close()  # not a store (not SQLite, damaged, another's): fails at start

    def listing(self) -> list[dict]:
        """Each source with its games, as the replay page lists them."""
        out = []
        for i, (path, recs) in enumerate(zip(self._files, self._records, strict=True)):
            games = [_entry(r) for r in recs[:LISTED]]
            out.append({"source": i, "name": path.name, "kind": "records", "games": games})
        for j, path in enumerate(self._stores):
            with Store(path, check=False) as store:  # checked at start
                games = store.recorded(LISTED)
            out.append(
                {"source": len(self._files) + j, "name": path.name, "kind": "store", "games": games}
            )
        return out

    def record(self, source: int, event: str, table: int, game: int, tournament=None) -> dict:
        """The record of one game; MatchError 404 when there is no such game."""
        if not 0 <= source < len(self._files) + len(self._stores):
            raise MatchError(f"no source {source}", 404)
        if source < len(self._files):
            for rec in self._records[source]:
                if (rec["event"], rec["table"], rec["game"]) == (event, table, game):
                    return rec
        else:
            with Store(self._stores[source - len(self._files)], check=False) as store:
                row = store.game(tournament or "", event, table, game)
            if row is not None and row["actions"] is not None:
                return dict(row, table=row["table_index"])
        raise MatchError(f"no recorded game event={event!r} table={table} game={game}", 404)


def _entry(rec: dict) -> dict:
    keys = ("tournament", "event", "env_id", "table", "game", "seats", "length")
    return {k: rec[k] for k in keys}
