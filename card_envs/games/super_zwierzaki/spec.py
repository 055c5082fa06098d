"""Super Zwierzaki as a `Game`: options, observation bounds, state_dict, action names and
text rendering."""

from __future__ import annotations

import numpy as np

from card_envs.core import layout
from card_envs.core.config import COUNT_CAP, Option
from card_envs.core.engine import Game
from card_envs.core.loading import Reader
from card_envs.core.scene import Scene
from card_envs.games.super_zwierzaki import batched, positions, search, table
from card_envs.games.super_zwierzaki import engine as k
from card_envs.games.super_zwierzaki.deck import COLOURS, KINDS
from card_envs.games.super_zwierzaki.describe import card_label, describe
from card_envs.games.super_zwierzaki.heuristic import heuristic_actions
from card_envs.games.super_zwierzaki.positions import PICK_PURPOSES, SEAT_PURPOSES, WINDOWS

# the names the state dict uses, kept importable from here
__all__ = ["PICK_PURPOSES", "SEAT_PURPOSES", "WINDOWS", "SuperZwierzaki"]


class SuperZwierzaki(Game):
    env_id = "super_zwierzaki_v0"
    title = "Super Zwierzaki"
    options = {
        "num_players": Option(4, "number of players", low=2, high=k.MAX_PLAYERS),
        "explicit_call": Option(
            False, "'Codziennie niskie ceny' must be called (else draw two) instead of automatic"
        ),
        "skip_forced": Option(
            False, "take decisions with a single legal action (e.g. pass) at once, unasked"
        ),
        "play_drawn": Option(False, "a matching card drawn on a normal turn may be played at once"),
        "max_turns": Option(
            1000, "turns (lost ones included) before truncation", low=1, high=COUNT_CAP
        ),
    }
    engine = k
    obs_segments = k.OBS_SEGMENTS
    batched = batched
    heuristic_kernel = heuristic_actions
    search_kernel = search.search
    ismcts_10ms = "ismcts:1000:depth=40"
    ismcts_larger = "ismcts:4000:depth=40"
    speed_targets = (4.0, 40.0)
    speed_configs = (dict(num_players=2), dict(num_players=8))  # the default has 4
    compile_seconds = 26
    # the default cap where random games refill the draw pile in about half the games
    # (after 1,200-1,600 steps) at 3 and 4 players; a shorter one at 2 and at 5 to 12 keeps
    # the suite quick (a random 8-player game runs to thousands of steps), and the soak
    # plays those whole
    soak_configs = (dict(num_players=2), dict(num_players=5), dict(num_players=8))
    test_configs = (
        *(dict(num_players=n) for n in (3, 4)),
        *(dict(num_players=n, max_turns=300) for n in (2, *range(5, 13))),
        dict(num_players=3, explicit_call=True),
        dict(num_players=3, skip_forced=True),
        dict(num_players=3, play_drawn=True),
        dict(num_players=4, history=12),
    )
    game_state_size = k.STATE_SIZE
    history_codes = k.HISTORY_CODES
    num_actions = k.NUM_ACTIONS

    def __init__(self, **config) -> None:
        super().__init__(**config)
        self.game_obs_size = k.obs_size(self.num_players)

    def resamples_hands(self) -> bool:
        """Not with `skip_forced`: a decision taken unasked (a reaction window passed by, a
        turn with nothing to play) tells every seat what a hand lacks, and the row does not
        keep those facts, so `resample_hidden` then leaves every hand as it is."""
        return not self.config["skip_forced"]

    def encode_config(self, row: np.ndarray) -> None:
        row[layout.NUM_PLAYERS] = self.num_players
        row[k.CFG_EXPLICIT_CALL] = int(self.config["explicit_call"])
        row[k.CFG_SKIP_FORCED] = int(self.config["skip_forced"])
        row[k.CFG_PLAY_DRAWN] = int(self.config["play_drawn"])
        row[k.CFG_MAX_TURNS] = self.config["max_turns"]

    def reward_range(self) -> tuple[float, float]:
        return -1.0, 1.0

    def game_obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.num_players
        sl = k.obs_slices(n)
        high = np.ones(self.game_obs_size, dtype=np.float32)
        copies = np.array([kind.copies for kind in KINDS], dtype=np.float32)
        for name, value in (
            ("hand", copies),
            ("played", copies),
            ("counters", positions.COUNTER_HIGH),
            ("hand_sizes", k.NUM_CARDS),
            ("lost", positions.LOST_HIGH),
            ("order", n - 1),
            ("left", k.NUM_CARDS),
            ("piles", k.NUM_CARDS),
        ):
            start, size = sl[name]
            high[start : start + size] = value
        high[sl["duel"][0] + 3] = positions.DUEL_HIGH
        return np.zeros(self.game_obs_size, dtype=np.float32), high

    def fields(self, row: np.ndarray) -> dict:
        return positions.fields(self, row)

    def load_fields(self, r: Reader, row: np.ndarray) -> None:
        positions.load_fields(self, r, row)

    def render(self, row: np.ndarray, seat: int) -> str:
        s = self.state_dict(row)
        lines = [
            f"Top: {card_label(s['discard_pile'][-1])}; given colours "
            f"{' '.join(s['given_colours'])}, classes {' '.join(s['given_classes'])}",
            "Counters: " + ", ".join(f"{c} {v}" for c, v in s["counters"].items()),
        ]
        if s["demand"]:
            lines.append(f"Demanded: {KINDS[s['demand']['kind']].name}")
        if s["duel"]:
            duel = s["duel"]
            lines.append(f"Duel ({duel['kind']}) at {duel['points']} point(s)")
        sizes = ", ".join(f"player_{p} {len(h)}" for p, h in enumerate(s["hands"]))
        lines.append(f"Hands: {sizes}; draw pile {len(s['draw_pile'])}")
        if s["done"]:
            who = f"player_{s['winner']} won" if s["winner"] is not None else "truncated"
            lines.append(f"Game over: {who}.")
        else:
            phase = s["phase"]
            lines.append(f"player_{phase['seat']} decides: {phase['what']}")
        hand = sorted(s["hands"][seat])
        names = [card_label(x) for x in sorted(set(hand))]
        counts = [hand.count(x) for x in sorted(set(hand))]
        lines.append(
            f"player_{seat}'s hand: "
            + "; ".join(f"{c}x {nm}" for c, nm in zip(counts, names, strict=True))
        )
        return "\n".join(lines)

    def table(self, row: np.ndarray, viewer: int | None) -> Scene:
        return table.scene(self, row, viewer)

    def action_name(self, action: int) -> str:
        if action < k.COPIES:
            return KINDS[action].name
        if action < k.COLOUR:
            return f"{action - k.COPIES + 1} copies"
        if action < k.SEAT:
            return f"colour {COLOURS[action - k.COLOUR]}"
        if action < k.DRAW:
            return f"seat +{action - k.SEAT}"
        return ("draw", "pass", "9 kolorow", "call")[action - k.DRAW]

    def describe(self, row: np.ndarray, action: int, actor: int, viewer: int) -> str:
        return describe(row, action, actor, viewer)

    def heuristic_args(self) -> tuple:
        return (self.num_players,)
