"""Benchmarks of card_envs (run `python -m benchmarks.throughput` from the repo root)."""
