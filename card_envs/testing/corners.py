"""Checks that do not wait for random play to find the corners of a game: positions each
game builds on purpose (`Game.stress_positions`), every action id put in words for every
seat, and any JSON handed to `load_state_dict`.

Random play misses states that real play reaches: a Super Zwierzaki answer chain across a
reshuffle, a Rummidrez table that fills (random seats never open). So each game supplies
corner positions (many identical cards, short piles, counters at their limits, long chains)
as state dicts, and `check_stress` plays on from each with every guarantee checked: the
conservation laws, every observation inside its space, the position reloading from its own
state dict, every action id described. Each check raises `AssertionError` naming the env,
the config and what broke, like `card_envs.testing.checks`.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import resource
from collections.abc import Iterator
from typing import Any

import numpy as np

from card_envs.core import layout
from card_envs.core.aec import CardEnv
from card_envs.core.engine import Game
from card_envs.core.loading import StateDictError
from card_envs.registry import batched_env_ids, make, make_game, single_agent_env_ids
from card_envs.testing.checks import (
    _live,
    _random_action,
    _same_position,
    _where,
    game_env,
    positions,
)

Config = dict[str, Any]

MIN_STRESS = 6  # corner positions a game supplies per config, at least
CHECK_EVERY = 5  # while playing on from one: reload and describe every 5th step, and the end
LOAD_MEMORY = 1 << 30  # bytes a load may take beyond what the process holds (`memory_capped`)


# --- the guarantees at one position --------------------------------------------------------------


def check_position(env: CardEnv, where: str) -> None:
    """The conservation laws hold, every seat's observation is inside its space, and only
    the seat to act (in a running game) has a non-empty mask."""
    error = env.game.invariant_error(env._row)
    assert error is None, f"{where}: {error}"
    live = _live(env)
    for agent in env.possible_agents:
        obs = env.observe(agent)
        space = env.observation_space(agent)
        if not space.contains(obs):
            box, values = space["observation"], obs["observation"]
            out = np.flatnonzero((values < box.low) | (values > box.high))[:8]
            raise AssertionError(
                f"{where}: {agent}'s observation leaves its space at slots {out.tolist()}: "
                f"{values[out].tolist()}, bounds {box.low[out].tolist()}..{box.high[out].tolist()}"
            )
        acts = live and agent == env.agent_selection
        assert acts == bool(obs["action_mask"].any()), f"{where}: {agent}'s mask"


def check_reload(env: CardEnv, twin: CardEnv, where: str) -> None:
    """The position reloads from its own state dict's JSON: `twin` loaded with it shows the
    same state dict, agent, observations and masks."""
    d = json.loads(json.dumps(env.state_dict()))
    try:
        twin.load_state_dict(d)
    except StateDictError as err:
        raise AssertionError(f"{where}: the position's own state dict is refused: {err}") from err
    _same_position(env, twin, where)


def check_descriptions(game: Game, row: np.ndarray, where: str) -> None:
    """Every action id and a few out of range, for the seat to act and for every seat: a
    legal id is put in words (for the seat to act, the same words in every row that seat
    cannot tell from this one: a `resample_hidden` for it); any other id raises a
    `ValueError` naming it (in range: and the legal actions); nothing else is raised."""
    legal = game.legal_actions(row).tolist()
    actor = int(row[layout.PLAYER])
    resampled = game.resample_hidden(row, actor, 1) if legal else row
    ids = range(-1, game.num_actions + 2)
    for viewer in (None, *range(game.num_players)):
        for a in ids:
            text = _describe(game, row, a, viewer, legal, where)
            if viewer is None and text is not None:
                again = _describe(game, resampled, a, viewer, legal, where)
                assert again == text, f"{where}: seat {actor} reads {text!r} or {again!r}"
    for bad in (-1, game.num_players):
        with contextlib.suppress(ValueError):
            game.describe_action(row, legal[0] if legal else 0, bad)
            raise AssertionError(f"{where}: describe_action for seat {bad} was answered")


def _describe(game: Game, row: np.ndarray, a: int, viewer: int | None, legal: list, where: str):
    """`describe_action`'s text, or None for an id it refuses as it must."""
    at = f"{where}: describe_action({a}, seat={viewer})"
    try:
        text = game.describe_action(row, a, viewer)
    except ValueError as err:
        assert a not in legal, f"{at} refused a legal action: {err}"
        assert re.search(rf"(?<![\d-]){a}(?!\d)", str(err)), (
            f"{at}: the error {err} does not name {a}"
        )
        if 0 <= a < game.num_actions:
            assert str(legal) in str(err), f"{at}: the error {err} does not name {legal}"
        return None
    except Exception as err:  # noqa: BLE001 - anything but a ValueError is the defect
        raise AssertionError(f"{at} raised {type(err).__name__}: {err}") from err
    assert a in legal, f"{at}: an illegal id was described as {text!r}"
    assert isinstance(text, str) and text.strip(), f"{at}: {text!r}"
    return text


