"""Exact table solver for Rummidrez: do these cards split into valid groups?

Cards sit on a 6 x 9 grid: figure f (0 Pawn .. 5 Joker, the Joker a normal figure) and number
n (1..9, the number fixes the colour); card id `f * 9 + n - 1` (0..53), the neutral card 54.
A multiset of cards is `counts` of shape (6, 9) (`counts[f][n - 1]` copies, 0..2) plus a
number of neutrals (0..4).

Groups (the Rummidrez rulings):
- figure group: one figure, consecutive numbers, 3..9 cards; colour group: one number,
  consecutive figures, 3..6 cards; no wrap-around, no card twice in a group;
- a neutral fills one grid position of a group; by default only strictly between two real
  cards of it, so a group starts and ends with real cards (neutrals may be adjacent). With
  `neutral_at_ends`, neutrals may also lie beyond the outermost real cards, on the grid,
  several on one side too (N, N, Pawn 3 and N, Pawn 2, N are groups): a group then needs just
  one real card;
- neutrals count as cards for the lengths; a table is valid when every card, every neutral
  included, lies in a group.

Method: dynamic programming over the 54 cells, column by column (numbers 1..9), figure by
figure inside a column. A group is followed along its *core*, from its first to its last real
card. The state between two cells holds, for every figure row, the figure groups open across
the column boundary and, for the current column, the colour groups open across the row
boundary, each reduced to its class under the rules' future (a minimal automaton):
- without end neutrals: A = one real card, B = two positions, or three or more ending in a
  neutral (both need one more position and must end on a real card), C = three or more
  ending on a real card (may end here); a real card makes A -> B -> C, C -> C, a neutral makes
  everything B;
- with end neutrals: lengths 1, 2, >= 3 ending on a real card (each may end: a short core
  takes 2 or 1 end neutrals), and T = ending in an inner neutral (must go on to a real card);
  a real card makes 1 -> 2 -> 3, 3 -> 3, T -> 3, a neutral makes everything T;
plus the neutrals used so far. Groups of one line in the same class are interchangeable. At
a cell the real copies and any neutrals placed there extend open groups or start new ones,
and the groups not extended end. End neutrals are never placed one by one: a core of c
positions needs max(0, 3 - c) of them and has room for s + (L - 1 - e) (s, e its first and
last position in a line of L), so a set of cores takes E end neutrals exactly when
sum(needs) <= E <= sum(rooms); the state keeps both sums (rooms capped at the neutrals),
each room counted in two parts, s when the core starts and L - 1 - e when it ends.

The search is depth-first with an explicit stack (numba's cache cannot hold recursive
functions) and memoises every state's value in an open-addressing table; it stops at the
first complete partition (validity) or when the best value meets its upper bound. Only
exact reductions: successors that are dominated by another successor of the same cell are
not generated (a real card is worth more to a longer group; ending a C group while starting
another in the same line is worse than extending it, when no end-neutral room is wanted), and
a state is dropped when a lower bound on the neutrals still needed exceeds those left: the
positions its open groups must still take where no copy is, and, for the cards of the columns
ahead, the holes of their cheapest groups, summed over cards in distinct rows and columns.
In a validity check that takes more than the first rounds of states, a state is also dropped
when the memo knows that a state dominating it fails: the same with one open group in a
better class (A < B < C; 1 < 2 < 3 and T < 2 with end neutrals) or one more group that may
end there.

Kernels (njit, callable from other njit code; their Python wrappers, which validate and
convert, are in `groups`):
- `table_valid(counts, neutrals, neutral_at_ends) -> bool`
- `best_addition(table, table_neutrals, hand, hand_neutrals, neutral_at_ends, out) -> int`:
  the largest number of hand cards (neutrals included) that can join the table so that
  table + those cards is valid, the chosen real copies written to `out` (6, 9) (the chosen
  neutrals are the result minus `out.sum()`), or -1 if the table alone is invalid. With an
  empty table: the largest part of the hand that forms valid groups by itself (the opening
  meld needs >= 7).
- `partition_trace(counts, neutrals, neutral_at_ends, trace) -> bool`: the decisions of one
  partition, turned into groups by `groups.table_partition`.
Kernel inputs must be in range (copies 0..2 per card, table and hand together; neutrals
0..4 in all); the kernels do not check.

The small helpers are `inline="always"` (inlined in numba's IR): each compiled function
links and compiles its callees again, so fewer of them compile faster, and inlined they run
about 8% faster. The large ones stay separate: inlined, they made the cold compile longer.
`_search` and `_solve` are boundaries (`core.jit.boundary`): compiled once, when this module
is imported, and called through a symbol by the engine's kernels rather than copied into
each of them (a cold Rummidrez env compiles in 16 s instead of 19).
"""

from __future__ import annotations

import numpy as np

from card_envs.core.jit import boundary, njit

NUM_FIGURES = 6
NUM_NUMBERS = 9
NUM_CELLS = NUM_FIGURES * NUM_NUMBERS  # 54 figure cards, ids 0..53
NEUTRAL = 54
COPIES = 2
MAX_NEUTRALS = 4
FIGURE_NAMES = ("Pawn", "Knight", "Bishop", "Rook", "Queen", "Joker")

_NEG = -(1 << 20)  # no partition
_MISSING = _NEG - 1  # not in the memo
_MEMO_START = 1 << 11  # initial memo slots (x4 and a restart when half full)
_BUF_START = 256  # initial successor rows (doubled when short)
_OPTS = 256  # options per line at one cell (at most 126 can occur)

