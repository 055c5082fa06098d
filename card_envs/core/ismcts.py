"""Information-set Monte Carlo tree search over the engine protocol, all in numba.

Single-observer ISMCTS (Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree
Search", IEEE TCIAIG 2012). The searching seat sees the game only through the engine's
`resample_hidden(copy, seat)`: every simulation

1. determinises: copies the root row, seeds the copy's PRNG from the search's own stream
   (never the row's) and redraws everything the seat cannot see;
2. descends the tree of action sequences from the root, choosing among the actions legal in
   this determinisation by UCB1 with availability counts (a child's exploration term uses
   how often it was legal when its parent was visited, not the parent's visits);
3. expands one untried legal action into a new node: the heuristic's move when the rollouts
   are the heuristic's and it is untried, else one drawn uniformly;
4. rolls out to the end of the game, or for `max_depth` actions, with uniformly random legal
   actions or the game's heuristic kernel (fed by `observe` and `legal`), or a network's
   most probable legal action (`NETWORK`, with a `prior`: see `search_row`);
5. backs up each seat's win share from the `outcome` kernel (in [0, 1]): every node adds the
   share of the seat that chose the action leading to it. A rollout cut at `max_depth` is
   scored by `outcome` on the running row, each game's ranking of the position as it stands
   (the ranking a truncated game gets).

The move is the root action visited most (ties: the child expanded first).

A game's `moves_fn(row, heuristic_move, mask)` may first narrow the root's legal actions in
`mask` (one left: that move, unsearched) and return the search's shape: `TREE` (the above;
`all_moves` keeps every action) or `PAIRED` (`_paired_root`: the moves are played from the
same determinisations and compared on their summed values, the heuristic's move kept unless
beaten by a margin). Rummidrez uses it (docs/agents.md, "What a game searches").

The tree is flat preallocated arrays (`new_tree`), one node per simulation at most:
`child[node, action]` (-1: not expanded), and per node its visits, availability, summed
value and the seat that chose its action. Like `core.batched`'s loops, `search_rows` takes the
game's kernels as arguments, so it is not cached itself but inlined into each game's one-line
cached wrapper (`games/<game>/search.py`): a warm start compiles nothing. numba's cache
tracks only the wrapper's own file, so after editing this module delete the wrappers' cache
files (`card_envs/games/*/__pycache__/search.*`), or they keep the old search.
"""

from __future__ import annotations

import math

import numpy as np

from card_envs.core import layout
from card_envs.core.jit import njit
from card_envs.core.mlp import actor_logits
from card_envs.core.rng import below, next_u32

RANDOM, HEURISTIC, NETWORK = 0, 1, 2  # rollout policies (NETWORK: the prior's network)
NO_LIMIT = -1  # max_depth of rollouts played to the end
TREE, PAIRED = 0, 1  # search shapes a game's `moves_fn` asks for (see `search_row`)
PAIRED_MARGIN = 0.02  # mean value by which a move must beat the heuristic's in PAIRED


def new_tree(simulations: int, num_actions: int) -> tuple[np.ndarray, ...]:
    """Arrays for a search of `simulations` simulations: (child, visits, availability,
    value, actor), room for the root and one node per simulation."""
    nodes = simulations + 1
    return (
        np.full((nodes, num_actions), -1, dtype=np.int32),
        np.zeros(nodes, dtype=np.float64),
        np.zeros(nodes, dtype=np.float64),
        np.zeros(nodes, dtype=np.float64),
        np.zeros(nodes, dtype=np.int64),
    )


