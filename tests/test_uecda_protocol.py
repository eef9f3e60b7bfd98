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
#: our client (scripted-medium, seed 1) on the official server against four sample clients
#: (``climbrl uecda play --cpu scripted-medium --seed 1 --record FILE``): the games and the
#: official server's total points after them (its console), by player. The server's replies
#: answer the moves that player made then: a change to its choices needs a new recording
#: (a search player's choices move with every improvement of its search, so the recording is
#: of the rule-based medium player)
OFFICIAL_POINTS = {"official-server-10-games.jsonl.gz": (10, [37, 33, 17, 32, 31])}
PLAYER = "scripted-medium"
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
    summary = client.play("127.0.0.1", port, PLAYER, "replay", think_s=30, seed=1,
                          silence_s=30, log=lambda text: None)
    thread.join(10)
    listener.close()
    games, points = OFFICIAL_POINTS[name]
    assert summary.games == games
    assert summary.points == points
    assert summary.refused == 0
    # an answer wherever the recorded client answered (the server's tables ask for them)
    assert len(sent) == sum(1 for m in messages if m["dir"] == "out")
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


#: five official sample clients on our server (``climbrl uecda serve --games 3 --seed 3
#: --record``): each one's conversation, and the points our server gave them
SAMPLE_CLIENTS = "sample-clients-on-our-server-3-games.{}.jsonl.gz"
SAMPLE_SEED, SAMPLE_GAMES, SAMPLE_POINTS = 3, 3, [9, 6, 9, 14, 7]


def _replay_client(conn, messages, mismatches):
    """Play one recorded client: send what it sent, check what our server sends it."""
    with conn:
        for i, m in enumerate(messages):
            if m["dir"] == "in":  # what the client sent our server
                data = (tables.pack(np.array(m["table"])) if "table" in m
                        else int(m["int"]).to_bytes(4, "big", signed=True))
                conn.sendall(data)
                continue
            size = TABLE_BYTES if "table" in m else INT_BYTES
            try:
                data = _exact(conn, size)
            except (AssertionError, OSError) as err:
                mismatches.append(f"message {i}: {err}")
                return
            got = (tables.unpack(data).tolist() if size == TABLE_BYTES
                   else int.from_bytes(data, "big", signed=True))
            if got != m.get("table", m.get("int")):
                mismatches.append(f"message {i}: sent {got}, recorded {m}")
                return


def test_official_sample_clients_recorded_against_our_server():
    """Our server, given the recorded moves of five official sample clients, sends every
    table and answer it sent them then (byte for byte) and gives the same points."""
    port = _free_port()
    logs: list[str] = []
    result = {}
    thread = threading.Thread(target=lambda: result.update(server.serve(
        "127.0.0.1", port, SAMPLE_GAMES, SAMPLE_SEED, timeout_s=30, log=logs.append)),
        daemon=True)
    thread.start()
    for _ in range(200):
        if any("listening" in line for line in logs):
            break
        thread.join(0.05)
    mismatches: list[str] = []
    replays = []
    for number in range(5):
        messages = read_recording(DATA / SAMPLE_CLIENTS.format(number))
        conn = socket.create_connection(("127.0.0.1", port), timeout=30)
        replay = threading.Thread(target=_replay_client, args=(conn, messages, mismatches),
                                  daemon=True)
        replay.start()
        replays.append(replay)
        replay.join(0.2)  # connected in order: the player numbers are the recorded ones
    for replay in replays:
        replay.join(60)
    thread.join(30)
    assert mismatches == []
    assert result["complete"], result["ended"]
    assert np.sum([g["points"] for g in result["points"]], axis=0).tolist() == SAMPLE_POINTS
    assert result["refused"] == [0] * 5 and result["unreadable"] == [0] * 5


def _serve_our_clients(games, seed, duplicate=False, record=None, spec="scripted-easy"):
    """Our server with five of our clients; (the server's report, the clients' summaries)."""
    port = _free_port()
    logs: list[str] = []
    result = {}
    thread = threading.Thread(target=lambda: result.update(server.serve(
        "127.0.0.1", port, games, seed, timeout_s=30, log=logs.append, duplicate=duplicate,
        record=record)), daemon=True)
    thread.start()
    for _ in range(200):
        if any("listening" in line for line in logs):
            break
        thread.join(0.05)
    summaries = client.play_seats("127.0.0.1", port, spec, "e2e", 5, think_s=30,
                                  seed=seed, silence_s=30)
    thread.join(60)
    return result, summaries


