"""The rooms file keeps every acknowledged move: a move the file does not take is answered
``store_failed`` and the room stays as it was; a failure in one room costs no other room
anything; a locked file holds up no one else; a damaged room is set aside at start-up and the
others open; the file is readable by its owner only.

Faults are real ones in the file: a trigger that refuses one room's rows, or a second
connection holding the write lock."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import stat
import threading
import time

import pytest
from starlette.testclient import TestClient

from table_helpers import make_app
from climbrl.play.server.client import ServerError, TableClient
from climbrl.play.server.store import Store

PRIVATE = 0o600  # the owner reads and writes, nobody else

ROOM = {"game": "daifugo", "players": 4, "mode": "cpu", "level": "easy", "pace_ms": 0}


def db_of(tmp_path) -> str:
    return str(tmp_path / "tables.db")


def stored_ops(tmp_path, room_id: str) -> list[int]:
    with contextlib.closing(sqlite3.connect(db_of(tmp_path))) as con:
        return [n for (n,) in con.execute("SELECT n FROM ops WHERE room = ? ORDER BY n", (room_id,))]


@contextlib.contextmanager
def refusing(tmp_path, table: str, room_id: str | None = None):
    """The file refuses new rows of ``table`` (of one room, or every row) while inside: a
    trigger added by another connection, as a damaged or full disk refuses a write."""
    when = f"WHEN NEW.{'room' if table == 'ops' else 'id'} = '{room_id}'" if room_id else ""
    with contextlib.closing(sqlite3.connect(db_of(tmp_path), isolation_level=None)) as con:
        con.execute(f"CREATE TRIGGER refuse BEFORE INSERT ON {table} {when} "
                    "BEGIN SELECT RAISE(ABORT, 'injected fault'); END")
        try:
            yield
        finally:
            con.execute("DROP TRIGGER refuse")


def my_turn(client: TableClient) -> dict:
    return client.until(client.my_turn)


def move(client: TableClient, state: dict) -> dict:
    return client.request({"type": "move", "action": state["moves"][0]["action"], "v": state["v"]}, "state")


def play(client: TableClient, moves: int) -> int:
    """``moves`` of this person's moves (the CPUs answering each); the version last heard."""
    for _ in range(moves):
        move(client, my_turn(client))
    return my_turn(client)["v"]


def rejoin(tc, room_id: str, token: str) -> dict:
    """The state a person coming back with ``token`` is given."""
    with tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        client.join(room_id, token)
        return client.state


def test_store_failed_a_move_the_file_refuses_is_not_acknowledged_and_the_room_stays(tmp_path):
    """Regression: a write the file refused was logged in a callback, after the move had been
    acknowledged: the move was lost, and the op numbers after it left a hole."""
    app = make_app(tmp_path)
    server = app.state.server
    with TestClient(app) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        room_id = client.create(**ROOM)["room"]
        before = my_turn(client)
        with refusing(tmp_path, "ops", room_id):
            with pytest.raises(ServerError) as refused:
                move(client, before)
            assert refused.value.code == "store_failed"
            room = server.rooms[room_id]
            assert room.v == before["v"] and room.turn == before["turn"] and len(room.log) == before["v"]
            assert not [f for f in client.frames if f.get("type") == "state" and f["v"] > before["v"]]
        # the same move, once the file takes it again, is played from the same table
        acked = move(client, before)["v"]
        assert acked > before["v"]
        last = play(client, 2)
        token = client.token
    assert stored_ops(tmp_path, room_id) == list(range(last))
    with TestClient(make_app(tmp_path)) as tc:
        assert rejoin(tc, room_id, token)["v"] == last


def test_store_failed_a_failure_in_one_room_costs_another_room_nothing(tmp_path):
    """Regression: the ops of every room were committed in one batch, so one room's refused op
    took the others' acknowledged ops with it; after a restart the room stopped at its hole and
    reused op numbers that existed, failing every later batch."""
    app = make_app(tmp_path)
    with TestClient(app) as tc, tc.websocket_connect("/ws") as ws_a, tc.websocket_connect("/ws") as ws_b:
        a, b = TableClient(ws_a), TableClient(ws_b)
        room_a, room_b = a.create(**ROOM)["room"], b.create(**ROOM)["room"]
        a_before = my_turn(a)["v"]
        with refusing(tmp_path, "ops", room_a):
            for _ in range(3):
                b_state = my_turn(b)
                b.send({"type": "move", "action": b_state["moves"][0]["action"], "v": b_state["v"]})
                with pytest.raises(ServerError) as refused:
                    move(a, my_turn(a))
                assert refused.value.code == "store_failed"
                b.until(lambda s: s["v"] > b_state["v"])
            b_last = my_turn(b)["v"]
        assert app.state.server.rooms[room_a].v == a_before
        a_last = play(a, 1)
        tokens = a.token, b.token
    assert stored_ops(tmp_path, room_a) == list(range(a_last))
    assert stored_ops(tmp_path, room_b) == list(range(b_last))
    with TestClient(make_app(tmp_path)) as tc:
        assert rejoin(tc, room_a, tokens[0])["v"] == a_last
        assert rejoin(tc, room_b, tokens[1])["v"] == b_last
        # and both play on, each op numbered after its room's highest
        with tc.websocket_connect("/ws") as ws:
            client = TableClient(ws)
            client.join(room_a, tokens[0])
            again = play(client, 1)
    assert stored_ops(tmp_path, room_a) == list(range(again))


