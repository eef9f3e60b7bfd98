"""Restart time of the table server with many stored rooms:
``python -m climbrl.benchmarks.table_restart [--rooms 2000] [--ops 60]``.

Writes a fresh rooms file of ``--rooms`` rooms (Daifugo, President and Dou Dizhu against the
computer, in turn, each ``--ops`` ops into its match: a person sat down, the CPUs filled the
other seats, random legal moves), starts ``climbrl serve`` on it and measures, from the
moment the process starts:

  * until the server answers an HTTP request (``/healthz``);
  * until a room's ``join`` (with its person's token) is answered with its table: the last
    room of the file, and then the first;
  * until the server is ready (its CPU workers started) and, where it says so, until it has
    checked every stored room (``/healthz``'s ``checked``).

Each is the median of ``--repeats`` starts on the same file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from .common import machine
from .table import ROOT, free_port

GAMES = (("daifugo", 4), ("president", 4), ("doudizhu", 3))
TEMPLATES = 12
"""distinct rooms played; the file holds copies of them under other ids and tokens"""
POLL_S = 0.02
START_LIMIT_S = 120.0


def played_ops(game: str, players: int, seed: int, ops: int, token: str) -> tuple[dict, list[dict]]:
    """The settings and first ``ops`` ops of a room against the computer, random legal moves
    for every seat."""
    from climbrl.play.server.rooms import Room, check_settings

    settings = check_settings({"game": game, "players": players, "mode": "cpu", "level": "easy",
                               "pace_ms": 0, "rounds": 3})
    room = Room("template", settings, seed)
    log = Room.opening_ops(settings, token)
    for op in log:
        room.execute(op)
    rng = random.Random(seed)
    while len(log) < ops:
        table = room.table
        if table.over:
            break
        if table.turn is None:
            op = {"op": "next"}
        else:
            op = {"op": "move", "seat": table.turn, "action": rng.choice(table.legal())}
        room.execute(op)
        log.append(op)
    return settings, log


def write_file(db: Path, rooms: int, ops: int) -> list[tuple[str, str]]:
    """A rooms file of ``rooms`` rooms; their ``(id, token)`` in the file's order."""
    from climbrl.play.server.rooms import new_room_id, new_token, token_hash
    from climbrl.play.server.store import Store

    store = Store(db)
    templates = []
    for i in range(TEMPLATES):
        game, players = GAMES[i % len(GAMES)]
        seed = random.Random(i).getrandbits(62)
        token = new_token()
        settings, log = played_ops(game, players, seed, ops, token)
        templates.append((settings, seed, log, token_hash(token)))
    made = []
    for i in range(rooms):
        settings, seed, log, template_hash = templates[i % TEMPLATES]
        token = new_token()
        th = token_hash(token)
        ops_of = [dict(op, token=th) if op.get("token") == template_hash else op for op in log]
        room_id = new_room_id()
        store.create_room(room_id, settings, seed, ops_of)
        made.append((room_id, token))
    store.close()
    return made


def _health(port: int) -> dict | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
            return json.loads(r.read())
    except OSError:
        return None


async def _join(url: str, room: str, token: str) -> None:
    from websockets.asyncio.client import connect

    async with connect(url, max_size=1 << 22) as ws:
        await ws.recv()  # hello
        await ws.send(json.dumps({"type": "join", "id": 1, "room": room, "token": token}))
        while True:
            msg = json.loads(await ws.recv())
            if msg.get("type") == "error":
                raise RuntimeError(f"join refused: {msg}")
            if msg.get("type") == "state":
                return


def one_start(db: Path, made: list[tuple[str, str]]) -> dict[str, float]:
    """Start ``climbrl serve`` on ``db`` once; seconds from the start to each mark."""
    import websockets.asyncio.client  # noqa: F401 - imported before the clock starts

    port = free_port()
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "climbrl.cli", "serve", "--port", str(port), "--db", str(db),
         "--workers", "1", "--rooms-per-client", "1000000", "--max-rooms", str(len(made) + 1)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    marks: dict[str, float] = {}
    try:
        while _health(port) is None:
            if proc.poll() is not None or time.perf_counter() - start > START_LIMIT_S:
                raise RuntimeError("the server did not start")
            time.sleep(POLL_S)
        marks["http_s"] = time.perf_counter() - start  # the process's imports included
        url = f"ws://127.0.0.1:{port}/ws"
        for name, (room, token) in (("join_last_s", made[-1]), ("join_first_s", made[0])):
            asyncio.run(_join(url, room, token))
            marks[name] = time.perf_counter() - start
        while "ready_s" not in marks or "checked_s" not in marks:
            health = _health(port) or {}
            now = time.perf_counter() - start
            if health.get("ready"):
                marks.setdefault("ready_s", now)
            if health.get("checked", True):  # a server that replays every room first: done
                marks.setdefault("checked_s", now)
            if time.perf_counter() - start > START_LIMIT_S:
                break
            time.sleep(POLL_S)
    finally:
        proc.terminate()
        proc.wait(30)
    return marks


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m climbrl.benchmarks.table_restart",
                                description=__doc__.split("\n")[0])
    p.add_argument("--rooms", type=int, default=2000)
    p.add_argument("--ops", type=int, default=60, help="ops stored per room")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    for name in ("rooms", "ops", "repeats"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be 1 or more, got {getattr(args, name)}")
    folder = Path(tempfile.mkdtemp(prefix="climbrl-restart-"))
    db = folder / "tables.db"
    made = write_file(db, args.rooms, args.ops)
    runs = [one_start(db, made) for _ in range(args.repeats)]
    keys = [k for k in ("http_s", "join_last_s", "join_first_s", "ready_s", "checked_s") if all(k in r for r in runs)]
    figures = {k: statistics.median(r[k] for r in runs) for k in keys}
    print(f"table server restart: {args.rooms} stored rooms of {args.ops} ops, median of "
          f"{args.repeats} starts; {machine()}")
    for k in keys:
        print(f"  {k:13s} {figures[k]:.2f} s  (each: {', '.join(f'{r[k]:.2f}' for r in runs)})")
    if args.json:
        print(json.dumps({"rooms": args.rooms, "ops": args.ops, "runs": runs, "median": figures}))


if __name__ == "__main__":
    main()
