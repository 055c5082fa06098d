"""The learner's seat as a native Gymnasium `VectorEnv` over the batched engine: what
`gymnasium.make_vec("card_envs/<env_id>-single", num_envs=N, ...)` returns.

One engine call steps every row; the opponents are played inside, in batches, as in the
SB3 view (`LearnerSeats`). Rows behave exactly as `vectorization_mode="sync"`'s one-instance
envs do (same deals for the same seeds, same observations, rewards and infos with
deterministic opponents), except that with `seat="rotate"` row i starts at seat i mod
num_players (each sync env starts at seat 0).

Autoreset (`metadata["autoreset_mode"]`): `NEXT_STEP` by default, Gymnasium's own default: the
step that ends a row's game returns that game's last observation with `terminated` or
`truncated`; the next step ignores the row's action and returns the new game's first
observation, reward 0, and its `action_mask`. `autoreset_mode="same_step"` (a keyword of
this env: Gymnasium refuses `vector_kwargs` for a vector entry point) returns the new game's
first observation at once, the last one in `info["final_obs"]` and the end's info in
`info["final_info"]`.

Infos, as Gymnasium batches them (each key with its `_key` mask of rows that have it):
`action_mask` (num_envs, num_actions) int8 and `seat` every step for rows in a game; where a
game ended, `score`, `win` (the learner's share of the win), `seat`, `truncated` and
`opponents` (the specs in the other seats).

With `mix={option: [values, ...]}` (`learner_rows`, the registered entry point) the rows
are split evenly over every combination of the values (over the other options given), each
part padded to the game's shared layout (`core.padding`), as the SB3 view's `MixedVecEnv`
and the training configs' `mix` do: one network plays them all (`MixedVectorEnv`).

`OneSeatVectorEnv` is the same for a one-seat game's own Gymnasium env (`rummidrez_solo_v0`):
its rows give that env's infos (`row_infos` and `end_info` of its class), and `action_mask`
besides.
`double_or_nothing_run_v0` has none: a run is stage after stage against the computer, whose
length and stage count differ row by row, on a Python driver (`games/double_or_nothing/
run_env.py`), not on a batched engine.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from card_envs.agents import Agent
from card_envs.core.padding import Padding
from card_envs.core.spaces import LegalSampling
from card_envs.registry import batched_env_ids, single_agent_env_class, single_agent_env_ids
from card_envs.wrappers.learner import LearnerSeats

MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}


def check_actions(env_id: str, masks: np.ndarray, actions: np.ndarray, acting: np.ndarray):
    """An illegal action in an acting row is refused, naming the row, before any row
    moves."""
    inside = (actions >= 0) & (actions < masks.shape[1])
    legal = inside & (masks[np.arange(len(masks)), np.where(inside, actions, 0)] > 0)
    bad = np.flatnonzero(acting & ~legal)
    if len(bad):
        i = int(bad[0])
        raise ValueError(
            f"{env_id}: illegal action {int(actions[i])} in row {i}; legal there are "
            f"{np.flatnonzero(masks[i]).tolist()} (no row has moved)"
        )


class LearnerVectorEnv(LegalSampling, VectorEnv):
    """`num_envs` rows of the learner's seat, one engine call a step (see the module doc)."""

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        opponents: str | Agent | Sequence[str | Agent] = "random",
        seat: int | str = "rotate",
        seed: int | None = None,
        autoreset_mode: str | AutoresetMode = "next_step",
        pad: bool = False,
        num_threads: int | None = 1,
        illegal_action: str = "raise",
        **config: Any,
    ) -> None:
        mode = MODES.get(autoreset_mode, autoreset_mode)
        if mode not in MODES.values():
            raise ValueError(
                f"autoreset_mode={autoreset_mode!r} is not one of {list(MODES)} "
                "(or their gymnasium.vector.AutoresetMode)"
            )
        if illegal_action != "raise":
            raise ValueError(
                f"illegal_action={illegal_action!r}: a vector env refuses an illegal action "
                "with an error naming its row ('raise')"
            )
        self.metadata = {"autoreset_mode": mode, "render_modes": []}
        self.render_mode = None
        self.driver = LearnerSeats.create(
            env_id, num_envs, opponents, seat, seed, None, num_threads, **config
        )
        self._venv = self.driver.venv
        game = self._venv.game
        self.num_envs = self._venv.num_envs
        self.padding = Padding(game) if pad else None
        self.single_observation_space = self.driver.observation_space(self.padding)
        self.single_action_space = self._legal_action_space(self._venv.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(
            gymnasium.spaces.Discrete(self._venv.num_actions), self.num_envs
        )
        self._seed = seed
        self._autoreset = np.zeros(self.num_envs, dtype=bool)

    def _observe(self, observations: np.ndarray) -> np.ndarray:
        return observations.copy() if self.padding is None else self.padding(observations)

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        """New games in every row. `seed`: an int seeds row i with seed + i, a list one seed
        per row; None continues every row's random stream (the constructor's seed first)."""
        if options:
            raise ValueError(f"reset options {sorted(options)}: this env takes none")
        seed = self._seed if seed is None else seed
        self._seed = None
        self.driver.reset(seed)
        self._autoreset[:] = False
        return self._observe(self._venv.observations), self._common(np.zeros(self.num_envs, bool))

    def step(self, actions: Any):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"{self._venv.env_id}: actions must be {self.num_envs} integers, one per row; "
                f"got shape {actions.shape}, dtype {actions.dtype}"
            )
        acting = ~self._autoreset
        check_actions(self._venv.env_id, self._venv.action_masks, actions, acting)
        chosen = np.where(acting, actions, -1).astype(np.int64)  # SKIP: the row waits
        rewards, terminated, truncated, ends = self.driver.step(chosen)
        ended = terminated | truncated
        same_step = self.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        observations = self._observe(self._venv.observations)
        infos = self._common(np.zeros(self.num_envs, bool) if same_step else ended)
        for i in np.flatnonzero(ended):
            end = dict(ends[i])
            last = self._observe(end.pop("terminal_observation")[None])[0]
            end = self._end_info(i, end)
            if same_step:
                infos = self._add_info(infos, {"final_obs": last, "final_info": end}, i)
            else:
                observations[i] = last
                infos = self._add_info(infos, end, i)
        if not same_step:
            self._autoreset = ended
        return observations, rewards.astype(np.float64), terminated, truncated, infos

    def _common(self, ended: np.ndarray) -> dict:
        """The keys every row in a game has (a row whose game just ended has the end's
        keys instead, `step`)."""
        live = ~ended
        if not live.any():  # as Gymnasium batches infos: a key no row has is left out
            return {}
        masks = np.where(live[:, None], self._venv.action_masks, 0).astype(np.int8)
        out = {"action_mask": masks, "_action_mask": live.copy()}
        for key, values in self._live_info().items():
            out[key] = np.where(live, values, np.zeros_like(values))
            out[f"_{key}"] = live.copy()
        return out

    def _live_info(self) -> dict[str, np.ndarray]:
        """The info keys besides `action_mask` of every row (kept where its game runs)."""
        return {"seat": self.driver.seat.astype(np.int64)}

    def _end_info(self, i: int, end: dict) -> dict:
        """The info of row `i`'s step that ended its game, from the driver's `end`."""
        return end

    def action_masks(self) -> np.ndarray:
        """Each row's legal actions (for MaskablePPO-style code)."""
        return self._venv.action_masks.astype(bool)

    def _sample_mask(self) -> np.ndarray:
        return self._venv.action_masks[0]

    def close_extras(self, **kwargs: Any) -> None:
        pass


