"""The matches the server holds, each under a random id, freed when they end or are left.

A page closes its match when it leaves or deals again (the browser sends a close request),
but a tab that crashes or a laptop that sleeps sends nothing: a match nobody asked about
for `idle` seconds is dropped, a finished one after `ended_idle` seconds (time to look at
the end from another seat), and past `limit` matches the one asked about least recently
goes. The clock is injectable so the tests decide when time passes.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from card_envs.web.match import Match, MatchError, SoloMatch

AnyMatch = Match | SoloMatch
MATCH_LIMIT = 64  # matches held at once


class Sessions:
    def __init__(
        self,
        idle: float = 1800.0,
        ended_idle: float = 120.0,
        limit: int = MATCH_LIMIT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.idle = idle
        self.ended_idle = ended_idle
        self.limit = limit
        self.clock = clock
        self._matches: OrderedDict[str, tuple[AnyMatch, float]] = (
            OrderedDict()
        )  # least recent first
        self._lock = threading.Lock()

    def add(self, match: AnyMatch) -> str:
        with self._lock:
            self._sweep()
            while len(self._matches) >= self.limit:
                self._matches.popitem(last=False)
            key = secrets.token_urlsafe(12)
            self._matches[key] = (match, self.clock())
            return key

    def get(self, key: str) -> AnyMatch:
        """The match under `key`, now asked about; MatchError 404 when there is none."""
        with self._lock:
            self._sweep()
            if key not in self._matches:
                raise MatchError(f"no game {key!r} (it ended, was closed or was left idle)", 404)
            match, _ = self._matches.pop(key)
            self._matches[key] = (match, self.clock())
            return match

    def close(self, key: str) -> None:
        with self._lock:
            self._matches.pop(key, None)

    def __len__(self) -> int:
        with self._lock:
            self._sweep()
            return len(self._matches)

    def _sweep(self) -> None:
        now = self.clock()
        for key, (match, seen) in list(self._matches.items()):
            if now - seen >= (self.ended_idle if match.over else self.idle):
                del self._matches[key]
