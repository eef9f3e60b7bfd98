"""The table page with several people: players on one device behind a curtain, and friends
joining one room by its link (one leaves, the CPU takes the seat, they come back and play on).
"""

from __future__ import annotations

import json
import re
import time

from page_helpers import (  # noqa: F401  (fixtures)
    STEP_MS,
    browser,
    controls,
    expect,
    new_page,
    pick_and_start,
    play_by_mouse,
    region,
    requires_browser,
    start_game,
    table,
    table_server,
)

pytestmark = requires_browser

#: A short disconnect grace so the CPU takes a closed page's seat within a second.
SERVE_ARGS = ["--grace", "1"]


def hand_buttons(page):
    return table(page).get_by_role("toolbar", name=re.compile(r"^Your hand")).get_by_role("button")


def panel_cards(page):
    return controls(page).get_by_role("group", name="Your cards").get_by_role("button")


def record_frames(page) -> list[dict]:
    frames: list[dict] = []

    def on_socket(ws):
        ws.on("framereceived", lambda payload: frames.append(json.loads(payload)))

    page.on("websocket", on_socket)
    return frames


def test_hot_seat_curtain_hides_the_next_hand(new_page, table_server):
    page = new_page()
    frames = record_frames(page)
    start_game(page, table_server, "Daifugo", "3 players on this device", players=3)
    seen = set()
    for _ in range(4):  # four turn changes
        curtain = page.get_by_role("dialog", name=re.compile(r"^Player \d's turn$"))
        expect(curtain).to_be_visible()
        who = re.match(r"Player \d", curtain.get_by_role("heading").inner_text()).group(0)
        # behind the curtain no hand is in the page: no card buttons, no card ids, and the
        # server has not sent the hand either
        expect(hand_buttons(page)).to_have_count(0)
        expect(panel_cards(page)).to_have_count(0)
        assert "data-id=" not in page.content()
        last = [f for f in frames if f["type"] == "state"][-1]
        assert last["seat"] is None and not last.get("hand"), last.get("hand")
        assert last["curtain"]["name"] == who

        curtain.get_by_role("button", name=f"I am {who}: show my cards").click()
        expect(curtain).to_be_hidden()
        expect(hand_buttons(page).first).to_be_visible()
        expect(table(page).get_by_role("group", name=re.compile(rf"^{who}, \w+ seat"))).to_have_count(1)
        seen.add(who)
        # the same person may lead again (an eight cut clears the pile): no curtain then
        while not state_after(page, frames, last_state(frames)["v"], play_by_mouse).get("curtain"):
            pass
    assert len(seen) >= 2, seen


def last_state(frames: list[dict]) -> dict:
    return [f for f in frames if f["type"] == "state"][-1]


def state_after(page, frames: list[dict], v: int, act) -> dict:
    """``act(page)``, then the first state the server sends after version ``v``."""
    act(page)
    deadline = time.monotonic() + STEP_MS / 1000
    while time.monotonic() < deadline:
        later = [f for f in frames if f["type"] == "state" and f["v"] > v]
        if later:
            return later[0]
        page.wait_for_timeout(50)
    raise AssertionError(f"no state after version {v}")


def my_turn(page) -> bool:
    return controls(page).get_by_text(re.compile(r"^Your turn")).first.is_visible()


def step(page) -> None:
    """Whatever this person has to do now: close a round's result, or play."""
    dialog = page.get_by_role("dialog")
    if dialog.count() and dialog.first.is_visible():
        page.get_by_role("button", name=re.compile("Continue|New match")).first.click()
    elif my_turn(page):
        play_by_mouse(page)


def until(condition, pages, what: str, seconds: float = STEP_MS / 1000 * 4) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        for p in pages:
            step(p)
        pages[0].wait_for_timeout(50)


def test_a_room_link_shows_no_lobby_while_it_connects(new_page, table_server):
    """Regression: a room link showed the lobby until the connection opened, so a name typed
    then went into the lobby's "Your name" field and the person sat down as "Player 2"."""
    page = new_page()
    page.route_web_socket(re.compile(r"/ws$"), lambda ws: None)  # the server never answers
    page.goto(table_server + "/r/" + "A" * 20)
    expect(page.locator("#lobby")).to_be_hidden()
    expect(page.get_by_role("textbox", name="Your name")).to_have_count(0)


def test_the_lobby_takes_no_choice_before_the_server_answers(new_page, table_server):
    """Regression: the lobby's static options were live before the server's hello rebuilt them,
    so a deal count picked then went back to the default and a press of "Easy" did nothing (the
    Dou Dizhu page test then waited in the lobby for its turn). Until the hello, every option and
    button is disabled; after it, the picks hold and the game starts."""
    page = new_page()
    held: list = []
    sockets: list = []

    def hold_the_hello(ws):
        server = ws.connect_to_server()
        sockets.append(ws)
        server.on_message(lambda message: held.append(message) if held is not None else ws.send(message))

    page.route_web_socket(re.compile(r"/ws$"), hold_the_hello)
    page.goto(table_server + "/")
    easy = page.get_by_role("button", name="Easy", exact=True)
    deals = page.get_by_role("group", name=re.compile("Rounds|Deals"))
    deadline = time.monotonic() + STEP_MS / 1000
    while not held:
        assert time.monotonic() < deadline, "the server never said hello"
        page.wait_for_timeout(50)
    for control in (easy, page.get_by_role("radio", name=re.compile("Dou Dizhu")), deals.get_by_role("radio").first):
        expect(control).to_be_disabled()
    expect(page.locator("#lobby-form")).to_have_attribute("aria-busy", "true")

    for message in held:  # the hello, let through late
        sockets[0].send(message)
    held = None
    expect(easy).to_be_enabled()
    expect(page.locator("#lobby-form")).not_to_have_attribute("aria-busy", "true")
    pick_and_start(page, "Dou Dizhu", "Easy", rounds=3)
    expect(page.locator("#info-round")).to_have_text(re.compile(r"^Deal 1 of 3\b"))


