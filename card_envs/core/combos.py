"""Shared combo kernels on bitmasks: runs of consecutive values, n-of-a-kind, colour groups.

Values are bit positions in an int mask (bit v set = value v held), so a run is a block of
consecutive set bits. Cards of coloured decks are kept as one 12-bit value mask per colour
plus a count per value; every question below is a few shifts and ands on those, never an
enumeration of subsets.

Card ids for the coloured deck: `colour * 12 + (value - 1)`, colour 0..6, value 1..12.
"""

import numpy as np

from card_envs.core.jit import njit

NUM_COLOURS = 7
NUM_VALUES = 12

HIGH_CARDS, STRAIGHT, FLUSH, OF_A_KIND, STRAIGHT_FLUSH = 0, 1, 2, 3, 4
CATEGORY_NAMES = ("high_cards", "straight", "flush", "of_a_kind", "straight_flush")
NONE, HALF, FULL = 0, 1, 2  # how a card counts in the best combo (see `combo_flags`)


# --- bit primitives ---------------------------------------------------------------------------
@njit(cache=True)
def popcount16(x):
    """Number of set bits of a mask below 2**16."""
    x = x - ((x >> 1) & 0x5555)
    x = (x & 0x3333) + ((x >> 2) & 0x3333)
    x = (x + (x >> 4)) & 0x0F0F
    return (x + (x >> 8)) & 0x1F


@njit(cache=True)
def highest_bit16(x):
    """Index of the highest set bit of 0 < x < 2**16."""
    r = 0
    if x >= 0x100:
        x >>= 8
        r += 8
    if x >= 0x10:
        x >>= 4
        r += 4
    if x >= 0x4:
        x >>= 2
        r += 2
    if x >= 0x2:
        r += 1
    return r


@njit(cache=True)
def run_lows(mask):
    """Mask of the lowest value of every maximal run of consecutive values in `mask`."""
    return mask & ~(mask << 1)


@njit(cache=True)
def bit_value_sum(mask):
    """Sum of the positions of the set bits of a non-negative mask."""
    total = 0
    pos = 0
    while mask:
        if mask & 1:
            total += pos
        mask >>= 1
        pos += 1
    return total


@njit(cache=True)
def run_low_sum(mask):
    """Sum of the lowest value of every run (No Thanks card points)."""
    return bit_value_sum(run_lows(mask))


@njit(cache=True)
def windows(mask, length):
    """Mask of the lowest bit of every window of `length` consecutive set bits of `mask`."""
    r = mask
    for i in range(1, length):
        r &= mask >> i
    return r


@njit(cache=True)
def top_bits(mask, k):
    """The `k` highest set bits of `mask` (which has at least k)."""
    for _ in range(popcount16(mask) - k):
        mask &= mask - 1
    return mask


