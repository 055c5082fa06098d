"""Double or Nothing as a `Game`: options, the play helpers, bounds, state_dict, text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from card_envs.core import layout, views
from card_envs.core.combos import range_copies, range_strength
from card_envs.core.config import COUNT_CAP, Option
from card_envs.core.engine import Game
from card_envs.core.loading import Reader
from card_envs.core.scene import Scene
from card_envs.core.segments import Segment
from card_envs.games.double_or_nothing import batched, search, table
from card_envs.games.double_or_nothing import engine as k
from card_envs.games.double_or_nothing.heuristic import computer_actions, heuristic_actions

MAX_STAGE = 10
# state dict keys of the hidden-information bookkeeping (what `resample_hidden` keeps)
HISTORY_KEYS = ("segment_rest", "segments", "fresh", "pinned")
Play = tuple[int, int, int]  # (copies, lo, hi)


def _counts(counts: Sequence[int]) -> np.ndarray:
    arr = np.asarray(counts)
    if arr.shape != (k.NUM_NUMBERS,) or arr.dtype.kind not in "iu" or (arr < 0).any():
        raise ValueError(f"counts must be 8 non-negative ints (numbers 1..8), got {counts!r}")
    return arr.astype(np.int64)


def _check_range(lo: int, hi: int) -> None:
    if not (1 <= lo <= hi <= k.NUM_NUMBERS):
        raise ValueError(f"a range needs 1 <= lo <= hi <= 8, got lo={lo!r}, hi={hi!r}")


def play_for_range(counts: Sequence[int], lo: int, hi: int) -> Play | None:
    """The play that selecting lo..hi makes: every copy of the scarcest number in the range;
    None if a number of the range is missing."""
    _check_range(lo, hi)
    copies = int(range_copies(_counts(counts), lo, hi))
    return (copies, lo, hi) if copies else None


def _strength(play: Play) -> int:
    copies, lo, hi = play
    _check_range(lo, hi)
    if copies < 1:
        raise ValueError(f"a play has at least one copy, got {play!r}")
    return int(range_strength(copies, lo, hi))


def stronger(a: Play, b: Play) -> bool:
    """Whether play a beats play b: more cards, then more numbers, then a higher top."""
    return _strength(a) > _strength(b)


def computer_move(counts: Sequence[int], to_beat: Play | None) -> Play | None:
    """The original computer's choice (None = pass); `to_beat` None when leading."""
    c = _counts(counts)
    action = int(k.computer_action(c, -1 if to_beat is None else _strength(to_beat)))
    if action == k.PASS:
        return None
    lo, hi = k.range_of(action)
    return play_for_range(c, int(lo), int(hi))


def action_name(action: int) -> str:
    if action == k.PASS:
        return "pass"
    lo, hi = k.range_of(action)
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _count_word(n: int) -> str:
    return _WORDS[n] if n < len(_WORDS) else str(n)


def _deck(row: np.ndarray, p: int) -> list[int]:
    return [int(row[k.deck_slot(row, p, i)]) for i in range(int(row[k.SIZE + p]))]


def _segments(row: np.ndarray, p: int) -> list[int]:
    """Lengths of the whole segments of p's deck, top to bottom, under the rest of the
    segment p is drawing from."""
    out, i, size = [], int(row[k.TOP_N + p]), int(row[k.SIZE + p])
    while i < size:
        out.append(int(k.segment_length(row, p, i)))
        i += out[-1]
    return out


def card_numbers(counts: Sequence[int]) -> list[int]:
    """The cards that per-number counts stand for: [1, 1, 3] for counts 2, 0, 1."""
    return [v + 1 for v, c in enumerate(counts) for _ in range(c)]


def _history(r: Reader, key: str, p: int, default: Any) -> Any:
    """Seat p's item of a hidden-information bookkeeping field, or `default` (no history:
    the deck one segment, nothing drawn from it yet) when a hand-written position leaves the
    field out."""
    return r.per_seat(key, 2)[p] if key in r.d else default


