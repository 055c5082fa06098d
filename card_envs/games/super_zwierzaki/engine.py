"""Super Zwierzaki engine: numba kernels over one int64 state row (the protocol of
`core.engine`: reset, step, observe, legal, outcome, check_invariants, resample_hidden).

The game is a stack of pending decisions and a queue of effects, as in the reference game
(`tests/games/super_zwierzaki/reference.py`), which this engine must match: `legal` gives the
actions of the decision on top, `step` takes one and runs the game on (effects, turn ends,
win rounds, the next turn) until the next decision or the end. A play's effects wait in the
queue while its reaction window is open; a Cyr in the window clears them.

Action ids (the decision on top gives them their meaning): KIND k (0..115), COPIES c (1..5),
COLOUR c (0..8), SEAT d (seat (deciding seat + d) mod N), DRAW, PASS, NINE, CALL.

Row layout after the shared header (`core.layout`): config, the given colour and class
masks, the four counters and the demand, turn bookkeeping, the duel, pile sizes, per seat
the game number, lost turns, hand sizes (and their values at the last call check) and the
hand's counts per kind, the two piles, the decision stack, the effect queue, the
two-War hand choices, and what other seats may know of each hand (for `resample_hidden`).
"""

import numpy as np
from numba import njit

from card_envs.core import history, layout
from card_envs.core.prefetch import prefetch, prefetch_slots
from card_envs.core.rewards import share_win
from card_envs.core.rng import below, shuffle_slice, shuffle_sorted
from card_envs.core.segments import Segment, slices
from card_envs.games.super_zwierzaki.deck import (
    CLASSES,
    KIND_CLASSES,
    KIND_COLOURS,
    KIND_COPIES,
    KIND_FUNCTION,
    NUM_CARDS,
    NUM_KINDS,
)

MAX_PLAYERS = 12
HAND_SIZE = 5
NUM_COLOURS = 9
NUM_CLASSES = len(CLASSES)
ANY_COLOUR = (1 << NUM_COLOURS) - 1  # a Wielka 5's colour mask
MAX_COPIES = 5

# function codes, as deck.KIND_FUNCTION
F_RED, F_ORC, F_OTH, F_GIV, F_ALL, F_POL, F_KAZ = 1, 2, 3, 4, 5, 6, 7
F_WAR, F_CCH, F_MCH, F_DEM, F_STP, F_DZI, F_CYR = 8, 9, 10, 11, 12, 13, 14

# actions
KIND = 0
COPIES = NUM_KINDS
COLOUR = COPIES + MAX_COPIES
SEAT = COLOUR + NUM_COLOURS
DRAW = SEAT + MAX_PLAYERS
PASS = DRAW + 1
NINE = PASS + 1
CALL = NINE + 1
NUM_ACTIONS = CALL + 1

# decisions; their context slots a..d say
D_TURN = 0
D_COPIES = 1  # a: the kind
D_COLOUR = 2
D_NAME = 3
D_SEAT = 4  # a: purpose (S_*), b..d: see each purpose
D_PICK = 5  # a: purpose (P_*), b: cards left to pick, c: the receiving seat
D_NINE = 6  # a: colours laid (mask), b: cards laid
D_REACT = 7  # a: window (W_*), b: the seat whose play or win it is, c: the asker's place
D_DUEL = 8
D_CALL = 9
D_DRAWN = 10  # a: the kind drawn
DECISION_NAMES = (
    "turn", "copies", "colour", "name", "seat", "pick", "nine", "react", "duel", "call", "drawn",
)  # fmt: skip
S_GIVE, S_NINE_TO, S_WAR_A, S_WAR_B, S_WAR2_GIVER, S_WAR2_RECEIVER, S_WAR2_HAND = range(7)
P_DISCARD, P_GIVE, P_KEEP = 0, 1, 2
W_PLAY, W_WIN, W_NINE = 0, 1, 2
# effects: (code, seat, a, b)
E_ADD, E_COLOUR, E_NAME, E_REVERSE, E_ZERO_RED, E_RESET, E_DUEL = 0, 1, 2, 3, 4, 5, 6
E_DISCARD, E_GIVE, E_KEEP_ONE, E_WAR, E_WAR2, E_OTH_DRAW, E_NINE_GIVE = 7, 8, 9, 10, 11, 12, 13
C_RED, C_ORC, C_GREEN, C_DEMAND = 0, 1, 2, 3

D_WIDTH = 6  # what, seat, a, b, c, d
STACK_DEPTH = 40
E_WIDTH = 4
QUEUE_CAP = 64
QUEUE_START = QUEUE_CAP // 2  # room for effects put in front (an Oth duel's draws)

