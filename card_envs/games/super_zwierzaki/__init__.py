"""Super Zwierzaki, an Uno-like game of animal cards with fourteen card functions, duels and
reaction rounds (rules: docs/rules/super_zwierzaki.md).

So far the deck (`deck`: 116 kinds, 539 cards, checked at import); the engine and the env
`super_zwierzaki_v0` follow.
"""
