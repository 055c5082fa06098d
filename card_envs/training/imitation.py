"""Warm start by imitation: before PPO, fit the policy to a teacher agent's moves and the
value function to the outcomes of the teacher's games.

The teacher plays every seat of `num_envs` batched games; each of its decisions is a
sample (observation, mask, action, the seat's total reward in that game). Or the samples
are the decisions of a Minari dataset written by `card-envs dataset` (card_envs/dataset.py):
every seat's, with the masks of its step infos and the seat's rewards from then on. Its env
and config must be the run's (with a mix: one of the mix's settings, whose observations are
then padded). The actor is
trained by cross-entropy on the masked logits, the critic by squared error on the reward
(the exact return with gamma 1 and rewards at the end of the game, as in every game here).
Both training backends use it: `imitate_policy` on a MaskablePPO policy, and
training/rllib/train.py on its `main` module. Memory: samples x observation size x 4
bytes (1M Surfosaurus decisions at 4 players with hints: 2.8 GB).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from card_envs.agents import make_agent
from card_envs.core.padding import Padding
from card_envs.registry import make_vec
from card_envs.training.config import ImitationSettings, TrainConfig, open_matching_dataset
from card_envs.training.decisions import record

NUM_ENVS = 256


@dataclass
class Samples:
    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray


def collect(config: TrainConfig, settings: ImitationSettings) -> Samples:
    """`settings.samples` decisions of the teacher in self-play, an equal share in each of
    the run's settings (a mix's, observations padded), each with the total reward its seat
    got in that game; or the first `settings.samples` decisions of the dataset."""
    if settings.dataset is not None:
        return from_dataset(config, settings.samples)
    parts = config.settings
    share = -(-settings.samples // len(parts))
    found = [
        collect_setting(config, setting, settings.teacher, share, part)
        for part, setting in enumerate(parts)
    ]
    columns = zip(*found, strict=True)
    return Samples(*(np.concatenate(column)[: settings.samples] for column in columns))


def collect_setting(
    config: TrainConfig, setting: dict, teacher_spec: str, size: int, part: int
) -> tuple[np.ndarray, ...]:
    """`size` decisions of the teacher in self-play in `setting` (play goes on until every
    game with a stored decision ends)."""
    seed = config.seed + 5_000_011 + 7_919 * part
    venv = make_vec(config.env, NUM_ENVS, seed=seed, **setting)
    teacher = make_agent(teacher_spec, config.env, seed=config.seed + part, **setting)
    padding = Padding(venv.game) if config.padded else None
    found = record(venv, teacher.act_positions, size, padding)
    return found.observations, found.masks, found.actions, found.returns


def from_dataset(config: TrainConfig, samples: int) -> Samples:
    """The first `samples` decisions of the run's dataset (observations padded in a mix),
    each with what its seat received from then on (the exact return with gamma 1)."""
    ds, game = open_matching_dataset(config)
    padding = Padding(game) if config.padded else None
    parts = []
    count = 0
    for episode in ds.iterate_episodes():
        if count >= samples:
            break
        returns = np.cumsum(episode.rewards[::-1])[::-1]
        mask = episode.infos["action_mask"][:-1] != 0  # the last row is the game's end
        parts.append((episode.observations[:-1], mask, episode.actions, returns))
        count += len(episode.actions)
    columns = zip(*parts, strict=True)
    obs, masks, actions, returns = (np.concatenate(column)[:samples] for column in columns)
    obs = obs.astype(np.float32) if padding is None else padding(obs).astype(np.float32)
    return Samples(obs, masks, actions.astype(np.int64), returns.astype(np.float32))


def imitate(net, heads, config: TrainConfig, settings: ImitationSettings, echo=print) -> dict:
    """Fit `net` (a torch module) to the teacher's decisions; `heads(obs, masks)` gives its
    masked actor logits and critic values of a batch, so both training backends share the
    data and the fit. Returns what was done and how well it fits (results.json's
    `imitation`)."""
    import torch

    t0 = time.perf_counter()
    data = collect(config, settings)
    collected = time.perf_counter() - t0
    device = next(net.parameters()).device
    obs, masks, actions, returns = (
        torch.as_tensor(a, device=device)
        for a in (data.observations, data.masks, data.actions, data.returns)
    )
    m = len(actions)
    fit(net, heads, (obs, masks, actions, returns), settings.epochs, settings.batch_size,
        settings.learning_rate, config.seed)  # fmt: skip
    with torch.no_grad():
        check = slice(0, min(m, 50_000))
        logits, values = heads(obs[check], masks[check])
        agreement = float((logits.argmax(1) == actions[check]).float().mean())
        value_error = float(torch.nn.functional.mse_loss(values, returns[check]))
    source = settings.teacher or f"the dataset {settings.dataset}"
    info = {
        "teacher": settings.teacher,
        "dataset": settings.dataset,
        "samples": m,
        "epochs": settings.epochs,
        "agreement": round(agreement, 4),
        "value_mse": round(value_error, 4),
        "collect_s": round(collected, 1),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    echo(
        f"imitation of {source}: {m:,} decisions, the policy picks the teacher's "
        f"action {agreement:.1%} of the time ({info['seconds']} s)"
    )
    return info


def fit(
    net,
    heads,
    data: tuple,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    value_weight: float = 0.5,
) -> tuple[float, float]:
    """Fit `net` with Adam to `data` = (observations, masks, targets, returns), torch
    tensors: cross-entropy of the masked actor logits to the targets (action indices, or
    probabilities over the actions) plus `value_weight` x squared error of the critic to
    the returns (on the network's device, where they are moved). Returns the last epoch's
    mean policy and value losses."""
    import torch

    device = next(net.parameters()).device
    obs, masks, targets, returns = (t.to(device) for t in data)
    net.train(True)
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    m = len(obs)
    for _ in range(epochs):
        order = torch.randperm(m, generator=generator).to(device)
        sums = [0.0, 0.0]
        for start in range(0, m, batch_size):
            idx = order[start : start + batch_size]
            logits, values = heads(obs[idx], masks[idx])
            policy_loss = torch.nn.functional.cross_entropy(logits, targets[idx])
            value_loss = torch.nn.functional.mse_loss(values, returns[idx])
            loss = policy_loss + value_weight * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            sums[0] += policy_loss.item() * len(idx)
            sums[1] += value_loss.item() * len(idx)
    net.train(False)
    return sums[0] / max(m, 1), sums[1] / max(m, 1)


def imitate_policy(model, config: TrainConfig, settings: ImitationSettings, echo=print) -> dict:
    """`imitate` for a MaskablePPO model: its policy's actor and critic."""
    policy = model.policy
    return imitate(
        policy, lambda obs, masks: policy_heads(policy, obs, masks), config, settings, echo
    )


def policy_heads(policy, obs, masks):
    """Masked actor logits and critic values of a batch, on the policy's device."""
    obs, masks = obs.to(policy.device), masks.to(policy.device)
    features = policy.extract_features(obs, policy.pi_features_extractor)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        vf_features = policy.extract_features(obs, policy.vf_features_extractor)
        latent_pi = policy.mlp_extractor.forward_actor(features)
        latent_vf = policy.mlp_extractor.forward_critic(vf_features)
    logits = policy.action_net(latent_pi).masked_fill(~masks, -1e8)
    return logits, policy.value_net(latent_vf).squeeze(-1)