@njit(cache=True)
def _copy(dst, src):
    """`dst[:] = src` as a loop: numba compiles a slice assignment from an array with a
    formatter for its shape-mismatch error, seconds of compiling in every new process."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True)
def _new_node(tree, size, actor):
    """Node `size`, reached by an action of `actor` that is available now."""
    child, visits, avail, value, actors = tree
    child[size, :] = -1
    visits[size] = 0.0
    avail[size] = 1.0
    value[size] = 0.0
    actors[size] = actor


@njit(cache=True)
def _count_legal(mask):
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a]
    return count


@njit(cache=True)
def _nth_legal(mask, n):
    """The n-th (from 0) legal action of `mask`."""
    for a in range(mask.shape[0]):
        if mask[a]:
            if n == 0:
                return a
            n -= 1
    return -1


@njit(cache=True)
def _visit(tree, node, mask):
    """Count a visit's availability for the expanded legal children of `node`; return the
    number of legal actions not expanded yet."""
    child, _, avail, _, _ = tree
    untried = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            c = child[node, a]
            if c < 0:
                untried += 1
            else:
                avail[c] += 1.0
    return untried


@njit(cache=True)
def _nth_untried(tree, node, mask, n):
    """The n-th (from 0) legal action of `node` not expanded yet."""
    child = tree[0]
    for a in range(mask.shape[0]):
        if mask[a] and child[node, a] < 0:
            if n == 0:
                return a
            n -= 1
    return -1


@njit(cache=True)
def ucb_action(tree, node, mask, exploration):
    """The legal child of `node` with the highest UCB1 score: its mean value for the seat
    that chose it plus `exploration * sqrt(ln(availability) / visits)`."""
    child, visits, avail, value, _ = tree
    best, best_score = -1, -np.inf
    for a in range(mask.shape[0]):
        if mask[a]:
            c = child[node, a]
            n = visits[c]
            score = value[c] / n + exploration * math.sqrt(math.log(avail[c]) / n)
            if score > best_score:
                best, best_score = a, score
    return best


def new_prior(net, simulations: int, num_actions: int, guide: bool = True) -> tuple:
    """The search's `prior`: a network (`core.mlp.actor_net`) with its scratch (the padded
    input, each node's logits and whether they are computed) and whether it guides the
    tree (PUCT); rollouts use it when the rollout policy is `NETWORK`."""
    index, ones, size, weights, biases = net
    return (
        index,
        ones,
        np.zeros(size, dtype=np.float32),
        weights,
        biases,
        np.zeros((simulations + 1, num_actions), dtype=np.float32),
        np.zeros(simulations + 1, dtype=np.bool_),
        guide,
    )


@njit(cache=True)
def puct_action(tree, node, mask, exploration, logits):
    """The legal child of `node` with the highest PUCT score (AlphaZero's, with ISMCTS's
    availability): its mean value plus `exploration * P(a) * sqrt(availability) / (1 +
    visits)`, P the network's softmax over the legal actions. An unexpanded child counts
    the mean value of its expanded legal siblings (0 when there are none) and the node's
    visits as its availability: a neutral first value, where 0 (the worst outcome) would
    keep the search on the prior's first choice."""
    child, visits, avail, value, _ = tree
    top = -np.inf
    seen_value, seen_visits = 0.0, 0.0
    for a in range(mask.shape[0]):
        if mask[a]:
            top = max(top, logits[a])
            if child[node, a] >= 0:
                seen_value += value[child[node, a]]
                seen_visits += visits[child[node, a]]
    first = seen_value / seen_visits if seen_visits > 0 else 0.0
    total = 0.0
    for a in range(mask.shape[0]):
        if mask[a]:
            total += math.exp(logits[a] - top)
    best, best_score = -1, -np.inf
    for a in range(mask.shape[0]):
        if mask[a]:
            p = math.exp(logits[a] - top) / total
            c = child[node, a]
            if c < 0:
                score = first + exploration * p * math.sqrt(max(visits[node], 1.0))
            else:
                n = visits[c]
                score = value[c] / n + exploration * p * math.sqrt(avail[c]) / (1.0 + n)
            if score > best_score:
                best, best_score = a, score
    return best


@njit(inline="always")  # not cached, inlined: see the module docstring
def _prior_logits(det, node, obs, prior, observe_fn):
    """The network's logits at `node` for the seat to act in `det`, computed at the node's
    first selection (from that determinisation) and kept."""
    index, ones, x, weights, biases, logits, ready, _ = prior
    if not ready[node]:
        observe_fn(det, det[layout.PLAYER], obs[0])
        _copy(logits[node], actor_logits(obs[0], index, ones, x, weights, biases))
        ready[node] = True
    return logits[node]


@njit(cache=True)
def best_root_action(tree, mask):
    """The root's most visited legal action; ties go to the child expanded first (with
    heuristic rollouts, the heuristic's move: a search too small to tell the moves apart
    plays it rather than the luckier of single rollouts)."""
    child, visits = tree[0], tree[1]
    best, best_visits, best_child = -1, -1.0, 0
    for a in range(mask.shape[0]):
        c = child[0, a]
        if (
            mask[a]
            and c >= 0
            and (visits[c] > best_visits or (visits[c] == best_visits and c < best_child))
        ):
            best, best_visits, best_child = a, visits[c], c
    return best


@njit(cache=True)
def all_moves(row, heuristic_move, mask):
    """The `moves_fn` of a game that searches every legal action with the tree."""
    return TREE


@njit(cache=True)
def backup(tree, path, length, wins):
    """Add a simulation's result to the nodes on its path: each node scores the win share
    of the seat that chose the action leading to it (the root only counts the visit)."""
    _, visits, _, value, actors = tree
    for j in range(length):
        node = path[j]
        visits[node] += 1.0
        if j > 0:
            value[node] += wins[actors[node]]


