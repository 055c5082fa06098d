"""A trained MaskablePPO policy (sb3-contrib) as an agent: spec `ppo:path/to/model.zip`;
a plain Stable-Baselines3 PPO, A2C or DQN file: `sb3:path/to/model.zip`.

`ppo` without a path loads the model shipped inside the package for the env being played,
`card_envs/models/<env_id>.zip`; `exit` the network trained by expert iteration
(training/exit/), `card_envs/models/<env_id>.exit.zip`; `selfplay` the one trained by
all-seat self-play (training/selfplay/), `<env_id>.selfplay.zip`. All are MaskablePPO files,
so `ppo:path`, `exit:path` and `selfplay:path` play any such file alike.

Loading is checked before anything in the file is deserialised: the path must be a zip
archive holding SB3's `data` (JSON) and `policy.pth`; the `data` JSON is read as plain JSON
to check that the policy is a MaskablePPO `MaskableActorCriticPolicy` whose observation and
action sizes match the env. Then `MaskablePPO.load` builds the model with the env's own
spaces, the policy class, the schedules and the rollout state supplied as `custom_objects`,
so none of the cloudpickled objects SB3 writes for those keys is unpickled at all; the
weights are read by SB3 with `torch.load(weights_only=True)`. The only thing left to SB3's
loader is a `policy_kwargs` entry that SB3 itself had to pickle (e.g. a custom activation
function): loading never executes more of the file than SB3's own loader would.

Needs the `train` extra (stable-baselines3, sb3-contrib, torch).
"""

from __future__ import annotations

import importlib.resources
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents.base import Agent
from card_envs.core import layout
from card_envs.core.engine import Game
from card_envs.core.padding import Padding, history_slots, padded_size
from card_envs.registry import make_game

_REQUIRED_MEMBERS = ("data", "policy.pth")
_POLICY_MODULE = "sb3_contrib.common.maskable.policies"
_POLICY_NAME = "MaskableActorCriticPolicy"
# the policies an `sb3:` file may hold: MaskablePPO's, PPO's and A2C's, DQN's
SB3_POLICIES = {
    _POLICY_NAME: _POLICY_MODULE,
    "ActorCriticPolicy": "stable_baselines3.common.policies",
    "DQNPolicy": "stable_baselines3.dqn.policies",
}


class ModelError(ValueError):
    """A path that is not a usable MaskablePPO model for the env."""


def _models_dir():
    """`card_envs/models` as an importlib.resources Traversable."""
    return importlib.resources.files("card_envs").joinpath("models")


def model_file(env_id: str, kind: str = "ppo") -> str:
    """The name of the model shipped for `env_id`: `<env_id>.zip` for `ppo`, and
    `<env_id>.exit.zip` for `exit` (a network trained by expert iteration)."""
    return f"{env_id}.zip" if kind == "ppo" else f"{env_id}.{kind}.zip"


def shipped_model(env_id: str, kind: str = "ppo"):
    """The model shipped in the package for `env_id` (`card_envs/models/`, see
    `model_file`), as an importlib.resources Traversable; a clear error when there is none."""
    make_game(env_id)  # an unknown or single-agent id fails here, naming the known ones
    name = model_file(env_id, kind)
    resource = _models_dir().joinpath(name)
    if not resource.is_file():
        raise ModelError(
            f"no {kind} model is shipped for {env_id} (looked for card_envs/models/{name}); "
            f"use '{kind}:path/to/model.zip' with a MaskablePPO file of your own"
        )
    return resource


def has_shipped_model(env_id: str, kind: str = "ppo") -> bool:
    return _models_dir().joinpath(model_file(env_id, kind)).is_file()


def _note(env_id: str, kind: str) -> dict | None:
    """The JSON note the training wrote next to the shipped model, or None."""
    note = _models_dir().joinpath(model_file(env_id, kind).removesuffix(".zip") + ".json")
    return json.loads(note.read_text()) if note.is_file() else None


def shipped_config(env_id: str, kind: str = "ppo") -> dict | None:
    """The config the shipped model of `env_id` was trained with (from the JSON note the
    training writes next to it), or None."""
    note = _note(env_id, kind)
    return None if note is None else note.get("config", {})


