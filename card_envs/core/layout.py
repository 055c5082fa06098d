"""The header every engine's state row starts with.

Generic code (AEC env, batched kernels) reads whose turn it is and whether the game is over
from these fixed slots, so it never needs a game-specific call for that.
"""

RNG = 0  # four 32-bit words of xoshiro128** state: slots 0..3
PLAYER = 4  # seat to act next
STATUS = 5  # RUNNING, TERMINATED or TRUNCATED
NUM_PLAYERS = 6
TURN = 7  # actions taken in the current game
HISTORY = 8  # where the public-action history starts, 0 without one (`core.history`)
HEADER = 9  # first slot a game may use

RUNNING = 0
TERMINATED = 1
TRUNCATED = 2