@njit(cache=True)
def _seed_from(det, stream):
    """Seed the determinisation's PRNG (its future chance) from the search's own stream."""
    zero = True
    for w in range(4):
        det[layout.RNG + w] = next_u32(stream)
        zero = zero and det[layout.RNG + w] == 0
    if zero:
        det[layout.RNG] = 1  # xoshiro's state must not be all zero


@njit(inline="always")  # not cached, inlined: see the module docstring
def _policy_move(det, obs, masks, picked, observe_fn, policy_fn, policy_args):
    """The policy kernel's move for the seat to act in `det`, whose mask is in `masks[0]`."""
    observe_fn(det, det[layout.PLAYER], obs[0])
    policy_fn(obs, masks, picked, *policy_args)
    return picked[0]


@njit(inline="always")  # not cached, inlined: see the module docstring
def _network_move(det, obs, mask, prior, observe_fn):
    """The prior network's most probable legal action for the seat to act in `det`."""
    index, ones, x, weights, biases = prior[:5]
    observe_fn(det, det[layout.PLAYER], obs[0])
    logits = actor_logits(obs[0], index, ones, x, weights, biases)
    best, top = -1, -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and logits[a] > top:
            best, top = a, logits[a]
    return best


@njit(inline="always")  # not cached, inlined: see the module docstring
def _roll_out(
    det,
    stream,
    settings,
    policy_args,
    prior,
    obs,
    masks,
    picked,
    rewards,
    step_fn,
    legal_fn,
    observe_fn,
    policy_fn,
):
    """Play `det` to its end, or for `max_depth` actions, with the settings' rollout policy."""
    _, _, rollout, max_depth, _ = settings
    mask = masks[0]
    depth = 0
    while det[layout.STATUS] == layout.RUNNING and depth != max_depth:
        legal_fn(det, mask)
        if prior is not None and rollout == NETWORK:
            a = _network_move(det, obs, mask, prior, observe_fn)
        elif rollout == HEURISTIC:
            a = _policy_move(det, obs, masks, picked, observe_fn, policy_fn, policy_args)
        else:
            a = _nth_legal(mask, below(stream, _count_legal(mask)))
        step_fn(det, a, rewards)
        depth += 1


