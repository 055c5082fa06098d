"""Helpers for any game's AEC env in the tests (no tests here)."""

from __future__ import annotations


def last_rewards(env) -> dict:
    """Each agent's reward as `last()` reports it at the end (dead steps included)."""
    out = {}
    for agent in env.agent_iter():
        _, reward, term, _, _ = env.last()
        assert term
        out[agent] = reward
        env.step(None)
    return out