CFG_EXPLICIT_CALL = layout.HEADER
CFG_SKIP_FORCED = CFG_EXPLICIT_CALL + 1
CFG_PLAY_DRAWN = CFG_SKIP_FORCED + 1
CFG_MAX_TURNS = CFG_PLAY_DRAWN + 1
GIVEN_COLOURS = CFG_MAX_TURNS + 1  # mask of the nine colours
GIVEN_CLASSES = GIVEN_COLOURS + 1  # mask of the twenty classes
COUNTERS = GIVEN_CLASSES + 1  # red, orc, green, demand
DEMAND_KIND = COUNTERS + 4
DEMAND_BY = DEMAND_KIND + 1
TURN_SEAT = DEMAND_BY + 1  # the seat whose turn it is
TURNS = TURN_SEAT + 1  # turns played, lost ones included
WINNER = TURNS + 1
ENDING = WINNER + 1  # 1 while the turn's win rounds are under way
ASKED = ENDING + 1  # mask of the seats whose win round this turn end held
DUEL_ON = ASKED + 1
DUEL_FN = DUEL_ON + 1
DUEL_POINTS = DUEL_FN + 1
DUEL_FOLDED = DUEL_POINTS + 1  # mask
DRAW_N = DUEL_FOLDED + 1
DISCARD_N = DRAW_N + 1
NUMBERS = DISCARD_N + 1  # MAX_PLAYERS game numbers
LOST = NUMBERS + MAX_PLAYERS  # turns still to lose
SIZES = LOST + MAX_PLAYERS  # hand sizes at the last call check
HAND_N = SIZES + MAX_PLAYERS
# what nearly every step reads comes first, close together (the batched env's rows are
# apart in memory, so each region a step touches costs it a trip to memory)
STACK_N = HAND_N + MAX_PLAYERS
STACK = STACK_N + 1
QUEUE_HEAD = STACK + STACK_DEPTH * D_WIDTH
QUEUE_N = QUEUE_HEAD + 1
QUEUE = QUEUE_N + 1
PERM = QUEUE + QUEUE_CAP * E_WIDTH  # two War: the hands chosen, seat by seat
RESHUFFLED = PERM + MAX_PLAYERS  # 1 once the discard pile became the draw pile
PLAYED = RESHUFFLED + 1  # copies per kind in the discard pile
HANDS = PLAYED + NUM_KINDS  # MAX_PLAYERS x NUM_KINDS counts
DRAW_PILE = HANDS + MAX_PLAYERS * NUM_KINDS  # the next card drawn is the last
DISCARD_PILE = DRAW_PILE + NUM_CARDS  # bottom to top
# What another seat may know of a hand, for `resample_hidden`: per seat and kind, the copies
# it holds that are FIXED (given to it, or in a hand it took over: their giver knows them)
# and those LATE (drawn from the draw pile since its latest refill, whose make-up was public);
# the rest of a hand was drawn unseen before that refill. A card leaving a hand is counted
# out of FIXED first, then LATE (copies of a kind are alike, so any order is a true story).
FIXED = DISCARD_PILE + NUM_CARDS  # MAX_PLAYERS x NUM_KINDS
LATE = FIXED + MAX_PLAYERS * NUM_KINDS  # MAX_PLAYERS x NUM_KINDS
STATE_SIZE = LATE + MAX_PLAYERS * NUM_KINDS


def _answers_table() -> np.ndarray:
    """[counter, kind]: the kind answers the counter at the start of a turn, with no colour
    or class needed (for demand, the demanded kind answers too)."""
    table = np.zeros((4, NUM_KINDS), dtype=np.int8)
    f = KIND_FUNCTION
    table[C_RED] = (f == F_CYR) | (f == F_RED) | (f == F_ALL)
    table[C_ORC] = (f == F_CYR) | (f == F_ORC)
    table[C_GREEN] = (f == F_CYR) | (f == F_STP)
    table[C_DEMAND] = (f == F_CYR) | (f == F_DEM)
    return table


ANSWERS = _answers_table()


def _copies(function: int) -> int:
    """The cards of a function in the deck."""
    return int(KIND_COPIES[KIND_FUNCTION == function].sum())


def _most_copies(function: int) -> int:
    """The most copies of one kind of a function: the most of them one play lays."""
    return int(KIND_COPIES[KIND_FUNCTION == function].max())


# The observation's caps: the points of every card of a function played once (red, orc,
# green, demand), a duel with every Oth (or Giv) card and every Red in it, the turns lost to
# every Stp. Cards drawn while a chain or a duel runs (a call not made, a win stopped) can
# come again from a refilled draw pile, so play can pass the caps, bounded only by the
# game's length: `observe` saturates these counts. One action adds at most a play of the most
# copies of a kind to a counter (`COUNTER_PER_ACTION`), a Red's 2 points to a duel, and lost
# turns come from green points: `positions` bounds what it loads with these.
COUNTER_HIGH = np.array([2 * _copies(F_RED), 3 * _copies(F_ORC), _copies(F_STP), _copies(F_DEM)])
COUNTER_PER_ACTION = np.array(
    [2 * _most_copies(F_RED), 3 * _most_copies(F_ORC), _most_copies(F_STP), _most_copies(F_DEM)]
)
DUEL_HIGH = max(_copies(F_OTH), _copies(F_GIV)) + 2 * _copies(F_RED)
DUEL_PER_ACTION = 2  # a Red
LOST_HIGH = _copies(F_STP)


# --- small helpers ---------------------------------------------------------------------------
@njit(cache=True)
def half_up(h):
    return (h + 1) // 2


@njit(cache=True)
def after(row, seat, k):
    """The seat k places after `seat` in the order of play (game numbers)."""
    n = row[layout.NUM_PLAYERS]
    target = (row[NUMBERS + seat] + k) % n
    for s in range(n):
        if row[NUMBERS + s] == target:
            return s
    return -1


@njit(cache=True)
def _move(row, p, kind, d):
    """d cards of a kind into p's hand (d > 0: drawn unseen, LATE after a refill) or out of
    it (d < 0: FIXED copies first, then LATE ones)."""
    i = p * NUM_KINDS + kind
    row[HANDS + i] += d
    row[HAND_N + p] += d
    if d > 0:
        if row[RESHUFFLED]:
            row[LATE + i] += d
        return
    out = min(-d, row[FIXED + i])
    row[FIXED + i] -= out
    row[LATE + i] -= min(-d - out, row[LATE + i])


@njit(cache=True)
def _give(row, p, q, kind, count):
    """Cards from p's hand to q's, where p knows them."""
    _move(row, p, kind, -count)
    row[HANDS + q * NUM_KINDS + kind] += count
    row[HAND_N + q] += count
    row[FIXED + q * NUM_KINDS + kind] += count


