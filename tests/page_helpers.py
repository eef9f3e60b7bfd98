"""Browser tests of the table page: a real `climbrl serve` on a loopback port and Debian's
headless Chromium driven by Playwright, as a person would (roles and labels, not CSS paths).

Fixtures (import them into a test module):

- ``table_server``: ``climbrl serve`` on a free loopback port with a temporary ``--db``; its
  base URL. Module scope; ``SERVE_ARGS`` in the module adds options (``["--grace", "1"]``).
- ``browser``: one headless Chromium for the module.
- ``new_page``: ``new_page(context=None) -> Page``; every page fails the test on a console
  error or an uncaught exception.

Skips with the reason when Playwright or ``/usr/bin/chromium`` is missing (``.ci/run``
installs both).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: How long one step of a game may take to show (a move, a CPU reply); CPUs play at once.
STEP_MS = 15_000
#: How long a turn may take to come round to the page: the CPU seats before it each reply,
#: and on a loaded machine a CPU worker's first move of a table's rules waits for the worker
#: to build its engine (the server plays it at random after the thinking limit and its grace,
#: 10 s); in ms
TURN_MS = 4 * STEP_MS
#: Where the page keeps the table's view, and the two views (play/page/view.js).
VIEW_KEY = "climbrl.view"
VIEWS = ("angled", "top-down")

try:
    from playwright.sync_api import Page, expect, sync_playwright

    # expect()'s own default is 5 s, shorter than a step may take on a loaded machine (a
    # whole-round test failed at an expect(...).to_be_visible() that had no timeout of its own)
    expect.set_options(timeout=STEP_MS)
except ImportError:  # pragma: no cover - the skip below says why
    sync_playwright = None
    Page = expect = None


def _skip_reason() -> str | None:
    if sync_playwright is None:
        return "playwright is not installed (pip install -e '.[test]')"
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


requires_browser = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


LOOPBACK_CAPS = ("--rooms-per-client", "1000", "--connections-per-client", "1000",
                 "--seats-per-client", "1000")
"""every page of the tests comes from 127.0.0.1: one client, as the per-client caps count"""


def start_server(tmp: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    log = open(tmp / "serve.log", "w")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "climbrl.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--db", str(tmp / "rooms.db"), *LOOPBACK_CAPS, *extra],
        stdout=log, stderr=subprocess.STDOUT, env=env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"climbrl serve exited: {(tmp / 'serve.log').read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("climbrl serve did not answer /healthz within 60 s")


@pytest.fixture(scope="module")
def table_server(request, tmp_path_factory):
    extra = getattr(request.module, "SERVE_ARGS", [])
    tmp = tmp_path_factory.mktemp("serve")
    proc, url = start_server(tmp, *extra)
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser():
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def new_page(browser):
    errors: list[str] = []
    contexts = []

    def make(context=None) -> Page:
        if context is None:
            context = browser.new_context(viewport={"width": 1360, "height": 900})
            contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(STEP_MS)
        page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        return page

    make.errors = errors
    yield make
    for c in contexts:
        c.close()
    assert not errors, "the page logged errors:\n" + "\n".join(errors)


# ------------------------------------------------------------------------------ page actions


def choose_view(context, view: str) -> None:
    """Every page of ``context`` opens with the table's view ``view`` chosen, as if its toggle
    had been pressed before (on every load, so it is no test of the page keeping it)."""
    context.add_init_script(f"localStorage.setItem({VIEW_KEY!r}, {view!r})")


def region(page: Page, name: str):
    return page.get_by_role("region", name=name)


def controls(page: Page):
    """The "Button controls" panel."""
    return region(page, "Button controls")


def expect_lobby_ready(page: Page) -> None:
    """Waits until the server's hello has built the lobby (the form stops being busy). The
    disabled fieldset cannot say it: Playwright counts a fieldset itself as enabled, so a wait
    for it passed at once, before the lobby's texts and buttons were there."""
    expect(page.locator("#lobby-form")).not_to_have_attribute("aria-busy", "true")


def start_game(page: Page, url: str, game: str, mode_button: str, players: int | None = None,
               rounds: int | None = None, rules: dict[str, bool] | None = None, name: str | None = None) -> None:
    """Opens the lobby, picks the options and presses the mode's button (e.g. "Easy")."""
    page.goto(url + "/")
    pick_and_start(page, game, mode_button, players, rounds, rules, name)


def pick_and_start(page: Page, game: str, mode_button: str, players: int | None = None,
                   rounds: int | None = None, rules: dict[str, bool] | None = None, name: str | None = None) -> None:
    """In the open lobby, picks the options and presses the mode's button (e.g. "Easy")."""
    page.get_by_role("radio", name=re.compile(game, re.I)).check()
    if players:
        page.get_by_role("group", name="Players").get_by_role("radio", name=str(players), exact=True).check()
    if rounds:
        page.get_by_role("group", name=re.compile("Rounds|Deals")).get_by_role("radio", name=str(rounds), exact=True).check()
    for rule, on in (rules or {}).items():
        box = page.get_by_role("checkbox", name=re.compile(rule, re.I))
        box.set_checked(on)
    if name:
        page.get_by_role("textbox", name="Your name").fill(name)
    page.get_by_label("How fast the computer plays").select_option(label="Instant")
    page.get_by_role("button", name=mode_button, exact=True).click()


def table(page: Page):
    return page.get_by_role("region", name="Table", exact=True)


