"""Super Zwierzaki (an Uno-like game of 539 animal cards with fourteen card functions, duels
and reaction rounds; a student project's deck list) as `super_zwierzaki_v0`.

The deck is data (`deck.json`, checked at import by `deck`); the rules as played are in
docs/rules/super_zwierzaki.md, the observation and actions in docs/envs/super_zwierzaki.md.
"""

from card_envs.games.super_zwierzaki.spec import SuperZwierzaki

__all__ = ["SuperZwierzaki"]