@njit(cache=True)
def _draw(row, p, count):
    """Up to `count` cards into p's hand (an empty draw pile first takes the discard pile but
    its top card, shuffled); returns the last kind drawn, or -1."""
    last = -1
    for _ in range(count):
        if row[DRAW_N] == 0 and row[DISCARD_N] > 1:
            m = row[DISCARD_N] - 1
            for i in range(m):
                row[DRAW_PILE + i] = row[DISCARD_PILE + i]
            _discard_only(row, row[DISCARD_PILE + m])
            row[DRAW_N] = m
            _refilled(row)
            shuffle_slice(row, DRAW_PILE, DRAW_PILE + m)
        if row[DRAW_N] == 0:  # every card but the top one is in a hand: a penalty of any
            break  # size (counters have no cap) ends here
        row[DRAW_N] -= 1
        last = row[DRAW_PILE + row[DRAW_N]]
        _move(row, p, last, 1)
    return last


@njit(cache=True)
def _discard_only(row, top):
    """The discard pile is the one card `top` (after the deal, or a refill)."""
    row[DISCARD_PILE] = top
    row[DISCARD_N] = 1
    row[PLAYED : PLAYED + NUM_KINDS] = 0
    row[PLAYED + top] = 1


@njit(cache=True)
def _refilled(row):
    """The draw pile is the old discard pile now. Cards drawn from the previous refill stay
    where they are in a resample (FIXED): they came from a pile of their own."""
    row[RESHUFFLED] = 1
    for i in range(row[layout.NUM_PLAYERS] * NUM_KINDS):
        row[FIXED + i] += row[LATE + i]
        row[LATE + i] = 0


@njit(cache=True)
def _lay(row, p, kind, count):
    """Cards played on top: they set the given colours and classes."""
    _move(row, p, kind, -count)
    for _ in range(count):
        row[DISCARD_PILE + row[DISCARD_N]] = kind
        row[DISCARD_N] += 1
    row[PLAYED + kind] += count
    row[GIVEN_COLOURS] = KIND_COLOURS[kind]
    row[GIVEN_CLASSES] = KIND_CLASSES[kind]


@njit(cache=True)
def _under_top(row, kind):
    """A discarded card goes under the top card and changes nothing."""
    top = DISCARD_PILE + row[DISCARD_N] - 1
    row[top + 1] = row[top]
    row[top] = kind
    row[DISCARD_N] += 1
    row[PLAYED + kind] += 1


@njit(cache=True)
def _matches(row, kind):
    return (KIND_COLOURS[kind] & row[GIVEN_COLOURS]) != 0 or (
        KIND_CLASSES[kind] & row[GIVEN_CLASSES]
    ) != 0


@njit(cache=True)
def _counter(row):
    """The nonzero counter (C_*), or -1."""
    for c in range(4):
        if row[COUNTERS + c] != 0:
            return c
    return -1


@njit(cache=True)
def _reset_counters(row):
    for c in range(4):
        row[COUNTERS + c] = 0


@njit(cache=True)
def _duel_card(row, kind):
    f = KIND_FUNCTION[kind]
    if f == F_RED or f == F_CYR or f == row[DUEL_FN]:
        return True
    top = row[DISCARD_PILE + row[DISCARD_N] - 1]
    return f == F_ALL and KIND_FUNCTION[top] == F_RED


# --- the decision stack and the effect queue ----------------------------------------------------
@njit(cache=True)
def _push(row, what, seat, a, b, c, d):
    base = STACK + row[STACK_N] * D_WIDTH
    row[base] = what
    row[base + 1] = seat
    row[base + 2] = a
    row[base + 3] = b
    row[base + 4] = c
    row[base + 5] = d
    row[STACK_N] += 1


@njit(cache=True)
def _top(row):
    """The decision on top of the stack: (what, seat, a, b, c, d)."""
    base = STACK + (row[STACK_N] - 1) * D_WIDTH
    return row[base], row[base + 1], row[base + 2], row[base + 3], row[base + 4], row[base + 5]


@njit(cache=True)
def _effect(row, code, seat, a, b, front):
    if row[QUEUE_N] == 0:
        row[QUEUE_HEAD] = QUEUE_START
    if front:
        row[QUEUE_HEAD] -= 1
        base = QUEUE + row[QUEUE_HEAD] * E_WIDTH
    else:
        base = QUEUE + (row[QUEUE_HEAD] + row[QUEUE_N]) * E_WIDTH
    row[base] = code
    row[base + 1] = seat
    row[base + 2] = a
    row[base + 3] = b
    row[QUEUE_N] += 1


# --- legal actions -----------------------------------------------------------------------------
@njit(cache=True)
def legal(row, out):
    out[:] = 0
    if row[layout.STATUS] != layout.RUNNING:
        return
    what, seat, a, b, _, taken = _top(row)
    n = row[layout.NUM_PLAYERS]
    hand = HANDS + seat * NUM_KINDS
    if what == D_TURN:
        counter = _counter(row)
        if counter >= 0:
            demand = row[DEMAND_KIND] if counter == C_DEMAND else -1
            for k in range(NUM_KINDS):
                ok = ANSWERS[counter, k] | (k == demand)
                out[KIND + k] = ok & (row[hand + k] > 0)
        else:  # a play matches; 9 kolorow: every colour held (not by Wielka 5), one matching
            gc = row[GIVEN_COLOURS]
            gk = row[GIVEN_CLASSES]
            held = 0
            matching = 0
            for k in range(NUM_KINDS):
                has = row[hand + k] > 0
                m = ((KIND_COLOURS[k] & gc) | (KIND_CLASSES[k] & gk)) != 0
                out[KIND + k] = has & m
                plain = has & (KIND_COLOURS[k] != ANY_COLOUR)
                held |= KIND_COLOURS[k] * plain
                matching |= plain & m
            if held == ANY_COLOUR and matching:
                out[NINE] = 1
        out[DRAW] = 1
    elif what == D_COPIES:
        for m in range(row[hand + a]):
            out[COPIES + m] = 1
    elif what == D_COLOUR:
        out[COLOUR : COLOUR + NUM_COLOURS] = 1
    elif what == D_NAME:
        for k in range(NUM_KINDS):
            out[KIND + k] = 1 if KIND_FUNCTION[k] == 0 else 0
    elif what == D_SEAT:
        for d in range(n):
            s = (seat + d) % n
            ok = True
            if a == S_GIVE or a == S_NINE_TO:
                ok = s != seat
            elif a == S_WAR_B or a == S_WAR2_RECEIVER:
                ok = s != b
            elif a == S_WAR2_HAND:
                for i in range(taken):
                    ok = ok and row[PERM + i] != s
            out[SEAT + d] = 1 if ok else 0
    elif what == D_PICK:
        for k in range(NUM_KINDS):
            out[KIND + k] = 1 if row[hand + k] > 0 else 0
    elif what == D_NINE:
        for k in range(NUM_KINDS):
            col = KIND_COLOURS[k]
            ok = row[hand + k] > 0 and col != ANY_COLOUR and (col & a) == 0
            out[KIND + k] = 1 if ok and (b > 0 or _matches(row, k)) else 0
    elif what == D_REACT:
        for k in range(NUM_KINDS):
            f = KIND_FUNCTION[k]
            ok = f == F_CYR or (f == F_DZI and a != W_PLAY)
            out[KIND + k] = 1 if ok and row[hand + k] > 0 else 0
        out[PASS] = 1
    elif what == D_DUEL:
        for k in range(NUM_KINDS):
            out[KIND + k] = 1 if row[hand + k] > 0 and _duel_card(row, k) else 0
        out[PASS] = 1
    elif what == D_CALL:
        out[CALL] = 1
        out[PASS] = 1
    else:  # D_DRAWN
        out[KIND + a] = 1 if _matches(row, a) else 0
        out[PASS] = 1


