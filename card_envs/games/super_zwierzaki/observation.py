"""Super Zwierzaki's observation: its named slices (`OBS_SEGMENTS`) and `observe`, what a
seat may know: its own hand and public facts only.
"""

from card_envs.core import history, layout
from card_envs.core.jit import njit
from card_envs.core.segments import Segment, slices
from card_envs.games.super_zwierzaki.deck import NUM_KINDS
from card_envs.games.super_zwierzaki.slots import (
    C_DEMAND,
    COUNTER_HIGH,
    COUNTERS,
    D_COPIES,
    D_DRAWN,
    D_NINE,
    D_PICK,
    D_REACT,
    D_SEAT,
    D_TURN,
    DECISION_NAMES,
    DEMAND_KIND,
    DISCARD_N,
    DISCARD_PILE,
    DRAW_N,
    DUEL_FN,
    DUEL_FOLDED,
    DUEL_HIGH,
    DUEL_ON,
    DUEL_POINTS,
    F_GIV,
    F_OTH,
    GIVEN_CLASSES,
    GIVEN_COLOURS,
    HAND_N,
    HANDS,
    LOST,
    LOST_HIGH,
    NUM_CLASSES,
    NUM_COLOURS,
    NUMBERS,
    P_DISCARD,
    PERM,
    PLAYED,
    S_GIVE,
    S_WAR2_HAND,
    S_WAR2_RECEIVER,
    S_WAR_B,
    TURN_SEAT,
)
from card_envs.games.super_zwierzaki.stack import _top

OBS_SEGMENTS = (  # per-seat segments run from the observing seat on, in seat order
    Segment("hand", NUM_KINDS),  # own copies per kind
    Segment("top", NUM_KINDS),  # the top card of the discard pile, one-hot
    Segment("played", NUM_KINDS),  # copies per kind in the discard pile
    Segment("colours", NUM_COLOURS),  # the given colours
    Segment("classes", NUM_CLASSES),  # the given classes
    Segment("counters", 4),  # red, orc, green, demand points
    Segment("demand", NUM_KINDS),  # the demanded kind, one-hot, while demand points stand
    Segment("duel", 4),  # a duel is on, it is an Oth duel, a Giv duel, its points
    Segment("folded", 1, "all"),  # seats folded in the duel
    Segment("hand_sizes", 1, "all"),
    Segment("lost", 1, "all"),  # turns still to lose
    Segment("order", 1, "all"),  # places after the observing seat in the order of play
    Segment("turn", 1, "all"),  # whose turn it is, one-hot
    Segment("decision", len(DECISION_NAMES)),  # the pending decision, one-hot
    Segment("decider", 1, "all"),  # who decides, one-hot
    Segment("kind", NUM_KINDS),  # own decision only: the kind whose copies or drawn card it is
    Segment("purpose", 10),  # seat choice: 7 purposes, then card picks: discard, give, keep
    Segment("left", 1),  # cards still to pick, or to give
    # the receiving seat, the first War seat, the two-War giver, or whose play or win a
    # reaction window is about; one-hot
    Segment("seat", 1, "all"),
    Segment("seat2", 1, "all"),  # the two-War receiver, one-hot
    Segment("taken", 1, "all"),  # two War: the hands already chosen
    Segment("nine", NUM_COLOURS),  # 9 kolorow: the colours laid so far
    Segment("window", 3),  # a reaction window on a play, a win or a 9 kolorow give
    Segment("piles", 2),  # cards in the draw pile and in the discard pile
)


def obs_slices(num_players: int) -> dict[str, tuple[int, int]]:
    """Name -> (start, size) of every slice of the observation (`OBS_SEGMENTS`)."""
    return slices(OBS_SEGMENTS, {"num_players": num_players})


def obs_size(num_players: int) -> int:
    start, size = obs_slices(num_players)["piles"]
    return start + size


@njit(cache=True)
def _rel(row, seat, q):
    """Seat q's place in the observation of `seat` (own seat 0, then seat order)."""
    return (q - seat) % row[layout.NUM_PLAYERS]


