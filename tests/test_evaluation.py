"""card_envs.evaluation: seat balance, intervals, determinism across workers."""

import math
import os
import statistics

import numpy as np
import pytest

import card_envs
from card_envs import evaluation
from card_envs.agents import Agent, RandomAgent
from card_envs.evaluation import (
    Chunk,
    derive_seed,
    evaluate,
    show_progress,
    t_interval,
    warm_up,
    wilson_interval,
)

Z95 = 1.959963984540054  # standard normal 97.5% quantile
T975 = {1: 12.706204736, 9: 2.262157163, 29: 2.045229642, 99: 1.984216952}  # t tables


def wilson_reference(successes: float, n: int, z: float = Z95):
    """Wilson's score interval written out term by term."""
    p = successes / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    spread = (z / (1 + z**2 / n)) * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return centre - spread, centre + spread


def t_reference(values):
    n = len(values)
    mean = sum(values) / n
    sd = statistics.stdev(values)
    half = T975[n - 1] * sd / math.sqrt(n)
    return mean, (mean - half, mean + half)


@pytest.mark.parametrize("successes,n", [(0, 10), (3, 10), (10, 10), (57, 100), (1.5, 4)])
def test_wilson_interval_matches_the_formula(successes, n):
    low, high = wilson_interval(successes / n, n)
    ref = wilson_reference(successes, n)
    assert low == pytest.approx(max(0.0, ref[0]), abs=1e-12)
    assert high == pytest.approx(min(1.0, ref[1]), abs=1e-12)
    assert 0 <= low <= successes / n <= high <= 1