@njit(cache=True)
def hint(row, near):
    """The lines the next step of this row reads (see `core.prefetch`): far ahead, the slots
    before the decision stack; next, the stack's top, the effect queue, the hand of the seat
    to act and the played counts (observed), the tops of both piles."""
    if not near:
        prefetch_slots(row, 0, STACK)
        return
    prefetch(row, STACK + (row[STACK_N] - 1) * D_WIDTH)
    prefetch(row, QUEUE_HEAD)
    hand = HANDS + row[layout.PLAYER] * NUM_KINDS
    prefetch_slots(row, hand, hand + NUM_KINDS)
    prefetch_slots(row, PLAYED, PLAYED + NUM_KINDS)
    prefetch(row, DISCARD_PILE + row[DISCARD_N] - 1)
    prefetch(row, DRAW_PILE + row[DRAW_N] - 1)


# --- plays and effects ---------------------------------------------------------------------------
@njit(cache=True)
def _ask(row, window, by, place):
    """Ask the seat `place` places after `by` in the window, or close it when all were asked:
    a win round then makes `by` the winner; a play's effects run."""
    if place < row[layout.NUM_PLAYERS]:
        _push(row, D_REACT, after(row, by, place), window, by, place, 0)
    elif window == W_WIN:
        row[WINNER] = by


@njit(cache=True)
def _play(row, p, kind, count):
    """`count` cards of a kind played on a turn: laid, their effects queued, and a reaction
    window opened when the play has effects (not for a single Dzi or Cyr)."""
    h = row[HAND_N + p]
    _lay(row, p, kind, count)
    f = KIND_FUNCTION[kind]
    if f == F_RED:
        _effect(row, E_ADD, p, C_RED, 2 * count, False)
    elif f == F_ORC:
        _effect(row, E_ADD, p, C_ORC, 3 * count, False)
        _effect(row, E_COLOUR, p, 0, 0, False)
    elif f == F_STP:
        _effect(row, E_ADD, p, C_GREEN, count, False)
    elif f == F_DEM:
        _effect(row, E_ADD, p, C_DEMAND, count, False)
        _effect(row, E_NAME, p, 0, 0, False)
    elif f == F_CCH:
        _effect(row, E_COLOUR, p, 0, 0, False)
    elif f == F_OTH or f == F_GIV:
        _effect(row, E_DUEL, p, f, count, False)
    elif f == F_ALL:
        _effect(row, E_ZERO_RED, p, 0, 0, False)
    elif f == F_CYR:
        _effect(row, E_RESET, p, 0, 0, False)
    for _ in range(count):
        if f == F_MCH:
            _effect(row, E_REVERSE, p, 0, 0, False)
        elif f == F_POL:
            _effect(row, E_DISCARD, p, 0, half_up(h), False)
        elif f == F_KAZ:
            _effect(row, E_GIVE, p, 0, half_up(h), False)
        elif f == F_WAR and count != 2:
            _effect(row, E_WAR, p, 0, 0, False)
    if f == F_WAR and count == 2:
        _effect(row, E_WAR2, p, 0, 0, False)
    elif count == 2:
        _effect(row, E_DISCARD, p, 0, 1, False)
    elif count == 3:
        _effect(row, E_DISCARD, p, 0, half_up(h), False)
    elif count == 4:
        _effect(row, E_GIVE, p, 0, half_up(h), False)
    elif count == 5:
        _effect(row, E_KEEP_ONE, p, 0, 0, False)
    stopper = count == 1 and (f == F_DZI or f == F_CYR)
    if (f != 0 or count >= 2) and not stopper:
        _ask(row, W_PLAY, p, 1)


@njit(cache=True)
def _choose(row, p, kind):
    if row[HANDS + p * NUM_KINDS + kind] > 1:
        _push(row, D_COPIES, p, kind, 0, 0, 0)
    else:
        _play(row, p, kind, 1)


