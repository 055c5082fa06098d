"""Double or Nothing engine: a two-player climbing game at stage g, over one int64 state row.

Each player owns a deck (a circular buffer of card numbers 1..8, top at HEAD) and a hand
kept as counts per number. A play is a range lo..hi of numbers, all copies forced to the
smallest count among them; a reply must be strictly stronger or pass. Row layout after the
shared header: config, the trick, hands, deck heads and sizes, then the two deck buffers,
each large enough to hold every card of the game.
"""

import numpy as np
from numba import njit

from card_envs.core import layout
from card_envs.core.combos import range_copies, range_play_keys, range_strength
from card_envs.core.rng import below

NUM_NUMBERS = 8
NUM_RANGES = NUM_NUMBERS * (NUM_NUMBERS + 1) // 2  # 36
PASS = NUM_RANGES  # action 36
REWARD_WIN, REWARD_ZERO_SUM = 0, 1

CFG_STAGE = layout.HEADER
CFG_REWARD = CFG_STAGE + 1
CFG_FIRST = CFG_STAGE + 2  # seat that leads the first hand
CFG_MAX_TURNS = CFG_STAGE + 3
CAP = CFG_STAGE + 4  # capacity of each deck buffer: all cards of the game
BEAT_COPIES = CFG_STAGE + 5  # the play to beat; 0 copies = the trick is empty (a lead)
BEAT_LO = BEAT_COPIES + 1
BEAT_HI = BEAT_COPIES + 2
LEADER = BEAT_COPIES + 3  # seat that led the current trick
HANDS_PLAYED = BEAT_COPIES + 4
TRICK = BEAT_COPIES + 5  # NUM_NUMBERS counts of the cards in the play area
HAND = TRICK + NUM_NUMBERS  # 2 x NUM_NUMBERS counts
HEAD = HAND + 2 * NUM_NUMBERS  # 2: index of each deck's top card in its buffer
SIZE = HEAD + 2  # 2: cards in each deck
DECKS = SIZE + 2  # 2 x CAP buffers


def state_size(stage: int) -> int:
    return DECKS + 2 * total_cards(stage)


@njit(cache=True)
def scale(stage):
    """2**(g-1): every count of stage g is this multiple of stage 1's."""
    return 1 << (stage - 1)


@njit(cache=True)
def total_cards(stage):
    return 2 * 4 * NUM_NUMBERS * scale(stage)


@njit(cache=True)
def hand_size(stage):
    return 10 * scale(stage)


@njit(cache=True)
def pass_draw(stage):
    return 2 * scale(stage)


@njit(cache=True)
def action_of(lo, hi):
    """Index of the range lo..hi: ranges are numbered by lo, then hi."""
    return (lo - 1) * NUM_NUMBERS - (lo - 1) * (lo - 2) // 2 + (hi - lo)


@njit(cache=True)
def range_of(action):
    """(lo, hi) of a range action."""
    lo = 1
    while action >= NUM_NUMBERS - lo + 1:
        action -= NUM_NUMBERS - lo + 1
        lo += 1
    return lo, lo + action


# --- decks ----------------------------------------------------------------------------------
@njit(cache=True)
def deck_slot(row, p, i):
    """Buffer index of the i-th card from the top of p's deck."""
    cap = row[CAP]
    return DECKS + p * cap + (row[HEAD + p] + i) % cap


@njit(cache=True)
def draw(row, p, count):
    """Move up to `count` cards from the top of p's deck into its hand."""
    count = min(count, row[SIZE + p])
    for i in range(count):
        row[HAND + p * NUM_NUMBERS + row[deck_slot(row, p, i)] - 1] += 1
    row[HEAD + p] = (row[HEAD + p] + count) % row[CAP]
    row[SIZE + p] -= count


