"""The play loops of the throughput benchmark, and the peers of `--peers`.

Every runner here (and the batched one in throughput.py, which counts instance steps and
finished games) is `run(seconds, max_steps=NO_LIMIT) -> (steps, episodes, elapsed)`: it
plays whole games with uniformly random legal actions until `seconds` have passed or at
least `max_steps` steps were made (checked after each game), and counts only the decisions
of players (PettingZoo's dead `None` steps and OpenSpiel's chance outcomes are done, and
timed, but not counted). Resets, dealing and the final rewards are inside the timed span.

Peers (`python -m benchmarks.throughput --peers`, extra `bench`):

* PettingZoo `texas_holdem_v4` and `hanabi_v5` through `env()`, driven by the same AEC loop
  as tictactoe and our envs (`aec_runner`).
* RLCard raw envs (`rlcard.make`): with the observation, the usual `env.reset()` /
  `env.step(action_id)` loop, which encodes the acting player's observation tensor and legal
  action ids after every step; without it, the same game driven through `env.game`
  (`game.step(raw_action)`, the game's own legal actions), which skips the encoding.
* OpenSpiel (`pyspiel.load_game`): with the observation, the acting player's information
  state tensor (or observation tensor where the game has none: gin_rummy, hanabi), as
  `open_spiel.python.rl_environment` picks it, plus `legal_actions()` at every decision;
  without it, only `legal_actions()`. Chance nodes are sampled from `chance_outcomes()`
  with `pyspiel.sample_action`.

Peer libraries are imported only when their runners are made; a missing one is reported,
not raised (see `peer_runners`).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from time import perf_counter
from typing import Any

import numpy as np

NO_LIMIT = sys.maxsize
NOT_INSTALLED = "not installed (pip install 'card_envs[bench]')"

Measured = tuple[int, int, float]  # (steps, episodes, elapsed seconds)
Runner = Callable[..., Measured]  # run(seconds, max_steps=NO_LIMIT)


# --- PettingZoo AEC loop (tictactoe, our envs, PettingZoo peers) --------------------------
def run_aec(env: Any, rnd: random.Random, seconds: float, max_steps: int = NO_LIMIT) -> Measured:
    """Play whole games until `seconds` have passed (or `max_steps` real steps were made);
    (real steps, games, elapsed). The env must have been reset once before; every game, its
    reset included, is timed."""
    flatnonzero = np.flatnonzero
    rand = rnd.random
    steps = episodes = 0
    start = perf_counter()
    deadline = start + seconds
    while True:
        env.reset()
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
            else:
                legal = flatnonzero(obs["action_mask"])
                env.step(legal[int(rand() * len(legal))])
                steps += 1
        episodes += 1
        now = perf_counter()
        if now >= deadline or steps >= max_steps:
            return steps, episodes, now - start


def aec_runner(env: Any, seed: int) -> Runner:
    """`run(seconds, max_steps) -> (real steps, games, elapsed)` over one AEC env and its
    action stream."""
    rnd = random.Random(seed)
    env.reset(seed=seed)
    return lambda seconds, max_steps=NO_LIMIT: run_aec(env, rnd, seconds, max_steps)


# --- RLCard -------------------------------------------------------------------------------
RLCARD_GAMES = ["uno", "gin-rummy", "leduc-holdem", "limit-holdem"]


def rlcard_runner(name: str, seed: int, obs: bool) -> Runner:
    """A random legal game loop over `rlcard.make(name)`, with or without its observation."""
    import rlcard

    env = rlcard.make(name, config={"seed": seed})
    game = env.game
    # the game's own (raw) legal actions, what `game.step` takes
    legal_actions = game.judge.get_legal_actions if name == "gin-rummy" else game.get_legal_actions
    rand = random.Random(seed).random

    def run(seconds: float, max_steps: int = NO_LIMIT) -> Measured:
        steps = episodes = 0
        start = perf_counter()
        deadline = start + seconds
        while True:
            if obs:
                state, _player = env.reset()
                while not env.is_over():
                    legal = list(state["legal_actions"])
                    state, _player = env.step(legal[int(rand() * len(legal))])
                    steps += 1
                env.get_payoffs()
            else:
                game.init_game()
                while not game.is_over():
                    legal = legal_actions()
                    game.step(legal[int(rand() * len(legal))])
                    steps += 1
                env.get_payoffs()  # RLCard's payoffs (no observation involved)
            episodes += 1
            now = perf_counter()
            if now >= deadline or steps >= max_steps:
                return steps, episodes, now - start

    return run


# --- OpenSpiel ----------------------------------------------------------------------------
OPENSPIEL_GAMES = ["gin_rummy", "hearts", "hanabi", "leduc_poker"]


def openspiel_tensor(game: Any) -> Callable[[Any, int], Any]:
    """The per-player tensor an RL loop reads, chosen as `rl_environment.Environment` does:
    the information state tensor if the game has one, else the observation tensor."""
    import pyspiel

    if game.get_type().provides_information_state_tensor:
        return pyspiel.State.information_state_tensor
    return pyspiel.State.observation_tensor


def openspiel_runner(name: str, seed: int, obs: bool) -> Runner:
    """A random legal game loop over `pyspiel.load_game(name)`, with or without the acting
    player's tensor at every decision."""
    import pyspiel

    game = pyspiel.load_game(name)
    tensor = openspiel_tensor(game) if obs else None
    rand = random.Random(seed).random
    sample = pyspiel.sample_action  # OpenSpiel's sampler: (outcomes, z in [0, 1))

    def run(seconds: float, max_steps: int = NO_LIMIT) -> Measured:
        steps = episodes = 0
        start = perf_counter()
        deadline = start + seconds
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(sample(state.chance_outcomes(), rand())[0])
                    continue
                player = state.current_player()
                if tensor is not None:
                    tensor(state, player)
                legal = state.legal_actions(player)
                state.apply_action(legal[int(rand() * len(legal))])
                steps += 1
            state.returns()
            episodes += 1
            now = perf_counter()
            if now >= deadline or steps >= max_steps:
                return steps, episodes, now - start

    return run


