"""Terminal rewards shared by the games."""

from card_envs.core.jit import njit


@njit(cache=True)
def share_win(scores, lower_wins, out):
    """Winners (best score, ties included) share a reward of 1; everyone else gets 0."""
    n = scores.shape[0]
    best = scores[0]
    for p in range(1, n):
        if (scores[p] < best) if lower_wins else (scores[p] > best):
            best = scores[p]
    winners = 0
    for p in range(n):
        if scores[p] == best:
            winners += 1
    for p in range(n):
        out[p] = 1.0 / winners if scores[p] == best else 0.0
