"""Plain-Python brute force for Rummidrez tables, the oracle of `test_solver.py`,
and the game flow of `rummidrez_v0` (legal actions and the next state, from a state dict),
the oracle of `test_properties.py` (see "the game flow" below).

Written from the rule text (/work/shared/rules/rummidrez.txt), the rulings and the
project's choices (docs/rules/rummidrez.md) only; it imports nothing from `card_envs`, so a
bug in the solver or the engine cannot hide here.

Cards: figure f (0 Pawn .. 5 Joker) and number n (1..9), id `f * 9 + n - 1`; 54 = neutral.
A table: 54 copy counts indexed by card id (or a (6, 9) array, `counts[f][n - 1]`) and a
number of neutrals.

Groups: a figure group is one figure with consecutive numbers, a colour group one number
with consecutive figures; 3 or more positions in a line of the grid (so at most 9 and 6), each
position a real card or a neutral. Without `neutral_at_ends` the two end positions must be
real cards (every neutral lies between two real cards); with it, a group needs one real card.

Method: the lowest remaining real card must lie in some group. Try every group through it:
both lines through its cell, every interval of at least 3 positions of that line holding the
cell, every choice of neutral positions (a position whose card is gone must be a neutral,
any other may be); remove the group's cards and recurse. Neutrals left over without real
cards cannot form a group. Memoised on the remaining cards within one call.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache

from card_envs.core.loading import game_fields

FIGURES, NUMBERS = 6, 9
NEUTRAL = 54
MAX_NEUTRALS = 4


def card_id(figure: int, number: int) -> int:
    return figure * NUMBERS + number - 1


def flat_counts(counts) -> tuple[int, ...]:
    """54 copy counts by card id, from 54 counts or a (6, 9) array."""
    rows = [list(r) for r in counts] if len(counts) == FIGURES else None
    if rows is not None and all(len(r) == NUMBERS for r in rows):
        return tuple(int(rows[f][n]) for f in range(FIGURES) for n in range(NUMBERS))
    out = tuple(int(c) for c in counts)
    assert len(out) == FIGURES * NUMBERS
    return out


def lines_through(card: int) -> list[list[int]]:
    """The figure line (by number) and the colour line (by figure) through a card."""
    f, n = divmod(card, NUMBERS)
    return [
        [f * NUMBERS + m for m in range(NUMBERS)],
        [g * NUMBERS + n for g in range(FIGURES)],
    ]


def groups_through(card: int, cards: Sequence[int], neutrals: int, at_ends: bool) -> Iterator:
    """Every group holding a copy of `card` that `cards` (counts) and `neutrals` can form,
    as the ordered list of its card ids with NEUTRAL in the neutrals' places."""
    for line in lines_through(card):
        i = line.index(card)
        for lo in range(i + 1):
            for hi in range(max(i, lo + 2), len(line)):
                others = [j for j in range(lo, hi + 1) if j != i]
                forced = [j for j in others if cards[line[j]] == 0]
                free = [j for j in others if cards[line[j]] > 0]
                spare = neutrals - len(forced)
                for size in range(min(spare, len(free)) + 1):
                    for chosen in itertools.combinations(free, size):
                        hole = set(forced) | set(chosen)
                        if not at_ends and (lo in hole or hi in hole):
                            continue
                        yield [NEUTRAL if j in hole else line[j] for j in range(lo, hi + 1)]


def _search(cards: tuple[int, ...], neutrals: int, at_ends: bool, memo: dict):
    """A list of groups using exactly these cards and neutrals, or None."""
    key = (cards, neutrals)
    if key in memo:
        return memo[key]
    low = next((c for c in range(FIGURES * NUMBERS) if cards[c] > 0), None)
    if low is None:
        result = [] if neutrals == 0 else None
    else:
        result = None
        for group in groups_through(low, cards, neutrals, at_ends):
            rest = list(cards)
            for c in group:
                if c != NEUTRAL:
                    rest[c] -= 1
            sub = _search(tuple(rest), neutrals - group.count(NEUTRAL), at_ends, memo)
            if sub is not None:
                result = [group] + sub
                break
    memo[key] = result
    return result


def partition(counts, neutrals: int, neutral_at_ends: bool = False):
    """One split of the table into groups, or None if there is none."""
    return _search(flat_counts(counts), neutrals, neutral_at_ends, {})