@njit(cache=True)
def _run_effect(row, code, p, a, b):
    if code == E_ADD:
        row[COUNTERS + a] += b
        if a == C_DEMAND:
            row[DEMAND_BY] = p
    elif code == E_COLOUR:
        _push(row, D_COLOUR, p, 0, 0, 0, 0)
    elif code == E_NAME:
        _push(row, D_NAME, p, 0, 0, 0, 0)
    elif code == E_REVERSE:
        n = row[layout.NUM_PLAYERS]
        for s in range(n):
            row[NUMBERS + s] = (1 - row[NUMBERS + s]) % n
    elif code == E_ZERO_RED:
        row[COUNTERS + C_RED] = 0
    elif code == E_RESET:
        _reset_counters(row)
    elif code == E_DUEL:
        row[DUEL_ON] = 1
        row[DUEL_FN] = a
        row[DUEL_POINTS] = b
        row[DUEL_FOLDED] = 0
        _push(row, D_DUEL, p, 0, 0, 0, 0)
    elif code == E_DISCARD or code == E_KEEP_ONE:
        count = min(b, row[HAND_N + p]) if code == E_DISCARD else row[HAND_N + p] - 1
        if count > 0:
            _push(row, D_PICK, p, P_DISCARD, count, -1, 0)
    elif code == E_GIVE:
        count = min(b, row[HAND_N + p])
        if count > 0:
            _push(row, D_SEAT, p, S_GIVE, count, 0, 0)
    elif code == E_WAR:
        _push(row, D_SEAT, p, S_WAR_A, 0, 0, 0)
    elif code == E_WAR2:
        _push(row, D_SEAT, p, S_WAR2_GIVER, 0, 0, 0)
    elif code == E_OTH_DRAW:
        _draw(row, p, b)
    elif code == E_NINE_GIVE:
        if row[HAND_N + p] > 0:
            _push(row, D_SEAT, p, S_NINE_TO, 0, 0, 0)


@njit(cache=True)
def _swap_hands(row, p, q):
    for k in range(NUM_KINDS):
        t = row[HANDS + p * NUM_KINDS + k]
        row[HANDS + p * NUM_KINDS + k] = row[HANDS + q * NUM_KINDS + k]
        row[HANDS + q * NUM_KINDS + k] = t
    t = row[HAND_N + p]
    row[HAND_N + p] = row[HAND_N + q]
    row[HAND_N + q] = t
    _taken_over(row, p)
    _taken_over(row, q)


@njit(cache=True)
def _taken_over(row, p):
    """p holds another seat's old hand, which that seat knows: all of it is FIXED."""
    for k in range(NUM_KINDS):
        row[FIXED + p * NUM_KINDS + k] = row[HANDS + p * NUM_KINDS + k]
        row[LATE + p * NUM_KINDS + k] = 0


@njit(cache=True)
def _two_war(row, p, giver, receiver):
    """The giver gives a random half of its hand to the receiver; then the seat i places
    after p (i = 0..N-1) takes the hand of the seat chosen i-th (PERM)."""
    for _ in range(half_up(row[HAND_N + giver])):
        r = below(row, row[HAND_N + giver])
        for k in range(NUM_KINDS):
            r -= row[HANDS + giver * NUM_KINDS + k]
            if r < 0:
                _give(row, giver, receiver, k, 1)
                break
    n = row[layout.NUM_PLAYERS]
    sizes = row[HAND_N : HAND_N + n].copy()
    old = row[HANDS : HANDS + n * NUM_KINDS].copy()
    fixed = row[FIXED : FIXED + n * NUM_KINDS].copy()
    late = row[LATE : LATE + n * NUM_KINDS].copy()
    for i in range(n):
        s = after(row, p, i)
        q = row[PERM + i]
        row[HAND_N + s] = sizes[q]
        for k in range(NUM_KINDS):
            row[HANDS + s * NUM_KINDS + k] = old[q * NUM_KINDS + k]
            row[FIXED + s * NUM_KINDS + k] = fixed[q * NUM_KINDS + k]
            row[LATE + s * NUM_KINDS + k] = late[q * NUM_KINDS + k]
        if q != s:
            _taken_over(row, s)


@njit(cache=True)
def _seat_chosen(row, p, purpose, b, c, d, s):
    if purpose == S_GIVE:
        _push(row, D_PICK, p, P_GIVE, b, s, 0)
    elif purpose == S_NINE_TO:
        _push(row, D_PICK, p, P_KEEP, 1, s, 0)
    elif purpose == S_WAR_A:
        _push(row, D_SEAT, p, S_WAR_B, s, 0, 0)
    elif purpose == S_WAR_B:
        _swap_hands(row, b, s)
    elif purpose == S_WAR2_GIVER:
        _push(row, D_SEAT, p, S_WAR2_RECEIVER, s, 0, 0)
    elif purpose == S_WAR2_RECEIVER:
        _push(row, D_SEAT, p, S_WAR2_HAND, b, s, 0)
    else:  # S_WAR2_HAND: b giver, c receiver, d hands chosen so far
        row[PERM + d] = s
        if d + 1 < row[layout.NUM_PLAYERS]:
            _push(row, D_SEAT, p, S_WAR2_HAND, b, c, d + 1)
        else:
            _two_war(row, p, b, c)


@njit(cache=True)
def _picked(row, p, purpose, left, to, kind):
    if purpose == P_KEEP:  # 9 kolorow: all but the kept card go to the receiver
        for k in range(NUM_KINDS):
            _give(row, p, to, k, row[HANDS + p * NUM_KINDS + k] - (1 if k == kind else 0))
        return
    if purpose == P_DISCARD:
        _move(row, p, kind, -1)
        _under_top(row, kind)
    else:
        _give(row, p, to, kind, 1)
    if left > 1 and row[HAND_N + p] > 0:
        _push(row, D_PICK, p, purpose, left - 1, to, 0)