RULES_SUMMARY = """\
Double or Nothing, a two-player climbing game. The cards carry the numbers 1 to 8. At \
stage g every size doubles: each deck starts with 4 x 2^(g-1) copies of every number, a \
hand is 10 x 2^(g-1) cards and a pass draws 2^g cards.

A play is a range of numbers lo..hi, every one of them in your hand. You do not choose \
the copies: a play takes as many copies of each number as you hold of the scarcest one \
(holding three 7s and two 8s, 7-8 plays two of each). A stronger play has more cards; with \
as many cards, more distinct numbers; then the higher top number.

A trick: the leader plays anything. The other player must reply with a strictly stronger \
play or pass (only a reply may pass); replies go back and forth. The passer draws 2^g \
cards from its deck, the play area goes under the other player's deck, and that player \
leads the next trick.

A hand: whoever empties their hand first wins it and puts the play area and the other \
player's hand under their own deck, then leads the next hand. Before each new hand both \
draw a full hand; if a deck is short of that, the game ends.

Goal: own more cards (hand plus deck) than the other player when the game ends; equal \
counts are a draw. A game that reaches the move limit is cut short as a draw.

You never see the other hand or the order of the decks.

Moves here: "play 2 x 7-8-9 (6 cards)" plays the range 7..9 with its forced copies, "play \
4 x 5" all your 5s, "pass (draw 2 cards)" passes; "7-9" and "pass" name them too. Every \
move has an id (0..35 the ranges by lo then hi, 36 pass); a bare number is read as an \
id."""


