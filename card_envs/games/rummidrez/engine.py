"""Rummidrez engine: numba kernels over one int64 state row.

Cards: figure card `f * 9 + n - 1` (0..53, two copies each) and the neutral 54 (four copies),
112 in all. Every place a card can be is a vector of 55 copy counts (hands, the table, the
cards placed this turn), except the two piles, which keep their order (top = last slot).

Row layout after the shared header (`core.layout`): config slots, the turn's phase and
counters, per seat the opened flag, match points, hand counts and the counts the others know
it holds (cards it took from the discard pile and has not played), the table, this turn's
placements, this turn's takings (for the `rediscard` option), and the two piles.

A turn is a sequence of actions by one seat: DRAW or TAKE k (draw phase), then PLACE c /
UNDO / END_MELD (meld phase; END_MELD is legal only when the placed cards make a valid
table, or a valid opening meld of at least 7 cards of their own before the seat has opened),
then DISCARD c. `TABLE_OK` caches whether END_MELD is legal, so the solver runs once per
placement, not once per mask. With `CFG_HINTS` the observation of the seat to act ends with
the heuristic's suggestion for its phase (`hint`: the cards it would take, place or
discard), as Surfosaurus' hints give a learning agent what the heuristic computes; the
heuristic's draw and discard rules live here (`take_choice`, `discard_choice`) so that the
hint and the heuristic are one computation. Solo (`CFG_SOLO`, one seat): no draw phase and
no discard; each END_MELD is followed by one automatic draw.

The solver is a boundary (`core.jit.boundary`): the kernels here call its one compiled copy,
so the helpers that reach it are plain kernels of their own, each compiled once (inlined in
numba's IR, as they once were to save copies of the solver, they were compiled again at every
call site: `_end_hand` three times in `step`). `hint` is one too, compiled only where the
`hints` option calls it. Nine helpers with a single call site in `step`, the heuristic and
the solver are inlined there (`inline="always"`), which saves each its fixed cost as a
kernel of its own (see Super Zwierzaki's engine).
"""

import numpy as np

from card_envs.core import history, layout
from card_envs.core.jit import boundary, njit
from card_envs.core.rewards import share_win
from card_envs.core.rng import below, shuffle_slice, shuffle_sorted
from card_envs.core.segments import Segment, slices
from card_envs.games.rummidrez.solver import NUM_FIGURES, NUM_NUMBERS, best_addition, table_valid

MAX_PLAYERS = 4
NUM_IDS = 55  # 54 figure cards and the neutral
NEUTRAL = 54
COPIES = 2
NEUTRALS = 4
NUM_CARDS = COPIES * NEUTRAL + NEUTRALS  # 112
HAND_SIZE = 14
OPEN_MIN = 7
MAX_TAKE = NUM_CARDS - 2  # the discard pile never holds more: each hand keeps a card

# actions
DRAW = 0
TAKE = 1  # TAKE + k - 1: take the top k cards of the discard pile
PLACE = TAKE + MAX_TAKE  # PLACE + c: put card c from the hand on the table
UNDO = PLACE + NUM_IDS  # take back every card placed this turn
END_MELD = UNDO + 1
DISCARD = END_MELD + 1  # DISCARD + c: discard card c, ending the turn
NUM_ACTIONS = DISCARD + NUM_IDS  # 223

PHASE_DRAW, PHASE_MELD, PHASE_DISCARD = 0, 1, 2
REWARD_WIN, REWARD_SCORE = 0, 1
HINT_MAX_HAND = 20  # larger hands get no hint (see `meld_hint`)
HINT_MAX_TAKE = 4  # deepest discard-pile take the heuristic considers (see `take_choice`)
OPEN_BONUS = 100  # what making the opening possible is worth to `take_choice`
SOLO_FAILED = NUM_CARDS  # solo score when the deck runs out: 112 + the cards in hand

