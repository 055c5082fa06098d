"""Rummidrez as a `Game`: options, observation bounds, action names and text; its
state_dict is read and written by `positions`.

`Rummidrez` is the 2-4 player game (`rummidrez_v0`); `RummidrezSolo` the solo variant on the
same engine, served as the Gymnasium env `rummidrez_solo_v0`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core import layout, views
from card_envs.core.config import COUNT_CAP, Option
from card_envs.core.engine import Game
from card_envs.core.loading import Reader
from card_envs.core.scene import Scene
from card_envs.games.rummidrez import batched, positions, search, table
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.groups import card_name, card_names
from card_envs.games.rummidrez.heuristic import heuristic_actions

_TABLE_OPTIONS = {
    "neutral_at_ends": Option(
        False, "a neutral may also stand at a group's ends (default: only strictly inside)"
    ),
    "max_placements": Option(
        k.NUM_CARDS,
        "placements per turn, undone ones included (then only undo or end melding); at least "
        "the 7 of an opening meld",
        low=k.OPEN_MIN,
        high=COUNT_CAP,
    ),
    "hints": Option(
        False, "the observation ends with the heuristic's move for the seat to act (its cards)"
    ),
}


CARDS_AND_GROUPS = """\
Rummidrez is a rummy game of 112 cards: six figures, low to high Pawn, Knight, Bishop, \
Rook, Queen, Joker, each numbered 1 to 9, two copies of each, and four Neutrals. A group \
is 3 or more cards: one figure with consecutive numbers ("Rook 4, Rook 5, Rook 6"), or one \
number with consecutive figures ("Pawn 7, Knight 7, Bishop 7"); no wrapping round. A \
Neutral fills one gap inside a group (at its ends too if the table allows it). The table \
is one heap: it is valid when all of it splits into groups somehow, so it may be \
rearranged freely."""

RULES_SUMMARY = f"""\
{CARDS_AND_GROUPS}

2 to 4 players get 14 cards each; play goes up by seat. Goal: empty your hand first.

A turn has three phases. Draw: take the top card of the draw pile, or the top k cards of \
the discard pile (any k; everyone then knows you hold them). Meld: place cards from your \
hand one at a time, then end melding; placing nothing is always allowed. Your first meld \
(the opening) must be at least 7 of your own cards that form groups by themselves; after \
that, any cards you place must leave the whole table splitting into groups. Discard: put \
one card on the discard pile, which ends the turn.

Emptying your hand wins the hand at once, by melding or by the last discard; the winner \
scores a point for every card left in the other hands. In a match, hands go on until \
someone has 14, 28 or 42 points (2, 3 or 4 players); most points wins. A hand is cut \
short at the turn limit.

Hidden from you: the draw pile and the other hands, but for the cards they took from the \
discard pile.

Moves here: "draw", "take the top 2 of the discard pile: Pawn 3, Neutral", "place Rook 7" \
(a card from your hand onto the table), "undo this turn's placements", "end melding" and \
"discard Rook 7". Every move has an id."""

SOLO_RULES_SUMMARY = f"""\
{CARDS_AND_GROUPS}

Solo: you alone against the deck, starting with 14 cards; no discard pile. Each turn is a \
melding phase: place cards from your hand one at a time, then end melding; placing nothing \
is always allowed. Your first meld (the opening) must be at least 7 of your own cards that \
form groups by themselves; after that, any cards you place must leave the whole table \
splitting into groups. After each melding phase that leaves cards in your hand, one card \
is drawn for you.

Goal: empty your hand having drawn as few cards as possible. The score is the number of \
cards on the table when your hand is empty (every card drawn, the first 14 included); \
lower is better. If the deck runs out first, the score is 112 plus the cards left in hand, \
worse than any finished game. As the table can be rearranged at will, laying cards early \
gains nothing: lay your whole hand once it and the table together split into groups.

You see your hand, the table, this turn's placed cards and how many cards are left to \
draw; not their order.