def shipped_config_note(env_id: str, kind: str = "ppo") -> str:
    """Which configs the shipped model of `env_id` was trained with, in words."""
    note = _note(env_id, kind)
    if note is None:
        return ""
    config, mix = note.get("config", {}), note.get("mix") or {}
    if mix:
        return (
            f"The shipped {env_id} {kind} model was trained with config {config} and every "
            f"combination of {mix}"
        )
    return f"The shipped {env_id} {kind} model was trained with config {config}: play it with that"


def _read_sb3_data(path: Path) -> dict:
    """SB3's `data` JSON of the archive, checked to be there (plain JSON, nothing unpickled)."""
    if not path.exists():
        raise ModelError(f"model file {str(path)!r} does not exist")
    if not path.is_file():
        raise ModelError(f"model path {str(path)!r} is not a file")
    if not zipfile.is_zipfile(path):
        raise ModelError(
            f"{str(path)!r} is not a zip archive; a MaskablePPO model is the .zip that "
            "model.save() writes"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            missing = [m for m in _REQUIRED_MEMBERS if m not in names]
            if missing:
                raise ModelError(
                    f"{str(path)!r} is a zip archive but not a Stable-Baselines3 model: it "
                    f"lacks {missing} (found {sorted(names)[:10]})"
                )
            return json.loads(archive.read("data").decode())
    except (zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelError(f"{str(path)!r}: unreadable Stable-Baselines3 data ({err})") from None


def _readable(data: dict, key: str) -> dict:
    item = data.get(key)
    return item if isinstance(item, dict) else {}


def _policy_of(path: Path, data: dict, allowed: dict[str, str]) -> str:
    """The name of the file's policy class, one of `allowed` (name: module), read from the
    JSON as SB3 wrote it."""
    policy = _readable(data, "policy_class")
    module = policy.get("__module__")
    init = str(policy.get("__init__", ""))
    for name, home in allowed.items():
        if module == home and f"{name}.__init__" in init:
            return name
    kinds = ", ".join(f"{name} from {home}" for name, home in allowed.items())
    hint = "" if len(allowed) > 1 else "; a plain PPO, A2C or DQN file loads as sb3:PATH"
    raise ModelError(
        f"{str(path)!r} is not a model with an MlpPolicy of {kinds}; its policy comes from "
        f"{module!r}{hint}"
    )


def _check_model_data(
    path: Path, data: dict, game, allowed: dict[str, str] | None = None
) -> tuple[bool, int]:
    """Checks the policy class (MaskablePPO's unless `allowed` names others) and sizes.
    Returns whether the model reads padded
    observations (`core.padding`: one model for every config) or this config's own, and
    the `history` it was trained with: a model trained with history=K plays configs with
    history >= K, reading the K most recent public actions (`core.history`)."""
    _policy_of(path, data, allowed or {_POLICY_NAME: _POLICY_MODULE})
    shape = _readable(data, "observation_space").get("_shape")
    padded, history = _layout_of(shape, game)
    n = _readable(data, "action_space").get("n")
    try:
        n = int(n)
    except (TypeError, ValueError):
        raise ModelError(f"{str(path)!r}: its action space is not Discrete (n={n!r})") from None
    if n != game.num_actions:
        raise ModelError(
            f"{str(path)!r} was trained with {n} actions, but {game.env_id} has {game.num_actions}"
        )
    if history > game.history:
        raise ModelError(
            f"{str(path)!r} was trained with history={history}: it plays {game.env_id} "
            f"configs with history >= {history} {'(every player count)' if padded else ''}, "
            f"not history={game.history}"
        )
    return padded, history


def _layout_of(shape: Any, game) -> tuple[bool, int]:
    """(padded, history) of a model whose observations have `shape`; a model for a wrong
    env or config raises, naming the sizes it could have read."""
    cls = type(game)
    entry = history_slots(cls, 1)
    size = shape[0] if isinstance(shape, list) and len(shape) == 1 else None
    layouts = ((False, game.game_obs_size), (True, padded_size(cls)))
    if isinstance(size, int):
        for exact in (True, False):  # without history first (own before padded on a tie)
            for padded, base in layouts:
                if size == base or not exact and size > base and (size - base) % entry == 0:
                    return padded, (size - base) // entry
    raise ModelError(
        f"the model was trained on observations of shape {shape}, but {game.env_id} has "
        f"observations of size {game.game_obs_size} with this config and {padded_size(cls)} "
        f"padded for every config, plus {entry} per kept public action (history): wrong env "
        "or config"
    )


def observation_space(game, padded: bool, history: int | None = None):
    """The Box a policy for `game` reads: its config's own or the padded one, with the
    `history` most recent public actions (default: all the config keeps)."""
    import gymnasium

    view = Padding(game, history, padded)
    low, high = view.bounds(game) if padded else (b[: view.keep] for b in game.obs_bounds())
    return gymnasium.spaces.Box(low, high, dtype=np.float32)


def _custom_objects(data: dict, game, padded: bool, history: int) -> dict[str, Any]:
    """Replacements for every cloudpickled entry SB3 wrote, except `policy_kwargs`."""
    import gymnasium
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    known = {
        "observation_space": observation_space(game, padded, history),
        "action_space": gymnasium.spaces.Discrete(game.num_actions),
        "policy_class": MaskableActorCriticPolicy,
        "lr_schedule": lambda _: 0.0,
        "learning_rate": 0.0,
        "clip_range": 0.2,
        "clip_range_vf": None,
        "rollout_buffer_class": None,
        "_last_obs": None,
        "_last_episode_starts": None,
        "_last_original_obs": None,
        "ep_info_buffer": None,
        "ep_success_buffer": None,
        "env": None,
    }
    out = {}
    for key, item in data.items():
        if key == "policy_kwargs":
            continue
        if isinstance(item, dict) and ":serialized:" in item:
            out[key] = known.get(key)
    for key in ("observation_space", "action_space", "policy_class"):
        out[key] = known[key]
    return out


_CACHE: dict[tuple, Any] = {}


def load_policy(path: str | os.PathLike, game):
    """The checked policy network of a MaskablePPO file for `game` (an env id and config;
    cached per process), and the `Padding` of its observations (None: it reads this
    config's own as they are; else padded, or with fewer public actions kept)."""
    p = Path(path).expanduser()
    data = _read_sb3_data(p)
    padded, history = _check_model_data(p, data, game)
    stat = p.stat()
    view = Padding(game, history, padded)
    size = view.size
    key = (str(p.resolve()), stat.st_mtime_ns, stat.st_size, size, game.num_actions)
    if key not in _CACHE:
        try:
            from sb3_contrib import MaskablePPO
        except ImportError as err:
            raise ImportError(
                "ppo agents need sb3-contrib: pip install 'card_envs[train]'"
            ) from err
        try:
            model = MaskablePPO.load(
                p, device="cpu", custom_objects=_custom_objects(data, game, padded, history)
            )
        except Exception as err:  # SB3 raises many kinds; say which file and why
            raise ModelError(f"{str(p)!r}: MaskablePPO could not load it: {err}") from err
        policy = model.policy
        policy.set_training_mode(False)
        _CACHE[key] = policy
    return _CACHE[key], None if view.identity else view


def load_sb3_policy(path: str | os.PathLike, game):
    """The checked policy network of a Stable-Baselines3 file of PPO, A2C, DQN or MaskablePPO
    for `game` (cached per process), and the `Padding` of its observations (as
    `load_policy`). The policy is built from its class and the file's weights alone, so any
    of these algorithms loads the same way; only its `policy_kwargs` are left to SB3's loader."""
    p = Path(path).expanduser()
    data = _read_sb3_data(p)
    name = _policy_of(p, data, SB3_POLICIES)
    if name == _POLICY_NAME:
        return load_policy(p, game)
    padded, history = _check_model_data(p, data, game, SB3_POLICIES)
    view = Padding(game, history, padded)
    stat = p.stat()
    key = ("sb3", str(p.resolve()), stat.st_mtime_ns, stat.st_size, view.size, game.num_actions)
    if key not in _CACHE:
        try:
            from stable_baselines3.common.policies import ActorCriticPolicy
            from stable_baselines3.common.save_util import load_from_zip_file
            from stable_baselines3.dqn.policies import DQNPolicy
        except ImportError as err:
            raise ImportError(
                "sb3 agents need stable-baselines3: pip install 'card_envs[train]'"
            ) from err
        cls = DQNPolicy if name == "DQNPolicy" else ActorCriticPolicy
        custom = {**_custom_objects(data, game, padded, history), "policy_class": cls}
        try:
            saved, params, _ = load_from_zip_file(p, device="cpu", custom_objects=custom)
            policy = cls(
                custom["observation_space"],
                custom["action_space"],
                lambda _: 0.0,
                **(saved.get("policy_kwargs") or {}),
            )
            policy.load_state_dict(params["policy"])
        except Exception as err:  # SB3 and torch raise many kinds; say which file and why
            raise ModelError(f"{str(p)!r}: its {name} could not be loaded: {err}") from err
        policy.set_training_mode(False)
        _CACHE[key] = policy
    return _CACHE[key], None if view.identity else view


def frozen_copy(policy):
    """A copy of an SB3 policy with the same weights, in eval mode and without gradients:
    later training of `policy` does not change it. (A plain deepcopy fails on a policy that
    has just trained: its action distribution holds tensors of the autograd graph.)"""
    frozen = type(policy)(**policy._get_constructor_parameters())
    frozen.load_state_dict(policy.state_dict())
    frozen.set_training_mode(False)
    for p in frozen.parameters():
        p.requires_grad_(False)
    return frozen


class PolicyAgent(Agent):
    """A MaskablePPO policy network, choosing only legal actions through its action mask.

    Deterministic (the most probable legal action) by default; with `deterministic=False`
    it samples from the masked policy with its own numpy generator (seeded by `seed`), so
    results do not depend on torch's global random state. Self-play uses it on frozen
    copies of the learner's policy; `PPOAgent` on a policy loaded from a file. With
    `padding`, the policy reads padded observations (`core.padding`) and the agent pads
    the env's before asking it. Given the `game` too, where its config leaves a derived
    option off (`Game.derived_options`: hints), the agent reads state rows instead and
    observes them with that option on, so a policy trained with hints plays without them
    as well (`act_batch` on such a config's own observations pads them as they are).
    """

    name = spec = "policy"

    def __init__(
        self,
        policy,
        seed: int | None = None,
        deterministic: bool = True,
        padding: Padding | None = None,
        game: Game | None = None,
    ) -> None:
        self.policy = policy
        self.deterministic = deterministic
        self.padding = padding
        self._rng = np.random.default_rng(seed)
        self._derived: Game | None = None
        off = {o: True for o in type(game).derived_options if not game.config[o]} if game else {}
        if padding is not None and padding.padded and off:
            # the hints this config leaves out, computed from the seat's own view: the agent
            # reads rows (harnesses pass them) and observes them with the hints on
            self._derived = type(game)(**{**game.config, **off})
            self._derived_padding = Padding(self._derived, padding.history, padding.padded)
            self.wants_rows = True

    def act_rows(self, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions from the observations of `rows` with the derived options on."""
        return self._act(self._derived_view(rows), masks)

    def _derived_view(self, rows: np.ndarray) -> np.ndarray:
        """The padded observations of `rows` with the derived options on."""
        game = self._derived
        obs = np.zeros((len(rows), game.obs_size), dtype=np.float32)
        scratch = np.empty(game.state_size, dtype=np.int64)
        for i, row in enumerate(rows):
            scratch[:] = row
            game.write_config(scratch)
            type(game).observe_kernel(scratch, scratch[layout.PLAYER], obs[i])
        return self._derived_padding(obs)

    def act_with_policy(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rows: np.ndarray,
        games: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The actions, the masked policy's probabilities they were chosen from, and the
        value head's estimate of each position."""
        import torch

        if self.wants_rows:
            seen = self._derived_view(rows)
        else:
            seen = observations if self.padding is None else self.padding(observations)
        probs = self._probabilities(seen, masks)
        actions = self._pick(probs.copy(), masks)
        with torch.no_grad():
            obs = torch.as_tensor(np.require(seen, np.float32, "W"))
            values = self.policy.predict_values(obs).numpy()[:, 0].astype(np.float64)
        return actions, probs, values

    def reseed(self, seed: int | None) -> None:
        self._rng = np.random.default_rng(seed)

    def action_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The masked policy's action probabilities, one row per observation of the env
        (padded here when the policy reads padded observations).

        The actor's logits come from the network's own layers and the mask and softmax are
        applied in numpy: the same numbers as SB3's `get_distribution` (tested), at a
        fraction of its per-call cost, which dominates for the small batches opponents see.
        """
        if self.padding is not None:
            observations = self.padding(observations)
        return self._probabilities(observations, masks)

    def _probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        policy = self.policy
        with torch.no_grad():
            obs = torch.as_tensor(np.require(observations, np.float32, "W"))  # torch: writable
            if hasattr(policy, "q_net"):  # DQN: all its weight on the best legal Q-value
                q = np.where(np.asarray(masks) != 0, policy.q_net(obs).numpy(), -np.inf)
                probs = np.zeros(q.shape)
                probs[np.arange(len(q)), np.argmax(q, axis=1)] = 1.0
                return probs
            features = policy.extract_features(obs, policy.pi_features_extractor)
            logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
        logits = np.where(np.asarray(masks) != 0, logits.numpy().astype(np.float64), -np.inf)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        return probs / probs.sum(axis=1, keepdims=True)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.padding is not None:
            observations = self.padding(observations)
        return self._act(observations, masks)

    def _act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for observations as the policy reads them (already padded)."""
        return self._pick(self._probabilities(observations, masks), masks)

    def _pick(self, probs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The most probable legal action of each row, or one drawn from `probs` (which it
        overwrites)."""
        probs *= np.asarray(masks) != 0  # exact zeros for illegal actions
        if self.deterministic:
            return np.argmax(probs, axis=1)
        cum = np.cumsum(probs, axis=1)
        u = self._rng.random(len(probs)) * cum[:, -1]
        picks = (cum <= u[:, None]).sum(axis=1)
        # guard the float edge: never step past the last legal action
        last_legal = probs.shape[1] - 1 - np.argmax((probs > 0)[:, ::-1], axis=1)
        return np.minimum(picks, last_legal)


def shipped_policy(game, kind: str = "ppo"):
    """`load_policy` of the model shipped for `game`'s env (`ppo`, `exit`, `selfplay`); a config it
    cannot play is refused naming the configs it was trained with."""
    resource = shipped_model(game.env_id, kind)
    try:
        with importlib.resources.as_file(resource) as path:  # works from a zip
            return load_policy(path, game)
    except ModelError as err:
        raise ModelError(f"{err}. {shipped_config_note(game.env_id, kind)}") from None


class PPOAgent(PolicyAgent):
    """A MaskablePPO model file (`ppo:path`, `exit:path`, `selfplay:path`) or the model shipped
    for the env (`ppo`, `exit`, `selfplay`: `kind` says which)."""

    def __init__(
        self,
        path: str | os.PathLike | None,
        env_id: str,
        seed: int | None = None,
        deterministic: bool = True,
        kind: str = "ppo",
        **config: Any,
    ) -> None:
        shipped = path is None
        game = make_game(env_id, **config)
        if shipped:
            policy, padding = shipped_policy(game, kind)
            self.path = Path(str(_models_dir().joinpath(model_file(env_id, kind))))
        else:
            self.path = Path(path)
            policy, padding = load_policy(self.path, game)
        super().__init__(policy, seed, deterministic, padding=padding, game=game)
        self.spec = kind if shipped else f"{kind}:{path}"
        self.name = kind if shipped else f"{kind}:{self.path.stem}"


def make_ppo_agent(spec: str, env_id: str, seed: int | None, config: dict) -> PPOAgent:
    """`ppo`, `exit` or `selfplay` (the model shipped for env_id), or `KIND:path`."""
    kind, sep, path = spec.partition(":")
    if sep and not path:
        raise ModelError(
            f"spec '{kind}:' needs a path after the colon, e.g. {kind}:models/agent.zip"
        )
    return PPOAgent(path or None, env_id, seed=seed, kind=kind, **config)


class SB3Agent(PolicyAgent):
    """A Stable-Baselines3 file (`sb3:PATH`): PPO or A2C play their most probable legal
    action (or sample the masked policy with `deterministic=False`), DQN its legal action
    of highest Q-value; a MaskablePPO file plays as `ppo:PATH`."""

    def __init__(
        self,
        path: str | os.PathLike,
        env_id: str,
        seed: int | None = None,
        deterministic: bool = True,
        **config: Any,
    ) -> None:
        game = make_game(env_id, **config)
        self.path = Path(path)
        policy, padding = load_sb3_policy(self.path, game)
        super().__init__(policy, seed, deterministic, padding=padding, game=game)
        self.spec = f"sb3:{path}"
        self.name = f"sb3:{self.path.stem}"


def make_sb3_agent(spec: str, env_id: str, seed: int | None, config: dict) -> SB3Agent:
    """`sb3:PATH`."""
    return SB3Agent(spec.partition(":")[2], env_id, seed=seed, **config)
