"""The standard benchmark's protocol: which games, configs and panel agents make its cells,
how many games each cell plays and from which seeds. A protocol never changes once
published: anything that would change a number (a cell, a panel agent, a budget, a seed, a
re-shipped panel network) is the next version.

bench-v1, per game (`CELLS`):

- each multi-agent game at the config its shipped networks were trained on (the main
  tournament's: Surfosaurus with hints, Rummidrez with hints, 24 placements and 100 turns,
  Super Zwierzaki with forced skips), at every player count the game allows; Double or
  Nothing at its stages 1 to 5 (the stages its networks were trained on);
- the candidate in one seat, one panel agent in every other seat, the candidate's seat
  rotating game by game (seat-balanced); the panel: `random`, `heuristic`, `computer` where
  the game has one, the shipped `ppo` and `exit` networks, and `ismcts` at a fixed budget;
- the one-seat id `rummidrez_solo_v0` (hints, as trained): the candidate and each panel
  agent play the same deals, compared deal by deal;
- the one-seat id `double_or_nothing_run_v0`: runs against its built-in computer, the
  candidate and each panel agent from the same seeds (`ismcts` sits out: a Gymnasium env
  hands an agent no state rows).

Every cell deals from seeds derived from (`SEED`, the cell's name) alone, so every
candidate meets the same deals and the same agent gives the same numbers on any machine.
"""

from __future__ import annotations

from dataclasses import dataclass

VERSION = "bench-v1"
SEED = 20261202
GAMES = 120  # per cell, rounded up to a multiple of the players: every seat equally often
RUNS = 240  # runs of double_or_nothing_run_v0 per agent
CANDIDATE = "candidate"  # the candidate's name in every cell (its seat's label in the store)

# `ismcts` at a fixed budget, small enough that a cell with it in every other seat stays
# affordable (with `heuristic` as the candidate, 40-60% of bench-v1's time is these cells):
# a panel agent, not the strongest search
ISMCTS = {
    "no_thanks_v0": "ismcts:100",
    "surfosaurus_max_v0": "ismcts:30",
    "rummidrez_v0": "ismcts:8",
    "super_zwierzaki_v0": "ismcts:10:depth=20",
    "double_or_nothing_v0": "ismcts:20",
    "rummidrez_solo_v0": "ismcts:8",
}

# The panel's networks, frozen with the protocol by their digests (`spec_digest`): a
# network shipped anew is bench-v2, never bench-v1 with other numbers
NETWORKS = {
    ("no_thanks_v0", "ppo"): "d15ae310564fbe18",
    ("no_thanks_v0", "exit"): "f6166f4159d2eca1",
    ("surfosaurus_max_v0", "ppo"): "e95900b367bb0f27",
    ("surfosaurus_max_v0", "exit"): "ab8d0160fa58e8ea",
    ("rummidrez_v0", "ppo"): "222bc975d1194555",
    ("rummidrez_v0", "exit"): "d53264d21fa722bf",
    ("super_zwierzaki_v0", "ppo"): "c2abf90ba861c238",
    ("super_zwierzaki_v0", "exit"): "e8f8c27b177ee5b9",
    ("double_or_nothing_v0", "ppo"): "59f445d1871ff70c",
    ("double_or_nothing_v0", "exit"): "3c152fdf5f4c7223",
    ("rummidrez_solo_v0", "ppo"): "853860ef8bda42d7",
    ("rummidrez_solo_v0", "exit"): "6dd1055fafa70e11",
}


