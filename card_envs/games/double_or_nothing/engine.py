"""Double or Nothing engine: a two-player climbing game at stage g, over one int64 state row.

Each player owns a deck (a circular buffer of card numbers 1..8, top at HEAD) and a hand
kept as counts per number. A play is a range lo..hi of numbers, all copies forced to the
smallest count among them; a reply must be strictly stronger or pass. Row layout after the
shared header: config, the trick, hands, deck heads and sizes, the hidden-information
bookkeeping, then the two deck buffers, each large enough to hold every card of the game,
then as many slots again for segment lengths.

The bookkeeping serves `check_invariants` and `resample_hidden` (docs/envs/double_or_nothing.md,
"Hidden information and resampling"). Cards put under a deck together (a fresh deck, a trick,
a trick with the loser's hand) form a segment; its length is kept at the segment-length slot
of its first card. Per player: TOP_N and TOP_LEFT are the number and the counts of the cards
left in the segment it last drew from (0 once it is used up; they are then the top of its
deck), FRESH counts the cards it drew from that segment in the current hand (of which
min(FRESH, HAND), per number, are still in its hand: plays take the other hand cards first;
an observer cannot tell those from TOP_LEFT's), and PINNED the numbers whose absence from the
hand a play showed, which must not come back from TOP_LEFT.
"""

import numpy as np

from card_envs.core import history, layout
from card_envs.core.combos import range_copies, range_play_keys, range_strength
from card_envs.core.jit import njit
from card_envs.core.rng import below, shuffle_sorted

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
# hidden-information bookkeeping, per player (see the module docstring)
TOP_N = SIZE + 2  # 2: cards left in the segment last drawn from
PINNED = TOP_N + 2  # 2 bitmasks (bit v-1 = number v), see `pin_witness`
FRESH = PINNED + 2  # NUM_NUMBERS counts, then TOP_LEFT's, for player 0, then for player 1
TOP_LEFT = FRESH + NUM_NUMBERS
BOOK = 2 * NUM_NUMBERS  # stride of a player's FRESH and TOP_LEFT
DECKS = FRESH + 2 * BOOK  # 2 x CAP buffers, then 2 x CAP segment lengths (`seg_offset`)


def state_size(stage: int) -> int:
    return DECKS + 4 * total_cards(stage)


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
def seg_offset(row):
    """Distance from a deck buffer slot to its segment-length slot (read at first cards)."""
    return 2 * row[CAP]


@njit(cache=True)
def forget_fresh(row, p):
    """No card of p's hand can be told apart from cards still in its deck any more."""
    for v in range(NUM_NUMBERS):
        row[FRESH + p * BOOK + v] = 0
    row[PINNED + p] = 0


@njit(cache=True)
def segment_length(row, p, i):
    """Length of the segment that starts i cards from the top of p's deck (the rest of the
    deck if the slot holds no valid length, as in a position written by hand)."""
    n = row[deck_slot(row, p, i) + seg_offset(row)]
    rest = row[SIZE + p] - i
    return n if 1 <= n <= rest else rest


@njit(cache=True)
def _start_segment(row, p, i):
    """p is about to draw the first card of the segment that starts i cards from the top."""
    forget_fresh(row, p)
    n = segment_length(row, p, i)
    row[TOP_N + p] = n
    for v in range(NUM_NUMBERS):
        row[TOP_LEFT + p * BOOK + v] = 0
    for j in range(i, i + n):
        row[TOP_LEFT + p * BOOK + row[deck_slot(row, p, j)] - 1] += 1


@njit(cache=True)
def draw(row, p, count):
    """Move up to `count` cards from the top of p's deck into its hand."""
    count = min(count, row[SIZE + p])
    i = 0
    while i < count:
        if row[TOP_N + p] == 0:
            _start_segment(row, p, i)
        n = min(count - i, row[TOP_N + p])
        for j in range(i, i + n):
            v = row[deck_slot(row, p, j)] - 1
            row[HAND + p * NUM_NUMBERS + v] += 1
            row[FRESH + p * BOOK + v] += 1
            row[TOP_LEFT + p * BOOK + v] -= 1
        row[TOP_N + p] -= n
        i += n
    row[HEAD + p] = (row[HEAD + p] + count) % row[CAP]
    row[SIZE + p] -= count


