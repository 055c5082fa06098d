"""Ratings and leaderboards of an event's agents from its finished games.

OpenSkill (every event): the `openskill` library's Plackett-Luce model, every game one
update in which each seat is a team of one, ranked by the event's `rank_by`:
- `win`: the winners (win share > 0; k tied winners share the first place) before all
  others, who tie for second;
- `score_low` / `score_high`: winners first, then the others by their game score, lower
  (No Thanks! points) or higher (Surfosaurus points) being better; equal scores tie.
Updates are applied in a seeded random order of the event's games (fixed by the tournament
seed), so the ratings do not depend on which worker finished first or on a resume.
Reported: mu (the rating), sigma (its uncertainty) and the ordinal mu - 3 sigma (a
conservative rating, used to sort).

Bradley-Terry / Elo (2-player events): a maximum-likelihood Bradley-Terry fit of all the
event's games at once with `choix.ilsr_pairwise_dense` on the matrix W[i, j] = games i won
against j, where a draw counts half a win for each side. One virtual draw is added to each
pairing that met (a weak prior, as in BayesElo), so that an agent that never lost still
gets a finite rating. Strengths theta (mean 0) are shown on the Elo scale,
elo = 1500 + 400 / ln(10) * theta. The uncertainty is the standard error from the Fisher
information of that likelihood at the fit: I[i, i] = sum_j N[i, j] p[i, j] (1 - p[i, j]),
I[i, j] = -N[i, j] p[i, j] (1 - p[i, j]), p[i, j] = 1 / (1 + exp(theta[j] - theta[i])),
covariance = the pseudo-inverse of I (ratings are only defined up to a common shift; the
pseudo-inverse is the covariance with mean 0), and elo_se = 400 / ln(10) * sqrt(cov[i, i]).

Win rates come with the Wilson interval and mean scores with the t interval of
`card_envs.evaluation.stats`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from card_envs.evaluation.arena import GameBatch, derive_seed
from card_envs.evaluation.stats import agent_stats
from card_envs.tournament.schedule import EventPlan, name_key

ELO_SCALE = 400 / math.log(10)
ELO_BASE = 1500.0
_RATING_ORDER = 0x0A7E5  # key of the update-order stream


def seat_ranks(scores: np.ndarray, wins: np.ndarray, rank_by: str) -> np.ndarray:
    """Finishing place of each seat (0 = first, ties share a place), one row per game."""
    lost = (wins <= 0).astype(np.float64)
    if rank_by == "win":
        secondary = np.zeros_like(scores)
    elif rank_by == "score_low":
        secondary = scores
    elif rank_by == "score_high":
        secondary = -scores
    else:
        raise ValueError(f"rank_by={rank_by!r} is not one of ['win', 'score_low', 'score_high']")
    ranks = np.zeros(scores.shape, dtype=np.int64)
    for g in range(scores.shape[0]):
        keys = list(zip(lost[g].tolist(), secondary[g].tolist(), strict=True))
        places = {k: p for p, k in enumerate(sorted(set(keys)))}
        ranks[g] = [places[k] for k in keys]
    return ranks


def openskill_ratings(
    num_agents: int, agent_of_seat: np.ndarray, ranks: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(mu, sigma) per agent after Plackett-Luce updates of the games in `order`."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating() for _ in range(num_agents)]
    for g in order:
        seats = agent_of_seat[g].tolist()
        new = model.rate([[ratings[a]] for a in seats], ranks=ranks[g].tolist())
        for a, team in zip(seats, new, strict=True):
            ratings[a] = team[0]
    return np.array([r.mu for r in ratings]), np.array([r.sigma for r in ratings])


def _connected(met: np.ndarray) -> bool:
    seen, todo = {0}, [0]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(met[i]).tolist():
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return len(seen) == len(met)


def pairwise_counts(
    num_agents: int, agent_of_seat: np.ndarray, win_share: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """W[i, j] (wins of i over j, draws half) and N[i, j] (games between i and j) of
    2-player games."""
    wins = np.zeros((num_agents, num_agents))
    games = np.zeros((num_agents, num_agents))
    a, b = agent_of_seat[:, 0], agent_of_seat[:, 1]
    np.add.at(wins, (a, b), win_share[:, 0])
    np.add.at(wins, (b, a), win_share[:, 1])
    np.add.at(games, (a, b), 1)
    np.add.at(games, (b, a), 1)
    return wins, games


def bradley_terry(
    wins: np.ndarray, games: np.ndarray, prior_draws: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """(theta, standard error) of the Bradley-Terry fit described in the module doc; nan
    when the agents that met do not form one connected group."""
    import choix

    k = len(wins)
    met = games > 0
    if k < 2 or not _connected(met):
        return np.full(k, np.nan), np.full(k, np.nan)
    w = wins + prior_draws / 2 * met
    n = games + prior_draws * met
    theta = np.asarray(choix.ilsr_pairwise_dense(w, max_iter=10_000, tol=1e-12), dtype=float)
    theta -= theta.mean()
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    info = -n * p * (1 - p)
    np.fill_diagonal(info, 0)
    np.fill_diagonal(info, -info.sum(axis=1))
    cov = np.linalg.pinv(info)
    return theta, np.sqrt(np.clip(np.diag(cov), 0, None))


@dataclass(frozen=True)
class Standing:
    """One agent's line of a leaderboard."""

    place: int
    name: str
    spec: str
    games: int
    mu: float
    sigma: float
    ordinal: float
    elo: float | None
    elo_se: float | None
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    mean_score: float
    mean_score_low: float
    mean_score_high: float
    seat_games: tuple[int, ...]
    ms_per_move: float  # wall time of the agent per decision in this run (nan: not stored)


