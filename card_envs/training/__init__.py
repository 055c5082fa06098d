"""Training for the card_envs games: `card-envs train --config ...` (or `python -m
card_envs.training.train --config ...`); one folder per way of training (ppo, selfplay,
exit, rllib) over the shared run machinery; see docs/training.md."""
