"""The standard benchmark: `card-envs bench SPEC` runs any agent through a fixed, versioned
protocol (`protocol`: its cells, panel, seeds and games) and writes its scorecard.

- `protocol`: bench-v1's cells, frozen (a change is the next version);
- `run`: `bench(spec)`: the cells' games through the tournament store and backends
  (resumable, every core or Ray), then the scorecard;
- `scorecard`: the numbers per cell and per game, as Markdown, JSON and a PNG;
- `command`: the `card-envs bench` command line and the reference page.

See docs/bench.md.
"""

from card_envs.bench.protocol import CELLS, VERSION, Cell
from card_envs.bench.run import BenchError, Settings, bench
from card_envs.bench.scorecard import CellResult, Scorecard

__all__ = [
    "CELLS",
    "VERSION",
    "BenchError",
    "Cell",
    "CellResult",
    "Scorecard",
    "Settings",
    "bench",
]