@njit(cache=True)
def _duel_move(row, p, action):
    if action == PASS:
        row[DUEL_FOLDED] |= 1 << p
    else:
        kind = action - KIND
        f = KIND_FUNCTION[kind]
        on_red = KIND_FUNCTION[row[DISCARD_PILE + row[DISCARD_N] - 1]] == F_RED
        _lay(row, p, kind, 1)
        if f == F_CYR or (f == F_ALL and on_red):
            row[DUEL_POINTS] = 0
            if f == F_CYR:
                _reset_counters(row)
        else:
            row[DUEL_POINTS] += 2 if f == F_RED else 1
    n = row[layout.NUM_PLAYERS]
    alive = 0
    last = -1
    for s in range(n):
        if not (row[DUEL_FOLDED] >> s) & 1:
            alive += 1
            last = s
    if row[DUEL_POINTS] == 0:
        row[DUEL_ON] = 0
        return
    if alive == 1:
        row[DUEL_ON] = 0
        _duel_won(row, last)
        return
    nxt = after(row, p, 1)
    while (row[DUEL_FOLDED] >> nxt) & 1:
        nxt = after(row, nxt, 1)
    _push(row, D_DUEL, nxt, 0, 0, 0, 0)


@njit(cache=True)
def _duel_won(row, winner):
    points = row[DUEL_POINTS]
    n = row[layout.NUM_PLAYERS]
    if row[DUEL_FN] == F_OTH:  # the others draw, before the play's other effects
        for i in range(n - 1, 0, -1):
            _effect(row, E_OTH_DRAW, after(row, winner, i), 0, points, True)
        return
    have = row[HAND_N + winner]
    count = min(points, have - 1) if have > 1 else have
    if count > 0:
        _push(row, D_SEAT, winner, S_GIVE, count, 0, 0)


@njit(cache=True)
def _reacted(row, p, window, by, place, action):
    if action == PASS:
        _ask(row, window, by, place + 1)
        return
    kind = action - KIND
    _lay(row, p, kind, 1)
    if KIND_FUNCTION[kind] == F_CYR:
        _reset_counters(row)
    if window == W_WIN:
        _draw(row, by, 1)
    else:  # the play's effects (or the 9 kolorow give) are cancelled
        row[QUEUE_N] = 0


@njit(cache=True)
def _penalty(row, p, counter):
    """The player takes the penalty of the counter its turn starts with; it resets."""
    v = row[COUNTERS + counter]
    if counter == C_RED or counter == C_ORC:
        _draw(row, p, v)
    elif counter == C_GREEN:
        row[LOST + p] += v - 1  # this turn is the first lost one
    else:
        _draw(row, p, 1)
    row[COUNTERS + counter] = 0


@njit(cache=True)
def _decide(row, what, p, a, b, c, d, action):
    if what == D_TURN:
        if action == DRAW:
            counter = _counter(row)
            if counter >= 0:
                _penalty(row, p, counter)
                return
            kind = _draw(row, p, 1)
            if row[CFG_PLAY_DRAWN] and kind >= 0:  # asked even when it cannot be played
                _push(row, D_DRAWN, p, kind, 0, 0, 0)
        elif action == NINE:
            _push(row, D_NINE, p, 0, 0, 0, 0)
        else:
            _choose(row, p, action - KIND)
    elif what == D_COPIES:
        _play(row, p, a, action - COPIES + 1)
    elif what == D_COLOUR:
        row[GIVEN_COLOURS] = 1 << (action - COLOUR)
    elif what == D_NAME:
        row[DEMAND_KIND] = action - KIND
    elif what == D_SEAT:
        _seat_chosen(row, p, a, b, c, d, (p + action - SEAT) % row[layout.NUM_PLAYERS])
    elif what == D_PICK:
        _picked(row, p, a, b, c, action - KIND)
    elif what == D_NINE:
        kind = action - KIND
        _lay(row, p, kind, 1)
        if b + 1 < NUM_COLOURS:
            _push(row, D_NINE, p, a | KIND_COLOURS[kind], b + 1, 0, 0)
        else:
            _effect(row, E_NINE_GIVE, p, 0, 0, False)
            _ask(row, W_NINE, p, 1)
    elif what == D_REACT:
        _reacted(row, p, a, b, c, action)
    elif what == D_DUEL:
        _duel_move(row, p, action)
    elif what == D_CALL:
        if action == PASS:
            _draw(row, p, 2)
    elif action != PASS:  # D_DRAWN
        _choose(row, p, action - KIND)


# --- turns -----------------------------------------------------------------------------------
@njit(cache=True)
def _end_turn(row):
    """Win rounds, one at a time, for every empty hand (from the turn's seat on); then the next
    seat's turn (lost turns pass by, each counted as a turn), or truncation at the cap."""
    n = row[layout.NUM_PLAYERS]
    if not row[ENDING]:
        row[ENDING] = 1
        row[TURNS] += 1
    for i in range(n):
        s = after(row, row[TURN_SEAT], i)
        if row[HAND_N + s] == 0 and not (row[ASKED] >> s) & 1:
            row[ASKED] |= 1 << s
            _ask(row, W_WIN, s, 1)
            return
    row[ENDING] = 0
    row[ASKED] = 0
    while True:
        if row[TURNS] >= row[CFG_MAX_TURNS]:
            row[layout.STATUS] = layout.TRUNCATED
            return
        s = after(row, row[TURN_SEAT], 1)
        row[TURN_SEAT] = s
        if row[COUNTERS + C_DEMAND] and row[DEMAND_BY] == s:
            row[COUNTERS + C_DEMAND] = 0
        if row[LOST + s] == 0:
            break
        row[LOST + s] -= 1
        row[TURNS] += 1
    _push(row, D_TURN, row[TURN_SEAT], 0, 0, 0, 0)


@njit(cache=True)
def _check_calls(row):
    """Explicit-call option: every seat left with exactly one card since the last check
    decides at once, the first in order from the turn's seat first."""
    n = row[layout.NUM_PLAYERS]
    if row[CFG_EXPLICIT_CALL]:
        for i in range(n - 1, -1, -1):
            s = after(row, row[TURN_SEAT], i)
            if row[HAND_N + s] == 1 and row[SIZES + s] != 1:
                _push(row, D_CALL, s, 0, 0, 0, 0)
    for s in range(n):
        row[SIZES + s] = row[HAND_N + s]


