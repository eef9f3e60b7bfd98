"""Seat privacy: every message the server sends over many whole matches of each game, checked
at the moment it is sent against the hands of the other seats and the deal codes."""

from __future__ import annotations

import random

import pytest
from starlette.testclient import TestClient

from table_helpers import PrivacyWatch, make_app, random_chooser
from climbrl.play.server.client import TableClient

MATCHES = [
    # game, players, mode, matches
    ("daifugo", 4, "cpu", 5),
    ("daifugo", 3, "cpu", 3),
    ("daifugo", 4, "local", 2),
    ("president", 4, "cpu", 2),
    ("president", 6, "cpu", 1),
    ("president", 8, "cpu", 1),
    ("president", 4, "local", 1),
    ("doudizhu", 3, "cpu", 4),
    ("doudizhu", 3, "local", 2),
]
VARIANT_MATCHES = [
    # game, players, mode, matches, rules: the open hand shows the landlord's cards, no others
    ("doudizhu", 3, "cpu", 2, {"rob": True, "open_hand": True}),
    ("doudizhu", 4, "cpu", 1, {}),
    ("doudizhu", 4, "local", 1, {"open_hand": True}),
    ("doudizhu", 3, "cpu", 1, {"laizi": True}),
]


def _probe(client: TableClient, state, rng: random.Random) -> None:
    """Now and then ask what the page asks: check a selection, ask for a hint."""
    if not client.my_turn(state) or state["v"] == client._acted or rng.random() > 0.15:
        return
    extra = {"seat": state["seat"]} if state["mode"] == "local" else {}
    hand = [c["id"] for c in state["hand"]]
    client.request({"type": "check", "cards": rng.sample(hand, min(len(hand), rng.randint(1, 3))), **extra},
                   "checked")
    client.request({"type": "hint", **extra}, "hint")


@pytest.mark.parametrize("game,players,mode,matches,rules",
                         [(*m, {}) for m in MATCHES] + VARIANT_MATCHES)
def test_no_frame_shows_another_seats_cards(tmp_path, monkeypatch, game, players, mode, matches,
                                            rules):
    watch = PrivacyWatch(monkeypatch)
    # a whole match's frames, checks and hints asked as fast as a program can: the work budget
    # (not what this test is about) refused a hint once on a busy machine
    app = make_app(tmp_path, work_per_s=10.0, work_burst_s=60.0)
    with TestClient(app) as tc:
        for m in range(matches):
            rng = random.Random(m)
            choose = random_chooser(m)
            with tc.websocket_connect("/ws") as ws:
                client = TableClient(ws)
                client.create(game=game, players=players, mode=mode, level="easy", pace_ms=0, rounds=3,
                              rules=rules)
                while True:
                    _probe(client, client.state, rng)
                    if not client.step(choose):
                        break
                assert client.state["match"]["over"]
    assert watch.messages > 100 * matches
    assert not watch.violations, watch.violations[:5]


def test_privacy_watch_catches_a_leak(tmp_path, monkeypatch):
    """The watcher itself: a frame that shows seat 1's hand to seat 0 is reported."""
    from climbrl.play.server import redact

    real = redact.frame

    def leaky(room, seats, revealed, events):
        out = real(room, seats, revealed, events)
        if room.table is not None and not room.table.over:
            out["spy"] = room.table.private(1)["hand"]
        return out

    watch = PrivacyWatch(monkeypatch)
    monkeypatch.setattr("climbrl.play.server.app.frame", leaky)
    with TestClient(make_app(tmp_path)) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        client.create(game="daifugo", mode="cpu", level="easy", pace_ms=0)
    assert watch.violations