def is_valid(counts, neutrals: int, neutral_at_ends: bool = False) -> bool:
    return partition(counts, neutrals, neutral_at_ends) is not None


def group_is_valid(group: Sequence[int], neutral_at_ends: bool = False) -> bool:
    """Whether an ordered list of card ids (NEUTRAL for a neutral) is a group, by the rules."""
    size = len(group)
    real = [(i, c) for i, c in enumerate(group) if c != NEUTRAL]
    if size < 3 or not real:
        return False
    if not neutral_at_ends and (group[0] == NEUTRAL or group[-1] == NEUTRAL):
        return False
    fits = False
    # figure group: one figure, numbers first + i
    figures = {c // NUMBERS for _, c in real}
    starts = {c % NUMBERS - i for i, c in real}
    if len(figures) == 1 and len(starts) == 1:
        first = starts.pop()
        fits |= 0 <= first and first + size <= NUMBERS
    # colour group: one number, figures first + i
    numbers = {c % NUMBERS for _, c in real}
    starts = {c // NUMBERS - i for i, c in real}
    if len(numbers) == 1 and len(starts) == 1:
        first = starts.pop()
        fits |= 0 <= first and first + size <= FIGURES
    return fits


def partition_matches(groups, counts, neutrals: int, neutral_at_ends: bool = False) -> bool:
    """Every group valid, and together exactly the table's cards and neutrals."""
    if not all(group_is_valid(g, neutral_at_ends) for g in groups):
        return False
    used = [0] * (FIGURES * NUMBERS)
    n_used = 0
    for g in groups:
        for c in g:
            if c == NEUTRAL:
                n_used += 1
            else:
                used[c] += 1
    return tuple(used) == flat_counts(counts) and n_used == neutrals


def largest_addition(table, table_neutrals: int, hand, hand_neutrals: int, at_ends=False):
    """Most hand cards (neutrals included) that table + those cards make valid, by trying
    every part of the hand, largest first; None if even the table alone is invalid."""
    table = flat_counts(table)
    hand = flat_counts(hand)
    cells = [c for c in range(FIGURES * NUMBERS) if hand[c] > 0]
    options = []
    for take in itertools.product(*(range(hand[c] + 1) for c in cells)):
        for k in range(hand_neutrals + 1):
            options.append((sum(take) + k, take, k))
    options.sort(key=lambda o: -o[0])
    for size, take, k in options:
        total = list(table)
        for c, t in zip(cells, take, strict=True):
            total[c] += t
        if is_valid(total, table_neutrals + k, at_ends):
            return size
    return None


# --- the game flow of rummidrez_v0 ------------------------------------------------------------
# Written from the rulings and the project's choices (docs/rules/rummidrez.md), like the
# brute force above: nothing here comes from `card_envs`.
#
# A state is the dict `state_dict()` returns, with the table as one sorted list of card ids
# (the table is a multiset: which groups it is split into is never part of the rules; `norm`
# turns the engine's groups into that list after checking them). The state dict is the full
# state: it also holds the seat that started the hand (`first_player`: the next hand of a
# match starts one seat on), the cards taken from the discard pile this turn and still held
# (`taken`: the `rediscard=False` rule) and whether this hand's draw pile has been refilled
# (`refilled`).
#
# The flow: a turn is DRAW or TAKE k, then the meld phase (PLACE c one card at a time,
# UNDO, END_MELD), then DISCARD c. See `legal_actions` and `advance` for every rule.
# Where chance acts (refilling the draw pile, dealing the next hand of a match) the
# prediction holds `Shuffled` / `Dealt` stand-ins: the cards, or only how many.
# A finished episode's state stays where it stopped: the seat and phase of the last action,
# except after a no-winner end, which happens as the next seat's turn begins (that seat and
# the draw phase).
# When a hand of a match ends below the target the next hand is dealt in the same step, so the
# state shows the new hand, the points carried over; `winner` is the seat that emptied its
# hand in the last finished hand (None before any, or when that hand had no winner).

NUM_IDS = 55
NUM_CARDS = 112
HAND_SIZE = 14
OPEN_MIN = 7
MAX_TAKE = NUM_CARDS - 2
DRAW = 0
TAKE = 1  # + k - 1
PLACE = TAKE + MAX_TAKE  # + card
UNDO = PLACE + NUM_IDS
END_MELD = UNDO + 1
DISCARD = END_MELD + 1  # + card
NUM_ACTIONS = DISCARD + NUM_IDS


def full_deck() -> list[int]:
    """The 112 cards: two of each figure card, four neutrals."""
    return sorted([c for c in range(NEUTRAL) for _ in range(2)] + [NEUTRAL] * MAX_NEUTRALS)


def target_points(num_players: int) -> int:
    """Points that end a match: 14, 28, 42 for 2, 3, 4 players."""
    return {2: 14, 3: 28, 4: 42}[num_players]


@dataclass(frozen=True)
class Rules:
    """The options of rummidrez_v0 that the flow depends on."""

    num_players: int = 2
    reward: str = "win"
    match: bool = False
    rediscard: bool = True
    max_turns: int = 200
    max_placements: int = 112
    neutral_at_ends: bool = False


@dataclass(frozen=True)
class Shuffled:
    """These cards in an order chance chose."""

    cards: tuple[int, ...]

    def matches(self, value) -> bool:
        return sorted(value) == sorted(self.cards)


@dataclass(frozen=True)
class Dealt:
    """`size` cards chance chose."""

    size: int

    def matches(self, value) -> bool:
        return len(value) == self.size


@dataclass
class Prediction:
    state: dict
    rewards: list[float]
    events: list[str] = field(default_factory=list)


def _cells(cards) -> tuple[tuple[int, ...], int]:
    counts = [0] * NEUTRAL
    neutrals = 0
    for c in cards:
        if c == NEUTRAL:
            neutrals += 1
        else:
            counts[c] += 1
    return tuple(counts), neutrals


def _windows_possible(counts: tuple[int, ...], neutrals: int) -> bool:
    """A quick necessary condition: every card lies in three consecutive positions of one of
    its lines whose missing cards the neutrals could fill (any group through it holds such)."""
    for card in range(NEUTRAL):
        if counts[card] == 0:
            continue
        ok = False
        for line in lines_through(card):
            i = line.index(card)
            for lo in range(max(0, i - 2), min(i, len(line) - 3) + 1):
                holes = sum(counts[line[j]] == 0 for j in range(lo, lo + 3))
                ok = ok or holes <= neutrals
        if not ok:
            return False
    return True


def _components(counts: tuple[int, ...], neutrals: int) -> list[tuple[int, ...]]:
    """The cards split into parts no group can join: two cards are in one part when they lie
    in one line at most `neutrals` + 1 positions apart (a group is a run of its line)."""
    cards = [c for c in range(NEUTRAL) if counts[c] > 0]
    part = {c: c for c in cards}

    def root(c):
        while part[c] != c:
            c = part[c]
        return c

    for a in cards:
        for line in lines_through(a):
            i = line.index(a)
            for j in range(i + 1, min(len(line), i + neutrals + 2)):
                if line[j] in part:
                    part[root(line[j])] = root(a)
    out: dict[int, list[int]] = {}
    for c in cards:
        out.setdefault(root(c), [0] * NEUTRAL)[c] = counts[c]
    return [tuple(v) for v in out.values()]


def _fits(cards: tuple[int, ...], neutrals: int, at_ends: bool, memo: dict) -> bool:
    """Whether the cards split into groups: the search of `_search` (for a yes or no), with
    one more cut: a state where some card has no window (`_windows_possible`) is dropped."""
    key = (cards, neutrals)
    if key not in memo:
        low = next((c for c in range(NEUTRAL) if cards[c] > 0), None)
        if low is None:
            memo[key] = neutrals == 0
        elif not _windows_possible(cards, neutrals):
            memo[key] = False
        else:
            memo[key] = False
            for group in groups_through(low, cards, neutrals, at_ends):
                rest = list(cards)
                for c in group:
                    if c != NEUTRAL:
                        rest[c] -= 1
                if _fits(tuple(rest), neutrals - group.count(NEUTRAL), at_ends, memo):
                    memo[key] = True
                    break
    return memo[key]


@cache
def _valid_part(counts: tuple[int, ...], neutrals: int, at_ends: bool) -> bool:
    return _fits(counts, neutrals, at_ends, {})


def _parts_valid(parts: list[tuple[int, ...]], neutrals: int, at_ends: bool) -> bool:
    """Some share of the neutrals makes every part valid (each part uses its whole share)."""
    first, rest = parts[0], parts[1:]
    if not rest:
        return _valid_part(first, neutrals, at_ends)
    return any(
        _valid_part(first, m, at_ends) and _parts_valid(rest, neutrals - m, at_ends)
        for m in range(neutrals + 1)
    )


@cache
def _valid(counts: tuple[int, ...], neutrals: int, at_ends: bool) -> bool:
    """The brute force, part by part (smallest first)."""
    if sum(counts) == 0:
        return neutrals == 0
    parts = sorted(_components(counts, neutrals), key=sum)
    return _windows_possible(counts, neutrals) and _parts_valid(parts, neutrals, at_ends)


def valid_cards(cards, neutral_at_ends: bool = False) -> bool:
    """Whether these card ids (neutrals as 54) split into valid groups, every card used."""
    return _valid(*_cells(cards), neutral_at_ends)


def norm(state: dict, neutral_at_ends: bool = False) -> dict:
    """The engine's state dict (its game fields) with the table as a sorted list of card
    ids, after checking that its groups are valid groups of the rules."""
    for group in state["table"]:
        assert group_is_valid(group, neutral_at_ends), group
    out = game_fields(state)
    out["table"] = sorted(c for group in state["table"] for c in group)
    return out


def matches(predicted: dict, state: dict) -> list[str]:
    """The keys where a normalised state differs from the prediction (empty: it matches)."""
    bad = []
    for key in sorted(set(predicted) | set(state)):
        want, got = predicted.get(key, "<missing>"), state.get(key, "<missing>")
        if isinstance(want, (Shuffled, Dealt)):
            ok = want.matches(got)
        elif key == "hands" and any(isinstance(h, Dealt) for h in want):
            ok = len(got) == len(want) and all(w.matches(g) for w, g in zip(want, got, strict=True))
        else:
            ok = want == got
        if not ok:
            bad.append(f"{key}: predicted {want!r}, got {got!r}")
    return bad


def cards_conserved(state: dict) -> bool:
    """Hands, table, placed cards and both piles of a normalised state hold the 112 cards."""
    every = [c for h in state["hands"] for c in h] + state["table"] + state["placed"]
    return sorted(every + state["draw_pile"] + state["discard_pile"]) == full_deck()


def meld_ok(state: dict, rules: Rules) -> bool:
    """END_MELD is legal: nothing placed; or, once the seat has opened, the table with the
    placed cards splits into groups (rearranged freely); or, before, the placed cards alone
    split into groups of at least 7 cards (neutrals count)."""
    placed = state["placed"]
    if not placed:
        return True
    if state["opened"][state["current_player"]]:
        return valid_cards(state["table"] + placed, rules.neutral_at_ends)
    return len(placed) >= OPEN_MIN and valid_cards(placed, rules.neutral_at_ends)


def discardable(state: dict, rules: Rules) -> list[int]:
    """Card ids the seat to act may discard."""
    hand = Counter(state["hands"][state["current_player"]])
    taken = Counter(state["taken"])
    allowed = sorted(c for c in hand if rules.rediscard or hand[c] > taken[c])
    return allowed or sorted(hand)  # only cards taken this turn are left: any may go


def legal_actions(state: dict, rules: Rules) -> list[int]:
    if state["done"]:
        return []
    p = state["current_player"]
    hand = state["hands"][p]
    if state["phase"] == "draw":
        out = [DRAW] if state["draw_pile"] else []
        return out + [TAKE + k - 1 for k in range(1, len(state["discard_pile"]) + 1)]
    if state["phase"] == "meld":
        out = []
        if state["placements"] < rules.max_placements:
            out += [PLACE + c for c in sorted(set(hand))]
        if state["placed"]:
            out.append(UNDO)
        if meld_ok(state, rules):
            out.append(END_MELD)
        return out
    return [DISCARD + c for c in discardable(state, rules)]


def _minus(cards: list[int], gone) -> list[int]:
    """cards minus one copy of each of `gone`, where present (counts floored at 0)."""
    left = Counter(cards)
    left.subtract(Counter(gone))
    return sorted(left.elements())


def share_by_points(points: list[int]) -> list[float]:
    """Most points wins; tied leaders share 1."""
    best = max(points)
    leaders = points.count(best)
    return [1.0 / leaders if v == best else 0.0 for v in points]


def advance(state: dict, action: int, rules: Rules) -> Prediction:
    """The state after `action` (legal in `state`), the rewards of the step and what
    happened ("won", "no_winner", "refill", "new_hand", "truncated", "over")."""
    assert action in legal_actions(state, rules), action
    n = rules.num_players
    s = {
        key: [list(v) for v in val] if key in ("hands", "known") else val
        for key, val in state.items()
    }
    s["table"] = list(state["table"])
    s["placed"] = list(state["placed"])
    s["draw_pile"] = list(state["draw_pile"])
    s["discard_pile"] = list(state["discard_pile"])
    s["opened"] = list(state["opened"])
    s["points"] = list(state["points"])
    p = s["current_player"]
    hand = s["hands"][p]
    taken = list(state["taken"])
    pred = Prediction(s, [0.0] * n)

    def end_hand(winner):
        s["winner"] = winner
        if winner is None:
            pred.events.append("no_winner")
        else:
            pred.events.append("won")
            gained = sum(len(s["hands"][q]) for q in range(n) if q != winner)
            s["points"][winner] += gained
            if rules.reward == "score":
                pred.rewards[winner] += gained
        s["scores"] = [float(v) for v in s["points"]]
        reached = max(s["points"]) >= target_points(n)
        if rules.match and not reached:
            pred.events.append("new_hand")
            first = (s["first_player"] + 1) % n
            s.update(
                current_player=first,
                phase="draw",
                hands=[Dealt(HAND_SIZE) for _ in range(n)],
                table=[],
                placed=[],
                draw_pile=Dealt(NUM_CARDS - HAND_SIZE * n),
                discard_pile=[],
                known=[[] for _ in range(n)],
                opened=[False] * n,
                hand_turns=0,
                placements=0,
                taken=[],
                first_player=first,
                refilled=False,
            )
            return
        pred.events.append("over")
        s["done"] = True
        if rules.reward == "win":
            shares = share_by_points(s["points"])
            pred.rewards = [a + b for a, b in zip(pred.rewards, shares, strict=True)]

    if action == DRAW:
        hand.append(s["draw_pile"].pop(0))
        s["phase"] = "meld"
    elif action < PLACE:
        k = action - TAKE + 1
        got = s["discard_pile"][-k:]
        del s["discard_pile"][-k:]
        hand.extend(got)
        s["known"][p].extend(got)
        taken += got
        s["phase"] = "meld"
    elif action < UNDO:
        c = action - PLACE
        hand.remove(c)
        s["placed"].append(c)
        s["placements"] += 1
    elif action == UNDO:
        hand.extend(s["placed"])
        s["placed"] = []
    elif action == END_MELD:
        if s["placed"]:
            s["table"] += s["placed"]
            s["known"][p] = _minus(s["known"][p], s["placed"])
            taken = _minus(taken, s["placed"])
            s["opened"][p] = True
            s["placed"] = []
        if not hand:
            end_hand(p)
        else:
            s["phase"] = "discard"
    else:
        c = action - DISCARD
        hand.remove(c)
        s["known"][p] = _minus(s["known"][p], [c])
        taken = _minus(taken, [c])
        s["discard_pile"].append(c)
        if not hand:
            end_hand(p)
        else:
            s["hand_turns"] += 1
            if s["hand_turns"] >= rules.max_turns:
                pred.events.append("truncated")
                s["done"] = s["truncated"] = True
            else:
                taken = []
                s.update(current_player=(p + 1) % n, phase="draw", placements=0)
                if not s["draw_pile"]:
                    if len(s["discard_pile"]) <= 1:
                        end_hand(None)
                    else:
                        pred.events.append("refill")
                        s["refilled"] = True
                        s["draw_pile"] = Shuffled(tuple(s["discard_pile"][:-1]))
                        s["discard_pile"] = s["discard_pile"][-1:]
    for key in ("hands", "known"):
        s[key] = [h if isinstance(h, Dealt) else sorted(h) for h in s[key]]
    s["table"] = sorted(s["table"])
    s["placed"] = sorted(s["placed"])
    if "new_hand" not in pred.events:
        s["taken"] = sorted(taken)
    return pred