# --- the peers ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Peer:
    key: str  # e.g. "rlcard/uno/obs"
    label: str  # the table's row (with library and obs beside it)
    library: str  # "PettingZoo", "RLCard", "OpenSpiel"
    obs: bool  # observation fetched at every step
    make: Callable[[int], Runner]  # seed -> runner; raises ImportError if not installed


def _pettingzoo(name: str) -> Callable[[int], Runner]:
    def make(seed: int) -> Runner:
        import importlib

        module = importlib.import_module(f"pettingzoo.classic.{name}")
        return aec_runner(module.env(), seed)

    return make


def peers() -> list[Peer]:
    """Every peer of `--peers`, in table order."""
    out = [
        Peer(f"pettingzoo/{name}", f"{name} (env())", "PettingZoo", True, make)
        for name, make in (
            ("texas_holdem_v4", _pettingzoo("texas_holdem_v4")),
            ("hanabi_v5", _pettingzoo("hanabi_v5")),
        )
    ]
    for library, games, runner in (
        ("RLCard", RLCARD_GAMES, rlcard_runner),
        ("OpenSpiel", OPENSPIEL_GAMES, openspiel_runner),
    ):
        for name in games:
            for obs in (True, False):
                out.append(
                    Peer(
                        f"{library.lower()}/{name}/{'obs' if obs else 'no_obs'}",
                        name,
                        library,
                        obs,
                        lambda seed, n=name, o=obs, r=runner: r(n, seed, o),
                    )
                )
    return out


def peer_runners(seed: int) -> tuple[dict[str, Runner], dict[str, str]]:
    """(runners of the installed peers by key, the reason for each peer left out). Only an
    ImportError leaves a peer out; any other failure is raised."""
    runners: dict[str, Runner] = {}
    missing: dict[str, str] = {}
    for peer in peers():
        try:
            runners[peer.key] = peer.make(seed)
        except ImportError as e:
            missing[peer.key] = f"{NOT_INSTALLED}: {e}"
    return runners, missing


def peer_versions() -> dict[str, str]:
    out = {}
    for pkg in ("pettingzoo", "rlcard", "open_spiel", "shimmy"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out
