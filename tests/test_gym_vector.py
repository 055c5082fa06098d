"""`gymnasium.make_vec` reaches the batched engine: the native vector env of every learner
view, checked as a vector env (Gymnasium 1.2 has no vector checker): its spaces, its
declared autoreset behaviour, the same trajectories and infos as `vectorization_mode="sync"`
for the same seeds, illegal actions, and a CleanRL-shaped loop over it."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from card_envs.core.padding import Padding
from card_envs.games.rummidrez import engine as rummidrez_engine
from card_envs.registry import gym_id, make_game, multi_agent_env_ids
from card_envs.wrappers.gym_vector import LearnerVectorEnv, MixedVectorEnv, OneSeatVectorEnv

MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}
SETTINGS = {  # short games where a game's default runs long
    "super_zwierzaki_v0": {"max_turns": 200},
    "rummidrez_v0": {"max_turns": 8, "max_placements": 7},
    "double_or_nothing_v0": {"max_turns": 200},
}


def legal_choice(rng: np.random.Generator, info: dict, rows: int = 3) -> np.ndarray:
    """A random legal action per row, 0 where a row has no mask (its game just ended: the
    next step is its reset; when every row's did, Gymnasium's batched infos have no key)."""
    masks = info.get("action_mask", np.zeros((rows, 1), dtype=np.int8))
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


def same(a, b) -> bool:
    if isinstance(a, dict):
        return sorted(a) == sorted(b) and all(same(a[k], b[k]) for k in a)
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == object and a.ndim == 0:
        return b.dtype == object and a.item() == b.item()
    if a.dtype == object:
        return a.shape == b.shape and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a.dtype == b.dtype and np.array_equal(a, b)


def test_make_vec_gives_the_native_vector_env_and_sync_still_one_env_a_row():
    native = gymnasium.make_vec(gym_id("no_thanks_v0"), num_envs=5, num_players=4)
    assert isinstance(native, LearnerVectorEnv)
    assert native.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    game = make_game("no_thanks_v0", num_players=4)
    assert native.single_observation_space.shape == (game.obs_size,)
    assert native.observation_space.shape == (5, game.obs_size)
    assert native.single_action_space.n == game.num_actions
    assert native.action_space.nvec.tolist() == [game.num_actions] * 5
    obs, info = native.reset(seed=0)
    assert obs.shape == (5, game.obs_size) and obs in native.observation_space
    assert info["action_mask"].shape == (5, game.num_actions) and info["_action_mask"].all()
    sync = gymnasium.make_vec(gym_id("no_thanks_v0"), 5, vectorization_mode="sync")
    assert isinstance(sync, SyncVectorEnv)
    padded = gymnasium.make_vec(gym_id("no_thanks_v0"), 2, num_players=3, pad=True)
    assert padded.single_observation_space.shape == (Padding(make_game("no_thanks_v0")).size,)
    assert padded.reset(seed=1)[0].shape == padded.observation_space.shape


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_rows_play_as_the_sync_envs_do(env_id, mode):
    """Heuristic opponents, a fixed seat: the same observations, rewards, ends and infos
    (final observations and infos included) step after step, across many games."""
    kw = {"opponents": "heuristic", "seat": 1, **SETTINGS.get(env_id, {})}
    native = gymnasium.make_vec(gym_id(env_id), 3, autoreset_mode=mode, **kw)
    sync = gymnasium.make_vec(
        gym_id(env_id), 3, vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": MODES[mode]}, **kw,
    )  # fmt: skip
    a_obs, a_info = native.reset(seed=11)
    b_obs, b_info = sync.reset(seed=11)
    assert same(a_obs, b_obs) and same(a_info, b_info)
    rng = np.random.default_rng(0)
    ended = 0
    for t in range(300):
        actions = legal_choice(rng, a_info)
        a = native.step(actions)
        b = sync.step(actions)
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            assert same(x, y), f"step {t}, return value {k}: {x} != {y}"
        a_info = a[4]
        ended += int((a[2] | a[3]).sum())
    assert ended >= 2  # the games ended and the rows went on to new ones


def without_masks(env, info: dict) -> dict:
    """A native solo env's info less its `action_mask` (which the solo env's own infos do
    not have), after checking that key against each row's `action_masks()` of the sync env."""
    if "action_mask" not in info:
        return info
    live = info["_action_mask"]
    masks = np.array(env.call("action_masks"))
    assert np.array_equal(info["action_mask"][live] > 0, masks[live])
    return {k: v for k, v in info.items() if k not in ("action_mask", "_action_mask")}


