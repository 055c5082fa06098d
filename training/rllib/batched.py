"""An RLlib env runner that steps all its games in one engine call (`BatchedEnv`).

RLlib's own `MultiAgentEnvRunner` steps a vector of `TurnEnv`s one game at a time and, per
step of every game, runs its connectors, its episode bookkeeping and its metrics; that is
over 90% of a runner's time, the env itself about 5% (see docs/training.md). This runner
keeps RLlib's runner for everything else (modules, weights, metrics, checkpoints) and
replaces its sampling loop: per step, one forward pass per module over the games whose seat
to act it plays, one batched engine step, and a few list appends per game. It builds the
`MultiAgentEpisode`s RLlib's learner takes only when a game ends or `sample()` returns.

The episodes hold what `TurnEnv` gives RLlib: agents `s0_seat_0..`, modules mapped per game by
the config's `policy_mapping_fn`; a seat's step runs from its observation to its next one
(or the game's end, when every seat gets its last observation, with a zero mask), its
reward is the sum of its rewards in between; illegal actions are refused by the engine.
What it leaves out: env-to-module and module-to-env connectors (the project configures
none) and per-episode callbacks; `random_actions` sampling is refused.
"""

from __future__ import annotations

import uuid
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.env.vector.vector_multi_agent_env import VectorMultiAgentEnv
from ray.rllib.utils.metrics import (
    NUM_AGENT_STEPS_SAMPLED,
    NUM_AGENT_STEPS_SAMPLED_LIFETIME,
    NUM_ENV_STEPS_SAMPLED,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
    NUM_EPISODES,
    NUM_EPISODES_LIFETIME,
    NUM_MODULE_STEPS_SAMPLED,
    NUM_MODULE_STEPS_SAMPLED_LIFETIME,
    WEIGHTS_SEQ_NO,
)

from card_envs.registry import make_vec
from training.rllib.env import agent_id, observation_space


class BatchedGames(VectorMultiAgentEnv):
    """`num_envs` games of `env_config["env_id"]` in one `BatchedEnv` (`self.games`), with the
    per-seat spaces RLlib's connectors and module specs read off a runner's env. Only
    `BatchedEnvRunner` steps it, through `self.games`."""

    def __init__(self, env_config: dict[str, Any], num_envs: int) -> None:
        (setting,) = env_config["settings"]  # a mix plays on RLlib's runner over TurnEnv
        self.games = make_vec(env_config["env_id"], num_envs, **setting)
        game = self.games.game
        self.num_envs = num_envs
        self.possible_agents = [agent_id(p) for p in range(game.num_players)]
        obs_space = observation_space(game)
        self.single_observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.single_action_spaces = {
            a: gym.spaces.Discrete(game.num_actions) for a in self.possible_agents
        }
        self.single_observation_space = gym.spaces.Dict(self.single_observation_spaces)
        self.single_action_space = gym.spaces.Dict(self.single_action_spaces)


class _Seat:
    """One seat's steps in the current episode chunk. `obs` starts with the observation its
    first step left from, so it holds one more item than `rewards`; while the seat waits for
    its next observation its last action is in `actions` already (one more than
    `rewards`)."""

    def __init__(self, t_started: int = 0) -> None:
        self.t_started = t_started
        self.obs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.actions: list[int] = []
        self.extras: dict[str, list] = {}
        self.rewards: list[float] = []

    @property
    def waiting(self) -> bool:
        return len(self.actions) > len(self.rewards)

    def act(self, obs: np.ndarray, mask: np.ndarray, action: int, extras: dict) -> None:
        self.obs.append(obs)
        self.masks.append(mask)
        self.actions.append(action)
        for key, value in extras.items():
            self.extras.setdefault(key, []).append(value)

    def episode(self, seat: int, game: _Game, terminated: bool, truncated: bool):
        """The seat's finished steps as a numpy'd `SingleAgentEpisode`."""
        n = len(self.rewards)
        sa = SingleAgentEpisode(
            observations=[
                {"observations": o, "action_mask": m}
                for o, m in zip(self.obs[: n + 1], self.masks[: n + 1], strict=True)
            ],
            actions=self.actions[:n],
            rewards=self.rewards,
            extra_model_outputs={k: v[:n] for k, v in self.extras.items()},
            terminated=terminated,
            truncated=truncated,
            t_started=self.t_started,
            len_lookback_buffer=0,
            agent_id=agent_id(seat),
            module_id=game.modules[seat],
            multi_agent_episode_id=game.episode.id_,
        )
        return sa.to_numpy()

    def rest(self) -> _Seat:
        """What goes on into the next chunk: the waiting action and the observation it left
        from."""
        n = len(self.rewards)
        seat = _Seat(self.t_started + n)
        seat.obs, seat.masks, seat.actions = self.obs[n:], self.masks[n:], self.actions[n:]
        seat.extras = {k: v[n:] for k, v in self.extras.items()}
        return seat


