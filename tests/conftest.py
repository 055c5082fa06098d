"""Session-wide test setup."""

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def sb3_logs_in_pytest_tmp(tmp_path_factory):
    """SB3 makes a log folder for every model it trains (in /tmp unless SB3_LOGDIR says
    otherwise): keep them in pytest's own temporary directory."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3_logs")))
    yield
