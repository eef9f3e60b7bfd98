"""The table page on a phone (a touch screen 390 or 360 px wide): every card of the longest
hands fits the screen and is the element a finger on its showing strip touches, a whole
Daifugo round and a Dou Dizhu deal are played by taps (and a pair marked by dragging a finger
across it), in the table's angled view and in its top-down view, and no screen (lobby, join
page, table, exchange, result cards, the hot-seat curtain) is wider than the phone."""

from __future__ import annotations

import re

import pytest

from page_helpers import (  # noqa: F401  (fixtures)
    VIEWS,
    browser,
    choose_view,
    expect,
    new_page,
    next_deal,
    pick_and_start,
    requires_browser,
    result_dialog,
    start_game,
    table,
    table_server,
    wait_turn_or_dialog,
)

pytestmark = requires_browser

PHONES = {"390x844": (390, 844), "360x740": (360, 740)}
#: The narrowest strip of a card left showing in the hand (play/page/table.js MIN_STRIP_PX).
MIN_STRIP_PX = 24
MAX_DECISIONS = 150

#: Per card button of the hand: its showing strip (the part no later card covers), whether
#: that strip lies inside the viewport, and whether the topmost element at the strip's centre
#: is that card.
STRIPS_JS = """() => {
  const buttons = [...document.querySelectorAll('#hand .card-button')];
  const rects = buttons.map((b) => b.getBoundingClientRect());
  return buttons.map((b, i) => {
    const r = rects[i];
    let right = r.right, bottom = r.bottom;
    for (let j = i + 1; j < rects.length; j++) {
      const o = rects[j];
      const sameRow = buttons[j].offsetTop === b.offsetTop;  // the layout's row, lifted or not
      if (sameRow && o.left < right && o.left > r.left) right = o.left;
      if (!sameRow && o.top < bottom && o.top > r.top && o.left < r.right && o.right > r.left) bottom = o.top;
    }
    const x = (r.left + right) / 2, y = (r.top + bottom) / 2;
    const hit = document.elementFromPoint(x, y);
    return {
      label: b.getAttribute('aria-label'), x, y, width: right - r.left, height: bottom - r.top,
      inside: r.left >= 0 && right <= innerWidth && r.top >= 0 && bottom <= innerHeight,
      top: !!hit && hit.closest('.card-button') === b,
    };
  });
}"""


def phone(browser, size: tuple[int, int], view: str | None = None):
    """A phone's browser; ``view`` chosen for the table (else the page's default for it)."""
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True,
                                  device_scale_factor=2)
    if view:
        choose_view(context, view)
    return context


def no_sideways_scroll(page, where: str) -> None:
    wide = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert wide[0] <= wide[1], f"{where}: the page is {wide[0]} px wide on a {wide[1]} px screen"


def strips(page) -> list[dict]:
    return page.evaluate(STRIPS_JS)


def assert_hand_fits(page, count: int) -> None:
    """Every one of the ``count`` cards shows a strip inside the screen, wide enough to tap,
    with the card itself on top at its centre."""
    hand = table(page).get_by_role("toolbar", name=f"Your hand, {count} cards")
    expect(hand).to_be_visible()
    hand.scroll_into_view_if_needed()
    found = strips(page)
    assert len(found) == count
    bad = [s for s in found if not (s["inside"] and s["top"] and s["width"] >= MIN_STRIP_PX - 0.5)]
    assert not bad, f"cards that cannot be tapped: {bad}"


def tap_card(page, index: int) -> None:
    s = strips(page)[index]
    page.touchscreen.tap(s["x"], s["y"])


def drag_across(page, first: int, last: int) -> None:
    """A finger put down on card ``first`` and drawn sideways to card ``last`` (touch events)."""
    found = strips(page)
    a, b = found[first], found[last]
    cdp = page.context.new_cdp_session(page)
    steps = 6
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": a["x"], "y": a["y"]}]})
    for k in range(1, steps + 1):
        x = a["x"] + (b["x"] - a["x"]) * k / steps
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": a["y"]}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def hand(page):
    return table(page).get_by_role("toolbar", name=re.compile(r"^Your hand"))


def pressed(page) -> list[bool]:
    return [b.get_attribute("aria-pressed") == "true" for b in hand(page).get_by_role("button").all()]


