"""Surfosaurus MAX engine: numba kernels over one int64 state row.

Row layout after the shared header (`core.layout`): config (reward mode, points per value,
hints), the round position, scores, hands (7 slots per seat, -1 = empty), the current display (card
and seat, seat -1 for a 2-player dummy card), the shuffled deck (removed cards first, then
the deal, then the draw pile from DRAW on) and a flag per card that left play.
"""

import numpy as np

from card_envs.core import history, layout
from card_envs.core.combos import FULL, HALF, NUM_VALUES, combo_flags
from card_envs.core.jit import boundary, njit
from card_envs.core.rewards import share_win
from card_envs.core.rng import shuffle_slice, shuffle_sorted
from card_envs.core.segments import Segment

MAX_PLAYERS = 6
NUM_CARDS = 84
HAND_SIZE = 7
MAX_DISPLAY = 12  # 6 players x 2 cards; 2 players: 6 cards + 2 dummies
DUMMY = -1  # seat of a dummy card
REWARD_WIN, REWARD_SCORE = 0, 1

CFG_REWARD = layout.HEADER
CFG_POINTS = CFG_REWARD + 1  # NUM_VALUES slots: points of values 1..12
CFG_HINTS = CFG_POINTS + NUM_VALUES  # 1: observations end with the per-card gains
ROUND = CFG_HINTS + 1  # rounds finished
START = ROUND + 1  # starting seat of this round
PLAY = ROUND + 2  # cards played so far this round
DRAW = ROUND + 3  # index in DECK of the top of the draw pile
DISP_N = ROUND + 4  # cards on display
FULL_PTS = ROUND + 5  # MAX_PLAYERS: points under the whole coconut
HALF2 = FULL_PTS + MAX_PLAYERS  # MAX_PLAYERS: half-coconut cards' points (= score in halves)
COLLECTED = HALF2 + MAX_PLAYERS  # MAX_PLAYERS: cards scored, full or half
HANDS = COLLECTED + MAX_PLAYERS  # MAX_PLAYERS * HAND_SIZE card ids
DISP_CARD = HANDS + MAX_PLAYERS * HAND_SIZE
DISP_SEAT = DISP_CARD + MAX_DISPLAY
DECK = DISP_SEAT + MAX_DISPLAY  # NUM_CARDS
OUT = DECK + NUM_CARDS  # NUM_CARDS flags: left play in an earlier round
STATE_SIZE = OUT + NUM_CARDS


def card_id(colour: int, value: int) -> int:
    """The id of the card of `colour` (0-6) and `value` (1-12)."""
    return colour * NUM_VALUES + value - 1