# --- describe_action -----------------------------------------------------------------------------

MAX_DESCRIBED = 60  # positions of random play whose every action id is described


def check_describe_action(env_id: str, config: Config, seed: int = 19) -> None:
    """`check_descriptions` at positions of random play (and the end of a game) and at every
    corner position of the game; the AEC env's `describe_action` refuses an unknown seat
    name with a `ValueError` naming it."""
    where = _where(env_id, config)
    for k, env in enumerate(positions(env_id, config, seed, games=2, every=5, p_last=0.3)):
        if k >= MAX_DESCRIBED:
            break
        check_descriptions(env.game, env._row, f"{where} position {k}")
    game = make_game(env_id, **config)
    for k, d in enumerate(game.stress_positions(seed)):
        check_descriptions(game, game.load_state_dict(d), f"{where} corner position {k}")
    env = game_env(env_id, config)
    env.reset(seed=seed)
    try:
        env.describe_action(0, "player_99")
    except ValueError as err:
        assert "player_99" in str(err), f"{where}: {err} does not name the seat"
    else:
        raise AssertionError(f"{where}: describe_action for seat 'player_99' was answered")


# --- corner positions ----------------------------------------------------------------------------


def check_stress(env_id: str, config: Config, seed: int = 29) -> None:
    """The game's corner positions (`Game.stress_positions`, at least `MIN_STRESS`) load, and
    from each a game is played to the end (by random legal actions, by actions biased to the
    last legal one, or by the game's heuristic in every seat, in turn) with `check_position`
    after every step and, every `CHECK_EVERY` steps and at the end, `check_reload` and
    `check_descriptions`."""
    where = _where(env_id, config)
    env, twin = game_env(env_id, config), game_env(env_id, config)
    env.reset(seed=seed)
    twin.reset(seed=seed)
    game = env.game
    states = game.stress_positions(seed)
    assert len(states) >= MIN_STRESS, f"{where}: {len(states)} corner positions, not {MIN_STRESS}"
    rng = np.random.default_rng(seed)
    for k, d in enumerate(states):
        at = f"{where} corner position {k}"
        try:
            env.load_state_dict(json.loads(json.dumps(d)))
        except StateDictError as err:
            raise AssertionError(f"{at} is refused: {err}") from err
        policy = ("random", "last", "heuristic")[k % 3]
        step = 0
        while True:
            here = f"{at} step {step} ({policy} play)"
            check_position(env, here)
            if step % CHECK_EVERY == 0 or not _live(env):
                check_reload(env, twin, here)
                check_descriptions(game, env._row, here)
            if not _live(env):
                break
            env.step(_choose(env, policy, rng))
            step += 1
            assert step < 10**6, f"{at}: the game does not end"


def _choose(env: CardEnv, policy: str, rng: np.random.Generator) -> int:
    if policy == "heuristic" and type(env.game).heuristic_kernel is not None:
        obs = env.observe(env.agent_selection)
        return int(
            env.game.heuristic_actions(obs["observation"][None], obs["action_mask"][None])[0]
        )
    return _random_action(env, rng, p_last=0.8 if policy == "last" else 0.0)


# --- any JSON into load_state_dict ---------------------------------------------------------------