class DoubleOrNothing(Game):
    env_id = "double_or_nothing_v0"
    title = "Double or Nothing"
    options = {
        "num_players": Option(2, "always 2", low=2, high=2),
        "stage": Option(
            1, "game number g: decks, hands and draws scale by 2**(g-1)", low=1, high=MAX_STAGE
        ),
        "first_leader": Option(0, "seat that leads the first hand", low=0, high=1),
        "max_turns": Option(
            2000, "truncate after this many actions x 2**(g-1)", low=1, high=COUNT_CAP
        ),
        "reward": Option(
            "win",
            "'win': 1 to the winner, 0.5 each on a draw; 'zero_sum': +1/-1/0",
            ("win", "zero_sum"),
        ),
    }
    engine = k
    obs_segments = (Segment("all", k.OBS_SIZE),)  # two seats, no optional slots
    batched = batched
    heuristic_kernel = heuristic_actions
    computer_kernel = computer_actions
    search_kernel = search.search
    ismcts_10ms = "ismcts:300"
    ismcts_larger = "ismcts:1200"
    speed_targets = (4.0, 60.0)
    speed_configs = (dict(stage=4),)
    compile_seconds = 17  # its run env's included
    test_configs = (
        dict(stage=1),
        dict(stage=2, first_leader=1),
        dict(stage=3, reward="zero_sum"),
        dict(stage=1, max_turns=40),  # most games truncated
        dict(stage=2, history=8),
    )
    num_actions = k.NUM_RANGES + 1
    game_obs_size = k.OBS_SIZE
    history_codes = k.HISTORY_CODES
    rules_summary = RULES_SUMMARY

    def __init__(self, **config) -> None:
        super().__init__(**config)
        self.stage = self.config["stage"]
        self.game_state_size = k.state_size(self.stage)

    def encode_config(self, row: np.ndarray) -> None:
        row[layout.NUM_PLAYERS] = 2
        row[k.CFG_STAGE] = self.stage
        row[k.CFG_REWARD] = k.REWARD_WIN if self.config["reward"] == "win" else k.REWARD_ZERO_SUM
        row[k.CFG_FIRST] = self.config["first_leader"]
        row[k.CFG_MAX_TURNS] = self.config["max_turns"] * int(k.scale(self.stage))
        row[k.CAP] = int(k.total_cards(self.stage))

    def reward_range(self) -> tuple[float, float]:
        return -1.0, 1.0

    def game_obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        high = np.ones(self.game_obs_size, dtype=np.float32)
        all_cards = int(k.total_cards(1))  # counts are scaled to stage 1
        high[k.OBS_OWN : k.OBS_OWN + k.NUM_NUMBERS] = all_cards
        high[k.OBS_TRICK : k.OBS_TRICK + k.NUM_NUMBERS] = all_cards
        high[[k.OBS_OPP_HAND, k.OBS_OWN_DECK, k.OBS_OPP_DECK]] = all_cards
        high[[k.OBS_BEAT_COPIES, k.OBS_BEAT_CARDS]] = all_cards
        high[k.OBS_STAGE] = MAX_STAGE
        return np.zeros(self.game_obs_size, dtype=np.float32), high

    def fields(self, row: np.ndarray) -> dict:
        scores, wins = np.zeros(2), np.zeros(2)
        k.outcome(row, scores, wins)
        copies = int(row[k.BEAT_COPIES])
        return {
            "num_players": 2,
            "stage": self.stage,
            "current_player": int(row[layout.PLAYER]),
            "hands": [[int(x) for x in row[k.HAND + 8 * p : k.HAND + 8 * p + 8]] for p in (0, 1)],
            "decks": [_deck(row, 0), _deck(row, 1)],
            "current_play": [copies, int(row[k.BEAT_LO]), int(row[k.BEAT_HI])] if copies else None,
            "trick": [int(x) for x in row[k.TRICK : k.TRICK + k.NUM_NUMBERS]],
            "leader": int(row[k.LEADER]),
            "hands_played": int(row[k.HANDS_PLAYED]),
            "turns": int(row[layout.TURN]),
            "cards": [int(s) for s in scores],
            "done": bool(row[layout.STATUS] != layout.RUNNING),
            "truncated": bool(row[layout.STATUS] == layout.TRUNCATED),
            # the hidden-information bookkeeping (`resample_hidden`; docs/envs, "Hidden
            # information and resampling"): what a seat may remember of the deck segments
            "segment_rest": [int(row[k.TOP_N + p]) for p in (0, 1)],
            "segments": [_segments(row, 0), _segments(row, 1)],
            "fresh": [
                [int(x) for x in row[k.FRESH + k.BOOK * p :][: k.NUM_NUMBERS]] for p in (0, 1)
            ],
            "pinned": [
                [v + 1 for v in range(k.NUM_NUMBERS) if row[k.PINNED + p] >> v & 1] for p in (0, 1)
            ],
        }

    def load_fields(self, r: Reader, row: np.ndarray) -> None:
        """The loaded row equals the original but in slots the engine never reads again: the
        decks start at the top of their buffers (the rotation of a ring buffer), buffer and
        segment-length slots outside the decks' segment starts are left 0, and so are the
        lo and hi of the last play once the trick is cleared."""
        status = int(row[layout.STATUS])
        turn, cap = int(row[layout.TURN]), int(row[k.CFG_MAX_TURNS])
        if status == layout.RUNNING and turn >= cap:
            r.fail("turn", f"{turn}: a game still running is below the cap of {cap} turns")
        if status == layout.TRUNCATED and turn != cap:
            r.fail("turn", f"{turn}: a truncated game stopped at the cap, turn {cap}")
        if turn > cap:
            r.fail("turn", f"{turn}: no game of this config lasts beyond turn {cap}")
        player = r.int("current_player", 0, 1)
        each = 8 * int(k.scale(self.stage))  # every copy of a number: bounds every count
        hands = [r.ints(f"hands[{p}]", 0, each, length=k.NUM_NUMBERS, value=h)
                 for p, h in enumerate(r.per_seat("hands", 2))]  # fmt: skip
        decks = [r.ints(f"decks[{p}]", 1, k.NUM_NUMBERS, value=d)
                 for p, d in enumerate(r.per_seat("decks", 2))]  # fmt: skip
        trick = r.ints("trick", 0, each, length=k.NUM_NUMBERS)
        r.partition(
            {"hands": card_numbers(hands[0]) + card_numbers(hands[1]),
             "trick": card_numbers(trick), "decks": decks[0] + decks[1]},
            card_numbers([each] * k.NUM_NUMBERS),
        )  # fmt: skip
        play = self._read_play(r, trick)
        leader = r.int("leader", 0, 1)
        if status == layout.TERMINATED:
            self._check_the_end(r, hands, decks, play)
        else:
            self._check_the_trick(r, hands, trick, play, player, leader)
        hands_played = r.int("hands_played", 0)
        if hands_played > turn:
            r.fail("hands_played", f"{hands_played} hands cannot end in {turn} turns")
        row[layout.PLAYER] = player
        row[k.HAND : k.HAND + 2 * k.NUM_NUMBERS] = hands[0] + hands[1]
        row[k.TRICK : k.TRICK + k.NUM_NUMBERS] = trick
        row[k.BEAT_COPIES : k.BEAT_HI + 1] = play or (0, 0, 0)
        row[k.LEADER] = leader
        row[k.HANDS_PLAYED] = hands_played
        for p in (0, 1):
            self._load_deck(r, row, p, decks[p])

    def _read_play(self, r: Reader, trick: list[int]) -> list[int] | None:
        """The play to beat, [copies, lo, hi] or None; the trick must hold it."""
        if r.get("current_play") is None:
            if sum(trick):
                r.fail("trick", f"holds {sum(trick)} card(s), yet there is no play to beat")
            return None
        copies, lo, hi = r.ints("current_play", 1, length=3)
        if not lo <= hi <= k.NUM_NUMBERS:
            r.fail(
                "current_play", f"[copies, lo, hi] needs 1 <= lo <= hi <= 8, got lo {lo}, hi {hi}"
            )
        if any(trick[v - 1] < copies for v in range(lo, hi + 1)):
            r.fail("trick", f"{trick} does not hold the play to beat, {copies} x {lo}..{hi}")
        return [copies, lo, hi]

    def _check_the_end(self, r: Reader, hands, decks, play) -> None:
        """A game ends as a hand ends (every card in the decks) with a deck short of a hand."""
        if play is not None:
            r.fail("current_play", "the game is over, so the play area is cleared")
        if any(hands[0] + hands[1]):
            r.fail("hands", "the game ended with a hand, so every card is in the decks")
        need = int(k.hand_size(self.stage))
        if min(len(decks[0]), len(decks[1])) >= need:
            r.fail(
                "decks",
                f"the game ended, so a deck is short of a hand of {need}; "
                f"they hold {len(decks[0])} and {len(decks[1])}",
            )

    def _check_the_trick(self, r: Reader, hands, trick, play, player, leader) -> None:
        """Both hands hold cards while the game goes on (an empty hand ends the hand); a
        trick with no play is led by the seat to act; one that comes back to its leader
        holds a weaker play under the play to beat."""
        for p in (0, 1):
            if not any(hands[p]):
                r.fail("hands", f"player {p}'s hand is empty while the game goes on")
        if play is None and leader != player:
            r.fail("leader", f"player {player} is to lead the trick, not player {leader}")
        if play is not None and leader == player:
            copies, lo, hi = play
            if sum(trick) <= copies * (hi - lo + 1):
                r.fail(
                    "trick",
                    f"player {player} led it and is to reply, so it holds an earlier play "
                    "besides the play to beat",
                )

    def _load_deck(self, r: Reader, row: np.ndarray, p: int, deck: list[int]) -> None:
        """p's deck from the top of its buffer, with the hidden-information bookkeeping."""
        size = len(deck)
        top = r.int(f"segment_rest[{p}]", 0, size, value=_history(r, "segment_rest", p, 0))
        whole = [size - top] if size > top else []
        segments = r.ints(f"segments[{p}]", 1, value=_history(r, "segments", p, whole))
        if top + sum(segments) != size:
            r.fail(
                f"segments[{p}]",
                f"the rest of the segment being drawn ({top}) and the segments {segments} "
                f"make {top + sum(segments)} cards; the deck holds {size}",
            )
        each = 8 * int(k.scale(self.stage))  # every copy of a number
        fresh = _history(r, "fresh", p, [0] * k.NUM_NUMBERS)
        fresh = r.ints(f"fresh[{p}]", 0, each, length=k.NUM_NUMBERS, value=fresh)
        pinned = r.ints(f"pinned[{p}]", 1, k.NUM_NUMBERS, value=_history(r, "pinned", p, []))
        if pinned != sorted(set(pinned)):
            r.fail(f"pinned[{p}]", f"{pinned}: numbers in increasing order, each once")
        cap = int(row[k.CAP])
        base = k.DECKS + p * cap
        row[base : base + size] = deck
        start = top
        for n in segments:
            row[base + start + 2 * cap] = n
            start += n
        row[k.HEAD + p] = 0
        row[k.SIZE + p] = size
        row[k.TOP_N + p] = top
        left = k.TOP_LEFT + k.BOOK * p
        row[left : left + k.NUM_NUMBERS] = np.bincount(deck[:top], minlength=9)[1:]
        row[k.FRESH + k.BOOK * p :][: k.NUM_NUMBERS] = fresh
        row[k.PINNED + p] = sum(1 << (v - 1) for v in pinned)

    def render(self, row: np.ndarray, seat: int) -> str:
        s = self.state_dict(row)
        other = 1 - seat
        play = s["current_play"]
        beat = (
            f"to beat: {play[0]} x {action_name(int(k.action_of(play[1], play[2])))}"
            if play
            else "you lead"
        )
        hand = " ".join(f"{v + 1}x{c}" for v, c in enumerate(s["hands"][seat]) if c)
        return "\n".join(
            [
                f"Stage {self.stage}, hand {s['hands_played'] + 1}; player_{s['current_player']} "
                f"to act; {beat}; {sum(s['trick'])} card(s) in the play area.",
                f"  you: hand {hand or '-'}, deck {len(s['decks'][seat])}",
                f"  player_{other}: {sum(s['hands'][other])} card(s) in hand, "
                f"deck {len(s['decks'][other])}",
            ]
        )

    def table(self, row: np.ndarray, viewer: int | None) -> Scene:
        return table.scene(self, row, viewer)

    def view_fields(self, row: np.ndarray, seat: int) -> dict:
        """The stage, the seat's hand by number, the other hand's size, both decks' sizes,
        the cards each seat owns, the play to beat with who played it, the play area and
        who led the trick."""
        s = self.state_dict(row)
        other = 1 - seat
        play = s["current_play"]
        to_beat = None
        if play:
            copies, lo, hi = play
            to_beat = {
                "copies": copies,
                "numbers": list(range(lo, hi + 1)),
                "cards": copies * (hi - lo + 1),
                "played_by": views.agent_name(1 - s["current_player"]),
            }
        hand = s["hands"][seat]
        return {
            "stage": self.stage,
            "hand_number": s["hands_played"] + 1,
            "move_limit": int(row[k.CFG_MAX_TURNS]),
            "your_hand": {str(v): c for v, c in enumerate(hand, 1) if c},
            "your_hand_size": sum(hand),
            "your_deck_size": len(s["decks"][seat]),
            "opponent": views.agent_name(other),
            "opponent_hand_size": sum(s["hands"][other]),
            "opponent_deck_size": len(s["decks"][other]),
            "cards_owned": {views.agent_name(p): s["cards"][p] for p in (0, 1)},
            "trick_led_by": None if s["done"] else views.agent_name(s["leader"]),
            "play_to_beat": to_beat,
            "play_area": {str(v): c for v, c in enumerate(s["trick"], 1) if c},
        }

    def view_text(self, row: np.ndarray, seat: int) -> str:
        v = self.view(row, seat)
        lines = views.head_lines(self.title, v)
        lines.append(
            f"Stage {v['stage']} (hands of {10 * int(k.scale(self.stage))} cards), "
            f"hand {v['hand_number']}; the game is cut short after {v['move_limit']} moves."
        )
        if not v["done"]:
            beat = v["play_to_beat"]
            if beat:
                numbers = "-".join(map(str, beat["numbers"]))
                lines.append(
                    f"Play to beat: {beat['copies']} x {numbers} ({beat['cards']} cards) by "
                    f"{views.who(beat['played_by'], v)}; the trick was led by "
                    f"{views.who(v['trick_led_by'], v)}."
                )
            else:
                lines.append(f"No play to beat: {views.who(v['to_act'], v)} leads the trick.")
            area = ", ".join(f"{c} x {n}" for n, c in v["play_area"].items())
            lines.append(f"Play area: {area or 'empty'}.")
        hand = ", ".join(f"{c} x {n}" for n, c in v["your_hand"].items())
        lines.append(f"Your hand ({v['your_hand_size']} cards): {hand or 'empty'}.")
        lines.append(f"Your deck: {v['your_deck_size']} cards.")
        lines.append(
            f"{v['opponent']}: {v['opponent_hand_size']} card(s) in hand, "
            f"{v['opponent_deck_size']} in deck."
        )
        owned = ", ".join(f"{views.who(a, v)} {c}" for a, c in v["cards_owned"].items())
        lines.append(f"Cards owned (hand and deck): {owned}.")
        return "\n".join(lines)

    def action_name(self, action: int) -> str:
        return action_name(action)

    def describe(self, row: np.ndarray, action: int, actor: int, viewer: int) -> str:
        """ "play 2 x 7-8-9 (6 cards; forced copies: two 8s)": the numbers that force the
        copies are named to the player only (the play shows the others that one ran out)."""
        if action == k.PASS:
            return f"pass (draw {2 * int(k.scale(self.stage))} cards)"
        lo, hi = (int(x) for x in k.range_of(action))
        hand = row[k.HAND + k.NUM_NUMBERS * actor : k.HAND + k.NUM_NUMBERS * (actor + 1)]
        counts = [int(hand[v - 1]) for v in range(lo, hi + 1)]
        copies = min(counts)
        text = f"play {copies} x {'-'.join(map(str, range(lo, hi + 1)))}"
        if lo == hi:
            return text
        text += f" ({copies * (hi - lo + 1)} cards"
        if viewer == actor and max(counts) > copies:
            scarce = [v for v, c in zip(range(lo, hi + 1), counts, strict=True) if c == copies]
            each = (f"{_count_word(copies)} {v}{'s' * (copies != 1)}" for v in scarce)
            text += f"; forced copies: {', '.join(each)}"
        return text + ")"
