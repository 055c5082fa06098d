"""Surfosaurus MAX (Ikhwan Kwon, Loosey Goosey Games 2023) as `surfosaurus_max_v0`."""

from card_envs.games.surfosaurus.spec import Showdown, Surfosaurus, showdown

__all__ = ["Showdown", "Surfosaurus", "showdown"]