# classes of open groups (see the module docstring); without end neutrals 0 = A, 1 = B,
# 2 = C and 3 is unused; with them 0, 1, 2 = lengths 1, 2, >= 3 ending on a real card, 3 = T
_FULL = 2  # the class that may end without end neutrals

# the key of one line: (class 0, class 2) counts, at most 2 together (each ends on its own
# copy of one card), without end neutrals; (classes 0, 1, 2) with them
_PAIR = np.full(9, -1, dtype=np.int64)
_TRIPLE = np.full(27, -1, dtype=np.int64)
_i = 0
for _c2 in range(3):
    for _c0 in range(3 - _c2):
        _PAIR[_c0 + 3 * _c2] = _i
        _i += 1
_i = 0
for _c2 in range(3):
    for _c1 in range(3 - _c2):
        for _c0 in range(3 - _c2 - _c1):
            _TRIPLE[_c0 + 3 * _c1 + 9 * _c2] = _i
            _i += 1

# per-line options at a cell: reals, neutrals, end neutrals needed, groups ended, a C group
# ended (0/1), the 4 class counts after, and the choice (packed)
_O_REAL, _O_NEUT, _O_NEED, _O_ENDED, _O_FULL, _O_OUT, _O_PICK = 0, 1, 2, 3, 4, 5, 9
_O_WIDTH = 10

# successor rows: the figure row's 4 class counts after the cell, the colour column's, then
_S_U = 8  # optional copies used
_S_DNU = 9  # inner neutrals placed at the cell
_S_NEED = 10  # end neutrals needed, in all
_S_ROOM = 11  # room for end neutrals, in all (capped)
_S_PICKH = 12  # choices in the figure row: ended per class, real copies to class 0 and others
_S_PICKV = 13  # the same in the colour column
_S_NEWH = 14  # new figure groups
_S_NEWV = 15  # new colour groups
_S_LACK = 16  # lower bound on the neutrals the next state needs (`_lack`)
_S_WIDTH = 17

# frames of the depth-first walk
_F_CELL, _F_KEY, _F_START, _F_END, _F_IDX, _F_BEST, _F_BOUND = 0, 1, 2, 3, 4, 5, 6
_F_NU, _F_NEED, _F_ROOM, _F_SAVE = 7, 8, 9, 10  # state on entry, SAVE: 8 counts
_F_MONO = 18  # 1 if the frame's key is a monotone one (see `_search`)
_F_WIDTH = 19

# meta: totals and flags, the memo's fill, and the portfolio of orientations (below)
_M_NTOT, _M_REQN, _M_ENDS, _M_CAP, _M_COUNT, _M_OVER, _M_MASK, _M_STATES = range(8)
_M_ORIENT, _M_LIMIT, _M_ABORT, _M_MONO, _M_SPENT = 8, 9, 10, 11, 12  # SPENT: 4 slots
_M_DOMINANCE = 16  # the round budget from which `_dominated` is asked
_M_WIDTH = 17
_BUDGET = 256  # states per orientation in the first round (doubled every round)
_ORDER = (0, 3, 1, 2)  # orientations in the order they are tried
_DOMINANCE_FROM = 1024  # the round budget from which `_dominated` is asked, for a validity
# check only: it costs more than it saves on the tables that take fewer states, and on the
# searches for the largest addition (whose states seldom fail)

# trace rows (one per cell) of a partition: the successor taken there (`groups` decodes them)
T_U, T_PICKH, T_PICKV, T_NEWH, T_NEWV = 0, 1, 2, 3, 4
T_WIDTH = 5


@njit(cache=True, inline="always")
def _restore(st, saved):
    """st[:, :] = saved, as a loop: an array assignment compiles numba's shape-error
    message (its string formatting) into every library that links the solver."""
    for r in range(st.shape[0]):
        for k in range(st.shape[1]):
            st[r, k] = saved[r, k]


@njit(cache=True, inline="always")
def _mix(key):
    x = key ^ (key >> 23) ^ (key >> 41)
    x = (x & 0x3FFFFFFF) * 0x9E3779B1
    return x >> 12


@njit(cache=True, inline="always")
def _pack(st, ends, nu, need, room, cell):
    """Exact key of a state: per line (6 figure rows, the colour column) a code below 64."""
    key = 0
    for p in range(7):
        if ends:
            code = _TRIPLE[st[p, 0] + 3 * st[p, 1] + 9 * st[p, 2]] * 5 + st[p, 3]
        else:
            code = _PAIR[st[p, 0] + 3 * st[p, 2]] * 7 + st[p, 1]
        key = key * 64 + code
    return (((key * 8 + nu) * 8 + need) * 8 + room) * 64 + cell + 1


@njit(cache=True, inline="always")
def _lookup(keys, vals, meta, key):
    mask = meta[_M_MASK]
    h = _mix(key) & mask
    while keys[h] != 0:
        if keys[h] == key:
            return vals[h]
        h = (h + 1) & mask
    return _MISSING


@njit(cache=True, inline="always")
def _store(keys, vals, meta, key, value):
    mask = meta[_M_MASK]
    if 2 * (meta[_M_COUNT] + 1) > mask + 1:
        meta[_M_OVER] = 1
        return
    h = _mix(key) & mask
    while keys[h] != 0 and keys[h] != key:
        h = (h + 1) & mask
    if keys[h] == 0:
        meta[_M_COUNT] += 1
    keys[h] = key
    vals[h] = value


