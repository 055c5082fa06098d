import os, sys, time, random
os.environ.setdefault("RAY_DEDUP_LOGS", "0")
import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.tune.registry import register_env
from training.rllib.env import TurnEnv
from training.rllib.modules import MaskedPPOModule, AgentModule

ENV = {"env_id": "no_thanks_v0", "num_players": 4}
runners = int(sys.argv[1]) if len(sys.argv) > 1 else 1
envs_per = int(sys.argv[2]) if len(sys.argv) > 2 else 8
iters = int(sys.argv[3]) if len(sys.argv) > 3 else 5
register_env("card_envs", lambda cfg: TurnEnv(cfg))

def mapping(agent_id, episode, **kw):
    seat = int(agent_id.split("_")[1])
    learner = hash(episode.id_) % 4
    return "main" if seat == learner else "heuristic"

ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
opp = {"env_id": "no_thanks_v0", "config": {"num_players": 4}, "spec": "heuristic"}
config = (
    PPOConfig()
    .environment("card_envs", env_config=ENV)
    .env_runners(num_env_runners=runners, num_envs_per_env_runner=envs_per)
    .multi_agent(policies={"main", "heuristic"}, policy_mapping_fn=mapping, policies_to_train=["main"])
    .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
        "main": RLModuleSpec(module_class=MaskedPPOModule, model_config=DefaultModelConfig(fcnet_hiddens=[128, 128])),
        "heuristic": RLModuleSpec(module_class=AgentModule, model_config=opp),
    }))
    .training(train_batch_size_per_learner=4000, minibatch_size=1000, num_epochs=4, lr=3e-4, gamma=1.0, entropy_coeff=0.01)
)
algo = config.build_algo()
t0 = time.time()
for i in range(iters):
    r = algo.train()
    er = r["env_runners"]
    ln = r.get("learners", {}).get("main", {})
    if i == 0: print(sorted(er.keys()))
    print(i, f"{time.time()-t0:.1f}s", "env steps", r.get("num_env_steps_sampled_lifetime"), "agent steps", er.get("num_agent_steps_sampled_lifetime"), "ret", er.get("module_episode_returns_mean"), "lifetime main", er.get("num_module_steps_sampled_lifetime"), flush=True)
ray.shutdown()
