"""Durability of the table server under SIGKILL (``python -m climbrl.benchmarks.table
--kill-every 10``): every move the server acknowledged is in its room after a restart.

``climbrl serve`` plays ``--rooms`` rooms against the computer (one bot per room, as in the
load benchmark, playing match after match), and is killed with SIGKILL ``--kill-every``
seconds after every room is playing again, and started again on the same database file, for
``--timeout`` seconds (the bots reconnect as soon as it serves again, its stored rooms
restored; a restart counts until it is ready, its CPU workers started).
A move is *acknowledged* when the ``state`` answering its id arrives; that frame's version
``v`` counts the room's ops, so the move is the room's op ``v - 1``. After each restart:

  * the rooms file holds, for every move acknowledged before the kill, that move (seat and
    action) as op ``v - 1`` of its room (:func:`missing_moves`; the file is what a restarted
    server replays, so this is the room's history of moves);
  * each bot reconnects and rejoins with its token: the room's version is at least the last
    acknowledged one, and when it is the last version the bot saw, the table it sees (hand,
    legal moves, turn, pile, history) is the one it saw before the kill.

A move sent but not acknowledged when the server died may be there or not; it is not counted.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from .table import PLAYERS, free_port, start_server

RECONNECT_S = 0.2
"""a bot whose server is down tries again this often"""
REJOIN_WAIT_S = 30.0
"""how long the run waits for every bot to rejoin after a restart"""
REFUSED_WAIT_S = 1.0
"""a bot refused a room (the CPUs busy) asks again after this long"""
MAX_FRAME = 1 << 22
CONNECT_TIMEOUT_S = 10.0
SAME = ("turn", "phase", "round", "hand", "moves", "pile", "history")
"""what a rejoining bot must find as it left it, when nothing was played since"""


class RoomBot:
    """One room's person: plays a random legal move on its turn, keeps every acknowledged move
    ``(v, seat, action)``, and after a restart rejoins with its token and checks the room."""

    def __init__(self, index: int, game: str, level: str, seed: int):
        self.index = index
        self.game = game
        self.level = level
        self.rng = random.Random(seed)
        self.room: str | None = None
        self.token: str | None = None
        self.acked: list[tuple[int, int, int]] = []
        self.last: dict[str, Any] | None = None
        self.rejoins = 0
        self.rejoined_at = float("-inf")
        self.refused = 0
        self.lost: set[tuple[str, int]] = set()
        self.problems: list[str] = []
        self.gone = False

    async def run(self, url: str) -> None:
        """Play until cancelled, reconnecting whenever the server goes away."""
        from websockets.exceptions import WebSocketException
        from websockets.asyncio.client import connect

        while not self.gone:
            try:
                async with connect(url, max_size=MAX_FRAME, open_timeout=CONNECT_TIMEOUT_S) as ws:
                    await self.play(ws)
            except (OSError, asyncio.TimeoutError, WebSocketException):
                pass
            await asyncio.sleep(RECONNECT_S)

    async def play(self, ws) -> None:
        await ws.recv()  # hello
        if self.room is None:
            await ws.send(json.dumps({"type": "create", "id": "open", "game": self.game,
                                      "players": PLAYERS[self.game], "mode": "cpu", "level": self.level,
                                      "pace_ms": 0, "rounds": 3}))
        else:
            await ws.send(json.dumps({"type": "join", "id": "rejoin", "room": self.room, "token": self.token}))
        next_id = 0
        pending: dict[int, int] = {}
        acted = None
        while True:
            msg = json.loads(await ws.recv())
            kind = msg.get("type")
            if kind == "error" and msg.get("re") == "open":
                self.refused += msg.get("code") == "busy"
                await asyncio.sleep(REFUSED_WAIT_S)
                return
            if kind == "error" and msg.get("re") == "rejoin":
                self.room_lost(f"rejoin refused: {msg.get('code')}: {msg.get('message')}")
                return
            if kind == "joined" and msg.get("re") == "open":
                self.room, self.token = msg["room"], msg["token"]
                continue
            if kind != "state":
                continue
            if msg.get("re") == "rejoin":
                self.check_rejoin(msg)
            action = pending.pop(msg.get("re"), None)
            if action is not None:
                self.acked.append((msg["v"], msg["seat"], action))
            self.last = msg
            if msg["v"] == acted:
                continue
            if msg["match"] and msg["match"]["over"] or msg.get("result") and msg["turn"] is None:
                acted = msg["v"]
                await ws.send(json.dumps({"type": "next"}))
            elif msg["your_turn"] and msg["moves"]:
                acted = msg["v"]
                action = self.rng.choice(msg["moves"])["action"]
                next_id += 1
                pending[next_id] = action
                await ws.send(json.dumps({"type": "move", "id": next_id, "action": action, "v": msg["v"]}))

    def check_rejoin(self, msg: dict[str, Any]) -> None:
        """The room after a restart: every acknowledged move still counted, and the table as
        the bot left it when nothing was played since."""
        self.rejoins += 1
        self.rejoined_at = time.perf_counter()
        v = msg["v"]
        behind = [(self.room, a[0]) for a in self.acked if a[0] > v]
        if behind:
            self.lost.update(behind)
            self.problems.append(f"room {self.index}: version {v} after the restart, "
                                 f"{len(behind)} acknowledged moves past it (the last at {self.acked[-1][0]})")
        last = self.last
        if last is not None and last["v"] == v:
            changed = [k for k in SAME if last.get(k) != msg.get(k)]
            if changed:
                self.problems.append(f"room {self.index}: at version {v} after the restart, {changed} "
                                     f"differ from before the kill")

    def room_lost(self, why: str) -> None:
        self.lost.update((self.room, a[0]) for a in self.acked)
        self.problems.append(f"room {self.index}: {why}; {len(self.acked)} acknowledged moves lost")
        self.gone = True


def missing_moves(db: Path, acked: dict[str, list[tuple[int, int, int]]]) -> set[tuple[str, int]]:
    """``(room, v)`` of the acknowledged moves ``{room: [(v, seat, action)]}`` that are not op
    ``v - 1`` of their room in the rooms file (read-only)."""
    missing = set()
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        for room, moves in acked.items():
            ops = {n: json.loads(text) for n, text in
                   conn.execute("SELECT n, op FROM ops WHERE room = ?", (room,))}
            for v, seat, action in moves:
                op = ops.get(v - 1)
                if op is None or (op.get("op"), op.get("seat"), op.get("action")) != ("move", seat, action):
                    missing.add((room, v))
    return missing


def _away(bot: RoomBot, since: float) -> bool:
    """The bot has a room and has not rejoined it since ``since``."""
    return bot.room is not None and not bot.gone and bot.rejoined_at < since


async def _rejoined(bots: list[RoomBot], since: float) -> None:
    """Wait (at most :data:`REJOIN_WAIT_S`) for every bot to rejoin its room after a restart,
    so that the next kill finds them all playing."""
    deadline = time.perf_counter() + REJOIN_WAIT_S
    while time.perf_counter() < deadline and any(_away(b, since) for b in bots):
        await asyncio.sleep(RECONNECT_S)


async def durability(args) -> dict[str, Any]:
    """The kill-and-restart run; its figures."""
    port = free_port()
    db = Path(tempfile.mkdtemp(prefix="climbrl-kill-")) / "tables.db"
    proc = start_server(port, db, args.workers, args.serve_option, args.rooms)
    url = f"ws://127.0.0.1:{port}/ws"
    games = args.games.split(",")
    bots = [RoomBot(i, games[i % len(games)], args.level, args.seed + i) for i in range(args.rooms)]
    tasks = [asyncio.create_task(b.run(url)) for b in bots]
    start = time.perf_counter()
    kills, checked, restarts, t0 = 0, 0, [], start
    missing: set[tuple[str, int]] = set()
    max_kills = getattr(args, "kills", None)
    try:
        while time.perf_counter() - start + args.kill_every <= args.timeout:
            await asyncio.sleep(args.kill_every)
            acked = {b.room: list(b.acked) for b in bots if b.room is not None}
            proc.kill()
            proc.wait(10)
            kills += 1
            checked = sum(len(m) for m in acked.values())
            t0 = time.perf_counter()
            proc = await asyncio.to_thread(start_server, port, db, args.workers, args.serve_option, args.rooms)
            restarts.append(time.perf_counter() - t0)
            missing |= await asyncio.to_thread(missing_moves, db, acked)
            await _rejoined(bots, t0)
            if max_kills is not None and kills >= max_kills:
                break
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        proc.terminate()
        proc.wait(10)
    lost = set(missing)
    for b in bots:
        lost |= b.lost
    unrejoined = sum(_away(b, t0) for b in bots) if kills else 0
    problems = [p for b in bots for p in b.problems]
    return {"rooms": args.rooms, "games": games, "level": args.level, "kill_every_s": args.kill_every,
            "elapsed_s": time.perf_counter() - start, "kills": kills,
            "acknowledged": sum(len(b.acked) for b in bots), "checked": checked,
            "missing_in_file": len(missing), "lost": len(lost), "problems": problems[:10],
            "problem_count": len(problems), "not_rejoined": unrejoined,
            "rooms_opened": sum(b.room is not None for b in bots),
            "refused": sum(b.refused for b in bots), "restart_s": restarts}


def report_durability(r: dict[str, Any]) -> None:
    import os

    restarts = r["restart_s"]
    print(f"table server durability: {r['rooms']} rooms ({', '.join(r['games'])}), {r['level']} CPUs, "
          f"SIGKILL every {r['kill_every_s']:g} s; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"  elapsed          {r['elapsed_s']:.1f} s, {r['kills']} kills; restart (to ready) "
          f"{min(restarts, default=0):.1f}-{max(restarts, default=0):.1f} s")
    print(f"  rooms            {r['rooms_opened']} opened (refused busy {r['refused']} times), "
          f"{r['not_rejoined']} did not rejoin after the last restart")
    print(f"  acknowledged     {r['acknowledged']} people's moves, {r['checked']} of them before the last kill")
    print(f"  moves lost       {r['lost']} ({r['missing_in_file']} not in the rooms file after a restart)")
    print(f"  problems         {r['problem_count']} {r['problems'][:3]}")
