"""Agents behind one interface, named by spec strings (`random`, `heuristic`, ...)."""

from agents.base import Agent
from agents.heuristic import ComputerAgent, HeuristicAgent
from agents.random_agent import RandomAgent
from agents.registry import agent_kinds, make_agent

__all__ = ["Agent", "ComputerAgent", "HeuristicAgent", "RandomAgent", "agent_kinds", "make_agent"]