def play_by_taps(page) -> str:
    """One decision by taps on the table: the first card that makes a play alone, else pass;
    in the exchange the first cards that can be given; in the bidding the highest bid."""
    board = table(page)
    bids = board.get_by_role("button", name=re.compile(r"^Bid \d$"))
    if bids.count():
        bids.last.tap()
        return "bid"
    give = board.get_by_role("button", name="Give", exact=True)
    cards = hand(page).get_by_role("button")
    if give.count():
        for i in range(cards.count()):
            if give.get_attribute("aria-disabled") != "true":
                break
            if cards.nth(i).get_attribute("aria-disabled") != "true":
                tap_card(page, i)
        give.tap()
        return "give"
    play = board.get_by_role("button", name="Play", exact=True)
    for i in range(cards.count()):
        card = cards.nth(i)
        if card.get_attribute("aria-disabled") == "true":
            continue
        tap_card(page, i)
        expect(card).to_have_attribute("aria-pressed", "true")
        if play.get_attribute("aria-disabled") != "true":
            play.tap()
            return "play"
        tap_card(page, i)
        expect(card).to_have_attribute("aria-pressed", "false")
    board.get_by_role("button", name="Pass", exact=True).tap()
    return "pass"


def play_a_pair_by_drag(page) -> bool:
    """Marks two equal cards side by side with one drag of a finger; plays them if that is a
    legal play (else lifts them again by a second drag). Whether a pair was played."""
    labels = [s["label"].split(" of ")[0] for s in strips(page)]
    play = table(page).get_by_role("button", name="Play", exact=True)
    for i in range(len(labels) - 1):
        found = strips(page)
        same_row = abs(found[i]["y"] - found[i + 1]["y"]) < 1
        if labels[i] != labels[i + 1] or not same_row or "cannot" in found[i]["label"]:
            continue
        drag_across(page, i, i + 1)
        expect(hand(page).get_by_role("button").nth(i + 1)).to_have_attribute("aria-pressed", "true")
        assert pressed(page)[i], "the drag did not lift the card it started on"
        if play.get_attribute("aria-disabled") != "true":
            play.tap()
            return True
        drag_across(page, i, i + 1)
        expect(hand(page).get_by_role("button").nth(i + 1)).to_have_attribute("aria-pressed", "false")
    return False


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("size", PHONES.values(), ids=PHONES.keys())
def test_phone_lobby_join_and_a_full_daifugo_hand_fit(browser, new_page, table_server, size, view):
    context = phone(browser, size, view)
    try:
        page = new_page(context)
        page.goto(table_server + "/")
        expect(page.get_by_role("button", name="Easy", exact=True)).to_be_enabled()
        no_sideways_scroll(page, "lobby")
        pick_and_start(page, "Daifugo", "Easy", players=4)
        # the table opens at its top, the whole table in view, and every card can be tapped
        expect(hand(page).get_by_role("button").first).to_be_visible()
        count = hand(page).get_by_role("button").count()
        assert count in (13, 14), count  # 54 cards for 4 players
        assert_hand_fits(page, count)
        assert page.evaluate("() => document.getElementById('board').getBoundingClientRect().top") >= 0
        no_sideways_scroll(page, "table")
        leave = page.get_by_role("button", name="Leave table")
        box = leave.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= size[0], box

        join = new_page(context)
        join.goto(table_server + "/r/" + "A" * 20)
        expect(join.get_by_role("button", name="Take a seat")).to_be_visible()
        no_sideways_scroll(join, "join page")
    finally:
        context.close()


@pytest.mark.parametrize("view", VIEWS)
def test_phone_whole_daifugo_round_by_taps_and_the_exchange(browser, new_page, table_server, view):
    context = phone(browser, PHONES["390x844"], view)
    try:
        page = new_page(context)
        start_game(page, table_server, "Daifugo", "Easy", players=4)
        done = {"play": 0, "pass": 0, "give": 0, "bid": 0}
        for _ in range(MAX_DECISIONS):
            if wait_turn_or_dialog(page) == "dialog":
                break
            no_sideways_scroll(page, "table")
            done[play_by_taps(page)] += 1
        else:
            raise AssertionError(f"the round did not end: {done}")
        assert done["play"] >= 1, done
        dialog = page.get_by_role("dialog", name="Round 1 is over")
        expect(dialog).to_be_visible()
        no_sideways_scroll(page, "round result")
        expect(dialog.get_by_role("heading", name="Round 1 is over")).to_be_in_viewport()
        page.get_by_role("button", name="Continue").tap()
        # round 2 opens with the exchange
        expect(page.get_by_role("region", name="What happened")).to_contain_text("Round 2 begins")
        no_sideways_scroll(page, "exchange")
        if wait_turn_or_dialog(page) == "turn" and table(page).get_by_role("button", name="Give").count():
            assert play_by_taps(page) == "give"
            no_sideways_scroll(page, "exchange")
    finally:
        context.close()


