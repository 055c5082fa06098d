"""Super Zwierzaki's state row: the slots after the shared header (`core.layout`), the
action ids, the codes the slots hold (card functions, decisions and their purposes, reaction
windows, effects, counters) and the observation's caps.

Row layout after the header: config, the given colour and class masks, the four counters and
the demand, turn bookkeeping, the duel, pile sizes, per seat the game number, lost turns,
hand sizes (and their values at the last call check) and the hand's counts per kind, the two
piles, the decision stack, the effect queue, the two-War hand choices, and what other seats
may know of each hand (for `resample_hidden`).

Plain Python and numpy: the kernels of the other modules read these as compile-time
constants, so a change here needs the game's numba cache cleared (see `engine`).
"""

import numpy as np

from card_envs.core import layout
from card_envs.games.super_zwierzaki.deck import (
    CLASSES,
    KIND_COPIES,
    KIND_FUNCTION,
    NUM_CARDS,
    NUM_KINDS,
)

MAX_PLAYERS = 12
HAND_SIZE = 5
NUM_COLOURS = 9
NUM_CLASSES = len(CLASSES)
ANY_COLOUR = (1 << NUM_COLOURS) - 1  # a Wielka 5's colour mask
MAX_COPIES = 5

# function codes, as deck.KIND_FUNCTION
F_RED, F_ORC, F_OTH, F_GIV, F_ALL, F_POL, F_KAZ = 1, 2, 3, 4, 5, 6, 7
F_WAR, F_CCH, F_MCH, F_DEM, F_STP, F_DZI, F_CYR = 8, 9, 10, 11, 12, 13, 14

# actions
KIND = 0
COPIES = NUM_KINDS
COLOUR = COPIES + MAX_COPIES
SEAT = COLOUR + NUM_COLOURS
DRAW = SEAT + MAX_PLAYERS
PASS = DRAW + 1
NINE = PASS + 1
CALL = NINE + 1
NUM_ACTIONS = CALL + 1

# decisions; their context slots a..d say
D_TURN = 0
D_COPIES = 1  # a: the kind
D_COLOUR = 2
D_NAME = 3
D_SEAT = 4  # a: purpose (S_*), b..d: see each purpose
D_PICK = 5  # a: purpose (P_*), b: cards left to pick, c: the receiving seat
D_NINE = 6  # a: colours laid (mask), b: cards laid
D_REACT = 7  # a: window (W_*), b: the seat whose play or win it is, c: the asker's place
D_DUEL = 8
D_CALL = 9
D_DRAWN = 10  # a: the kind drawn
DECISION_NAMES = (
    "turn", "copies", "colour", "name", "seat", "pick", "nine", "react", "duel", "call", "drawn",
)  # fmt: skip
S_GIVE, S_NINE_TO, S_WAR_A, S_WAR_B, S_WAR2_GIVER, S_WAR2_RECEIVER, S_WAR2_HAND = range(7)
P_DISCARD, P_GIVE, P_KEEP = 0, 1, 2
W_PLAY, W_WIN, W_NINE = 0, 1, 2
# effects: (code, seat, a, b)
E_ADD, E_COLOUR, E_NAME, E_REVERSE, E_ZERO_RED, E_RESET, E_DUEL = 0, 1, 2, 3, 4, 5, 6
E_DISCARD, E_GIVE, E_KEEP_ONE, E_WAR, E_WAR2, E_OTH_DRAW, E_NINE_GIVE = 7, 8, 9, 10, 11, 12, 13
C_RED, C_ORC, C_GREEN, C_DEMAND = 0, 1, 2, 3

D_WIDTH = 6  # what, seat, a, b, c, d
STACK_DEPTH = 40
E_WIDTH = 4
QUEUE_CAP = 64
QUEUE_START = QUEUE_CAP // 2  # room for effects put in front (an Oth duel's draws)