# --- coloured tables ------------------------------------------------------------------------
@njit(cache=True)
def table_masks(cards, colour_masks, counts):
    """Fill per-colour value masks (bit v-1 = value v) and per-value counts from card ids;
    negative ids are padding."""
    colour_masks[:] = 0
    counts[:] = 0
    for c in cards:
        if c >= 0:
            colour_masks[c // NUM_VALUES] |= 1 << (c % NUM_VALUES)
            counts[c % NUM_VALUES] += 1


@njit(cache=True)
def _push(score, value):
    return score * 13 + value


@njit(cache=True)
def _run_score(category, top, k):
    s = category
    for i in range(k):
        s = _push(s, top - i)
    return s


@njit(cache=True)
def _mask_score(category, mask):
    """Category then the values of `mask`'s bits, high to low."""
    s = category
    while mask:
        b = highest_bit16(mask)
        s = _push(s, b + 1)
        mask &= ~(1 << b)
    return s


@njit(cache=True)
def best_score(colour_masks, counts, k):
    """Score of the best k-card combo: category, then the k values high to low, in base 13.

    Larger is stronger; two tables score the same exactly when their best combos have the
    same category and values (an unresolvable tie). Categories are tried strongest first.
    """
    all_values = 0
    best = -1
    for col in range(NUM_COLOURS):
        m = colour_masks[col]
        all_values |= m
        w = windows(m, k)
        if w:
            best = max(best, highest_bit16(w))
    if best >= 0:
        return _run_score(STRAIGHT_FLUSH, best + k, k)
    for v in range(NUM_VALUES - 1, -1, -1):
        if counts[v] >= k:
            s = OF_A_KIND
            for _ in range(k):
                s = _push(s, v + 1)
            return s
    flush = 0
    for col in range(NUM_COLOURS):
        m = colour_masks[col]
        if popcount16(m) >= k:
            flush = max(flush, top_bits(m, k))
    if flush:
        return _mask_score(FLUSH, flush)
    w = windows(all_values, k)
    if w:
        return _run_score(STRAIGHT, highest_bit16(w) + k, k)
    s = HIGH_CARDS
    need = k
    for v in range(NUM_VALUES - 1, -1, -1):
        for _ in range(min(need, counts[v])):
            s = _push(s, v + 1)
        need -= min(need, counts[v])
    return s


@njit(cache=True)
def score_category(score, k):
    return score // 13**k


@njit(cache=True)
def _mark_colours(match, bits, full_masks, half_masks):
    """Mark `bits` of every matching colour: full if only one colour matches, else half."""
    count = 0
    for col in range(NUM_COLOURS):
        if match[col]:
            count += 1
    for col in range(NUM_COLOURS):
        if match[col]:
            if count == 1:
                full_masks[col] = bits
            else:
                half_masks[col] = bits


@njit(cache=True)
def best_members(colour_masks, counts, k, full_masks, half_masks):
    """Which cards count in the best combo, as per-colour masks; returns the score.

    With B = every k-card subset that reaches the best (category, values): a card in every
    member of B is full, a card in some but not all is half.
    """
    score = best_score(colour_masks, counts, k)
    category = score_category(score, k)
    full_masks[:] = 0
    half_masks[:] = 0
    match = np.zeros(NUM_COLOURS, dtype=np.bool_)
    if category == STRAIGHT_FLUSH or category == STRAIGHT:
        top = score % 13  # lowest value of the run
        window = ((1 << k) - 1) << (top - 1)
        if category == STRAIGHT_FLUSH:
            for col in range(NUM_COLOURS):
                match[col] = (colour_masks[col] & window) == window
            _mark_colours(match, window, full_masks, half_masks)
        else:
            for col in range(NUM_COLOURS):
                for v in range(NUM_VALUES):
                    bit = 1 << v
                    if window & colour_masks[col] & bit:
                        if counts[v] == 1:
                            full_masks[col] |= bit
                        else:
                            half_masks[col] |= bit
    elif category == OF_A_KIND:
        v = score % 13 - 1
        for col in range(NUM_COLOURS):
            bit = colour_masks[col] & (1 << v)
            if counts[v] == k:
                full_masks[col] = bit
            else:
                half_masks[col] = bit
    elif category == FLUSH:
        flush = 0
        s = score
        for _ in range(k):
            flush |= 1 << (s % 13 - 1)
            s //= 13
        for col in range(NUM_COLOURS):
            m = colour_masks[col]
            match[col] = popcount16(m) >= k and top_bits(m, k) == flush
        _mark_colours(match, flush, full_masks, half_masks)
    else:
        need = k
        for v in range(NUM_VALUES - 1, -1, -1):
            if need == 0:
                break
            take = min(need, counts[v])
            for col in range(NUM_COLOURS):
                bit = colour_masks[col] & (1 << v)
                if take == counts[v]:
                    full_masks[col] |= bit
                else:
                    half_masks[col] |= bit
            need -= take
    return score


@njit(cache=True)
def combo_flags(cards, k, flags):
    """FULL, HALF or NONE for every card id of `cards` in the best k-card combo; returns
    the score."""
    colour_masks = np.zeros(NUM_COLOURS, dtype=np.int64)
    counts = np.zeros(NUM_VALUES, dtype=np.int64)
    full_masks = np.zeros(NUM_COLOURS, dtype=np.int64)
    half_masks = np.zeros(NUM_COLOURS, dtype=np.int64)
    table_masks(cards, colour_masks, counts)
    score = best_members(colour_masks, counts, k, full_masks, half_masks)
    for i in range(cards.shape[0]):
        c = cards[i]
        flags[i] = NONE
        if c >= 0:
            bit = 1 << (c % NUM_VALUES)
            if full_masks[c // NUM_VALUES] & bit:
                flags[i] = FULL
            elif half_masks[c // NUM_VALUES] & bit:
                flags[i] = HALF
    return score


@njit(cache=True)
def _best_combo_scores(tables, k, out):
    colour_masks = np.zeros(NUM_COLOURS, dtype=np.int64)
    counts = np.zeros(NUM_VALUES, dtype=np.int64)
    for i in range(tables.shape[0]):
        table_masks(tables[i], colour_masks, counts)
        out[i] = best_score(colour_masks, counts, k)


def best_combo_scores(tables, k: int) -> np.ndarray:
    """Best k-card combo score of every table (rows of card ids padded with -1).

    Larger is stronger; equal scores are exactly the unresolvable ties (same category and
    same k values). `score // 13**k` is the category index into CATEGORY_NAMES.
    """
    tables = np.ascontiguousarray(tables, dtype=np.int64)
    if tables.ndim != 2:
        raise ValueError(f"tables must be 2-D (n, m), got shape {tables.shape}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 2 <= k <= NUM_VALUES:
        raise ValueError(f"k must be an int in 2..{NUM_VALUES}, got {k!r}")
    if tables.size and (tables.max() >= NUM_COLOURS * NUM_VALUES or tables.min() < -1):
        raise ValueError("card ids must be in 0..83 (or -1 for padding)")
    out = np.empty(tables.shape[0], dtype=np.int64)
    _best_combo_scores(tables, int(k), out)
    return out


def decode_score(score: int, k: int) -> tuple[str, tuple[int, ...]]:
    """(category name, the k values high to low) of a score."""
    values = []
    for _ in range(k):
        values.append(score % 13)
        score //= 13
    return CATEGORY_NAMES[score], tuple(reversed(values))


# --- range plays over value counts (climbing games) --------------------------------------------
@njit(cache=True)
def range_copies(counts, lo, hi):
    """Copies a play of every value lo..hi is forced to: the smallest count among them
    (counts[v - 1] holds value v); 0 when a value in the range is missing."""
    copies = counts[lo - 1]
    for v in range(lo + 1, hi + 1):
        copies = min(copies, counts[v - 1])
    return copies


@njit(cache=True)
def range_strength(copies, lo, hi):
    """Order key of a range play: more cards, then more distinct values, then a higher top."""
    size = hi - lo + 1
    return (copies * size * 64 + size) * 64 + hi


@njit(cache=True)
def range_play_keys(counts, beat, out):
    """For every range lo..hi of the values (numbered by lo, then hi), its play's strength
    if it can be played from `counts` and beats `beat` (-1 to beat nothing), else -1."""
    n = counts.shape[0]
    a = 0
    for lo in range(1, n + 1):
        copies = counts[lo - 1]
        for hi in range(lo, n + 1):
            copies = min(copies, counts[hi - 1])
            key = range_strength(copies, lo, hi) if copies > 0 else -1
            out[a] = key if key > beat else -1
            a += 1