def test_wilson_textbook_values():
    # 81 of 263: Newcombe (1998), Table I, method 3 (Wilson score, no continuity correction)
    low, high = wilson_interval(81 / 263, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    assert wilson_interval(0, 10)[0] == 0 and wilson_interval(0, 10)[1] > 0.2


@pytest.mark.parametrize("n", [2, 10, 30, 100])
def test_t_interval_matches_the_formula(n):
    values = np.random.default_rng(n).normal(3, 2, n).tolist()
    mean, (low, high) = t_interval(values)
    ref_mean, (ref_low, ref_high) = t_reference(values)
    assert mean == pytest.approx(ref_mean, abs=1e-12)
    assert low == pytest.approx(ref_low, rel=1e-8) and high == pytest.approx(ref_high, rel=1e-8)
    assert all(math.isnan(x) for x in t_interval([1.0])[1])


def test_fractional_win_shares_keep_the_wilson_interval_conservative():
    # ties: shares of 1/2 and 1/3 have a smaller variance than 0/1 outcomes of the same mean
    shares = np.array([1, 0, 0.5, 1 / 3, 0, 1, 0.5, 0, 0, 1 / 3] * 20)
    p, n = shares.mean(), len(shares)
    low, high = wilson_interval(p, n)
    t_half = (t_interval(shares)[1][1] - t_interval(shares)[1][0]) / 2
    assert (high - low) / 2 >= t_half
    assert shares.var(ddof=0) <= p * (1 - p)


def test_evaluation_reports_plain_reference_statistics_per_agent():
    agents = ["heuristic", "random", "random"]
    ev = evaluate("no_thanks_v0", agents, games=30, seed=4, workers=1, progress=False)
    res = ev.results
    for a, stats in enumerate(ev):
        wins, rewards, scores = [], [], []
        for g in range(len(res.lengths)):  # plain loops over games and seats
            for s in range(3):
                if res.agent_of_seat[g, s] == a:
                    wins.append(float(res.win_share[g, s]))
                    rewards.append(float(res.rewards[g, s]))
                    scores.append(float(res.scores[g, s]))
        assert stats.games == len(wins) == 30
        assert stats.name == agents[a] and stats.spec == agents[a]
        assert stats.win_rate == pytest.approx(sum(wins) / 30)
        ref = wilson_reference(sum(wins), 30)
        assert stats.win_rate_ci[0] == pytest.approx(max(0, ref[0]), abs=1e-12)
        assert stats.win_rate_ci[1] == pytest.approx(min(1, ref[1]), abs=1e-12)
        mean, ci = t_reference(rewards)
        assert stats.mean_reward == pytest.approx(mean)
        assert stats.mean_reward_ci == pytest.approx(ci)
        mean, ci = t_reference(scores)
        assert stats.mean_score == pytest.approx(mean)
        assert stats.mean_score_ci == pytest.approx(ci)
    np.testing.assert_allclose(res.win_share.sum(axis=1), 1)
    assert ev[0].win_rate > 0.7  # the heuristic beats random play
    assert "heuristic" in ev.table()


@pytest.mark.parametrize("env_id,n", [("no_thanks_v0", 4), ("surfosaurus_max_v0", 3)])
def test_every_agent_sits_in_every_seat_equally_often(env_id, n):
    agents = ["heuristic"] + ["random"] * (n - 1)
    with pytest.warns(UserWarning, match=f"playing {4 * n} games instead of {4 * n - 1}"):
        ev = evaluate(
            env_id, agents, games=4 * n - 1, seed=1, workers=1, progress=False, chunk_games=5
        )
    assert ev.games == 4 * n and ev.games_requested == 4 * n - 1
    for a in range(n):
        seats = np.nonzero(ev.results.agent_of_seat == a)[1]
        assert np.bincount(seats, minlength=n).tolist() == [4] * n
        assert ev[a].seat_games == (4,) * n
    # each row is a permutation of the agents: one seat each per game
    assert (np.sort(ev.results.agent_of_seat, axis=1) == np.arange(n)).all()


def test_same_seed_same_numbers_whatever_the_number_of_workers():
    kwargs = dict(games=600, seed=7, progress=False, chunk_games=64)
    agents = ["heuristic", "random", "random"]
    one = evaluate("no_thanks_v0", agents, workers=1, **kwargs)
    two = evaluate("no_thanks_v0", agents, workers=2, **kwargs)
    for name in ("agent_of_seat", "rewards", "scores", "win_share", "lengths", "seeds"):
        np.testing.assert_array_equal(getattr(one.results, name), getattr(two.results, name))
    np.testing.assert_array_equal(one.results.moves, two.results.moves)
    timeless = [{**s.as_dict(), "ms_per_move": None} for s in one]  # wall-clock time differs
    assert timeless == [{**s.as_dict(), "ms_per_move": None} for s in two]
    other = evaluate("no_thanks_v0", agents, workers=1, **{**kwargs, "seed": 8})
    assert not np.array_equal(one.results.scores, other.results.scores)


def test_warm_up_seats_every_agent_of_every_distinct_field_once(monkeypatch):
    # workers must find every kernel compiled: the parent plays, per distinct game, config
    # and field, games of its first chunk until every agent of the field has sat
    played = []
    monkeypatch.setattr(evaluation, "play_chunk", played.append)
    seats = np.array([[0, 1], [1, 0], [0, 2], [2, 0], [3, 4], [4, 3]])

    def chunk(env_id, config, field, rows, seed):
        return Chunk(env_id, config, field, rows, seed, tuple(range(len(field))))

    five = ("heuristic", "random", "random", "heuristic", "random")
    chunks = [
        chunk("no_thanks_v0", {}, five, seats, 1),
        chunk("no_thanks_v0", {}, five, seats[::-1], 2),  # same field: warmed already
        chunk("no_thanks_v0", {"num_players": 2}, five, seats[2:], 3),  # another config
        chunk("no_thanks_v0", {}, ("random", "random"), seats[:2, :] % 2, 4),  # another field
    ]
    warm_up(chunks)
    assert [c.seed for c in played] == [1, 3, 4]
    for warm, source in zip(played, (chunks[0], chunks[2], chunks[3]), strict=True):
        used = set(np.unique(source.agent_of_seat).tolist())
        assert set(np.unique(warm.agent_of_seat).tolist()) == used
        assert len(warm.agent_of_seat) < len(source.agent_of_seat)
        assert not warm.record
    np.testing.assert_array_equal(played[0].agent_of_seat, seats[[0, 2, 4]])


def test_parallel_warm_up_compiles_each_kernel_group_in_one_process_then_here(
    monkeypatch, tmp_path
):
    # with workers, the kernel groups (dearest first) are played by forked processes, each
    # group in one process, with torch held to one thread there (torch's OpenMP team does not
    # survive a fork: a PPO agent in a forked child otherwise hangs); then all again here
    torch = pytest.importorskip("torch")
    log = tmp_path / "played.txt"

    def play(chunk):
        with log.open("a") as f:
            f.write(f"{os.getpid()} {chunk.env_id} {torch.get_num_threads()}\n")

    monkeypatch.setattr(evaluation, "play_chunk", play)
    torch.set_num_threads(2)
    seats = np.array([[0, 1], [1, 0]])
    two = ("random", "random")
    chunks = [
        Chunk("double_or_nothing_v0", {}, two, seats, 1, (0, 1)),
        Chunk("no_thanks_v0", {"num_players": 2}, two, seats, 2, (0, 1)),
        Chunk("double_or_nothing_v0", {"stage": 2}, two, seats, 3, (0, 1)),
        Chunk("rummidrez_v0", {}, two, seats, 4, (0, 1)),
    ]
    warm_up(chunks, workers=2)
    rows = [line.split() for line in log.read_text().splitlines()]
    here = [env for pid, env, _ in rows if int(pid) == os.getpid()]
    assert here == [c.env_id for c in chunks]  # each distinct field once, in order
    forked = [(int(pid), env, int(threads)) for pid, env, threads in rows[:4]]
    assert all(pid != os.getpid() and threads == 1 for pid, _, threads in forked)
    assert sorted(env for _, env, _ in forked) == sorted(here)
    pid_of = {}
    for pid, env, _ in forked:
        assert pid_of.setdefault(env, pid) == pid  # a group stays in one process
    assert torch.get_num_threads() == 2  # the parent is left as it was
    groups = evaluation._kernel_groups(chunks)  # the dearest to compile first
    assert [[c.seed for c in g] for g in groups] == [[4], [2], [1, 3]]


def test_agent_objects_are_copied_into_each_chunk():
    kwargs = dict(games=40, seed=3, progress=False, chunk_games=20)
    field = [RandomAgent(1), RandomAgent(2)]
    one = evaluate("double_or_nothing_v0", field, workers=1, **kwargs)
    two = evaluate("double_or_nothing_v0", field, workers=2, **kwargs)
    np.testing.assert_array_equal(one.results.scores, two.results.scores)
    # the objects given are left as they were: a third run gives the same games again
    again = evaluate("double_or_nothing_v0", field, workers=1, **kwargs)
    np.testing.assert_array_equal(one.results.scores, again.results.scores)


def test_games_are_dealt_as_the_aec_env_deals_them():
    ev = evaluate(
        "surfosaurus_max_v0",
        ["heuristic", "random"],
        games=6,
        seed=2,
        workers=1,
        progress=False,
        record=True,
    )
    res = ev.results
    assert res.seeds[0] == derive_seed(2, 0) and np.all(np.diff(res.seeds) == 1)
    for g in range(6):  # replay each game's actions in an AEC env reset with its seed
        env = card_envs.make("surfosaurus_max_v0", **ev.config)
        env.reset(seed=int(res.seeds[g]))
        for action in res.actions[g]:
            env.step(action)
        assert len(res.actions[g]) == res.lengths[g]
        assert all(env.terminations.values())
        scores = [env.infos[a]["score"] for a in env.possible_agents]
        wins = [env.infos[a]["win"] for a in env.possible_agents]
        assert scores == res.scores[g].tolist() and wins == res.win_share[g].tolist()


class _Cheater(Agent):
    name = spec = "cheater"

    def act_batch(self, observations, masks):
        return np.ones(len(masks), dtype=np.int64)  # No Thanks: pass, even without tokens


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="num_players=4 but 3 agents"):
        evaluate("no_thanks_v0", ["random"] * 3, num_players=4, progress=False)
    with pytest.raises(ValueError, match="unknown agent spec 'nobody'"):
        evaluate("no_thanks_v0", ["random", "random", "nobody"], progress=False)
    with pytest.raises(ValueError, match="games must be a positive int"):
        evaluate("no_thanks_v0", ["random"] * 3, games=0, progress=False)
    with pytest.raises(ValueError, match="seed must be a non-negative int"):
        evaluate("no_thanks_v0", ["random"] * 3, seed=-1, progress=False)
    with pytest.raises(ValueError, match="workers must be"):
        evaluate("no_thanks_v0", ["random"] * 3, workers=0, progress=False)
    with pytest.raises(ValueError, match="unknown env id"):
        evaluate("uno_v0", ["random"] * 3, progress=False)
    with pytest.raises(ValueError, match="has no computer player"):
        evaluate("no_thanks_v0", ["computer", "random", "random"], progress=False)
    with pytest.raises(ValueError, match="agent 'cheater' chose illegal action"):
        evaluate(
            "no_thanks_v0", [_Cheater(), "random", "random"], games=3, workers=1, progress=False
        )


class _Stream:
    def __init__(self, tty: bool):
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_progress_bars_only_on_a_terminal_unless_asked():
    terminal, log = _Stream(True), _Stream(False)
    assert show_progress(None, terminal) and not show_progress(None, log)  # auto
    assert show_progress(True, log) and show_progress(True, terminal)
    assert not show_progress(False, terminal) and not show_progress(False, log)


def test_progress_bar_follows_the_setting(capsys):
    def run(progress):
        evaluate("double_or_nothing_v0", ["random", "computer"], games=4, workers=1,
                 progress=progress)  # fmt: skip
        return capsys.readouterr().err

    assert "4/4" in run(True) and "\r" in run(True)
    assert run(False) == ""
    assert run(None) == ""  # pytest's captured stderr is not a terminal


def test_uses_every_game_the_registry_has():
    for env_id in card_envs.multi_agent_env_ids():
        n = card_envs.registry.make_game(env_id).num_players
        ev = evaluate(env_id, ["random"] * n, games=n, workers=1, progress=False)
        assert ev.games == n and len(ev) == n