Moves here: "place Rook 7" (a card from your hand onto the table), "undo this turn's \
placements" and "end melding". Every move has an id."""


def action_name(action: int) -> str:
    if action == k.DRAW:
        return "draw"
    if action < k.PLACE:
        return f"take the top {action - k.TAKE + 1} of the discard pile"
    if action < k.UNDO:
        return f"place {card_name(action - k.PLACE)}"
    if action == k.UNDO:
        return "undo this turn's placements"
    if action == k.END_MELD:
        return "end melding"
    return f"discard {card_name(action - k.DISCARD)}"


class _RummidrezBase(Game):
    engine = k
    obs_segments = k.OBS_SEGMENTS
    batched = batched
    heuristic_kernel = heuristic_actions
    search_kernel = search.search
    compile_seconds = 34  # the folder's two games together, which share the solver
    search_moves_kernel = search.search_moves
    game_state_size = k.STATE_SIZE
    history_codes = k.HISTORY_CODES
    num_actions = k.NUM_ACTIONS
    soak_measure_name = "table cards at the end"

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self.game_obs_size = k.obs_size(self.num_players, self.config["hints"])

    def soak_measure(self, row: np.ndarray) -> float:
        """Cards on the table when the game ends (its last hand's, the final turn's placements
        included): what the soak reports to show that its tables fill (random seats never
        lay a meld)."""
        return float(sum(row[base : base + k.NUM_IDS].sum() for base in (k.TABLE, k.PLACED)))

    def _encode(self, row: np.ndarray, solo: bool) -> None:
        c = self.config
        row[layout.NUM_PLAYERS] = self.num_players
        row[k.CFG_SOLO] = int(solo)
        row[k.CFG_ENDS] = int(c["neutral_at_ends"])
        row[k.CFG_HINTS] = int(c["hints"])
        row[k.CFG_MAX_PLACE] = c["max_placements"]
        row[k.CFG_REWARD] = k.REWARD_WIN if c.get("reward", "win") == "win" else k.REWARD_SCORE
        row[k.CFG_MATCH] = int(c.get("match", False))
        row[k.CFG_REDISCARD] = int(c.get("rediscard", True))
        row[k.CFG_MAX_TURNS] = c.get("max_turns", k.NUM_CARDS)

    def game_obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.num_players
        high = np.zeros(self.game_obs_size, dtype=np.float32)
        copies = np.full(k.NUM_IDS, k.COPIES, dtype=np.float32)
        copies[k.NEUTRAL] = k.NEUTRALS
        bounds = {
            "hand": copies,
            "table": copies,
            "placed": copies,
            "discard_depth": k.MAX_TAKE,
            "discard_depth2": k.MAX_TAKE,
            "known": np.tile(copies, n - 1),
            "hand_sizes": k.NUM_CARDS,
            "opened": 1,
            "points": k.target_points(max(n, 2)) + k.NUM_CARDS,
            "to_act": 1,
            "phase": 1,
            "piles": k.NUM_CARDS,
            "hint": copies,
        }
        for name, (start, size) in k.obs_slices(n, self.config["hints"]).items():
            if size:
                high[start : start + size] = bounds[name]
        return np.zeros(self.game_obs_size, dtype=np.float32), high

    def fields(self, row: np.ndarray) -> dict:
        return positions.fields(self, row)

    def load_fields(self, r: Reader, row: np.ndarray) -> None:
        positions.load_fields(self, r, row)

    def render(self, row: np.ndarray, seat: int) -> str:
        s = self.state_dict(row)
        n = s["num_players"]
        p = s["current_player"]
        top = s["discard_pile"][-5:]
        if s["done"]:
            head = "Game over. " + ", ".join(f"player_{q} {s['scores'][q]:g}" for q in range(n))
        else:
            head = f"player_{p} to act ({s['phase']} phase)."
        lines = [
            head,
            f"Draw pile: {len(s['draw_pile'])} card(s). Discard pile: {len(s['discard_pile'])} "
            f"card(s), top last: {card_names(top)}",
            f"Table ({sum(map(len, s['table']))} cards):",
            *(f"  {card_names(g)}" for g in s["table"]),
        ]
        if s["placed"]:
            lines.append(f"Placed this turn: {card_names(s['placed'])}")
        for q in range(n):
            who = "you" if q == seat else f"player_{q}"
            flags = f"{'opened' if s['opened'][q] else 'not opened'}, {s['points'][q]} point(s)"
            if q == seat:
                lines.append(f"  {who} ({flags}): {card_names(s['hands'][q])}")
            else:
                known = f"; known to hold {card_names(s['known'][q])}" if s["known"][q] else ""
                lines.append(f"  {who} ({flags}): {len(s['hands'][q])} card(s){known}")
        return "\n".join(lines)

    def table(self, row: np.ndarray, viewer: int | None) -> Scene:
        return table.scene(self, row, viewer)

    def view_fields(self, row: np.ndarray, seat: int) -> dict:
        """The phase, the seat's hand, the table in groups, this turn's placements, the
        piles (the discard pile in full, bottom to top; the draw pile's size), and every
        seat's hand size, opened flag and points, with the cards others saw it take from the
        discard pile and not play since (`known`, as the table scene shows them)."""
        s = self.state_dict(row)
        solo = bool(row[k.CFG_SOLO])

        def names(cards: list[int]) -> list[str]:
            return [card_name(c) for c in cards]

        placed = np.bincount(s["placed"], minlength=k.NUM_IDS)
        players = []
        for p in range(s["num_players"]):
            entry = {
                "player": views.agent_name(p),
                "cards_in_hand": len(s["hands"][p]),
                "opened": s["opened"][p],
                "points": s["points"][p],
            }
            if p != seat:  # a card placed this turn counts as a known copy first
                known = np.bincount(s["known"][p], minlength=k.NUM_IDS)
                if p == s["current_player"]:
                    known = np.maximum(0, known - placed)
                entry["known_cards"] = names(positions.cards_of(known))
            players.append(entry)
        out = {
            "phase": None if s["done"] else s["phase"],
            "your_hand": names(s["hands"][seat]),
            "table": [names(group) for group in s["table"]],
            "placed_this_turn": names(s["placed"]),
            "placements_this_turn": s["placements"],
            "placement_limit": self.config["max_placements"],
            "draw_pile_cards": len(s["draw_pile"]),
        }
        if solo:
            return out | {"cards_drawn": k.NUM_CARDS - len(s["draw_pile"])}
        out |= {
            "discard_pile": names(s["discard_pile"]),
            "turn_of_hand": s["hand_turns"] + 1,
            "turn_limit": self.config["max_turns"],
            "players": players,
        }
        if self.config["match"]:
            out["match_target"] = int(k.target_points(s["num_players"]))
        return out

    def view_text(self, row: np.ndarray, seat: int) -> str:
        v = self.view(row, seat)
        lines = views.head_lines(self.title, v)
        solo = "cards_drawn" in v
        if not v["done"]:
            if solo:
                lines.append(f"Melding phase; {v['cards_drawn']} card(s) drawn so far.")
            else:
                lines.append(
                    f"{v['phase'].capitalize()} phase, turn {v['turn_of_hand']} of this "
                    f"hand (the hand is cut short after {v['turn_limit']} turns)."
                )
            if v["phase"] == "meld":
                lines.append(
                    f"Placements this turn: {v['placements_this_turn']} of at most "
                    f"{v['placement_limit']}."
                )
        if "match_target" in v:
            lines.append(f"A match to {v['match_target']} points.")
        if v["table"]:
            cards = sum(map(len, v["table"]))
            lines.append(f"Table ({cards} cards in {len(v['table'])} groups):")
            lines.extend(f"  {', '.join(group)}" for group in v["table"])
        else:
            lines.append("Table: empty.")
        if v["placed_this_turn"]:
            lines.append(f"Placed this turn: {', '.join(v['placed_this_turn'])}.")
        lines.append(f"Draw pile: {v['draw_pile_cards']} card(s).")
        if not solo:
            pile = v["discard_pile"]
            top = f" (bottom to top): {', '.join(pile)}" if pile else ": empty"
            lines.append(f"Discard pile{top}.")
        lines.append(f"Your hand ({len(v['your_hand'])}): {', '.join(v['your_hand']) or 'empty'}.")
        if "players" in v:
            lines.append("Players:")
        for p in v.get("players", []):
            line = f"  {views.who(p['player'], v)}: {p['cards_in_hand']} card(s), "
            line += "opened" if p["opened"] else "not opened"
            line += f", {p['points']} point(s)"
            if p.get("known_cards"):
                line += f"; known to hold {', '.join(p['known_cards'])}"
            lines.append(line)
        return "\n".join(lines)

    def action_name(self, action: int) -> str:
        return action_name(action)

    def describe(self, row: np.ndarray, action: int, actor: int, viewer: int) -> str:
        """As `action_name`, with the cards a take from the discard pile gets (all public).
        It reads the discard pile only: a take deeper than the pile (never legal) is a
        `ValueError`, not the hidden cards in the row's slots below it."""
        if not k.TAKE <= action < k.PLACE:
            return action_name(action)
        count, top = action - k.TAKE + 1, int(row[k.DISCARD_N])
        if count > top:
            raise ValueError(
                f"{self.env_id}: action {action} ({action_name(action)}) is not legal with "
                f"{top} card(s) in the discard pile; the legal actions are "
                f"{self.legal_actions(row).tolist()}"
            )
        cards = row[k.DISCARD_PILE + top - count : k.DISCARD_PILE + top]
        return f"take the top {count} of the discard pile: {card_names([int(c) for c in cards])}"

    def heuristic_args(self) -> tuple:
        """The seats, the neutrals rule, and whether the observation holds the hint (read
        from the config, not from the observation's width, which `history` widens too)."""
        return (self.num_players, bool(self.config["neutral_at_ends"]), self.config["hints"])


class Rummidrez(_RummidrezBase):
    env_id = "rummidrez_v0"
    title = "Rummidrez"
    rules_summary = RULES_SUMMARY
    derived_options = ("hints",)  # not solo: its hint is kept in the row by `step`
    ismcts_10ms = "ismcts:16"  # it searches only its meld decisions (docs/agents.md)
    ismcts_larger = "ismcts:32"
    speed_targets = (3.0, 40.0)
    speed_configs = (dict(num_players=4),)
    options = {
        "num_players": Option(2, "number of players", low=2, high=k.MAX_PLAYERS),
        "reward": Option(
            "win",
            "'win': the winner gets 1 at the end (ties share); 'score': at the end of each "
            "hand its winner gets the cards left in the other hands",
            ("win", "score"),
        ),
        "match": Option(False, "play hands until a seat has 14 / 28 / 42 points (2 / 3 / 4)"),
        "rediscard": Option(
            True, "a card taken from the discard pile may be discarded in the same turn"
        ),
        "max_turns": Option(
            200, "a hand is truncated after this many full turns", low=1, high=COUNT_CAP
        ),
        **_TABLE_OPTIONS,
    }
    soak_configs = tuple(dict(num_players=n) for n in (2, 3, 4))  # whole hands, not cut short
    test_configs = (
        *(dict(num_players=n, max_turns=12, max_placements=12) for n in (2, 3, 4)),
        dict(num_players=2, match=True, reward="score", max_turns=8, max_placements=10),
        dict(num_players=3, neutral_at_ends=True, rediscard=False, max_turns=12, max_placements=12),
        dict(num_players=2, hints=True, max_turns=12, max_placements=12),
        dict(num_players=3, max_turns=12, max_placements=12, history=8),
    )

    def encode_config(self, row: np.ndarray) -> None:
        self._encode(row, solo=False)

    def reward_range(self) -> tuple[float, float]:
        if self.config["reward"] == "win":
            return -1.0, 1.0
        return -1.0, float(k.NUM_CARDS)


class RummidrezSolo(_RummidrezBase):
    """The solo variant: one seat, no discard, an automatic draw after each melding phase."""

    env_id = "rummidrez_solo_v0"
    title = "Rummidrez solo"
    rules_summary = SOLO_RULES_SUMMARY
    options = {"num_players": Option(1, "always 1", low=1, high=1), **_TABLE_OPTIONS}
    test_configs = (dict(), dict(neutral_at_ends=True, hints=True, max_placements=12))
    private_hands = False
    # a solo game checks a whole table at each placement (about 0.15 s a game): 1% of the
    # soak's games, so that Rummidrez's full soak stays within hours
    soak_share = 0.01

    def encode_config(self, row: np.ndarray) -> None:
        self._encode(row, solo=True)

    def reward_range(self) -> tuple[float, float]:
        return -float(k.SOLO_FAILED + k.NUM_CARDS), 0.0
