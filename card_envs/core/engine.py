"""The engine protocol: what a game supplies so every face (AEC, batched, views) can run it.

A game is numba kernels over one flat int64 state row (see `layout` for the shared header)
plus a little Python for config, inspection and text. The kernels, all `@njit(cache=True)`:

- `reset(row)`: deal a new game from the row's PRNG; the config slots are kept.
- `step(row, action, rewards)`: apply a legal action; add each seat's reward to the float32
  vector `rewards` (zeroed by the caller).
- `observe(row, seat, out)`: write what `seat` may know into the float32 vector `out`.
- `legal(row, out)`: the int8 action mask of the seat to act (all zero once over).
- `outcome(row, scores, wins)`: each seat's game score as the rules count it, and its share
  of the win (1/k for each of k tied winners, by the game's own ranking and tie-breakers),
  into two float64 vectors.
- `check_invariants(row) -> int`: 0 when the row obeys the game's conservation laws (every
  card in exactly one place, tokens and points conserved, counters in range), else the index
  of the broken law in the module's `INVARIANT_ERRORS` tuple of messages. The conformance
  suite and the soak call it after every step.
- `public_action(row, action) -> int`: the public code (0..`Game.history_codes` - 1) of
  `action` in the position before it is played, or -1 when it tells the other seats
  nothing; `step` records it first (`core.history.record`), `reset` clears the history
  and `observe` ends with it (`core.history.write`), so every face has `history=K`.
- `resample_hidden(row, seat)`: redraw in place, from the row's own PRNG, everything `seat`
  cannot see, keeping the row consistent with everything `seat` has seen (a determinisation
  for search; `Game.resample_hidden` wraps it with a fresh seed). The new row depends only on
  what `seat` has seen and on the PRNG, not on the hidden cards it replaces (pools are
  sorted before they are shuffled, `rng.shuffle_sorted`), so a search that sees the game
  only through it chooses the same from every row `seat` cannot tell apart.
- `batch_reset(buffers)` / `batch_step(buffers, actions)`: the kernels above bound to
  `core.batched.reset_all` / `step_all` in the game's `batched.py` (two one-line cached
  wrappers; referring to the kernels as module attributes keeps them cacheable), with a
  prefetch hint: the game's `hint(row, near)` where its rows are too large for the hardware
  prefetcher (Super Zwierzaki), else `core.prefetch.no_hint`.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from card_envs.core import history, layout, loading, moves, rng, views
from card_envs.core.config import Option, resolve
from card_envs.core.ismcts import all_moves
from card_envs.core.scene import Scene, seat_name
from card_envs.core.segments import Segment


def run_policy(kernel: Any, observations: np.ndarray, masks: np.ndarray, *extra: Any):
    """Actions of a numba policy kernel `kernel(obs, masks, out, *extra)` for a batch."""
    out = np.empty(len(observations), dtype=np.int64)
    kernel(
        np.ascontiguousarray(observations, dtype=np.float32),
        np.ascontiguousarray(masks, dtype=np.int8),
        out,
        *extra,
    )
    return out


class Game:
    """Base class of a game: subclasses fill in the class attributes and Python helpers."""

    env_id: ClassVar[str]
    title: ClassVar[str]
    options: ClassVar[dict[str, Option]]
    # configs the conformance suite (`card_envs.testing`) runs: every player count and every
    # option value that changes the observation or the rules
    test_configs: ClassVar[tuple[dict[str, Any], ...]]
    # configs the soak (`card_envs/testing/soak.py`) plays besides `test_configs` (which may cut
    # games short to keep the suite fast)
    soak_configs: ClassVar[tuple[dict[str, Any], ...]] = ()
    # the share of the soak's games per env id this game plays (less for a slow one)
    soak_share: ClassVar[float] = 1.0
    # what the soak reports of a finished game besides the laws: the name of `soak_measure`
    # (a number it averages over finished games), or None
    soak_measure_name: ClassVar[str | None] = None
    # the throughput targets the game's issue set, as multiples of the steps/s of PettingZoo's
    # tictactoe AEC env: (AEC env, batched env), which `benchmarks/throughput.py` checks (None:
    # no target), and the configs it measures besides the default one
    speed_targets: ClassVar[tuple[float, float] | None] = None
    speed_configs: ClassVar[tuple[dict[str, Any], ...]] = ()
    # CPU seconds that compiling what the envs of the game's folder call takes on a cold
    # numba cache (`warm_env` of `card_envs.testing.warm` for each): the warm-ups compile the
    # dearest folder first (`registry.kernel_groups`)
    compile_seconds: ClassVar[float] = 0.0
    # information structure, as OpenSpiel's GameType declares it: some cards are unseen by a
    # seat (a deck, removed cards), and other seats hold private cards (a hand)
    hidden_cards: ClassVar[bool] = True
    private_hands: ClassVar[bool] = True
    # numba kernels with the signatures above
    engine: ClassVar[ModuleType]  # the kernels: reset, step, observe, legal, outcome
    batched: ClassVar[ModuleType]  # batch_reset, batch_step, batch_step_threads, batch_check
    reset_kernel: ClassVar[Any]
    step_kernel: ClassVar[Any]
    observe_kernel: ClassVar[Any]
    legal_kernel: ClassVar[Any]
    outcome_kernel: ClassVar[Any]
    batch_reset_kernel: ClassVar[Any]
    batch_step_kernel: ClassVar[Any]
    batch_step_threads_kernel: ClassVar[Any]
    # the hand-written policy, a numba kernel `(obs, masks, out, *heuristic_args())`
    heuristic_kernel: ClassVar[Any] = None
    # the game's kernels bound to the ISMCTS search (`core.ismcts`, `games/<game>/search.py`)
    search_kernel: ClassVar[Any] = None
    # which legal moves that search weighs, and how (`core.ismcts`, `search_row`'s moves_fn)
    search_moves_kernel: ClassVar[Any] = all_moves
    # the `ismcts` agent's budgets: the spec that takes about 10 ms a decision on the machine
    # of docs/agents.md (what the browser's `ismcts` plays), and a larger one that
    # `benchmarks/ismcts.py --strength` measures beside it; None: not measured, and the
    # browser offers no `ismcts`
    ismcts_10ms: ClassVar[str | None] = None
    ismcts_larger: ClassVar[str | None] = None
    # the original game's built-in computer player, a policy kernel like `heuristic_kernel`
    # (the `computer` agent, `computer_actions`), or None
    computer_kernel: ClassVar[Any] = None
    # the observation's segments in order (per seat, optional), so that one padded layout
    # covers every config (`core.padding`)
    obs_segments: ClassVar[tuple[Segment, ...]]
    # boolean options whose observation slots are a function of what the seat sees (hints):
    # a policy that reads them may compute them itself where a config has them off, by
    # observing a copy of the row with the option on (`card_envs.agents.ppo.PolicyAgent`)
    derived_options: ClassVar[tuple[str, ...]] = ()
    # how many public action codes the engine's `public_action` gives (`history=K`)
    history_codes: ClassVar[int]
    # the rules in brief for a prompt (150-350 words: the goal, a turn, what each kind of
    # move does, scoring, the end, and how this env words its moves), `Game.view`'s companion
    rules_summary: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "history" not in getattr(cls, "options", {"history": None}):  # `core.history`
            cls.options = {**cls.options, "history": history.OPTION}
        for name in ("reset", "step", "observe", "legal", "outcome"):
            setattr(cls, f"{name}_kernel", getattr(cls.engine, name))
        cls.batch_reset_kernel = cls.batched.batch_reset
        cls.batch_step_kernel = cls.batched.batch_step
        cls.batch_step_threads_kernel = cls.batched.batch_step_threads

    def __init__(self, **config: Any) -> None:
        self.config = resolve(self.env_id, self.options, config)
        self.check_config(self.config)
        self.num_players: int = self.config["num_players"]
        self.history: int = self.config["history"]

    # --- sizes and spaces -------------------------------------------------------------
    # the game's own row and observation (set by each game); `history=K` adds to both
    game_state_size: int
    game_obs_size: int
    num_actions: int

    @property
    def state_size(self) -> int:
        return self.game_state_size + history.row_slots(self.history)

    @property
    def obs_size(self) -> int:
        return self.game_obs_size + self.history_obs_size

    @property
    def history_obs_size(self) -> int:
        return history.obs_slots(self.history, self.max_players(), self.history_codes)

    @classmethod
    def max_players(cls) -> int:
        """The largest table of the game (the width of a history entry's seat one-hot)."""
        return int(cls.options["num_players"].high)

    def check_config(self, config: dict) -> None:
        """Cross-option checks a single Option cannot express."""

    def reward_range(self) -> tuple[float, float]:
        """Lowest and highest reward one step can give (-1 for an illegal action included)."""
        raise NotImplementedError

    def obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Lowest and highest value of every observation slot (the history's are 0 and 1)."""
        low, high = self.game_obs_bounds()
        zeros = np.zeros(self.history_obs_size, dtype=np.float32)
        return np.append(low, zeros), np.append(high, zeros + 1)

    def game_obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Bounds of the game's own observation slots."""
        raise NotImplementedError

    # --- rows ---------------------------------------------------------------------------
    def encode_config(self, row: np.ndarray) -> None:
        """Write the config into the row's config slots (kept across resets)."""
        raise NotImplementedError

    def write_config(self, row: np.ndarray) -> None:
        """The game's config slots (`encode_config`) and the history's (`core.history`)."""
        self.encode_config(row)
        cls = type(self)
        history.setup(row, self.game_state_size, self.history, cls.max_players(), cls.history_codes)

    def new_row(self) -> np.ndarray:
        row = np.zeros(self.state_size, dtype=np.int64)
        self.write_config(row)
        return row

    def reset_row(self, row: np.ndarray, seed: int | None) -> None:
        """New game in `row`: reseed when a seed is given, else continue its PRNG stream."""
        if seed is not None:
            rng.seed_row(row, seed)
        type(self).reset_kernel(row)

    def outcome(self, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each seat's score and win share (the `outcome` kernel) as two float64 vectors."""
        scores = np.zeros(self.num_players)
        wins = np.zeros(self.num_players)
        type(self).outcome_kernel(row, scores, wins)
        return scores, wins

    def winners(self, row: np.ndarray) -> list[int]:
        """The seats with the largest win share (all of them sharing it: a draw)."""
        _, wins = self.outcome(row)
        return [p for p in range(self.num_players) if wins[p] == wins.max()]

    def soak_measure(self, row: np.ndarray) -> float:
        """The number of the finished game in `row` that `soak_measure_name` names."""
        raise NotImplementedError(f"{self.env_id} has no soak measure")

    def invariant_error(self, row: np.ndarray) -> str | None:
        """The broken conservation law of `row` in words, or None when all hold."""
        code = int(self.engine.check_invariants(row))
        return self.engine.INVARIANT_ERRORS[code] if code else None

    def resample_hidden(self, row: np.ndarray, seat: int, seed: int) -> np.ndarray:
        """A new row, equally possible from `seat`'s point of view, with everything `seat`
        cannot see redrawn; its PRNG (future chance) is seeded from `seed`."""
        new = row.copy()
        rng.seed_row(new, seed)
        self.engine.resample_hidden(new, seat)
        return new

    def resamples_hands(self) -> bool:
        """Whether `resample_hidden` redraws other seats' private cards in this config (the
        conformance suite checks that it does)."""
        return self.private_hands

    # --- Python-side views ------------------------------------------------------------------
    def state_dict(self, row: np.ndarray) -> dict:
        """The full state (hidden information included) as JSON-able Python: the header every
        game shares (`core.loading.header`: env id, config, status, turn, PRNG) and the
        game's `fields`. `load_state_dict` reads it back."""
        kept = {"history": history.entries(row)} if self.history else {}
        return {
            **loading.header(row, self.env_id, self.config),
            **kept,
            **self.fields(row),
        }

    def fields(self, row: np.ndarray) -> dict:
        """The game's part of `state_dict`: where every card is, counters, derived scores."""
        raise NotImplementedError

    def load_state_dict(self, d: dict, seed: int | None = None) -> np.ndarray:
        """A new row holding the position `d`, the inverse of `state_dict`. Everything in it
        is checked (`core.loading`): a dict no game of this config can be in is refused with
        a `StateDictError` naming the field. Without an `rng` key, the chance still to come
        (shuffles, draws) is seeded from `seed`."""
        r = loading.Reader(self.env_id, d)
        row = self.new_row()
        loading.read_header(r, row, self.config, seed)
        if self.history:
            self.load_history(r, row)
        self.load_fields(r, row)
        error = self.invariant_error(row)
        if error:
            r.fail("the position", error)
        loading.check_implied(r, self.state_dict(row))
        return row

    def stress_positions(self, seed: int) -> list[dict]:
        """State dicts of this config's corner positions, which random play rarely reaches
        (many identical cards, short piles, counters at their limits, long chains): the
        conformance suite plays on from each (`card_envs.testing.corners.check_stress`).
        A game builds them in its folder's `stress.py`, as `positions(game, seed)`: the
        folder of the game's class or of the nearest game class it derives from (none
        without such a file)."""
        for cls in type(self).__mro__[: type(self).__mro__.index(Game)]:
            folder = cls.__module__.rpartition(".")[0]
            if not folder:  # a game class in a module of its own
                continue
            name = f"{folder}.stress"
            try:
                module = importlib.import_module(name)
            except ModuleNotFoundError as err:
                if err.name in (name, folder):
                    continue
                raise
            return module.positions(self, seed)
        return []

    def load_history(self, r: loading.Reader, row: np.ndarray) -> None:
        """The kept public actions (`history`, oldest first; none when the key is missing):
        at most K [seat, code] pairs."""
        pairs = r.get("history") if "history" in r.d else []
        if not isinstance(pairs, list) or len(pairs) > self.history:
            r.fail("history", f"{pairs!r} is not a list of at most {self.history} [seat, code]")
        n, codes = self.num_players, type(self).history_codes
        checked = []
        for i, pair in enumerate(pairs):
            seat, code = r.ints(f"history[{i}]", 0, None, length=2, value=pair)
            r.int(f"history[{i}][0]", 0, n - 1, seat)
            r.int(f"history[{i}][1]", 0, codes - 1, code)
            checked.append([seat, code])
        history.load(row, checked)

    def load_fields(self, r: loading.Reader, row: np.ndarray) -> None:
        """Read the game's primary fields from `r` into `row` (header already in), checking
        each; the fields derived from them are compared by `load_state_dict` afterwards."""
        raise NotImplementedError(f"{self.env_id} cannot load a state dict")

    def render(self, row: np.ndarray, seat: int) -> str:
        """The table as text, from `seat`'s side."""
        raise NotImplementedError

    def table(self, row: np.ndarray, viewer: int | None) -> Scene:
        """The table drawn as `viewer` sees it (`None`: every card shown); see `core.scene`."""
        raise NotImplementedError(f"{self.env_id} has no table drawing")

    def result_line(self, row: np.ndarray, viewer: int | None) -> str:
        """The head line of a finished game's table, from the game's own outcome: who won
        (every seat sharing the win is a draw). The scores are left to the seats' panels."""
        won = [seat_name(p, viewer) for p in self.winners(row)]
        return "Game over: " + views.result_words(won, self.num_players)

    def scene(self, row: np.ndarray, viewer: int | None = None) -> dict:
        """`table` as the JSON-able dict the browser and `core.raster` draw."""
        return self.table(row, viewer).to_dict()

    def action_name(self, action: int) -> str:
        """The action id in a few words, without context (the same in every state)."""
        return str(action)

    def legal_actions(self, row: np.ndarray) -> np.ndarray:
        """The legal action ids of the seat to act in `row` (none once the game is over)."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        type(self).legal_kernel(row, mask)
        return np.flatnonzero(mask)

    def describe_action(self, row: np.ndarray, action: int, seat: int | None = None) -> str:
        """`action` of the seat to act in `row` in words, in its context ("take 23 (4
        tokens)"), as `seat` (by default the acting seat itself) may know it: a description
        for another seat names nothing that seat cannot see. Only a legal action has a
        context: any other id, or a seat not at the table, raises a `ValueError` naming it
        (and the legal actions, which the caller holding the row may know). Games override
        `describe`, which is called for legal actions only."""
        action = int(action)
        if not 0 <= action < self.num_actions:
            raise ValueError(
                f"{self.env_id}: action {action} is out of range 0..{self.num_actions - 1}"
            )
        actor = int(row[layout.PLAYER])
        viewer = actor if seat is None else int(seat)
        if not 0 <= viewer < self.num_players:
            raise ValueError(f"{self.env_id}: seat {viewer} is not in 0..{self.num_players - 1}")
        legal = self.legal_actions(row)
        if action not in legal:
            raise ValueError(
                f"{self.env_id}: action {action} ({self.action_name(action)}) is not legal "
                f"here; the legal actions are {legal.tolist()}"
            )
        return self.describe(row, action, actor, viewer)

    def describe(self, row: np.ndarray, action: int, actor: int, viewer: int) -> str:
        """The legal `action` of `actor` in `row` in words, naming only what `viewer` may know
        (the hook of `describe_action`; the default is the context-free `action_name`)."""
        return self.action_name(action)

    # --- text and JSON faces (language models, people) -----------------------------------
    def _viewer(self, seat: Any) -> int:
        """`seat` checked: a seat index at the table."""
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
            raise ValueError(f"{self.env_id}: seat {seat!r} is not a seat index (an int)")
        if not 0 <= seat < self.num_players:
            raise ValueError(f"{self.env_id}: seat {seat} is not in 0..{self.num_players - 1}")
        return int(seat)

    def view(self, row: np.ndarray, seat: int) -> dict:
        """What `seat` may see of `row` as a JSON-able dict (str, int, float, bool, None,
        lists and dicts) in plain English keys: the keys every game shares
        (`core.views.header`: game, you, to_act, turn, done, outcome), then the game's
        (`view_fields`). It holds exactly what the seat's observation, its rendered text and
        its table scene show (the conformance suite checks that a resample of what the seat
        cannot see leaves it as it was)."""
        seat = self._viewer(seat)
        return {**views.header(self, row, seat), **self.view_fields(row, seat)}

    def view_fields(self, row: np.ndarray, seat: int) -> dict:
        """The game's keys of `view`; by default the table as `render` shows it to `seat`."""
        return {"table": self.render(row, seat)}

    def view_text(self, row: np.ndarray, seat: int) -> str:
        """`view` as text for a prompt: who sees it and whose turn it is, then the table as
        `seat` sees it (by default `render`; each game words its own view)."""
        view = self.view(row, seat)
        return "\n".join([*views.head_lines(self.title, view), self.render(row, seat)])

    def legal_moves(self, row: np.ndarray, seat: int | None = None) -> list[dict]:
        """The legal moves of the seat to act as `[{"id": action, "text": its words}]` in
        action order, the words of `describe_action`. Only the seat to act has moves: for any
        other `seat` the list is empty (which moves are legal can tell what a hand holds),
        and so it is once the game is over."""
        actor = int(row[layout.PLAYER])
        if seat is not None and self._viewer(seat) != actor:
            return []
        if row[layout.STATUS] != layout.RUNNING:
            return []
        return [
            {"id": int(a), "text": self.describe(row, int(a), actor, actor)}
            for a in self.legal_actions(row)
        ]

    def parse_action(self, row: np.ndarray, text: str) -> int:
        """The action id of the legal move of the seat to act that `text` names: its id (an
        int, digits, or JSON such as `{"id": 12}` or `{"move": "take"}`), its words in
        `legal_moves`, or its `action_name`, any case, accents and spacing optional
        (`core.moves.parse_move`). Anything else, an illegal id included, is a `ValueError`
        naming `text` and listing the legal moves as `id: text`."""
        legal = self.legal_moves(row)
        aliases = {m["id"]: [self.action_name(m["id"])] for m in legal}
        return moves.parse_move(text, legal, aliases, self.env_id)

    def heuristic_args(self) -> tuple:
        """The extra arguments `heuristic_kernel` takes after (obs, masks, out) for this
        config; searches pass them to it in their rollouts."""
        return ()

    def searched_moves(self, row: np.ndarray) -> np.ndarray:
        """The actions the `ismcts` agent weighs in `row` (its seat to act): the legal ones
        the game's `search_moves_kernel` keeps, given the heuristic's move."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        type(self).legal_kernel(row, mask)
        obs = np.zeros((1, self.obs_size), dtype=np.float32)
        type(self).observe_kernel(row, int(row[layout.PLAYER]), obs[0])
        move = int(self.heuristic_actions(obs, mask[None])[0])
        type(self).search_moves_kernel(row, move, mask)
        return np.flatnonzero(mask)

    def heuristic_actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The game's hand-written policy for a batch of observations of this config."""
        kernel = type(self).heuristic_kernel
        if kernel is None:
            raise NotImplementedError(f"{self.env_id} has no heuristic policy")
        return run_policy(kernel, observations, masks, *self.heuristic_args())

    def computer_actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The game's built-in computer player (`computer_kernel`) for a batch."""
        kernel = type(self).computer_kernel
        if kernel is None:
            raise NotImplementedError(f"{self.env_id} has no computer player")
        return run_policy(kernel, observations, masks)
