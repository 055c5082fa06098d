"""Rummidrez (a Rummikub-like game with two packs of PokerDrez cards) as `rummidrez_v0`,
and its solo variant as `rummidrez_solo_v0`.

The exact table solver (`solver`, the kernels, and `groups`, their Python face) decides
whether cards split into valid groups, finds one partition, and the largest part of a hand
that can be laid.
"""

from card_envs.games.rummidrez.groups import (
    card_name,
    is_valid_table,
    largest_valid_subset,
    table_partition,
)
from card_envs.games.rummidrez.solver import NEUTRAL, best_addition, table_valid
from card_envs.games.rummidrez.spec import Rummidrez, RummidrezSolo

__all__ = [
    "NEUTRAL",
    "Rummidrez",
    "RummidrezSolo",
    "best_addition",
    "card_name",
    "is_valid_table",
    "largest_valid_subset",
    "table_partition",
    "table_valid",
]