@njit(inline="always")  # not cached, inlined: see the module docstring
def _paired_root(
    row,
    stream,
    tree,
    settings,
    policy_args,
    prior,
    root_mask,
    heuristic_move,
    buffers,
    step_fn,
    legal_fn,
    observe_fn,
    outcome_fn,
    resample_fn,
    policy_fn,
):
    """The `PAIRED` search: every candidate of `root_mask` (the heuristic's move first) is
    played from the same determinisations, each with the same future chance, and rolled
    out; the heuristic's move stays unless another's mean value beats it by
    `PAIRED_MARGIN`. The root's children keep their visits and summed values, as in the
    tree search. `buffers` are `search_row`'s scratch arrays."""
    det, obs, masks, picked, rewards, scores, wins = buffers
    simulations = settings[0]
    child, visits, _, value, _ = tree
    seat = row[layout.PLAYER]
    moves = np.zeros(root_mask.shape[0], dtype=np.int64)
    m = 0
    if root_mask[heuristic_move]:
        moves[0] = heuristic_move
        m = 1
    for a in range(root_mask.shape[0]):
        if root_mask[a] and a != heuristic_move:
            moves[m] = a
            m += 1
    for i in range(m):
        _new_node(tree, i + 1, seat)
        child[0, moves[i]] = i + 1
    base = np.empty_like(row)
    rounds = max(1, simulations // m)
    for _ in range(rounds):
        _copy(base, row)
        _seed_from(base, stream)
        resample_fn(base, seat)  # the PRNG it leaves is the future chance every move meets
        for i in range(m):
            _copy(det, base)
            step_fn(det, moves[i], rewards)
            _roll_out(
                det,
                stream,
                settings,
                policy_args,
                prior,
                obs,
                masks,
                picked,
                rewards,
                step_fn,
                legal_fn,
                observe_fn,
                policy_fn,
            )
            outcome_fn(det, scores, wins)
            visits[i + 1] += 1.0
            value[i + 1] += wins[seat]
    visits[0] = rounds * m
    best = 0
    for i in range(1, m):
        if value[i + 1] > value[best + 1]:
            best = i
    if value[best + 1] > value[1] + PAIRED_MARGIN * rounds:
        return moves[best]
    return moves[0]


@njit(inline="always")  # not cached, inlined: see the module docstring
def search_row(
    row,
    stream,
    tree,
    settings,
    policy_args,
    prior,
    step_fn,
    legal_fn,
    observe_fn,
    outcome_fn,
    resample_fn,
    policy_fn,
    moves_fn,
):
    """The chosen action of the seat to act in `row`, drawing every random number from
    `stream` (a PRNG state row, see `core.rng`); `settings` is (simulations, exploration,
    rollout, max_depth, obs_size). With a `prior` that guides (`new_prior`; None: UCB1 as
    the module says), each node chooses among all its legal actions by `puct_action` on the
    network's logits, expanding the chosen one if new; with the rollout policy `NETWORK`,
    the prior's network plays the rollouts (numba compiles the None case without either)."""
    simulations, exploration, rollout, max_depth, obs_size = settings
    child = tree[0]
    num_actions = child.shape[1]
    n = row[layout.NUM_PLAYERS]
    seat = row[layout.PLAYER]
    det = np.empty_like(row)
    obs = np.zeros((1, obs_size), dtype=np.float32)
    masks = np.zeros((1, num_actions), dtype=np.int8)  # the policy kernel's batch of one
    mask = masks[0]
    picked = np.zeros(1, dtype=np.int64)
    rewards = np.zeros(n, dtype=np.float32)  # the step kernel's, unused: `outcome` scores
    scores = np.zeros(n, dtype=np.float64)
    wins = np.zeros(n, dtype=np.float64)
    path = np.zeros(simulations + 1, dtype=np.int64)
    root_mask = np.zeros(num_actions, dtype=np.int8)
    legal_fn(row, mask)
    _copy(root_mask, mask)
    if _count_legal(root_mask) == 1:
        return _nth_legal(root_mask, 0)
    heuristic_move = _policy_move(row, obs, masks, picked, observe_fn, policy_fn, policy_args)
    shape = moves_fn(row, heuristic_move, root_mask)
    _new_node(tree, 0, seat)  # the root (its actor and availability are not read)
    if prior is not None:
        prior[6][0] = False
    if _count_legal(root_mask) == 1:  # the game searches only other decisions
        return _nth_legal(root_mask, 0)
    if shape == PAIRED:
        return _paired_root(
            row,
            stream,
            tree,
            settings,
            policy_args,
            prior,
            root_mask,
            heuristic_move,
            (det, obs, masks, picked, rewards, scores, wins),
            step_fn,
            legal_fn,
            observe_fn,
            outcome_fn,
            resample_fn,
            policy_fn,
        )
    size = 1
    for _ in range(simulations):
        _copy(det, row)
        _seed_from(det, stream)
        resample_fn(det, seat)
        rewards[:] = 0.0
        node, length = 0, 1
        while det[layout.STATUS] == layout.RUNNING:  # selection, then one expansion
            legal_fn(det, mask)
            if length == 1:
                mask &= root_mask
            untried = _visit(tree, node, mask)
            a = -1
            if prior is not None and prior[7]:
                logits = _prior_logits(det, node, obs, prior, observe_fn)
                a = puct_action(tree, node, mask, exploration, logits)
                untried = 1 if child[node, a] < 0 else 0
            if untried > 0:
                if a < 0 and rollout == HEURISTIC:  # the heuristic's move is tried first
                    a = _policy_move(det, obs, masks, picked, observe_fn, policy_fn, policy_args)
                    if child[node, a] >= 0:
                        a = -1
                if a < 0:
                    a = _nth_untried(tree, node, mask, below(stream, untried))
                _new_node(tree, size, det[layout.PLAYER])
                if prior is not None:
                    prior[6][size] = False
                child[node, a] = size
                node = size
                size += 1
                step_fn(det, a, rewards)
                path[length] = node
                length += 1
                break
            if a < 0:
                a = ucb_action(tree, node, mask, exploration)
            node = child[node, a]
            step_fn(det, a, rewards)
            path[length] = node
            length += 1
        _roll_out(
            det,
            stream,
            settings,
            policy_args,
            prior,
            obs,
            masks,
            picked,
            rewards,
            step_fn,
            legal_fn,
            observe_fn,
            policy_fn,
        )
        outcome_fn(det, scores, wins)
        backup(tree, path, length, wins)
    return best_root_action(tree, root_mask)


@njit(inline="always")  # not cached, inlined: see the module docstring
def search_rows(
    rows,
    streams,
    out,
    tree,
    settings,
    policy_args,
    prior,
    step_fn,
    legal_fn,
    observe_fn,
    outcome_fn,
    resample_fn,
    policy_fn,
    moves_fn,
):
    """`out[i]`: the search's action for the seat to act in `rows[i]`, drawing from the PRNG
    state row `streams[i]`; one tree, reused row after row (`prior`: see `search_row`)."""
    for i in range(rows.shape[0]):
        out[i] = search_row(
            rows[i],
            streams[i],
            tree,
            settings,
            policy_args,
            prior,
            step_fn,
            legal_fn,
            observe_fn,
            outcome_fn,
            resample_fn,
            policy_fn,
            moves_fn,
        )
