"""Rummidrez positions: the game's part of `state_dict` (`fields`) and its inverse
(`load_fields`, see `core.loading`).

The dict holds the hands, the table as groups (one split the solver finds: any split into
valid groups is the same position, the engine keeping the counts), this turn's placed and
taken cards, both piles, the cards each seat is known to hold, the phase, the seats and
counters of the hand and the match. Loading reads every field and range-checks it, checks
the position against the rules' laws (whose turn it is, who may hold what, how a hand or a
match ends, where points come from) and writes the row; the engine's cached END_MELD
legality and solo fit are computed as `step` keeps them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from card_envs.core import layout
from card_envs.core.engine import Game
from card_envs.core.loading import Reader
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.groups import card_names, group_error, table_partition

PHASE_NAMES = ("draw", "meld", "discard")
DECK = [c for c in range(k.NEUTRAL) for _ in range(k.COPIES)] + [k.NEUTRAL] * k.NEUTRALS
SOLO_STOCK = k.NUM_CARDS - k.HAND_SIZE  # the solo draw pile after the deal


def cards_of(counts: np.ndarray) -> list[int]:
    """Sorted card ids of 55 copy counts."""
    return [int(c) for c in np.repeat(np.arange(k.NUM_IDS), counts)]


def table_groups(row: np.ndarray) -> list[list[int]]:
    """The table (before this turn's placements) as groups, neutrals as 54 in their place."""
    counts = row[k.TABLE : k.TABLE + k.NEUTRAL].reshape(6, 9)
    groups = table_partition(counts, int(row[k.TABLE + k.NEUTRAL]), bool(row[k.CFG_ENDS]))
    if groups is None:
        raise AssertionError("the table of a running game is always valid")
    return groups


def fields(game: Game, row: np.ndarray) -> dict:
    """The game's part of `state_dict`: the position in words (card ids, the table as groups)."""
    n = game.num_players
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


def load_fields(game: Game, r: Reader, row: np.ndarray) -> None:
    """Read the position, check it against the rules' laws and write it. The row then
    equals the one the dict was taken from, but in the pile slots past `DRAW_N` and
    `DISCARD_N` (stale cards the engine overwrites before it reads them); `TABLE_OK` and
    `FITS` are computed as `step` keeps them (equal in a finished game too)."""
    s = _read(r, row, game.num_players)
    _check_turn(r, s, row)
    _check_cards(r, s)
    _check_end(r, s)
    _check_points(r, s)
    _write(row, s)
    # any split of the table into valid groups is the same position (the engine keeps
    # the counts, the rules let the table be rearranged): compare the one `fields` shows
    r.d = {**r.d, "table": table_groups(row)}


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
            r.fail(f"table[{i}]", f"{card_names(group)} is not a group: {why}")
        cards += group
    return cards


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
            r.fail(f"known[{q}]", f"seat {q} is known to hold {card_names(extra)}, not in its hand")
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
        r.fail("taken", f"the seat to act is not known to hold {card_names(extra)}")
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


def _write_counts(row: np.ndarray, base: int, cards: list[int]) -> None:
    row[base : base + k.NUM_IDS] = np.bincount(
        np.asarray(cards, dtype=np.int64), minlength=k.NUM_IDS
    )


def _not_within(cards: list[int], within: list[int]) -> list[int]:
    """The cards of the multiset `cards` that `within` does not hold."""
    return sorted((Counter(cards) - Counter(within)).elements())
