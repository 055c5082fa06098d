"""The observation's segments: what a game declares of each part of its observation vector
(`Game.obs_segments`), and where each lies for a config (`slices`) or in the padded layout
of every config (`rooms`, `core.padding`)."""

from __future__ import annotations

from dataclasses import dataclass

SEAT_KINDS = ("one", "all", "others")


@dataclass(frozen=True)
class Segment:
    """`unit` slots, once (`seats="one"`), once per seat (`"all"`) or once per other seat
    (`"others"`); present only when the boolean option `option` is on, if one is named."""

    name: str
    unit: int
    seats: str = "one"
    option: str | None = None

    def blocks(self, num_players: int) -> int:
        return {"one": 1, "all": num_players, "others": num_players - 1}[self.seats]

    def size(self, config: dict) -> int:
        if self.option is not None and not config[self.option]:
            return 0
        return self.unit * self.blocks(config["num_players"])


def slices(segments: tuple[Segment, ...], config: dict) -> dict[str, tuple[int, int]]:
    """Name -> (start, size) of every segment of the observation under `config` (which
    holds `num_players` and the segments' options)."""
    out, start = {}, 0
    for seg in segments:
        size = seg.size(config)
        out[seg.name] = (start, size)
        start += size
    return out


def rooms(segments: tuple[Segment, ...], max_players: int) -> dict[str, tuple[int, int]]:
    """Name -> (start, size) of every segment's room in the padded layout."""
    every = {s.option: True for s in segments if s.option is not None}
    return slices(segments, {"num_players": max_players, **every})
