"""No Thanks! (Thorsten Gimmler, Amigo 2004) as `no_thanks_v0`."""

from card_envs.games.no_thanks.spec import NoThanks, score

__all__ = ["NoThanks", "score"]
