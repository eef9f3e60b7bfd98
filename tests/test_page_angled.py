"""The table's angled view (play/page/view.js): the felt, the pile and the other seats tilted back
in CSS 3D, the hand, the buttons and the labels not, and the "Angled" / "Top-down" toggle at
the table's top right. Both views play a whole Daifugo round; in the angled view every card,
the pile and the buttons are the element under their centre and a click there lands on them; the
choice survives a reload; a drag on the felt turns the table, never with reduced motion, and
never lifts a card; the toggle works from the keyboard. (The phone sizes in both views:
tests/test_page_phone.py.)"""

from __future__ import annotations

import re

import pytest

from page_helpers import (  # noqa: F401  (fixtures)
    VIEW_KEY,
    VIEWS,
    assert_focus_visible,
    browser,
    choose_view,
    expect,
    new_page,
    play_by_mouse,
    requires_browser,
    start_game,
    tab_to,
    table,
    table_server,
    wait_turn_or_dialog,
)
from test_page_daifugo import check_round_end, play_round
from test_page_phone import PHONES, STRIPS_JS, phone

pytestmark = requires_browser

#: A screen wide enough for the angled view to be the default (play/page/view.js NARROW_PX).
LAPTOP = {"width": 1280, "height": 800}
#: A drag on the felt, in px: far enough to turn the table to its limits.
DRAG_PX = (160, 90)
#: How far the aspect ratio of a label's box on screen may be from its own (perspective scales a
#: label that faces you evenly; a tilted one is squashed from top to bottom by ~10%).
ASPECT_TOLERANCE = 0.03

SURFACE_TRANSFORM = "() => getComputedStyle(document.getElementById('surface')).transform"
SURFACE_ANIMATIONS = "() => document.getElementById('surface').getAnimations().length"
#: How many transitions of the surface have begun since the first call (counted by the page, so
#: a short one is seen however late the test looks: a load-bound check of running animations
#: missed a 0.35 s spring-back).
SURFACE_TRANSITIONS = """() => {
  if (!('surfaceTransitions' in window)) {
    window.surfaceTransitions = 0;
    addEventListener('transitionrun', (e) => {
      if (e.target.id === 'surface') window.surfaceTransitions += 1;
    }, true);
  }
  return window.surfaceTransitions;
}"""
#: Resolves after two frames: whatever a change started has begun by then.
TWO_FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
#: Where the pointer lands at the centre of each element, and whether that is the element.
HITS_JS = """(selector) => [...document.querySelectorAll(selector)].map((e) => {
  const r = e.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { what: e.getAttribute('aria-label') || e.id || e.textContent, ok: !!hit && e.contains(hit),
           hit: hit ? hit.outerHTML.slice(0, 80) : null };
})"""
#: Each element's box on screen against its own size: a tilted one is squashed.
ASPECTS_JS = """(selector) => [...document.querySelectorAll(selector)].map((e) => {
  const r = e.getBoundingClientRect();
  return { what: e.textContent.slice(0, 30), drawn: r.width / r.height, own: e.offsetWidth / e.offsetHeight };
})"""
#: A point of the bare felt (no seat, no pile, not the near edge), a quarter in from the left
#: and a third down, as [x, y], after checking that the pointer there touches the surface.
FELT_POINT_JS = """() => {
  const b = document.getElementById('board').getBoundingClientRect();
  const x = b.left + b.width * 0.25, y = b.top + b.height * 0.3;
  const hit = document.elementFromPoint(x, y);
  const bare = !!hit && !!hit.closest('#surface') && !hit.closest('.seat, .center');
  return bare ? [x, y] : null;
}"""


def view_button(page, name: str):
    return page.get_by_role("group", name="Table view").get_by_role("button", name=name, exact=True)


def assert_view(page, view: str) -> None:
    """The toggle shows ``view`` pressed, and the surface is tilted (a 3D matrix) or flat."""
    angled = view == "angled"
    expect(view_button(page, "Angled")).to_have_attribute("aria-pressed", "true" if angled else "false")
    expect(view_button(page, "Top-down")).to_have_attribute("aria-pressed", "false" if angled else "true")
    if angled:
        page.wait_for_function(f"() => ({SURFACE_TRANSFORM})().startsWith('matrix3d(')")
    else:
        page.wait_for_function(f"() => ({SURFACE_TRANSFORM})() === 'none'")


