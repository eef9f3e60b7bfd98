"""Screenshots of the table page for the docs (docs/table.md), taken by driving the page in headless Chromium
against a real ``climbrl serve``: the lobby, a Daifugo table mid-round with a lock and dimmed
cards, a Dou Dizhu bidding and a Dou Dizhu result card (these four in the top-down view), a
Daifugo table in the angled view on a laptop and on a phone, and a Daifugo table in Spanish
(a browser asking for ``es-ES``, top-down).

    python docs/make_screenshots.py            # writes docs/page-*.png
    python docs/make_screenshots.py angled angled-phone es   # only these (names from SHOTS)

Needs the test extra (Playwright), the docs extra (Pillow, through matplotlib: each picture is
saved with a palette of 256 colours, a third of its size) and Debian's ``chromium``
(``apt-get install chromium``).
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
    choose_view,
    controls,
    next_deal,
    play_by_mouse,
    start_game,
    start_server,
    table,
    wait_turn_or_dialog,
)
from PIL import Image  # noqa: E402
from test_page_i18n import decide, load_catalog, render, start_daifugo, wait_turn_or_result  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

VIEWPORT = {"width": 1360, "height": 900}
#: The colours of a picture's palette (the most a PNG palette holds).
PALETTE_COLOURS = 256
#: The angled view's pictures: a laptop, and a phone (a touch screen), at one device pixel per
#: CSS pixel so that each picture stays under 200 KB.
LAPTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
#: The Spanish picture: the laptop's screen, a browser whose first language is Spanish.
SPANISH = {**LAPTOP, "locale": "es-ES"}
#: The fewest cards in hand for a picture of the angled table.
SHOW_CARDS = 8
MAX_DECISIONS = 600


def shot(page, name: str, full_page: bool = False) -> None:
    # let the event signs on the table fade and the lifted card settle
    page.wait_for_function("() => !document.querySelector('#banner').classList.contains('show')", timeout=10_000)
    page.wait_for_timeout(400)
    path = DOCS / f"page-{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    picture = Image.open(path).convert("RGB").quantize(PALETTE_COLOURS, dither=Image.Dither.FLOYDSTEINBERG)
    picture.save(path, optimize=True)
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


def angled_table(name: str):
    """A Daifugo table against the computer on our turn over a pile, a playable card lifted,
    pictured as ``page-<name>.png``."""

    def step(page, url: str) -> None:
        start_game(page, url, "Daifugo", "Medium", players=4, name="Ann")
        board = table(page)
        cards = board.get_by_role("toolbar", name=re.compile(r"^Your hand")).get_by_role("button")
        for _ in range(MAX_DECISIONS):
            if wait_turn_or_dialog(page) == "dialog":
                page.get_by_role("button", name=re.compile("Continue|New match")).first.click()
                continue
            pile = board.get_by_role("button", name="Pass", exact=True).is_enabled()
            if pile and cards.count() >= SHOW_CARDS:
                play = board.get_by_role("button", name="Play", exact=True)
                for card in [c for c in cards.all() if c.is_enabled()]:
                    card.click()
                    if play.is_enabled():
                        break
                    card.click()
                shot(page, name)
                return
            play_by_mouse(page)
        raise RuntimeError(f"no pile on our turn in {MAX_DECISIONS} decisions")

    return step


def spanish_table(page, url: str) -> None:
    """A Daifugo table against the computer in Spanish on our turn over a pile, a playable card
    lifted (page-es.png); driven by the Spanish catalog's words and the controls' keys."""
    words = load_catalog("es")
    start_daifugo(page, url, words)
    board = page.get_by_role("region", name=words["table.table"], exact=True)
    cards = page.locator("#hand button")
    again = re.compile(f"^({re.escape(words['action.continue'])}|{re.escape(words['action.new_match'])})$")
    for _ in range(MAX_DECISIONS):
        if wait_turn_or_result(page, words) == "result":
            page.get_by_role("dialog").get_by_role("button", name=again).first.click()
            continue
        over_pile = page.locator("#controls-turn").text_content() == render(words, "turn.play_or_pass")
        if over_pile and cards.count() >= SHOW_CARDS:
            play = board.get_by_role("button", name=words["action.play"], exact=True)
            for card in [c for c in cards.all() if c.is_enabled()]:
                card.click()
                if play.is_enabled():
                    shot(page, "es")
                    return
                card.click()
        decide(page)
    raise RuntimeError(f"no pile on our turn in {MAX_DECISIONS} decisions")


def play_hint(page) -> None:
    panel = controls(page)
    panel.get_by_role("button", name="Hint").click()
    table(page).get_by_role("status", name="Status line").filter(has_text=re.compile(r"^Hint")).wait_for()
    play = panel.get_by_role("button", name="Play", exact=True)
    (play if play.is_enabled() else panel.get_by_role("button", name="Pass", exact=True)).click()


#: Each picture's step (its name, what it does, its browser, the table's view): page-<name>.png,
#: or, for "doudizhu", the bidding and the result card.
SHOTS = (
    ("lobby", lobby, {"viewport": VIEWPORT}, "top-down"),
    ("daifugo", daifugo_lock, {"viewport": VIEWPORT}, "top-down"),
    ("doudizhu", doudizhu, {"viewport": VIEWPORT}, "top-down"),
    ("angled", angled_table("angled"), LAPTOP, "angled"),
    ("angled-phone", angled_table("angled-phone"), PHONE, "angled"),
    ("es", spanish_table, SPANISH, "top-down"),
)


def main() -> None:
    names = [name for name, *_ in SHOTS]
    wanted = sys.argv[1:] or names
    unknown = [w for w in wanted if w not in names]
    if unknown:
        sys.exit(f"make_screenshots.py: no picture named {unknown[0]!r} (one of: {', '.join(names)})")
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for name, step, options, view in SHOTS:
                    if name not in wanted:
                        continue
                    context = browser.new_context(**options)
                    choose_view(context, view)
                    page = context.new_page()
                    page.set_default_timeout(20_000)
                    step(page, url)
                    page.context.close()
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
