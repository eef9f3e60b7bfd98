"""A tiny UECda client program (protocol 20070) for the tests: it leads its lowest single
card and passes on any pile; gifts its first cards. Not a climbrl import: any program.

usage: python tests/uecda_fake_client.py HOST PORT NAME [--crash-after N] [--hang-after N]
(--crash-after: exit with status 3 after N moves; --hang-after: stop answering after N)
"""

import socket
import struct
import sys
import time

ROWS, COLS = 8, 15
TABLE = ROWS * COLS * 4


def read_exact(sock, size):
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            sys.exit(0)  # the server closed: every game is over
        data += chunk
    return data


def read_table(sock):
    values = struct.unpack(">120i", read_exact(sock, TABLE))
    return [list(values[r * COLS:(r + 1) * COLS]) for r in range(ROWS)]


def send_table(sock, table):
    sock.sendall(struct.pack(">120i", *[v for row in table for v in row]))


def read_int(sock):
    return struct.unpack(">i", read_exact(sock, 4))[0]


def empty():
    return [[0] * COLS for _ in range(ROWS)]


def cards(table):
    """(column, row) of each real card held, lowest rank first."""
    return sorted((c, r) for r in range(4) for c in range(1, 14) if table[r][c] == 1)


def main():
    host, port, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    crash = int(sys.argv[sys.argv.index("--crash-after") + 1]) if "--crash-after" in sys.argv else -1
    hang = int(sys.argv[sys.argv.index("--hang-after") + 1]) if "--hang-after" in sys.argv else -1
    sock = socket.create_connection((host, port))
    profile = empty()
    profile[0][0] = 20070
    for i, ch in enumerate(name[:15]):
        profile[1][i] = ord(ch)
    send_table(sock, profile)
    read_int(sock)
    moves = 0
    while True:
        start = read_table(sock)
        if start[5][1] > 0:
            gift = empty()
            for col, row in cards(start)[:start[5][1]]:
                gift[row][col] = 1
            send_table(sock, gift)
        while True:
            turn = read_table(sock)
            if turn[5][2] == 1:
                if moves == crash:
                    sys.exit(3)
                if moves == hang:
                    time.sleep(3600)
                move = empty()
                held = cards(turn)
                if turn[5][4] == 1 and held:
                    col, row = held[0]
                    move[row][col] = 1
                send_table(sock, move)
                read_int(sock)
                moves += 1
            read_table(sock)
            end = read_int(sock)
            if end == 2:
                return
            if end == 1:
                break


if __name__ == "__main__":
    main()
