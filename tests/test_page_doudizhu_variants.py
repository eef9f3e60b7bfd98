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
    next_deal,
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
        status = table(page).get_by_role("status", name="Status line")
        expect(status).to_have_text(re.compile(r"^Hint \d+ of \d+: "))
        hinted = re.match(r"^Hint \d+ of \d+: (.*) · playable$", status.inner_text())
        if hinted is None:  # the hint is to pass
            panel.get_by_role("button", name="Pass", exact=True).click()
            continue
        # the hinted cards may read as several moves (a wild card standing for different
        # ranks): then the panel offers one "Play <move>" button each instead of "Play", and
        # readings of one shape name their cards ("Play Airplane + singles: 3334445556A2")
        play = panel.get_by_role("button", name="Play", exact=True)
        several = panel.get_by_role(
            "button", name=re.compile(rf"^Play {re.escape(hinted.group(1))}(: \S+)?$"))
        expect(play.or_(several).first).to_be_enabled()
        names = [b.inner_text() for b in several.all()]
        assert len(set(names)) == len(names), names  # a person can tell every button apart
        (play if play.count() else several.first).click()
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


def test_open_hand(new_page, table_server):
    page = new_page()
    start_game(page, table_server, "Dou Dizhu", "Easy", rounds=3, rules={"Open hand": True})
    shown = []

    def bid_and_show(panel) -> bool:
        bid = panel.get_by_role("button", name="Bid 3", exact=True)
        if bid.count():
            bid.click()
            expect(bid).to_have_count(0)
            return True
        show = panel.get_by_role("button", name="Show my hand (×2)", exact=True)
        if show.count():
            assert panel.get_by_role("button", name="Keep it hidden", exact=True).count()
            show.click()
            # every seat's table shows the landlord's cards now; the round box counts the x2
            expect(table(page).get_by_text(re.compile(r": hand shown$"))).to_be_visible()
            expect(page.get_by_role("status", name="Round")).to_have_text(re.compile(r"10 × 3 × 2 = 60"))
            shown.append(True)
            return True
        return False

    for _deal in range(4):
        play_out(page, bid_and_show)
        if shown:
            break
        next_deal(page)  # regression: after the third deal the card says "New match"
    assert shown, "four deals went by without this seat being landlord"
    expect(result_dialog(page).get_by_text(re.compile(r"Hand shown: ×2"))).to_be_visible()


def test_four_players(new_page, table_server):
    page = new_page()
    start_game(page, table_server, "Dou Dizhu", "Easy", players=4)
    assert wait_turn_or_dialog(page) == "turn"
    hand = table(page).get_by_role("toolbar", name=re.compile(r"^Your hand"))
    if page.get_by_role("img", name="8 cards face down").count():  # still bidding
        expect(hand.get_by_role("button")).to_have_count(25)

    def bid(panel) -> bool:
        for name in ("Bid 3", "Don't bid"):
            button = panel.get_by_role("button", name=name, exact=True)
            if button.count():
                button.click()
                expect(button).to_have_count(0)
                return True
        return False

    play_out(page, bid)
    dialog = result_dialog(page)
    expect(dialog).to_be_visible()
    # four hands on the result card (three peasants)
    expect(dialog.get_by_role("row")).to_have_count(1 + 4)


def test_laizi(new_page, table_server):
    page = new_page()
    start_game(page, table_server, "Dou Dizhu", "Easy", rules={"Laizi": True})
    # the wild rank shows on the table, and its cards are marked in the hand
    badge = table(page).get_by_role("status", name=re.compile(r"^Wild cards: the \w+s$"))
    expect(badge).to_be_visible()
    rank = badge.get_attribute("aria-label").split("the ")[1][:-1]
    hand = table(page).get_by_role("toolbar", name=re.compile(r"^Your hand"))
    wild = hand.get_by_role("button", name=re.compile(r"\(wild\)"))
    for label in (b.get_attribute("aria-label") for b in wild.all()):
        assert label.startswith(("10" if rank == "10" else rank) + " ") or rank in label

    def bid(panel) -> bool:
        for name in ("Bid 3", "Don't bid"):
            button = panel.get_by_role("button", name=name, exact=True)
            if button.count():
                button.click()
                expect(button).to_have_count(0)
                return True
        return False

    play_out(page, bid)
    expect(result_dialog(page)).to_be_visible()
