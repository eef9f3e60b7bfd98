"""The UECda client and server: a recorded official server against our client, our server
against our clients end to end, and the command line's mistakes."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from climbrl.play.uecda import client, server, tables
from climbrl.play.uecda.rules import uecda_game
from climbrl.play.uecda.tables import TABLE_BYTES
from climbrl.play.uecda.wire import INT_BYTES, read_recording

DATA = Path(__file__).parent / "data" / "uecda"
#: the official server's total points after the recorded games (its console), by player
OFFICIAL_POINTS = {"official-server-3-games.jsonl": [14, 9, 6, 10, 6]}
GAME = uecda_game()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _exact(conn, size):
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        assert chunk, "the client closed early"
        data += chunk
    return data


def _replay(listener, messages, sent):
    """Play the recorded server side: send its messages, read the client's in their place."""
    conn, _ = listener.accept()
    with conn:
        for m in messages:
            if m["dir"] == "in":  # what the server sent the recorded client
                if "table" in m:
                    conn.sendall(tables.pack(np.array(m["table"])))
                else:
                    conn.sendall(int(m["int"]).to_bytes(4, "big", signed=True))
            else:
                size = TABLE_BYTES if "table" in m else INT_BYTES
                data = _exact(conn, size)
                sent.append(tables.unpack(data) if size == TABLE_BYTES else data)


@pytest.mark.parametrize("name", sorted(OFFICIAL_POINTS))
def test_our_client_against_a_recorded_official_server(name):
    messages = read_recording(DATA / name)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    sent: list = []
    thread = threading.Thread(target=_replay, args=(listener, messages, sent), daemon=True)
    thread.start()
    summary = client.play("127.0.0.1", port, "scripted-medium", "replay", think_s=30, seed=1,
                          silence_s=30, log=lambda text: None)
    thread.join(10)
    listener.close()
    assert summary.games == 3
    assert summary.points == OFFICIAL_POINTS[name]
    # every answer has the standard's shape: gifts of the asked size from the hand, moves that
    # are moves of our engine made of cards the client held
    ins = [m for m in messages if m["dir"] == "in" and "table" in m]
    assert sent[0][0][0] == 20070
    asked = {}
    for m in ins:
        t = np.array(m["table"])
        if t[5][0] == 1:
            asked[len(asked)] = int(t[5][1])
    moves = [t for t in sent[1:] if isinstance(t, np.ndarray)]
    assert moves
    for t in moves:
        cards = tables.table_cards(GAME.deck, t)
        try:
            tables.table_to_move(GAME, t)
        except tables.TableError:
            # a gift is a hand table: one or two cards of the client's
            assert cards.bit_count() in (1, 2)
    assert sum(1 for v in asked.values() if v) >= 1  # the recording holds an exchange


def test_our_client_stops_with_one_line_when_the_server_closes():
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def close_after_number():
        conn, _ = listener.accept()
        _exact(conn, TABLE_BYTES)
        conn.sendall((2).to_bytes(4, "big"))
        conn.close()

    threading.Thread(target=close_after_number, daemon=True).start()
    with pytest.raises(client.UecdaError, match="the server closed after 0 games") as err:
        client.play("127.0.0.1", port, "random", "t", silence_s=5, log=lambda text: None)
    assert "\n" not in str(err.value)
    listener.close()


def test_our_client_reports_a_table_it_cannot_read():
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def bad_start():
        conn, _ = listener.accept()
        _exact(conn, TABLE_BYTES)
        conn.sendall((1).to_bytes(4, "big"))
        bad = tables.new_table()
        bad[0][0] = 7
        conn.sendall(tables.pack(bad))
        conn.recv(1)
        conn.close()

    threading.Thread(target=bad_start, daemon=True).start()
    with pytest.raises(client.UecdaError, match=r"cannot read.*\[0\]\[0\].*the table: \[\[7, 0"):
        client.play("127.0.0.1", port, "random", "t", silence_s=5, log=lambda text: None)
    listener.close()


def test_our_client_stops_when_the_server_is_silent():
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    done = threading.Event()

    def silent():
        conn, _ = listener.accept()
        done.wait(10)
        conn.close()

    threading.Thread(target=silent, daemon=True).start()
    with pytest.raises(client.UecdaError, match="went silent"):
        client.play("127.0.0.1", port, "random", "t", silence_s=0.5, log=lambda text: None)
    done.set()
    listener.close()


@pytest.mark.parametrize("seed", [0, 7])
def test_our_server_and_five_of_our_clients_end_to_end(seed):
    port = _free_port()
    logs: list[str] = []
    result = {}
    thread = threading.Thread(target=lambda: result.update(server.serve(
        "127.0.0.1", port, 10, seed, timeout_s=30, log=logs.append)), daemon=True)
    thread.start()
    for _ in range(200):
        if any("listening" in line for line in logs):
            break
        thread.join(0.05)
    summaries = client.play_seats("127.0.0.1", port, "scripted-easy", "e2e", 5, think_s=30,
                                  seed=seed, silence_s=30)
    thread.join(60)
    assert result["complete"], result["ended"]
    assert result["games"] == 10
    served = np.sum([g["points"] for g in result["points"]], axis=0).tolist()
    for summary in summaries:
        assert isinstance(summary, client.Summary), summary
        assert summary.games == 10 and summary.refused == 0
        assert summary.points == served  # each client's count of every player's points
    # duplicate deals: each deal gives every seat's points once to each player in all
    assert sum(served) == 10 * 15
    assert "95% interval" in server.format_report(result)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "climbrl", "uecda", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, message", [
    (("play", "--port", "0"), "--port: a TCP port"),
    (("play", "--seats", "0"), "--seats: a number of seats"),
    (("play", "--seats", "6"), "--seats: a UECda table has 5 seats"),
    (("play", "--think", "0"), "--think: seconds, more than 0"),
    (("play", "--silence", "x"), "--silence: seconds"),
    (("play", "--seed", "x"), "--seed: invalid int"),
    (("play", "--cpu", "nobody"), "unknown player 'nobody'"),
    (("play", "--cpu", "medium"), "cannot play the UECda rules"),
    (("play", "--record", "/nonexistent/dir/x.jsonl"), "--record"),
    (("serve", "--games", "0"), "--games: a number of games"),
    (("serve", "--port", "70000"), "--port: a TCP port"),
    (("serve", "--seed", "x"), "--seed: invalid int"),
    (("serve", "--timeout", "-1"), "--timeout: seconds"),
    (("serve", "--host", "203.0.113.9"), "cannot listen on 203.0.113.9"),
])
def test_cli_mistakes_are_one_line_exit_2(args, message):
    done = _cli(*args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
