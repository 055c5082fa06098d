"""An RLlib env runner that steps all its games in one engine call (`BatchedEnv`).

RLlib's own `MultiAgentEnvRunner` steps a vector of `TurnEnv`s one game at a time and, per
step of every game, runs its connectors, its episode bookkeeping and its metrics; that is
over 90% of a runner's time, the env itself about 5% (docs/research/rllib.md). This runner
keeps RLlib's runner for everything else (modules, weights, metrics, checkpoints) and
replaces its sampling loop: per step, one forward pass per module over the games whose seat
to act it plays, one batched engine step, and a few list appends per game. It builds the
`MultiAgentEpisode`s RLlib's learner takes only when a game ends or `sample()` returns.

A mix (several settings) has a `BatchedEnv` per setting (`BatchedGames`), the runner's
games split equally over them, so each setting gets an equal share of the games as with
`TurnEnv`; observations are padded to the layout the settings share, so a module's one
forward pass per step takes its games of every setting (a scripted opponent, one module per
setting, is mapped to its setting's games only).

The episodes hold what `TurnEnv` gives RLlib: agents `s<part>_seat_<k>`, modules mapped per
game by the config's `policy_mapping_fn`; a seat's step runs from its observation to its
next one (or the game's end, when every seat gets its last observation, with a zero mask),
its reward is the sum of its rewards in between; illegal actions are refused by the engine.
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

from card_envs.core.batched import BatchedEnv
from card_envs.training.rllib.env import agent_id, observation_space, possible_agents, setting_games


class BatchedGames(VectorMultiAgentEnv):
    """A runner's games: each setting of `env_config` (as `TurnEnv` reads it) in a
    `BatchedEnv` of its own (`self.parts`), with the per-seat spaces RLlib's connectors and
    module specs read off a runner's env. Every setting gets an equal share of the
    `num_envs` games, rounded up (No Thanks's 10 settings in 8 games: 10 games, one each),
    so every runner plays every setting, each as often; a row always plays its setting.
    Rows are numbered across the parts, setting 0's first. `env_config["num_threads"]`
    (default 1) steps each part on that many threads. Only `BatchedEnvRunner` steps it."""

    def __init__(self, env_config: dict[str, Any], num_envs: int) -> None:
        games, self.paddings = setting_games(env_config)
        self.per_part = -(-num_envs // len(games))
        threads = env_config.get("num_threads", 1)
        self.parts = [BatchedEnv(game, self.per_part, num_threads=threads) for game in games]
        self.num_envs = self.per_part * len(games)
        self.part_of = np.repeat(np.arange(len(games)), self.per_part)  # of each row
        self.num_players = max(g.num_players for g in games)
        self.num_actions = games[0].num_actions
        self.possible_agents = possible_agents(games)
        obs_space = observation_space(games[0], self.paddings[0] is not None)
        self.single_observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.single_action_spaces = {
            a: gym.spaces.Discrete(self.num_actions) for a in self.possible_agents
        }
        self.single_observation_space = gym.spaces.Dict(self.single_observation_spaces)
        self.single_action_space = gym.spaces.Dict(self.single_action_spaces)

    def reset(self, seed: int | None = None) -> None:
        """New games everywhere; with a seed, row i starts from seed + i (as one
        `BatchedEnv` of all the rows would), else each row goes on with its own stream."""
        for k, part in enumerate(self.parts):
            part.reset(None if seed is None else seed + k * self.per_part)

    def _pad(self, k: int, obs: np.ndarray) -> np.ndarray:
        """Part k's observations as the modules read them (a copy)."""
        padding = self.paddings[k]
        return obs.copy() if padding is None else padding(obs)

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every row's seat to act, its observation (padded with a mix) and its action mask
        (float32)."""
        players = np.concatenate([part.current_player for part in self.parts])
        obs = np.concatenate([self._pad(k, p.observations) for k, p in enumerate(self.parts)])
        masks = np.concatenate([p.action_masks for p in self.parts], dtype=np.float32)
        return players, obs, masks

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every part's games stepped by its row's action: (rewards per row and seat, a
        smaller table's extra seats 0; terminated; truncated)."""
        rewards = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        ends = []
        for k, part in enumerate(self.parts):
            rows = slice(k * self.per_part, (k + 1) * self.per_part)
            _, _, r, terminated, truncated = part.step(actions[rows])
            rewards[rows, : part.num_players] = r
            ends.append((terminated, truncated))
        terminated, truncated = (np.concatenate(e) for e in zip(*ends, strict=True))
        return rewards, terminated, truncated

    def final_observations(self, i: int) -> np.ndarray:
        """The last observation of every seat of row i's game, which its last step ended."""
        k, row = divmod(i, self.per_part)
        return self._pad(k, self.parts[k].final_observations[row])


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
            agent_id=game.agents[seat],
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
    """The game under way in one row: its setting, its episode (chunk), the agent and the
    module of each seat and the seats' steps since the chunk began."""

    def __init__(
        self, part: int, episode: MultiAgentEpisode, modules: list[str], seats: list[_Seat]
    ) -> None:
        self.part = part
        self.agents = [agent_id(seat, part) for seat in range(len(seats))]
        self.episode = episode
        self.modules = modules
        self.seats = seats
        self.steps = 0  # env steps in this chunk

    def chunk(self, terminated: bool, truncated: bool) -> MultiAgentEpisode:
        """The chunk as RLlib's learner takes it: the seats that finished a step in it."""
        ep = self.episode
        ep.agent_episodes = {
            self.agents[s]: seat.episode(s, self, terminated, truncated)
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

    def _new_game(self, part: int) -> _Game:
        """The first chunk of a new game of setting `part`, its seats drawn by the mapping."""
        ep = MultiAgentEpisode(
            id_=uuid.uuid4().hex,
            agent_to_module_mapping_fn=self.config.policy_mapping_fn,
        )
        seats = range(self.env.parts[part].num_players)
        modules = [ep.module_for(agent_id(seat, part)) for seat in seats]
        return _Game(part, ep, modules, [_Seat() for _ in seats])

    def _next_chunk(self, prev: _Game, env_t: int) -> _Game:
        """The game of `prev` going on in a new chunk from env step `env_t`."""
        ep = MultiAgentEpisode(
            id_=prev.episode.id_,
            agent_module_ids=dict(zip(prev.agents, prev.modules, strict=True)),
            agent_to_module_mapping_fn=self.config.policy_mapping_fn,
            env_t_started=env_t,
        )
        return _Game(prev.part, ep, prev.modules, [seat.rest() for seat in prev.seats])

    def _reset_games(self) -> None:
        self.env.reset(self._seed if self._needs_initial_reset else None)
        n, p = self.num_envs, self.env.num_players
        self._games = [self._new_game(part) for part in self.env.part_of]
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
                self._games[i] = self._next_chunk(game, chunk.env_t)
        self._done_episodes_for_metrics.extend(done)
        self._log_sampled(env_steps, done, done + ongoing)
        return done + ongoing

    def _step(self, explore: bool) -> list[MultiAgentEpisode]:
        """One step of every game: each module acts for the games (of every setting) whose
        seat to act it plays, the engines step them all; returns the games that ended."""
        n = self.num_envs
        player, obs, masks = self.env.observe()
        masks = torch.from_numpy(masks)
        rows_of: dict[str, list[int]] = {}  # a mix has many modules: one pass over the rows
        for i in range(n):
            rows_of.setdefault(self._games[i].modules[player[i]], []).append(i)
        actions = np.empty(n, dtype=np.int64)
        for module_id in sorted(rows_of):  # a fixed order: the same seed, the same games
            sel = np.array(rows_of[module_id])
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
        rewards, terminated, truncated = self.env.step(actions)
        self._pending += rewards
        for game in self._games:
            game.steps += 1
        return [
            self._finish(i, bool(terminated[i])) for i in np.flatnonzero(terminated | truncated)
        ]

    def _finish(self, i: int, terminated: bool) -> MultiAgentEpisode:
        """Row i's game is over (the engine dealt the next already): every seat that acted
        gets its last observation and reward; a fresh game takes the row."""
        game = self._games[i]
        zero = np.zeros(self.env.num_actions, dtype=np.float32)
        final = self.env.final_observations(i)
        for s, seat in enumerate(game.seats):
            if seat.waiting:
                seat.rewards.append(float(self._pending[i, s]))
                seat.obs.append(final[s])
                seat.masks.append(zero)
        self._pending[i] = 0.0
        self._games[i] = self._new_game(game.part)
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
