"""The table page plays a whole Daifugo round against CPUs: once with the mouse on the table,
once with the keyboard alone in the "Button controls" panel with the table graphics off."""

from __future__ import annotations

import re

import pytest

from page_helpers import (  # noqa: F401  (fixtures)
    FrameRelay,
    browser,
    controls,
    expect,
    new_page,
    play_by_keyboard,
    play_by_mouse,
    requires_browser,
    start_game,
    tab_to,
    table,
    table_server,
    wait_turn_or_dialog,
)

pytestmark = requires_browser

#: Enough decisions for any 3-player round (18 cards each).
MAX_DECISIONS = 120


def play_round(page, decide) -> dict[str, int]:
    done = {"play": 0, "pass": 0, "give": 0}
    for _ in range(MAX_DECISIONS):
        if wait_turn_or_dialog(page) == "dialog":
            return done
        done[decide(page)] += 1
    raise AssertionError(f"the round did not end within {MAX_DECISIONS} decisions: {done}")


def check_round_end(page) -> None:
    dialog = page.get_by_role("dialog", name="Round 1 is over")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_text(re.compile(r"^You finished (1st|2nd|3rd)"))).to_be_visible()
    expect(dialog.get_by_text(re.compile(r"wins? the round"))).to_be_visible()
    expect(dialog.get_by_role("table")).to_contain_text("Millionaire")


def test_whole_daifugo_round_by_mouse(new_page, table_server):
    page = new_page()
    start_game(page, table_server, "Daifugo", "Easy", players=3, name="Ann")
    board = table(page)
    expect(board.get_by_role("toolbar", name="Your hand, 18 cards")).to_be_visible()
    # the other hands lie face down: only counts, never cards
    expect(board.get_by_role("group", name=re.compile(r"^CPU 1, Blue seat, \d+ cards"))).to_be_visible()
    done = play_round(page, play_by_mouse)
    assert done["play"] >= 1, done
    check_round_end(page)
    place = int(re.search(r"You finished (\d)", page.get_by_role("dialog").inner_text()).group(1))
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_role("dialog")).to_have_count(0)
    # the ranking of the round is in the side panel
    expect(page.get_by_role("table", name="Ranking of each round")).to_contain_text("1st")

    # round 2 opens with the exchange (3 players): the Poor's best card goes to the
    # Millionaire, who chooses one card and presses "Give"; the Commoner is left out
    log = page.get_by_role("region", name="What happened")
    expect(log).to_contain_text("Round 2 begins")
    if place == 1:
        assert wait_turn_or_dialog(page) == "turn"
        expect(controls(page).get_by_text("Your turn: choose 1 card to give back.")).to_be_visible()
        assert play_by_mouse(page) == "give"
    if place in (1, 3):
        expect(log).to_contain_text(re.compile(r"You gave \S+ to CPU \d"))
        expect(log).to_contain_text(re.compile(r"You received \S+ from CPU \d"))
    else:
        expect(log).to_contain_text("CPU")
        assert "You gave" not in log.inner_text()


def test_whole_daifugo_round_by_keyboard_alone(new_page, table_server):
    """Regression: on a loaded machine a frame arrived between two presses of Space on a card
    and the panel was drawn again, its button replaced: the second press was lost and the card
    stayed lifted. Here a frame is forced between key down and key up of every press."""
    page = new_page()
    relay = FrameRelay(page)
    page.goto(table_server + "/")
    # the table graphics off: the button controls alone must do
    tab_to(page, page.get_by_role("button", name="Settings"))
    page.keyboard.press("Enter")
    graphics = page.get_by_role("checkbox", name="Show the table graphics")
    expect(graphics).to_be_focused()
    page.keyboard.press("Space")
    expect(graphics).not_to_be_checked()
    tab_to(page, page.get_by_role("button", name="Done"))
    page.keyboard.press("Enter")
    # the lobby: 3 players, instant computer, Easy
    players = page.get_by_role("group", name="Players")
    tab_to(page, players.get_by_role("radio", name="4", exact=True))
    page.keyboard.press("ArrowLeft")
    expect(players.get_by_role("radio", name="3", exact=True)).to_be_checked()
    tab_to(page, page.get_by_label("How fast the computer plays"))
    page.keyboard.press("End")
    expect(page.get_by_label("How fast the computer plays")).to_have_value("0")
    tab_to(page, page.get_by_role("button", name="Easy", exact=True))
    page.keyboard.press("Enter")

    expect(controls(page).get_by_role("group", name="Your cards").get_by_role("button")).to_have_count(18)
    expect(table(page)).to_be_hidden()
    done = play_round(page, lambda p: play_by_keyboard(p, between=relay.again))
    assert done["play"] >= 1, done
    check_round_end(page)
    expect(page.get_by_role("button", name="Continue")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog")).to_have_count(0)
