"""A greedy Rummidrez policy that reads only the observation and asks the exact solver.

Meld: place the cards of the largest valid addition to the table, one per step (before the
seat has opened: the largest part of the hand that forms groups by itself, if it has at least
7 cards). The policy keeps no state: every step solves again with the cards placed so far
required, and ends melding once nothing is left to place.
Draw: take the top k (k <= 4) of the discard pile when they let it meld at least k more
cards, or make the opening possible; else draw.
Discard: keep neutrals and the cards in groups of the hand; discard the card with the fewest
neighbours along its two lines (in hand and on the table), a spare copy first.
The draw and discard rules are the engine's `take_choice` and `discard_choice`, which also
make the env's `hints`: with them in the observation (hands up to `engine.HINT_MAX_HAND`
cards; any hand in solo) the policy plays the move the hint names instead of solving again,
the same move.

Solo (one seat): place the whole hand when it completes the table (the hand alone before
opening), else end melding: the score is the first deal prefix that forms a valid table, so
this reaches the best score of the shuffle with one validity check per step, or, with
`hints`, none: the solo hint is the engine's one check per phase (`FITS`), while
`max_placements` is at least the last hand.

The rule for neutrals at a group's ends (`neutral_at_ends`) is not in the observation; like
every rule of the game it is public, and the policy is given it with the game's config.
"""

import numpy as np

from card_envs.core.jit import njit
from card_envs.games.rummidrez import engine as k
from card_envs.games.rummidrez.solver import NUM_FIGURES, NUM_NUMBERS, best_addition, table_valid


@njit(cache=True)
def _add(obs, start, counts):
    """Add the 55 counts at obs[start:] to `counts` (6, 9); return the neutrals."""
    for c in range(k.NEUTRAL):
        counts[c // NUM_NUMBERS, c % NUM_NUMBERS] += int(obs[start + c] + 0.5)
    return int(obs[start + k.NEUTRAL] + 0.5)


@njit(cache=True)
def _draw(obs, masks, opened, table, table_n, hand, hand_n, ends, out):
    """`engine.take_choice` on the discard pile's top cards as the depths show them (a depth
    no figure card holds is a neutral's); `table` is empty before opening."""
    top = np.zeros(k.HINT_MAX_TAKE, dtype=np.int64)
    top_n = 0
    while top_n < k.HINT_MAX_TAKE and masks[k.TAKE + top_n]:
        top[top_n] = k.NEUTRAL
        for c in range(k.NEUTRAL):
            if obs[k.OBS_DEPTH + c] == top_n + 1 or obs[k.OBS_DEPTH2 + c] == top_n + 1:
                top[top_n] = c
        top_n += 1
    depth = k.take_choice(top, top_n, opened, table, table_n, hand, hand_n, ends, out)
    if depth > 0:
        return k.TAKE + depth - 1
    return k.DRAW if masks[k.DRAW] else k.TAKE


@njit(cache=True, inline="always")
def _meld(masks, opened, placed_n, req, req_n, hand, hand_n, ends, out):
    r = best_addition(req, req_n, hand, hand_n, ends, out)
    if r > 0 and (opened or placed_n + r >= k.OPEN_MIN):
        card = k.NEUTRAL
        for c in range(k.NEUTRAL):
            if out[c // NUM_NUMBERS, c % NUM_NUMBERS] > 0:
                card = c
                break
        if masks[k.PLACE + card]:
            return k.PLACE + card
    return k.END_MELD if masks[k.END_MELD] else k.UNDO


@njit(cache=True, inline="always")
def _solo_meld(masks, counts, neutrals, hand, ends):
    """Place a card of the hand when `counts` (all of it, with the table and the placed
    cards) is valid, else end melding."""
    if table_valid(counts, neutrals, ends):
        for f in range(NUM_FIGURES):
            for n in range(NUM_NUMBERS):
                if hand[f, n] > 0 and masks[k.PLACE + f * NUM_NUMBERS + n]:
                    return k.PLACE + f * NUM_NUMBERS + n
        if masks[k.PLACE + k.NEUTRAL]:
            return k.PLACE + k.NEUTRAL
    return k.END_MELD if masks[k.END_MELD] else k.UNDO


@njit(cache=True)
def _discard(masks, table, hand, hand_n, ends, out):
    """`engine.discard_choice` among the legal discards."""
    return k.DISCARD + k.discard_choice(masks[k.DISCARD :], table, hand, hand_n, ends, out)


@njit(cache=True, inline="always")
def _from_hint(o, hint_at, phase_at, masks):
    """The move the observation's hint names (it is this policy's own, see `engine.hint`)."""
    if o[phase_at + k.PHASE_DRAW] > 0.5:
        taken = 0
        for c in range(k.NUM_IDS):
            taken += int(o[hint_at + c] + 0.5)
        if taken > 0:
            return k.TAKE + taken - 1
        return k.DRAW if masks[k.DRAW] else k.TAKE
    if o[phase_at + k.PHASE_MELD] > 0.5:
        for c in range(k.NUM_IDS):
            if o[hint_at + c] > 0.5 and masks[k.PLACE + c]:
                return k.PLACE + c
        return k.END_MELD if masks[k.END_MELD] else k.UNDO
    for c in range(k.NUM_IDS):
        if o[hint_at + c] > 0.5:
            return k.DISCARD + c
    return -1


@njit(cache=True)
def heuristic_actions(obs, masks, out, num_players, ends, hinted):
    # the own opened flag and the phase, as `engine.obs_slices(num_players)` places them
    opened_at = k.OBS_KNOWN + k.NUM_IDS * (num_players - 1) + num_players - 1
    phase_at = opened_at + 3 * num_players
    hint_at = phase_at + 5  # with the env's `hints`, the engine has computed this policy's move
    hand = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    table = np.zeros_like(hand)
    req = np.zeros_like(hand)
    chosen = np.zeros_like(hand)
    for i in range(obs.shape[0]):
        o = obs[i]
        hand[:, :] = 0
        table[:, :] = 0
        req[:, :] = 0
        hand_n = _add(o, k.OBS_HAND, hand)
        if hinted and (num_players == 1 or hand.sum() + hand_n <= k.HINT_MAX_HAND):
            out[i] = _from_hint(o, hint_at, phase_at, masks[i])
            if out[i] >= 0:
                continue
        table_n = _add(o, k.OBS_TABLE, table)
        opened = o[opened_at] > 0.5
        if o[phase_at + k.PHASE_DRAW] > 0.5:
            if not opened:  # only the hand counts before opening
                table[:, :] = 0
                table_n = 0
            out[i] = _draw(o, masks[i], opened, table, table_n, hand, hand_n, ends, chosen)
        elif o[phase_at + k.PHASE_MELD] > 0.5:
            req_n = _add(o, k.OBS_PLACED, req)
            placed_n = req.sum() + req_n
            if opened:
                req_n += _add(o, k.OBS_TABLE, req)
            if num_players == 1:
                out[i] = _solo_meld(masks[i], req + hand, req_n + hand_n, hand, ends)
            else:
                out[i] = _meld(masks[i], opened, placed_n, req, req_n, hand, hand_n, ends, chosen)
        else:
            out[i] = _discard(masks[i], table, hand, hand_n, ends, chosen)
