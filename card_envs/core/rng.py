"""Per-row pseudo-random numbers: xoshiro128** kept in the state row itself.

Every value stays below 2**36 before masking, so the same code runs compiled and under
NUMBA_DISABLE_JIT=1 without overflow; no global RNG (numpy's or numba's) is ever used, so
seeding is per instance and reproducible.
"""

import numpy as np

from card_envs.core.jit import njit
from card_envs.core.layout import RNG

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1


def seed_words(seed: int) -> list[int]:
    """Expand any integer seed into four non-zero-state 32-bit words (splitmix64)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {seed!r}")
    x = int(seed) & _M64
    words = []
    for _ in range(2):
        x = (x + 0x9E3779B97F4A7C15) & _M64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        z ^= z >> 31
        words += [z & _M32, z >> 32]
    if not any(words):
        words[0] = 1
    return words


def seed_row(row: np.ndarray, seed: int) -> None:
    """Write the PRNG state for `seed` into a state row."""
    row[RNG : RNG + 4] = seed_words(seed)


@njit(cache=True)
def _rotl(x, k):
    return ((x << k) | (x >> (32 - k))) & _M32


@njit(cache=True)
def next_u32(row):
    """Advance the row's generator; return 32 random bits."""
    s0 = row[RNG]
    s1 = row[RNG + 1]
    s2 = row[RNG + 2]
    s3 = row[RNG + 3]
    result = (_rotl((s1 * 5) & _M32, 7) * 9) & _M32
    t = (s1 << 9) & _M32
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 11)
    row[RNG] = s0
    row[RNG + 1] = s1
    row[RNG + 2] = s2
    row[RNG + 3] = s3
    return result


@njit(cache=True)
def below(row, n):
    """Uniform integer in [0, n) for 1 <= n < 2**31, without modulo bias (Lemire)."""
    threshold = (0x100000000 - n) % n
    while True:
        m = next_u32(row) * n
        if (m & _M32) >= threshold:
            return m >> 32


@njit(cache=True)
def shuffle_slice(row, lo, hi):
    """Fisher-Yates shuffle of row[lo:hi] in place, drawing from the row's own generator."""
    for i in range(hi - 1, lo, -1):
        j = lo + below(row, i - lo + 1)
        tmp = row[i]
        row[i] = row[j]
        row[j] = tmp


@njit(cache=True)
def shuffle_sorted(row, values):
    """Sort `values` (an int64 array, e.g. a slice of `row`), then Fisher-Yates shuffle it
    with the row's generator: the result depends only on which values there are and on the
    PRNG, not on the order they came in. `resample_hidden` redraws with it, so that a redraw
    does not carry the hidden order it started from: an information-set search then plays
    the same from every row a seat cannot tell apart.

    The sort is a Shell sort written out: numba's `values.sort()` compiles its quicksort,
    most of a second in every new process, for arrays of at most a deck of cards."""
    n = len(values)
    gap = 1
    while gap < n // 3:
        gap = 3 * gap + 1
    while gap > 0:
        for i in range(gap, n):
            v = values[i]
            j = i
            while j >= gap and values[j - gap] > v:
                values[j] = values[j - gap]
                j -= gap
            values[j] = v
        gap //= 3
    for i in range(len(values) - 1, 0, -1):
        j = below(row, i + 1)
        tmp = values[i]
        values[i] = values[j]
        values[j] = tmp
