"""MaskablePPO baselines for the card_envs games: `python -m card_envs.training.train --config ...`
(or `card-envs train --config ...`); see docs/training.md."""