def test_friends_join_by_link_cpu_takes_a_closed_seat_and_gives_it_back(browser, new_page, table_server):
    ann = new_page()
    start_game(ann, table_server, "Daifugo", "Play a friend (send a link)", players=3, name="Ann")
    link = ann.get_by_role("textbox", name="Room link")
    expect(link).to_have_value(re.compile(r"/r/[A-Za-z0-9_-]{16,}$"))
    url = link.input_value()

    bob_context = browser.new_context(viewport={"width": 1360, "height": 900})
    try:
        bob = new_page(bob_context)
        bob.goto(url)
        bob.get_by_role("textbox", name="Your name").fill("Bob")
        bob.get_by_role("button", name="Take a seat").click()
        expect(ann.get_by_role("list", name="Seats")).to_contain_text("Bob")
        ann.get_by_role("button", name="Fill empty seats with the computer").click()

        # both at one table, each with their own hand; Bob sees Ann's hand face down
        expect(hand_buttons(ann)).to_have_count(18)
        expect(hand_buttons(bob)).to_have_count(18)
        expect(table(bob).get_by_role("group", name=re.compile(r"^Ann, Red seat, \d+ cards"))).to_be_visible()
        expect(table(ann).get_by_role("group", name=re.compile(r"^Bob, Blue seat, \d+ cards"))).to_be_visible()

        # Bob closes the page: past the grace the computer plays his seat
        bob.close()
        ann_log = region(ann, "What happened")
        until(lambda: "Bob is away: the computer plays for them" in ann_log.inner_text(), [ann], "the CPU to take Bob's seat")
        before = len(re.findall(r"^Bob: ", ann_log.inner_text(), re.M))
        until(lambda: len(re.findall(r"^Bob: |^Bob passed", ann_log.inner_text(), re.M)) > before,
              [ann], "the CPU to play for Bob")

        # Bob comes back by the link (the page keeps his seat token) and plays on
        bob = new_page(bob_context)
        bob.goto(url)
        expect(table(bob).get_by_role("group", name=re.compile(r"^Bob \(you\), Blue seat"))).to_be_visible()
        expect(hand_buttons(bob).first).to_be_visible()
        bob_log = region(bob, "What happened")
        until(lambda: re.search(r"^You: |^You passed|^You gave", bob_log.inner_text(), re.M) is not None,
              [ann, bob], "Bob to play after coming back")
        expect(ann_log).to_contain_text("Bob is at the table")
    finally:
        bob_context.close()


def seat_token(page, room: str):
    return page.evaluate("room => localStorage.getItem(`climbrl.token.${room}`)", room)


def test_token_kept_when_the_connection_drops_during_the_join(new_page, table_server):
    """Regression: the page forgot a room's seat token on any failed join, a connection dropped
    during a brief fault included; after a reload the seat was lost for good (`room_full`).
    Now only `bad_token` forgets it, and the page joins again when the connection is back."""
    first = new_page()
    start_game(first, table_server, "Daifugo", "Easy")
    expect(first).to_have_url(re.compile(r"/r/[A-Za-z0-9_-]{16,}$"))
    url = first.url
    room = url.rsplit("/", 1)[1]
    token = seat_token(first, room)
    assert token

    page = new_page(first.context)
    first.close()
    sockets: list = []

    def drop_the_first_join(ws):
        sockets.append(ws)
        server = ws.connect_to_server()
        if len(sockets) > 1:
            return  # later connections pass through untouched

        def to_server(message):
            if json.loads(message).get("type") == "join":
                ws.close()
                server.close()
            else:
                server.send(message)

        ws.on_message(to_server)

    page.route_web_socket(re.compile(r"/ws$"), drop_the_first_join)
    page.goto(url)
    expect(hand_buttons(page).first).to_be_visible()
    expect(table(page).get_by_role("group", name=re.compile(r"^You, Red seat"))).to_be_visible()
    assert len(sockets) >= 2 and seat_token(page, room) == token


def test_token_forgotten_when_the_server_says_it_holds_no_seat(new_page, table_server):
    first = new_page()
    start_game(first, table_server, "Daifugo", "Easy")
    expect(first).to_have_url(re.compile(r"/r/[A-Za-z0-9_-]{16,}$"))
    url = first.url
    room = url.rsplit("/", 1)[1]
    page = new_page(first.context)
    first.close()
    page.add_init_script(f"localStorage.setItem('climbrl.token.{room}', 'not-a-token-of-this-room')")
    page.goto(url)
    # the catalog's text for the code bad_token (the server's English message is for API clients)
    expect(page.locator("#join-error")).to_have_text("That link no longer holds your seat; take a seat again.")
    # the init script sets it again on every load: read it without a reload
    assert seat_token(page, room) is None


def test_lobby_built_when_the_first_connection_attempt_fails(new_page, table_server):
    """Regression: when the page's first WebSocket failed, the reconnect succeeded but the
    lobby was never built (no rule switches, dead buttons) until a reload."""
    page = new_page()
    sockets: list = []

    def refuse_the_first(ws):
        sockets.append(ws)
        if len(sockets) == 1:
            ws.close()
            return
        ws.connect_to_server()

    page.route_web_socket(re.compile(r"/ws$"), refuse_the_first)
    page.goto(table_server + "/")
    pick_and_start(page, "Daifugo", "Easy")
    expect(hand_buttons(page).first).to_be_visible()
    assert len(sockets) >= 2