def test_store_failed_a_create_the_file_refuses_is_an_error(tmp_path):
    """Regression: a refused create closed the connection with no error, the room half made."""
    app = make_app(tmp_path)
    with TestClient(app) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        with refusing(tmp_path, "rooms"):
            with pytest.raises(ServerError) as refused:
                client.create(**ROOM)
        assert refused.value.code == "store_failed" and not app.state.server.rooms
        assert client.create(**ROOM)["room"] in app.state.server.rooms


def test_store_failed_a_cpu_move_the_file_refuses_is_played_again(tmp_path, caplog):
    """A CPU's move the file refuses is tried again after a pause; none is lost or skipped."""
    app = make_app(tmp_path)
    with TestClient(app) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        room_id = client.create(**ROOM)["room"]
        state = my_turn(client)
        with contextlib.closing(sqlite3.connect(db_of(tmp_path), isolation_level=None)) as con:
            # the person (seat 0) moves; the CPUs' moves are refused
            con.execute("CREATE TRIGGER refuse BEFORE INSERT ON ops WHEN NEW.op NOT LIKE '%\"seat\":0,%' "
                        "BEGIN SELECT RAISE(ABORT, 'injected fault'); END")
            with caplog.at_level(logging.ERROR, "climbrl.table"):
                acked = move(client, state)["v"]
                deadline = time.monotonic() + 10
                while "a CPU move was not stored" not in caplog.text:
                    assert time.monotonic() < deadline, "no CPU move was refused"
                    time.sleep(0.05)
            assert app.state.server.rooms[room_id].v == acked
            con.execute("DROP TRIGGER refuse")
        last = my_turn(client)["v"]
        assert last > acked
    assert stored_ops(tmp_path, room_id) == list(range(last))