def test_start_tables_show_the_lower_classes_hands_as_dealt(tmp_path):
    """Regression (the first round sent the lower classes their hands after the exchange
    took their cards; the official server sends them as dealt, and every start table counts
    the cards as dealt; the top classes' hands hold the cards received)."""
    result, _ = _serve_our_clients(2, 5, record=str(tmp_path / "rec"))
    assert result["complete"], result["ended"]
    seen = 0
    for number in range(5):
        for m in read_recording(tmp_path / f"rec.{number}"):
            t = np.array(m.get("table", [[0]]))
            if m["dir"] != "out" or t.shape != (8, 15) or t[5][0] != 1 or not t[6][5:10].any():
                continue
            held = int((t[:5] > 0).sum())
            extra = {0: 2, 1: 1}.get(int(t[6][5 + number]), 0)  # top classes: cards received
            assert held == int(t[6][number]) + extra
            seen += 1
    assert seen == 5  # the second game has an exchange: five start tables


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


@pytest.mark.parametrize("seed, duplicate", [(0, False), (7, True)])
def test_our_server_and_five_of_our_clients_end_to_end(seed, duplicate):
    result, summaries = _serve_our_clients(10, seed, duplicate)
    assert result["complete"], result["ended"]
    assert result["games"] == 10
    served = np.sum([g["points"] for g in result["points"]], axis=0).tolist()
    for summary in summaries:
        assert isinstance(summary, client.Summary), summary
        assert summary.games == 10 and summary.refused == 0
        assert summary.points == served  # each client's count of every player's points
    assert sum(served) == 10 * 15
    assert result["refused"] == [0] * 5 and result["unreadable"] == [0] * 5
    report = server.format_report(result)
    assert f"95% interval (over {'deals' if duplicate else 'games'})" in report


def test_duplicate_deals_give_each_player_each_seat_of_a_deal():
    game = uecda_game()
    hands, classes = server.deal_plan(game, 0, 2)[1]
    assert sorted(classes) == [0, 1, 2, 3, 4]
    assert server.deal_plan(game, 0, 2)[0][1] is None  # the first deal: no exchange
    assert server._match_lengths(100) == [100]
    assert server._match_lengths(2000) == [900, 900, 200]


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
    (("play", "--cpu", "cpus/daifugo"), "trained on 'daifugo', not 'uecda'"),
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


def _row6(table, counts, order):
    table[6][0:5] = counts
    table[6][10:15] = order


def test_a_pass_on_an_empty_pile_stays_until_the_pile_clears():
    """Regression (the first round's client forgot every pass whenever a turn table said the
    pile was empty; under the preset a leader's pass keeps it out until the pile clears): the
    rebuilt position has player 1's pass, and its seat order is the table's."""
    game = GAME
    deck = game.deck
    view = client.GameView(game, 2)
    order = [3, 1, 2, 0, 4]
    counts = [11, 11, 10, 10, 11]
    hand = deck.parse("3s 4h 5d 6c 7s 8h 9d Tc Js Qh")
    start = tables.hand_to_table(deck, hand)
    start[5][0] = 1
    _row6(start, counts, order)
    view.start(start)
    turn = tables.hand_to_table(deck, hand)
    _row6(turn, counts, order)
    turn[5][3], turn[5][4] = 1, 1  # player 1 to move on an empty pile
    view.turn(turn)
    pile = tables.new_table()
    pile[5][3] = 1  # it passed: the pile table is unchanged
    view.acted(pile)
    turn[5][2], turn[5][3] = 1, 2  # now us, the pile still empty
    view.turn(turn)
    state = view.position(np.random.default_rng(0))
    assert state.passed >> 1 & 1
    assert state.order == tuple(order)
    assert state.pile < 0 and state.current_player == 2
    assert game.catalog.pass_id in state.legal_actions()