@njit(cache=True, inline="always")
def _idle(st, cc, cell):
    """Nothing can happen at `cell`: no copy there and no open group to continue."""
    f = cell % NUM_FIGURES
    if cc[0, cell] + cc[1, cell] > 0:
        return False
    for k in range(4):
        if st[f, k] + st[6, k] > 0:
            return False
    return True


@njit(cache=True, inline="always")
def _skip(st, cc, cell):
    while cell < NUM_CELLS and _idle(st, cc, cell):
        cell += 1
    return cell


@njit(cache=True)
def _span(cc, ends, line, start, size, k, need, at):
    """Mark in need[at + q] the positions q of a line (figure row `line` < 6, else colour
    column `line - 6`) that an open group of class `k` must still take from `start` on: the
    length it lacks and, when it must end on a real card, on to the next position with a
    copy. Returns the positions it lacks beyond the grid (end neutrals at its other end), or
    -1 if it cannot be completed."""
    if k == 2:
        return 0
    end = start if k >= 1 else start + 1
    to_real = k == 3 or not ends
    if to_real:
        if end >= size:
            return -1
        while True:
            cell = end * NUM_FIGURES + line if line < 6 else (line - 6) * NUM_FIGURES + end
            if cc[0, cell] + cc[1, cell] > 0:
                break
            end += 1
            if end >= size:
                return -1
    beyond = 0
    if end >= size:
        beyond = end - size + 1
        end = size - 1
    for q in range(start, end + 1):
        need[at + q] += 1
    return beyond


@njit(cache=True)
def _lack(st, cc, meta, cell, work):
    """A lower bound on the neutrals still needed by the state before `cell` (1 << 10 when
    it cannot be completed): the cards of the columns ahead need at least `cc[3, column]`
    (`_cover_bounds`), and the open groups need every position they must still take
    (`_span`) where there is no copy."""
    f = cell % NUM_FIGURES
    n = cell // NUM_FIGURES
    cover = cc[3, n if f == 0 else n + 1]
    ends = meta[_M_ENDS]
    short = 0
    for g in range(NUM_FIGURES):
        work[g] = 0
    if st[6, 0] + st[6, 1] + st[6, 3] > 0:
        for k in (0, 1, 3):
            for _ in range(st[6, k]):
                b = _span(cc, ends, 6 + n, f, NUM_FIGURES, k, work, 0)
                if b < 0:
                    return 1 << 10
                short += b
    for p in range(NUM_FIGURES):
        if st[p, 0] + st[p, 1] + st[p, 3] + (work[p] if p >= f else 0) == 0:
            continue
        for q in range(NUM_NUMBERS):
            work[8 + q] = 0
        if p >= f:
            work[8 + n] = work[p]
        first = n if p >= f else n + 1
        for k in (0, 1, 3):
            for _ in range(st[p, k]):
                b = _span(cc, ends, p, first, NUM_NUMBERS, k, work, 8)
                if b < 0:
                    return 1 << 10
                short += b
        for q in range(n, NUM_NUMBERS):
            need = work[8 + q]
            if need > 0:
                have = cc[0, q * NUM_FIGURES + p] + cc[1, q * NUM_FIGURES + p]
                if need > have:
                    short += need - have
    return max(short, cover)


