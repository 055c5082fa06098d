"""No Thanks! engine: numba kernels over one int64 state row.

Row layout after the shared header (`core.layout`): config slots, the card on offer and its
pot, each seat's tokens and cards (a bitmask, bit v = card v), and the shuffled 33 cards:
the first 24 in draw order, the last 9 removed face down.
"""

import numpy as np

from card_envs.core import history, layout
from card_envs.core.combos import run_low_sum
from card_envs.core.jit import njit
from card_envs.core.rewards import share_win
from card_envs.core.rng import shuffle_slice, shuffle_sorted
from card_envs.core.segments import Segment

MAX_PLAYERS = 7
LOW_CARD, HIGH_CARD = 3, 35
NUM_CARDS = HIGH_CARD - LOW_CARD + 1  # 33
NUM_REMOVED = 9
NUM_PLAYED = NUM_CARDS - NUM_REMOVED  # 24
TAKE, NO_THANKS = 0, 1
REWARD_WIN, REWARD_SCORE = 0, 1

CFG_PUBLIC_TOKENS = layout.HEADER
CFG_REWARD = layout.HEADER + 1
CARD = layout.HEADER + 2  # card on offer, 0 when the game is over
POT = layout.HEADER + 3  # tokens on it
NEXT = layout.HEADER + 4  # index in DECK of the next card to turn up
TOKENS = layout.HEADER + 5  # MAX_PLAYERS slots
CARDS = TOKENS + MAX_PLAYERS  # MAX_PLAYERS bitmasks
DECK = CARDS + MAX_PLAYERS  # NUM_CARDS slots: draw order, then the removed cards
STATE_SIZE = DECK + NUM_CARDS

# observation: offer one-hot, pot, own tokens, every seat's cards (own first), then the
# other seats' tokens (public_tokens only), then the number of cards still to come
OBS_OFFER = 0
OBS_POT = NUM_CARDS
OBS_OWN_TOKENS = NUM_CARDS + 1
OBS_CARDS = NUM_CARDS + 2


OBS_SEGMENTS = (  # per-seat segments run from the observing seat on, in seat order
    Segment("offer", NUM_CARDS),  # the card on offer, one-hot
    Segment("pot", 1),
    Segment("own_tokens", 1),
    Segment("cards", NUM_CARDS, "all"),  # cards taken
    Segment("tokens", 1, "others", option="public_tokens"),
    Segment("left", 1),  # cards still to turn up
)


def obs_size(num_players: int, public_tokens: bool) -> int:
    config = {"num_players": num_players, "public_tokens": public_tokens}
    return sum(seg.size(config) for seg in OBS_SEGMENTS)


@njit(cache=True)
def starting_tokens(num_players):
    if num_players <= 5:
        return 11
    return 9 if num_players == 6 else 7


@njit(cache=True)
def card_points(mask, tokens):
    """Score of a hand: lowest card of every run, minus tokens (lower is better)."""
    return run_low_sum(mask) - tokens


@njit(cache=True)
def reset(row):
    history.clear(row)
    n = row[layout.NUM_PLAYERS]
    for k in range(NUM_CARDS):
        row[DECK + k] = LOW_CARD + k
    shuffle_slice(row, DECK, DECK + NUM_CARDS)
    row[CARD] = row[DECK]
    row[NEXT] = 1
    row[POT] = 0
    tokens = starting_tokens(n)
    for p in range(MAX_PLAYERS):
        row[TOKENS + p] = tokens if p < n else 0
        row[CARDS + p] = 0
    row[layout.PLAYER] = 0
    row[layout.STATUS] = layout.RUNNING
    row[layout.TURN] = 0


@njit(cache=True)
def outcome(row, scores, wins):
    """Points of every seat; the lowest score wins, ties share."""
    n = row[layout.NUM_PLAYERS]
    for p in range(n):
        scores[p] = card_points(row[CARDS + p], row[TOKENS + p])
    share_win(scores[:n], True, wins)


HISTORY_CODES = 2  # take, no thanks


@njit(cache=True)
def public_action(row, action):
    """The public code of `action` (`core.history`): both actions are seen by every seat."""
    return action