@njit(cache=True)
def observe(row, seat, out):
    """What `seat` may know (slices: `obs_slices`): its own hand, and public facts only."""
    n = row[layout.NUM_PLAYERS]
    out[:] = 0.0
    for k in range(NUM_KINDS):
        out[k] = row[HANDS + seat * NUM_KINDS + k]
    pos = NUM_KINDS
    out[pos + row[DISCARD_PILE + row[DISCARD_N] - 1]] = 1.0
    pos += NUM_KINDS
    for k in range(NUM_KINDS):
        out[pos + k] = row[PLAYED + k]
    pos += NUM_KINDS
    for c in range(NUM_COLOURS):
        out[pos + c] = (row[GIVEN_COLOURS] >> c) & 1
    pos += NUM_COLOURS
    for c in range(NUM_CLASSES):
        out[pos + c] = (row[GIVEN_CLASSES] >> c) & 1
    pos += NUM_CLASSES
    for c in range(4):  # saturated, like the duel's points and the lost turns (see the caps)
        out[pos + c] = min(row[COUNTERS + c], COUNTER_HIGH[c])
    pos += 4
    if row[COUNTERS + C_DEMAND] and row[DEMAND_KIND] >= 0:
        out[pos + row[DEMAND_KIND]] = 1.0
    pos += NUM_KINDS
    if row[DUEL_ON]:
        out[pos] = 1.0
        out[pos + 1] = 1.0 if row[DUEL_FN] == F_OTH else 0.0
        out[pos + 2] = 1.0 if row[DUEL_FN] == F_GIV else 0.0
        out[pos + 3] = min(row[DUEL_POINTS], DUEL_HIGH)
    pos += 4
    for q in range(n):
        r = _rel(row, seat, q)
        if row[DUEL_ON]:
            out[pos + r] = (row[DUEL_FOLDED] >> q) & 1
        out[pos + n + r] = row[HAND_N + q]
        out[pos + 2 * n + r] = min(row[LOST + q], LOST_HIGH)
        out[pos + 3 * n + r] = (row[NUMBERS + q] - row[NUMBERS + seat]) % n
    out[pos + 4 * n + _rel(row, seat, row[TURN_SEAT])] = 1.0
    pos += 5 * n
    decided = pos + len(DECISION_NAMES) + n  # the context slices
    if row[layout.STATUS] == layout.RUNNING:
        what, p, a, b, c, d = _top(row)
        # choosing how many copies stays a turn to the others: whether a hand holds more
        # copies of the kind it plays is its own
        out[pos + (D_TURN if what == D_COPIES and p != seat else what)] = 1.0
        out[pos + len(DECISION_NAMES) + _rel(row, seat, p)] = 1.0
        kind_at = decided
        purpose_at = kind_at + NUM_KINDS
        left_at = purpose_at + 10
        seat_at = left_at + 1
        seat2_at = seat_at + n
        taken_at = seat2_at + n
        nine_at = taken_at + n
        window_at = nine_at + NUM_COLOURS
        if (what == D_COPIES or what == D_DRAWN) and p == seat:
            out[kind_at + a] = 1.0
        elif what == D_SEAT:
            out[purpose_at + a] = 1.0
            if a == S_GIVE:
                out[left_at] = b
            elif a == S_WAR_B or a == S_WAR2_RECEIVER or a == S_WAR2_HAND:
                out[seat_at + _rel(row, seat, b)] = 1.0
            if a == S_WAR2_HAND:
                out[seat2_at + _rel(row, seat, c)] = 1.0
                for i in range(d):
                    out[taken_at + _rel(row, seat, row[PERM + i])] = 1.0
        elif what == D_PICK:
            out[purpose_at + 7 + a] = 1.0
            out[left_at] = b
            if a != P_DISCARD:
                out[seat_at + _rel(row, seat, c)] = 1.0
        elif what == D_NINE:
            for col in range(NUM_COLOURS):
                out[nine_at + col] = (a >> col) & 1
        elif what == D_REACT:
            out[window_at + a] = 1.0
            out[seat_at + _rel(row, seat, b)] = 1.0
    pos = decided + NUM_KINDS + 10 + 1 + 3 * n + NUM_COLOURS + 3
    out[pos] = row[DRAW_N]
    out[pos + 1] = row[DISCARD_N]
    history.write(row, seat, out)
