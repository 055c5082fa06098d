"""The one-seat MaskablePPO baseline (sb3-contrib): `training.ppo.train`."""
