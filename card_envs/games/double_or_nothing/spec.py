"""Double or Nothing as a `Game`: options, the play helpers, bounds, state_dict, text."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from card_envs.core import layout
from card_envs.core.combos import range_copies, range_strength
from card_envs.core.config import Option
from card_envs.core.engine import Game, run_policy
from card_envs.core.padding import Segment
from card_envs.core.scene import Scene
from card_envs.games.double_or_nothing import batched, search, table
from card_envs.games.double_or_nothing import engine as k
from card_envs.games.double_or_nothing.heuristic import computer_actions, heuristic_actions

MAX_STAGE = 10
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


class DoubleOrNothing(Game):
    env_id = "double_or_nothing_v0"
    title = "Double or Nothing"
    options = {
        "num_players": Option(2, "always 2", low=2, high=2),
        "stage": Option(
            1, "game number g: decks, hands and draws scale by 2**(g-1)", low=1, high=MAX_STAGE
        ),
        "first_leader": Option(0, "seat that leads the first hand", low=0, high=1),
        "max_turns": Option(2000, "truncate after this many actions x 2**(g-1)", low=1),
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
    search_kernel = search.search
    test_configs = (
        dict(stage=1),
        dict(stage=2, first_leader=1),
        dict(stage=3, reward="zero_sum"),
        dict(stage=1, max_turns=40),  # most games truncated
    )
    num_actions = k.NUM_RANGES + 1
    obs_size = k.OBS_SIZE

    def __init__(self, **config) -> None:
        super().__init__(**config)
        self.stage = self.config["stage"]
        self.state_size = k.state_size(self.stage)

    def encode_config(self, row: np.ndarray) -> None:
        row[layout.NUM_PLAYERS] = 2
        row[k.CFG_STAGE] = self.stage
        row[k.CFG_REWARD] = k.REWARD_WIN if self.config["reward"] == "win" else k.REWARD_ZERO_SUM
        row[k.CFG_FIRST] = self.config["first_leader"]
        row[k.CFG_MAX_TURNS] = self.config["max_turns"] * int(k.scale(self.stage))
        row[k.CAP] = int(k.total_cards(self.stage))

    def reward_range(self) -> tuple[float, float]:
        return -1.0, 1.0

    def obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        high = np.ones(self.obs_size, dtype=np.float32)
        all_cards = int(k.total_cards(1))  # counts are scaled to stage 1
        high[k.OBS_OWN : k.OBS_OWN + k.NUM_NUMBERS] = all_cards
        high[k.OBS_TRICK : k.OBS_TRICK + k.NUM_NUMBERS] = all_cards
        high[[k.OBS_OPP_HAND, k.OBS_OWN_DECK, k.OBS_OPP_DECK]] = all_cards
        high[[k.OBS_BEAT_COPIES, k.OBS_BEAT_CARDS]] = all_cards
        high[k.OBS_STAGE] = MAX_STAGE
        return np.zeros(self.obs_size, dtype=np.float32), high

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
        }

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

    def computer_actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return run_policy(computer_actions, observations, masks)