@njit(cache=True)
def _only_action(row):
    """The one legal action of the decision on top, or -1 when there are more (only with the
    `skip_forced` option)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    legal(row, mask)
    found = -1
    for a in range(NUM_ACTIONS):
        if mask[a]:
            if found >= 0:
                return -1
            found = a
    return found


@njit(cache=True)
def _finish(row, rewards):
    n = row[layout.NUM_PLAYERS]
    row[layout.STATUS] = layout.TERMINATED
    for s in range(n):
        rewards[s] += 1.0 if s == row[WINNER] else -1.0


@njit(cache=True)
def _run(row, rewards):
    """Run effects and turns until a decision is pending or the game is over; then the seat
    to act is the one deciding."""
    while row[layout.STATUS] == layout.RUNNING:
        if row[WINNER] >= 0:
            _finish(row, rewards)
            break
        _check_calls(row)
        if row[STACK_N] > 0:
            a = _only_action(row) if row[CFG_SKIP_FORCED] else -1
            if a < 0:
                row[layout.PLAYER] = row[STACK + (row[STACK_N] - 1) * D_WIDTH + 1]
                return
            _take(row, a)
            continue
        if row[QUEUE_N] > 0:
            base = QUEUE + row[QUEUE_HEAD] * E_WIDTH
            row[QUEUE_HEAD] += 1
            row[QUEUE_N] -= 1
            _run_effect(row, row[base], row[base + 1], row[base + 2], row[base + 3])
            continue
        _end_turn(row)


@njit(cache=True)
def _take(row, action):
    what, p, a, b, c, d = _top(row)
    row[STACK_N] -= 1
    _decide(row, what, p, a, b, c, d, action)


SECRET = NUM_ACTIONS  # public code of a card chosen unseen by the other seats
HISTORY_CODES = NUM_ACTIONS + 1


@njit(cache=True)
def public_action(row, action):
    """The public code of `action` (`core.history`): the action id, but SECRET for a kind
    the other seats do not see chosen: one picked to give or to keep, or laid in 9 kolorow
    (it goes to another hand: the others see that a card went, the `nine` slice its
    colour), and one to play of which the hand holds more copies (its copies are asked next,
    and the play that follows shows it)."""
    what, p, purpose, _, _, _ = _top(row)
    if action >= COPIES:
        return action
    if what == D_NINE or what == D_PICK and purpose != P_DISCARD:
        return SECRET
    if (what == D_TURN or what == D_DRAWN) and row[HANDS + p * NUM_KINDS + action] > 1:
        return SECRET
    return action


@njit(cache=True)
def step(row, action, rewards):
    history.record(row, public_action(row, action))
    row[layout.TURN] += 1
    _take(row, action)
    _run(row, rewards)


@njit(cache=True)
def reset(row):
    """Deal: 5 cards each, the top card of the draw pile turned up (its function does not
    apply), game numbers a random permutation, number 0 to act."""
    history.clear(row)
    n = row[layout.NUM_PLAYERS]
    pos = 0
    for k in range(NUM_KINDS):
        for _ in range(KIND_COPIES[k]):
            row[DRAW_PILE + pos] = k
            pos += 1
    shuffle_slice(row, DRAW_PILE, DRAW_PILE + NUM_CARDS)
    row[DRAW_N] = NUM_CARDS
    row[DISCARD_N] = 0
    row[HAND_N : HAND_N + MAX_PLAYERS] = 0
    row[HANDS:DRAW_PILE] = 0
    row[LOST : LOST + MAX_PLAYERS] = 0
    row[RESHUFFLED] = 0
    row[FIXED:STATE_SIZE] = 0
    for p in range(n):
        _draw(row, p, HAND_SIZE)
    row[DRAW_N] -= 1
    top = row[DRAW_PILE + row[DRAW_N]]
    _discard_only(row, top)
    row[GIVEN_COLOURS] = KIND_COLOURS[top]
    row[GIVEN_CLASSES] = KIND_CLASSES[top]
    for p in range(MAX_PLAYERS):
        row[NUMBERS + p] = p if p < n else 0
        row[SIZES + p] = row[HAND_N + p]
    shuffle_slice(row, NUMBERS, NUMBERS + n)
    _reset_counters(row)
    row[DEMAND_KIND] = -1
    row[DEMAND_BY] = -1
    row[TURNS] = 0
    row[WINNER] = -1
    row[ENDING] = 0
    row[ASKED] = 0
    row[DUEL_ON] = 0
    row[DUEL_FN] = 0
    row[DUEL_POINTS] = 0
    row[DUEL_FOLDED] = 0
    row[STACK_N] = 0
    row[QUEUE_N] = 0
    row[QUEUE_HEAD] = QUEUE_START
    row[layout.STATUS] = layout.RUNNING
    row[layout.TURN] = 0
    for p in range(n):
        if row[NUMBERS + p] == 0:
            row[TURN_SEAT] = p
    _push(row, D_TURN, row[TURN_SEAT], 0, 0, 0, 0)
    _run(row, np.zeros(MAX_PLAYERS, dtype=np.float32))


@njit(cache=True)
def outcome(row, scores, wins):
    """Every seat's score is minus its hand size; the winner (a seat whose emptied hand
    survived its win round) takes the win. A truncated game's win goes to the leader by
    time, the fewest cards (ties share it), as evaluations count it; its rewards stay 0."""
    n = row[layout.NUM_PLAYERS]
    for s in range(n):
        scores[s] = -row[HAND_N + s]
        wins[s] = 1.0 if s == row[WINNER] else 0.0
    if row[WINNER] < 0:
        share_win(scores[:n], False, wins)


# --- conformance hooks ------------------------------------------------------------------------
INVARIANT_ERRORS = (
    "",
    "a counter, seat, pile size, stack or queue is out of range",
    "the hands and the two piles are not the 539 cards",
    "a hand size is not the sum of its counts",
    "more than one of the red, orc, green and demand counters is nonzero",
    "the game numbers are not a permutation of the seats",
    "the given colours or classes are empty",
    "a hand's fixed and late copies are negative or more than it holds",
    "the count of a kind in the discard pile is off",
)


@njit(cache=True)
def check_invariants(row):
    """0 when the row obeys the conservation laws, else the index of the broken one in
    INVARIANT_ERRORS."""
    n = row[layout.NUM_PLAYERS]
    status = row[layout.STATUS]
    if not (
        2 <= n <= MAX_PLAYERS
        and 0 <= row[layout.PLAYER] < n
        and 0 <= row[TURN_SEAT] < n
        and -1 <= row[WINNER] < n
        and (status == layout.RUNNING) == (row[STACK_N] > 0)
        and 0 <= row[STACK_N] <= STACK_DEPTH
        and 0 <= row[QUEUE_N]
        and 0 <= row[QUEUE_HEAD]
        and row[QUEUE_HEAD] + row[QUEUE_N] <= QUEUE_CAP
        and 0 <= row[DRAW_N] <= NUM_CARDS
        and 1 <= row[DISCARD_N] <= NUM_CARDS
    ):
        return 1
    for c in range(4):
        if row[COUNTERS + c] < 0:
            return 1
    for s in range(MAX_PLAYERS):
        if row[LOST + s] < 0 or (s >= n and (row[LOST + s] or row[HAND_N + s])):
            return 1
    for i in range(MAX_PLAYERS * NUM_KINDS):
        fixed, late = row[FIXED + i], row[LATE + i]
        if fixed < 0 or late < 0 or fixed + late > row[HANDS + i] or (late and not row[RESHUFFLED]):
            return 7
    counts = np.zeros(NUM_KINDS, dtype=np.int64)
    for s in range(n):
        total = 0
        for k in range(NUM_KINDS):
            v = row[HANDS + s * NUM_KINDS + k]
            if v < 0:
                return 2
            counts[k] += v
            total += v
        if total != row[HAND_N + s]:
            return 3
    for i in range(row[DRAW_N]):
        counts[row[DRAW_PILE + i]] += 1
    played = np.zeros(NUM_KINDS, dtype=np.int64)
    for i in range(row[DISCARD_N]):
        counts[row[DISCARD_PILE + i]] += 1
        played[row[DISCARD_PILE + i]] += 1
    for k in range(NUM_KINDS):
        if counts[k] != KIND_COPIES[k]:
            return 2
        if played[k] != row[PLAYED + k]:
            return 8
    live = 0
    for c in range(4):
        live += row[COUNTERS + c] != 0
    if live > 1:
        return 4
    seen = 0
    for s in range(n):
        m = row[NUMBERS + s]
        if m < 0 or m >= n or (seen >> m) & 1:
            return 5
        seen |= 1 << m
    if row[GIVEN_COLOURS] == 0 or row[GIVEN_CLASSES] == 0:
        return 6
    return 0


@njit(cache=True)
def resample_hidden(row, seat):
    """Redraw what `seat` cannot know, from the row's PRNG, keeping every hand's size and the
    row consistent with all that `seat` has seen. Cards of the other hands drawn unseen
    before the latest refill of the draw pile are exchanged with each other (and, before any
    refill, with the draw pile); cards drawn since that refill are exchanged with each other
    and with the draw pile (whose make-up, the old discard pile, was public); FIXED cards stay.
    Also left as they are: the hand of a seat choosing how many copies to play or laying
    9 kolorow (its pending choice needs those cards) and, with `skip_forced`, every hand (a
    decision taken unasked tells everyone what a hand lacks). The draw pile's order is
    always redrawn."""
    n = row[layout.NUM_PLAYERS]
    busy = -1
    if row[layout.STATUS] == layout.RUNNING:
        what, p, _, _, _, _ = _top(row)
        if what == D_COPIES or what == D_NINE:
            busy = p
    others = np.zeros(MAX_PLAYERS, dtype=np.bool_)
    for q in range(n):
        others[q] = q != seat and q != busy and not row[CFG_SKIP_FORCED]
    refilled = row[RESHUFFLED] == 1
    _exchange(row, others, LATE, refilled)  # cards drawn since the refill
    _exchange(row, others, -1, not refilled)  # cards drawn unseen before it


@njit(cache=True)
def _exchange(row, others, part, with_pile):
    """Deal again, at random, the cards of one part of the hands in `others` (`LATE`, or -1:
    those neither FIXED nor LATE), with the draw pile's cards (in a new order) when
    `with_pile`; each hand keeps its count in that part."""
    pool = np.empty(NUM_CARDS, dtype=np.int64)
    sizes = np.zeros(MAX_PLAYERS, dtype=np.int64)
    m = 0
    if with_pile:
        for i in range(row[DRAW_N]):
            pool[m] = row[DRAW_PILE + i]
            m += 1
    for q in range(row[layout.NUM_PLAYERS]):
        if not others[q]:
            continue
        for k in range(NUM_KINDS):
            i = q * NUM_KINDS + k
            c = row[part + i] if part >= 0 else row[HANDS + i] - row[FIXED + i] - row[LATE + i]
            for _ in range(c):
                pool[m] = k
                m += 1
            row[HANDS + i] -= c
            if part >= 0:
                row[part + i] -= c
            sizes[q] += c
    shuffle_sorted(row, pool[:m])
    m = 0
    for q in range(row[layout.NUM_PLAYERS]):
        for _ in range(sizes[q]):
            i = q * NUM_KINDS + pool[m]
            row[HANDS + i] += 1
            if part >= 0:
                row[part + i] += 1
            m += 1
    if with_pile:
        for i in range(row[DRAW_N]):
            row[DRAW_PILE + i] = pool[m + i]


# --- observation ------------------------------------------------------------------------------
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
