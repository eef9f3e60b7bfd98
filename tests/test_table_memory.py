"""The table server's memory follows the rooms in play, not every room ever made: engines and
catalogs are shared per rules and kept only while used (and a few more), a room nobody plays
leaves memory and comes back from the file as it was, a friends room builds no engine before
its match starts, and a restarted server listens before it has replayed its rooms."""

from __future__ import annotations

import contextlib
import gc
import json
import random
import sqlite3
import time
import tracemalloc

import pytest
from starlette.testclient import TestClient

from table_helpers import make_app, random_chooser
from climbrl.play.server import app as app_module
from climbrl.play.server import daifugo, doudizhu
from climbrl.play.server.client import ServerError, TableClient
from climbrl.play.server.rooms import TABLE_GAMES, game_options
from climbrl.play.server.shared import Shared

ROOM = {"game": "daifugo", "players": 4, "mode": "cpu", "level": "easy", "pace_ms": 0}
SAME = ("v", "turn", "phase", "round", "hand", "moves", "pile", "flags", "exchange", "history",
        "seats", "match", "result", "doudizhu")
"""what a person rejoining a room that left memory finds as they left it"""
RULE_MIXES = 24
CATALOG_MB = 2.0
"""about what one Daifugo catalog takes (measured 2.6 MB under tracemalloc)"""


def _rule_mixes(n: int, seed: int = 0) -> list[tuple[str, int, int, dict]]:
    """``n`` distinct Daifugo / President tables of random house rules (as a client making
    rooms of random rules asks for)."""
    options = game_options()
    rng = random.Random(seed)
    out, seen = [], set()
    while len(out) < n:
        game = rng.choice(["daifugo", "president"])
        o = options[game]
        rules = {r["name"]: rng.choice(r.get("choices") or [True, False]) for r in o["rules"]}
        table = (game, rng.choice(o["players"]), rng.choice(o["rounds"]), rules)
        key = json.dumps(table, sort_keys=True)
        try:
            daifugo.make_rules(*table)
        except ValueError:
            continue
        if key not in seen:
            seen.add(key)
            out.append(table)
    return out


def test_engines_of_many_rule_mixes_share_catalogs_in_bounded_memory():
    """Regression: every rules config built a catalog of its own (megabytes) and the last 64
    engines were kept whether any room played them or not: a client making rooms of random
    rules grew the server by hundreds of megabytes."""
    mixes = _rule_mixes(RULE_MIXES)
    gc.collect()
    catalogs, engines_before = daifugo.CATALOGS.in_use(), daifugo.ENGINES.in_use()  # other tests' tables
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        engines = [daifugo.engine_for(daifugo.make_rules(*m)) for m in mixes]
        keys = {e.catalog.key for e in engines}
        assert len({id(e.catalog) for e in engines}) == len(keys)  # one catalog per key
        del engines
        gc.collect()
        grown = (tracemalloc.get_traced_memory()[0] - before) / 2 ** 20
    finally:
        tracemalloc.stop()
    assert daifugo.CATALOGS.in_use() <= catalogs + daifugo.CATALOGS_KEPT
    assert daifugo.ENGINES.in_use() <= engines_before + daifugo.ENGINES_KEPT
    assert grown < (daifugo.CATALOGS_KEPT + 2) * CATALOG_MB, grown


def test_an_engine_a_table_plays_is_shared_however_many_were_built_since():
    """A table's engine stays the one every room of its rules gets, even once more rule mixes
    than are kept were asked for (a second engine of the same rules would double memory)."""
    rules = daifugo.make_rules("daifugo", 3, 7, {"lock": False})
    held = daifugo.engine_for(rules)
    for m in _rule_mixes(daifugo.ENGINES_KEPT + 4, seed=1):
        daifugo.engine_for(daifugo.make_rules(*m))
    gc.collect()
    assert daifugo.engine_for(rules) is held


class _Value:
    """A value :class:`Shared` can hold weakly."""


def test_a_pinned_value_stays_however_many_others_were_asked_for():
    """A pinned value (a usual table's engine) is never dropped for the last ones asked for:
    the next table of its rules finds it rather than build it again."""
    shared = Shared(lambda key: _Value(), keep=2)
    usual = shared.pin("usual", "usual")
    for key in range(shared.keep + 3):
        shared(key, key)
    gc.collect()
    builds = shared.builds
    assert shared("usual", "usual") is usual and shared.builds == builds
    assert shared.pinned() == 1


