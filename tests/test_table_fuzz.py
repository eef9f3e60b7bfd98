"""Bad input: a hypothesis fuzz of malformed and hostile messages (each answered, the server
stays up and the room goes on), the size and rate limits, guessed and foreign tokens."""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from table_helpers import make_app
from climbrl.play.server import protocol
from climbrl.play.server.client import ServerError, TableClient

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20,
)
FIELDS = sorted({f for schema in protocol.SCHEMAS.values() for f in schema} | {"id", "x"})
TYPES = sorted(protocol.SCHEMAS) + ["", "hello", "state", "Move"]


@st.composite
def messages(draw):
    kind = draw(st.sampled_from(("text", "json", "typed", "typed", "typed")))
    if kind == "text":
        return draw(st.text(max_size=60))
    if kind == "json":
        return json.dumps(draw(JSON))
    msg = {"type": draw(st.sampled_from(TYPES))}
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=4)):
        msg[field] = draw(JSON | st.integers(-5, 400) | st.lists(st.integers(-3, 120), max_size=6))
    if msg["type"] == "create":  # keep the fuzzing inside the first room
        msg["game"] = draw(st.sampled_from(("daifugo", "chess", None, 3)))
        msg["mode"] = "bogus"
    if msg["type"] == "leave":
        msg["type"] = "ping"
    return json.dumps(msg)


def _pong(client: TableClient, marker: str) -> list[dict]:
    """Everything received up to the pong of ``marker``."""
    client.send_raw(json.dumps({"type": "ping", "id": marker}))
    got = []
    while True:
        m = client.receive()
        got.append(m)
        if m.get("type") == "pong" and m.get("re") == marker:
            return got


def test_fuzzed_messages_get_errors_and_the_server_stays_up(tmp_path, caplog):
    caplog.set_level(logging.ERROR, logger="climbrl.table")
    with TestClient(make_app(tmp_path)) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws, record=False)
        client.create(game="daifugo", mode="cpu", level="easy", pace_ms=0)
        room = client.room
        count = [0]

        @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
        @given(raw=messages())
        def run(raw):
            count[0] += 1
            client.send_raw(raw)
            got = _pong(client, f"p{count[0]}")
            try:
                msg = json.loads(raw)
            except ValueError:
                msg = None
            if not isinstance(msg, dict) or msg.get("type") not in protocol.SCHEMAS:
                assert any(m["type"] == "error" and m["code"] in ("bad_json", "bad_message") for m in got), got
            for m in got:
                assert m["type"] in ("error", "state", "joined", "checked", "hint", "pong")

        run()
        assert client.room == room
        # the room goes on: the match can still be played to its end
        final = client.play_match(lambda s: s["moves"][0]["action"])
        assert final["match"]["over"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_size_limit_and_rate_limit(tmp_path):
    with TestClient(make_app(tmp_path, rate=5, burst=5)) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        client.send_raw(json.dumps({"type": "ping", "pad": "x" * protocol.MAX_MESSAGE_BYTES}))
        assert client.receive()["code"] == "too_big"
        for i in range(20):
            client.send_raw(json.dumps({"type": "ping", "id": i}))
        codes = [client.receive().get("code") for _ in range(20)]
        assert "rate_limited" in codes


def test_a_flood_closes_the_connection(tmp_path):
    from starlette.websockets import WebSocketDisconnect

    with TestClient(make_app(tmp_path, rate=1, burst=1)) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        with pytest.raises(WebSocketDisconnect) as err:
            for _ in range(protocol.MAX_OVERRUN + 50):
                client.send_raw("{}")
            while True:
                client.receive()
        assert err.value.code == 1008


def test_moves_out_of_turn_illegal_and_stale_change_nothing(tmp_path):
    with TestClient(make_app(tmp_path)) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        client.create(game="doudizhu", mode="cpu", level="easy", pace_ms=0)
        st = client.until(lambda s: client.my_turn(s))
        legal = {m["action"] for m in st["moves"]}
        bad = next(a for a in range(400) if a not in legal)
        for message, code in (
            ({"type": "move", "action": bad}, "illegal"),
            ({"type": "move", "action": -1}, "illegal"),
            ({"type": "move", "action": min(legal), "v": st["v"] - 1}, "stale"),
            ({"type": "move", "action": min(legal), "seat": 2}, "not_allowed"),
            ({"type": "undo"}, "no_undo"),  # no decision of this person yet
            ({"type": "replay"}, "not_allowed"),
            ({"type": "reveal", "seat": 0}, "not_allowed"),
            ({"type": "fill"}, "not_allowed"),
        ):
            with pytest.raises(ServerError) as err:
                client.request(message, "state")
            assert err.value.code == code, message
        assert client.request({"type": "ping"}, "pong")
        again = client.request({"type": "check", "cards": []}, "checked")
        assert again["playable"] is False


def test_guessed_and_foreign_tokens(tmp_path):
    with TestClient(make_app(tmp_path)) as tc:
        with tc.websocket_connect("/ws") as ws1, tc.websocket_connect("/ws") as ws2:
            a = TableClient(ws1)
            b = TableClient(ws2)
            a.create(game="daifugo", mode="cpu", level="easy", pace_ms=0)
            b.create(game="daifugo", mode="cpu", level="easy", pace_ms=0)
            for room, token, code in (
                (a.room, b.token, "bad_token"),          # a token of another room
                (a.room, "guess" * 8, "bad_token"),
                ("A" * 22, a.token, "no_room"),           # no such room
                ("../../etc", a.token, "no_room"),        # not a room id at all
            ):
                with _connection(tc) as c:
                    with pytest.raises(ServerError) as err:
                        c.join(room, token=token)
                    assert err.value.code == code
            with pytest.raises(ServerError) as err:
                b.join(a.room)  # a room against the computer takes nobody else
            assert err.value.code == "room_full"


class _connection:
    def __init__(self, tc):
        self.cm = tc.websocket_connect("/ws")

    def __enter__(self):
        return TableClient(self.cm.__enter__())

    def __exit__(self, *exc):
        return self.cm.__exit__(*exc)
