"""The cache warm-up before parallel test workers (card_envs/testing/warm.py)."""

from card_envs.registry import KERNEL_GROUPS, env_ids


def test_the_warm_up_groups_hold_every_env_id_once():
    listed = [env_id for group in KERNEL_GROUPS for env_id in group]
    assert sorted(listed) == env_ids()