@njit(cache=True)
def put_under(row, p, counts_at):
    """Shuffle the cards counted at row[counts_at : counts_at + 8] under p's deck as a new
    segment; zero them."""
    first = row[SIZE + p]
    k = first
    for v in range(NUM_NUMBERS):
        for _ in range(row[counts_at + v]):
            row[deck_slot(row, p, k)] = v + 1
            k += 1
        row[counts_at + v] = 0
    if k > first:
        row[deck_slot(row, p, first) + seg_offset(row)] = k - first
    for i in range(k - first - 1, 0, -1):  # Fisher-Yates over the new bottom cards
        j = below(row, i + 1)
        a = deck_slot(row, p, first + i)
        b = deck_slot(row, p, first + j)
        row[a], row[b] = row[b], row[a]
    row[SIZE + p] = k


# --- game -----------------------------------------------------------------------------------
@njit(cache=True)
def reset(row):
    history.clear(row)
    stage = row[CFG_STAGE]
    for p in range(2):
        row[HEAD + p] = 0
        row[SIZE + p] = 0
        forget_fresh(row, p)
        row[TOP_N + p] = 0
        for v in range(NUM_NUMBERS):
            row[TOP_LEFT + p * BOOK + v] = 0
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
    forget_fresh(row, 0)
    forget_fresh(row, 1)
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
def pin_witness(row, p, lo, hi):
    """After p played lo..hi, some number of the range is gone from its hand (the copies were
    the smallest count). That must stay true of every redraw of p's fresh cards: nothing to do
    if such a number is pinned already or has no card left in TOP_LEFT (none can come back),
    else pin the one with the fewest cards there."""
    hand = HAND + p * NUM_NUMBERS
    pinned = row[PINNED + p]
    for v in range(lo - 1, hi):
        if row[hand + v] == 0 and (pinned >> v) & 1:
            return
    witness = 0
    fewest = 0
    for v in range(lo - 1, hi):
        if row[hand + v] == 0:
            left = row[TOP_LEFT + p * BOOK + v]
            if left == 0:
                return
            if witness == 0 or left < fewest:
                witness = v + 1
                fewest = left
    row[PINNED + p] = pinned | (1 << (witness - 1))


HISTORY_CODES = NUM_RANGES + 1  # the range played, or pass


@njit(cache=True)
def public_action(row, action):
    """The public code of `action` (`core.history`): the range played (its copies show in
    the play area) or pass, both seen by the other seat."""
    return action


@njit(cache=True)
def step(row, action, rewards):
    history.record(row, public_action(row, action))
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
        hand = HAND + p * NUM_NUMBERS
        copies = range_copies(row[hand : hand + NUM_NUMBERS], lo, hi)
        for v in range(lo - 1, hi):
            row[hand + v] -= copies
            row[TRICK + v] += copies
        if row[BEAT_COPIES] == 0:
            row[LEADER] = p
        row[BEAT_COPIES] = copies
        row[BEAT_LO] = lo
        row[BEAT_HI] = hi
        if hand_cards(row, p) == 0:
            _end_of_hand(row, p, rewards)
        else:
            pin_witness(row, p, lo, hi)
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
    history.write(row, seat, out)


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


# --- conformance hooks -------------------------------------------------------------------------
INVARIANT_ERRORS = (
    "",
    "a config slot is out of range (players, stage, reward, first leader, max turns, capacity)",
    "the status, the seat to act or the leader is out of range, or the seat to lead is not "
    "the leader",
    "the turn count or the hands played is out of range (0 <= hands played <= turns <= "
    "max_turns; running below the cap, truncated at it)",
    "a deck's head or size is outside its buffer",
    "a deck card is not a number 1..8",
    "a hand or trick count is negative",
    "the cards of a number do not add up to 8 * 2**(g-1) over the hands, the trick and the decks",
    "the play to beat does not match the trick (none <=> empty trick; copies >= 1, "
    "1 <= lo <= hi <= 8, and the trick holds the play)",
    "a hand is empty while the game runs",
    "a game that ended by the rules still has cards in a hand or the trick, or no short deck",
    "the fresh counts or the pinned numbers are out of range",
    "the deck segments do not match the deck (the segment last drawn from, TOP_N cards counted "
    "by TOP_LEFT on top, then segments of length >= 1 filling the deck exactly)",
)


