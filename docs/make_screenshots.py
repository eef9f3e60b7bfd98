"""Screenshots of the table page for the docs (docs/table.md), taken by driving the page in headless Chromium
against a real ``climbrl serve``: the lobby, a Daifugo table mid-round with a lock and dimmed
cards, a Dou Dizhu bidding and a Dou Dizhu result card.

    python docs/make_screenshots.py            # writes docs/page-*.png

Needs the test extra (Playwright) and Debian's ``chromium`` (``apt-get install chromium``).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent / "tests"))

from page_helpers import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    controls,
    next_deal,
    play_by_mouse,
    start_game,
    start_server,
    table,
    wait_turn_or_dialog,
)
from playwright.sync_api import sync_playwright  # noqa: E402

VIEWPORT = {"width": 1360, "height": 900}
MAX_DECISIONS = 600


def shot(page, name: str, full_page: bool = False) -> None:
    # let the event signs on the table fade and the lifted card settle
    page.wait_for_function("() => !document.querySelector('#banner').classList.contains('show')", timeout=10_000)
    page.wait_for_timeout(400)
    path = DOCS / f"page-{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    print(f"wrote {path}")


def lobby(page, url: str) -> None:
    page.goto(url + "/")
    page.get_by_role("button", name="Easy").wait_for()
    page.get_by_role("textbox", name="Your name").fill("Ann")
    page.get_by_role("textbox", name="Your name").blur()
    shot(page, "lobby", full_page=True)


def daifugo_lock(page, url: str) -> None:
    """Plays vs the computer until it is our turn on a locked pile with cards dimmed."""
    start_game(page, url, "Daifugo", "Medium", players=4, name="Ann")
    board = table(page)
    lock = board.get_by_role("status", name=re.compile(r"^Lock: "))
    hand = board.get_by_role("toolbar", name=re.compile(r"^Your hand"))
    for _ in range(MAX_DECISIONS):
        if wait_turn_or_dialog(page) == "dialog":
            page.get_by_role("button", name=re.compile("Continue|New match")).first.click()
            continue
        cards = hand.get_by_role("button")
        enabled = [c for c in cards.all() if c.is_enabled()]
        if lock.count() and 0 < len(enabled) < cards.count() and cards.count() >= 5:
            play = board.get_by_role("button", name="Play", exact=True)
            for card in enabled:
                card.click()
                if play.is_enabled():
                    break
                card.click()
            shot(page, "daifugo")
            return
        play_by_mouse(page)
    raise RuntimeError(f"no locked pile on our turn in {MAX_DECISIONS} decisions")


def doudizhu(page, url: str) -> None:
    """A Dou Dizhu bidding, then the deal played out with hints up to the result card."""
    start_game(page, url, "Dou Dizhu", "Medium", rounds=3, name="Ann")
    panel = controls(page)
    for _ in range(MAX_DECISIONS):
        if wait_turn_or_dialog(page) == "dialog":
            next_deal(page)
        elif panel.get_by_role("button", name="Don't bid").count():
            break
        else:
            play_hint(page)
    else:
        raise RuntimeError("never got to bid")
    shot(page, "doudizhu-bidding")
    best = [b for b in ("Bid 3", "Bid 2", "Bid 1") if panel.get_by_role("button", name=b).count()][0]
    panel.get_by_role("button", name=best).click()
    for _ in range(MAX_DECISIONS):
        if wait_turn_or_dialog(page) == "dialog":
            break
        play_hint(page)
    page.get_by_role("dialog").get_by_role("button", name="Replay deal").focus()
    shot(page, "doudizhu-result")


def play_hint(page) -> None:
    panel = controls(page)
    panel.get_by_role("button", name="Hint").click()
    table(page).get_by_role("status", name="Status line").filter(has_text=re.compile(r"^Hint")).wait_for()
    play = panel.get_by_role("button", name="Play", exact=True)
    (play if play.is_enabled() else panel.get_by_role("button", name="Pass", exact=True)).click()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for step in (lobby, daifugo_lock, doudizhu):
                    page = browser.new_context(viewport=VIEWPORT).new_page()
                    page.set_default_timeout(20_000)
                    step(page, url)
                    page.context.close()
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
