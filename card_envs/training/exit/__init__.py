"""Expert iteration: `training.exit.rounds` (the loop), `training.exit.train` (the run)."""