def _builds() -> tuple[int, int, int]:
    return doudizhu.ENGINES.builds, daifugo.ENGINES.builds, daifugo.CATALOGS.builds


READY_WAIT_S = 120.0
"""how long a test waits for the usual engines at start-up (seconds on a loaded machine)"""


def test_no_table_the_lobby_offers_builds_an_engine_once_the_server_is_ready(tmp_path):
    """Regression: the server built only some usual engines at start-up, and the first room of
    four-player Dou Dizhu (or President of six players and more) built its own, seconds in a
    thread that held up every room's moves; and a built one could be dropped for the last
    rule mixes asked for. Once ready, no table the lobby offers with its default rules builds
    an engine, however many other rule mixes were played since."""
    app = make_app(tmp_path)
    with TestClient(app) as tc, tc.websocket_connect("/ws") as ws:
        deadline = time.monotonic() + READY_WAIT_S
        while not app.state.server.ready:
            assert time.monotonic() < deadline, "the usual engines were not built"
            time.sleep(0.05)
        for m in _rule_mixes(daifugo.ENGINES_KEPT + 4, seed=2):
            daifugo.engine_for(daifugo.make_rules(*m))
        gc.collect()
        before = _builds()
        client = TableClient(ws)
        client.create(game="doudizhu", players=4, mode="cpu", level="easy", pace_ms=0)
        for name, options in game_options().items():
            for players in options["players"]:
                for rounds in options["rounds"]:
                    TABLE_GAMES[name].build_engine(players, rounds, {})
        assert _builds() == before


def test_a_friends_room_builds_no_engine_before_its_match_starts(tmp_path, monkeypatch):
    """Regression: a room built its engine when made; rooms made and never played, each of
    other rules, filled the server with engines."""
    built = []
    real = app_module.TableServer._build_engine
    monkeypatch.setattr(app_module.TableServer, "_build_engine",
                        staticmethod(lambda settings: (built.append(settings["rules"]), real(settings))[1]))
    rules = {"revolution": False, "eight_cut": False}
    with TestClient(make_app(tmp_path)) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        client.create(game="daifugo", players=3, mode="friends", level="easy", pace_ms=0, rules=rules)
        assert built == []
        assert client.request({"type": "fill", "level": "easy"}, "state")["started"]
        assert built == [rules]


def _played(tc, moves: int, **settings) -> tuple[str, str, dict]:
    """A room where the person made ``moves`` moves, left waiting for their turn; the room,
    the person's token and the state they last saw."""
    with tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        room = client.create(**{**ROOM, **settings})["room"]
        choose = random_chooser(3)
        for _ in range(moves):
            state = client.until(client.my_turn)
            client.request({"type": "move", "action": choose(state), "v": state["v"]}, "state")
        return room, client.token, client.until(client.my_turn)


#: how long a room may take to leave memory: a friends room whose people are away is played on
#: by the CPUs standing in for them, and is in use while they play (the test takes about 2 s
#: alone, and went past a 10 s bound once on a loaded CI machine); the wait ends as soon as
#: the room has left
LEAVE_MEMORY_S = 60


def _holding(server, room_id: str) -> dict:
    """What keeps a room in memory (``unload_idle``'s conditions), for a failure's message."""
    room = server.rooms.get(room_id)
    lock = server.locks.get(room_id)
    return {"connections": len(server.conns.get(room_id) or ()), "cpu_task": room_id in server.cpu_tasks,
            "grace": [k[1] for k in server.grace_tasks if k[0] == room_id],
            "locked": lock is not None and lock.locked(),
            "idle_s": round(time.monotonic() - server.used.get(room_id, 0.0), 3),
            "version": room.v if room is not None else None,
            "cpu_to_move": room.cpu_to_move() if room is not None else None}


def _left_memory(tc, server, room_id: str) -> None:
    """Wait until the room has left memory (the server's own check, or this one's)."""
    deadline = time.monotonic() + LEAVE_MEMORY_S
    while room_id in server.rooms:
        assert time.monotonic() < deadline, f"the room did not leave memory: {_holding(server, room_id)}"
        tc.portal.call(_unload, server)
        time.sleep(0.02)


