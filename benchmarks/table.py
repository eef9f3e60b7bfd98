"""Load benchmark of the table server: ``python -m climbrl.benchmarks.table [--rooms 100] [--matches 1]``.

Starts ``climbrl serve`` on a loopback port (a subprocess, a fresh database), opens ``--rooms``
rooms against the computer (``--level medium`` CPUs in the other seats, no pacing) and plays
whole matches in all of them at once: in each room a client bot (asyncio, one WebSocket per
room) plays a random legal move the moment it is its turn. It prints

  * people's moves/s and all moves/s (people and CPUs) over the run;
  * p50 / p99 / max latency of people's moves: from the move sent to the ``state`` that
    answers it (the server's reply carries the move's id);
  * the server's resident memory (peak, sampled every 0.5 s), errors received, rooms that did
    not finish, and the rooms the server holds at the end;
  * the CPU worker processes' memory when the rooms open and at the end, the CPU decisions
    and the share played at random because they ran out of time (or failed), and the rooms
    refused because the CPUs were busy (``/healthz``'s ``cpu``).

``--timeout 60`` stops a run after a minute (the rooms still playing count as unfinished).

Memory over time: the server process and its CPU workers are sampled every 0.5 s; the report
gives the first sample, the one :data:`WARM_S` s in, the last and the peak of each, and calls
memory *flat* when the last is within :data:`FLAT_RATIO` of the one after warm-up.

``--abuse`` runs abusive clients inside the documented limits beside the rooms
(:mod:`climbrl.benchmarks.table_abuse`: settings/hint spam from 4-player Dou Dizhu rooms,
room-creation spam, slow-header HTTP clients, idle WebSockets; in a process of their own) and
reports what happened to them; ``--compare`` runs the same rooms (same ``--seed``) without
and then with them and prints the ratio of the people's-move p99s ("within 2x: yes/no").

``--kill-every 10`` is the durability run instead (:mod:`climbrl.benchmarks.table_kill`): the
server is SIGKILLed every 10 s and started again on the same file, the bots rejoin with their
tokens, and every move the server acknowledged must still be in its room.

Addresses: Linux routes all of 127.0.0.0/8 to loopback, so each measuring bot connects from
an address of its own (room i from :func:`bot_address`, 127.0.1.1 on) and the abusers from
127.0.9.x (:mod:`.table_abuse`), and the server runs with its default per-client caps and
work budget: a bot is one person, an abuser one client inside the limits. ``--one-address``
is the old way: everyone from 127.0.0.1, the per-client caps raised for the bots (which lets
the abusers further than a real one would get).

Games: ``--games daifugo,president,doudizhu`` are dealt to the rooms in turn (Daifugo 4
players, President 4, Dou Dizhu; 3 rounds or deals a match).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from climbrl.policies import LEVELS

from .common import machine
from .table_abuse import KINDS, run_abusers

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = {"daifugo": 4, "president": 4, "doudizhu": 3}
#: the opening burst: every room is created in the first second
WARM_S = 5.0
SAMPLE_S = 0.5
FLAT_RATIO = 1.3
"""memory is flat when its last sample is within this factor of the sample after warm-up"""
P99_MARK = 2.0
"""the abusers may at most multiply the other rooms' p99 by this"""
MEMORY_MARK = 1.05
"""memory is flat beside the abusers when the server's last sample is within this factor of
its sample half-way through the run (what they make it hold must stop growing)"""
ABUSERS_STOP_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


BOT_NETS = range(1, 9)
"""the measuring bots connect from 127.0.N.x for N in this range (the abusers use 127.0.9.x)"""
HOSTS_PER_NET = 250
MAX_ADDRESSED_ROOMS = len(BOT_NETS) * HOSTS_PER_NET


def bot_address(i: int) -> str:
    """The source address of room ``i``'s bot: one person, one client to the server."""
    return f"127.0.{BOT_NETS[i // HOSTS_PER_NET]}.{1 + i % HOSTS_PER_NET}"


def source(address: str | None) -> dict:
    """``connect`` keywords that bind the client socket to ``address`` (None: any)."""
    return {} if address is None else {"local_addr": (address, 0)}


def loopback_caps(rooms: int) -> list[str]:
    """The per-client caps raised just enough for ``rooms`` measuring bots: they all come from
    127.0.0.1, which the server counts as one client (so do the abusers, which the raised caps
    let further than a real abuser would get: the comparison errs against the server)."""
    room_slack = 2 * rooms + 50  # rooms that restart a match or rejoin after a kill
    return ["--rooms-per-client", str(room_slack), "--connections-per-client", str(room_slack),
            "--seats-per-client", str(room_slack)]