def step_both(a_env, b_env, steps: int, seed: int, rows: int, prefer: int | None = None,
              extra_masks: bool = False) -> int:  # fmt: skip
    """Reset both with `seed` and step them with the same random legal actions (`prefer`,
    where legal, nine times in ten), checking every return value is the same (with
    `extra_masks`, `a_env`'s infos have `action_mask` besides); the number of games that
    ended."""
    a_obs, a_info = a_env.reset(seed=seed)
    b_obs, b_info = b_env.reset(seed=seed)
    mine = (lambda i: without_masks(b_env, i)) if extra_masks else (lambda i: i)
    assert same(a_obs, b_obs) and same(mine(a_info), b_info)
    rng = np.random.default_rng(0)
    ended = 0
    for t in range(steps):
        actions = legal_choice(rng, a_info, rows)
        if prefer is not None and "action_mask" in a_info:
            take = (a_info["action_mask"][:, prefer] > 0) & (rng.random(rows) < 0.9)
            actions = np.where(take, prefer, actions)
        a = a_env.step(actions)
        b = b_env.step(actions)
        for k, (x, y) in enumerate(zip(a[:4], b[:4], strict=True)):
            assert same(x, y), f"step {t}, return value {k}: {x} != {y}"
        assert same(mine(a[4]), b[4]), f"step {t}, infos: {a[4]} != {b[4]}"
        a_info = a[4]
        ended += int((a[2] | a[3]).sum())
    return ended


@pytest.mark.parametrize("mode", list(MODES))
def test_the_solo_games_rows_play_as_its_sync_envs_do(mode):
    """rummidrez_solo_v0 on the batched engine: its own env's infos (cards_drawn, opened;
    at the end score and hand_empty) and action_mask, the same as one env a row."""
    env_id = gym_id("rummidrez_solo_v0")
    native = gymnasium.make_vec(env_id, 3, autoreset_mode=mode, max_placements=7)
    assert isinstance(native, OneSeatVectorEnv)
    sync = gymnasium.make_vec(
        env_id,
        3,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": MODES[mode]},
        max_placements=7,
    )
    end_meld = rummidrez_engine.END_MELD  # ends a melding phase: the solo game moves on
    assert step_both(native, sync, 400, seed=5, rows=3, prefer=end_meld, extra_masks=True) >= 2
    with pytest.raises(ValueError, match="one seat: it takes no opponents"):
        gymnasium.make_vec(env_id, 2, opponents="random")


def test_the_run_env_has_no_batched_engine_and_gets_one_env_a_row():
    env = gymnasium.make_vec(gym_id("double_or_nothing_run_v0"), 2)
    assert isinstance(env, SyncVectorEnv)


def sliced(info: dict, rows: slice) -> dict:
    """A batched info's keys over `rows` only (keys no row there has left out)."""
    out = {}
    for key, value in info.items():
        if key.startswith("_"):
            continue
        mask = info[f"_{key}"][rows]
        if mask.any():
            out[key] = sliced(value, rows) if isinstance(value, dict) else value[rows]
            out[f"_{key}"] = mask
    return out


@pytest.mark.parametrize("mode", list(MODES))
def test_a_mix_is_its_padded_parts_side_by_side(mode):
    """Rows 0-2 play 3 players, rows 3-5 four, padded to one layout: each part's rows are
    what that config's own padded vector env gives, seeded where the mix's rows are (row
    i: seed + i), infos included."""
    kw = {"opponents": "heuristic", "seat": 1, "autoreset_mode": mode}
    mixed = gymnasium.make_vec(gym_id("no_thanks_v0"), 6, mix={"num_players": [3, 4]}, **kw)
    assert isinstance(mixed, MixedVectorEnv)
    assert mixed.single_observation_space.shape == (Padding(make_game("no_thanks_v0")).size,)
    parts = [LearnerVectorEnv("no_thanks_v0", 3, num_players=n, pad=True, **kw) for n in (3, 4)]
    halves = (slice(0, 3), slice(3, 6))
    m_obs, m_info = mixed.reset(seed=7)
    alone = [part.reset(seed=7 + 3 * k) for k, part in enumerate(parts)]
    rng = np.random.default_rng(0)
    ended = 0
    for t in range(200):
        for rows, (obs, info) in zip(halves, alone, strict=True):
            assert same(m_obs[rows], obs) and same(sliced(m_info, rows), info), t
        actions = legal_choice(rng, m_info, 6)
        m_obs, reward, term, trunc, m_info = mixed.step(actions)
        steps = [part.step(actions[rows]) for part, rows in zip(parts, halves, strict=True)]
        for rows, (_, r, te, tr, _) in zip(halves, steps, strict=True):
            assert same(reward[rows], r) and same(term[rows], te) and same(trunc[rows], tr)
        alone = [(obs, info) for obs, _, _, _, info in steps]
        ended += int((term | trunc).sum())
    assert ended >= 2
    assert m_obs in mixed.observation_space
    mixed.reset(seed=1)
    with pytest.raises(ValueError, match=r"illegal action 5 in row 4"):
        mixed.step(np.array([0, 0, 0, 0, 5, 0]))
    with pytest.raises(ValueError, match="must split evenly over the 2 settings"):
        gymnasium.make_vec(gym_id("no_thanks_v0"), 5, mix={"num_players": [3, 4]})