CFG_EXPLICIT_CALL = layout.HEADER
CFG_SKIP_FORCED = CFG_EXPLICIT_CALL + 1
CFG_PLAY_DRAWN = CFG_SKIP_FORCED + 1
CFG_MAX_TURNS = CFG_PLAY_DRAWN + 1
GIVEN_COLOURS = CFG_MAX_TURNS + 1  # mask of the nine colours
GIVEN_CLASSES = GIVEN_COLOURS + 1  # mask of the twenty classes
COUNTERS = GIVEN_CLASSES + 1  # red, orc, green, demand
DEMAND_KIND = COUNTERS + 4
DEMAND_BY = DEMAND_KIND + 1
TURN_SEAT = DEMAND_BY + 1  # the seat whose turn it is
TURNS = TURN_SEAT + 1  # turns played, lost ones included
WINNER = TURNS + 1
ENDING = WINNER + 1  # 1 while the turn's win rounds are under way
ASKED = ENDING + 1  # mask of the seats whose win round this turn end held
DUEL_ON = ASKED + 1
DUEL_FN = DUEL_ON + 1
DUEL_POINTS = DUEL_FN + 1
DUEL_FOLDED = DUEL_POINTS + 1  # mask
DRAW_N = DUEL_FOLDED + 1
DISCARD_N = DRAW_N + 1
NUMBERS = DISCARD_N + 1  # MAX_PLAYERS game numbers
LOST = NUMBERS + MAX_PLAYERS  # turns still to lose
SIZES = LOST + MAX_PLAYERS  # hand sizes at the last call check
HAND_N = SIZES + MAX_PLAYERS
# what nearly every step reads comes first, close together (the batched env's rows are
# apart in memory, so each region a step touches costs it a trip to memory)
STACK_N = HAND_N + MAX_PLAYERS
STACK = STACK_N + 1
QUEUE_HEAD = STACK + STACK_DEPTH * D_WIDTH
QUEUE_N = QUEUE_HEAD + 1
QUEUE = QUEUE_N + 1
PERM = QUEUE + QUEUE_CAP * E_WIDTH  # two War: the hands chosen, seat by seat
RESHUFFLED = PERM + MAX_PLAYERS  # 1 once the discard pile became the draw pile
PLAYED = RESHUFFLED + 1  # copies per kind in the discard pile
HANDS = PLAYED + NUM_KINDS  # MAX_PLAYERS x NUM_KINDS counts
DRAW_PILE = HANDS + MAX_PLAYERS * NUM_KINDS  # the next card drawn is the last
DISCARD_PILE = DRAW_PILE + NUM_CARDS  # bottom to top
# What another seat may know of a hand, for `resample_hidden`: per seat and kind, the copies
# it holds that are FIXED (given to it, or in a hand it took over: their giver knows them)
# and those LATE (drawn from the draw pile since its latest refill, whose make-up was public);
# the rest of a hand was drawn unseen before that refill. A card leaving a hand is counted
# out of FIXED first, then LATE (copies of a kind are alike, so any order is a true story).
FIXED = DISCARD_PILE + NUM_CARDS  # MAX_PLAYERS x NUM_KINDS
LATE = FIXED + MAX_PLAYERS * NUM_KINDS  # MAX_PLAYERS x NUM_KINDS
STATE_SIZE = LATE + MAX_PLAYERS * NUM_KINDS


def _answers_table() -> np.ndarray:
    """[counter, kind]: the kind answers the counter at the start of a turn, with no colour
    or class needed (for demand, the demanded kind answers too)."""
    table = np.zeros((4, NUM_KINDS), dtype=np.int8)
    f = KIND_FUNCTION
    table[C_RED] = (f == F_CYR) | (f == F_RED) | (f == F_ALL)
    table[C_ORC] = (f == F_CYR) | (f == F_ORC)
    table[C_GREEN] = (f == F_CYR) | (f == F_STP)
    table[C_DEMAND] = (f == F_CYR) | (f == F_DEM)
    return table


ANSWERS = _answers_table()


def _copies(function: int) -> int:
    """The cards of a function in the deck."""
    return int(KIND_COPIES[KIND_FUNCTION == function].sum())


def _most_copies(function: int) -> int:
    """The most copies of one kind of a function: the most of them one play lays."""
    return int(KIND_COPIES[KIND_FUNCTION == function].max())


# The observation's caps: the points of every card of a function played once (red, orc,
# green, demand), a duel with every Oth (or Giv) card and every Red in it, the turns lost to
# every Stp. Cards drawn while a chain or a duel runs (a call not made, a win stopped) can
# come again from a refilled draw pile, so play can pass the caps, bounded only by the
# game's length: `observe` saturates these counts. One action adds at most a play of the most
# copies of a kind to a counter (`COUNTER_PER_ACTION`), a Red's 2 points to a duel, and lost
# turns come from green points: `positions` bounds what it loads with these.
COUNTER_HIGH = np.array([2 * _copies(F_RED), 3 * _copies(F_ORC), _copies(F_STP), _copies(F_DEM)])
COUNTER_PER_ACTION = np.array(
    [2 * _most_copies(F_RED), 3 * _most_copies(F_ORC), _most_copies(F_STP), _most_copies(F_DEM)]
)
DUEL_HIGH = max(_copies(F_OTH), _copies(F_GIV)) + 2 * _copies(F_RED)
DUEL_PER_ACTION = 2  # a Red
LOST_HIGH = _copies(F_STP)