def start_server(port: int, db: Path, workers: int, extra: list[str] = (),
                 rooms: int = 0, one_address: bool = True) -> subprocess.Popen:
    """``climbrl serve`` on ``port``, once it is ready. The rate limit is lifted for the
    measuring bots (one connection each); with ``one_address`` (all the bots from 127.0.0.1)
    the per-client caps are raised for ``rooms`` of them (:func:`loopback_caps`), else they
    are the server's defaults; abusers pace themselves at the documented limit. ``extra``:
    more ``climbrl serve`` options (they win)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "climbrl.cli", "serve", "--port", str(port), "--db", str(db),
         "--rate", "100000", "--workers", str(workers),
         *(loopback_caps(rooms) if one_address else []), *extra],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if json.loads(r.read())["ready"]:  # engines built, CPU workers started
                    return proc
                time.sleep(0.2)
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def own_rss_mb(pid: int) -> float:
    """Resident memory of one process, MB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (the CPU worker processes), MB."""
    return sum(own_rss_mb(p) for p in [pid, *children(pid)])


def workers_rss_mb(pid: int) -> float:
    """Resident memory of the server's CPU worker processes alone, MB."""
    return sum(rss_mb(child) for child in children(pid))


def health(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
        return json.loads(r.read())


def children(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


class Stats:
    def __init__(self):
        self.latencies: list[float] = []
        self.sent_at: list[float] = []
        self.people_moves = 0
        self.errors: list[str] = []
        self.finished = 0
        self.last_v: dict[str, int] = {}
        self.refused = 0


async def bot(url: str, game: str, level: str, matches: int, seed: int, stats: Stats,
              address: str | None = None) -> None:
    """One person: a room against the CPUs, from ``address`` (None: 127.0.0.1)."""
    from websockets.asyncio.client import connect

    rng = random.Random(seed)
    async with connect(url, max_size=1 << 22, **source(address)) as ws:
        await ws.recv()  # hello
        await ws.send(json.dumps({"type": "create", "id": 0, "game": game, "players": PLAYERS[game],
                                  "mode": "cpu", "level": level, "pace_ms": 0, "rounds": 3}))
        next_id = 1
        pending: dict[int, float] = {}
        acted = -1
        done = 0
        room = None
        while True:
            msg = json.loads(await ws.recv())
            kind = msg.get("type")
            if kind == "error" and msg.get("code") == "busy" and room is None:
                stats.refused += 1  # the CPUs are busy: no room
                return
            if kind == "error":
                stats.errors.append(f"{msg.get('code')}: {msg.get('message')}")
                continue
            if kind == "joined":
                room = msg["room"]
                continue
            if kind != "state":
                continue
            sent = pending.pop(msg.get("re"), None)
            if sent is not None:
                stats.latencies.append(time.perf_counter() - sent)
                stats.sent_at.append(sent)
            stats.last_v[room] = msg["v"]
            if msg["match"] and msg["match"]["over"]:
                if msg["v"] == acted:
                    continue
                done += 1
                stats.finished += done == matches
                if done >= matches:
                    return
                acted = msg["v"]
                await ws.send(json.dumps({"type": "next", "id": next_id}))
                next_id += 1
                continue
            if msg["v"] == acted:
                continue
            if msg["your_turn"] and msg["moves"]:
                acted = msg["v"]
                action = rng.choice(msg["moves"])["action"]
                pending[next_id] = time.perf_counter()
                await ws.send(json.dumps({"type": "move", "id": next_id, "action": action, "v": msg["v"]}))
                next_id += 1
                stats.people_moves += 1
            elif msg.get("result") and msg["turn"] is None:
                acted = msg["v"]
                await ws.send(json.dumps({"type": "next", "id": next_id}))
                next_id += 1


def memory_figures(samples: list[tuple[float, float]], warm_s: float = WARM_S) -> dict:
    """First, after warm-up, half-way, last and peak of ``(seconds in, MB)`` samples, and
    whether the last is within :data:`FLAT_RATIO` of the one after warm-up."""
    if not samples:
        nan = float("nan")
        return {"first": nan, "warm": nan, "mid": nan, "last": nan, "peak": nan, "flat": False}
    warm = next((mb for t, mb in samples if t >= warm_s), samples[-1][1])
    mid = next(mb for t, mb in samples if t >= samples[-1][0] / 2)
    last = samples[-1][1]
    return {"first": samples[0][1], "warm": warm, "mid": mid, "last": last,
            "peak": max(mb for _, mb in samples), "flat": last <= FLAT_RATIO * warm}


def start_abusers(port: int, seed: int, level: str, kinds: tuple[str, ...], addressed: bool = True):
    """The abusive clients in a process of their own (:mod:`.table_abuse`; ``addressed``:
    from 127.0.9.x, else from 127.0.0.1); returns the process and the pipe that stops it and
    brings back its figures."""
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    proc = ctx.Process(target=run_abusers, args=(port, seed, level, kinds, theirs, addressed),
                       daemon=True)
    proc.start()
    return proc, ours


def stop_abusers(proc, pipe) -> dict:
    pipe.send("stop")
    figures = pipe.recv() if pipe.poll(ABUSERS_STOP_S) else {"failed": {"no figures came back": 1}}
    proc.join(ABUSERS_STOP_S)
    if proc.is_alive():
        proc.kill()
    return figures


async def run(args, abuse: bool = False) -> dict:
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="climbrl-bench-"))
    proc = start_server(port, folder / "tables.db", args.workers, args.serve_option, args.rooms,
                        args.one_address)
    url = f"ws://127.0.0.1:{port}/ws"
    stats = Stats()
    games = args.games.split(",")
    idle_rss = rss_mb(proc.pid)
    peak = [idle_rss]
    workers_start = workers_rss_mb(proc.pid)
    workers_warm = [float("nan")]
    server_samples: list[tuple[float, float]] = []
    worker_samples: list[tuple[float, float]] = []

    async def sample() -> None:
        while True:
            now = time.perf_counter() - start
            server, workers = own_rss_mb(proc.pid), workers_rss_mb(proc.pid)
            server_samples.append((now, server))
            worker_samples.append((now, workers))
            peak[0] = max(peak[0], server + workers)
            if workers_warm[0] != workers_warm[0] and now >= WARM_S:
                workers_warm[0] = workers
            await asyncio.sleep(SAMPLE_S)

    abusers = (start_abusers(port, args.seed, args.level, args.abusers, not args.one_address)
               if abuse else None)
    load_before = os.getloadavg()
    server_cpu0 = cpu_seconds(proc.pid)
    client_cpu0 = time.process_time()
    start = time.perf_counter()
    sampler = asyncio.create_task(sample())
    tasks = [asyncio.create_task(bot(url, games[i % len(games)], args.level, args.matches, args.seed + i,
                                     stats, None if args.one_address else bot_address(i)))
             for i in range(args.rooms)]
    done, pending = await asyncio.wait(tasks, timeout=args.timeout)
    elapsed = time.perf_counter() - start
    for t in pending:
        t.cancel()
    for t in done:
        if t.exception() is not None:
            stats.errors.append(repr(t.exception()))
    sampler.cancel()
    server_cpu = sum(cpu_seconds(p) for p in [proc.pid, *children(proc.pid)]) - server_cpu0
    client_cpu = time.process_time() - client_cpu0
    abuse_figures = await asyncio.to_thread(stop_abusers, *abusers) if abusers else None
    end = health(port)
    held = end["rooms"]
    in_memory = end.get("in_memory", held)
    workers_end = workers_rss_mb(proc.pid)
    proc.terminate()
    proc.wait(10)
    slow = sorted(zip(stats.latencies, stats.sent_at), reverse=True)[:8]
    slowest = [(round(lat * 1000, 1), round(at - start, 1)) for lat, at in slow]
    warm = sorted(lat for lat, at in zip(stats.latencies, stats.sent_at) if at - start >= WARM_S)
    lat = sorted(stats.latencies)
    def q(p, values=lat):
        return values[min(len(values) - 1, int(p * len(values)))] * 1000 if values else float("nan")

    all_moves = sum(stats.last_v.values())
    return {
        "rooms": args.rooms, "games": games, "level": args.level, "matches": args.matches,
        "seed": args.seed, "abuse": abuse, "abusers_run": list(args.abusers) if abuse else [],
        "elapsed_s": elapsed, "people_moves": stats.people_moves,
        "people_moves_per_s": stats.people_moves / elapsed, "all_ops": all_moves,
        "all_ops_per_s": all_moves / elapsed,
        "p50_ms": q(0.50), "p99_ms": q(0.99), "p99_after_warm_ms": q(0.99, warm), "max_ms": lat[-1] * 1000 if lat else float("nan"),
        "mean_ms": statistics.fmean(lat) * 1000 if lat else float("nan"),
        "rss_idle_mb": idle_rss, "rss_peak_mb": peak[0], "errors": stats.errors[:10],
        "error_count": len(stats.errors), "unfinished_rooms": args.rooms - stats.finished,
        "rooms_held": held, "rooms_in_memory": in_memory, "server_cpu_s": server_cpu, "client_cpu_s": client_cpu,
        "load_average": os.getloadavg(), "load_average_before": load_before,
        "one_address": args.one_address, "slowest_ms_at_s": slowest,
        "workers_rss_start_mb": workers_start, "workers_rss_warm_mb": workers_warm[0],
        "workers_rss_end_mb": workers_end,
        "server_memory": memory_figures(server_samples), "worker_memory": memory_figures(worker_samples),
        "cpu": end.get("cpu", {}), "refused_rooms": stats.refused, "abusers": abuse_figures,
    }


