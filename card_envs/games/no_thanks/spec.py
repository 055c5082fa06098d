"""No Thanks! as a `Game`: options, observation bounds, state_dict and text rendering."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from card_envs.core import layout, views
from card_envs.core.config import Option
from card_envs.core.engine import Game
from card_envs.core.loading import Reader
from card_envs.core.scene import Scene
from card_envs.games.no_thanks import batched, search, table
from card_envs.games.no_thanks import engine as k
from card_envs.games.no_thanks.heuristic import heuristic_actions

ACTION_NAMES = ("take", "no thanks")


def _mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def cards_of(mask: int) -> list[int]:
    return [c for c in range(k.LOW_CARD, k.HIGH_CARD + 1) if (mask >> c) & 1]


def score(cards: Iterable[int], tokens: int) -> int:
    """Points of a hand: the lowest card of each run of consecutive cards, minus tokens."""
    cards = list(cards)
    bad = [
        c
        for c in cards
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 3 <= c <= 35
    ]
    if bad:
        raise ValueError(f"cards must be ints in 3..35, got {bad}")
    if len(set(cards)) != len(cards):
        raise ValueError(f"cards must be distinct, got {sorted(cards)}")
    if isinstance(tokens, bool) or not isinstance(tokens, (int, np.integer)) or tokens < 0:
        raise ValueError(f"tokens must be a non-negative int, got {tokens!r}")
    return int(k.card_points(np.int64(_mask_of(int(c) for c in cards)), np.int64(tokens)))


def turn_range(taken: int, pot: int, total: int) -> tuple[int, int]:
    """The turns a game can have played when `taken` cards were taken and `pot` tokens lie on
    the card on offer: a turn is a take or a pass, the pot holds the passes on the card on
    offer, and no card is passed more often than there are tokens (`total`)."""
    return taken + pot, taken * (total + 1) + pot


RULES_SUMMARY = """\
No Thanks! for 3 to 7 players. The cards run from 3 to 35, one of each; 9 of them are set \
aside unseen at the start and the other 24 come up one at a time. Everyone starts with \
tokens (11 each with 3 to 5 players, 9 with 6, 7 with 7).

Goal: the lowest score. A player's score is the sum of the lowest card of each run of \
consecutive cards it holds, minus its tokens: holding 10, 11, 12 and 13 costs only 10 points, \
while 10 and 12 cost 22. Every token is worth one point off.

A turn: the player to act decides on the card on offer.
- "take": take the card and every token on it; the next card comes up and the same player \
decides again.
- "no thanks": put one of your own tokens on the card and pass the decision to the next \
player in seat order (player_0, player_1, ... and round again). With no tokens left you \
must take.

So a card nobody wants collects tokens as it goes round: taking it late can pay, and a card \
that extends one of your runs costs nothing. Each player sees its own tokens; the other \
players' token counts are hidden unless this table plays with public tokens. Everyone sees \
every player's cards and how many cards are still to come.

The end: the game ends when the 24th card is taken; the lowest score wins and tied players \
share the win.