@njit(cache=True)
def put_under(row, p, counts_at):
    """Shuffle the cards counted at row[counts_at : counts_at + 8] under p's deck; zero them."""
    first = row[SIZE + p]
    k = first
    for v in range(NUM_NUMBERS):
        for _ in range(row[counts_at + v]):
            row[deck_slot(row, p, k)] = v + 1
            k += 1
        row[counts_at + v] = 0
    for i in range(k - first - 1, 0, -1):  # Fisher-Yates over the new bottom cards
        j = below(row, i + 1)
        a = deck_slot(row, p, first + i)
        b = deck_slot(row, p, first + j)
        row[a], row[b] = row[b], row[a]
    row[SIZE + p] = k


# --- game -----------------------------------------------------------------------------------
@njit(cache=True)
def reset(row):
    stage = row[CFG_STAGE]
    for p in range(2):
        row[HEAD + p] = 0
        row[SIZE + p] = 0
        for v in range(NUM_NUMBERS):
            row[HAND + p * NUM_NUMBERS + v] = 4 * scale(stage)
        put_under(row, p, HAND + p * NUM_NUMBERS)  # a shuffled fresh deck
        draw(row, p, hand_size(stage))
    for v in range(NUM_NUMBERS):
        row[TRICK + v] = 0
    row[BEAT_COPIES] = 0
    row[BEAT_LO] = 0
    row[BEAT_HI] = 0
    row[LEADER] = row[CFG_FIRST]
    row[HANDS_PLAYED] = 0
    row[layout.PLAYER] = row[CFG_FIRST]
    row[layout.STATUS] = layout.RUNNING
    row[layout.TURN] = 0


@njit(cache=True)
def hand_cards(row, p):
    total = 0
    for v in range(NUM_NUMBERS):
        total += row[HAND + p * NUM_NUMBERS + v]
    return total


@njit(cache=True)
def outcome(row, scores, wins):
    """Cards each player owns; the winner takes 1, a draw (or a truncated game) halves it."""
    for p in range(2):
        scores[p] = row[SIZE + p] + hand_cards(row, p)
    wins[0] = 0.5
    wins[1] = 0.5
    if row[layout.STATUS] == layout.TERMINATED and scores[0] != scores[1]:
        w = 0 if scores[0] > scores[1] else 1
        wins[w] = 1.0
        wins[1 - w] = 0.0


@njit(cache=True)
def _finish(row, status, rewards):
    row[layout.STATUS] = status
    scores = np.zeros(2)
    wins = np.zeros(2)
    outcome(row, scores, wins)
    for p in range(2):
        rewards[p] = wins[p] if row[CFG_REWARD] == REWARD_WIN else 2.0 * wins[p] - 1.0


@njit(cache=True)
def _end_of_hand(row, winner, rewards):
    """The winner takes the trick and the loser's hand; then a new hand, or the game ends."""
    loser = 1 - winner
    for v in range(NUM_NUMBERS):
        row[TRICK + v] += row[HAND + loser * NUM_NUMBERS + v]
        row[HAND + loser * NUM_NUMBERS + v] = 0
    put_under(row, winner, TRICK)
    row[BEAT_COPIES] = 0
    row[HANDS_PLAYED] += 1
    need = hand_size(row[CFG_STAGE])
    if row[SIZE] < need or row[SIZE + 1] < need:  # someone cannot draw a full hand
        _finish(row, layout.TERMINATED, rewards)  # fewer cards loses; equal is a draw
        return
    draw(row, 0, need)
    draw(row, 1, need)
    row[LEADER] = winner
    row[layout.PLAYER] = winner