def report(r: dict) -> None:
    """Print one run's figures."""
    print(f"table server load: {r['rooms']} rooms at once ({', '.join(r['games'])}), "
          f"{r['level']} CPUs, {r['matches']} match(es) each, seed {r['seed']}, "
          f"{'WITH abusers (' + ', '.join(r['abusers_run']) + ')' if r['abuse'] else 'without abusers'}; {machine()}, {os.cpu_count()} cores")
    print(f"  addresses        {'all from 127.0.0.1, per-client caps raised' if r['one_address'] else 'one per bot (127.0.N.x), abusers 127.0.9.x; default per-client caps'}")
    print(f"  elapsed          {r['elapsed_s']:.1f} s")
    print(f"  people's moves   {r['people_moves']} ({r['people_moves_per_s']:.1f}/s)")
    print(f"  all ops          {r['all_ops']} ({r['all_ops_per_s']:.1f}/s, people + CPUs + seats)")
    print(f"  latency (move -> its state)  p50 {r['p50_ms']:.1f} ms  p99 {r['p99_ms']:.1f} ms  "
          f"max {r['max_ms']:.1f} ms  mean {r['mean_ms']:.1f} ms; p99 {r['p99_after_warm_ms']:.1f} ms "
          f"after the first {WARM_S:.0f} s (all rooms opening at once)")
    print(f"  slowest (ms, at s)  {r['slowest_ms_at_s']}")
    print(f"  server RSS       {r['rss_idle_mb']:.0f} MB idle, {r['rss_peak_mb']:.0f} MB peak "
          f"(with its CPU worker processes)")
    for name, key in (("server", "server_memory"), ("workers", "worker_memory")):
        m = r[key]
        print(f"  memory {name:8s} {m['first']:.0f} MB first, {m['warm']:.0f} MB after {WARM_S:.0f} s, "
              f"{m.get('mid', float('nan')):.0f} MB half-way, {m['last']:.0f} MB last, {m['peak']:.0f} MB peak: "
              f"{'flat' if m['flat'] else 'NOT flat'} (last within {FLAT_RATIO}x of after warm-up)")
    print(f"  CPU time         server {r['server_cpu_s']:.1f} s, bots {r['client_cpu_s']:.1f} s "
          f"(machine load average {r['load_average_before'][0]:.1f} at the start, "
          f"{r['load_average'][0]:.1f} at the end, shared with other work)")
    print(f"  errors           {r['error_count']} {r['errors'][:3]}")
    print(f"  rooms unfinished {r['unfinished_rooms']} (refused, the CPUs busy: {r['refused_rooms']}); "
          f"rooms held by the server {r['rooms_held']} ({r['rooms_in_memory']} in memory)")
    cpu = r["cpu"]
    if cpu:
        late = cpu["timed_out"] / max(1, cpu["decisions"])
        print(f"  CPU decisions    {cpu['decisions']}: {cpu['timed_out']} ({late:.1%}) played at random "
              f"for lack of time, {cpu['failed']} failed; worker restarts {cpu['restarts']}")
    print(f"  worker RSS       {r['workers_rss_start_mb']:.0f} MB when the rooms open, "
          f"{r['workers_rss_warm_mb']:.0f} MB {WARM_S:.0f} s later, {r['workers_rss_end_mb']:.0f} MB at the end")
    a = r["abusers"]
    if a:
        print(f"  abusers sent     {a['sent']}")
        print(f"  abusers' CPU     {a.get('cpu_s', float('nan')):.1f} s (their own process, on the same machine)")
        print(f"  abusers got      {a['answers']}; {a['frame_mb']:.0f} MB of state frames, "
              f"up to {a['biggest_moves']} moves in one")
        print(f"  abusers' errors  {a['errors']}")
        print(f"  abusers held     slow-header sockets {a['slow_open']}, idle WebSockets {a['idle_open']} "
              f"open at the end; closed by the server {a['closed_by_server']}; failed {a['failed']}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m climbrl.benchmarks.table", description=__doc__.split("\n")[0])
    p.add_argument("--rooms", type=int, default=100)
    p.add_argument("--matches", type=int, default=1, help="whole matches per room")
    p.add_argument("--games", default="daifugo,president,doudizhu")
    p.add_argument("--level", default="medium")
    p.add_argument("--workers", type=int, default=2, help="the server's CPU worker processes")
    p.add_argument("--timeout", type=float, default=900.0)
    p.add_argument("--seed", type=int, default=0, help="the bots' first seed (room i plays seed + i)")
    p.add_argument("--abuse", action="store_true",
                   help="abusive clients inside the documented limits beside the rooms")
    p.add_argument("--abusers", default=",".join(KINDS),
                   help=f"which abusers --abuse runs, of {','.join(KINDS)} (default: all)")
    p.add_argument("--compare", action="store_true",
                   help="run without and then with the abusers (same seed) and compare the p99s")
    p.add_argument("--kill-every", type=float, default=None, metavar="SECONDS",
                   help="durability: SIGKILL the server this often, restart it, check every "
                        "acknowledged move (runs for --timeout seconds)")
    p.add_argument("--kills", type=int, default=None,
                   help="with --kill-every: stop after this many kills")
    p.add_argument("--one-address", action="store_true",
                   help="the old way: every bot and abuser from 127.0.0.1, the per-client caps "
                        "raised for the bots (default: an address each, the default caps)")
    p.add_argument("--serve-option", action="append", default=[], metavar="OPTION",
                   help="one more `climbrl serve` option (repeat; e.g. --serve-option=--think=2)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = p.parse_args(argv)
    check_args(p, args)
    if args.kill_every is not None:
        from .table_kill import durability, report_durability

        r = asyncio.run(durability(args))
        report_durability(r)
        if args.json:
            print(json.dumps(r))
        return
    runs = [False, True] if args.compare else [args.abuse]
    results = []
    for abuse in runs:
        r = asyncio.run(run(args, abuse))
        report(r)
        results.append(r)
    if args.compare:
        calm, abused = results
        ratio = abused["p99_ms"] / calm["p99_ms"]
        print(f"abusers' effect: people's-move p99 {calm['p99_ms']:.1f} ms without, {abused['p99_ms']:.1f} ms "
              f"with: {ratio:.2f}x; within {P99_MARK:g}x: {'yes' if ratio <= P99_MARK else 'no'}")
        m = abused["server_memory"]
        more = m["last"] / calm["server_memory"]["last"]
        grown = m["last"] / m["mid"]
        print(f"abusers' effect: server memory at the end {calm['server_memory']['last']:.0f} MB without, "
              f"{m['last']:.0f} MB with ({more:.2f}x); with them {m['mid']:.0f} MB half-way, "
              f"{m['last']:.0f} MB at the end ({grown:.2f}x): flat (within {MEMORY_MARK:g}x): "
              f"{'yes' if grown <= MEMORY_MARK else 'no'}")
    if args.json:
        print(json.dumps(results if args.compare else results[0]))


def check_args(parser: argparse.ArgumentParser, args) -> None:
    """A bad option is a one-line error naming it."""
    if args.rooms < 1:
        parser.error(f"--rooms must be 1 or more, got {args.rooms}")
    if args.matches < 1:
        parser.error(f"--matches must be 1 or more, got {args.matches}")
    if not args.timeout > 0:
        parser.error(f"--timeout must be more than 0 seconds, got {args.timeout}")
    if not args.one_address and args.kill_every is None and args.rooms > MAX_ADDRESSED_ROOMS:
        parser.error(f"--rooms: at most {MAX_ADDRESSED_ROOMS} with an address each, got "
                     f"{args.rooms}; add --one-address for more")
    if args.kill_every is not None and not args.kill_every > 0:
        parser.error(f"--kill-every must be more than 0 seconds, got {args.kill_every}")
    if args.kill_every is not None and (args.abuse or args.compare):
        parser.error("--kill-every is a run of its own: leave out --abuse and --compare")
    args.abusers = tuple(args.abusers.split(","))
    unknown = [k for k in args.abusers if k not in KINDS]
    if unknown:
        parser.error(f"--abusers: unknown kind {unknown[0]!r}; kinds are {','.join(KINDS)}")
    if args.kills is not None and (args.kill_every is None or args.kills < 1):
        parser.error(f"--kills must be 1 or more, with --kill-every; got {args.kills}")
    if args.level not in LEVELS:
        parser.error(f"--level must be one of {list(LEVELS)}, got {args.level!r}")
    bad = [g for g in args.games.split(",") if g not in PLAYERS]
    if bad:
        parser.error(f"--games: unknown game {bad[0]!r}; games are {sorted(PLAYERS)}")


if __name__ == "__main__":
    main()