CFG_REWARD = layout.HEADER
CFG_MATCH = layout.HEADER + 1  # 1: hands until a seat reaches the target
CFG_ENDS = layout.HEADER + 2  # 1: neutrals may also stand at a group's ends
CFG_REDISCARD = layout.HEADER + 3  # 1: a card taken this turn may be discarded again
CFG_MAX_TURNS = layout.HEADER + 4  # full turns per hand before truncation
CFG_MAX_PLACE = layout.HEADER + 5  # placements per turn (undone ones count)
CFG_SOLO = layout.HEADER + 6
PHASE = layout.HEADER + 7
FIRST = layout.HEADER + 8  # seat that started this hand
HAND_TURNS = layout.HEADER + 9  # full turns played in this hand
PLACE_COUNT = layout.HEADER + 10  # placements this turn
TABLE_OK = layout.HEADER + 11  # 1 when END_MELD is legal
DRAW_N = layout.HEADER + 12  # cards in the draw pile
DISCARD_N = layout.HEADER + 13  # cards in the discard pile
WINNER = layout.HEADER + 14  # seat that emptied its hand in the last finished hand, else -1
CFG_HINTS = layout.HEADER + 15  # 1: the observation ends with the solver's meld hint
REFILLED = layout.HEADER + 16  # 1 once the draw pile of this hand has been refilled
FITS = layout.HEADER + 17  # solo with hints: 1 when the whole hand completes the table
OPENED = layout.HEADER + 18  # MAX_PLAYERS flags
POINTS = OPENED + MAX_PLAYERS  # MAX_PLAYERS: match points (without a match: this hand's)
HAND = POINTS + MAX_PLAYERS  # MAX_PLAYERS x 55 counts
KNOWN = HAND + MAX_PLAYERS * NUM_IDS  # MAX_PLAYERS x 55: taken from the discard, not played
TABLE = KNOWN + MAX_PLAYERS * NUM_IDS  # 55: the table as it was at the start of the turn
PLACED = TABLE + NUM_IDS  # 55: placed this turn
TAKEN = PLACED + NUM_IDS  # 55: taken from the discard pile this turn, still in hand
DRAW_PILE = TAKEN + NUM_IDS  # NUM_CARDS slots, top = DRAW_N - 1
DISCARD_PILE = DRAW_PILE + NUM_CARDS  # NUM_CARDS slots, top = DISCARD_N - 1
STATE_SIZE = DISCARD_PILE + NUM_CARDS

# observation of `seat` ("others" are the other seats from seat + 1 on, in seat order)
OBS_HAND = 0  # 55 own hand counts (placed cards not included)
OBS_TABLE = OBS_HAND + NUM_IDS  # 55 table counts (before this turn's placements)
OBS_PLACED = OBS_TABLE + NUM_IDS  # 55 counts placed this turn by the seat to act
OBS_DEPTH = OBS_PLACED + NUM_IDS  # 55: position from the top (1 = top) of a card's first copy
OBS_DEPTH2 = OBS_DEPTH + NUM_IDS  # 55: ... and of its second copy in the discard pile; 0: none
OBS_KNOWN = OBS_DEPTH2 + NUM_IDS  # then: 55 per other seat, cards the seat is known to hold


OBS_SEGMENTS = (  # per-seat segments run from the observing seat on, in seat order
    Segment("hand", NUM_IDS),
    Segment("table", NUM_IDS),
    Segment("placed", NUM_IDS),
    Segment("discard_depth", NUM_IDS),
    Segment("discard_depth2", NUM_IDS),
    Segment("known", NUM_IDS, "others"),
    Segment("hand_sizes", 1, "others"),
    Segment("opened", 1, "all"),
    Segment("points", 1, "all"),
    Segment("to_act", 1, "all"),
    Segment("phase", 3),
    Segment("piles", 2),
    Segment("hint", NUM_IDS, option="hints"),
)


def obs_slices(num_players: int, hints: bool = False) -> dict[str, tuple[int, int]]:
    """Name -> (start, size) of every slice of the observation (`OBS_SEGMENTS`)."""
    return slices(OBS_SEGMENTS, {"num_players": num_players, "hints": hints})


def obs_size(num_players: int, hints: bool = False) -> int:
    return sum(size for _, size in obs_slices(num_players, hints).values())


@njit(cache=True)
def target_points(num_players):
    """Match target: 14, 28, 42 for 2, 3, 4 players."""
    return 14 * (num_players - 1)


