"""The table page plays the Dou Dizhu variants the lobby offers (its switches come from the
server's hello): each variant's own buttons and facts show, and a deal is played to the end
by a person pressing buttons."""

from __future__ import annotations

import re

from page_helpers import (  # noqa: F401  (fixtures)
    browser,
    controls,
    expect,
    new_page,
    requires_browser,
    result_dialog,
    start_game,
    table,
    table_server,
    wait_turn_or_dialog,
)

pytestmark = requires_browser

MAX_DECISIONS = 120


def play_out(page, on_turn) -> None:
    """Decisions until the deal's result card: ``on_turn(panel)`` first, then a hint's move."""
    panel = controls(page)
    for _ in range(MAX_DECISIONS):
        if wait_turn_or_dialog(page) == "dialog":
            return
        if on_turn(panel):
            continue
        panel.get_by_role("button", name="Hint").click()
        expect(table(page).get_by_role("status", name="Status line")).to_have_text(
            re.compile(r"^Hint \d+ of \d+: "))
        play = panel.get_by_role("button", name="Play", exact=True)
        if play.is_enabled():
            play.click()
        else:
            panel.get_by_role("button", name="Pass", exact=True).click()
    raise AssertionError(f"no result after {MAX_DECISIONS} decisions")


def test_rob_the_landlord(new_page, table_server):
    page = new_page()
    start_game(page, table_server, "Dou Dizhu", "Easy", rules={"Rob the landlord": True})
    seen = set()

    def bid(panel) -> bool:
        for name in ("Call", "Rob"):
            button = panel.get_by_role("button", name=name, exact=True)
            if button.count():
                seen.add(name)
                button.click()
                expect(button).to_have_count(0)  # the move went through
                return True
        return False

    play_out(page, bid)
    dialog = result_dialog(page)
    expect(dialog).to_be_visible()
    assert seen, "the bidding never offered Call or Rob"
    log = page.get_by_role("region", name="What happened")
    expect(log).to_contain_text(re.compile(r"called|robbed|passed"))