@njit(cache=True)
def _deck_counts(row, p, n):
    """Counts of the numbers among the n cards on top of p's deck, 16 bits each: numbers 1..4
    in the first word, 5..8 in the second (a deck holds fewer than 2**16 cards)."""
    low = 0
    high = 0
    for i in range(n):
        c = row[deck_slot(row, p, i)] - 1
        if c < 4:
            low += 1 << (16 * c)
        else:
            high += 1 << (16 * (c - 4))
    return low, high


@njit(cache=True)
def _count_of(low, high, v):
    """Number v+1's count in `_deck_counts` words."""
    return ((low if v < 4 else high) >> (16 * (v % 4))) & 0xFFFF


@njit(cache=True)
def check_invariants(row):
    """0 when the row obeys the conservation laws, else the index of the broken one in
    INVARIANT_ERRORS. Cost: about two passes over the cards in the decks; no allocation."""
    stage = row[CFG_STAGE]
    if not (
        row[layout.NUM_PLAYERS] == 2
        and 1 <= stage <= 32
        and row[CAP] == total_cards(stage)
        and DECKS + 4 * row[CAP] <= row.shape[0]
        and 0 <= row[CFG_REWARD] <= 1
        and 0 <= row[CFG_FIRST] <= 1
        and row[CFG_MAX_TURNS] >= 1
    ):
        return 1
    status = row[layout.STATUS]
    running = status == layout.RUNNING
    player = row[layout.PLAYER]
    if not (
        layout.RUNNING <= status <= layout.TRUNCATED
        and 0 <= player <= 1
        and 0 <= row[LEADER] <= 1
        and not (running and row[BEAT_COPIES] == 0 and row[LEADER] != player)
    ):
        return 2
    turn, cap_turns = row[layout.TURN], row[CFG_MAX_TURNS]
    if not (
        0 <= row[HANDS_PLAYED] <= turn <= cap_turns
        and (turn < cap_turns or not running)
        and (turn == cap_turns or status != layout.TRUNCATED)
    ):
        return 3
    cap = row[CAP]
    for p in range(2):
        if not (0 <= row[HEAD + p] < cap and 0 <= row[SIZE + p] <= cap):
            return 4
    for p in range(2):
        for i in range(row[SIZE + p]):
            c = row[deck_slot(row, p, i)]
            if c < 1 or c > NUM_NUMBERS:
                return 5
    for v in range(NUM_NUMBERS):
        if row[TRICK + v] < 0 or row[HAND + v] < 0 or row[HAND + NUM_NUMBERS + v] < 0:
            return 6
    low0, high0 = _deck_counts(row, 0, row[SIZE])
    low1, high1 = _deck_counts(row, 1, row[SIZE + 1])
    for v in range(NUM_NUMBERS):
        total = row[TRICK + v] + row[HAND + v] + row[HAND + NUM_NUMBERS + v]
        total += _count_of(low0, high0, v) + _count_of(low1, high1, v)
        if total != 8 * scale(stage):
            return 7
    copies, lo, hi = row[BEAT_COPIES], row[BEAT_LO], row[BEAT_HI]
    trick = 0
    for v in range(NUM_NUMBERS):
        trick += row[TRICK + v]
    if copies == 0:
        if trick:
            return 8
    else:
        if copies < 1 or not 1 <= lo <= hi <= NUM_NUMBERS:
            return 8
        for v in range(lo - 1, hi):
            if row[TRICK + v] < copies:
                return 8
    if running and (hand_cards(row, 0) == 0 or hand_cards(row, 1) == 0):
        return 9
    if status == layout.TERMINATED:
        need = hand_size(stage)
        if hand_cards(row, 0) or hand_cards(row, 1) or trick or copies:
            return 10
        if row[SIZE] >= need and row[SIZE + 1] >= need:
            return 10
    if not (0 <= row[PINNED] < 256 and 0 <= row[PINNED + 1] < 256):
        return 11
    for p in range(2):
        for v in range(NUM_NUMBERS):
            if not 0 <= row[FRESH + p * BOOK + v] <= cap:
                return 11
    lengths = seg_offset(row)
    for p in range(2):
        top, size = row[TOP_N + p], row[SIZE + p]
        if not 0 <= top <= size:
            return 12
        low, high = _deck_counts(row, p, top)
        for v in range(NUM_NUMBERS):
            if row[TOP_LEFT + p * BOOK + v] != _count_of(low, high, v):
                return 12
        i = top
        while i < size:
            n = row[deck_slot(row, p, i) + lengths]
            if n < 1 or n > size - i:
                return 12
            i += n
    return 0