def card_of(cid: int) -> list[int]:
    """[colour, value] of a card id."""
    return [int(cid) // NUM_VALUES, int(cid) % NUM_VALUES + 1]


@njit(cache=True)
def combo_size(n):
    return 4 if n <= 4 else 5


@njit(cache=True)
def plays_per_round(n):
    """Cards each player plays in a round."""
    return 3 if n <= 3 else 2


@njit(cache=True)
def total_rounds(n):
    if n == 2:
        return 6  # each starts 3 rounds
    return 2 * n if n <= 4 else n


@njit(cache=True)
def removed_cards(n):
    if n == 2:
        return 24
    if n == 3:
        return 12
    return 4 if n == 5 else 0


OBS_SEGMENTS = (  # per-seat segments run from the observing seat on, in seat order
    Segment("hand", NUM_CARDS),
    Segment("display", NUM_CARDS, "all"),  # the cards each seat has in the display
    Segment("dummy", NUM_CARDS),  # and the dummy's
    Segment("out", NUM_CARDS),  # out of play
    Segment("scores", 3, "all"),  # full points, half points, cards collected
    Segment("round", 1),
    Segment("play", 1),
    Segment("start", 1, "all"),  # who started the round, one-hot
    Segment("pile", 1),  # cards left to draw
    Segment("hints", NUM_CARDS, option="hints"),
)


def obs_size(n: int, hints: bool = False) -> int:
    config = {"num_players": n, "hints": hints}
    return sum(seg.size(config) for seg in OBS_SEGMENTS)


@njit(cache=True)
def seat_gain(cards, mine, count, size, points, flags):
    """Points the cards flagged `mine` among `cards[:count]` would score if the round ended
    with this display (full and half points; nothing below `size` cards)."""
    gain = 0.0
    if count >= size:
        combo_flags(cards[:count], size, flags)
        for j in range(count):
            if mine[j] and flags[j] == FULL:
                gain += points[cards[j] % NUM_VALUES]
            elif mine[j] and flags[j] == HALF:
                gain += points[cards[j] % NUM_VALUES] / 2
    return gain


# only the hints option calls it: on a cold cache, compiled at its first call
@boundary("void(int64[::1], int64, float32[::1])", aside=False)
def write_gains(row, seat, out):
    """For each card in `seat`'s hand: what the seat would score if the round ended with
    that card added to the display (the `hints` slots)."""
    n = row[layout.NUM_PLAYERS]
    cards = np.empty(MAX_DISPLAY + 1, dtype=np.int64)
    mine = np.empty(MAX_DISPLAY + 1, dtype=np.bool_)
    flags = np.empty(MAX_DISPLAY + 1, dtype=np.int64)
    count = row[DISP_N]
    for i in range(count):
        cards[i] = row[DISP_CARD + i]
        mine[i] = row[DISP_SEAT + i] == seat
    points = row[CFG_POINTS : CFG_POINTS + NUM_VALUES]
    hand = HANDS + seat * HAND_SIZE
    for j in range(HAND_SIZE):
        c = row[hand + j]
        if c >= 0:
            cards[count] = c
            mine[count] = True
            out[c] = seat_gain(cards, mine, count + 1, combo_size(n), points, flags)


@njit(cache=True)
def reset(row):
    history.clear(row)
    n = row[layout.NUM_PLAYERS]
    for c in range(NUM_CARDS):
        row[DECK + c] = c
        row[OUT + c] = 0
    shuffle_slice(row, DECK, DECK + NUM_CARDS)
    pos = DECK + removed_cards(n)
    for p in range(MAX_PLAYERS):
        for j in range(HAND_SIZE):
            if p < n:
                row[HANDS + p * HAND_SIZE + j] = row[pos]
                pos += 1
            else:
                row[HANDS + p * HAND_SIZE + j] = -1
        row[FULL_PTS + p] = 0
        row[HALF2 + p] = 0
        row[COLLECTED + p] = 0
    row[DRAW] = pos - DECK
    row[ROUND] = 0
    row[START] = 0
    row[PLAY] = 0
    row[DISP_N] = 0
    row[layout.PLAYER] = 0
    row[layout.STATUS] = layout.RUNNING
    row[layout.TURN] = 0


@njit(cache=True, inline="always")
def score_round(row):
    """Score the display's best combo, then every displayed card leaves play."""
    n = row[layout.NUM_PLAYERS]
    count = row[DISP_N]
    flags = np.zeros(count, dtype=np.int64)
    combo_flags(row[DISP_CARD : DISP_CARD + count], combo_size(n), flags)
    for i in range(count):
        c = row[DISP_CARD + i]
        seat = row[DISP_SEAT + i]
        row[OUT + c] = 1
        if seat != DUMMY and flags[i] != 0:
            points = row[CFG_POINTS + c % NUM_VALUES]
            if flags[i] == FULL:
                row[FULL_PTS + seat] += points
            elif flags[i] == HALF:
                row[HALF2 + seat] += points
            row[COLLECTED + seat] += 1
    row[DISP_N] = 0


@njit(cache=True)
def outcome(row, scores, wins):
    """Points of every seat; most points wins, then most cards collected, then all tied."""
    n = row[layout.NUM_PLAYERS]
    keys = np.zeros(n, dtype=np.float64)
    for p in range(n):
        score2 = 2 * row[FULL_PTS + p] + row[HALF2 + p]
        scores[p] = score2 / 2
        keys[p] = score2 * (NUM_CARDS + 1) + row[COLLECTED + p]
    share_win(keys, False, wins)


@njit(cache=True, inline="always")
def _display(row, card, seat):
    k = row[DISP_N]
    row[DISP_CARD + k] = card
    row[DISP_SEAT + k] = seat
    row[DISP_N] = k + 1


HISTORY_CODES = NUM_CARDS  # the card played


@njit(cache=True, inline="always")
def public_action(row, action):
    """The public code of `action` (`core.history`): the card played, face up on display."""
    return action


@njit(cache=True)
def step(row, action, rewards):
    history.record(row, public_action(row, action))
    n = row[layout.NUM_PLAYERS]
    p = row[layout.PLAYER]
    row[layout.TURN] += 1
    hand = HANDS + p * HAND_SIZE
    slot = hand
    for j in range(HAND_SIZE):
        if row[hand + j] == action:
            slot = hand + j
    _display(row, action, p)
    if row[DRAW] < NUM_CARDS:  # draw only while the pile has cards
        row[slot] = row[DECK + row[DRAW]]
        row[DRAW] += 1
    else:
        row[slot] = -1
    row[PLAY] += 1
    played = row[PLAY]
    if n == 2 and (played == 2 or played == 4) and row[DRAW] < NUM_CARDS:
        _display(row, row[DECK + row[DRAW]], DUMMY)  # the 2-player dummy card
        row[DRAW] += 1
    if played < n * plays_per_round(n):
        row[layout.PLAYER] = (row[START] + played) % n
        return
    score_round(row)
    row[ROUND] += 1
    if row[ROUND] < total_rounds(n):
        row[START] = (row[START] + 1) % n
        row[PLAY] = 0
        row[layout.PLAYER] = row[START]
        return
    row[layout.STATUS] = layout.TERMINATED
    scores = np.zeros(n, dtype=np.float64)
    wins = np.zeros(n, dtype=np.float64)
    outcome(row, scores, wins)
    for q in range(n):
        rewards[q] = wins[q] if row[CFG_REWARD] == REWARD_WIN else scores[q]


@njit(cache=True)
def legal(row, out):
    out[:] = 0
    if row[layout.STATUS] != layout.RUNNING:
        return
    hand = HANDS + row[layout.PLAYER] * HAND_SIZE
    for j in range(HAND_SIZE):
        if row[hand + j] >= 0:
            out[row[hand + j]] = 1


@njit(cache=True)
def observe(row, seat, out):
    n = row[layout.NUM_PLAYERS]
    out[:] = 0.0
    hand = HANDS + seat * HAND_SIZE
    for j in range(HAND_SIZE):
        if row[hand + j] >= 0:
            out[row[hand + j]] = 1.0
    base = NUM_CARDS  # display blocks: relative seats 0..n-1, then the dummy
    for i in range(row[DISP_N]):
        s = row[DISP_SEAT + i]
        rel = n if s == DUMMY else (s - seat) % n
        out[base + rel * NUM_CARDS + row[DISP_CARD + i]] = 1.0
    base += (n + 1) * NUM_CARDS
    for c in range(NUM_CARDS):
        out[base + c] = row[OUT + c]
    base += NUM_CARDS
    for r in range(n):
        q = (seat + r) % n
        out[base + 3 * r] = row[FULL_PTS + q]
        out[base + 3 * r + 1] = row[HALF2 + q] / 2
        out[base + 3 * r + 2] = row[COLLECTED + q]
    base += 3 * n
    out[base] = row[ROUND]
    out[base + 1] = row[PLAY]
    out[base + 2 + (row[START] - seat) % n] = 1.0
    out[base + 2 + n] = NUM_CARDS - row[DRAW]
    if row[CFG_HINTS]:
        write_gains(row, seat, out[base + 3 + n :])
    history.write(row, seat, out)


# --- conformance hooks ------------------------------------------------------------------------
INVARIANT_ERRORS = (
    "",
    "a card is not in exactly one place (removed, hand, display, out of play or pile)",
    "a counter is out of range",
    "a score is negative or more cards were collected than left play",
)


@njit(cache=True)
def check_invariants(row):
    """0 when the row obeys the conservation laws, else the index of the broken one in
    INVARIANT_ERRORS."""
    n = row[layout.NUM_PLAYERS]
    running = row[layout.STATUS] == layout.RUNNING
    plays, rounds = n * plays_per_round(n), total_rounds(n)
    if running:
        position = row[ROUND] < rounds and row[PLAY] < plays
        position = position and row[layout.PLAYER] == (row[START] + row[PLAY]) % n
    else:
        position = row[layout.STATUS] == layout.TERMINATED and row[ROUND] == rounds
    ok = (
        position
        and removed_cards(n) <= row[DRAW] <= NUM_CARDS
        and 0 <= row[DISP_N] <= MAX_DISPLAY
        and 0 <= row[PLAY] <= plays
        and 0 <= row[START] < n
    )
    if not ok:
        return 2
    places = np.zeros(NUM_CARDS, dtype=np.int64)
    for j in range(NUM_CARDS):
        c = row[DECK + j]
        if c < 0 or c >= NUM_CARDS:
            return 1
        if j < removed_cards(n) or j >= row[DRAW]:
            places[c] += 1
    for p in range(MAX_PLAYERS):
        for j in range(HAND_SIZE):
            c = row[HANDS + p * HAND_SIZE + j]
            if c >= NUM_CARDS or (c >= 0 and p >= n) or c < -1:
                return 1
            if c >= 0:
                places[c] += 1
    for i in range(row[DISP_N]):
        places[row[DISP_CARD + i]] += 1
        if row[DISP_SEAT + i] < DUMMY or row[DISP_SEAT + i] >= n:
            return 2
    out = 0
    for c in range(NUM_CARDS):
        places[c] += row[OUT + c]
        out += row[OUT + c]
        if places[c] != 1:
            return 1
    collected = 0
    for p in range(MAX_PLAYERS):
        if row[FULL_PTS + p] < 0 or row[HALF2 + p] < 0 or row[COLLECTED + p] < 0:
            return 3
        collected += row[COLLECTED + p]
    return 3 if collected > out else 0


@njit(cache=True)
def resample_hidden(row, seat):
    """Redraw what `seat` cannot see, from the row's PRNG: the cards of the other hands, of
    the draw pile and of the removed stack are pooled, shuffled and dealt back into the same
    slots. Any card can be played at any time, so nothing seen constrains them further."""
    n = row[layout.NUM_PLAYERS]
    slots = np.empty(NUM_CARDS, dtype=np.int64)
    count = 0
    for p in range(n):
        for j in range(HAND_SIZE):
            if p != seat and row[HANDS + p * HAND_SIZE + j] >= 0:
                slots[count] = HANDS + p * HAND_SIZE + j
                count += 1
    for j in range(NUM_CARDS):
        if j < removed_cards(n) or j >= row[DRAW]:
            slots[count] = DECK + j
            count += 1
    cards = np.empty(count, dtype=np.int64)
    for i in range(count):
        cards[i] = row[slots[i]]
    shuffle_sorted(row, cards)
    for i in range(count):
        row[slots[i]] = cards[i]
