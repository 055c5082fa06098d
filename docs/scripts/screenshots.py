"""The screenshots in docs/img: each game's page in the browser app, some moves into a game.

Run from the repository root (needs Playwright and Debian's chromium, as the browser tests):
    python3 docs/scripts/screenshots.py
Each game is dealt with seed 1 against its strongest agents (the shipped `ppo` where there
is one, else the heuristic); the person's seat clicks the move the game's heuristic would
make until `MOVES` moves are on the table, so each picture is a position from the middle
of a real game, the same on every run.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from card_envs.agents import HeuristicAgent  # noqa: E402
from card_envs.registry import multi_agent_env_ids  # noqa: E402
from card_envs.web.server import App, serve_in_thread  # noqa: E402
from card_envs.web.sessions import Sessions  # noqa: E402
from card_envs.web.sources import Sources  # noqa: E402
from tests.helpers_web import click_move  # noqa: E402

MOVES = {
    "no_thanks_v0": 60,
    "surfosaurus_max_v0": 7,
    "double_or_nothing_v0": 6,
    "rummidrez_v0": 10,
    "super_zwierzaki_v0": 3,
}


class _Kept(Sessions):
    """Sessions that keep the last match started, to read the person's position from."""

    def add(self, match) -> str:
        self.last = match
        return super().add(match)


def _heuristic_move(match) -> int:
    """The move the game's heuristic makes for the person's seat in `match`."""
    game = match.game
    obs = np.zeros(game.obs_size, dtype=np.float32)
    type(game).observe_kernel(match.row, match.to_act, obs)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[match.legal()] = 1
    return HeuristicAgent(game).act(obs, mask)


def main() -> None:
    sessions = _Kept()
    server, url = serve_in_thread(App(Sources(), sessions))
    out = ROOT / "docs" / "img"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1000, "height": 800})
        for env_id in multi_agent_env_ids():
            page.goto(f"{url}?game={env_id}")
            page.wait_for_selector("body[data-state=ready]")
            page.fill("#seed", "1")
            page.click("#start")
            page.wait_for_selector("#table svg", timeout=120_000)
            while int(page.evaluate("document.body.dataset.step")) < MOVES[env_id]:
                if page.locator("#result").is_visible():
                    break
                move = _heuristic_move(sessions.last)
                at = f"[data-action='{move}']"
                targets = page.locator(f"#table .clickable{at}, #buttons button{at}")
                click_move(page, targets.first)
            page.screenshot(path=str(out / f"play_{env_id}.png"), full_page=True)
            print(f"wrote docs/img/play_{env_id}.png")
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
