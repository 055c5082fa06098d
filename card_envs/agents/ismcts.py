"""Information-set Monte Carlo tree search as an agent:
`ismcts[:N][:random|heuristic][:depth=D][:net[=PATH]]`.

`ismcts` searches `DEFAULT_SIMULATIONS` simulations per move with the game's heuristic in the
rollouts; `ismcts:N` searches N; `random` rolls out with uniformly random legal actions
instead (`heuristic` names the default); `depth=D` cuts rollouts after D actions; `net`
guides the tree by a policy network's move probabilities (PUCT, `core.ismcts.puct_action`):
the `exit` network shipped for the env, or with `net=PATH` any MaskablePPO file;
`network` rolls out with that network's most probable legal actions. The parts come in
any order, `net=PATH` last. The search itself is `card_envs.core.ismcts`, compiled per game with the
game's kernels; docs/agents.md describes it and its measured strength.

The agent reads engine rows (`wants_rows`), but only through the game's `resample_hidden`:
each simulation redraws everything the seat to act cannot see, from the agent's own random
stream. So its move depends on the seat's information and the agent's stream alone: from
any row the seat cannot tell apart from the true one, an agent with the same seed plays the
same moves (tests/test_ismcts.py checks it).
"""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import Agent
from card_envs.core import layout
from card_envs.core.engine import Game
from card_envs.core.ismcts import HEURISTIC, NETWORK, NO_LIMIT, RANDOM, new_prior, new_tree

DEFAULT_SIMULATIONS = 1000
ROLLOUTS = {"random": RANDOM, "heuristic": HEURISTIC, "network": NETWORK}
EXPLORATION = 0.7  # UCB1's constant for win shares in [0, 1] (Cowling et al. use 0.7)
PUCT_EXPLORATION = 1.0  # PUCT's, with a network's prior (`net`)
SPEC_FORM = "ismcts[:SIMULATIONS][:random|heuristic|network][:depth=D][:net[=PATH]]"