@pytest.mark.parametrize("game", ["daifugo", "doudizhu"])
def test_a_room_that_left_memory_comes_back_as_it_was_and_plays_on(tmp_path, game):
    """Regression: every room stayed in memory for good. A room nobody is connected to, idle
    for ``unload_s``, leaves memory; the person rejoining finds it as they left it, and it
    plays on from the same version, every op numbered after the last in the file."""
    app = make_app(tmp_path, unload_s=0.05)
    server = app.state.server
    players = 3
    with TestClient(app) as tc:
        room, token, before = _played(tc, 4, game=game, players=players)
        _left_memory(tc, server, room)
        assert room in server.held
        with tc.websocket_connect("/ws") as ws:
            client = TableClient(ws)
            client.join(room, token)
            again = client.until(client.my_turn)
            for key in SAME:
                assert again.get(key) == before.get(key), key
            choose = random_chooser(4)
            client.request({"type": "move", "action": choose(again), "v": again["v"]}, "state")
            after = client.until(lambda s: s["v"] > again["v"])
            assert after["v"] == again["v"] + 1
            last = client.until(client.my_turn)["v"]
    with contextlib.closing(sqlite3.connect(str(tmp_path / "tables.db"))) as con:
        numbers = [n for (n,) in con.execute("SELECT n FROM ops WHERE room = ? ORDER BY n", (room,))]
    assert numbers == list(range(last))


def _unload(server):
    async def run():
        return server.unload_idle()
    return run()


def test_a_room_someone_is_in_or_used_lately_stays_in_memory(tmp_path):
    app = make_app(tmp_path, unload_s=30)
    server = app.state.server
    with TestClient(app) as tc, tc.websocket_connect("/ws") as ws:
        client = TableClient(ws)
        room = client.create(**ROOM)["room"]
        client.until(client.my_turn)
        assert tc.portal.call(_unload, server) == []  # connected, and used just now
    app = make_app(tmp_path, unload_s=0)
    with TestClient(app) as tc:
        assert tc.portal.call(_unload, app.state.server) == []  # 0: never


def test_a_friends_room_that_left_memory_keeps_its_seats_away(tmp_path):
    """Who is away is no op (the file does not know it): a friends room leaving memory keeps
    it, so the CPU standing in for a person away still does when the room comes back."""
    app = make_app(tmp_path, grace_s=0.05, unload_s=0.05)
    server = app.state.server
    with TestClient(app) as tc:
        with tc.websocket_connect("/ws") as ws_a:
            host = TableClient(ws_a)
            room = host.create(game="daifugo", players=3, mode="friends", level="easy", pace_ms=0)["room"]
            with tc.websocket_connect("/ws") as ws_b:
                TableClient(ws_b).join(room, name="Guest")
            host.request({"type": "fill", "level": "easy"}, "state")
            host.until(lambda s: s["seats"][1]["away"])
        _left_memory(tc, server, room)
        with tc.websocket_connect("/ws") as ws:
            client = TableClient(ws)
            client.join(room, host.token)
            assert client.state["seats"][1]["away"] and not client.state["seats"][0]["away"]


def test_serving_starts_before_the_stored_rooms_are_replayed(tmp_path, monkeypatch):
    """Regression: every stored room was replayed before the server listened, so a restart
    took longer the more rooms the file held. Now it listens at once; a room is replayed when
    first joined, and the others in the background, a damaged one still set aside."""
    made = []
    with TestClient(make_app(tmp_path)) as tc:
        for _ in range(6):
            with tc.websocket_connect("/ws") as ws:
                client = TableClient(ws)
                made.append((client.create(**ROOM)["room"], client.token))
    damaged = made[-1][0]
    with contextlib.closing(sqlite3.connect(str(tmp_path / "tables.db"))) as con, con:
        con.execute("UPDATE ops SET op = 'not json{' WHERE room = ? AND n = 1", (damaged,))
    replay_s = 0.5
    real = app_module._replay

    def slow(*args):
        time.sleep(replay_s)
        return real(*args)

    monkeypatch.setattr(app_module, "_replay", slow)
    app = make_app(tmp_path)
    server = app.state.server
    started = time.monotonic()
    with TestClient(app) as tc:
        assert time.monotonic() - started < replay_s * len(made) / 2
        assert tc.get("/healthz").json()["rooms"] == len(made)
        room, token = made[2]
        with tc.websocket_connect("/ws") as ws:
            assert TableClient(ws).join(room, token)["room"] == room
        tc.portal.call(server.checked)
        assert server.held == {r for r, _ in made[:-1]} and server.set_aside == 1
        assert set(server.rooms) == {room}  # the check keeps none in memory
        with tc.websocket_connect("/ws") as ws, pytest.raises(ServerError) as err:
            TableClient(ws).join(damaged, made[-1][1])
        assert err.value.code == "no_room"
