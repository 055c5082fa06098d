"""Agents behind one interface, named by spec strings (`random`, `heuristic`, ...)."""

from card_envs.agents.base import Agent
from card_envs.agents.heuristic import ComputerAgent, HeuristicAgent
from card_envs.agents.llm import LLMAgent
from card_envs.agents.random_agent import RandomAgent
from card_envs.agents.registry import agent_kinds, make_agent
from card_envs.core.padding import Padding  # a user's network reads the padded layout

__all__ = [
    "Agent",
    "ComputerAgent",
    "HeuristicAgent",
    "LLMAgent",
    "Padding",
    "RandomAgent",
    "agent_kinds",
    "make_agent",
]
