"""The cache warm-up before parallel test workers (card_envs/testing/warm.py)."""

from card_envs.registry import env_ids, kernel_groups


def test_the_warm_up_groups_hold_every_env_id_once():
    listed = [env_id for group in kernel_groups() for env_id in group]
    assert sorted(listed) == env_ids()


def test_a_game_folder_compiles_as_one_group_the_dearest_first():
    """The ids of one folder share its kernels (the solo game holds Rummidrez's solver, the
    run env its game's), and Rummidrez, the slowest to compile, starts first."""
    groups = kernel_groups()
    assert groups[0] == ("rummidrez_solo_v0", "rummidrez_v0")
    assert ("double_or_nothing_run_v0", "double_or_nothing_v0") in groups
