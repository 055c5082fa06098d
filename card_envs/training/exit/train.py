"""An expert-iteration run (`training.exit.rounds`) as `card-envs train` runs PPO: the same
output files, with one training.csv row and one evaluation per round."""

from __future__ import annotations

import json
import time
from typing import Any

from card_envs.training.config import TrainConfig
from card_envs.training.curves import Curve
from card_envs.training.run import finish, results_head, start_model, start_run, training_env


def train_exit(
    config: TrainConfig, resume: bool = False, restart: bool = False, echo=print
) -> dict[str, Any]:
    """Expert iteration (training/exit/rounds.py) as `train` runs PPO: the same output files, with
    one training.csv row and one evaluation per round."""
    from stable_baselines3.common.logger import configure

    from card_envs.training.exit.rounds import (
        EXIT_EVAL_COLUMNS,
        fresh_state,
        load_start,
        run_rounds,
    )
    from card_envs.training.monitor import periodic_evaluation, resume_at
    from card_envs.training.opponents import OpponentPool
    from card_envs.training.video import require_moviepy

    require_moviepy(config)
    t_start = time.perf_counter()
    paths = start_run(config, resume, restart)
    venv = training_env(config, OpponentPool(config))  # the spaces of the MaskablePPO model
    model, state, imitation, elapsed = start_model(config, venv, paths, resume, echo)
    if resume:
        resume_at(paths, state["positions"])
        echo(f"resuming {config.name} after round {state['round']} ({state['minutes']:.1f} min)")
    else:
        state = fresh_state() | {"minutes": elapsed / 60}  # imitation counts towards the limit
        if config.exit.start is not None:
            echo(f"starting from the network {load_start(model, config)}")
    model.set_logger(configure(str(paths.tensorboard), ["tensorboard"]))

    def evaluate(round_no: int, positions: int, minutes: float) -> None:
        periodic_evaluation(
            config, model.policy, paths, EXIT_EVAL_COLUMNS, model.logger, echo,
            f"round {round_no}", timesteps=positions, minutes=round(minutes, 3), round=round_no,
        )  # fmt: skip

    if not resume:
        evaluate(0, 0, state["minutes"])  # the starting network: where the curve starts
        model.logger.dump(0)
    ex = config.exit
    echo(
        f"expert iteration {config.name}: {config.env} {config.config}, {ex.rounds} rounds of "
        f"{ex.positions:,} decisions searched by {ex.search}"
    )
    stopped = run_rounds(model, config, paths, state, evaluate, echo)
    model.save(paths.model)
    results = results_head(config, "exit") | {
        "rounds": state["round"],
        "timesteps": state["positions"],  # decisions searched (the PPO path: learner steps)
        "training_minutes": round(state["minutes"], 2),
        "stopped_by_time_limit": stopped,
        "imitation": imitation,
        "start": config.exit.start,
    }
    when = {"timesteps": state["positions"], "minutes": round(state["minutes"], 3),
            "round": state["round"]}  # fmt: skip
    results |= finish(config, paths, model.policy, when, EXIT_EVAL_COLUMNS, EXIT_CURVE, echo)
    results["command_minutes"] = round((time.perf_counter() - t_start) / 60, 2)
    paths.results.write_text(json.dumps(results, indent=2, default=float))
    venv.close()
    return results


EXIT_CURVE = Curve(
    x="round", scale=1, x_label="round", train="agreement",
    train_label="network's move = the search's", train_title="searched decisions, before the fit",
)  # fmt: skip