# values a mutation puts in place of a field: edges of every range, wrong types
EDGE_VALUES: tuple[Any, ...] = (
    -1, 0, 1, 2, 3, 5, 12, 100, 1000, 2**31, 2**32 + 1, 2**63, -(2**63), 10**30, 1.5, -0.5,
    float("nan"), float("inf"), True, False, None, "", "x", "0", [], {}, [0], [-1, 2**31],
)  # fmt: skip
MUTATIONS = (
    "replace",
    "nudge",
    "delete",
    "add key",
    "shorten",
    "lengthen",
    "duplicate",
    "swap",
    "move",
)


def _paths(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """The path (keys and indices) of every node under `value`, `value` itself excluded."""
    if isinstance(value, (dict, list)):
        for key, child in value.items() if isinstance(value, dict) else enumerate(value):
            yield (*prefix, key)
            yield from _paths(child, (*prefix, key))


def _parent(d: Any, path: tuple) -> tuple[Any, Any]:
    node = d
    for key in path[:-1]:
        node = node[key]
    return node, path[-1]


def mutate(d: dict, draw: Any) -> tuple[dict, str]:
    """A copy of the state dict `d` changed by one mutation chosen with `draw` (hypothesis'
    `data().draw`): a node replaced by an edge value, deleted, a key added, a list shortened,
    lengthened by copies of its last item, an item duplicated, two items swapped. Returns
    the copy and what was done. Also: an int nudged by a few, an item moved from one list
    to another (a card to another place: the conservation laws may still hold)."""
    from hypothesis import strategies as st

    d = copy.deepcopy(d)
    paths = list(_paths(d))
    path = draw(st.sampled_from(paths))
    parent, key = _parent(d, path)
    node = parent[key]
    kind = draw(st.sampled_from(MUTATIONS))
    if kind == "nudge" and isinstance(node, int) and not isinstance(node, bool):
        parent[key] = node + draw(st.sampled_from([-3, -2, -1, 1, 2, 3]))
        return d, f"{list(path)} = {parent[key]} (was {node})"
    if kind == "move" and isinstance(node, list) and node:
        lists = [p for p in paths if isinstance(_parent(d, p)[0][p[-1]], list) and p != path]
        if lists:
            target = draw(st.sampled_from(lists))
            into, at = _parent(d, target)
            into[at].append(node.pop(draw(st.integers(0, len(node) - 1))))
            return d, f"an item of {list(path)} moved to {list(target)}"
    if kind in ("replace", "nudge", "move") or (
        kind != "delete" and not isinstance(node, (list, dict))
    ):
        value = draw(st.sampled_from(EDGE_VALUES))
        parent[key] = copy.deepcopy(value)
        return d, f"{list(path)} = {value!r}"
    if kind == "delete":
        del parent[key]
        return d, f"del {list(path)}"
    if isinstance(node, dict):
        node[draw(st.sampled_from(["extra", "", "0"]))] = draw(st.sampled_from(EDGE_VALUES))
        return d, f"a key added to {list(path)}"
    if not node:
        node.append(draw(st.sampled_from(EDGE_VALUES)))
        return d, f"{list(path)} given an item"
    if kind == "shorten":
        parent[key] = node[: draw(st.integers(0, len(node) - 1))]
    elif kind in ("lengthen", "add key"):
        node.extend([copy.deepcopy(node[-1])] * draw(st.sampled_from([1, 2, 50])))
    elif kind == "duplicate":
        i, j = draw(st.integers(0, len(node) - 1)), draw(st.integers(0, len(node) - 1))
        node[j] = copy.deepcopy(node[i])
    else:
        i, j = draw(st.integers(0, len(node) - 1)), draw(st.integers(0, len(node) - 1))
        node[i], node[j] = node[j], node[i]
    return d, f"{kind} {list(path)}"


def _vm_data() -> int:
    with open("/proc/self/status") as f:
        return int(re.search(r"VmData:\s+(\d+) kB", f.read()).group(1)) * 1024


@contextlib.contextmanager
def memory_capped(extra: int = LOAD_MEMORY) -> Iterator[None]:
    """While inside, this process may take at most `extra` more bytes of data (Linux's
    RLIMIT_DATA): a load that allocates from a huge number in the dict fails with a
    `MemoryError` instead of taking the machine's memory. Without /proc, no cap."""
    try:
        cap = _vm_data() + extra
    except OSError:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (cap if hard < 0 else min(cap, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def base_states(env_id: str, config: Config, seed: int) -> list[dict]:
    """Real state dicts to mutate: positions of a random game and its end, and the game's
    corner positions; for a single-agent id, positions of its episodes (and the corner
    positions of a game of its own, the solo game, whose state dicts it reads)."""
    if env_id in single_agent_env_ids():
        env = make(env_id, **config)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        out = [env.state_dict()]
        for step in range(400):
            legal = np.flatnonzero(env.action_masks())
            *_, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            if step % 10 == 0 or terminated or truncated:
                out.append(env.state_dict())
            if terminated or truncated:
                break
        own = env_id in batched_env_ids()
        return out + (make_game(env_id, **config).stress_positions(seed) if own else [])
    out = [e.state_dict() for e in positions(env_id, config, seed, games=1, every=9)]
    env = make(env_id, **config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while _live(env):
        env.step(_random_action(env, rng))
    out.append(env.state_dict())
    return out + make_game(env_id, **config).stress_positions(seed)


def check_state_dict_mutations(
    env_id: str, config: Config, examples: int = 150, seed: int = 31
) -> None:
    """Any JSON is safe to hand to `load_state_dict`: real state dicts of the env (random
    play, the end, the corner positions), each changed by one to three `mutate`s (drawn by
    hypothesis, a failing one reported as drawn), are either refused with a `StateDictError`
    naming the env and a field, with the env unchanged and no more than `LOAD_MEMORY` taken
    (`memory_capped`), or accepted as a position that obeys the conservation laws, whose
    observations lie in their spaces, that reloads from its own state dict and plays on
    (20 random steps) with the same holding."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    where = _where(env_id, config)
    single = env_id in single_agent_env_ids()
    states = base_states(env_id, config, seed)
    env, twin = make(env_id, **config), make(env_id, **config)
    env.reset(seed=seed)
    twin.reset(seed=seed)

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate),  # no shrinking: a failing load can be slow
    )
    @given(st.data())
    def load_mutated(data: Any) -> None:
        d = states[data.draw(st.integers(0, len(states) - 1))]
        done = []
        for _ in range(data.draw(st.integers(1, 3))):
            d, what = mutate(d, data.draw)
            done.append(what)
        at = f"{where}: state dict with {'; '.join(done)}"
        before = env.state_dict()
        try:
            with memory_capped():
                env.load_state_dict(json.loads(json.dumps(d, allow_nan=True)))
        except StateDictError as err:
            assert str(err).startswith(env_id), f"{at}: the error {err} does not name the env"
            assert env.state_dict() == before, f"{at}: a refused dict changed the env"
            return
        except Exception as err:  # noqa: BLE001 - anything but a StateDictError is the defect
            raise AssertionError(f"{at}: raised {type(err).__name__}: {err}") from err
        if single:
            _play_single(env, twin, data, at)
        else:
            _play_on(env, twin, data, at)

    load_mutated()


def _play_on(env: CardEnv, twin: CardEnv, data: Any, at: str) -> None:
    from hypothesis import strategies as st

    for step in range(21):
        check_position(env, f"{at}, step {step}")
        if step % 10 == 0:
            check_reload(env, twin, f"{at}, step {step}")
        if not _live(env):
            return
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[data.draw(st.integers(0, len(legal) - 1))]))


def _play_single(env: Any, twin: Any, data: Any, at: str) -> None:
    """The single-agent face of `_play_on`: the observation in its space, the position
    reloading to the same observation, 20 random steps."""
    from hypothesis import strategies as st

    for step in range(21):
        d = json.loads(json.dumps(env.state_dict()))
        obs, _ = twin.load_state_dict(d)
        assert twin.state_dict() == d, f"{at}, step {step}: reloaded differently"
        assert env.observation_space.contains(obs), f"{at}, step {step}: observation"
        legal = np.flatnonzero(env.action_masks())
        if not len(legal):
            return
        *_, terminated, truncated, _ = env.step(
            int(legal[data.draw(st.integers(0, len(legal) - 1))])
        )
        if terminated or truncated:
            return