def result_dialog(page: Page):
    return page.get_by_role("dialog").filter(has=page.get_by_role("heading"))


def next_deal(page: Page) -> None:
    """Closes a deal's result card: "Next deal", or "New match" after the match's last deal
    (a loop over more deals than the match has would wait for "Next deal" in vain)."""
    page.get_by_role("button", name=re.compile(r"^(Next deal|New match)$")).click()


def wait_turn_or_dialog(page: Page, timeout: float = TURN_MS) -> str:
    """Waits until it is this page's turn ("turn") or a dialog is up ("dialog")."""
    turn = controls(page).get_by_text(re.compile(r"^Your turn")).first
    dialog = page.get_by_role("dialog")
    expect(turn.or_(dialog).first).to_be_visible(timeout=timeout)
    return "dialog" if dialog.first.is_visible() else "turn"


def play_by_mouse(page: Page) -> str:
    """One decision with the mouse on the table: the first card that makes a play alone, else
    pass; in the exchange, the first cards that can be given. Returns what it did."""
    board = table(page)
    hand = board.get_by_role("toolbar", name=re.compile(r"^Your hand"))
    give = board.get_by_role("button", name="Give", exact=True)
    cards = hand.get_by_role("button")
    if give.count():
        for i in range(cards.count()):
            if give.is_enabled():
                break
            if cards.nth(i).is_enabled():
                cards.nth(i).click()
        give.click()
        return "give"
    play = board.get_by_role("button", name="Play", exact=True)
    for i in range(cards.count()):
        card = cards.nth(i)
        if not card.is_enabled():
            continue
        card.click()
        expect(card).to_have_attribute("aria-pressed", "true")
        if play.is_enabled():
            play.click()
            return "play"
        card.click()
    board.get_by_role("button", name="Pass", exact=True).click()
    return "pass"


def focused(locator) -> bool:
    return locator.evaluate("e => e === document.activeElement")


def tab_to(page: Page, locator, limit: int = 150) -> None:
    """Presses Tab (or Shift+Tab, towards the target) until ``locator`` has the focus."""
    before = locator.evaluate(
        "e => !!(document.activeElement && document.activeElement !== document.body &&"
        " (e.compareDocumentPosition(document.activeElement) & Node.DOCUMENT_POSITION_FOLLOWING))")
    key = "Shift+Tab" if before else "Tab"
    for _ in range(limit):
        if focused(locator):
            return
        page.keyboard.press(key)
    raise AssertionError(f"Tab never reached {locator}")


def assert_focus_visible(page: Page) -> None:
    style = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert style not in ("none", ""), f"the focused control has no visible outline ({style})"


class FrameRelay:
    """Passes a page's WebSocket through (install before ``goto``) and keeps the last table
    frame, so a test can send the page a frame of its own at a chosen moment: the last one again
    (``again``), or it with changes (``send``)."""

    def __init__(self, page: Page):
        self.page = page
        self.last: dict | None = None
        self.socket = None
        page.route_web_socket(re.compile(r"/ws$"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        self.socket = ws

        def to_page(message) -> None:
            msg = json.loads(message) if isinstance(message, str) else None
            if isinstance(msg, dict) and msg.get("type") == "state":
                self.last = msg
            ws.send(message)

        server.on_message(to_page)

    def send(self, **changes) -> dict:
        """The last frame with ``changes`` (and no events unless given) sent to the page."""
        assert self.last is not None, "no table frame has come yet"
        frame = {**self.last, "events": [], **changes}
        self.socket.send(json.dumps(frame))
        return frame

    def again(self) -> None:
        """The last frame again, and waits until the page has drawn it: every control of the
        hand and the panel loses a mark put on it just before (patched or replaced)."""
        self.page.evaluate("() => document.querySelectorAll('#main button').forEach((b) => { b.dataset.probe = '1'; })")
        self.send()
        self.page.wait_for_function("() => !document.querySelector('#controls-hand [data-probe]')")


def press_space(page: Page, between=None) -> None:
    """Space on the focused control; ``between()`` runs while the key is down."""
    if between is None:
        page.keyboard.press("Space")
        return
    page.keyboard.down("Space")
    between()
    page.keyboard.up("Space")


def play_by_keyboard(page: Page, between=None) -> str:
    """One decision with the keyboard alone, in the "Button controls" panel; ``between()``
    runs while Space is down on a card (a frame arriving between key down and key up)."""
    panel = controls(page)
    cards = panel.get_by_role("group", name="Your cards").get_by_role("button")
    give = panel.get_by_role("button", name="Give", exact=True)
    if give.count():
        for i in range(cards.count()):
            if give.is_enabled():
                break
            if cards.nth(i).is_enabled():
                tab_to(page, cards.nth(i))
                page.keyboard.press("Space")
        tab_to(page, give)
        page.keyboard.press("Enter")
        return "give"
    play = panel.get_by_role("button", name="Play", exact=True)
    for i in range(cards.count()):
        card = cards.nth(i)
        if not card.is_enabled():
            continue
        tab_to(page, card)
        assert_focus_visible(page)
        press_space(page, between)
        expect(card).to_have_attribute("aria-pressed", "true")
        expect(card).to_be_focused()
        if play.is_enabled():
            tab_to(page, play)
            page.keyboard.press("Enter")
            return "play"
        press_space(page, between)
        expect(card).to_have_attribute("aria-pressed", "false")
    tab_to(page, panel.get_by_role("button", name="Pass", exact=True))
    page.keyboard.press("Enter")
    return "pass"
