"""Rummidrez as a `Game`: options, observation bounds, state_dict, action names and text.

`Rummidrez` is the 2-4 player game (`rummidrez_v0`); `RummidrezSolo` the solo variant on the
same engine, served as the Gymnasium env `rummidrez_solo_v0`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from card_envs.core import layout
from card_envs.core.config import COUNT_CAP, Option
from card_envs.core.engine import Game
from card_envs.core.loading import Reader
from card_envs.core.scene import Scene
from card_envs.games.rummidrez import batched, search, table
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.heuristic import heuristic_actions
from card_envs.games.rummidrez.solver import card_name, group_error, table_partition

PHASE_NAMES = ("draw", "meld", "discard")
DECK = [c for c in range(k.NEUTRAL) for _ in range(k.COPIES)] + [k.NEUTRAL] * k.NEUTRALS
SOLO_STOCK = k.NUM_CARDS - k.HAND_SIZE  # the solo draw pile after the deal

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


def cards_of(counts: np.ndarray) -> list[int]:
    """Sorted card ids of 55 copy counts."""
    return [int(c) for c in np.repeat(np.arange(k.NUM_IDS), counts)]


def _names(cards: list[int]) -> str:
    return ", ".join(card_name(c) for c in cards) or "-"


def _write_counts(row: np.ndarray, base: int, cards: list[int]) -> None:
    row[base : base + k.NUM_IDS] = np.bincount(
        np.asarray(cards, dtype=np.int64), minlength=k.NUM_IDS
    )


def _not_within(cards: list[int], within: list[int]) -> list[int]:
    """The cards of the multiset `cards` that `within` does not hold."""
    return sorted((Counter(cards) - Counter(within)).elements())


def table_groups(row: np.ndarray) -> list[list[int]]:
    """The table (before this turn's placements) as groups, neutrals as 54 in their place."""
    counts = row[k.TABLE : k.TABLE + k.NEUTRAL].reshape(6, 9)
    groups = table_partition(counts, int(row[k.TABLE + k.NEUTRAL]), bool(row[k.CFG_ENDS]))
    if groups is None:
        raise AssertionError("the table of a running game is always valid")
    return groups


# --- reading a state dict back (`Game.load_state_dict`) ----------------------------------------
@dataclass
class _Position:
    """The primary fields of a state dict, each read and range-checked (`_read`)."""

    status: int
    solo: bool
    match: bool
    hands: list[list[int]]
    table: list[int]  # the cards of the groups (the split is no part of the state)
    placed: list[int]
    draw: list[int]  # next card first
    discard: list[int]  # bottom to top
    known: list[list[int]]
    taken: list[int]
    phase: int
    player: int
    first: int
    hand_turns: int
    placements: int
    opened: list[bool]
    points: list[int]
    winner: int | None
    refilled: bool


def _flags(r: Reader, key: str, n: int) -> list[bool]:
    """One true or false per seat."""
    flags = r.per_seat(key, n)
    for q, v in enumerate(flags):
        if not isinstance(v, bool):
            r.fail(f"{key}[{q}]", f"{v!r} is not true or false")
    return flags


def _read_table(r: Reader, ends: bool) -> list[int]:
    """The table's cards; every group must be a group by the rules."""
    groups = r.get("table")
    if not isinstance(groups, list):
        r.fail("table", f"{groups!r} is not a list of groups")
    cards = []
    for i, g in enumerate(groups):
        group = r.ints(f"table[{i}]", 0, k.NEUTRAL, value=g)
        why = group_error(group, ends)
        if why:
            r.fail(f"table[{i}]", f"{_names(group)} is not a group: {why}")
        cards += group
    return cards


def _read(r: Reader, row: np.ndarray, n: int) -> _Position:
    """Every primary field, in range; the 112 cards each in exactly one place."""

    def per_seat(key: str) -> list[list[int]]:
        return [
            r.ints(f"{key}[{q}]", 0, k.NEUTRAL, value=v) for q, v in enumerate(r.per_seat(key, n))
        ]

    hands = per_seat("hands")
    table = _read_table(r, bool(row[k.CFG_ENDS]))
    placed = r.ints("placed", 0, k.NEUTRAL)
    draw = r.ints("draw_pile", 0, k.NEUTRAL)
    discard = r.ints("discard_pile", 0, k.NEUTRAL)
    held = [c for hand in hands for c in hand]
    r.partition(
        {
            "hands": held,
            "table": table,
            "placed": placed,
            "draw_pile": draw,
            "discard_pile": discard,
        },
        DECK,
    )
    winner = r.get("winner")
    return _Position(
        status=int(row[layout.STATUS]),
        solo=bool(row[k.CFG_SOLO]),
        match=bool(row[k.CFG_MATCH]),
        hands=hands,
        table=table,
        placed=placed,
        draw=draw,
        discard=discard,
        known=per_seat("known"),
        taken=r.ints("taken", 0, k.NEUTRAL),
        phase=r.choice("phase", PHASE_NAMES),
        player=r.int("current_player", 0, n - 1),
        first=r.int("first_player", 0, n - 1),
        hand_turns=r.int("hand_turns", 0, int(row[k.CFG_MAX_TURNS])),
        placements=r.int("placements", 0, int(row[k.CFG_MAX_PLACE])),
        opened=_flags(r, "opened", n),
        points=r.ints("points", 0, length=n),
        winner=None if winner is None else r.int("winner", 0, n - 1),
        refilled=r.bool("refilled"),
    )


def _check_turn(r: Reader, s: _Position, row: np.ndarray) -> None:
    """The seat to act follows from the first seat and the turns played; the phase holds what
    that phase can hold; the actions counted cover the turns and placements."""
    n = len(s.hands)
    truncated = s.status == layout.TRUNCATED
    if s.solo and truncated:
        r.fail("status", "the solo game is never truncated")
    if s.solo and s.phase != k.PHASE_MELD:
        r.fail("phase", "a solo turn is a melding phase only")
    max_turns = int(row[k.CFG_MAX_TURNS])
    if truncated != (s.hand_turns == max_turns):
        r.fail(
            "hand_turns",
            f"is {s.hand_turns}: a hand is truncated exactly when its turns reach "
            f"max_turns={max_turns}",
        )
    to_act = (s.first + s.hand_turns - truncated) % n  # truncation stops on the last turn
    if s.player != to_act:
        r.fail(
            "current_player",
            f"is {s.player}, but play goes up by seat from first_player {s.first}: after "
            f"{s.hand_turns} turn(s) it is seat {to_act}",
        )
    if s.placed and s.phase != k.PHASE_MELD:
        r.fail("placed", "cards are placed only in a melding phase")
    if s.placed and s.status != layout.RUNNING:
        r.fail("placed", "a game ends only once the placed cards have joined the table")
    if len(s.placed) > s.placements:
        r.fail("placements", f"{s.placements} placement(s) cannot have placed {len(s.placed)}")
    if s.phase == k.PHASE_DRAW and (s.placements or s.taken):
        key = "placements" if s.placements else "taken"
        r.fail(key, "a turn in its draw phase has placed and taken nothing yet")
    # a solo turn is at least its END_MELD; else a draw or take, END_MELD and the discard
    least = s.hand_turns + s.placements
    if not s.solo:
        least = 3 * s.hand_turns + s.placements + s.phase - 2 * truncated
    if row[layout.TURN] < least:
        r.fail(
            "turn",
            f"{row[layout.TURN]} actions cannot have played {s.hand_turns} turn(s) of this "
            f"hand and {s.placements} placement(s) of this one (at least {least})",
        )
    if s.match and not s.solo:
        return  # the hands before this one, won or not, have no bound on their turns
    # a turn: a draw or take, placements and as many undos, END_MELD and a discard (solo:
    # placements, undos and END_MELD); the turn being played or that ended the game too
    per = 2 * int(row[k.CFG_MAX_PLACE]) + (1 if s.solo else 3)
    most = (s.hand_turns + 1) * per
    if row[layout.TURN] > most:
        r.fail(
            "turn",
            f"{row[layout.TURN]} is not in {least}..{most}: {s.hand_turns + 1} turn(s) of at "
            f"most {per} actions each",
        )


def _check_cards(r: Reader, s: _Position) -> None:
    """Who may hold what: known and taken cards are held, a hand is never empty while it is
    played, a seat that has not opened has played no card, the table holds every opening,
    the piles are what the deal, the draws and the discards left."""
    emptied = s.winner if s.status == layout.TERMINATED else None
    for q, hand in enumerate(s.hands):
        held = hand + (s.placed if q == s.player else [])
        extra = _not_within(s.known[q], held)
        if extra:
            r.fail(f"known[{q}]", f"seat {q} is known to hold {_names(extra)}, not in its hand")
        if not held and q != emptied:
            r.fail(f"hands[{q}]", f"seat {q} holds no card, but emptying a hand ends it")
        if not s.opened[q] and len(held) < k.HAND_SIZE:
            r.fail(
                f"hands[{q}]",
                f"seat {q} has not opened, so it has played no card of the {k.HAND_SIZE} dealt "
                f"(a discard follows a draw); it holds {len(held)}",
            )
    extra = _not_within(s.taken, s.known[s.player])
    if extra:
        r.fail("taken", f"the seat to act is not known to hold {_names(extra)}")
    opened = sum(s.opened)
    if len(s.table) < k.OPEN_MIN * opened:
        r.fail(
            "table",
            f"{opened} seat(s) opened, each with {k.OPEN_MIN} or more cards, but the table holds "
            f"{len(s.table)}",
        )
    if s.table and not opened:
        r.fail("table", "cards lie on the table, but no seat has opened")
    if s.solo:
        _check_solo_piles(r, s)
        return
    most = s.hand_turns + (s.status != layout.RUNNING)  # a winning discard ends no turn
    if len(s.discard) > most:
        r.fail(
            "discard_pile",
            f"holds {len(s.discard)} cards, but a turn discards one: at most {most} after "
            f"{s.hand_turns} turn(s)",
        )
    stock = k.NUM_CARDS - k.HAND_SIZE * len(s.hands)
    drawn = stock - len(s.draw)
    most = s.hand_turns + (s.phase != k.PHASE_DRAW)
    if not s.refilled and not 0 <= drawn <= most:
        r.fail(
            "draw_pile",
            f"holds {len(s.draw)} cards, but without a refill it is the {stock} cards the deal "
            f"left, less at most one a turn: {stock - most}..{stock} after {s.hand_turns} turn(s)",
        )


def _check_solo_piles(r: Reader, s: _Position) -> None:
    """Solo: no discard pile, and one card drawn a turn after the 14 dealt."""
    if s.discard or s.known[0]:
        r.fail("discard_pile" if s.discard else "known", "the solo game has no discard pile")
    if s.refilled:
        r.fail("refilled", "the solo game never refills its draw pile")
    if len(s.draw) != SOLO_STOCK - s.hand_turns:
        r.fail(
            "draw_pile",
            f"holds {len(s.draw)} cards, but the solo game deals {k.HAND_SIZE} and draws one a "
            f"turn: {SOLO_STOCK - s.hand_turns} are left after {s.hand_turns} turn(s)",
        )


def _check_end(r: Reader, s: _Position) -> None:
    """A running game's turn can be played; a finished one ended as the rules end a game."""
    if s.status == layout.RUNNING:
        if s.phase == k.PHASE_DRAW and not s.draw:
            r.fail("draw_pile", "a turn begins with a draw pile (refilled when empty)")
        if s.winner is not None and not (s.match and not s.solo):
            r.fail("winner", "the hand's winner ends the game (but in a match)")
        return
    if s.status == layout.TRUNCATED:
        if s.phase != k.PHASE_DISCARD:
            r.fail("phase", "a hand is truncated by the last discard of its last turn")
        if s.winner is not None and not s.match:
            r.fail("winner", "a truncated hand has no winner")
        return
    if s.winner is not None:
        if s.winner != s.player:
            r.fail("winner", f"seat {s.winner} cannot have won on seat {s.player}'s turn")
        if s.hands[s.winner]:
            r.fail(f"hands[{s.winner}]", "the winner has emptied its hand")
        if s.phase == k.PHASE_DRAW:
            r.fail("phase", "a hand is won by END_MELD or by a discard, not in the draw phase")
    elif s.solo:
        if s.draw:
            r.fail("draw_pile", "a lost solo game ends with no card left to draw")
    elif s.match:
        r.fail("winner", "a match ends with a won hand (a hand without winner is dealt anew)")
    elif s.phase != k.PHASE_DRAW or s.draw or len(s.discard) > 1:
        r.fail(
            "draw_pile",
            "a hand without winner ends as a turn begins with an empty draw pile that at most "
            "one discarded card cannot refill",
        )


def _check_points(r: Reader, s: _Position) -> None:
    """Points come only from won hands: the cards left in the other hands."""
    n = len(s.hands)
    w = s.winner
    gained = 0 if w is None else sum(len(h) for q, h in enumerate(s.hands) if q != w)
    if s.solo or not s.match:
        want = [0] * n
        if w is not None and not s.solo:
            want[w] = gained
        if s.points != want:
            r.fail("points", f"are {s.points}, but the hand's result gives {want}")
        return
    target = int(k.target_points(n))
    others = [p for q, p in enumerate(s.points) if q != w]
    low, high = max(target, gained), target - 1 + gained  # from below the target, + gained
    if s.status == layout.TERMINATED and (not low <= s.points[w] <= high or max(others) >= target):
        r.fail(
            "points",
            f"are {s.points}, but the match ended with seat {w}'s hand: it alone reached "
            f"{target}, from below it with the {gained} that hand gave ({low}..{high})",
        )
    if s.status != layout.TERMINATED and max(s.points) >= target:
        r.fail("points", f"are {s.points}, but a seat with {target} ends the match")
    if s.status != layout.TERMINATED and w is not None and s.points[w] == 0:
        r.fail("points", f"seat {w} won the last hand, which gave it a point at least")


def _write(row: np.ndarray, s: _Position) -> None:
    """The position into the row's slots (`engine`), with the cached END_MELD legality and
    solo fit computed as `step` keeps them."""
    for q, (hand, known) in enumerate(zip(s.hands, s.known, strict=True)):
        _write_counts(row, k.HAND + q * k.NUM_IDS, hand)
        _write_counts(row, k.KNOWN + q * k.NUM_IDS, known)
    _write_counts(row, k.TABLE, s.table)
    _write_counts(row, k.PLACED, s.placed)
    _write_counts(row, k.TAKEN, s.taken)
    row[k.DRAW_N] = len(s.draw)
    row[k.DRAW_PILE : k.DRAW_PILE + len(s.draw)] = s.draw[::-1]  # the top is the last slot
    row[k.DISCARD_N] = len(s.discard)
    row[k.DISCARD_PILE : k.DISCARD_PILE + len(s.discard)] = s.discard
    row[k.OPENED : k.OPENED + len(s.opened)] = s.opened
    row[k.POINTS : k.POINTS + len(s.points)] = s.points
    row[k.WINNER] = -1 if s.winner is None else s.winner
    row[k.REFILLED] = s.refilled
    row[layout.PLAYER] = s.player
    row[k.PHASE] = s.phase
    row[k.FIRST] = s.first
    row[k.HAND_TURNS] = s.hand_turns
    row[k.PLACE_COUNT] = s.placements
    row[k.TABLE_OK] = k.meld_ok(row, s.player)
    row[k.FITS] = k.solo_fits(row)


class _RummidrezBase(Game):
    engine = k
    obs_segments = k.OBS_SEGMENTS
    batched = batched
    heuristic_kernel = heuristic_actions
    search_kernel = search.search
    compile_seconds = 96  # the folder's two games together, which share the solver
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
        n = self.num_players
        scores = np.zeros(n, dtype=np.float64)
        k.outcome(row, scores, np.zeros(n, dtype=np.float64))
        hand = [row[k.HAND + p * k.NUM_IDS : k.HAND + (p + 1) * k.NUM_IDS] for p in range(n)]
        known = [row[k.KNOWN + p * k.NUM_IDS : k.KNOWN + (p + 1) * k.NUM_IDS] for p in range(n)]
        draw = row[k.DRAW_PILE : k.DRAW_PILE + row[k.DRAW_N]]
        discard = row[k.DISCARD_PILE : k.DISCARD_PILE + row[k.DISCARD_N]]
        return {
            "num_players": n,
            "current_player": int(row[layout.PLAYER]),
            "phase": PHASE_NAMES[int(row[k.PHASE])],
            "hands": [cards_of(h) for h in hand],
            "table": table_groups(row),
            "placed": cards_of(row[k.PLACED : k.PLACED + k.NUM_IDS]),
            "draw_pile": [int(c) for c in draw[::-1]],  # next card first
            "discard_pile": [int(c) for c in discard],  # bottom to top
            "known": [cards_of(h) for h in known],
            "opened": [bool(row[k.OPENED + p]) for p in range(n)],
            "points": [int(row[k.POINTS + p]) for p in range(n)],
            "hand_turns": int(row[k.HAND_TURNS]),
            "placements": int(row[k.PLACE_COUNT]),
            "taken": cards_of(row[k.TAKEN : k.TAKEN + k.NUM_IDS]),
            "first_player": int(row[k.FIRST]),
            "refilled": bool(row[k.REFILLED]),
            "winner": int(row[k.WINNER]) if row[k.WINNER] >= 0 else None,
            "done": bool(row[layout.STATUS] != layout.RUNNING),
            "truncated": bool(row[layout.STATUS] == layout.TRUNCATED),
            "scores": [float(s) for s in scores],
        }

    def load_fields(self, r: Reader, row: np.ndarray) -> None:
        """Read the position, check it against the rules' laws and write it. The row then
        equals the one the dict was taken from, but in the pile slots past `DRAW_N` and
        `DISCARD_N` (stale cards the engine overwrites before it reads them); `TABLE_OK` and
        `FITS` are computed as `step` keeps them (equal in a finished game too)."""
        s = _read(r, row, self.num_players)
        _check_turn(r, s, row)
        _check_cards(r, s)
        _check_end(r, s)
        _check_points(r, s)
        _write(row, s)
        # any split of the table into valid groups is the same position (the engine keeps
        # the counts, the rules let the table be rearranged): compare the one `fields` shows
        r.d = {**r.d, "table": table_groups(row)}

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
            f"card(s), top last: {_names(top)}",
            f"Table ({sum(map(len, s['table']))} cards):",
            *(f"  {_names(g)}" for g in s["table"]),
        ]
        if s["placed"]:
            lines.append(f"Placed this turn: {_names(s['placed'])}")
        for q in range(n):
            who = "you" if q == seat else f"player_{q}"
            flags = f"{'opened' if s['opened'][q] else 'not opened'}, {s['points'][q]} point(s)"
            if q == seat:
                lines.append(f"  {who} ({flags}): {_names(s['hands'][q])}")
            else:
                known = f"; known to hold {_names(s['known'][q])}" if s["known"][q] else ""
                lines.append(f"  {who} ({flags}): {len(s['hands'][q])} card(s){known}")
        return "\n".join(lines)

    def table(self, row: np.ndarray, viewer: int | None) -> Scene:
        return table.scene(self, row, viewer)

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
        return f"take the top {count} of the discard pile: {_names([int(c) for c in cards])}"

    def heuristic_args(self) -> tuple:
        """The seats, the neutrals rule, and whether the observation holds the hint (read
        from the config, not from the observation's width, which `history` widens too)."""
        return (self.num_players, bool(self.config["neutral_at_ends"]), self.config["hints"])


class Rummidrez(_RummidrezBase):
    env_id = "rummidrez_v0"
    title = "Rummidrez"
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
