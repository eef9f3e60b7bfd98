"""What the page is told: move lists, checks of lifted cards, events of set-up positions
(cases as data), and Dou Dizhu's bid advice, hints, undo, replay deal, counter and round box."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from starlette.testclient import TestClient

from table_helpers import make_app, random_chooser
from climbrl.play.server.client import ServerError, TableClient
from climbrl.play.server.daifugo import DaifugoTable


def _table(hands, leader=0, **rules):
    table = DaifugoTable("daifugo", len(hands), 3, rules, seed=1)
    table.state = table.engine.new_state(np.random.default_rng(0), {"hands": hands, "leader": leader})
    return table


def _ids(table, seat, texts):
    hand = table.private(seat)["hand"]
    out = []
    for text in texts.split():
        out.append(next(c["id"] for c in hand if c["text"] == text and c["id"] not in out))
    return out


def _play(table, seat, text):
    return [e.public for e in table.apply(seat, table.engine.action_from_str(text))]


# hands, plays before the one checked as (seat, move), the play, the events expected (types,
# with fields), reasoning in the comment
EVENT_CASES = [
    # an 8 clears the pile and its player leads again
    (["8s 3h", "9s 4h", "Ts 5h", "Js 6h"], {}, [], (0, "8s"),
     [("play", {"seat": 0}), ("eight_cut", {"seat": 0}), ("clear", {"leader": 0})]),
    # four of a number: revolution
    (["5s 5h 5d 5c 3h", "9s 4h", "Ts 6h", "Js 7h"], {}, [], (0, "5s 5h 5d 5c"),
     [("play", {}), ("revolution", {"on": True})]),
    # a spade after a spade locks the pile to spades
    (["3s 4h 9c", "5s 6h 9d", "Ts 7h", "Qs 8h"], {}, [(0, "3s")], (1, "5s"),
     [("play", {"seat": 1}), ("lock", {"suits": "s"})]),
    # the 3 of spades beats a single joker and clears the pile
    (["JK 4h", "3s 6h", "Ts 7h", "Qs 8h"], {}, [(0, "JK")], (1, "3s"),
     [("play", {"seat": 1}), ("spade_three", {"seat": 1}), ("clear", {"leader": 1})]),
    # a jack reverses the order until the pile clears
    (["Js 4h", "3s 6h", "Ts 7h", "Qs 8h"], {}, [], (0, "Js"),
     [("play", {}), ("jack_back", {"on": True})]),
    # finishing on a 2 with the illegal finish on: ranked from the bottom
    (["2s", "3h 4h", "5h 6h", "7h 9h"], {"illegal_finish": True}, [], (0, "2s"),
     [("play", {}), ("finish", {"seat": 0, "place": 3, "illegal": True, "title": "Very Poor"})]),
    # the same finish without the rule: first place
    (["2s", "3h 4h", "5h 6h", "7h 9h"], {}, [], (0, "2s"),
     [("play", {}), ("finish", {"seat": 0, "place": 0, "illegal": False})]),
    # three passes after a play: the pile clears for the player who made it
    (["9s 4h", "3s 6h", "Ts 7h", "Qs 8h"], {"lock": False}, [(0, "9s"), (1, "pass"), (2, "pass")], (3, "pass"),
     [("pass", {"seat": 3}), ("clear", {"leader": 0})]),
]


@pytest.mark.parametrize("hands,rules,before,play,expected", EVENT_CASES)
def test_events_of_set_up_positions(hands, rules, before, play, expected):
    table = _table(hands, **rules)
    for seat, text in before:
        _play(table, seat, text)
    events = _play(table, *play)
    assert [e["type"] for e in events] == [t for t, _ in expected]
    for event, (_, fields) in zip(events, expected):
        for key, value in fields.items():
            assert event[key] == value, (event, key)


def test_check_names_the_shape_and_every_reading_of_a_joker():
    table = _table(["4s 5s JK 9d 7s 7h", "3h 4h", "5h 6h", "7d 9h"])
    both = table.check(0, _ids(table, 0, "4s 5s JK"))
    assert both["playable"]
    assert [a["label"] for a in both["actions"]] == ["run 3-5 of spades (joker as 3s)",
                                                      "run 4-6 of spades (joker as 6s)"]
    pair = table.check(0, _ids(table, 0, "7s 7h"))
    assert pair["status"] == "pair of 7s · playable"
    nothing = table.check(0, _ids(table, 0, "7s 9d"))
    assert not nothing["playable"] and nothing["label"] is None and "no play" in nothing["reason"]
    assert "not your turn" in table.check(1, _ids(table, 1, "3h"))["reason"]
    assert "not in your hand" in table.check(0, [_ids(table, 1, "3h")[0]])["reason"]


def test_check_says_why_a_play_does_not_beat_the_pile():
    table = _table(["9s 4h", "3s 5s 6h", "Ts 7h", "Qs 8h"], lock=False)
    _play(table, 0, "9s")
    low = table.check(1, _ids(table, 1, "5s"))
    assert not low["playable"] and low["label"] == "single 5" and "does not beat" in low["reason"]
    shape = table.check(1, _ids(table, 1, "3s 5s"))
    assert not shape["playable"] and "no play" in shape["reason"]


def test_moves_list_cards_from_the_hand_and_what_can_be_played():
    table = _table(["3s 3h 8d JK", "4h 5h", "6h 7h", "9h Th"])
    private = table.private(0)
    hand = {c["id"] for c in private["hand"]}
    assert private["can_pass"] is False  # the leader cannot pass
    for move in private["moves"]:
        assert set(move["cards"]) <= hand and move["label"] and not move["any_suit"]
    assert set(private["playable"]) == hand
    assert table.private(1)["moves"] is None  # not seat 1's turn


@contextlib.contextmanager
def _doudizhu(tmp_path, **settings):
    with TestClient(make_app(tmp_path)) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        client.create(game="doudizhu", mode="cpu", level="easy", pace_ms=0, rounds=7, **settings)
        yield client


def test_doudizhu_bidding_advice_only_for_the_bidder(tmp_path):
    with _doudizhu(tmp_path) as client:
        for f in client.frames:
            if f.get("type") == "state" and f["phase"] == "bidding":
                advice = f["doudizhu"]["advice"]
                if f["your_turn"]:
                    assert "high card" in advice and "->" in advice
                else:
                    assert advice is None
        st = client.until(lambda s: s["phase"] == "play" or client.my_turn(s))
        assert st["doudizhu"]["round_box"]["points"] == 10 * st["doudizhu"]["round_box"]["bid"] * \
            st["doudizhu"]["round_box"]["multiplier"]


def test_doudizhu_hints_undo_replay_counter(tmp_path):
    with _doudizhu(tmp_path, counter=False) as client:
        choose = random_chooser(3)
        # play until our first decision of the play phase
        while not (client.my_turn() and client.state["phase"] == "play" and client.state["v"] != client._acted):
            assert client.step(choose), "seven deals without a decision of ours"
        st = client.state
        assert st["doudizhu"]["counter"] is None
        hints = [client.hint() for _ in range(3)]
        assert len({h["action"] for h in hints}) == min(3, hints[0]["of"])
        # the cycle wraps: with fewer than three legal moves the index starts again at 0 (the
        # first version expected 0, 1, 2 always and failed on a deal with one legal move)
        assert [h["index"] for h in hints] == [i % hints[0]["of"] for i in range(3)]
        # the hint answers with the count, and sends no frame of the whole table
        assert [h["hints_used"] for h in hints] == [1, 2, 3]
        # counter on: unseen cards per rank, highest first
        on = client.request({"type": "settings", "counter": True}, "state")
        counter = on["doudizhu"]["counter"]
        assert list(counter)[:3] == ["R", "B", "2"] and len(counter) == 15
        played = sum(len(e["cards"]) for f in client.frames if f.get("type") == "state"
                     for e in f["events"] if e["type"] == "play")
        assert sum(counter.values()) == 54 - len(on["hand"]) - played
        # undo: back to this decision after a move of ours (and the CPUs' replies)
        hand_before = [c["id"] for c in on["hand"]]
        move = on["moves"][-1]
        client.request({"type": "move", "action": move["action"]}, "state")
        back = client.request({"type": "undo"}, "state")
        assert [c["id"] for c in back["hand"]] == hand_before
        assert back["your_turn"] and back["doudizhu"]["undos"] == 1
        # play the deal out, then replay it: the same cards, not scored
        while not client.state.get("result"):
            client.step(choose, next_deals=False)
        first = client.state["result"]
        assert first["undos"] == 1 and first["scored"] and first["deal_code"]
        scores = client.state["match"]["scores"]
        client.request({"type": "replay"}, "state")
        while not client.state.get("result"):
            client.step(choose, next_deals=False)
        again = client.state["result"]
        assert again["deal_code"] == first["deal_code"] and again["scored"] is False
        assert client.state["match"]["scores"] == scores
        with pytest.raises(ServerError):
            client.request({"type": "undo"}, "state")  # the deal is over


def test_doudizhu_check_status_line(tmp_path):
    with _doudizhu(tmp_path) as client:
        choose = random_chooser(4)

        def playing(s):  # our decision in the play phase, with a play among the moves
            return (client.my_turn(s) and s["phase"] == "play" and s["v"] != client._acted
                    and any(m["shape"] != "pass" for m in s["moves"]))

        while not playing(client.state):
            assert client.step(choose), "seven deals without a play of ours"
        st = client.state
        move = next(m for m in st["moves"] if m["shape"] != "pass")
        ok = client.check(move["cards"])
        assert ok["playable"] and ok["status"] == f"{move['label']} · playable"
        hand = st["hand"]
        ranks = {}
        for c in hand:
            ranks.setdefault(c["rank"], []).append(c["id"])
        singles = [ids[0] for r, ids in ranks.items() if r not in ("B", "R")][:2]
        if len(singles) == 2:
            bad = client.check(singles)
            assert not bad["playable"] and bad["reason"]


def test_a_cpu_past_its_thinking_limit_plays_a_random_legal_move(tmp_path, monkeypatch):
    """A CPU that thinks too long is abandoned; the room goes on with a legal move."""
    import time as clock

    from climbrl.play.server import cpu

    real = cpu.think

    def slow(job):
        clock.sleep(0.5)
        return real(job)

    monkeypatch.setattr(cpu, "think", slow)
    with TestClient(make_app(tmp_path, think_s=0.05)) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        client.create(game="daifugo", players=3, mode="cpu", level="medium", pace_ms=0)
        moved = 0
        while moved < 3:
            client.step(random_chooser(6))
            moved = sum(1 for f in client.frames if f.get("type") == "state" for e in f["events"]
                        if e["type"] in ("play", "pass") and e["seat"] != 0)


@pytest.mark.parametrize("players, rules", [(3, {"rob": True}), (3, {"open_hand": True}),
                                            (4, {}), (4, {"rob": True, "open_hand": True}),
                                            (3, {"laizi": True})])
def test_doudizhu_variant_rooms_play_whole_deals(tmp_path, players, rules):
    """A room with a variant switched on (the lobby's switches come from the hello): the
    bidding buttons and events name the variant's moves, and deals are played to the end."""
    with TestClient(make_app(tmp_path)) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        hello = client.frames[0]
        offered = {r["name"] for r in hello["games"]["doudizhu"]["rules"]}
        assert set(rules) <= offered and players in hello["games"]["doudizhu"]["players"]
        client.create(game="doudizhu", mode="cpu", level="easy", pace_ms=0, rounds=3,
                      players=players, rules=rules)
        st = client.state
        assert len(st["seats"]) == players and len(st["hand"]) == {3: 17, 4: 25}[players]
        assert st["doudizhu"]["kitty_size"] == {3: 3, 4: 8}[players]
        assert (st["doudizhu"]["wild"] is not None) == bool(rules.get("laizi"))
        choose = random_chooser(5)
        bids = set()
        while not client.state.get("result"):
            st = client.state
            if client.my_turn(st) and st["phase"] == "bidding":
                bids |= {m["label"] for m in st["moves"]}
            client.step(choose, next_deals=False)
        result = client.state["result"]
        said = {e.get("said") for f in client.frames if f.get("type") == "state"
                for e in f["events"] if e["type"] == "bid"}
        if rules.get("rob"):
            assert bids and bids <= {"Call", "No call", "Rob", "No rob"}
            assert said <= {"called", "robbed", "passed"}
            if result["outcome"] != "no bid":
                robs = [m for m in result["multipliers"] if m["name"] == "rob"]
                assert len(robs) == result["robs"]
        if rules.get("laizi"):
            # every play took cards of the ranks it gives: its own, then wild cards
            wild = client.state["doudizhu"]["wild"]
            for e in (e for f in client.frames if f.get("type") == "state"
                      for e in f["events"] if e["type"] == "play"):
                lacking = sum(max(e["text"].count(r) - [c["rank"] for c in e["cards"]].count(r), 0)
                              for r in "3456789TJQKA2" if r != wild)
                assert [c["rank"] for c in e["cards"]].count(wild) >= lacking
        if rules.get("open_hand") and result["outcome"] != "no bid":
            shows = [e for f in client.frames if f.get("type") == "state"
                     for e in f["events"] if e["type"] == "show"]
            assert len(shows) == 1 and result["shown"] == shows[0]["shown"]
            assert any(m["name"] == "shown" for m in result["multipliers"]) == result["shown"]
        assert client.state["rules"] == rules
        if result["outcome"] != "no bid":
            lord = result["landlord"]
            assert result["points"][lord] == -(players - 1) * result["points"][lord - 1]
