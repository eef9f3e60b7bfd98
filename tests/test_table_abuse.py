"""Abuse within the limits: each test is named after the way the server was once taken down or
tricked (a hint raced by a move, deep JSON, a forged origin, a second holder of a token, a
connection that spams full frames or rooms, slow and idle sockets), and checks it no longer is."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from table_helpers import live_server, make_app
from climbrl.play.server import protocol
from climbrl.play.server.client import ServerError, TableClient


def _client(ws) -> TableClient:
    return TableClient(ws)


def _reply_to(client: TableClient, rid: int, limit: int = 500) -> dict:
    for _ in range(limit):
        message = client.receive()
        if message.get("re") == rid and message.get("type") != "state":
            return message
    raise AssertionError(f"no reply to request {rid}")


# -- 11: a hint raced by a move; deep JSON; a lone surrogate; bytes, not characters -------------


def test_a_hint_followed_at_once_by_a_move_is_answered(tmp_path):
    with live_server(tmp_path) as (url, _app):
        client = TableClient.connect(url, timeout=20)
        client.create(game="daifugo", mode="cpu", level="easy", pace_ms=0)
        answered = 0
        for _ in range(6):
            state = client.until(lambda s: client.my_turn(s) or s["match"]["over"])
            if state["match"]["over"]:
                break
            hint_id = client.send({"type": "hint"})
            client.move(state["moves"][0]["action"], v=state["v"])
            reply = _reply_to(client, hint_id)
            assert reply["type"] in ("hint", "error"), reply
            if reply["type"] == "error":
                assert reply["code"] == "stale", reply
            answered += 1
        assert answered
        client.close()


def test_json_nested_deeply_is_answered_bad_json(tmp_path):
    with TestClient(make_app(tmp_path)) as tc, tc.websocket_connect("/ws") as ws:
        client = _client(ws)
        deep = "[" * 2000 + "]" * 2000
        assert len(deep.encode()) < protocol.MAX_MESSAGE_BYTES
        client.send_raw(deep)
        reply = client.receive()
        assert reply["type"] == "error" and reply["code"] == "bad_json", reply
        assert client.request({"type": "ping"}, "pong")


def test_a_token_with_a_lone_surrogate_is_answered_bad_token(tmp_path):
    with TestClient(make_app(tmp_path)) as tc, tc.websocket_connect("/ws") as ws:
        client = _client(ws)
        client.create(game="daifugo", mode="friends")
        other = tc.websocket_connect("/ws").__enter__()
        try:
            second = _client(other)
            second.send_raw('{"type": "join", "room": "%s", "token": "\\ud800", "id": 1}' % client.room)
            reply = second.receive()
            assert reply["type"] == "error" and reply["code"] == "bad_token", reply
            assert second.request({"type": "ping"}, "pong")
        finally:
            other.__exit__(None, None, None)


def test_the_size_limit_counts_bytes_not_characters(tmp_path):
    with TestClient(make_app(tmp_path)) as tc, tc.websocket_connect("/ws") as ws:
        client = _client(ws)
        text = "é" * (protocol.MAX_MESSAGE_BYTES // 2 + 100)  # fewer characters than the limit
        assert len(text) < protocol.MAX_MESSAGE_BYTES < len(text.encode())
        client.send_raw(json.dumps({"type": "ping", "id": text}, ensure_ascii=False))
        reply = client.receive()
        assert reply["type"] == "error" and reply["code"] == "too_big", reply
