"""A UECda server of ours (``climbrl uecda serve``): five clients, protocol 20070, the rules
of our engine (:func:`climbrl.play.uecda.rules.uecda_rules`), duplicate deals.

The conversation is the standard one: the profile and the player number; per game the
game-start tables (the two lower classes' hands first, then the two top classes' after the
exchange reached them), the top classes' gifts, then per turn a table to every player, the
mover's move, the answer (9 accepted, 8 refused or a pass), the pile table to every player
(``[5][3]`` the actor) and 0 / 1 / 2 (game on, game over, all over).

Duplicate deals: the games come in sets of five, one per rotation of the players over the
seats of one deal (hands, classes and the seat order's first seat are the deal's), so each
program plays each seat of each deal. The first deal has no exchange; each later deal gives
its seats classes at random (the exchange then applies as the standard says). The report:
each player's points per game with a 95% interval over deals.

Rulings: a move that is not legal, or cannot be read, is refused (8) and counts as a pass;
a leader may not pass in our engine, so a leader's pass or refused move plays its lowest
legal move instead (logged). A client that closes its connection or stays silent past the
time limit ends the run: the report names it and counts the games finished before.
"""

from __future__ import annotations

import socket
import sys
import time

import numpy as np

from climbrl.envs.core.bits import iter_bits
from climbrl.training.stats import mean_ci

from . import tables
from .rules import EXCHANGE, POINTS, uecda_game
from .tables import TableError
from .wire import (
    ACCEPTED,
    ALL_OVER,
    CLASSES_AT,
    COUNTS_AT,
    EXCHANGE_FLAG,
    GAME_ON,
    GAME_OVER,
    GIFT_COUNT,
    LOCK,
    MY_TURN,
    NEW_TRICK,
    PLAYERS,
    PROTOCOL_VERSION,
    REFUSED,
    REVOLUTION,
    SEAT_ROW,
    SEATS_AT,
    TO_MOVE,
    JsonLinesRecorder,
    Wire,
    WireClosed,
    WireSilent,
    profile_name,
)

#: seconds a client has to send its profile after it connects
PROFILE_TIMEOUT_S = 2.5
ACCEPT_TIMEOUT_S = 600.0


class ClientGone(Exception):
    """A client closed, went silent or sent no profile; names it."""


class Table:
    """The five connections, by player number."""

    def __init__(self, wires: list[Wire], names: list[str]):
        self.wires = wires
        self.names = names

    def call(self, player: int, what, *args):
        try:
            return what(self.wires[player], *args)
        except (WireClosed, WireSilent) as err:
            raise ClientGone(f"player {player} ({self.names[player]}): {err}") from None


def accept_clients(host: str, port: int, timeout_s: float, record: str | None, log) -> Table:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(PLAYERS)
    listener.settimeout(ACCEPT_TIMEOUT_S)
    log(f"listening on {host}:{port} for {PLAYERS} clients")
    wires, names = [], []
    try:
        for number in range(PLAYERS):
            sock, address = listener.accept()
            recorder = JsonLinesRecorder(f"{record}.{number}") if record else None
            wire = Wire(sock, PROFILE_TIMEOUT_S, recorder)
            try:
                profile = wire.read_table()
            except (WireClosed, WireSilent) as err:
                raise ClientGone(f"client {number} from {address[0]} sent no profile: {err}") from None
            if profile[0, 0] != PROTOCOL_VERSION:
                raise ClientGone(f"client {number} speaks protocol {int(profile[0, 0])}; this "
                                 f"server speaks {PROTOCOL_VERSION} only")
            wire.sock.settimeout(timeout_s)
            wire.timeout = timeout_s
            wire.send_int(number)
            wires.append(wire)
            names.append(profile_name(profile) or f"player{number}")
            log(f"player {number}: {names[-1]}")
    finally:
        listener.close()
    return Table(wires, names)


