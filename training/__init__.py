"""MaskablePPO baselines for the card_envs games: `python -m training.train --config ...`
(or `card-envs train --config ...`); see docs/training.md."""