@pytest.mark.parametrize("view", VIEWS)
def test_phone_doudizhu_deal_by_taps_and_a_drag(browser, new_page, table_server, view):
    context = phone(browser, PHONES["360x740"], view)
    try:
        page = new_page(context)
        start_game(page, table_server, "Dou Dizhu", "Easy", rounds=5)
        no_sideways_scroll(page, "bidding")
        dragged = False
        landlord_checked = False
        for _ in range(MAX_DECISIONS):
            if wait_turn_or_dialog(page) == "dialog":
                dialog = result_dialog(page)
                no_sideways_scroll(page, "deal result")
                card = page.locator("#result .result-card").bounding_box()
                assert card["y"] >= 0 and card["y"] + card["height"] <= PHONES["360x740"][1] + 0.5, card
                expect(dialog.get_by_role("heading").first).to_be_in_viewport()
                for name in ("Next deal", "Replay deal", "Back to the lobby"):
                    button = dialog.get_by_role("button", name=name)
                    button.scroll_into_view_if_needed()
                    box = button.bounding_box()
                    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONES["360x740"][0], (name, box)
                if dragged:
                    break
                next_deal(page)
                continue
            no_sideways_scroll(page, "table")
            count = hand(page).get_by_role("button").count()
            if count == 20 and not landlord_checked:
                assert_hand_fits(page, 20)
                landlord_checked = True
            if not dragged and table(page).get_by_role("button", name="Play", exact=True).count():
                if table(page).get_by_role("button", name="Pass", exact=True).get_attribute("aria-disabled") == "true":
                    assert_hand_fits(page, count)
                    dragged = play_a_pair_by_drag(page)
                    if dragged:
                        continue
            play_by_taps(page)
        assert dragged, "no pair was ever played by a drag"
    finally:
        context.close()


LANDLORDS = {
    "landlord-20-360x740": ("360x740", 3, 20),
    "landlord-33-390x844": ("390x844", 4, 33),
    "landlord-33-360x740": ("360x740", 4, 33),
}


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("phone_name, players, cards", LANDLORDS.values(), ids=LANDLORDS.keys())
def test_phone_landlord_hand_fits(browser, new_page, table_server, phone_name, players, cards, view):
    """The Dou Dizhu landlord's hand: 20 cards, and 33 with four players (two packs), the
    largest hand of any game the table offers. A table where another seat bids 3 first is
    left for a new one."""
    context = phone(browser, PHONES[phone_name], view)
    try:
        page = new_page(context)
        for _ in range(12):
            start_game(page, table_server, "Dou Dizhu", "Easy", players=players, rounds=3)
            for _ in range(players + 1):
                if wait_turn_or_dialog(page) == "dialog":
                    break
                bids = table(page).get_by_role("button", name=re.compile(r"^Bid \d$"))
                if not bids.count():
                    break
                bids.last.tap()
                page.wait_for_timeout(100)
            if hand(page).get_by_role("button").count() == cards:
                assert_hand_fits(page, cards)
                no_sideways_scroll(page, "the landlord's table")
                return
        raise AssertionError("this seat never became the landlord")
    finally:
        context.close()


def test_phone_hot_seat_curtain_fits(browser, new_page, table_server):
    context = phone(browser, PHONES["360x740"])
    try:
        page = new_page(context)
        start_game(page, table_server, "Daifugo", "3 players on this device", players=3)
        curtain = page.get_by_role("dialog", name=re.compile(r"'s turn$"))
        expect(curtain).to_be_visible()
        no_sideways_scroll(page, "curtain")
        lift = curtain.get_by_role("button", name=re.compile(r"^I am "))
        box = lift.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONES["360x740"][0], box
        lift.tap()
        expect(curtain).to_be_hidden()
        no_sideways_scroll(page, "hot-seat table")
    finally:
        context.close()