def test_next_step_returns_the_last_observation_then_the_new_game():
    env = gymnasium.make_vec(gym_id("no_thanks_v0"), 4, opponents="heuristic", num_players=3)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(1)
    while True:
        obs, rewards, terminated, truncated, info = env.step(legal_choice(rng, info, 4))
        done = terminated | truncated
        if done.any():
            break
    i = int(np.flatnonzero(done)[0])
    assert not info["_action_mask"][i] and info["_win"][i] and info["_score"][i]
    assert obs[i].tolist() != env.unwrapped._venv.observations[i].tolist()  # the last one
    new_game = env.unwrapped._venv.observations[i].copy()
    actions = legal_choice(rng, info, 4)
    actions[i] = 999  # ignored: the row's next step is its reset
    obs, rewards, terminated, truncated, info = env.step(actions)
    assert rewards[i] == 0 and not terminated[i] and not truncated[i]
    assert np.array_equal(obs[i], new_game) and info["_action_mask"][i]


def test_same_step_returns_the_new_game_and_the_last_observation_in_the_info():
    env = gymnasium.make_vec(
        gym_id("no_thanks_v0"), 4, opponents="heuristic", num_players=3, autoreset_mode="same_step"
    )
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(1)
    done = np.zeros(4, bool)
    while not done.any():
        obs, rewards, terminated, truncated, info = env.step(legal_choice(rng, info, 4))
        done = terminated | truncated
    i = int(np.flatnonzero(done)[0])
    assert info["_final_obs"][i] and info["final_obs"][i].shape == obs[i].shape
    assert info["final_info"]["_win"][i] and info["_action_mask"][i]
    assert np.array_equal(obs[i], env.unwrapped._venv.observations[i])  # the new game


def test_an_illegal_action_names_its_row_and_no_row_moves():
    env = gymnasium.make_vec(gym_id("surfosaurus_max_v0"), 3, opponents="heuristic")
    obs, info = env.reset(seed=0)
    states = env.unwrapped._venv.states.copy()
    actions = legal_choice(np.random.default_rng(0), info)
    illegal = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    actions[2] = illegal
    with pytest.raises(ValueError, match=f"illegal action {illegal} in row 2; legal there"):
        env.step(actions)
    assert np.array_equal(env.unwrapped._venv.states, states)
    with pytest.raises(ValueError, match="3 integers, one per row"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="autoreset_mode='sometimes' is not one of"):
        gymnasium.make_vec(gym_id("no_thanks_v0"), 2, autoreset_mode="sometimes")


@pytest.mark.slow
def test_a_cleanrl_shaped_loop_trains_over_it():
    """The loop CleanRL's ppo.py runs, with the masks from the info and NEXT_STEP's reset
    step left out of the update (its action was never taken)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    envs = gymnasium.make_vec(gym_id("no_thanks_v0"), 16, opponents="random", num_players=3)
    n_obs, n_act = envs.single_observation_space.shape[0], envs.single_action_space.n
    net = torch.nn.Sequential(
        torch.nn.Linear(n_obs, 64), torch.nn.Tanh(), torch.nn.Linear(64, n_act)
    )
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    obs, info = envs.reset(seed=0)
    starting = np.zeros(16, bool)  # rows whose next step is NEXT_STEP's reset
    wins = []
    for _ in range(4):
        logps, rewards, valid, dones = [], [], [], []
        for _ in range(64):
            masks = info.get("action_mask", np.ones((16, n_act), dtype=np.int8))
            mask = torch.tensor(masks, dtype=torch.bool) | torch.tensor(starting)[:, None]
            logits = net(torch.tensor(obs)).masked_fill(~mask, -1e9)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            obs, reward, terminated, truncated, info = envs.step(action.numpy())
            logps.append(dist.log_prob(action))
            rewards.append(torch.tensor(reward, dtype=torch.float32))
            valid.append(torch.tensor(~starting))
            done = terminated | truncated
            dones.append(torch.tensor(done, dtype=torch.float32))
            if done.any():
                wins += info["win"][done].tolist()
            starting = done
        returns, later = [], torch.zeros(16)
        for reward, done in zip(reversed(rewards), reversed(dones), strict=True):
            later = reward + later * (1 - done)  # an episode's return stops at its end
            returns.append(later)
        returns = torch.stack(returns[::-1])
        weight = torch.stack(valid).float()
        loss = -(torch.stack(logps) * returns * weight).sum() / weight.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert len(wins) > 20 and set(np.unique(wins)) <= {0.0, 0.5, 1 / 3, 1.0}