def deal_plan(game, seed: int, deals: int) -> list[tuple[list[int], list[int]]]:
    """Each deal's hands by seat and classes by seat (all 0: no exchange, the first deal)."""
    rng = np.random.default_rng(seed)
    plan = []
    for d in range(deals):
        hands, _first = game.deal(int(rng.integers(2**62)), 0, None)
        classes = [0] * PLAYERS if d == 0 else [int(c) for c in rng.permutation(PLAYERS)]
        plan.append((hands, classes))
    return plan


def serve(host: str, port: int, games: int, seed: int = 0, timeout_s: float = 120.0,
          record: str | None = None, log=None) -> dict:
    """Host ``games`` games (rounded up to whole deals of 5 rotations); the report."""
    log = log or (lambda text: print(f"uecda serve: {text}", file=sys.stderr))
    game = uecda_game()
    deals = -(-games // PLAYERS)
    report = {"names": [], "games": 0, "points": [], "refused": [0] * PLAYERS,
              "forced": [0] * PLAYERS, "complete": False, "ended": "", "seconds": 0.0}
    start = time.perf_counter()
    try:
        table = accept_clients(host, port, timeout_s, record, log)
    except (ClientGone, OSError) as err:
        report["ended"] = f"stopped before the first game: {err}"
        return report
    report["names"] = table.names
    plan = deal_plan(game, seed, deals)
    total = deals * PLAYERS
    try:
        for d, (hands, classes) in enumerate(plan):
            for k in range(PLAYERS):
                seats = [(s + k) % PLAYERS for s in range(PLAYERS)]
                last = report["games"] + 1 == total
                points = play_game(game, table, hands, classes, seats, last, report, log)
                report["points"].append({"deal": d, "points": points})
                report["games"] += 1
        report["complete"] = True
        report["ended"] = "all games over"
    except ClientGone as err:
        report["ended"] = f"stopped after {report['games']} games: {err}"
        log(report["ended"])
    finally:
        for wire in table.wires:
            if wire.recorder is not None:
                wire.recorder.close()
            wire.close()
        report["seconds"] = time.perf_counter() - start
    return report


def _state_table(game, hand: int, counts, classes, seats) -> np.ndarray:
    out = tables.hand_to_table(game.deck, hand)
    row = out[SEAT_ROW]
    row[COUNTS_AT:COUNTS_AT + PLAYERS] = counts
    row[CLASSES_AT:CLASSES_AT + PLAYERS] = classes
    row[SEATS_AT:SEATS_AT + PLAYERS] = seats
    return out


def _strongest(game, hand: int, count: int) -> int:
    cards = sorted(iter_bits(hand), key=game.give_key.__getitem__, reverse=True)[:count]
    return sum(1 << c for c in cards)


def play_game(game, table: Table, seat_hands, seat_classes, seats, last: bool, report, log):
    """One game; the points of each player (by player number)."""
    deck = game.deck
    seat_of = {p: s for s, p in enumerate(seats)}
    hands = [seat_hands[seat_of[p]] for p in range(PLAYERS)]
    classes = [seat_classes[seat_of[p]] for p in range(PLAYERS)]
    exchange = any(classes)

    def counts():
        return [h.bit_count() for h in hands]

    gifts = {}
    if exchange:
        of_class = {c: p for p, c in enumerate(classes)}
        for tier, count in enumerate(EXCHANGE):
            giver, receiver = of_class[PLAYERS - 1 - tier], of_class[tier]
            cards = _strongest(game, hands[giver], count)
            hands[giver] ^= cards
            hands[receiver] |= cards
            gifts[receiver] = (giver, count)
    order = sorted(range(PLAYERS), key=lambda p: -classes[p])  # lower classes first
    for p in order:
        start = _state_table(game, hands[p], counts(), classes if exchange else [0] * PLAYERS, seats)
        start[EXCHANGE_FLAG] = 1
        start[GIFT_COUNT] = gifts[p][1] if p in gifts else 0
        table.call(p, Wire.send_table, start)
    for p in sorted(gifts, key=lambda p: classes[p]):
        giver, count = gifts[p]
        sent = table.call(p, Wire.read_table)
        try:
            gift = tables.table_to_hand(deck, sent)
        except TableError:
            gift = -1
        if gift < 0 or gift.bit_count() != count or gift & ~hands[p]:
            log(f"player {p} ({table.names[p]}): an invalid gift; its strongest cards go instead")
            gift = _strongest(game, hands[p], count)
        hands[p] ^= gift
        hands[giver] |= gift
    diamond_three = game.diamond_three_bit
    leader = next(seat_of[p] for p in range(PLAYERS) if hands[p] & diamond_three)
    state = game.new_state(np.random.default_rng(0), {
        "hands": [deck.format(hands[seats[s]]) for s in range(PLAYERS)], "leader": leader})
    pile = tables.new_table()
    cat = game.catalog
    while not state.terminal:
        seat = state.current_player
        mover = seats[seat]
        for p in range(PLAYERS):
            turn = _state_table(game, state.hands[seat_of[p]], _counts(state, seat_of),
                                classes if exchange else [0] * PLAYERS, seats)
            turn[MY_TURN] = int(p == mover)
            turn[TO_MOVE] = mover
            turn[NEW_TRICK] = int(state.pile < 0)
            turn[REVOLUTION] = int(state.revolution)
            turn[LOCK] = int(state.lock != 0)
            table.call(p, Wire.send_table, turn)
        sent = table.call(mover, Wire.read_table)
        legal = state.legal_actions()
        try:
            action = tables.table_to_move(game, sent)
        except TableError as err:
            log(f"player {mover} ({table.names[mover]}): refused, {err}")
            action = -1
        accepted = action in legal and action != cat.pass_id
        table.call(mover, Wire.send_int, ACCEPTED if accepted else REFUSED)
        if not accepted:
            if action != cat.pass_id:
                report["refused"][mover] += 1
                if action >= 0:
                    log(f"player {mover} ({table.names[mover]}): refused "
                        f"{game.action_to_str(action)!r}, not legal now")
            action = cat.pass_id
            if cat.pass_id not in legal:
                action = legal[0]
                report["forced"][mover] += 1
                log(f"player {mover} ({table.names[mover]}) leads and did not play: "
                    f"{game.action_to_str(action)!r} is played for it")
        if action != cat.pass_id:
            pile = tables.move_to_table(game, action) if not accepted else sent.copy()
            pile[5:] = 0
        state.apply(action)
        pile[TO_MOVE] = mover
        for p in range(PLAYERS):
            table.call(p, Wire.send_table, pile)
        end = GAME_ON if not state.terminal else (ALL_OVER if last else GAME_OVER)
        for p in range(PLAYERS):
            table.call(p, Wire.send_int, end)
    return [POINTS[state.places[seat_of[p]]] for p in range(PLAYERS)]


def _counts(state, seat_of) -> list[int]:
    return [state.hands[seat_of[p]].bit_count() for p in range(PLAYERS)]


def format_report(report: dict) -> str:
    """Points per game per player, 95% intervals over deals (each deal: its 5 rotations)."""
    lines = [f"{report['games']} games in {report['seconds']:.1f} s; {report['ended']}"]
    if not report["points"]:
        return lines[0]
    by_deal: dict[int, list[list[int]]] = {}
    for entry in report["points"]:
        by_deal.setdefault(entry["deal"], []).append(entry["points"])
    lines.append(f"{'player':<8}{'name':<12}{'points/game':>12}  95% interval   refused  forced")
    for p, name in enumerate(report["names"]):
        per_deal = [float(np.mean([g[p] for g in games])) for games in by_deal.values()]
        mean, low, high = mean_ci(per_deal)
        lines.append(f"{p:<8}{name:<12}{mean:>12.3f}  [{low:.3f}, {high:.3f}]"
                     f"{report['refused'][p]:>9}{report['forced'][p]:>8}")
    if report["games"]:
        lines.append(f"{report['games'] / max(report['seconds'], 1e-9):.1f} games per second")
    return "\n".join(lines)
