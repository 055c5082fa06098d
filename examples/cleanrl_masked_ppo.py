"""Masked PPO in one file, in the style of CleanRL's `ppo.py`, over a card_envs Gymnasium
vector env: `gymnasium.make_vec("card_envs/no_thanks_v0-single", num_envs=N, ...)`, the
learner in one seat (rotating) and the heuristic in the others, every row stepped by one
engine call. The env's `action_masks()` gives each row's legal actions; the policy sets the
logits of the others to -1e8, when it acts and again in the update (the masks are stored
in the rollout buffer), so an illegal action is never sampled and never trained on.

    python examples/cleanrl_masked_ppo.py --stop-when-beaten --out runs/cleanrl

Every `--eval-every` learner steps the network, playing its masked argmax, meets the
heuristic in the project's own harness (`card_envs.evaluation.evaluate`: seat-balanced
games, the same deals every time) and the win rate is printed with its 95% interval and
the wall time; `--stop-when-beaten` stops once the interval's low end clears the fair
share 1/N. `--out DIR` writes `DIR/agent.pt` (the network) and `DIR/log.json` (the
arguments, every update's losses and every evaluation). The saved network plays in every
harness through the `act` function below:

    ME=py-policy:examples/cleanrl_masked_ppo.py:act:weights=runs/cleanrl/agent.pt
    card-envs evaluate no_thanks_v0 --agents $ME,heuristic,heuristic,heuristic --games 800

See docs/cleanrl.md.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import time
from functools import cache
from pathlib import Path

import gymnasium
import numpy as np
import torch
from torch import nn

import card_envs  # noqa: F401  (registers the card_envs/... Gymnasium ids)
from card_envs.agents import Agent as HarnessAgent
from card_envs.evaluation import evaluate


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env-id", default="no_thanks_v0")
    p.add_argument("--num-players", type=int, default=4)
    p.add_argument("--env-config", nargs="*", default=[], metavar="KEY=VALUE",
                   help="other game options, as card-envs evaluate's --env-config")  # fmt: skip
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--total-timesteps", type=int, default=10_000_000, help="learner steps")
    p.add_argument("--time-limit-minutes", type=float, default=60.0, help="evaluations included")
    p.add_argument("--num-envs", type=int, default=128)
    p.add_argument("--num-steps", type=int, default=64, help="steps per row per rollout")
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--gamma", type=float, default=1.0)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--eval-every", type=int, default=250_000, help="learner steps")
    p.add_argument("--eval-games", type=int, default=800)
    p.add_argument("--stop-when-beaten", action="store_true")
    p.add_argument("--out", type=Path, help="folder for agent.pt and log.json")
    args = p.parse_args(argv)
    args.config = {"num_players": args.num_players}
    for item in args.env_config:
        key, value = item.split("=", 1)
        try:
            args.config[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            args.config[key] = value  # a plain word
    return args


def layer(i: int, o: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    """Separate actor and critic MLPs over the observation scaled into [0, 1]."""

    def __init__(self, high: np.ndarray, num_actions: int, hidden: int = 128) -> None:
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(1.0 / np.maximum(high, 1.0)).float())
        n = len(high)
        self.critic = nn.Sequential(layer(n, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                    layer(hidden, 1, 1.0))  # fmt: skip
        self.actor = nn.Sequential(layer(n, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                   layer(hidden, num_actions, 0.01))  # fmt: skip

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x * self.scale).squeeze(-1)

    def masked_logits(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The actor's logits with every illegal action at -1e8: probability 0 after the
        softmax, and no gradient reaches them."""
        return torch.where(mask, self.actor(x * self.scale), torch.tensor(-1e8))

    def get_action_and_value(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """A sampled action (or the given one), its log-prob, the entropy and the value."""
        dist = torch.distributions.Categorical(logits=self.masked_logits(x, mask))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.get_value(x)


class Greedy(HarnessAgent):
    """The network as a harness agent: the argmax of its masked logits."""

    name = spec = "cleanrl"

    def __init__(self, net: Agent) -> None:
        self.net = net

    @torch.no_grad()
    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        logits = self.net.masked_logits(torch.from_numpy(observations), torch.from_numpy(masks > 0))
        return logits.argmax(dim=1).numpy()


def save(net: Agent, path: Path, hidden: int) -> None:
    torch.save({"hidden": hidden, "state_dict": net.state_dict()}, path)


@cache
def load(weights: str) -> Greedy:
    saved = torch.load(weights)
    state = saved["state_dict"]
    high = 1.0 / state["scale"].numpy()
    net = Agent(high, state["actor.4.bias"].shape[0], saved["hidden"])
    net.load_state_dict(state)
    return Greedy(net.eval())


def act(observations: np.ndarray, masks: np.ndarray, weights: str = "agent.pt") -> np.ndarray:
    """A `py-policy:` batch policy: the saved network's masked argmax."""
    torch.set_num_threads(1)
    return load(str(weights)).act_batch(observations, masks)


def against_heuristic(net: Agent, args: argparse.Namespace) -> dict:
    """Greedy play in one seat and the heuristic in the others, seat-balanced, on the same
    deals every time (the evaluation seed), in this process."""
    field = [Greedy(copy.deepcopy(net).eval())] + ["heuristic"] * (args.num_players - 1)
    ev = evaluate(args.env_id, field, games=args.eval_games, seed=10_000 + args.seed, workers=1,
                  progress=False, **args.config)  # fmt: skip
    s = ev[0]
    return {"games": s.games, "win_rate": s.win_rate, "ci_low": s.win_rate_ci[0],
            "ci_high": s.win_rate_ci[1], "fair_share": 1 / args.num_players}  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    envs = gymnasium.make_vec(
        f"card_envs/{args.env_id}-single", num_envs=args.num_envs, opponents="heuristic",
        seat="rotate", seed=args.seed, autoreset_mode="same_step", **args.config,
    )  # fmt: skip
    high = envs.single_observation_space.high
    num_actions = envs.single_action_space.n
    agent = Agent(high, num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros((*shape, len(high)))
    masks = torch.zeros((*shape, num_actions), dtype=torch.bool)
    actions = torch.zeros(shape, dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(4))
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches

    log: dict = {"args": {k: str(v) for k, v in vars(args).items()}, "updates": [], "evals": []}
    start = time.perf_counter()
    global_step, next_eval, eval_s, beaten = 0, args.eval_every, 0.0, False
    next_obs = torch.from_numpy(envs.reset(seed=args.seed)[0])
    next_mask = torch.from_numpy(envs.action_masks())
    next_done = torch.zeros(args.num_envs)
    while global_step < args.total_timesteps and not beaten:
        if time.perf_counter() - start > 60 * args.time_limit_minutes:
            break
        for step in range(args.num_steps):  # the rollout
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value
            o, r, term, trunc, _ = envs.step(action.numpy())  # same_step: o starts new games
            rewards[step] = torch.from_numpy(r).float()
            next_obs, next_mask = torch.from_numpy(o), torch.from_numpy(envs.action_masks())
            next_done = torch.from_numpy(term | trunc).float()

        with torch.no_grad():  # GAE
            next_value = agent.get_value(next_obs)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                nonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                following = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * nonterminal - values[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                advantages[t] = last
            returns = advantages + values

        b_obs, b_masks = obs.reshape(batch_size, -1), masks.reshape(batch_size, -1)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_adv, b_returns = advantages.reshape(-1), returns.reshape(-1)
        for _ in range(args.update_epochs):  # the clipped PPO update over minibatches
            for mb in torch.randperm(batch_size).split(minibatch_size):
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb]
                )
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                clipped = torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(-adv * ratio, -adv * clipped).mean()
                v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        losses = {"pg_loss": pg_loss, "v_loss": v_loss, "entropy": entropy.mean()}
        log["updates"].append({"step": global_step, **{k: v.item() for k, v in losses.items()}})

        if global_step >= next_eval or global_step >= args.total_timesteps:
            next_eval += args.eval_every
            t = time.perf_counter()
            row = {"step": global_step, **against_heuristic(agent, args)}
            eval_s += time.perf_counter() - t
            row["minutes"] = (time.perf_counter() - start) / 60  # evaluations included
            row["steps_per_s"] = global_step / (60 * row["minutes"] - eval_s)  # training only
            log["evals"].append(row)
            beaten = args.stop_when_beaten and row["ci_low"] > row["fair_share"]
            print(f"{global_step:>10,} steps {row['minutes']:6.2f} min  vs heuristic: "
                  f"{row['win_rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}] "
                  f"(fair share {row['fair_share']:.3f}){'  beaten' if beaten else ''}",
                  flush=True)  # fmt: skip
    envs.close()
    log["steps"] = global_step
    log["steps_per_s"] = global_step / (time.perf_counter() - start - eval_s)  # training only
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        save(agent, args.out / "agent.pt", args.hidden)
        (args.out / "log.json").write_text(json.dumps(log, indent=1))
    return log


if __name__ == "__main__":
    main()