def my_turn(page) -> None:
    assert wait_turn_or_dialog(page) == "turn"
    # the view has settled (no transition under way)
    page.wait_for_function(f"() => ({SURFACE_ANIMATIONS})() === 0")


#: turns passed at most while waiting for a turn with a card to play (a 4-player deal of 13
#: cards each meets one long before)
MAX_PASSES = 8


def my_turn_with_playable_cards(page, side_by_side: bool = False) -> list[dict]:
    """My turn with a card that can be played (two side by side in the hand, with
    ``side_by_side``); a turn where nothing of the hand beats the pile is passed. Returns the
    hand's strips (``STRIPS_JS``). Regression: the drag test met a deal whose first turn of
    ours had nothing that beat the pile, and failed looking for a card to click."""
    for _ in range(MAX_PASSES):
        my_turn(page)
        strips = page.evaluate(STRIPS_JS)
        free = {i for i, s in enumerate(strips) if "cannot be played" not in s["label"]}
        if free and (not side_by_side or any(i + 1 in free for i in free)):
            return strips
        table(page).get_by_role("button", name="Pass", exact=True).click()
    raise AssertionError(f"no turn with a card to play in {MAX_PASSES} turns")


def felt_point(page) -> tuple[float, float]:
    point = page.evaluate(FELT_POINT_JS)
    assert point, "no bare felt at the point the drags start from"
    return point[0], point[1]


def hand_buttons(page):
    return table(page).get_by_role("toolbar", name=re.compile(r"^Your hand")).get_by_role("button")


@pytest.mark.parametrize("view", VIEWS)
def test_whole_daifugo_round_in_each_view(browser, new_page, table_server, view):
    context = browser.new_context(viewport=LAPTOP)
    try:
        page = new_page(context)
        start_game(page, table_server, "Daifugo", "Easy", players=3, name="Ann")
        view_button(page, "Angled" if view == "angled" else "Top-down").click()
        assert_view(page, view)
        # every click of the round (play_by_mouse) lands on the card or button under it: the
        # browser's click checks that the element at the point is the one clicked
        done = play_round(page, play_by_mouse)
        assert done["play"] >= 1, done
        check_round_end(page)
        assert_view(page, view)
    finally:
        context.close()


def test_angled_clicks_land_on_the_card_under_the_pointer(browser, new_page, table_server):
    context = browser.new_context(viewport=LAPTOP)
    try:
        page = new_page(context)
        start_game(page, table_server, "Daifugo", "Easy", players=4, name="Ann")
        assert_view(page, "angled")  # the default on a wide screen
        my_turn_with_playable_cards(page)
        # the pile (on the tilted felt), the action buttons and the toggle: each is the element
        # under its centre
        for selector in ("#pile", "#actions button", ".view-toggle button"):
            hits = page.evaluate(HITS_JS, selector)
            assert hits and all(h["ok"] for h in hits), (selector, hits)
        # every card of the hand: the topmost element at the centre of the strip it shows is the
        # card, and a click there lifts that card and no other, a second lowers it
        cards = hand_buttons(page)
        count = cards.count()
        strips = page.evaluate(STRIPS_JS)
        assert len(strips) == count and count >= 13
        assert all(s["top"] and s["inside"] for s in strips), strips
        clicked = 0
        for k, strip in enumerate(strips):
            if "cannot be played" in strip["label"]:
                continue
            page.mouse.click(strip["x"], strip["y"])
            expect(cards.nth(k)).to_have_attribute("aria-pressed", "true")
            lifted = [b.get_attribute("aria-pressed") == "true" for b in cards.all()]
            assert lifted == [i == k for i in range(count)], (k, lifted)
            page.mouse.click(strip["x"], strip["y"])
            expect(cards.nth(k)).to_have_attribute("aria-pressed", "false")
            clicked += 1
        assert clicked, "no card could be played"
    finally:
        context.close()


def test_angled_tilts_the_felt_and_labels_face_the_player(browser, new_page, table_server):
    """The felt's box on screen is squashed (it leans back) in the angled view and not in the
    top-down view; the name tags on it are not squashed in either (they stand up facing you)."""
    context = browser.new_context(viewport=LAPTOP)
    try:
        page = new_page(context)
        start_game(page, table_server, "Daifugo", "Easy", players=4, name="Ann")
        for view in ("angled", "top-down"):
            view_button(page, "Angled" if view == "angled" else "Top-down").click()
            assert_view(page, view)
            my_turn(page)
            surface = page.evaluate(ASPECTS_JS, "#surface")[0]
            squash = surface["drawn"] / surface["own"] - 1
            assert (squash > ASPECT_TOLERANCE) == (view == "angled"), (view, surface)
            tags = page.evaluate(ASPECTS_JS, "#seats .tag")
            assert len(tags) == 3
            for tag in tags:
                assert abs(tag["drawn"] / tag["own"] - 1) < ASPECT_TOLERANCE, (view, tag)
    finally:
        context.close()