class OneSeatVectorEnv(LearnerVectorEnv):
    """A one-seat game's own Gymnasium env (`env_id`, e.g. `rummidrez_solo_v0`) as rows of
    one engine call, with that env's infos (see the module doc)."""

    def __init__(self, env_id: str, num_envs: int, **kwargs: Any) -> None:
        if "opponents" in kwargs or "seat" in kwargs:
            raise ValueError(f"{env_id} has one seat: it takes no opponents and no seat")
        self._env_class = single_agent_env_class(env_id)
        super().__init__(env_id, num_envs, opponents=[], seat=0, **kwargs)
        self.driver.keep_final_rows = True  # the end's info is read from the last position

    def _live_info(self) -> dict[str, np.ndarray]:
        return self._env_class.row_infos(self._venv.states)

    def _end_info(self, i: int, end: dict) -> dict:
        return self._env_class.end_info(self.driver.final_rows[i])


def learner_rows(env_id: str, num_envs: int, mix: dict | None = None, **kwargs: Any):
    """The vector entry point of a multi-agent id's learner view: `LearnerVectorEnv`, or
    with `mix` a `MixedVectorEnv` of one padded part per combination of its values."""
    if not mix:
        return LearnerVectorEnv(env_id, num_envs, **kwargs)
    if not isinstance(mix, dict) or any(not isinstance(v, (list, tuple)) or not v
                                        for v in mix.values()):  # fmt: skip
        raise ValueError(f"mix={mix!r} must map options to non-empty lists of values")
    combos = [dict(zip(mix, combo, strict=True)) for combo in itertools.product(*mix.values())]
    if num_envs % len(combos):
        raise ValueError(
            f"num_envs={num_envs} must split evenly over the {len(combos)} settings of mix={mix}"
        )
    seed = kwargs.pop("seed", None)
    share = num_envs // len(combos)
    kwargs["pad"] = True
    parts = [
        LearnerVectorEnv(
            env_id, share, seed=None if seed is None else seed + k * share, **{**kwargs, **combo}
        )  # fmt: skip
        for k, combo in enumerate(combos)
    ]
    return MixedVectorEnv(parts)


