"""Headless self-play tournaments: a field of agents per game, seat-balanced tables, every
finished game in SQLite (resumable), OpenSkill and Bradley-Terry/Elo ratings, leaderboards
as tables, CSV and PNG, game records as JSONL, local processes or Ray.

`card-envs tournament --config configs/tournaments/main.yaml`; see docs/tournaments.md.
"""

from card_envs.tournament.config import (
    TournamentConfig,
    TournamentConfigError,
    load_config,
    parse_config,
)
from card_envs.tournament.records import check_replay, moves_text, read_jsonl, replay, write_jsonl
from card_envs.tournament.report import format_table, write_csv, write_plot
from card_envs.tournament.runner import TournamentResult, run_tournament
from card_envs.tournament.store import Store, StoreError, TournamentMismatch

__all__ = [
    "Store",
    "StoreError",
    "TournamentConfig",
    "TournamentConfigError",
    "TournamentMismatch",
    "TournamentResult",
    "check_replay",
    "format_table",
    "load_config",
    "moves_text",
    "parse_config",
    "read_jsonl",
    "replay",
    "run_tournament",
    "write_csv",
    "write_jsonl",
    "write_plot",
]
