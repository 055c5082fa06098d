"""Training with Ray RLlib (PPO on the new API stack): the multi-agent env, the RLModules
(a masked PPO module for the learner, the project's scripted agents as modules) and the
training loop behind `card-envs train --backend rllib`. Needs the `rllib` extra."""