Moves here: "take 23 (4 tokens)" takes the card on offer with the tokens on it, "no thanks \
(pay a token on 23)" passes; each has an id (0 take, 1 no thanks), and "take" and "no \
thanks" alone name them too."""


def _runs_text(cards: list[int]) -> str:
    runs = table.runs(cards)
    return " ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs) or "-"


class NoThanks(Game):
    env_id = "no_thanks_v0"
    title = "No Thanks!"
    options = {
        "num_players": Option(3, "number of players", low=3, high=7),
        "public_tokens": Option(False, "whether the other seats' token counts are observed"),
        "reward": Option(
            "win", "'win': winners share 1; 'score': minus the final score", ("win", "score")
        ),
    }
    engine = k
    obs_segments = k.OBS_SEGMENTS
    batched = batched
    heuristic_kernel = heuristic_actions
    search_kernel = search.search
    ismcts_10ms = "ismcts:700"
    ismcts_larger = "ismcts:3000"
    speed_targets = (5.0, 200.0)
    compile_seconds = 12
    test_configs = (
        *(dict(num_players=n, public_tokens=p) for n in range(3, 8) for p in (False, True)),
        dict(num_players=4, reward="score"),
        dict(num_players=4, history=8),
    )
    private_hands = False  # hidden: the deck; token counts follow from the public plays
    rules_summary = RULES_SUMMARY
    game_state_size = k.STATE_SIZE
    history_codes = k.HISTORY_CODES
    num_actions = 2

    def __init__(self, **config) -> None:
        super().__init__(**config)
        self.game_obs_size = k.obs_size(self.num_players, self.config["public_tokens"])

    def encode_config(self, row: np.ndarray) -> None:
        row[layout.NUM_PLAYERS] = self.num_players
        row[k.CFG_PUBLIC_TOKENS] = int(self.config["public_tokens"])
        row[k.CFG_REWARD] = k.REWARD_WIN if self.config["reward"] == "win" else k.REWARD_SCORE

    def reward_range(self) -> tuple[float, float]:
        if self.config["reward"] == "win":
            return -1.0, 1.0
        all_cards = sum(range(k.LOW_CARD, k.HIGH_CARD + 1))  # minus the score: cards - tokens
        return -float(all_cards), float(self.num_players * k.starting_tokens(self.num_players))

    def game_obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.num_players
        all_tokens = n * int(k.starting_tokens(n))
        high = np.ones(self.game_obs_size, dtype=np.float32)
        high[k.OBS_POT] = all_tokens
        high[k.OBS_OWN_TOKENS] = all_tokens
        if self.config["public_tokens"]:
            start = k.OBS_CARDS + k.NUM_CARDS * n
            high[start : start + n - 1] = all_tokens
        high[-1] = k.NUM_PLAYED - 1
        return np.zeros(self.game_obs_size, dtype=np.float32), high

    def fields(self, row: np.ndarray) -> dict:
        n = self.num_players
        scores = np.zeros(n, dtype=np.float64)
        k.outcome(row, scores, np.zeros(n, dtype=np.float64))
        nxt = int(row[k.NEXT])
        return {
            "num_players": n,
            "current_player": int(row[layout.PLAYER]),
            "current_card": int(row[k.CARD]) or None,
            "pot": int(row[k.POT]),
            "tokens": [int(t) for t in row[k.TOKENS : k.TOKENS + n]],
            "cards": [cards_of(int(m)) for m in row[k.CARDS : k.CARDS + n]],
            "deck": [int(c) for c in row[k.DECK + nxt : k.DECK + k.NUM_PLAYED]],
            "removed": [int(c) for c in row[k.DECK + k.NUM_PLAYED : k.DECK + k.NUM_CARDS]],
            "done": bool(row[layout.STATUS] != layout.RUNNING),
            "scores": [int(s) for s in scores],
        }

    def load_fields(self, r: Reader, row: np.ndarray) -> None:
        n = self.num_players
        running = row[layout.STATUS] == layout.RUNNING
        if row[layout.STATUS] == layout.TRUNCATED:
            r.fail("status", "No Thanks! games are never truncated")
        row[layout.PLAYER] = r.int("current_player", 0, n - 1)
        cards = [r.ints(f"cards[{p}]", k.LOW_CARD, k.HIGH_CARD, value=c)
                 for p, c in enumerate(r.per_seat("cards", n))]  # fmt: skip
        card = r.get("current_card")
        offer = [] if card is None else [r.int("current_card", k.LOW_CARD, k.HIGH_CARD)]
        deck = r.ints("deck", k.LOW_CARD, k.HIGH_CARD)
        removed = r.ints("removed", k.LOW_CARD, k.HIGH_CARD, length=k.NUM_REMOVED)
        places = {"cards": [c for hand in cards for c in hand], "current_card": offer}
        r.partition(
            {**places, "deck": deck, "removed": removed}, range(k.LOW_CARD, k.HIGH_CARD + 1)
        )
        if running != bool(offer):
            r.fail("current_card", "there is a card on offer exactly while the game runs")
        if not running and deck:
            r.fail("deck", f"the game is over, yet {len(deck)} card(s) are still to come")
        tokens = r.ints("tokens", 0, length=n)
        pot = r.int("pot", 0)
        total = n * int(k.starting_tokens(n))
        if sum(tokens) + pot != total:
            r.fail("tokens", f"{tokens} and the pot's {pot} make {sum(tokens) + pot}, not {total}")
        if not running and pot:
            r.fail("pot", f"the game is over, so the last card took the pot; it holds {pot}")
        taken = sorted(places["cards"])
        low, high = turn_range(len(taken), pot, total)
        if not low <= row[layout.TURN] <= high:
            r.fail(
                "turn",
                f"{row[layout.TURN]} turns cannot have taken {len(taken)} cards with {pot} "
                f"token(s) on the card on offer: {low}..{high} can",
            )
        nxt = k.NUM_PLAYED - len(deck)
        row[k.DECK : k.DECK + k.NUM_CARDS] = taken + offer + deck + removed
        row[k.NEXT] = nxt
        row[k.CARD] = offer[0] if offer else 0
        row[k.POT] = pot
        row[k.TOKENS : k.TOKENS + n] = tokens
        row[k.CARDS : k.CARDS + n] = [_mask_of(hand) for hand in cards]

    def render(self, row: np.ndarray, seat: int) -> str:
        s = self.state_dict(row)
        n = s["num_players"]
        if s["done"]:
            head = "Game over. Scores: " + ", ".join(
                f"player_{p} {s['scores'][p]}" for p in range(n)
            )
        else:
            head = (
                f"Card {s['current_card']} with {s['pot']} token(s) on it; "
                f"{len(s['deck'])} card(s) still to come. player_{s['current_player']} to act."
            )
        lines = [head]
        for q in range(n):
            p = (seat + q) % n
            tokens = s["tokens"][p] if q == 0 or self.config["public_tokens"] else "?"
            who = "you" if q == 0 else f"player_{p}"
            lines.append(f"  {who:>9}: tokens {tokens:>2}  cards {_runs_text(s['cards'][p])}")
        return "\n".join(lines)

    def table(self, row: np.ndarray, viewer: int | None) -> Scene:
        return table.scene(self, row, viewer)

    def view_fields(self, row: np.ndarray, seat: int) -> dict:
        """The card on offer and its tokens, the cards still to come, the seat's tokens and
        every seat's cards in runs with their points; another seat's tokens (and so its
        points) only with `public_tokens`."""
        s = self.state_dict(row)
        public = bool(self.config["public_tokens"])
        players = []
        for p in range(self.num_players):
            cards = s["cards"][p]
            card_points = score(cards, 0)
            entry = {
                "player": views.agent_name(p),
                "cards": cards,
                "runs": table.runs(cards),
                "card_points": card_points,
            }
            if p == seat or public:
                tokens = s["tokens"][p]
                entry |= {"tokens": tokens, "points": card_points - tokens}
            players.append(entry)
        return {
            "card_on_offer": s["current_card"],
            "tokens_on_card": s["pot"],
            "cards_still_to_come": len(s["deck"]),
            "your_tokens": s["tokens"][seat],
            "tokens_public": public,
            "players": players,
        }

    def view_text(self, row: np.ndarray, seat: int) -> str:
        v = self.view(row, seat)
        lines = views.head_lines(self.title, v)
        if v["card_on_offer"] is not None:
            lines.append(
                f"Card on offer: {v['card_on_offer']}, with {v['tokens_on_card']} token(s) on "
                f"it; {v['cards_still_to_come']} card(s) still to come after it."
            )
        lines.append(f"Your tokens: {v['your_tokens']}.")
        hidden = "" if v["tokens_public"] else "; other players' tokens are hidden"
        lines.append(f"Cards taken, in runs (a run counts its lowest card){hidden}:")
        for entry in v["players"]:
            runs = ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in entry["runs"])
            runs = runs or "no cards"
            line = f"  {views.who(entry['player'], v)}: {runs}; cards {entry['card_points']}"
            if "tokens" in entry:
                line += f", {entry['tokens']} token(s), {entry['points']} points"
            lines.append(line)
        return "\n".join(lines)

    def action_name(self, action: int) -> str:
        return ACTION_NAMES[action]

    def describe(self, row: np.ndarray, action: int, actor: int, viewer: int) -> str:
        pot = int(row[k.POT])
        if action == k.TAKE:
            return f"take {int(row[k.CARD])} ({pot} token{'s' * (pot != 1)})"
        return f"no thanks (pay a token on {int(row[k.CARD])})"
