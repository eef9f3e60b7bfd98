"""A real ``climbrl serve`` killed with SIGKILL and started again on the same database: every
room comes back exactly where it was, and people carry on with their tokens."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from table_helpers import connect, random_chooser

from climbrl.benchmarks.table_kill import RoomBot, durability, missing_moves
from climbrl.play.server.store import Store

ROOT = Path(__file__).resolve().parent.parent
SAME = ("v", "turn", "phase", "round", "hand", "moves", "pile", "flags", "exchange", "history", "doudizhu")


def _start(db: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "climbrl.cli", "serve", "--port", str(port), "--db", str(db),
         "--rate", "1000", "--grace", "5"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.1)
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read().decode())
    proc.kill()
    raise RuntimeError("climbrl serve did not start")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _deal_over(s) -> bool:
    """A deal's result waits for the person to ask for the next one (or the match is over)."""
    return bool(s.get("result")) and s["turn"] is None or bool(s["match"] and s["match"]["over"])


def _play_some(client, decisions: int, choose) -> None:
    """Make ``decisions`` moves (asking for the next deal when one ends), then wait until it is
    this person's decision again, or a deal or the match is over.

    Regression: a move that ended the deal left the person without a turn until they asked
    for the next deal, and the wait for their turn timed out."""
    made = 0
    while made < decisions:
        st = client.until(lambda s: client.my_turn(s) and s["v"] != client._acted
                          or bool(s.get("curtain")) or _deal_over(s))
        if st["match"] and st["match"]["over"]:
            return
        if st.get("curtain"):
            client.request({"type": "reveal", "seat": st["curtain"]["seat"]}, "state")
            continue
        if _deal_over(st):
            client._acted = st["v"]
            client.request({"type": "next"}, "state")
            continue
        client._acted = st["v"]
        extra = {"seat": st["seat"]} if st["mode"] == "local" else {}
        client.request({"type": "move", "action": choose(st), "v": st["v"], **extra}, "state")
        made += 1
    client.until(lambda s: client.my_turn(s) or bool(s.get("curtain")) or _deal_over(s))


def test_sigkill_and_restart_restores_every_room(tmp_path):
    db = tmp_path / "tables.db"
    port = _free_port()
    proc = _start(db, port)
    url = f"ws://127.0.0.1:{port}/ws"
    try:
        rooms = []
        for game, mode, players in (("daifugo", "cpu", 4), ("doudizhu", "cpu", 3),
                                    ("president", "cpu", 6), ("daifugo", "local", 3)):
            client = connect(url)
            client.create(game=game, mode=mode, players=players, level="easy", pace_ms=0, rounds=3)
            _play_some(client, 5, random_chooser(len(rooms)))
            rooms.append(client)
        friends = connect(url)
        room_id = friends.create(game="daifugo", players=3, mode="friends", level="easy", pace_ms=0)["room"]
        guest = connect(url)
        guest_token = guest.join(room_id, name="Guest")["token"]
        friends.request({"type": "fill", "level": "easy"}, "state")
        # a room with a CPU about to move when the server dies
        slow = connect(url)
        slow.create(game="daifugo", mode="cpu", level="easy", pace_ms=400)
        _play_some(slow, 1, random_chooser(9))
        slow.request({"type": "move", "action": slow.state["moves"][0]["action"]}, "state")
        before = [dict(c.state) for c in rooms]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        for c in rooms + [friends, guest, slow]:
            c.close()

        proc = _start(db, port)
        for old, client in zip(before, rooms):
            again = connect(url)
            again.join(old["room"], token=client.token)
            st = again.state
            if old["mode"] == "local" and old["seat"] is not None:
                st = again.request({"type": "reveal", "seat": old["seat"]}, "state")
            for key in SAME:
                assert st.get(key) == old.get(key), (old["game"], key)
            assert [s["cards"] for s in st["seats"]] == [s["cards"] for s in old["seats"]]
            if old is before[0]:  # one room plays to the end; the others one more move
                assert again.play_match(random_chooser(5))["match"]["over"]
            else:
                _play_some(again, 1, random_chooser(5))
            again.close()
        back = connect(url)
        assert back.join(room_id, token=guest_token)["seats"] == [1]
        assert back.state["started"] and back.state["seats"][1]["name"] == "Guest"
        back.close()
        slow_again = connect(url)
        slow_again.join(slow.room, token=slow.token)
        # the CPUs moved on after the restart
        slow_again.until(lambda s: slow_again.my_turn(s) or _deal_over(s))
        slow_again.close()
    finally:
        proc.kill()
        proc.wait(10)


def _kill_run(**kwargs) -> argparse.Namespace:
    """The options of a short ``python -m climbrl.benchmarks.table --kill-every`` run."""
    options = {"rooms": 3, "games": "daifugo,president,doudizhu", "level": "easy", "seed": 0, "workers": 1,
               "kill_every": 1.0, "timeout": 60.0, "kills": 3, "serve_option": []}
    return argparse.Namespace(**{**options, **kwargs})


def test_no_acknowledged_move_lost_across_sigkills():
    """A real ``climbrl serve`` killed with SIGKILL three times while bots play three rooms,
    restarted on the same file each time: every move it acknowledged is its room's op at the
    acknowledged version in the file, and in the room each bot rejoins with its token."""
    r = asyncio.run(durability(_kill_run()))
    assert r["kills"] == 3
    assert r["rooms_opened"] == 3 and r["not_rejoined"] == 0
    assert r["checked"] > 0
    assert r["problems"] == [] and r["lost"] == 0 and r["missing_in_file"] == 0


def test_durability_check_finds_a_move_missing_from_the_file(tmp_path):
    """The kill run's file check is no formality: an acknowledged move that is not its room's
    op ``v - 1`` (absent, or another action or seat) counts as lost."""
    db = tmp_path / "tables.db"
    store = Store(db)
    store.create_room("r1", {"game": "daifugo"}, 1, [{"op": "sit", "seat": 0}, {"op": "fill", "level": "easy"},
                                                    {"op": "move", "seat": 0, "action": 5}])
    store.close()
    assert missing_moves(db, {"r1": [(3, 0, 5)]}) == set()
    assert missing_moves(db, {"r1": [(3, 0, 6), (3, 1, 5), (4, 0, 5), (2, 0, 5)]}) == {("r1", 3), ("r1", 4), ("r1", 2)}
    assert missing_moves(db, {"r2": [(1, 0, 5)]}) == {("r2", 1)}


def test_rejoin_check_counts_the_acknowledged_moves_past_the_room_version():
    """A room that comes back at a version below an acknowledged move has lost it; one that
    comes back at the version the bot last saw must show the same table."""
    bot = RoomBot(0, "daifugo", "easy", 0)
    bot.room = "r1"
    bot.acked = [(5, 0, 1), (9, 0, 2), (12, 0, 3)]
    bot.last = {"v": 12, "turn": 0, "hand": [1, 2]}
    bot.check_rejoin({"v": 9, "turn": 0, "hand": [1, 2]})
    assert bot.lost == {("r1", 12)} and len(bot.problems) == 1
    bot.check_rejoin({"v": 12, "turn": 0, "hand": [1, 3]})
    assert len(bot.problems) == 2 and "hand" in bot.problems[1]
    bot.check_rejoin({"v": 12, "turn": 0, "hand": [1, 2]})
    assert len(bot.problems) == 2
