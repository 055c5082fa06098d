"""A MaskablePPO policy's actor as plain arrays, for compiled code to evaluate.

The search reads a trained network (`agents.ismcts`, spec `ismcts:N:net`) inside numba, where
torch cannot be called: `actor_net` copies the actor's layers (SB3's `MlpExtractor` policy
branch, tanh between layers, then the action head) into float32 arrays with the `Padding`
that maps the config's observation into the layout the network reads. `actor_logits` is the
forward pass in numba; tests/test_mlp.py holds it to torch's own.
"""

from __future__ import annotations

import numpy as np

from card_envs.core.jit import njit

# (index, ones, size, weights, biases): the padding's scatter (observation slot j goes to
# index[j], the slots in `ones` are 1, `size` the padded length), then each layer's
# weight (out x in) and bias, the last one the action head
ActorNet = tuple[np.ndarray, np.ndarray, int, tuple[np.ndarray, ...], tuple[np.ndarray, ...]]


def actor_net(policy, padding, obs_size: int) -> ActorNet:
    """The actor of an SB3 policy (`MaskableActorCriticPolicy` with its default `MlpPolicy`
    layout) as arrays; `padding` (a `core.padding.Padding`) maps the config's observations
    of `obs_size` slots into what the network reads, None: it reads them as they are."""
    import torch

    layers = []
    for module in policy.mlp_extractor.policy_net:
        if isinstance(module, torch.nn.Linear):
            layers.append(module)
        elif not isinstance(module, torch.nn.Tanh):
            raise ValueError(
                f"the search evaluates MLP actors with tanh activations (SB3's default); this "
                f"policy has {type(module).__name__}"
            )
    layers.append(policy.action_net)
    weights = tuple(np.ascontiguousarray(m.weight.detach().numpy(), np.float32) for m in layers)
    biases = tuple(np.ascontiguousarray(m.bias.detach().numpy(), np.float32) for m in layers)
    if padding is None:
        index, ones, size = np.arange(obs_size), np.zeros(0, np.int64), obs_size
    else:
        index, ones, size = padding.index, padding.ones, padding.size
    if weights[0].shape[1] != size:
        raise ValueError(f"the network reads {weights[0].shape[1]} slots, the padding gives {size}")
    return np.asarray(index, np.int64), np.asarray(ones, np.int64), int(size), weights, biases


@njit(cache=True)
def actor_logits(obs, index, ones, x, weights, biases):
    """The actor's logits for one observation of the config (`x`: scratch of the padded
    size, overwritten)."""
    x[:] = 0.0
    for j in range(index.shape[0]):
        x[index[j]] = obs[j]
    for j in range(ones.shape[0]):
        x[ones[j]] = 1.0
    h = x
    last = len(weights) - 1
    for k in range(len(weights)):
        h = np.dot(weights[k], h) + biases[k]
        if k < last:
            h = np.tanh(h)
    return h
