"""Rummidrez (a Rummikub-like game with PokerDrez cards), to be served as `rummidrez_v0`.

So far: the exact table solver (`solver`), which decides whether cards split into valid
groups, finds one partition, and the largest part of a hand that can be laid.
"""

from card_envs.games.rummidrez.solver import (
    NEUTRAL,
    best_addition,
    card_name,
    is_valid_table,
    largest_valid_subset,
    table_partition,
    table_valid,
)

__all__ = [
    "NEUTRAL",
    "best_addition",
    "card_name",
    "is_valid_table",
    "largest_valid_subset",
    "table_partition",
    "table_valid",
]
