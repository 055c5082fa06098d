"""Double or Nothing (a 2024 game-jam climbing game) as `double_or_nothing_v0`."""

from card_envs.games.double_or_nothing.spec import (
    DoubleOrNothing,
    computer_move,
    play_for_range,
    stronger,
)

__all__ = ["DoubleOrNothing", "computer_move", "play_for_range", "stronger"]