class ISMCTSAgent(Agent):
    """Single-observer ISMCTS with `simulations` simulations per move."""

    wants_rows = True

    def __init__(
        self,
        game: Game,
        simulations: int = DEFAULT_SIMULATIONS,
        rollout: str = "heuristic",
        seed: int | None = None,
        max_depth: int | None = None,
        exploration: float | None = None,
        net: str | tuple | None = None,
        guide: bool = True,
    ) -> None:
        if type(game).search_kernel is None:
            raise ValueError(f"{game.env_id} has no ISMCTS search kernel")
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"ismcts: simulations must be a positive int, got {simulations!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"ismcts: rollout must be one of {sorted(ROLLOUTS)}, got {rollout!r}")
        if rollout == "network" and net is None:
            raise ValueError("ismcts: network rollouts need a network: add net or net=PATH")
        if max_depth is not None and (
            isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1
        ):
            raise ValueError(f"ismcts: depth must be a positive int or None, got {max_depth!r}")
        self._game = game
        self.simulations = simulations
        self.rollout = rollout
        self.max_depth = max_depth
        self.net = net
        self.guide = guide and net is not None  # the network guides the tree (PUCT)
        depth = NO_LIMIT if max_depth is None else int(max_depth)
        if exploration is None:
            exploration = PUCT_EXPLORATION if self.guide else EXPLORATION
        self._settings = (simulations, float(exploration), ROLLOUTS[rollout], depth, game.obs_size)
        self._net = None if net is None else _network(game, net)  # core.mlp.actor_net
        self._prior: tuple | None = None  # with a net: its scratch, built at the first move
        self._tree: tuple[np.ndarray, ...] | None = None  # built at the first move
        self._rng = np.random.default_rng(seed)
        self._loaded = False  # the search is compiled (or loaded) at the first reset or move
        self.spec = self.name = (
            f"ismcts:{simulations}:{rollout}"
            + (f":depth={max_depth}" if max_depth else "")
            + ("" if net is None else ":net" if net == "exit" else f":net={_net_name(net)}")
        )

    def reset(self) -> None:
        """Load the search before the first game (the harnesses call this before they time
        any move), so that the time of the agent's moves is the search's own."""
        self._load_search()

    def _load_search(self) -> None:
        """Compile the game's search, or load it from numba's cache: one simulation on a
        fresh deal. Not in `__init__`, so that checking a spec (a tournament config does)
        costs no compile: a cold compile takes up to a minute and a half (Rummidrez), and
        `evaluation.pool.warm_up` compiles the games of a run in parallel."""
        if self._loaded:
            return
        game = self._game
        row = game.new_row()
        game.reset_row(row, 0)
        stream = np.ones((1, layout.RNG + 4), dtype=np.int64)
        settings = (1, *self._settings[1:])
        type(game).search_kernel(
            row[None],
            stream,
            np.empty(1, np.int64),
            new_tree(1, game.num_actions),
            settings,
            game.heuristic_args(),
            None if self._net is None else new_prior(self._net, 1, game.num_actions, self.guide),
        )
        self._loaded = True

    def reseed(self, seed: int | None) -> None:
        self._rng = np.random.default_rng(seed)

    def act_rows(self, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One search per row, each from the next four words of the agent's stream (`masks`
        is not needed: the search asks each determinisation for its legal actions)."""
        rows, streams, out = self._start(rows)
        self._search(rows, streams, out)
        return out

    def _start(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows as the kernel takes them, one stream per row (the next four words of the
        agent's stream each) and the array for the moves; the tree on first use."""
        self._load_search()
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        if self._tree is None:
            self._tree = new_tree(self.simulations, self._game.num_actions)
            if self._net is not None:
                self._prior = new_prior(
                    self._net, self.simulations, self._game.num_actions, self.guide
                )
        streams = np.zeros((len(rows), layout.RNG + 4), dtype=np.int64)
        streams[:, layout.RNG :] = self._rng.integers(1, 1 << 32, size=(len(rows), 4))
        return rows, streams, np.empty(len(rows), dtype=np.int64)

    def _search(self, rows: np.ndarray, streams: np.ndarray, out: np.ndarray) -> None:
        """Search each row from its stream; its move goes into `out`."""
        type(self._game).search_kernel(
            rows,
            streams,
            out,
            self._tree,
            self._settings,
            self._game.heuristic_args(),
            self._prior,
        )

    def act_with_policy(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rows: np.ndarray,
        games: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The moves of `act_rows` (the same streams, so the same moves), each with its
        root's visit shares per action and the mean win share of the chosen child for the
        seat to act. One search per call: the tree is reused row after row, so after each
        call it holds that row's root (a forced move is not searched: share 1, no value)."""
        rows, streams, out = self._start(rows)
        shares = np.zeros((len(rows), self._game.num_actions))
        values = np.full(len(rows), np.nan)
        child, visits, _, value, _ = self._tree
        for i in range(len(rows)):
            self._search(rows[i : i + 1], streams[i : i + 1], out[i : i + 1])
            if np.count_nonzero(masks[i]) == 1:
                shares[i, out[i]] = 1.0
                continue
            legal = np.flatnonzero((child[0] >= 0) & (np.asarray(masks[i]) != 0))
            if legal.size == 0:  # a decision the game does not search (`moves_fn`)
                shares[i, out[i]] = 1.0
                continue
            counts = visits[child[0, legal]]
            shares[i, legal] = counts / counts.sum()
            chosen = child[0, out[i]]
            values[i] = value[chosen] / visits[chosen]
        return out, shares, values

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise TypeError(
            "the ismcts agent searches the game from its state rows: call act_rows(rows, "
            "masks) (evaluate, tournaments, play, the browser and the single-agent views do)"
        )


def _net_name(net: str | tuple) -> str:
    return "<arrays>" if isinstance(net, tuple) else net


def _network(game: Game, net: str | tuple):
    """The actor of the network `net` names (`exit`: the one shipped for the env; else a
    MaskablePPO file; a tuple: already `core.mlp.actor_net`'s arrays) as arrays the search
    evaluates."""
    from card_envs.agents.ppo import load_policy, shipped_policy
    from card_envs.core.mlp import actor_net

    if isinstance(net, tuple):
        return net
    policy, padding = shipped_policy(game, "exit") if net == "exit" else load_policy(net, game)
    return actor_net(policy, padding, game.obs_size)


def make_ismcts_agent(spec: str, game: Game, seed: int | None) -> ISMCTSAgent:
    """The agent of a spec `ismcts[:SIMULATIONS][:random|heuristic][:depth=D][:net[=PATH]]`."""
    simulations, rollout, depth, net = parse_spec(spec)
    return ISMCTSAgent(game, simulations, rollout, seed=seed, max_depth=depth, net=net)


def parse_spec(spec: str) -> tuple[int, str, int | None, str | None]:
    """(simulations, rollout, depth, net) of an `ismcts` spec; net: "exit" for `net` (the
    shipped network), the path for `net=PATH`, None without one."""
    simulations, rollout, depth, net = None, None, None, None
    for part in _spec_parts(spec):
        key, _, value = part.partition("=")
        if part.isdigit() and simulations is None:
            simulations = int(part)
        elif part in ROLLOUTS and rollout is None:
            rollout = part
        elif key == "depth" and value.isdigit() and depth is None:
            depth = int(value)
        elif key == "net" and net is None and (value or part == "net"):
            net = value or "exit"
        else:
            raise ValueError(
                f"bad ismcts spec {spec!r}: {part!r} is not a number of simulations, a "
                f"rollout (random, heuristic, network), depth=D or net[=PATH], or says it "
                f"twice; the form is {SPEC_FORM}"
            )
    if simulations is None:
        simulations = DEFAULT_SIMULATIONS
    return simulations, rollout or "heuristic", depth, net


def _spec_parts(spec: str) -> list[str]:
    """The parts after `ismcts`; a `net=PATH` keeps the colons of its path (the rest of the
    spec from `net=` on)."""
    head, sep, path = spec.partition(":net=")
    parts = head.split(":")[1:]
    return parts + [f"net={path}"] if sep else parts