@dataclass
class Leaderboard:
    event: str
    env_id: str
    config: dict
    num_players: int
    games: int
    truncated: int
    standings: list[Standing]
    confidence: float = 0.95
    notes: list[str] = field(default_factory=list)

    @property
    def has_elo(self) -> bool:
        return self.num_players == 2


def leaderboard(
    plan: EventPlan, batch: GameBatch, seed: int, confidence: float = 0.95
) -> Leaderboard:
    """Ratings and per-agent statistics of an event from its games (in (table, game) order)."""
    ev = plan.event
    k, n = len(ev.agents), ev.num_players
    ranks = seat_ranks(batch.scores, batch.win_share, ev.rank_by)
    stream = derive_seed(seed, name_key(ev.name), _RATING_ORDER)
    order = np.random.default_rng(stream).permutation(len(ranks))
    mu, sigma = openskill_ratings(k, batch.agent_of_seat, ranks, order)
    notes = []
    elo = elo_se = [None] * k
    if n == 2:
        theta, se = bradley_terry(*pairwise_counts(k, batch.agent_of_seat, batch.win_share))
        if np.isnan(theta).any():
            notes.append("Elo not computed: the agents that met do not form one group")
        elo = (ELO_BASE + ELO_SCALE * theta).tolist()
        elo_se = (ELO_SCALE * se).tolist()
    rows = []
    for a, entry in enumerate(ev.agents):
        s = agent_stats(entry.name, entry.spec, batch, a, n, confidence)
        rows.append(
            dict(
                name=entry.name,
                spec=entry.spec,
                games=s.games,
                mu=float(mu[a]),
                sigma=float(sigma[a]),
                ordinal=float(mu[a] - 3 * sigma[a]),
                elo=elo[a],
                elo_se=elo_se[a],
                win_rate=s.win_rate,
                win_rate_low=s.win_rate_ci[0],
                win_rate_high=s.win_rate_ci[1],
                mean_score=s.mean_score,
                mean_score_low=s.mean_score_ci[0],
                mean_score_high=s.mean_score_ci[1],
                seat_games=s.seat_games,
                ms_per_move=s.ms_per_move,
            )
        )

    def key(r):
        primary = r["elo"] if n == 2 and r["elo"] is not None and not math.isnan(r["elo"]) else 0
        return (-primary, -r["ordinal"], r["name"])

    rows.sort(key=key)
    standings = [Standing(place=i + 1, **r) for i, r in enumerate(rows)]
    return Leaderboard(
        ev.name,
        ev.env,
        ev.config,
        n,
        int(len(batch.lengths)),
        int(batch.truncated.sum()),
        standings,
        confidence,
        notes,
    )
