"""Shared combo kernels on bitmasks: runs of consecutive values, n-of-a-kind, colour groups.

Values are bit positions in an int64 mask (bit v set = value v held), so a run is a block of
consecutive set bits and its lowest card is a set bit whose lower neighbour is clear.
"""

from numba import njit


@njit(cache=True)
def run_starts(mask):
    """Mask of the lowest value of every run of consecutive values in `mask`."""
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
    return bit_value_sum(run_starts(mask))
