"""The web load test (`python -m benchmarks.web_load`) in short: a few clients play whole
games of every env id against a server in this process, with the bad requests mixed in;
no 5xx, and every bad request gets its 4xx and an error naming the problem."""

from __future__ import annotations

import pytest

from benchmarks import web_load
from tests.helpers_web import SHORT, start_app

pytestmark = pytest.mark.slow  # see pyproject's markers: out of the fast tier

OUT_OF_ORDER = {
    "illegal action",
    "action of the wrong type",
    "step in a game with a person",
    "look at another seat",
    "move in a watched game",
    "move after the end",
    "move after the close",
}


def test_a_short_load_gets_no_5xx_and_the_right_4xx_for_every_bad_request():
    _, server, client = start_app()
    try:
        port = server.server_address[1]
        env_ids = [g["env_id"] for g in client.json("GET", "/api/games")[1]["games"]]
        result = web_load.run_load(
            port, sessions=4, games=2 * len(env_ids), minutes=60, configs=SHORT
        )
    finally:
        server.shutdown()
        server.server_close()
    tally = result.tally
    assert result.problems() == [], "\n".join(tally.problems)
    assert tally.count("5xx") == tally.count("failed") == 0 and tally.count("4xx") > 0
    between_games = {name for name, *_ in web_load.bad_requests(web_load.Client(port, tally), "x")}
    assert set(tally.probes) == between_games | OUT_OF_ORDER
    assert tally.probes_ok == tally.probes  # each answered with its status and words
    assert result.env_ids == env_ids
    for env_id in env_ids:  # two games each: one played (or watched) to its end at least
        games = tally.games[env_id]
        assert games["finished"] >= 1 and games["played"] + games["watched"] == 2, env_id
    assert sum(tally.games[e]["watched"] for e in env_ids) > 0
    assert sum(tally.games[e]["left open"] for e in env_ids) > 0
    page = web_load.report(result, "python -m benchmarks.web_load --games 14")
    assert "**PASS**" in page and all(f"| {e} " in page for e in env_ids)


@pytest.mark.parametrize(
    "url", ["http://10.0.0.1:8000", "http://localhost:8000", "https://127.0.0.1:8000"]
)
def test_it_talks_to_127_0_0_1_only(url, capsys):
    with pytest.raises(SystemExit) as err:
        web_load.main(["--url", url])
    assert err.value.code == 2 and "127.0.0.1" in capsys.readouterr().err