def test_store_failed_a_locked_file_holds_up_no_one(tmp_path):
    """Regression: the server committed on its event loop; while another process held the
    file's write lock, every save froze the whole server for up to 5 s."""
    lock_s = 1.5
    app = make_app(tmp_path)
    with TestClient(app) as tc, tc.websocket_connect("/ws") as ws, tc.websocket_connect("/ws") as other:
        client, bystander = TableClient(ws), TableClient(other)
        room_id = client.create(**ROOM)["room"]
        state = my_turn(client)
        holder = sqlite3.connect(db_of(tmp_path), isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN EXCLUSIVE")
        release = threading.Timer(lock_s, lambda: holder.execute("COMMIT"))
        release.start()
        try:
            client.send({"type": "move", "action": state["moves"][0]["action"], "v": state["v"]})
            time.sleep(0.2)  # the move waits for the lock
            started = time.monotonic()
            bystander.request({"type": "ping"}, "pong")
            assert time.monotonic() - started < lock_s / 2
            # the move waits the lock out (shorter than the busy timeout) and is stored
            acked = client.until(lambda s: s["v"] > state["v"])["v"]
        finally:
            release.join()
            holder.close()
        last = play(client, 1)
        token = client.token
    assert acked > state["v"] and stored_ops(tmp_path, room_id) == list(range(last))
    with TestClient(make_app(tmp_path)) as tc:
        assert rejoin(tc, room_id, token)["v"] == last


def test_store_failed_a_lock_held_past_the_busy_timeout_refuses_the_move(tmp_path):
    app = make_app(tmp_path, busy_timeout_s=0.3)
    with TestClient(app) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        room_id = client.create(**ROOM)["room"]
        state = my_turn(client)
        with contextlib.closing(sqlite3.connect(db_of(tmp_path), isolation_level=None)) as holder:
            holder.execute("BEGIN EXCLUSIVE")
            with pytest.raises(ServerError) as refused:
                move(client, state)
            holder.execute("COMMIT")
        assert refused.value.code == "store_failed"
        assert app.state.server.rooms[room_id].v == state["v"]
        last = play(client, 1)
    assert stored_ops(tmp_path, room_id) == list(range(last))


# -- damaged rows --------------------------------------------------------------------------


DAMAGE = {
    "op not JSON": "UPDATE ops SET op = 'not json{' WHERE room = :room AND n = 1",
    "settings without game": "UPDATE rooms SET settings = json_remove(settings, '$.game') WHERE id = :room",
    "sit at seat 99": "UPDATE ops SET op = json_set(op, '$.seat', 99) WHERE room = :room AND n = 0",
    "a hole in the ops": "DELETE FROM ops WHERE room = :room AND n = 0",
}


def test_set_aside_a_damaged_room_and_the_others_open(tmp_path, caplog):
    """Regression: one damaged row (an op not JSON, settings without a game, a sit at seat 99)
    stopped the server at start-up, so every room was out of reach."""
    with TestClient(make_app(tmp_path)) as tc:
        made = {}
        for why in ["good", *DAMAGE]:
            with tc.websocket_connect("/ws") as ws:
                client = TableClient(ws)
                made[why] = (client.create(**ROOM)["room"], client.token)
    with contextlib.closing(sqlite3.connect(db_of(tmp_path))) as con, con:
        for why, sql in DAMAGE.items():
            con.execute(sql, {"room": made[why][0]})
    app = make_app(tmp_path)
    with caplog.at_level(logging.ERROR, "climbrl.table"), TestClient(app) as tc:
        good, token = made["good"]
        tc.portal.call(app.state.server.checked)  # the start-up check, in the background
        assert app.state.server.held == {good}
        assert rejoin(tc, good, token)["started"]
        for why in DAMAGE:
            room_id = made[why][0]
            said = [r.getMessage() for r in caplog.records if room_id in r.getMessage()]
            assert len(said) == 1 and "set aside" in said[0], (why, said)
            with tc.websocket_connect("/ws") as ws, pytest.raises(ServerError) as err:
                TableClient(ws).join(room_id, made[why][1])
            assert err.value.code == "no_room"
    assert "op 0 is missing" in caplog.text
    with contextlib.closing(sqlite3.connect(db_of(tmp_path))) as con:
        kept = {r for (r,) in con.execute("SELECT id FROM rooms")}
        aside = dict(con.execute("SELECT room, reason FROM set_aside"))
    assert kept == {room_id for room_id, _ in made.values()}  # kept in the file
    assert set(aside) == {made[why][0] for why in DAMAGE}
    # a later start opens the good room again and leaves the others aside, without a new error
    caplog.clear()
    app = make_app(tmp_path)
    with caplog.at_level(logging.ERROR, "climbrl.table"), TestClient(app) as tc:
        tc.portal.call(app.state.server.checked)
        assert app.state.server.held == {made["good"][0]}
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


# -- the file's mode ---------------------------------------------------------------------------


@contextlib.contextmanager
def umask(mask: int):
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_file_mode_the_rooms_file_is_readable_by_its_owner_only(tmp_path):
    """Regression: the file (every room's seed, from which every hidden hand follows) was
    created 0644, readable by every user of the machine."""
    db = db_of(tmp_path)
    with umask(0o022), TestClient(make_app(tmp_path)) as tc, tc.websocket_connect("/ws") as ws:
        TableClient(ws).create(**ROOM)
        for path in (db, db + "-wal", db + "-shm"):
            assert mode(path) == PRIVATE, (path, oct(mode(path)))


def test_file_mode_an_existing_file_open_to_others_is_made_private(tmp_path, caplog):
    db = db_of(tmp_path)
    with umask(0o022):
        Store(db).close()
        os.chmod(db, 0o644)
        with caplog.at_level(logging.WARNING, "climbrl.table"):
            Store(db).close()
    assert mode(db) == PRIVATE
    assert "open to others (mode 644)" in caplog.text and db in caplog.text


# -- joins and leaves ----------------------------------------------------------------------------


def test_touches_queued_meanwhile_go_in_one_write(tmp_path):
    """Regression: each join and leave was a write of its own, queued before the moves that
    came after it: a client making rooms at its rate limit (a join and a leave each) held up
    every room's moves behind those writes. The rooms touched while the file is busy go in
    one transaction."""
    from climbrl.play.server.store import Writer

    store = Store(db_of(tmp_path))
    rooms = [f"room{i}" for i in range(50)]
    for room_id in rooms:
        store.create_room(room_id, {"game": "daifugo"}, 1, [])
    calls = []
    real = store.touch
    store.touch = lambda *ids: (calls.append(ids), real(*ids))[1]
    writer = Writer(store)
    busy = threading.Event()
    writer.later(busy.wait)  # the file is busy with another write
    for room_id in rooms + rooms[:5]:
        writer.touch_later(room_id)
    busy.set()
    writer.close()
    assert calls == [tuple(sorted(rooms))]
