"""Evaluation of agents: seat-balanced games between them, with confidence intervals,
reproducible whatever the number of workers.

The public entry: `evaluate(env_id, agents, games, seed)` for a line-up of agents in a
multi-agent env (an `Evaluation`: `AgentStats` per agent and a table of them), and
`evaluate_episodes` for one agent in a single-agent env. The modules, one job each:

- `lineup`: `evaluate`, its seat-balanced schedule cut into chunks, and its report;
- `episodes`: `evaluate_episodes`;
- `arena`: one chunk of games played in a batched env (`play_chunk`), and the seeds;
- `pool`: many chunks played in worker processes, the kernels compiled first (`warm_up`),
  and the progress bar;
- `stats`: the intervals (Wilson, Student's t) and each agent's statistics.

Tournaments (`card_envs.tournament`) make their own schedules and play them through `arena`
and `pool` as `evaluate` does.
"""

from card_envs.evaluation.episodes import EpisodeStats, evaluate_episodes
from card_envs.evaluation.lineup import Evaluation, evaluate
from card_envs.evaluation.stats import AgentStats

__all__ = ["AgentStats", "EpisodeStats", "Evaluation", "evaluate", "evaluate_episodes"]
