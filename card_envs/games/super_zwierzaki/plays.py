"""Super Zwierzaki's plays and effects: what the decision taken does, as the rules say (a
play laid and its effects queued, a reaction window asked round, seats and cards chosen, a
duel fought, a counter's penalty taken), pushing the decisions it leads to.
"""

from card_envs.core import layout
from card_envs.core.jit import boundary, njit
from card_envs.core.rng import below
from card_envs.games.super_zwierzaki.cards import (
    _counter,
    _draw,
    _give,
    _lay,
    _move,
    _reset_counters,
    _under_top,
    after,
    half_up,
)
from card_envs.games.super_zwierzaki.deck import KIND_COLOURS, KIND_FUNCTION, NUM_KINDS
from card_envs.games.super_zwierzaki.slots import (
    C_DEMAND,
    C_GREEN,
    C_ORC,
    C_RED,
    CFG_PLAY_DRAWN,
    COLOUR,
    COPIES,
    COUNTERS,
    D_CALL,
    D_COLOUR,
    D_COPIES,
    D_DRAWN,
    D_DUEL,
    D_NAME,
    D_NINE,
    D_PICK,
    D_REACT,
    D_SEAT,
    D_TURN,
    DEMAND_BY,
    DEMAND_KIND,
    DISCARD_N,
    DISCARD_PILE,
    DRAW,
    DUEL_FN,
    DUEL_FOLDED,
    DUEL_ON,
    DUEL_POINTS,
    E_ADD,
    E_COLOUR,
    E_DISCARD,
    E_DUEL,
    E_GIVE,
    E_KEEP_ONE,
    E_NAME,
    E_NINE_GIVE,
    E_OTH_DRAW,
    E_RESET,
    E_REVERSE,
    E_WAR,
    E_WAR2,
    E_ZERO_RED,
    F_ALL,
    F_CCH,
    F_CYR,
    F_DEM,
    F_DZI,
    F_GIV,
    F_KAZ,
    F_MCH,
    F_ORC,
    F_OTH,
    F_POL,
    F_RED,
    F_STP,
    F_WAR,
    FIXED,
    GIVEN_COLOURS,
    HAND_N,
    HANDS,
    KIND,
    LATE,
    LOST,
    NINE,
    NUM_COLOURS,
    NUMBERS,
    P_DISCARD,
    P_GIVE,
    P_KEEP,
    PASS,
    PERM,
    QUEUE_N,
    S_GIVE,
    S_NINE_TO,
    S_WAR2_GIVER,
    S_WAR2_HAND,
    S_WAR2_RECEIVER,
    S_WAR_A,
    S_WAR_B,
    SEAT,
    W_NINE,
    W_PLAY,
    W_WIN,
    WINNER,
)
from card_envs.games.super_zwierzaki.stack import _effect, _push


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


@njit(cache=True, inline="always")
def _choose(row, p, kind):
    if row[HANDS + p * NUM_KINDS + kind] > 1:
        _push(row, D_COPIES, p, kind, 0, 0, 0)
    else:
        _play(row, p, kind, 1)


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def _taken_over(row, p):
    """p holds another seat's old hand, which that seat knows: all of it is FIXED."""
    for k in range(NUM_KINDS):
        row[FIXED + p * NUM_KINDS + k] = row[HANDS + p * NUM_KINDS + k]
        row[LATE + p * NUM_KINDS + k] = 0


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


# a boundary of its own (`core.jit.boundary`): on a cold cache it builds beside the turn loop
@boundary("void(int64[::1], int64, int64, int64, int64, int64, int64, int64)")
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