def test_view_choice_survives_a_reload_and_phones_open_top_down(browser, new_page, table_server):
    context = browser.new_context(viewport=LAPTOP)
    try:
        page = new_page(context)
        start_game(page, table_server, "Daifugo", "Easy", players=3, name="Ann")
        assert_view(page, "angled")
        for view, name in (("top-down", "Top-down"), ("angled", "Angled")):
            view_button(page, name).click()
            assert page.evaluate(f"() => localStorage.getItem('{VIEW_KEY}')") == view
            page.reload()  # the room link: the same seat, the same table
            expect(table(page).get_by_role("toolbar", name=re.compile(r"^Your hand"))).to_be_visible()
            assert_view(page, view)
    finally:
        context.close()
    # a phone with no choice made opens top-down; one that chose angled keeps it
    for view in (None, "angled"):
        context = phone(browser, PHONES["390x844"], view)
        try:
            page = new_page(context)
            start_game(page, table_server, "Daifugo", "Easy", players=3)
            assert_view(page, view or "top-down")
        finally:
            context.close()


#: Keeps the last pointer move the page dispatched (window, capture phase: it sees the moves
#: the board captured too) and whether the browser cancelled the pointer, so a test can wait
#: for the page to have seen a move.
WATCH_MOVES_JS = """() => {
  if (!('lastMove' in window)) {
    addEventListener('pointermove', (e) => { window.lastMove = [e.clientX, e.clientY]; }, true);
    addEventListener('pointercancel', () => { window.pointerCancelled = true; }, true);
  }
  window.lastMove = null;
  window.pointerCancelled = false;
}"""
#: Whether the page has dispatched a pointer move to [x, y] (within a pixel), or cancelled it.
MOVED_TO_JS = """([x, y]) => window.pointerCancelled || (!!window.lastMove
  && Math.abs(window.lastMove[0] - x) <= 1 && Math.abs(window.lastMove[1] - y) <= 1)"""


def drag(page, start: tuple[float, float], by: tuple[float, float]) -> str:
    """Presses on ``start``, moves by ``by`` and returns the surface's transform while still
    pressed, once the page has handled the last move (read earlier, it could miss moves not yet
    dispatched); then lets go. The browser must not cancel the pointer on the way (its own drag
    of selected words did: test_reduced_motion_no_turning_and_no_transition)."""
    x, y = start
    to = [x + by[0], y + by[1]]
    page.evaluate(WATCH_MOVES_JS)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(to[0], to[1], steps=8)
    page.wait_for_function(MOVED_TO_JS, arg=to)
    during = page.evaluate(SURFACE_TRANSFORM)
    page.mouse.up()
    assert not page.evaluate("() => window.pointerCancelled"), "the browser cancelled the drag"
    return during


def test_drag_on_the_felt_turns_the_table_and_lifts_no_card(browser, new_page, table_server):
    context = browser.new_context(viewport=LAPTOP)
    try:
        page = new_page(context)
        start_game(page, table_server, "Daifugo", "Easy", players=4, name="Ann")
        my_turn_with_playable_cards(page)
        resting = page.evaluate(SURFACE_TRANSFORM)
        assert resting.startswith("matrix3d(")
        transitions = page.evaluate(SURFACE_TRANSITIONS)
        during = drag(page, felt_point(page), DRAG_PX)
        assert during != resting, "the drag did not turn the table"
        # it springs back, with a transition
        page.wait_for_function(f"() => ({SURFACE_TRANSITIONS})() > {transitions}")
        page.wait_for_function(f"() => ({SURFACE_TRANSFORM})() === {resting!r}")
        # a drag from the felt across the hand lifts no card and presses no button; a click on a
        # card afterwards still lifts it
        cards = hand_buttons(page)
        strips = page.evaluate(STRIPS_JS)
        start = felt_point(page)
        drag(page, start, (strips[0]["x"] - start[0], strips[0]["y"] - start[1]))
        page.mouse.move(strips[-1]["x"], strips[-1]["y"])
        assert not [b for b in cards.all() if b.get_attribute("aria-pressed") == "true"]
        k = next(i for i, s in enumerate(strips) if "cannot be played" not in s["label"])
        page.mouse.click(strips[k]["x"], strips[k]["y"])
        expect(cards.nth(k)).to_have_attribute("aria-pressed", "true")
        page.mouse.click(strips[k]["x"], strips[k]["y"])
        expect(cards.nth(k)).to_have_attribute("aria-pressed", "false")
        # a drag that starts on a card is the hand's (it lifts the cards it crosses), not a turn
        # of the table
        during = drag(page, (strips[k]["x"], strips[k]["y"]), (0, -DRAG_PX[1]))
        assert during == resting, "a drag from a card turned the table"
        expect(cards.nth(k)).to_have_attribute("aria-pressed", "true")
    finally:
        context.close()