@njit(cache=True)
def step(row, action, rewards):
    p = row[layout.PLAYER]
    o = 1 - p
    row[layout.TURN] += 1
    if action == PASS:
        draw(row, p, pass_draw(row[CFG_STAGE]))
        put_under(row, o, TRICK)  # the trick goes to the player who was not beaten
        row[BEAT_COPIES] = 0
        row[LEADER] = o
        row[layout.PLAYER] = o
    else:
        lo, hi = range_of(action)
        copies = range_copies(row[HAND + p * NUM_NUMBERS : HAND + (p + 1) * NUM_NUMBERS], lo, hi)
        for v in range(lo, hi + 1):
            row[HAND + p * NUM_NUMBERS + v - 1] -= copies
            row[TRICK + v - 1] += copies
        if row[BEAT_COPIES] == 0:
            row[LEADER] = p
        row[BEAT_COPIES] = copies
        row[BEAT_LO] = lo
        row[BEAT_HI] = hi
        if hand_cards(row, p) == 0:
            _end_of_hand(row, p, rewards)
        else:
            row[layout.PLAYER] = o
    if row[layout.STATUS] == layout.RUNNING and row[layout.TURN] >= row[CFG_MAX_TURNS]:
        _finish(row, layout.TRUNCATED, rewards)


@njit(cache=True)
def beat_strength(row):
    if row[BEAT_COPIES] == 0:
        return -1
    return range_strength(row[BEAT_COPIES], row[BEAT_LO], row[BEAT_HI])


@njit(cache=True)
def legal(row, out):
    out[:] = 0
    if row[layout.STATUS] != layout.RUNNING:
        return
    p = row[layout.PLAYER]
    keys = np.empty(NUM_RANGES, dtype=np.int64)
    hand = row[HAND + p * NUM_NUMBERS : HAND + (p + 1) * NUM_NUMBERS]
    range_play_keys(hand, beat_strength(row), keys)
    for a in range(NUM_RANGES):
        out[a] = 1 if keys[a] >= 0 else 0
    out[PASS] = 1 if row[BEAT_COPIES] > 0 else 0


# observation slots
OBS_OWN = 0  # 8 counts
OBS_OPP_HAND = 8
OBS_OWN_DECK = 9
OBS_OPP_DECK = 10
OBS_BEAT_COPIES = 11
OBS_BEAT_CARDS = 12
OBS_BEAT_LO = 13  # 8 one-hot
OBS_BEAT_HI = 21  # 8 one-hot
OBS_TRICK = 29  # 8 counts
OBS_LED = 37  # 1 if the observer led the current trick (or is to lead)
OBS_STAGE = 38
OBS_SIZE = 39


@njit(cache=True)
def observe(row, seat, out):
    """Card counts are divided by 2**(g-1), so every stage looks like stage 1 in size."""
    out[:] = 0.0
    o = 1 - seat
    f = 1.0 / scale(row[CFG_STAGE])
    for v in range(NUM_NUMBERS):
        out[OBS_OWN + v] = row[HAND + seat * NUM_NUMBERS + v] * f
        out[OBS_TRICK + v] = row[TRICK + v] * f
    out[OBS_OPP_HAND] = hand_cards(row, o) * f
    out[OBS_OWN_DECK] = row[SIZE + seat] * f
    out[OBS_OPP_DECK] = row[SIZE + o] * f
    if row[BEAT_COPIES] > 0:
        copies = row[BEAT_COPIES]
        out[OBS_BEAT_COPIES] = copies * f
        out[OBS_BEAT_CARDS] = copies * (row[BEAT_HI] - row[BEAT_LO] + 1) * f
        out[OBS_BEAT_LO + row[BEAT_LO] - 1] = 1.0
        out[OBS_BEAT_HI + row[BEAT_HI] - 1] = 1.0
    led = row[LEADER] == seat if row[BEAT_COPIES] > 0 else row[layout.PLAYER] == seat
    out[OBS_LED] = 1.0 if led else 0.0
    out[OBS_STAGE] = row[CFG_STAGE]


@njit(cache=True)
def computer_action(counts, beat):
    """The original computer: the legal play with the fewest cards (then the smaller range,
    then lower numbers), whether leading or replying; PASS only with no legal play."""
    keys = np.empty(NUM_RANGES, dtype=np.int64)
    range_play_keys(counts, beat, keys)
    best = PASS
    for a in range(NUM_RANGES):
        if keys[a] >= 0 and (best == PASS or keys[a] < keys[best]):
            best = a
    return best