@dataclass(frozen=True)
class Cell:
    """One cell: a game at one config, against one panel agent (`kind` "seats": the
    candidate in one seat and the panel agent in the others; "same_deals": a one-seat game
    the candidate and the panel agent play apart on the same deals)."""

    env_id: str
    config: tuple[tuple[str, object], ...]  # the game's options, as sorted pairs
    panel: str
    kind: str = "seats"
    size: int = GAMES  # games (runs) per agent, before rounding up to a multiple of players

    @property
    def options(self) -> dict:
        return dict(self.config)

    @property
    def setting(self) -> str:
        """The config in a few words: what differs between a game's cells."""
        c = self.options
        if "stage" in c:
            return f"stage {c['stage']}"
        if self.kind != "seats":
            return "one seat"
        return f"{c['num_players']} players"

    @property
    def name(self) -> str:
        """The cell's name: its event in the store, and its deals' seed stream."""
        options = ",".join(f"{k}={v}" for k, v in self.config)
        return f"{self.env_id}[{options}] vs {self.panel}"

    @property
    def num_players(self) -> int:
        return int(self.options.get("num_players", 1))

    @property
    def games(self) -> int:
        return -(-self.size // self.num_players) * self.num_players


BASE = {  # the config each game's networks were trained on (as the main tournament plays)
    "no_thanks_v0": {},
    "surfosaurus_max_v0": {"hints": True},
    "rummidrez_v0": {"hints": True, "max_placements": 24, "max_turns": 100},
    "super_zwierzaki_v0": {"skip_forced": True},
    "double_or_nothing_v0": {},
}
PLAYERS = {
    "no_thanks_v0": range(3, 8),
    "surfosaurus_max_v0": range(2, 7),
    "rummidrez_v0": range(2, 5),
    "super_zwierzaki_v0": range(2, 13),
}
STAGES = range(1, 6)
# `--exploit`: each multi-seat game at its base config and the main tournament's player count
EXPLOIT = {
    "no_thanks_v0": {"num_players": 4},
    "surfosaurus_max_v0": {"hints": True, "num_players": 4},
    "rummidrez_v0": {**BASE["rummidrez_v0"], "num_players": 2},
    "super_zwierzaki_v0": {"skip_forced": True, "num_players": 4},
    "double_or_nothing_v0": {"num_players": 2},
}


def panel(env_id: str) -> list[str]:
    """The panel agents of a game, weakest kinds first."""
    agents = ["random", "heuristic"]
    if env_id in ("double_or_nothing_v0", "double_or_nothing_run_v0"):
        agents.append("computer" if env_id == "double_or_nothing_v0" else None)
    agents += ["ppo", "exit"]
    if env_id in ISMCTS:
        agents.append(ISMCTS[env_id])
    return [a for a in agents if a]


def _pairs(config: dict) -> tuple[tuple[str, object], ...]:
    return tuple(sorted(config.items()))


def _cells() -> list[Cell]:
    cells = []
    for env_id, base in BASE.items():
        if env_id == "double_or_nothing_v0":
            configs = [{**base, "num_players": 2, "stage": s} for s in STAGES]
        else:
            configs = [{**base, "num_players": n} for n in PLAYERS[env_id]]
        cells += [Cell(env_id, _pairs(c), p) for c in configs for p in panel(env_id)]
    solo = _pairs({"num_players": 1, "hints": True})
    cells += [Cell("rummidrez_solo_v0", solo, p, "same_deals") for p in panel("rummidrez_solo_v0")]
    run = _pairs({"max_stage": 10})
    cells += [
        Cell("double_or_nothing_run_v0", run, p, "same_deals", RUNS)
        for p in panel("double_or_nothing_run_v0")
    ]
    return cells


CELLS: tuple[Cell, ...] = tuple(_cells())
ENV_IDS: tuple[str, ...] = tuple(dict.fromkeys(c.env_id for c in CELLS))


def cells_table() -> str:
    """The protocol's cells as a Markdown table, one row per game (docs/bench.md holds it)."""
    rows = [
        "| env id | config | settings | panel (the other seats) | games per cell | cells |",
        "|---|---|---|---|---:|---:|",
    ]
    for env_id in ENV_IDS:
        mine = [c for c in CELLS if c.env_id == env_id]
        settings = list(dict.fromkeys(c.setting for c in mine))
        panel = list(dict.fromkeys(c.panel for c in mine))
        shared = {k: v for k, v in mine[0].config if k not in ("num_players", "stage")}
        config = ", ".join(f"{k}={v}" for k, v in shared.items()) or "defaults"
        games = sorted({c.games for c in mine})
        per = str(games[0]) if len(games) == 1 else f"{games[0]}-{games[-1]}"
        span = settings[0] if len(settings) == 1 else f"{settings[0]} to {settings[-1]}"
        rows.append(
            f"| `{env_id}` | {config} | {span} | {', '.join(f'`{a}`' for a in panel)} "
            f"| {per} | {len(mine)} |"
        )
    seats = sum(c.games for c in CELLS if c.kind == "seats")
    same = {e: 2 * sum(c.games for c in CELLS if c.env_id == e and c.kind != "seats")
            for e in ENV_IDS}  # fmt: skip
    same = {e: n for e, n in same.items() if n}
    rows += [
        "",
        f"In all {len(CELLS)} cells: {seats:,} multi-seat games, "
        + ", ".join(f"{n:,} games of `{e}`" for e, n in same.items())
        + " (the candidate's and the panel agent's, on the same deals).",
    ]
    return "\n".join(rows)