def test_drag_across_cards_lifts_them_in_the_angled_view(browser, new_page, table_server):
    """Regression: in the angled view a drag across the hand lifted only the card it began on,
    and turned the table: the press redraws the hand, the pressed element left the page, and the
    table no longer saw that the press had begun on a card."""
    context = browser.new_context(viewport=LAPTOP)
    try:
        page = new_page(context)
        start_game(page, table_server, "Daifugo", "Easy", players=4, name="Ann")
        strips = my_turn_with_playable_cards(page, side_by_side=True)
        resting = page.evaluate(SURFACE_TRANSFORM)
        cards = hand_buttons(page)
        free = [i for i, s in enumerate(strips) if "cannot be played" not in s["label"]]
        k = next(i for i in free if i + 1 in free)
        a, b = strips[k], strips[k + 1]
        during = drag(page, (a["x"], a["y"]), (b["x"] - a["x"], b["y"] - a["y"]))
        assert during == resting, "a drag across the hand turned the table"
        expect(cards.nth(k)).to_have_attribute("aria-pressed", "true")
        expect(cards.nth(k + 1)).to_have_attribute("aria-pressed", "true")
    finally:
        context.close()


def test_reduced_motion_no_turning_and_no_transition(browser, new_page, table_server):
    """With reduced motion a drag on the felt does not turn the table; motion allowed, it does.
    Regression: the still drag selected the seats' words, the next press picked them up for the
    browser's own drag, which cancelled the pointer, and the table sprang back mid-drag."""
    context = browser.new_context(viewport=LAPTOP, reduced_motion="reduce")
    try:
        page = new_page(context)
        start_game(page, table_server, "Daifugo", "Easy", players=4, name="Ann")
        my_turn(page)
        resting = page.evaluate(SURFACE_TRANSFORM)
        assert page.evaluate(SURFACE_TRANSITIONS) == 0
        assert resting.startswith("matrix3d(")  # the still tilt stays: it does not move
        assert drag(page, felt_point(page), DRAG_PX) == resting
        assert page.evaluate("() => getSelection().toString()") == "", "the drag selected words"
        assert page.evaluate(SURFACE_TRANSFORM) == resting
        assert page.evaluate(SURFACE_ANIMATIONS) == 0
        # a change of view is at once, no transition
        for name in ("Top-down", "Angled"):
            view_button(page, name).click()
            page.evaluate(TWO_FRAMES)
            assert page.evaluate(SURFACE_TRANSITIONS) == 0, name
        # the same drag with motion allowed does turn it, and springs back with a transition:
        # the checks above can fail
        page.emulate_media(reduced_motion="no-preference")
        page.wait_for_function("() => !matchMedia('(prefers-reduced-motion: reduce)').matches")
        assert drag(page, felt_point(page), DRAG_PX) != resting
        page.wait_for_function(f"() => ({SURFACE_TRANSITIONS})() > 0")
    finally:
        context.close()


def test_view_toggle_by_keyboard(browser, new_page, table_server):
    context = browser.new_context(viewport=LAPTOP)
    try:
        page = new_page(context)
        start_game(page, table_server, "Daifugo", "Easy", players=3, name="Ann")
        my_turn(page)
        top_down = view_button(page, "Top-down")
        tab_to(page, top_down)
        assert_focus_visible(page)
        page.keyboard.press("Enter")
        assert_view(page, "top-down")
        page.keyboard.press("Shift+Tab")
        expect(view_button(page, "Angled")).to_be_focused()
        page.keyboard.press("Space")
        assert_view(page, "angled")
    finally:
        context.close()
