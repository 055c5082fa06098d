"""Super Zwierzaki as a `Game`: options, observation bounds, state_dict, action names and
text rendering."""

from __future__ import annotations

import numpy as np

from card_envs.core import layout, views
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


RULES_SUMMARY = """\
Super Zwierzaki, an Uno-like game of animal cards for 2 to 12 players. A card reads "name \
(colour class)", e.g. "Koala (LG tre)": one of nine colours (LB, LG, R, DB, V, O, DG, Y, \
P) and one of twenty classes. The five Wielka 5 kinds (colour ALL) match everything. \
Everyone gets 5 cards. Goal: empty your hand first.

Your turn: play one kind, one or more identical cards at once, matching the given colour \
or class, or draw a card. Identical cards add an effect: two, discard one card; three, \
discard half your hand; four, give half to a player; five, discard all but one.

Functions: Red adds 2 red points; Orc adds 3 orc points and picks the colour; Stp adds a \
green point; Dem adds a demand point and names a kind; Oth and Giv start a duel (add a \
duel card or fold; Oth: the others draw the points, Giv: the winner gives that many \
cards); All (Wielka 5) clears red points; Pol discards half your hand; Kaz gives half to a \
player; War swaps two hands; Cch picks the colour; Mch reverses the order of play. While a \
counter stands, the next player must answer it (Red on red, Orc on orc, Stp on green, the \
named kind or Dem on demand, Cyr on any) or take the penalty: draw the red or orc points, \
lose that many turns, or draw one.

After a play with a function or several cards, any other player may cancel it with a Cyr, \
which also clears every counter. Nine cards of the nine colours (9 kolorow) give all your \
cards but one to a player. When a hand is emptied, the others may stop the win with a Dzi \
or a Cyr (the player then draws a card); unstopped, it wins.

Moves here: "play Koala (LG tre)", "play 2x Koala (LG tre)", "draw a card", "draw 2 (the \
red penalty)", "choose colour R", "name Koala (LG tre)", "give a card to player_2", "no \
reaction to player_1's play", "fold". Every move has an id."""


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
    rules_summary = RULES_SUMMARY

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

    def view_fields(self, row: np.ndarray, seat: int) -> dict:
        """Whose turn it is and the pending decision as the seat may know it (the table
        scene's words: another seat's copies choice looks like its turn, a drawn card is
        named to its drawer only), the top card and what may be played on it, the counters,
        the demand, the duel, the seat's hand, and every seat's hand size and lost turns in
        the order of play; what a seat learnt of other hands by its gives is not shown."""
        s = self.state_dict(row)
        n = s["num_players"]
        running = not s["done"]
        what = int(k._top(row)[0]) if running else -1
        counts = np.bincount(s["hands"][seat], minlength=k.NUM_KINDS)
        kinds = sorted((int(x) for x in np.flatnonzero(counts)), key=table.colour_order)
        demand = s["demand"] if s["demand"] and what != k.D_NAME else None
        duel = s["duel"]
        start = s["turn_seat"]
        order = sorted(range(n), key=lambda q: (s["numbers"][q] - s["numbers"][start]) % n)
        return {
            "turn_of": views.agent_name(start),
            "decision": table.pending(row, s, seat) if running else None,
            "top_card": card_label(s["discard_pile"][-1]),
            "playable_colours": s["given_colours"],
            "playable_classes": s["given_classes"],
            "counters": s["counters"],
            "demanded_card": card_label(demand["kind"]) if demand else None,
            "duel": None
            if duel is None
            else {
                "function": duel["kind"],
                "points": duel["points"],
                "folded": [views.agent_name(p) for p in duel["folded"]],
            },
            "your_hand": [
                {
                    "card": card_label(kind),
                    "function": KINDS[kind].function,
                    "copies": int(counts[kind]),
                }
                for kind in kinds
            ],
            "order_of_play": [views.agent_name(p) for p in order],
            "players": [
                {
                    "player": views.agent_name(p),
                    "cards_in_hand": len(s["hands"][p]),
                    "lost_turns": s["lost_turns"][p],
                }
                for p in range(n)
            ],
            "draw_pile_cards": len(s["draw_pile"]),
            "discard_pile_cards": len(s["discard_pile"]),
            "turns_played": s["turns"],
            "turn_limit": self.config["max_turns"],
        }

    def view_text(self, row: np.ndarray, seat: int) -> str:
        v = self.view(row, seat)
        lines = views.head_lines(self.title, v)
        if v["decision"]:
            during = ""
            if v["turn_of"] != v["to_act"]:
                during = f", during the turn of {views.who(v['turn_of'], v)}"
            lines.append(f"Now: {v['decision']}{during}.")
        lines.append(
            f"Top card: {v['top_card']}. Playable on: colour "
            f"{' '.join(v['playable_colours'])} or class {' '.join(v['playable_classes'])}."
        )
        standing = [f"{name} {points}" for name, points in v["counters"].items() if points]
        if standing:
            lines.append(f"Counters: {', '.join(standing)}.")
        if v["demanded_card"]:
            lines.append(f"Demanded: {v['demanded_card']}.")
        if v["duel"]:
            duel = v["duel"]
            folded = ", ".join(views.who(p, v) for p in duel["folded"]) or "nobody"
            lines.append(
                f"A {duel['function']} duel at {duel['points']} point(s); folded: {folded}."
            )
        hand = "; ".join(
            f"{c['copies']}x {c['card']}" + (f" [{c['function']}]" if c["function"] else "")
            for c in v["your_hand"]
        )
        lines.append(f"Your hand ({sum(c['copies'] for c in v['your_hand'])}): {hand or 'empty'}.")
        order = ", ".join(views.who(p, v) for p in v["order_of_play"])
        lines.append(f"Order of play: {order}.")
        for p in v["players"]:
            lost = f", loses {p['lost_turns']} turn(s)" if p["lost_turns"] else ""
            lines.append(f"  {views.who(p['player'], v)}: {p['cards_in_hand']} card(s){lost}")
        lines.append(
            f"Draw pile: {v['draw_pile_cards']} card(s); discard pile: "
            f"{v['discard_pile_cards']}; turn {v['turns_played']} of at most {v['turn_limit']}."
        )
        return "\n".join(lines)

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