@njit(cache=True)
def step(row, action, rewards):
    history.record(row, public_action(row, action))
    p = row[layout.PLAYER]
    row[layout.TURN] += 1
    if action == NO_THANKS:
        row[TOKENS + p] -= 1
        row[POT] += 1
        row[layout.PLAYER] = (p + 1) % row[layout.NUM_PLAYERS]
        return
    row[CARDS + p] |= np.int64(1) << row[CARD]
    row[TOKENS + p] += row[POT]
    row[POT] = 0
    if row[NEXT] < NUM_PLAYED:  # the taker turns up the next card and acts again
        row[CARD] = row[DECK + row[NEXT]]
        row[NEXT] += 1
        return
    row[CARD] = 0
    row[layout.STATUS] = layout.TERMINATED
    n = row[layout.NUM_PLAYERS]
    final = np.zeros(n, dtype=np.float64)
    wins = np.zeros(n, dtype=np.float64)
    outcome(row, final, wins)
    for q in range(n):
        rewards[q] = wins[q] if row[CFG_REWARD] == REWARD_WIN else -final[q]


@njit(cache=True)
def legal(row, out):
    running = row[layout.STATUS] == layout.RUNNING
    out[TAKE] = 1 if running else 0
    out[NO_THANKS] = 1 if running and row[TOKENS + row[layout.PLAYER]] > 0 else 0


@njit(cache=True)
def observe(row, seat, out):
    n = row[layout.NUM_PLAYERS]
    out[:] = 0.0
    if row[CARD]:
        out[OBS_OFFER + row[CARD] - LOW_CARD] = 1.0
    out[OBS_POT] = row[POT]
    out[OBS_OWN_TOKENS] = row[TOKENS + seat]
    for k in range(n):
        mask = row[CARDS + (seat + k) % n]
        base = OBS_CARDS + NUM_CARDS * k - LOW_CARD
        for c in range(LOW_CARD, HIGH_CARD + 1):
            if (mask >> c) & 1:
                out[base + c] = 1.0
    pos = OBS_CARDS + NUM_CARDS * n
    if row[CFG_PUBLIC_TOKENS]:
        for k in range(1, n):
            out[pos] = row[TOKENS + (seat + k) % n]
            pos += 1
    out[pos] = NUM_PLAYED - row[NEXT]
    history.write(row, seat, out)


# --- conformance hooks ------------------------------------------------------------------------
INVARIANT_ERRORS = (
    "",
    "the deck slots are not a permutation of the cards 3..35",
    "the card on offer is not the last card turned up",
    "the seats' cards are not exactly the cards taken so far",
    "tokens are negative or not conserved",
    "a counter is out of range",
)


@njit(cache=True)
def check_invariants(row):
    """0 when the row obeys the conservation laws, else the index of the broken one in
    INVARIANT_ERRORS."""
    n = row[layout.NUM_PLAYERS]
    nxt = row[NEXT]
    running = row[layout.STATUS] == layout.RUNNING
    if not (
        1 <= nxt <= NUM_PLAYED
        and 0 <= row[layout.PLAYER] < n
        and (running or row[layout.STATUS] == layout.TERMINATED)
    ):
        return 5
    seen = np.int64(0)
    for j in range(NUM_CARDS):
        c = row[DECK + j]
        if c < LOW_CARD or c > HIGH_CARD or (seen >> c) & 1:
            return 1
        seen |= np.int64(1) << c
    if row[CARD] != (row[DECK + nxt - 1] if running else 0):
        return 2
    taken = np.int64(0)
    for j in range(nxt - 1 if running else NUM_PLAYED):
        taken |= np.int64(1) << row[DECK + j]
    union = np.int64(0)
    for p in range(MAX_PLAYERS):
        mask = row[CARDS + p]
        if union & mask or (p >= n and mask):
            return 3
        union |= mask
    if union != taken:
        return 3
    total = row[POT]
    for p in range(MAX_PLAYERS):
        t = row[TOKENS + p]
        if t < 0 or (p >= n and t):
            return 4
        total += t
    if row[POT] < 0 or total != n * starting_tokens(n):
        return 4
    return 0


@njit(cache=True)
def resample_hidden(row, seat):
    """Redraw what `seat` cannot know, from the row's PRNG: which of the unseen cards are still
    to come (and their order) and which were removed. Token counts stay: every pass and take
    is public, so a player who remembers the game knows them even when they are not shown."""
    shuffle_sorted(row, row[DECK + row[NEXT] : DECK + NUM_CARDS])
