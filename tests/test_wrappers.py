"""Single-agent views: Gymnasium env and SB3 VecEnv with opponents inside."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import card_envs
from card_envs.agents import Agent, make_agent
from card_envs.core.batched import BLOCK_ROWS
from card_envs.core.threads import usable_cores
from card_envs.registry import batched_env_ids, make_game
from card_envs.wrappers import MixedVecEnv, SingleAgentEnv, SingleAgentVecEnv


def last_legal(masks):
    """The highest legal action (No Thanks: pass while tokens last, so turns go round)."""
    return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)


class LastLegal(Agent):
    def act_batch(self, observations, masks):
        return last_legal(masks)


def test_gym_env_passes_gymnasium_checker():
    check_env(SingleAgentEnv("no_thanks_v0", opponents="heuristic", seed=0), skip_render_check=True)


def test_gym_env_rotates_the_learner_seat():
    env = SingleAgentEnv("no_thanks_v0", opponents="random", seed=3, num_players=4)
    seats = []
    for _ in range(8):
        _, info = env.reset()
        seats.append(info["seat"])
        done = False
        while not done:
            a = int(np.flatnonzero(env.action_masks())[0])
            _, _, term, trunc, _ = env.step(a)
            done = term or trunc
    assert seats == [0, 1, 2, 3, 0, 1, 2, 3]


def _aec_replay(seed, seat, num_players):
    """The same game through the AEC env, every seat playing its highest legal action."""
    env = card_envs.make("no_thanks_v0", num_players=num_players)
    env.reset(seed=seed)
    learner = f"player_{seat}"
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            if agent == learner:
                result = (env._cumulative_rewards[agent], info["score"])
            env.step(None)
            continue
        env.step(int(last_legal(obs["action_mask"][None])[0]))
    return result


@pytest.mark.parametrize("seat", [0, 2])
def test_vec_env_matches_aec_replay(seat):
    num_players, n = 3, 4
    venv = SingleAgentVecEnv(
        "no_thanks_v0", n, opponents=LastLegal(), seat=seat, seed=100, num_players=num_players
    )
    venv.reset()
    returns = np.zeros(n)
    results = {}
    while len(results) < n:
        _, rew, dones, infos = venv.step(last_legal(venv.action_masks()))
        returns += rew
        for i in np.flatnonzero(dones):
            if i not in results:
                results[i] = (returns[i], infos[i]["score"], infos[i])
    for i, (ret, score, info) in results.items():
        assert (ret, score) == pytest.approx(_aec_replay(100 + i, seat, num_players))
        assert info["seat"] == seat and info["episode"]["r"] == pytest.approx(ret)
        assert info["terminal_observation"].shape == venv.observation_space.shape


def test_vec_env_asks_opponents_in_batches_and_checks_their_number():
    class Recorder(LastLegal):
        sizes: list = []

        def act_batch(self, observations, masks):
            self.sizes.append(len(observations))
            return super().act_batch(observations, masks)

    rec = Recorder()
    venv = SingleAgentVecEnv("no_thanks_v0", 32, opponents=[rec, "random"], seed=0)
    venv.reset()
    for _ in range(30):
        venv.step(np.argmax(venv.action_masks(), axis=1))
    assert max(rec.sizes) > 1
    with pytest.raises(ValueError, match="needs 2 opponents"):
        SingleAgentVecEnv("no_thanks_v0", 2, opponents=["random"] * 3)
    with pytest.raises(ValueError, match="seat=5"):
        SingleAgentVecEnv("no_thanks_v0", 2, seat=5)


def test_maskable_ppo_trains_and_predicts_legal_actions():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    venv = SingleAgentVecEnv("no_thanks_v0", 16, opponents="heuristic", seed=1)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=256, n_epochs=1, seed=0)
    model.learn(1024)
    obs = venv.reset()
    for _ in range(50):
        masks = get_action_masks(venv)
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(16), actions].all()
        obs, _, _, _ = venv.step(actions)


def test_heuristic_opponents_get_the_env_config():
    venv = SingleAgentVecEnv("no_thanks_v0", 2, opponents="heuristic", num_players=6, seed=0)
    assert venv.observation_space.shape == (36 + 33 * 6,)
    assert make_agent("heuristic", "no_thanks_v0", num_players=6) is not None


class Counting(LastLegal):
    def __init__(self):
        self.asked = 0

    def act_batch(self, observations, masks):
        self.asked += len(observations)
        return super().act_batch(observations, masks)


def test_pool_opponents_follow_weights_and_are_drawn_per_game():
    from card_envs.wrappers import LearnerSeats

    pool = [Counting(), Counting(), Counting()]
    venv = card_envs.make_vec("no_thanks_v0", 8, seed=4, num_players=4)
    driver = LearnerSeats(venv, pool, seat="rotate", pool_weights=[1, 1, 0], seed=0)
    driver.reset()
    seen = [set() for _ in range(8)]
    for _ in range(600):
        before = driver._who.copy()
        _, term, trunc, _ = driver.step(last_legal(venv.action_masks))
        ended = term | trunc
        # an instance keeps its opponents for the whole game; new ones come with a new game
        assert (driver._who[~ended] == before[~ended]).all()
        for i in range(8):
            seen[i].update(driver._who[i].tolist())
    assert pool[0].asked > 0 and pool[1].asked > 0 and pool[2].asked == 0
    assert all(s == {0, 1} for s in seen)
    with pytest.raises(ValueError, match="pool weights"):
        driver.set_pool(pool, [0, 0, 0])


def test_the_learner_action_space_pickles_as_a_plain_discrete():
    """Saved SB3 models pickle the action space: it must not drag the live env along."""
    import cloudpickle
    import gymnasium

    venv = SingleAgentVecEnv("no_thanks_v0", 4, seed=0)
    blob = cloudpickle.dumps(venv.action_space)
    assert len(blob) < 500
    space = cloudpickle.loads(blob)
    assert type(space) is gymnasium.spaces.Discrete and space == gymnasium.spaces.Discrete(2)


@pytest.mark.parametrize("env_id", ["no_thanks_v0", "double_or_nothing_v0"])
def test_reset_with_a_seed_replays_the_games_of_random_opponents(env_id):
    """reset(seed=s) restarts the opponents' own random streams too (and the seats): the same
    learner actions then meet the same opponent moves."""

    def play(env, seed):
        obs, info = env.reset(seed=seed)
        trace = [obs.copy()]
        for _ in range(60):
            action = int(np.flatnonzero(env.action_masks())[0])
            obs, reward, term, trunc, info = env.step(action)
            trace.append(obs.copy())
            if term or trunc:
                trace.append(env.reset()[0].copy())
        return trace

    env = SingleAgentEnv(env_id, opponents="random", seat="rotate", seed=1)
    first = play(env, 5)
    play(env, 9)  # move every random stream on
    again = play(env, 5)
    assert len(first) == len(again)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("env_id", batched_env_ids())
def test_the_learner_view_plays_the_same_games_on_more_threads(env_id):
    """A mix of two test configs (MixedVecEnv of SingleAgentVecEnvs) with heuristic
    opponents, a history of 4 and padded observations, two blocks of rows each: the envs on
    every usable core's thread give, step by step, what they give on one."""

    def rollout(threads: int) -> list[np.ndarray]:
        game = make_game(env_id)
        opponents = "random" if game.num_players == 1 else "heuristic"
        venv = MixedVecEnv([
            SingleAgentVecEnv(env_id, BLOCK_ROWS + 6, opponents=opponents, seed=4 + k, pad=True,
                              num_threads=threads, **{**config, "history": 4})
            for k, config in enumerate(type(game).test_configs[:2])
        ])  # fmt: skip
        out = [venv.reset()]
        rng = np.random.default_rng(0)
        for _ in range(60):
            masks = venv.action_masks()
            obs, rewards, dones, infos = venv.step(np.argmax(rng.random(masks.shape) * masks, 1))
            ends = [infos[i]["terminal_observation"] for i in np.flatnonzero(dones)]
            out += [obs, rewards, dones, *ends]
        return out

    one, many = rollout(1), rollout(usable_cores())
    assert len(one) == len(many)
    for a, b in zip(one, many, strict=True):
        np.testing.assert_array_equal(a, b)