@njit(cache=True, inline="always")
def _cover_bounds(cc, ends):
    """cc[3, c], c = 0..9: a lower bound on the neutrals that the groups of the required
    cards in columns >= c place in columns >= c. A copy of card x lies in a group of its row
    or its column; every position of that group where the table has no copy is a neutral.
    So each copy of x costs at least the fewest such holes (counted in columns >= c) of any
    group through x, and copies of cards in different rows and columns never share a group:
    the bound is a sum over such cards (picked greedily, heaviest first)."""
    big = 1 << 10
    for cut in range(NUM_NUMBERS + 1):
        cc[3, cut] = 0
    empty = np.zeros((NUM_FIGURES, NUM_NUMBERS + 1), dtype=np.int64)  # empty cells left of k
    for f in range(NUM_FIGURES):
        for k in range(NUM_NUMBERS):
            cell = k * NUM_FIGURES + f
            empty[f, k + 1] = empty[f, k] + (1 if cc[0, cell] + cc[1, cell] == 0 else 0)
    costly = np.empty(NUM_CELLS, dtype=np.int64)
    cost = np.empty((NUM_CELLS, NUM_NUMBERS), dtype=np.int64)
    ncostly = 0
    for m in range(NUM_NUMBERS):
        for f in range(NUM_FIGURES):
            cell = m * NUM_FIGURES + f
            if cc[0, cell] == 0:
                continue
            # colour groups: rows a..b of column m (all in columns >= any cut <= m)
            vbest = big
            for a in range(f + 1):
                for b in range(max(f, a + 2), NUM_FIGURES):
                    at = m * NUM_FIGURES
                    if not ends and (
                        cc[0, at + a] + cc[1, at + a] == 0 or cc[0, at + b] + cc[1, at + b] == 0
                    ):
                        continue
                    h = 0
                    for g in range(a, b + 1):
                        if cc[0, at + g] + cc[1, at + g] == 0:
                            h += 1
                    vbest = min(vbest, h)
            if vbest == 0:
                continue
            for cut in range(m + 1):
                cost[ncostly, cut] = vbest
            # figure groups: columns a..b of row f
            for a in range(m + 1):
                for b in range(max(m, a + 2), NUM_NUMBERS):
                    if not ends and (
                        empty[f, a + 1] > empty[f, a] or empty[f, b + 1] > empty[f, b]
                    ):
                        continue
                    for cut in range(m + 1):
                        h = empty[f, b + 1] - empty[f, max(a, cut)]
                        cost[ncostly, cut] = min(cost[ncostly, cut], h)
            if cost[ncostly, 0] > 0:
                costly[ncostly] = cell
                ncostly += 1
    if ncostly == 0:
        return
    row_used = np.zeros(NUM_FIGURES, dtype=np.int64)
    col_used = np.zeros(NUM_NUMBERS, dtype=np.int64)
    for cut in range(NUM_NUMBERS):
        row_used[:] = 0
        col_used[:] = 0
        total = 0
        while True:
            pick = -1
            weight = 0
            for i in range(ncostly):
                cell = costly[i]
                if cell // NUM_FIGURES < cut:
                    continue
                w = cost[i, cut] * cc[0, cell]
                if w > weight and row_used[cell % 6] == 0 and col_used[cell // 6] == 0:
                    pick = cell
                    weight = w
            if pick < 0:
                break
            total += weight
            row_used[pick % 6] = 1
            col_used[pick // 6] = 1
        cc[3, cut] = min(total, big)


@njit(cache=True, inline="always")
def _final(meta, nu, need, room):
    """Value of the end: the most end neutrals that fit (0 without them), or _NEG."""
    lo = max(need, meta[_M_REQN] - nu)
    hi = min(room, meta[_M_NTOT] - nu)
    return hi if lo <= hi else _NEG


@njit(cache=True)
def _options(st, p, ends, opts, d):
    """Every way the open groups of line p can take this cell, in opts[d]: how many of each
    class end, how many of class 0 get a real copy (the rest a neutral) and how many of the
    others do. Which ones of the others get the real copies does not matter (a real card
    makes each of them a C / length >= 3 group, a neutral a B / T group). A neutral for one
    of the others while a class-0 group gets a real copy is dominated by the swap."""
    c0 = st[p, 0]
    c1 = st[p, 1]
    c2 = st[p, 2]
    c3 = st[p, 3]
    count = 0
    for z0 in range(c0 + 1 if ends else 1):
        for z1 in range(c1 + 1 if ends else 1):
            for z2 in range(c2 + 1):
                e0 = c0 - z0
                rest = c1 - z1 + c2 - z2 + c3
                for x0 in range(e0, -1, -1):
                    for x in range(rest, -1, -1):
                        if x0 > 0 and x < rest:
                            continue
                        opts[d, count, _O_REAL] = x0 + x
                        opts[d, count, _O_NEUT] = e0 - x0 + rest - x
                        opts[d, count, _O_NEED] = 2 * z0 + z1
                        opts[d, count, _O_ENDED] = z0 + z1 + z2
                        opts[d, count, _O_FULL] = 1 if z2 > 0 else 0
                        opts[d, count, _O_OUT] = 0
                        if ends:
                            opts[d, count, _O_OUT + 1] = x0
                            opts[d, count, _O_OUT + 2] = x
                            opts[d, count, _O_OUT + 3] = e0 - x0 + rest - x
                        else:
                            opts[d, count, _O_OUT + 1] = e0 + rest - x
                            opts[d, count, _O_OUT + 2] = x
                            opts[d, count, _O_OUT + 3] = 0
                        opts[d, count, _O_PICK] = (((z0 * 8 + z1) * 8 + z2) * 8 + x0) * 8 + x
                        count += 1
    return count


@njit(cache=True, inline="always")
def _line_end(buf, i, at, ends):
    """Groups reaching the grid's edge end: the end neutrals they need, or -1 if one cannot."""
    if buf[i, at + 3] > 0 or (not ends and buf[i, at] + buf[i, at + 1] > 0):
        return -1
    extra = 2 * buf[i, at] + buf[i, at + 1]
    for k in range(4):
        buf[i, at + k] = 0
    return extra


@njit(cache=True)
def _successors(st, cc, meta, cell, nu, need, room, opts, buf, pos):
    """Write every way to play `cell` from the state into buf[pos:], one row each; returns
    the number of rows, or -1 when buf is too short."""
    f = cell % NUM_FIGURES
    n = cell // NUM_FIGURES
    r = cc[0, cell]
    o = cc[1, cell]
    ntot = meta[_M_NTOT]
    ends = meta[_M_ENDS]
    cap = meta[_M_CAP]
    spare = ntot - nu - need
    nh = _options(st, f, ends, opts, 0)
    nv = _options(st, 6, ends, opts, 1)
    count = 0
    for ih in range(nh):
        for iv in range(nv):
            grow = opts[0, ih, _O_REAL] + opts[1, iv, _O_REAL]
            inner = opts[0, ih, _O_NEUT] + opts[1, iv, _O_NEUT]
            dneed = opts[0, ih, _O_NEED] + opts[1, iv, _O_NEED]
            if grow > r + o or inner + dneed > spare:
                continue
            full_h = opts[0, ih, _O_FULL]
            full_v = opts[1, iv, _O_FULL]
            for u in range(o, -1, -1):
                left = r + u - grow
                if left < 0:
                    break
                for newh in range(left, -1, -1):
                    newv = left - newh
                    if (ends == 0 or room == cap) and (
                        (full_h and newh > 0) or (full_v and newv > 0)
                    ):
                        continue  # extending the ended C group instead is at least as good
                    i = pos + count
                    if i >= buf.shape[0]:
                        return -1
                    for k in range(4):
                        buf[i, k] = opts[0, ih, _O_OUT + k]
                        buf[i, 4 + k] = opts[1, iv, _O_OUT + k]
                    buf[i, 0] += newh
                    buf[i, 4] += newv
                    extra = dneed
                    if n == NUM_NUMBERS - 1:
                        e = _line_end(buf, i, 0, ends)
                        if e < 0:
                            continue
                        extra += e
                    if f == NUM_FIGURES - 1:
                        e = _line_end(buf, i, 4, ends)
                        if e < 0:
                            continue
                        extra += e
                    if inner + extra > spare:
                        continue
                    nroom = room
                    if ends:
                        gain = opts[0, ih, _O_ENDED] * (NUM_NUMBERS - n) + opts[1, iv, _O_ENDED] * (
                            NUM_FIGURES - f
                        )
                        nroom = min(cap, room + gain + n * newh + f * newv)
                    buf[i, _S_U] = u
                    buf[i, _S_DNU] = inner
                    buf[i, _S_NEED] = need + extra
                    buf[i, _S_ROOM] = nroom
                    buf[i, _S_PICKH] = opts[0, ih, _O_PICK]
                    buf[i, _S_PICKV] = opts[1, iv, _O_PICK]
                    buf[i, _S_NEWH] = newh
                    buf[i, _S_NEWV] = newv
                    count += 1
    return count


@njit(cache=True, inline="always")
def _apply(st, f, buf, i):
    for k in range(4):
        st[f, k] = buf[i, k]
        st[6, k] = buf[i, 4 + k]


@njit(cache=True, inline="always")
def _memo_key(st, meta, nu, need, room, cell):
    """Key of a state in the memo, and whether it is a monotone one: with end neutrals and no
    optional copies, once the room covers every neutral, a state that can be completed with
    s neutrals to spare can be completed with more (the extra ones go to the ends), so such
    states share one key whatever their neutrals and keep the largest spare known to fail
    and the smallest known to succeed."""
    orient = meta[_M_ORIENT] << 58
    if meta[_M_MONO] and room == meta[_M_CAP]:
        return _pack(st, 1, 0, 0, 0, cell) + orient + (1 << 60), 1
    return _pack(st, meta[_M_ENDS], nu, need, room, cell) + orient, 0


@njit(cache=True, inline="always")
def _recall(keys, vals, meta, key, mono, nu, need):
    """The memo's value for a state, or _MISSING."""
    v = _lookup(keys, vals, meta, key)
    if mono == 0 or v == _MISSING:
        return v
    spare = meta[_M_NTOT] - nu - need
    if spare <= v // 8 - 1:
        return _NEG
    if spare >= v % 8:
        return meta[_M_NTOT] - nu
    return _MISSING


@njit(cache=True, inline="always")
def _remember(keys, vals, meta, key, mono, nu, need, value):
    if mono:
        spare = meta[_M_NTOT] - nu - need
        old = _lookup(keys, vals, meta, key)
        fail, done = (old // 8 - 1, old % 8) if old != _MISSING else (-1, 7)
        if value < 0:
            fail = max(fail, spare)
        else:
            done = min(done, spare)
        value = (fail + 1) * 8 + done
    _store(keys, vals, meta, key, value)


# one-step upgrades of a line's open groups that never make a state worse (see `_dominated`):
# (class taken from or -1 for none, class given); without end neutrals A -> B, B -> C, + C;
# with them 1 -> 2, 2 -> 3, T -> 2, T -> 3, + 3
_UPGRADES = np.array([[0, 1], [1, 2], [-1, 2]], dtype=np.int64)
_UPGRADES_ENDS = np.array([[0, 1], [1, 2], [3, 1], [3, 2], [-1, 2]], dtype=np.int64)


@njit(cache=True)
def _dominated(st, keys, vals, meta, nu, need, room, cell):
    """True when a state known to fail dominates this one, which then fails too: the same
    but for one open group of a line in a better class, or one more group that may end here
    and now. A group of the better class can follow every continuation of the worse one
    (the same cards make it the same or a better class, and it may end where the other
    may), and a group that may end costs nothing."""
    ups = _UPGRADES_ENDS if meta[_M_ENDS] else _UPGRADES
    for p in range(7):
        for u in range(ups.shape[0]):
            lose, gain = ups[u, 0], ups[u, 1]
            if lose >= 0 and st[p, lose] == 0:
                continue
            if lose >= 0:
                st[p, lose] -= 1
            st[p, gain] += 1
            fits = st[p, 0] + st[p, 2] + (st[p, 1] if meta[_M_ENDS] else 0) <= 2 and st[p, 1] < 7
            fits = fits and st[p, 3] < 5
            v = _MISSING
            if fits:
                key, mono = _memo_key(st, meta, nu, need, room, cell)
                v = _recall(keys, vals, meta, key, mono, nu, need)
            st[p, gain] -= 1
            if lose >= 0:
                st[p, lose] += 1
            if v == _NEG:
                return True
    return False


@boundary(
    "int64(int64[:, ::1], int64[:, ::1], int64[::1], int64[::1], int64[::1], int64[:, ::1],"
    " int64[:, ::1], int64[:, :, ::1], int64[::1], int64, int64, int64, int64)"
)
def _search(st, cc, meta, keys, vals, buf, frames, opts, work, cell, nu, need, room):
    """Best value (optional copies + neutrals placed from `cell` on) of the state, or _NEG;
    every state expanded is memoised. `st` comes back unchanged. Gives up (meta[_M_ABORT]
    1: the orientation's state budget is spent, 2: `buf` is too short; meta[_M_OVER]: the
    memo is half full) with an undefined result and nothing wrong in the memo.

    Successors are tried in the order of the neutrals they are bound to need (`_lack`),
    fewest first, which finds a partition of a valid table sooner."""
    cell = _skip(st, cc, cell)
    if cell == NUM_CELLS:
        return _final(meta, nu, need, room)
    ntot = meta[_M_NTOT]
    if need > ntot - nu or _lack(st, cc, meta, cell, work) > ntot - nu - need:
        return _NEG
    key, mono = _memo_key(st, meta, nu, need, room, cell)
    v = _recall(keys, vals, meta, key, mono, nu, need)
    if v != _MISSING:
        return v
    if meta[_M_LIMIT] >= meta[_M_DOMINANCE] and _dominated(
        st, keys, vals, meta, nu, need, room, cell
    ):
        return _NEG
    entry = st.copy()
    top = -1
    pos = 0
    push = True
    while True:
        if push:  # open a frame for (cell, nu, need, room, key) in the current st
            spent = _M_SPENT + meta[_M_ORIENT]
            if meta[spent] >= meta[_M_LIMIT]:
                meta[_M_ABORT] = 1
                break
            count = _successors(st, cc, meta, cell, nu, need, room, opts, buf, pos)
            if count < 0:
                meta[_M_ABORT] = 2
                break
            meta[spent] += 1
            meta[_M_STATES] += 1
            f = cell % NUM_FIGURES
            for k in range(4):
                work[24 + k] = st[f, k]
                work[28 + k] = st[6, k]
            for i in range(pos, pos + count):  # bound each successor, sort by the bound
                _apply(st, f, buf, i)
                nxt = _skip(st, cc, cell + 1)
                buf[i, _S_LACK] = 0 if nxt == NUM_CELLS else _lack(st, cc, meta, nxt, work)
                j = i
                while j > pos and buf[j - 1, _S_LACK] > buf[j, _S_LACK]:
                    for k in range(_S_WIDTH):
                        t = buf[j - 1, k]
                        buf[j - 1, k] = buf[j, k]
                        buf[j, k] = t
                    j -= 1
            for k in range(4):
                st[f, k] = work[24 + k]
                st[6, k] = work[28 + k]
            top += 1
            frames[top, _F_CELL] = cell
            frames[top, _F_KEY] = key
            frames[top, _F_MONO] = mono
            frames[top, _F_START] = pos
            frames[top, _F_END] = pos + count
            frames[top, _F_IDX] = pos
            frames[top, _F_BEST] = _NEG
            frames[top, _F_BOUND] = cc[2, cell] + ntot - nu
            frames[top, _F_NU] = nu
            frames[top, _F_NEED] = need
            frames[top, _F_ROOM] = room
            for k in range(4):
                frames[top, _F_SAVE + k] = st[f, k]
                frames[top, _F_SAVE + 4 + k] = st[6, k]
            pos += count
            push = False
        if meta[_M_OVER]:
            break
        f = frames[top, _F_CELL] % NUM_FIGURES
        i = frames[top, _F_IDX]
        if i < frames[top, _F_END] and frames[top, _F_BEST] < frames[top, _F_BOUND]:
            frames[top, _F_IDX] = i + 1
            _apply(st, f, buf, i)
            nu = frames[top, _F_NU] + buf[i, _S_DNU]
            need = buf[i, _S_NEED]
            room = buf[i, _S_ROOM]
            gain = buf[i, _S_U] + buf[i, _S_DNU]
            cell = _skip(st, cc, frames[top, _F_CELL] + 1)
            if cell == NUM_CELLS:
                v = _final(meta, nu, need, room)
            elif buf[i, _S_LACK] > ntot - nu - need:
                v = _NEG
            else:
                key, mono = _memo_key(st, meta, nu, need, room, cell)
                v = _recall(keys, vals, meta, key, mono, nu, need)
                if (
                    v == _MISSING
                    and meta[_M_LIMIT] >= meta[_M_DOMINANCE]
                    and _dominated(st, keys, vals, meta, nu, need, room, cell)
                ):
                    v = _NEG
                if v == _MISSING:
                    push = True
                    continue
            if v >= 0 and gain + v > frames[top, _F_BEST]:
                frames[top, _F_BEST] = gain + v
            for k in range(4):
                st[f, k] = frames[top, _F_SAVE + k]
                st[6, k] = frames[top, _F_SAVE + 4 + k]
            continue
        # the frame is done
        best = frames[top, _F_BEST]
        _remember(
            keys,
            vals,
            meta,
            frames[top, _F_KEY],
            frames[top, _F_MONO],
            frames[top, _F_NU],
            frames[top, _F_NEED],
            best,
        )
        pos = frames[top, _F_START]
        top -= 1
        if top < 0:
            return best
        pf = frames[top, _F_CELL] % NUM_FIGURES
        i = frames[top, _F_IDX] - 1
        gain = buf[i, _S_U] + buf[i, _S_DNU]
        if best >= 0 and gain + best > frames[top, _F_BEST]:
            frames[top, _F_BEST] = gain + best
        for k in range(4):
            st[pf, k] = frames[top, _F_SAVE + k]
            st[6, k] = frames[top, _F_SAVE + 4 + k]
    _restore(st, entry)
    return _NEG


@njit(cache=True, inline="always")
def _orient(src, orient, dst):
    """dst = src with the numbers reversed (bit 0 of orient) and/or the figures (bit 1)."""
    for f in range(NUM_FIGURES):
        g = NUM_FIGURES - 1 - f if orient & 2 else f
        for n in range(NUM_NUMBERS):
            m = NUM_NUMBERS - 1 - n if orient & 1 else n
            dst[g, m] = src[f, n]


@njit(cache=True)
def _prepare(req, opt, orient, ends, cc):
    """cc[0]: required copies by cell (column-major), cc[1]: optional copies, cc[2]:
    optional copies from the cell on, cc[3]: the cover bounds; in the orientation."""
    a = np.empty((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    b = np.empty((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    _orient(req, orient, a)
    _orient(opt, orient, b)
    cc[:, :] = 0
    for f in range(NUM_FIGURES):
        for n in range(NUM_NUMBERS):
            cc[0, n * NUM_FIGURES + f] = a[f, n]
            cc[1, n * NUM_FIGURES + f] = b[f, n]
    for cell in range(NUM_CELLS - 1, -1, -1):
        cc[2, cell] = cc[2, cell + 1] + cc[1, cell]
    _cover_bounds(cc, ends)


@njit(cache=True)
def _grow(keys, vals, meta):
    """The memo with 4x the slots, every entry kept."""
    size = 4 * keys.shape[0]
    nkeys = np.zeros(size, dtype=np.int64)
    nvals = np.empty(size, dtype=np.int64)
    meta[_M_MASK] = size - 1
    meta[_M_COUNT] = 0
    meta[_M_OVER] = 0
    for i in range(keys.shape[0]):
        if keys[i] != 0:
            _store(nkeys, nvals, meta, keys[i], vals[i])
    return nkeys, nvals


@boundary("UniTuple(int64, 3)(int64[:, ::1], int64[:, ::1], int64, int64, boolean, int64[:, ::1])")
def _solve(req, opt, req_n, opt_n, ends, trace):
    """Best value over the required cards `req` (all used) and the optional `opt` (each copy
    used or not): optional copies + neutrals in the groups, or _NEG. With a `trace` of
    shape (54, T_WIDTH), the decisions of one best partition are written into it.
    Returns (value, states expanded, orientation of the trace).

    The table is solved in one of four orientations (numbers and/or figures reversed: the
    rules are symmetric), whichever finishes first: each gets a budget of states in turn,
    doubled every round; one memo serves all four (the orientation is part of the key)."""
    meta = np.zeros(_M_WIDTH, dtype=np.int64)
    meta[_M_NTOT] = req_n + opt_n
    meta[_M_REQN] = req_n
    meta[_M_ENDS] = 1 if ends else 0
    meta[_M_CAP] = req_n + opt_n if ends else 0
    optional = 0
    for f in range(NUM_FIGURES):
        for n in range(NUM_NUMBERS):
            optional += opt[f, n]
    meta[_M_MONO] = 1 if ends and optional + opt_n == 0 else 0
    meta[_M_DOMINANCE] = _DOMINANCE_FROM if optional + opt_n == 0 else 1 << 62
    ccs = np.empty((4, 4, NUM_CELLS + 1), dtype=np.int64)
    ready = np.zeros(4, dtype=np.int64)
    st = np.zeros((7, 4), dtype=np.int64)
    keys = np.zeros(_MEMO_START, dtype=np.int64)
    vals = np.empty(_MEMO_START, dtype=np.int64)
    meta[_M_MASK] = _MEMO_START - 1
    buf = np.empty((_BUF_START, _S_WIDTH), dtype=np.int64)
    frames = np.empty((NUM_CELLS + 1, _F_WIDTH), dtype=np.int64)
    opts = np.empty((2, _OPTS, _O_WIDTH), dtype=np.int64)
    work = np.empty(32, dtype=np.int64)
    budget = _BUDGET
    j = np.int64(0)
    best = _NEG
    orient = np.int64(0)
    while True:
        orient = _ORDER[j]
        if ready[orient] == 0:
            _prepare(req, opt, orient, ends, ccs[orient])
            ready[orient] = 1
        meta[_M_ORIENT] = orient
        meta[_M_LIMIT] = budget
        meta[_M_ABORT] = 0
        start = np.int64(0)
        best = _search(
            st, ccs[orient], meta, keys, vals, buf, frames, opts, work, start, start, start, start
        )
        if meta[_M_OVER]:
            keys, vals = _grow(keys, vals, meta)
        elif meta[_M_ABORT] == 2:
            buf = np.empty((2 * buf.shape[0], _S_WIDTH), dtype=np.int64)
        elif meta[_M_ABORT] == 0:
            break
        else:
            j += 1
            if j == 4:
                j = 0
                budget *= 2
    if best >= 0 and trace.shape[0] == NUM_CELLS:
        cc = ccs[orient]
        meta[_M_LIMIT] = 1 << 62
        trace[:, :] = 0
        target = best
        cell = _skip(st, cc, 0)
        nu = np.int64(0)
        need = np.int64(0)
        room = np.int64(0)
        rows = np.empty((_BUF_START, _S_WIDTH), dtype=np.int64)
        while cell < NUM_CELLS:
            count = _successors(st, cc, meta, cell, nu, need, room, opts, rows, np.int64(0))
            if count < 0:
                rows = np.empty((2 * rows.shape[0], _S_WIDTH), dtype=np.int64)
                continue
            f = cell % NUM_FIGURES
            save = st.copy()
            j = 0
            while j < count:
                _apply(st, f, rows, j)
                dnu = rows[j, _S_DNU]
                v = _search(
                    st,
                    cc,
                    meta,
                    keys,
                    vals,
                    buf,
                    frames,
                    opts,
                    work,
                    cell + 1,
                    nu + dnu,
                    rows[j, _S_NEED],
                    rows[j, _S_ROOM],
                )
                if meta[_M_OVER]:
                    keys, vals = _grow(keys, vals, meta)
                    _restore(st, save)
                    continue
                if meta[_M_ABORT] == 2:
                    meta[_M_ABORT] = 0
                    buf = np.empty((2 * buf.shape[0], _S_WIDTH), dtype=np.int64)
                    _restore(st, save)
                    continue
                if v >= 0 and rows[j, _S_U] + dnu + v == target:
                    trace[cell, T_U] = rows[j, _S_U]
                    trace[cell, T_PICKH] = rows[j, _S_PICKH]
                    trace[cell, T_PICKV] = rows[j, _S_PICKV]
                    trace[cell, T_NEWH] = rows[j, _S_NEWH]
                    trace[cell, T_NEWV] = rows[j, _S_NEWV]
                    target = v
                    nu += dnu
                    need = rows[j, _S_NEED]
                    room = rows[j, _S_ROOM]
                    break
                _restore(st, save)
                j += 1
            cell = _skip(st, cc, cell + 1)
    return best, meta[_M_STATES], orient


@njit(cache=True, inline="always")
def _may_be_valid(counts, neutrals):
    """Cheap necessary condition: every card has a window of 3 cells in one of its lines with
    at most `neutrals` empty cells (any group through it holds such a window)."""
    for f in range(NUM_FIGURES):
        for n in range(NUM_NUMBERS):
            if counts[f, n] == 0:
                continue
            found = False
            for lo in range(n - 2, n + 1):  # figure line, cells lo..lo+2
                if lo >= 0 and lo + 2 < NUM_NUMBERS:
                    holes = 0
                    for m in range(lo, lo + 3):
                        holes += counts[f, m] == 0
                    found = found or holes <= neutrals
            for lo in range(f - 2, f + 1):  # colour line
                if lo >= 0 and lo + 2 < NUM_FIGURES:
                    holes = 0
                    for g in range(lo, lo + 3):
                        holes += counts[g, n] == 0
                    found = found or holes <= neutrals
            if not found:
                return False
    return True


@njit(cache=True)
def table_valid(counts, neutrals, neutral_at_ends):
    """True when the cards `counts` (6, 9) and `neutrals` split into valid groups."""
    if not _may_be_valid(counts, np.int64(neutrals)):
        return False  # most tables a player tries are rejected here, before the search
    none = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    no_trace = np.zeros((0, T_WIDTH), dtype=np.int64)
    return _solve(counts, none, np.int64(neutrals), np.int64(0), neutral_at_ends, no_trace)[0] >= 0


@njit(cache=True)
def table_states(counts, neutrals, neutral_at_ends):
    """Number of states `table_valid` expands on this table (a measure of its difficulty)."""
    none = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    no_trace = np.zeros((0, T_WIDTH), dtype=np.int64)
    return _solve(counts, none, np.int64(neutrals), np.int64(0), neutral_at_ends, no_trace)[1]


@njit(cache=True)
def best_addition(table, table_neutrals, hand, hand_neutrals, neutral_at_ends, out):
    """Largest number of cards of `hand` (neutrals included) that can join `table` with the
    result valid; the chosen real copies go to `out` (6, 9), the chosen neutrals are the
    result minus their sum. -1 (and `out` zero) if `table` itself is invalid."""
    trace = np.zeros((NUM_CELLS, T_WIDTH), dtype=np.int64)
    req_n, opt_n = np.int64(table_neutrals), np.int64(hand_neutrals)
    best, _, orient = _solve(table, hand, req_n, opt_n, neutral_at_ends, trace)
    out[:, :] = 0
    if best < 0:
        return -1
    chosen = np.empty((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    for f in range(NUM_FIGURES):
        for n in range(NUM_NUMBERS):
            chosen[f, n] = trace[n * NUM_FIGURES + f, T_U]
    _orient(chosen, orient, out)  # each orientation is its own inverse
    return best - table_neutrals


@njit(cache=True)
def partition_trace(counts, neutrals, neutral_at_ends, trace):
    """Fill `trace` (54, 5) with the decisions of one partition, made in the orientation
    returned (numbers reversed if bit 0, figures if bit 1); -1 if the table is invalid."""
    none = np.zeros((NUM_FIGURES, NUM_NUMBERS), dtype=np.int64)
    best, _, orient = _solve(counts, none, np.int64(neutrals), np.int64(0), neutral_at_ends, trace)
    return orient if best >= 0 else -1
