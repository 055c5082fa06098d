"""Statistics of played games: each agent's win rate, mean reward and mean score, with
confidence intervals (`confidence`, 95% by default), and its time per decision.

- win rate: the Wilson score interval for a proportion, with p = the mean win share and
  n = games. A game's win share is 1 for a sole winner, 1/k for each of k tied winners and
  0 otherwise. For such fractional values w in [0, 1], w**2 <= w, so their variance
  E[w**2] - p**2 is at most p (1 - p), the variance Wilson's interval assumes: with ties the
  interval is conservative (a little too wide), never too narrow. Unlike a normal-
  approximation interval it stays inside [0, 1] and has non-zero width at 0% and 100%.
- mean reward, mean score: Student's t interval on the per-game values,
  mean +- t(1 - (1 - confidence) / 2, n - 1) * s / sqrt(n), s the sample standard deviation
  (ddof=1); (nan, nan) with a single game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from card_envs.evaluation.arena import GameBatch


def z_score(confidence: float) -> float:
    """The standard normal quantile of a two-sided `confidence` (checked to be in (0, 1))."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(p: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion p observed over n trials (see module doc for
    fractional win shares)."""
    if n < 1:
        return (math.nan, math.nan)
    z = z_score(confidence)
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
    # the interval always holds p (exactly 0 at p = 0, 1 at p = 1): clip rounding errors
    return (max(0.0, min(center - half, p)), min(1.0, max(center + half, p)))


def t_interval(values: Sequence[float] | np.ndarray, confidence: float = 0.95):
    """Student's t interval for the mean of `values`: (mean, (low, high))."""
    x = np.asarray(values, dtype=np.float64)
    z_score(confidence)
    if len(x) == 0:
        return math.nan, (math.nan, math.nan)
    mean = float(x.mean())
    if len(x) < 2:
        return mean, (math.nan, math.nan)
    from scipy.special import stdtrit  # Student t quantile (lighter than scipy.stats)

    q = float(stdtrit(len(x) - 1, 0.5 + confidence / 2))
    half = q * float(x.std(ddof=1)) / math.sqrt(len(x))
    return mean, (mean - half, mean + half)


@dataclass(frozen=True)
class AgentStats:
    """One agent's results over all its games (all seats)."""

    name: str
    spec: str
    games: int
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_reward: float
    mean_reward_ci: tuple[float, float]
    mean_score: float
    mean_score_ci: tuple[float, float]
    seat_games: tuple[int, ...]  # games played in each seat
    ms_per_move: float = math.nan  # wall time the agent took per decision (nan: not measured)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def agent_stats(
    name: str, spec: str, results: GameBatch, agent: int, n: int, confidence: float
) -> AgentStats:
    """Statistics of field agent `agent` over the games it played in `results`."""
    mask = results.agent_of_seat == agent
    games = int(mask.any(axis=1).sum())
    share = results.win_share[mask]
    win_rate = float(share.mean()) if len(share) else math.nan
    reward, reward_ci = t_interval(results.rewards[mask], confidence)
    score, score_ci = t_interval(results.scores[mask], confidence)
    return AgentStats(
        name=name,
        spec=spec,
        games=games,
        win_rate=win_rate,
        win_rate_ci=wilson_interval(win_rate, len(share), confidence),
        mean_reward=reward,
        mean_reward_ci=reward_ci,
        mean_score=score,
        mean_score_ci=score_ci,
        seat_games=tuple(int(c) for c in mask.sum(axis=0)) if n else (),
        ms_per_move=ms_per_move(results, mask),
    )


def ms_per_move(results: GameBatch, mask: np.ndarray) -> float:
    """Milliseconds of choosing per decision over the seats in `mask` (nan: not measured)."""
    if results.moves is None or results.think is None or not results.moves[mask].sum():
        return math.nan
    return 1000.0 * float(results.think[mask].sum()) / float(results.moves[mask].sum())
