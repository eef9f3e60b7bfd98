"""The table page with two decks (President, 6-8 players): two cards share each text, the
server's `moves` and `playable` name one copy, and the page must treat both copies alike
(docs/protocol.md: a selection matches a move by card text)."""

from __future__ import annotations

import re

from page_helpers import (  # noqa: F401  (fixtures)
    browser,
    expect,
    new_page,
    play_by_mouse,
    requires_browser,
    start_game,
    table,
    table_server,
    wait_turn_or_dialog,
)

pytestmark = requires_browser

#: Enough decisions for any 6-player round (17-18 cards each).
MAX_DECISIONS = 80
#: New matches to open before giving up on a hand with a twin that plays alone (each
#: 17- or 18-card hand of two decks holds a twin about three times in four).
MAX_MATCHES = 6
DIM = " (cannot be played now)"


def hand_cards(page):
    hand = table(page).get_by_role("toolbar", name=re.compile(r"^Your hand"))
    return hand.get_by_role("button")


def twins(page) -> list[tuple[int, int]]:
    """(index, index) of the two copies of each card text held twice."""
    labels = hand_cards(page).evaluate_all("bs => bs.map(b => b.getAttribute('aria-label'))")
    seen: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        seen.setdefault(re.sub(r" \(.*\)$", "", label), []).append(i)
    return [(v[0], v[1]) for v in seen.values() if len(v) == 2]


def lifts_to_play(page, card) -> bool:
    """Lifts ``card`` alone and says whether Play can be pressed; leaves it lifted."""
    play = table(page).get_by_role("button", name="Play", exact=True)
    card.click()
    expect(card).to_have_attribute("aria-pressed", "true")
    return play.is_enabled()


def play_second_copy(page) -> bool:
    """On our turn: both copies of each twin are dimmed alike and make the same play alone;
    plays the second copy of the first twin that plays alone. False when none does."""
    cards = hand_cards(page)
    for a, b in twins(page):
        first, second = cards.nth(a), cards.nth(b)
        label = first.get_attribute("aria-label")
        assert first.get_attribute("aria-disabled") == second.get_attribute("aria-disabled"), (
            f"one copy of {label} is dimmed and the other is not")
        if label.endswith(DIM):
            continue
        alone = lifts_to_play(page, first)
        first.click()
        expect(first).to_have_attribute("aria-pressed", "false")
        assert lifts_to_play(page, second) == alone, f"the two copies of {label} make different plays"
        if not alone:
            second.click()
            continue
        left = cards.count() - 1
        table(page).get_by_role("button", name="Play", exact=True).click()
        # accepted: the hand is one card shorter (or empty, or the round is over)
        shorter = table(page).get_by_role("toolbar", name=re.compile(rf"^Your hand(, {left} cards| \(no cards shown\))$"))
        expect(shorter.or_(page.get_by_role("dialog")).first).to_be_visible()
        return True
    return False


def test_second_copy_of_a_card_plays_in_two_deck_president(new_page, table_server):
    page = new_page()
    for _ in range(MAX_MATCHES):
        start_game(page, table_server, "President", "Easy", players=6, name="Ann")
        expect(table(page).get_by_role("toolbar", name=re.compile(r"^Your hand, 1[78] cards$"))).to_be_visible()
        for _ in range(MAX_DECISIONS):
            if wait_turn_or_dialog(page) == "dialog":
                break
            if play_second_copy(page):
                return
            play_by_mouse(page)
    raise AssertionError(f"no hand in {MAX_MATCHES} matches held a twin that plays alone")