class _Game:
    """The game under way in one row: its episode (chunk), the module of each seat and the
    seats' steps since the chunk began."""

    def __init__(self, episode: MultiAgentEpisode, modules: list[str], seats: list[_Seat]):
        self.episode = episode
        self.modules = modules
        self.seats = seats
        self.steps = 0  # env steps in this chunk

    def chunk(self, terminated: bool, truncated: bool) -> MultiAgentEpisode:
        """The chunk as RLlib's learner takes it: the seats that finished a step in it."""
        ep = self.episode
        ep.agent_episodes = {
            agent_id(s): seat.episode(s, self, terminated, truncated)
            for s, seat in enumerate(self.seats)
            if seat.rewards
        }
        ep.env_t = ep.env_t_started + self.steps
        ep.is_terminated, ep.is_truncated = terminated, truncated
        ep.validate()
        return ep


class BatchedEnvRunner(MultiAgentEnvRunner):
    """RLlib's `MultiAgentEnvRunner` with the sampling loop the module doc describes; set by
    `.env_runners(env_runner_cls=BatchedEnvRunner)`."""

    def make_env(self) -> None:
        self.env = BatchedGames(self.config.env_config, self.config.num_envs_per_env_runner)
        self.num_envs = self.env.num_envs
        self._needs_initial_reset = True

    def _new_game(self, env_t: int = 0, prev: _Game | None = None) -> _Game:
        """A game's first chunk (its seats drawn by the mapping) or, from `prev`, its next."""
        if prev is None:
            ep = MultiAgentEpisode(
                id_=uuid.uuid4().hex,
                agent_to_module_mapping_fn=self.config.policy_mapping_fn,
            )
            modules = [ep.module_for(a) for a in self.env.possible_agents]
            return _Game(ep, modules, [_Seat() for _ in modules])
        ep = MultiAgentEpisode(
            id_=prev.episode.id_,
            agent_module_ids=dict(zip(self.env.possible_agents, prev.modules, strict=True)),
            agent_to_module_mapping_fn=self.config.policy_mapping_fn,
            env_t_started=env_t,
        )
        return _Game(ep, prev.modules, [seat.rest() for seat in prev.seats])

    def _reset_games(self) -> None:
        games = self.env.games
        games.reset(self._seed if self._needs_initial_reset else None)
        n, p = self.num_envs, games.num_players
        self._games = [self._new_game() for _ in range(n)]
        self._pending = np.zeros((n, p), dtype=np.float64)  # rewards since a seat's last step
        self._ongoing_episodes_for_metrics.clear()
        self._needs_initial_reset = False

    def _act(self, module_id: str, obs: np.ndarray, masks: np.ndarray, explore: bool):
        """(actions, extra model outputs per row) of one module for a batch of observations,
        as RLlib's default module-to-env connectors would give them."""
        module = self.module[module_id]
        batch = {Columns.OBS: {"observations": torch.from_numpy(obs), "action_mask": masks}}
        out = module.forward_exploration(batch) if explore else module.forward_inference(batch)
        if Columns.ACTIONS in out:  # a module that acts by itself (the project's agents)
            return np.asarray(out[Columns.ACTIONS]), {}
        logits = out[Columns.ACTION_DIST_INPUTS]
        if explore:
            dist = module.get_exploration_action_dist_cls().from_logits(logits)
        else:
            dist = module.get_inference_action_dist_cls().from_logits(logits).to_deterministic()
        actions = dist.sample()
        extras = {
            Columns.ACTION_DIST_INPUTS: logits.numpy(),
            Columns.ACTION_LOGP: dist.logp(actions).numpy(),
        }
        return actions.numpy(), extras

    def _sample(
        self,
        *,
        num_timesteps: int | None = None,
        num_episodes: int | None = None,
        explore: bool,
        random_actions: bool = False,
        force_reset: bool = False,
    ) -> list[MultiAgentEpisode]:
        if random_actions:
            raise NotImplementedError(f"{type(self).__name__} samples from its modules only")
        if force_reset or num_episodes is not None or self._needs_initial_reset:
            self._reset_games()
        done: list[MultiAgentEpisode] = []
        env_steps = 0

        def enough() -> bool:
            if num_timesteps is None:
                return len(done) >= num_episodes
            return env_steps >= num_timesteps

        with torch.no_grad():
            while not enough():
                done += self._step(explore)
                env_steps += self.num_envs
        ongoing = []
        if num_timesteps is not None:
            for i, game in enumerate(self._games):
                if game.steps == 0:
                    continue
                chunk = game.chunk(terminated=False, truncated=False)
                self._ongoing_episodes_for_metrics[chunk.id_].append(chunk)
                if chunk.agent_episodes:
                    ongoing.append(chunk)
                self._games[i] = self._new_game(env_t=chunk.env_t, prev=game)
        self._done_episodes_for_metrics.extend(done)
        self._log_sampled(env_steps, done, done + ongoing)
        return done + ongoing

    def _step(self, explore: bool) -> list[MultiAgentEpisode]:
        """One step of every game: each module acts for the games whose seat to act it
        plays, the engine steps them all; returns the games that ended."""
        games, n = self.env.games, self.num_envs
        player = games.current_player.copy()
        obs = games.observations.copy()
        masks = torch.from_numpy(games.action_masks.astype(np.float32))
        module_of = [self._games[i].modules[player[i]] for i in range(n)]
        actions = np.empty(n, dtype=np.int64)
        for module_id in sorted(set(module_of)):  # a fixed order: the same seed, the same games
            sel = np.array([i for i in range(n) if module_of[i] == module_id])
            acts, extras = self._act(module_id, obs[sel], masks[sel], explore)
            actions[sel] = acts
            for j, i in enumerate(sel):
                seat = self._games[i].seats[player[i]]
                if seat.waiting:  # this observation ends its last step
                    seat.rewards.append(float(self._pending[i, player[i]]))
                    self._pending[i, player[i]] = 0.0
                step_extras = {key: v[j] for key, v in extras.items()}
                step_extras[WEIGHTS_SEQ_NO] = self._weights_seq_no
                seat.act(obs[i], masks[i].numpy(), int(acts[j]), step_extras)
        _, _, rewards, terminated, truncated = games.step(actions)
        self._pending += rewards
        for game in self._games:
            game.steps += 1
        return [
            self._finish(i, bool(terminated[i])) for i in np.flatnonzero(terminated | truncated)
        ]

    def _finish(self, i: int, terminated: bool) -> MultiAgentEpisode:
        """Row i's game is over (the engine dealt the next already): every seat that acted
        gets its last observation and reward; a fresh game takes the row."""
        game, games = self._games[i], self.env.games
        zero = np.zeros(games.num_actions, dtype=np.float32)
        for s, seat in enumerate(game.seats):
            if seat.waiting:
                seat.rewards.append(float(self._pending[i, s]))
                seat.obs.append(games.final_observations[i, s].copy())
                seat.masks.append(zero)
        self._pending[i] = 0.0
        self._games[i] = self._new_game()
        return game.chunk(terminated=terminated, truncated=not terminated)

    def _log_sampled(self, env_steps: int, done: list, episodes: list) -> None:
        """The counts RLlib's runner logs step by step, logged once per `sample()`."""
        log = self.metrics.log_value
        log(NUM_ENV_STEPS_SAMPLED, env_steps, reduce="sum")
        log(NUM_ENV_STEPS_SAMPLED_LIFETIME, env_steps, reduce="lifetime_sum", with_throughput=True)
        log(NUM_EPISODES, len(done), reduce="sum")
        log(NUM_EPISODES_LIFETIME, len(done), reduce="lifetime_sum")
        if env_steps:
            self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=env_steps)
        agents: dict[str, int] = {}
        modules: dict[str, int] = {}
        for ep in episodes:
            for aid, sa in ep.agent_episodes.items():
                agents[aid] = agents.get(aid, 0) + len(sa)
                modules[sa.module_id] = modules.get(sa.module_id, 0) + len(sa)
        for aid, steps in agents.items():
            log((NUM_AGENT_STEPS_SAMPLED, aid), steps, reduce="sum")
            log((NUM_AGENT_STEPS_SAMPLED_LIFETIME, aid), steps, reduce="lifetime_sum")
        for mid, steps in modules.items():
            log((NUM_MODULE_STEPS_SAMPLED, mid), steps, reduce="sum")
            log((NUM_MODULE_STEPS_SAMPLED_LIFETIME, mid), steps, reduce="lifetime_sum")