@njit(cache=True)
def _shuffle_deck_span(row, p, lo, hi):
    """Shuffle the cards lo..hi-1 from the top of p's deck (`shuffle_sorted`: the new order
    does not depend on the old one)."""
    cards = np.empty(hi - lo, dtype=np.int64)
    for i in range(lo, hi):
        cards[i - lo] = row[deck_slot(row, p, i)]
    shuffle_sorted(row, cards)
    for i in range(lo, hi):
        row[deck_slot(row, p, i)] = cards[i - lo]


@njit(cache=True)
def _redraw_fresh(row, o):
    """Pool o's fresh hand cards of the numbers not pinned with the cards of those numbers in
    TOP_LEFT; deal the hand's share back uniformly and write the segment's cards back on top
    of the deck (sorted, to be shuffled)."""
    if row[TOP_N + o] == 0:
        return  # used up: the fresh cards are what is left of a segment seen whole
    pinned = row[PINNED + o]
    left = 0  # pooled cards of the numbers not pinned
    take = 0
    for v in range(NUM_NUMBERS):
        if not (pinned >> v) & 1:
            h = HAND + o * NUM_NUMBERS + v
            f = min(row[FRESH + o * BOOK + v], row[h])
            row[h] -= f
            row[FRESH + o * BOOK + v] = 0
            row[TOP_LEFT + o * BOOK + v] += f
            take += f
            left += row[TOP_LEFT + o * BOOK + v]
    for _ in range(take):
        x = below(row, left)
        v = 0
        while (pinned >> v) & 1 or x >= row[TOP_LEFT + o * BOOK + v]:
            if not (pinned >> v) & 1:
                x -= row[TOP_LEFT + o * BOOK + v]
            v += 1
        row[TOP_LEFT + o * BOOK + v] -= 1
        left -= 1
        row[HAND + o * NUM_NUMBERS + v] += 1
        row[FRESH + o * BOOK + v] += 1
    i = 0
    for v in range(NUM_NUMBERS):
        for _ in range(row[TOP_LEFT + o * BOOK + v]):
            row[deck_slot(row, o, i)] = v + 1
            i += 1


@njit(cache=True)
def resample_hidden(row, seat):
    """Redraw, from the row's PRNG, what `seat` cannot see, so that everything it has seen
    stays possible (docs/envs/double_or_nothing.md, "Hidden information and resampling"):

    1. the opponent's fresh hand cards of the numbers not pinned are pooled with the cards of
       those numbers left in their segment (TOP_LEFT), and the hand's share is dealt back
       uniformly from the pool;
    2. every segment of both decks is shuffled within itself.

    Kept: the contents of every segment (`seat` saw what went into each, except the hidden
    hand of an opponent that lost a hand, which stays as it was), the opponent's other hand
    cards (the segments they came from were drawn whole or partly in earlier hands) and the
    counts of its pinned numbers."""
    _redraw_fresh(row, 1 - seat)
    for p in range(2):
        i = 0
        size = row[SIZE + p]
        n = row[TOP_N + p]  # the rest of the segment last drawn from, then whole segments
        while i < size:
            if n == 0:
                n = segment_length(row, p, i)
            n = min(n, size - i)
            _shuffle_deck_span(row, p, i, i + n)
            i += n
            n = 0