# --- the table --------------------------------------------------------------------------------
@njit(cache=True)
def counts_valid(row, base, extra, more=-1):
    """Whether the counts at row[base:] plus those at row[extra:] and row[more:] (< 0: none)
    split into valid groups under the row's neutral option."""
    counts = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    neutrals = 0
    for at in (base, extra, more):
        if at < 0:
            continue
        for c in range(NEUTRAL):
            counts[c // NUM_NUMBERS, c % NUM_NUMBERS] += row[at + c]
        neutrals += row[at + NEUTRAL]
    return table_valid(counts, neutrals, row[CFG_ENDS] == 1)


@njit(cache=True)
def _count(row, base):
    total = 0
    for c in range(NUM_IDS):
        total += row[base + c]
    return total


@njit(cache=True)
def meld_hint(row, p, out):
    """The cards of p's hand (55 counts into `out`) that the solver would add: the largest
    set that makes the table with this turn's placements valid, or before opening the
    largest that forms groups with the placed cards alone, if they reach OPEN_MIN. Zero when
    nothing can be added, and for hands over HINT_MAX_HAND cards: the solver's time grows
    steeply with the optional cards (seconds for some 25-card hands), and the hint is
    computed for every seat, including random players whose hands grow large.

    Solo: the whole hand when it completes the table (`FITS`), else zero, for any hand size.
    That is all the best play needs: the score is the first deal prefix that forms a valid
    table, and placing cards earlier changes nothing (the table is rearranged freely)."""
    out[:] = 0.0
    if row[CFG_SOLO]:
        if row[FITS]:
            for c in range(NUM_IDS):
                out[c] = row[HAND + p * NUM_IDS + c]
        return
    if _count(row, HAND + p * NUM_IDS) > HINT_MAX_HAND:
        return
    req = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    hand = np.zeros_like(req)
    chosen = np.zeros_like(req)
    opened = row[OPENED + p] == 1
    for c in range(NEUTRAL):
        f, n = c // NUM_NUMBERS, c % NUM_NUMBERS
        req[f, n] = row[PLACED + c] + (row[TABLE + c] if opened else 0)
        hand[f, n] = row[HAND + p * NUM_IDS + c]
    req_n = row[PLACED + NEUTRAL] + (row[TABLE + NEUTRAL] if opened else 0)
    hand_n = row[HAND + p * NUM_IDS + NEUTRAL]
    r = best_addition(req, req_n, hand, hand_n, row[CFG_ENDS] == 1, chosen)
    if r <= 0 or (not opened and _count(row, PLACED) + r < OPEN_MIN):
        return
    for c in range(NEUTRAL):
        out[c] = chosen[c // NUM_NUMBERS, c % NUM_NUMBERS]
    out[NEUTRAL] = r - chosen.sum()


@njit(cache=True)
def take_choice(top, top_n, opened, table, table_n, hand, hand_n, ends, out):
    """The heuristic's draw: how many cards to take from the discard pile, 0 to draw. `top`
    holds the pile's top `top_n` (<= HINT_MAX_TAKE) cards, top first; `table` is empty
    before opening. The top k with the best (cards it melds more - k) >= 0 when it melds
    more, and first any that makes the opening possible. Adds the top cards to `hand`
    (a scratch copy) in turn; `out` is scratch for the solver."""
    base = best_addition(table, table_n, hand, hand_n, ends, out)
    best, choice = -1, 0
    for depth in range(1, top_n + 1):
        c = top[depth - 1]
        if c == NEUTRAL:
            hand_n += 1
        else:
            hand[c // NUM_NUMBERS, c % NUM_NUMBERS] += 1
        v = best_addition(table, table_n, hand, hand_n, ends, out)
        score = v - base - depth
        if not opened and base < OPEN_MIN <= v:
            score += OPEN_BONUS
        if v > base and score > best:
            best, choice = score, depth
    return choice


@njit(cache=True)
def discard_choice(allowed, table, hand, hand_n, ends, out):
    """The heuristic's discard: of the cards `allowed` (55 flags), the one with the lowest
    keep score. Neutrals and the cards of the hand's own best groups score high; else the
    neighbours along the card's two lines in hand and on the table (a direct one counts
    twice), a spare copy first."""
    best_addition(np.zeros_like(hand), np.int64(0), hand, hand_n, ends, out)  # own groups
    best, choice = 1 << 30, -1
    for c in range(NUM_IDS):
        if not allowed[c]:
            continue
        score = 1 << 20
        if c < NEUTRAL:
            f, n = c // NUM_NUMBERS, c % NUM_NUMBERS
            score = 1000 * (out[f, n] == hand[f, n]) - (hand[f, n] > 1)
            for d in (-2, -1, 1, 2):
                w = 3 - abs(d)
                if 0 <= n + d < NUM_NUMBERS and hand[f, n + d] + table[f, n + d] > 0:
                    score += w
                if 0 <= f + d < NUM_FIGURES and hand[f + d, n] + table[f + d, n] > 0:
                    score += w
        if score < best:
            best, choice = score, c
    return choice


@njit(cache=True)
def _discard_allowed(row, p, out):
    """55 flags: the cards p may discard (the `rediscard` rule; when only cards taken this
    turn are left, any of them)."""
    hand = HAND + p * NUM_IDS
    some = False
    for c in range(NUM_IDS):
        ok = row[hand + c] > 0 and (row[CFG_REDISCARD] or row[hand + c] > row[TAKEN + c])
        out[c] = 1 if ok else 0
        some = some or ok
    if not some:
        for c in range(NUM_IDS):
            out[c] = 1 if row[hand + c] > 0 else 0


@njit(cache=True)
def _counts(row, base, counts):
    """The 54 figure counts at row[base:] into `counts` (6, 9); returns the neutrals."""
    for c in range(NEUTRAL):
        counts[c // NUM_NUMBERS, c % NUM_NUMBERS] = row[base + c]
    return row[base + NEUTRAL]


# only the hints option calls it: on a cold cache, compiled at its first call
@boundary("void(int64[::1], int64, float32[::1])", aside=False)
def hint(row, p, out):
    """The heuristic's move for p, the seat to act, as 55 counts into `out`: draw phase, the
    cards it would take from the discard pile (0: it draws); meld phase, the cards it would
    still place (`meld_hint`); discard phase, the card it would discard (a 1). Zero for
    hands over HINT_MAX_HAND cards (but in solo, see `meld_hint`)."""
    if row[PHASE] == PHASE_MELD:
        meld_hint(row, p, out)
        return
    out[:] = 0.0
    if _count(row, HAND + p * NUM_IDS) > HINT_MAX_HAND:
        return
    hand = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    table = np.zeros_like(hand)
    scratch = np.zeros_like(hand)
    hand_n = _counts(row, HAND + p * NUM_IDS, hand)
    opened = row[OPENED + p] == 1
    table_n = 0
    if opened or row[PHASE] == PHASE_DISCARD:  # the draw before opening counts the hand only
        table_n = _counts(row, TABLE, table)
    ends = row[CFG_ENDS] == 1
    if row[PHASE] == PHASE_DRAW:
        top_n = min(row[DISCARD_N], HINT_MAX_TAKE)
        top = np.zeros(HINT_MAX_TAKE, dtype=np.int64)
        for d in range(top_n):
            top[d] = row[DISCARD_PILE + row[DISCARD_N] - 1 - d]
        depth = take_choice(top, top_n, opened, table, table_n, hand, hand_n, ends, scratch)
        for d in range(depth):
            out[top[d]] += 1.0
    else:
        allowed = np.zeros(NUM_IDS, dtype=np.int64)
        _discard_allowed(row, p, allowed)
        out[discard_choice(allowed, table, hand, hand_n, ends, scratch)] = 1.0


@njit(cache=True)
def solo_fits(row):
    """Solo with hints: the hand, the placed cards and (once opened) the table form a valid
    table. Placements and undos only move cards between these, so it is computed once per
    melding phase, after its draw, and kept in `FITS`."""
    if not (row[CFG_SOLO] and row[CFG_HINTS]):
        return 0
    return 1 if counts_valid(row, PLACED, TABLE if row[OPENED] else -1, HAND) else 0


@njit(cache=True)
def meld_ok(row, p):
    """END_MELD is legal: nothing placed, or after opening the table with the placed cards
    is valid, or before it the placed cards alone form groups of at least OPEN_MIN cards."""
    placed = _count(row, PLACED)
    if placed == 0:
        return True
    if row[OPENED + p]:
        return counts_valid(row, TABLE, PLACED)
    return placed >= OPEN_MIN and counts_valid(row, PLACED, -1)


# --- dealing and turns --------------------------------------------------------------------------
@njit(cache=True)
def _deal(row):
    """A new hand: shuffle the 112 cards, deal 14 to each seat, the first seat to act."""
    n = row[layout.NUM_PLAYERS]
    for c in range(NUM_CARDS):
        row[DRAW_PILE + c] = c // COPIES if c < COPIES * NEUTRAL else NEUTRAL
    shuffle_slice(row, DRAW_PILE, DRAW_PILE + NUM_CARDS)
    row[DRAW_N] = NUM_CARDS
    row[DISCARD_N] = 0
    row[HAND:DRAW_PILE] = 0
    row[OPENED : OPENED + MAX_PLAYERS] = 0
    if not row[CFG_MATCH]:
        row[POINTS : POINTS + MAX_PLAYERS] = 0
    for p in range(n):
        for _ in range(HAND_SIZE):
            _draw(row, p)
    row[HAND_TURNS] = 0
    row[REFILLED] = 0
    _begin_turn(row, row[FIRST])
    row[FITS] = solo_fits(row)


@njit(cache=True)
def _draw(row, p):
    row[DRAW_N] -= 1
    row[HAND + p * NUM_IDS + row[DRAW_PILE + row[DRAW_N]]] += 1


@njit(cache=True)
def _begin_turn(row, p):
    row[layout.PLAYER] = p
    row[PHASE] = PHASE_MELD if row[CFG_SOLO] else PHASE_DRAW
    row[PLACE_COUNT] = 0
    row[TABLE_OK] = 1
    row[TAKEN : TAKEN + NUM_IDS] = 0


@njit(cache=True, inline="always")
def _refill(row):
    """An empty draw pile takes the discard pile but its top card, shuffled. False if that
    leaves it empty."""
    if row[DRAW_N] > 0:
        return True
    m = row[DISCARD_N] - 1
    if m <= 0:
        return False
    for i in range(m):
        row[DRAW_PILE + i] = row[DISCARD_PILE + i]
    row[DISCARD_PILE] = row[DISCARD_PILE + m]
    row[DISCARD_N] = 1
    row[DRAW_N] = m
    row[REFILLED] = 1
    shuffle_slice(row, DRAW_PILE, DRAW_PILE + m)
    return True


@njit(cache=True)
def reset(row):
    history.clear(row)
    n = row[layout.NUM_PLAYERS]
    row[POINTS : POINTS + MAX_PLAYERS] = 0
    row[FIRST] = below(row, n)
    row[layout.STATUS] = layout.RUNNING
    row[layout.TURN] = 0
    row[WINNER] = -1
    _deal(row)


@njit(cache=True)
def solo_score(row):
    """Cards on the table when the hand is empty, else 112 + the cards still in hand."""
    left = _count(row, HAND) + _count(row, PLACED)
    return _count(row, TABLE) if left == 0 else SOLO_FAILED + left


@njit(cache=True)
def outcome(row, scores, wins):
    """Points of every seat (match points, or this hand's); most points wins, ties share.
    Solo: the score to lower (see `solo_score`)."""
    if row[CFG_SOLO]:
        scores[0] = solo_score(row)
        wins[0] = 1.0
        return
    n = row[layout.NUM_PLAYERS]
    for p in range(n):
        scores[p] = row[POINTS + p]
    share_win(scores[:n], False, wins)


@njit(cache=True)
def _finish(row, status, rewards):
    row[layout.STATUS] = status
    if row[CFG_SOLO]:
        rewards[0] -= solo_score(row)
        return
    if status == layout.TRUNCATED or row[CFG_REWARD] != REWARD_WIN:
        return  # truncation has no winner; score rewards came at each hand's end
    n = row[layout.NUM_PLAYERS]
    scores = np.zeros(n, dtype=np.float64)
    wins = np.zeros(n, dtype=np.float64)
    outcome(row, scores, wins)
    for p in range(n):
        rewards[p] += wins[p]


@njit(cache=True)
def _end_hand(row, winner, rewards):
    """`winner` (or -1: nobody) ends the hand and scores the cards left in the other hands;
    then the episode ends, or in a match the next hand starts one seat further on."""
    n = row[layout.NUM_PLAYERS]
    row[WINNER] = winner
    if winner >= 0 and not row[CFG_SOLO]:
        gained = 0
        for q in range(n):
            if q != winner:
                gained += _count(row, HAND + q * NUM_IDS)
        row[POINTS + winner] += gained
        if row[CFG_REWARD] == REWARD_SCORE:
            rewards[winner] += gained
    if row[CFG_MATCH] and not row[CFG_SOLO]:
        reached = False
        for q in range(n):
            reached = reached or row[POINTS + q] >= target_points(n)
        if not reached:
            row[FIRST] = (row[FIRST] + 1) % n
            _deal(row)
            return
    _finish(row, layout.TERMINATED, rewards)


@njit(cache=True, inline="always")
def _commit(row, p):
    """The placed cards join the table; what the others knew of them is forgotten."""
    if _count(row, PLACED) == 0:
        return
    for c in range(NUM_IDS):
        v = row[PLACED + c]
        row[TABLE + c] += v
        row[KNOWN + p * NUM_IDS + c] = max(0, row[KNOWN + p * NUM_IDS + c] - v)
        row[TAKEN + c] = max(0, row[TAKEN + c] - v)
        row[PLACED + c] = 0
    row[OPENED + p] = 1


HISTORY_CODES = 4 + 2 * NUM_IDS  # draw, take, place c, undo, end meld, discard c


@njit(cache=True, inline="always")
def public_action(row, action):
    """The public code of `action` (`core.history`): every action is seen by every seat.
    Draw 0, take 1 (how many is left out: the cards taken stay in the `known` slice), place
    card c 2 + c, undo 57, end meld 58, discard card c 59 + c."""
    if action < PLACE:
        return min(action, 1)
    if action < DISCARD:
        return 2 + action - PLACE
    return 4 + NUM_IDS + action - DISCARD


@njit(cache=True)
def step(row, action, rewards):
    history.record(row, public_action(row, action))
    p = row[layout.PLAYER]
    hand = HAND + p * NUM_IDS
    row[layout.TURN] += 1
    if action == DRAW:
        _draw(row, p)
        row[PHASE] = PHASE_MELD
    elif action < PLACE:
        for _ in range(action - TAKE + 1):
            row[DISCARD_N] -= 1
            c = row[DISCARD_PILE + row[DISCARD_N]]
            row[hand + c] += 1
            row[KNOWN + p * NUM_IDS + c] += 1
            row[TAKEN + c] += 1
        row[PHASE] = PHASE_MELD
    elif action < UNDO:
        c = action - PLACE
        row[hand + c] -= 1
        row[PLACED + c] += 1
        row[PLACE_COUNT] += 1
        row[TABLE_OK] = meld_ok(row, p)
    elif action == UNDO:
        for c in range(NUM_IDS):
            row[hand + c] += row[PLACED + c]
            row[PLACED + c] = 0
        row[TABLE_OK] = 1
    elif action == END_MELD:
        _commit(row, p)
        if _count(row, hand) == 0:
            _end_hand(row, p, rewards)
        elif row[CFG_SOLO]:
            _solo_next(row, rewards)
        else:
            row[PHASE] = PHASE_DISCARD
    else:
        c = action - DISCARD
        row[hand + c] -= 1
        row[KNOWN + p * NUM_IDS + c] = max(0, row[KNOWN + p * NUM_IDS + c] - 1)
        row[TAKEN + c] = max(0, row[TAKEN + c] - 1)
        row[DISCARD_PILE + row[DISCARD_N]] = c
        row[DISCARD_N] += 1
        if _count(row, hand) == 0:
            _end_hand(row, p, rewards)
            return
        row[HAND_TURNS] += 1
        if row[HAND_TURNS] >= row[CFG_MAX_TURNS]:
            _finish(row, layout.TRUNCATED, rewards)
            return
        _begin_turn(row, (p + 1) % row[layout.NUM_PLAYERS])
        if not _refill(row):
            _end_hand(row, -1, rewards)


@njit(cache=True, inline="always")
def _solo_next(row, rewards):
    """Solo: the next turn starts with one automatic draw; with none left the game is over."""
    if row[DRAW_N] == 0:
        _finish(row, layout.TERMINATED, rewards)
        return
    row[HAND_TURNS] += 1
    _begin_turn(row, 0)
    _draw(row, 0)
    row[FITS] = solo_fits(row)


@njit(cache=True)
def legal(row, out):
    out[:] = 0
    if row[layout.STATUS] != layout.RUNNING:
        return
    p = row[layout.PLAYER]
    hand = HAND + p * NUM_IDS
    phase = row[PHASE]
    if phase == PHASE_DRAW:
        out[DRAW] = 1 if row[DRAW_N] > 0 else 0
        for k in range(row[DISCARD_N]):
            out[TAKE + k] = 1
    elif phase == PHASE_MELD:
        if row[PLACE_COUNT] < row[CFG_MAX_PLACE]:
            for c in range(NUM_IDS):
                out[PLACE + c] = 1 if row[hand + c] > 0 else 0
        out[UNDO] = 1 if _count(row, PLACED) > 0 else 0
        out[END_MELD] = row[TABLE_OK]
    else:
        _discard_allowed(row, p, out[DISCARD:])


@njit(cache=True)
def observe(row, seat, out):
    n = row[layout.NUM_PLAYERS]
    out[:] = 0.0
    for c in range(NUM_IDS):
        out[OBS_HAND + c] = row[HAND + seat * NUM_IDS + c]
        out[OBS_TABLE + c] = row[TABLE + c]
        out[OBS_PLACED + c] = row[PLACED + c]
    for d in range(row[DISCARD_N]):
        c = row[DISCARD_PILE + row[DISCARD_N] - 1 - d]
        if out[OBS_DEPTH + c] == 0:
            out[OBS_DEPTH + c] = d + 1
        elif out[OBS_DEPTH2 + c] == 0:
            out[OBS_DEPTH2 + c] = d + 1
    pos = OBS_KNOWN
    for k in range(1, n):
        q = (seat + k) % n
        for c in range(NUM_IDS):
            out[pos + c] = row[KNOWN + q * NUM_IDS + c]
        pos += NUM_IDS
    for k in range(1, n):
        out[pos] = _count(row, HAND + ((seat + k) % n) * NUM_IDS)
        pos += 1
    for k in range(n):
        out[pos + k] = row[OPENED + (seat + k) % n]
        out[pos + n + k] = row[POINTS + (seat + k) % n]
        if (seat + k) % n == row[layout.PLAYER]:
            out[pos + 2 * n + k] = 1.0
    pos += 3 * n
    if row[layout.STATUS] == layout.RUNNING:
        out[pos + row[PHASE]] = 1.0
    out[pos + 3] = row[DRAW_N]
    out[pos + 4] = row[DISCARD_N]
    if row[CFG_HINTS] and seat == row[layout.PLAYER] and row[layout.STATUS] == layout.RUNNING:
        hint(row, seat, out[pos + 5 : pos + 5 + NUM_IDS])
    history.write(row, seat, out)


# --- conformance hooks ------------------------------------------------------------------------
INVARIANT_ERRORS = (
    "",
    "a counter, phase or seat is out of range",
    "the cards in hands, on the table, placed and in the piles are not the 112 cards",
    "a seat is known to hold a card it does not hold",
    "the table does not split into valid groups",
    "cards are placed outside a melding phase, or more placements than allowed",
    "TABLE_OK does not say whether ending the melding phase is legal, or FITS whether the "
    "solo hand completes the table",
    "points are not what the hands won",
    "the table holds cards but no seat has opened",
)


@njit(cache=True)
def check_invariants(row):
    """0 when the row obeys the conservation laws, else the index of the broken one in
    INVARIANT_ERRORS."""
    n = row[layout.NUM_PLAYERS]
    status = row[layout.STATUS]
    solo = row[CFG_SOLO] == 1
    if not (
        (n == 1) == solo
        and 1 <= n <= MAX_PLAYERS
        and 0 <= row[layout.PLAYER] < n
        and layout.RUNNING <= status <= layout.TRUNCATED
        and PHASE_DRAW <= row[PHASE] <= PHASE_DISCARD
        and not (solo and row[PHASE] != PHASE_MELD)
        and 0 <= row[DRAW_N] <= NUM_CARDS
        and 0 <= row[DISCARD_N] <= MAX_TAKE
        and 0 <= row[HAND_TURNS] <= row[CFG_MAX_TURNS]
        and 0 <= row[FIRST] < n
        and -1 <= row[WINNER] < n
        and 0 <= row[REFILLED] <= 1
    ):
        return 1
    seen = np.zeros(NUM_IDS, dtype=np.int64)
    for i in range(row[DRAW_N]):
        c = row[DRAW_PILE + i]
        if not 0 <= c < NUM_IDS:
            return 2
        seen[c] += 1
    for i in range(row[DISCARD_N]):
        c = row[DISCARD_PILE + i]
        if not 0 <= c < NUM_IDS:
            return 2
        seen[c] += 1
    for c in range(NUM_IDS):
        seen[c] += row[TABLE + c] + row[PLACED + c]
        for q in range(MAX_PLAYERS):
            v = row[HAND + q * NUM_IDS + c]
            known = row[KNOWN + q * NUM_IDS + c]
            if v < 0 or (q >= n and v):
                return 2
            if known < 0 or known > v + (row[PLACED + c] if q == row[layout.PLAYER] else 0):
                return 3
            seen[c] += v
        if row[TABLE + c] < 0 or row[PLACED + c] < 0:
            return 2
        if seen[c] != (NEUTRALS if c == NEUTRAL else COPIES):
            return 2
        if row[TAKEN + c] < 0 or row[TAKEN + c] > row[KNOWN + row[layout.PLAYER] * NUM_IDS + c]:
            return 3
    if not counts_valid(row, TABLE, -1):
        return 4
    placed = _count(row, PLACED)
    if (placed and row[PHASE] != PHASE_MELD) or placed > row[PLACE_COUNT]:
        return 5
    if row[PLACE_COUNT] > row[CFG_MAX_PLACE]:
        return 5
    if status == layout.RUNNING and row[TABLE_OK] != meld_ok(row, row[layout.PLAYER]):
        return 6
    if status == layout.RUNNING and row[FITS] != solo_fits(row):
        return 6
    total = 0
    for q in range(n):
        if row[POINTS + q] < 0:
            return 7
        total += row[POINTS + q]
    if not row[CFG_MATCH] and row[WINNER] < 0 and total != 0:
        return 7
    opened = 0
    for q in range(MAX_PLAYERS):
        if row[OPENED + q] not in (0, 1) or (q >= n and row[OPENED + q]):
            return 1
        opened += row[OPENED + q]
    if opened == 0 and _count(row, TABLE) > 0:
        return 8
    return 0


@njit(cache=True)
def resample_hidden(row, seat):
    """Redraw what `seat` cannot know, from the row's PRNG: the draw pile's cards and order,
    and the other hands' cards that nobody saw them take (the counts the others are known to
    hold stay, and every hand keeps its size). The table, the placed cards and the discard
    pile are public. A placed card counts as one of the known copies, as `_commit` does.

    Before any refill of this hand's draw pile, the pile and the other hands' unseen cards
    all come from the unseen part of the deal's shuffle, so exchanging them is exact. Once
    the pile has been refilled (`REFILLED`) its cards are the old discard pile, which every
    seat saw: then only the draw pile's order is redrawn (nobody saw it) and every hand
    stays as it is. That keeps the row consistent with what `seat` saw; it does not redraw
    the other hands (which may hold cards drawn from the refilled pile)."""
    if row[REFILLED]:
        shuffle_sorted(row, row[DRAW_PILE : DRAW_PILE + row[DRAW_N]])
        return
    n = row[layout.NUM_PLAYERS]
    pool = np.empty(NUM_CARDS, dtype=np.int64)
    m = 0
    for i in range(row[DRAW_N]):
        pool[m] = row[DRAW_PILE + i]
        m += 1
    sizes = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for q in range(n):
        if q == seat:
            continue
        for c in range(NUM_IDS):
            known = row[KNOWN + q * NUM_IDS + c]
            if q == row[layout.PLAYER]:  # its placed cards are the known copies first
                known = max(0, known - row[PLACED + c])
            free = row[HAND + q * NUM_IDS + c] - known
            for _ in range(free):
                pool[m] = c
                m += 1
            sizes[q] += free
            row[HAND + q * NUM_IDS + c] -= free
    shuffle_sorted(row, pool[:m])
    m = 0
    for q in range(n):
        for _ in range(sizes[q]):
            row[HAND + q * NUM_IDS + pool[m]] += 1
            m += 1
    for i in range(row[DRAW_N]):
        row[DRAW_PILE + i] = pool[m + i]
