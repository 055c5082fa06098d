"""Padded observations (`core.padding`): one layout for every config of a game, so that one
policy plays them all. The conformance suite's `check_padding` checks every test config's
observations slot by slot; here: the config features, and that segments name what the
engines write."""

import numpy as np
import pytest

from card_envs.core import layout
from card_envs.core.padding import Padding, padded_size, player_range
from card_envs.core.segments import rooms
from card_envs.registry import game_class, make_game, multi_agent_env_ids


def positions(game, count: int = 40, seed: int = 3) -> list[tuple[np.ndarray, np.ndarray]]:
    """(row, observation of the seat to act) at the first `count` steps of random play."""
    rng = np.random.default_rng(seed)
    cls = type(game)
    row = game.new_row()
    game.reset_row(row, seed)
    out = []
    obs = np.zeros(game.obs_size, dtype=np.float32)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    rewards = np.zeros(game.num_players, dtype=np.float32)
    while row[layout.STATUS] == layout.RUNNING and len(out) < count:
        cls.observe_kernel(row, row[layout.PLAYER], obs)
        out.append((row.copy(), obs.copy()))
        cls.legal_kernel(row, mask)
        cls.step_kernel(row, rng.choice(np.flatnonzero(mask)), rewards)
    return out


def segment_at(game, padded: np.ndarray, name: str) -> np.ndarray:
    """The slots of segment `name` in a padded observation (all its padded room)."""
    cls = type(game)
    start, size = rooms(cls.obs_segments, player_range(cls)[1])[name]
    return padded[start : start + size]


@pytest.mark.parametrize("env_id", multi_agent_env_ids())
def test_the_player_count_and_each_optional_segment_have_their_own_feature(env_id):
    cls = game_class(env_id)
    low, high = player_range(cls)
    optional = [s.option for s in cls.obs_segments if s.option is not None]
    seen = set()
    for n in range(low, high + 1):
        for on in [False, True] if optional else [None]:
            extra = {o: on for o in optional} if optional else {}
            game = make_game(env_id, num_players=n, **extra)
            seen.add(tuple(Padding(game).ones))
    counts = high - low + 1
    assert len(seen) == counts * (2 if optional else 1)  # every config tells itself apart
    if counts == 1 and not optional:  # Double or Nothing: padding changes nothing
        game = make_game(env_id)
        assert Padding(game).identity and padded_size(cls) == game.obs_size


def test_no_thanks_segments_name_what_the_engine_writes():
    """Not only sizes: the token counts and the cards left sit where the segments say."""
    from card_envs.games.no_thanks import engine as k

    for n in (3, 7):
        game = make_game("no_thanks_v0", num_players=n, public_tokens=True)
        padding = Padding(game)
        for row, obs in positions(game, count=12):
            seat = row[layout.PLAYER]
            padded = padding(obs)
            own = segment_at(game, padded, "own_tokens")
            assert own[0] == row[k.TOKENS + seat]
            others = segment_at(game, padded, "tokens")[: n - 1]
            expect = [row[k.TOKENS + (seat + j) % n] for j in range(1, n)]
            np.testing.assert_array_equal(others, expect)
            assert segment_at(game, padded, "left")[0] == k.NUM_PLAYED - row[k.NEXT]


def test_surfosaurus_segments_name_what_the_engine_writes():
    from card_envs.games.surfosaurus import engine as k

    for n in (2, 6):
        game = make_game("surfosaurus_max_v0", num_players=n, hints=True)
        padding = Padding(game)
        for row, obs in positions(game, count=12):
            padded = padding(obs)
            assert segment_at(game, padded, "pile")[0] == k.NUM_CARDS - row[k.DRAW]
            assert segment_at(game, padded, "round")[0] == row[k.ROUND]
            hand = segment_at(game, padded, "hand")
            hints = segment_at(game, padded, "hints")
            assert not hints[hand == 0].any()  # a hint for each card in hand only
