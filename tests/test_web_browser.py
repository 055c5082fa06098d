"""The browser app in a real headless Chromium (Playwright): a person plays a whole game of
each env by clicking, a game is watched, one is played on from a named position and a
recorded one replayed; any error in the browser's console fails the test.

Chromium is Debian's `chromium` package, launched by its path (Playwright cannot download
its own browsers here); the README's test command installs it.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from playwright.sync_api import Page, sync_playwright

from card_envs import positions
from card_envs.registry import env_ids
from tests.helpers_web import SHORT, click_move, recorded_tournament, start_app

pytestmark = pytest.mark.slow  # see pyproject's markers: out of the fast tier

CLICKS = 3000  # more than any SHORT game takes


@pytest.fixture(scope="module")
def browser():
    path = shutil.which("chromium")
    assert path, "the browser tests need Debian's chromium: apt-get install -y chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    db, records = recorded_tournament(tmp_path_factory.mktemp("games"))
    app, server, client = start_app(records=[records], stores=[db])
    yield app, client.url
    server.shutdown()
    server.server_close()


@pytest.fixture
def page(browser, site):
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    page.close()
    assert errors == [], f"errors in the browser console: {errors}"


def _open(page: Page, url: str, env_id: str, mode: str) -> None:
    page.goto(f"{url}/?game={env_id}")
    page.wait_for_selector("body[data-state=ready]")
    page.click(f"#tab-{mode}")
    for name, value in SHORT[env_id].items():
        page.fill(f"#opt-{name}", str(value))
        page.dispatch_event(f"#opt-{name}", "change")


def _ready(page: Page) -> None:
    page.wait_for_selector("body[data-state=ready]")


def _face_down(page: Page) -> int:
    return page.locator("#table rect[fill='#2b4c7e']").count()


@pytest.mark.parametrize("env_id", env_ids())
def test_a_person_plays_a_whole_game_by_clicking(page, site, env_id):
    _, url = site
    _open(page, url, env_id, "play")
    seats = page.locator(".seat")
    assert seats.nth(0).input_value() == "human"
    for p in range(1, seats.count()):
        seats.nth(p).select_option("random")
    page.click("#start")
    page.wait_for_selector("#table svg")
    _ready(page)
    rng = np.random.default_rng(1)
    clicks = 0
    while not page.locator("#result").is_visible():
        assert clicks < CLICKS, f"{env_id}: no end after {clicks} clicks"
        cards, buttons = page.locator("#table .clickable"), page.locator("#buttons button")
        kinds = [k for k in (cards, buttons) if k.count()]
        assert kinds, f"{env_id}: nothing to click while the game goes on"
        targets = kinds[int(rng.integers(len(kinds)))]  # a card or a button, then which
        click_move(page, targets.nth(int(rng.integers(targets.count()))))
        clicks += 1
    assert "Game over" in page.inner_text("#result")
    assert page.locator("#table .clickable, #buttons button").count() == 0
    assert clicks > 0 and page.locator("#log li").count() > 0


def test_watching_agents_step_by_step_at_a_speed_and_from_any_seat(page, site):
    _, url = site
    _open(page, url, "super_zwierzaki_v0", "watch")
    assert page.locator(".seat option[value=human]").count() == 0  # nobody plays a watched game
    assert "rummidrez_solo_v0" not in page.inner_html("#game")  # nor one alone
    for p in range(page.locator(".seat").count()):
        page.locator(".seat").nth(p).select_option("heuristic")
    page.click("#start")
    page.wait_for_selector("#table svg")
    for step in (1, 2, 3):
        page.click("#step")
        page.wait_for_function(f"document.body.dataset.step === '{step}'")
    assert page.locator("#log li").count() == 3
    all_cards = _face_down(page)
    page.select_option("#viewer", "0")
    _ready(page)
    assert _face_down(page) > all_cards  # seat 0 does not see the other hands
    page.fill("#speed", "20")
    page.dispatch_event("#speed", "input")
    page.click("#run")
    page.wait_for_function("Number(document.body.dataset.step) >= 12")
    page.click("#run")  # pause
    _ready(page)
    # paused: no timer left to move the game (checked on the page's state, not with a clock)
    assert page.evaluate("page.timer === null") and page.inner_text("#run") == "Run"


def test_watched_agents_moves_show_their_policy(page, site):
    """Beside each ppo or ismcts move: its top actions with probabilities and its value."""
    _, url = site
    _open(page, url, "no_thanks_v0", "watch")
    for p, spec in enumerate(("ppo", "ismcts", "random")):
        page.locator(".seat").nth(p).select_option(spec)
    page.click("#start")
    page.wait_for_selector("#table svg")
    for step in (1, 2, 3):
        page.click("#step")
        page.wait_for_function(f"document.body.dataset.step === '{step}'")
    lines = page.locator("#log li")
    assert lines.count() == 3
    for k in range(3):
        line = lines.nth(k)
        if line.inner_text().startswith("player_2"):  # random has no policy
            assert line.locator(".policy").count() == 0
            continue
        text = line.locator(".policy").inner_text()
        assert "policy:" in text and "%" in text, text
        if line.inner_text().startswith("player_0"):  # ppo's value head
            assert "value" in text


def test_replaying_a_record_file_and_a_stored_game_with_the_slider(page, site):
    _, url = site
    page.goto(url)
    _ready(page)
    page.click("#tab-replay")
    _ready(page)
    assert page.locator("#source option").count() == 2
    for source in ("0", "1"):
        page.select_option("#source", source)
        _ready(page)
        assert "move 0 of" in page.inner_text("#step-text")
        length = int(page.inner_text("#step-text").split(" of ")[1])
        page.click("#forward")
        page.wait_for_function("document.body.dataset.step === '1'")
        assert page.locator("#log li").count() == 1
        page.fill("#slider", str(length))
        page.dispatch_event("#slider", "input")
        page.wait_for_function(f"document.body.dataset.step === '{length}'")
        assert "Game over" in page.inner_text("#result")
        if source == "0":  # the No Thanks records keep the ppo agent's policies
            policy = page.locator("#log li .policy")
            assert policy.count() > 0 and "%" in policy.first.inner_text()
        page.click("#back")
        page.wait_for_function(f"document.body.dataset.step === '{length - 1}'")
        assert not page.locator("#result").is_visible()


def test_a_game_starts_from_a_position_picked_in_the_form(page, site):
    _, url = site
    page.goto(f"{url}/?game=no_thanks_v0")
    _ready(page)
    offered = page.locator("#position option").evaluate_all("os => os.map(o => o.value)")
    assert offered == ["", *(n for n in positions.names() if n.startswith("no_thanks/"))]
    assert page.locator("#position-text").is_hidden()
    page.select_option("#position", "no_thanks/last-card")
    assert "must take it" in page.inner_text("#position-text")
    assert page.locator("#opt-num_players").is_disabled()  # the position's config, fixed
    assert page.input_value("#opt-num_players") == "3" and page.locator(".seat").count() == 3
    page.select_option("#seat-0", "random")
    page.select_option("#seat-1", "human")  # player_1 is to act there
    page.click("#start")
    page.wait_for_selector("#table svg")
    _ready(page)
    assert page.locator("#log li").all_inner_texts() == [
        "start: the game started from position no_thanks/last-card"
    ]
    assert page.locator("#buttons button").count() == 0  # no tokens: only taking the card
    take = page.locator("#table .clickable")
    assert take.count() == 1 and take.text_content() == "35"
    click_move(page, take)
    assert "Game over" in page.inner_text("#result")  # the last card taken ends the game
    page.select_option("#position", "")
    assert (
        page.locator("#opt-num_players").is_enabled() and page.locator("#position-text").is_hidden()
    )