class MixedVectorEnv(LegalSampling, VectorEnv):
    """Padded `LearnerVectorEnv`s of one game (one per config) as one vector env: the rows of
    part 0 first, then part 1's, ... A reset seed s seeds row i with s + i across the parts."""

    def __init__(self, parts: Sequence[LearnerVectorEnv]) -> None:
        if not parts or any(p.padding is None for p in parts):
            raise ValueError("MixedVectorEnv needs one or more parts, all with pad=True")
        first = parts[0]
        if len({(p._venv.env_id, p.single_observation_space.shape, p._venv.num_actions,
                 p.metadata["autoreset_mode"]) for p in parts}) != 1:  # fmt: skip
            raise ValueError("MixedVectorEnv parts must be configs of one game, one autoreset")
        self.parts = list(parts)
        self._ends = np.cumsum([p.num_envs for p in parts])
        self.num_envs = int(self._ends[-1])
        self.metadata = dict(first.metadata)
        self.render_mode = None
        low = np.min([p.single_observation_space.low for p in parts], axis=0)
        high = np.max([p.single_observation_space.high for p in parts], axis=0)
        self.single_observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = first.single_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(
            gymnasium.spaces.Discrete(first._venv.num_actions), self.num_envs
        )

    def reset(self, *, seed: int | Sequence[int] | None = None, options: dict | None = None):
        starts = [0, *self._ends[:-1]]
        if seed is None or isinstance(seed, (int, np.integer)):
            seeds = [None if seed is None else int(seed) + int(s) for s in starts]
        else:
            seeds = [list(chunk) for chunk in np.split(np.asarray(seed), self._ends[:-1])]
        results = [p.reset(seed=s, options=options) for p, s in zip(self.parts, seeds, strict=True)]
        return np.concatenate([o for o, _ in results]), self._merge([i for _, i in results])

    def step(self, actions: Any):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.num_envs} integers, one per row; got "
                             f"shape {actions.shape}, dtype {actions.dtype}")  # fmt: skip
        masks = np.concatenate([p._venv.action_masks for p in self.parts])
        acting = ~np.concatenate([p._autoreset for p in self.parts])
        check_actions(self.parts[0]._venv.env_id, masks, actions, acting)
        chunks = np.split(actions, self._ends[:-1])
        results = [p.step(c) for p, c in zip(self.parts, chunks, strict=True)]
        out = [np.concatenate([r[k] for r in results]) for k in range(4)]
        return (*out, self._merge([r[4] for r in results]))

    def _merge(self, infos: list[dict]) -> dict:
        """The parts' batched infos as one: each key over every row, absent rows masked."""
        sizes = [p.num_envs for p in self.parts]
        out = {}
        for key in dict.fromkeys(k for info in infos for k in info if not k.startswith("_")):
            present = [info for info in infos if key in info]
            if isinstance(present[0][key], dict):  # a nested info (final_info)
                nested = [info.get(key, {}) for info in infos]
                out[key] = self._merge(nested)
            else:
                like = present[0][key]
                out[key] = np.concatenate([
                    info[key] if key in info else np.zeros((n, *like.shape[1:]), like.dtype)
                    for info, n in zip(infos, sizes, strict=True)
                ])  # fmt: skip
            out[f"_{key}"] = np.concatenate([
                info[f"_{key}"] if key in info else np.zeros(n, dtype=bool)
                for info, n in zip(infos, sizes, strict=True)
            ])  # fmt: skip
        return out

    def action_masks(self) -> np.ndarray:
        return np.concatenate([p.action_masks() for p in self.parts])

    def _sample_mask(self) -> np.ndarray:
        return self.parts[0]._sample_mask()

    def close_extras(self, **kwargs: Any) -> None:
        pass


def __getattr__(name: str):
    """`card_envs.wrappers.gym_vector:<env_id>` is the vector entry point of a one-seat
    game's own id (the registry names it so, as it cannot import this module): a factory of
    `OneSeatVectorEnv` rows of that id."""
    if name in single_agent_env_ids() and name in batched_env_ids():
        return functools.partial(OneSeatVectorEnv, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
