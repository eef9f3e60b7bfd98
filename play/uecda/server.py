"""A UECda server of ours (``climbrl uecda serve``): five clients, protocol 20070, the rules
of the engine's UECda preset (:mod:`climbrl.play.uecda.rules`).

The conversation is the standard one: the profile and the player number; per game the
game-start tables (the two lower classes' hands first, as dealt, then the two top classes'
with the cards the exchange brought them; the cards held as dealt), the top classes' gifts, then per turn a table to every player, the
mover's move, the answer (9 accepted, 8 refused or a pass), the pile table to every player
(``[5][3]`` the actor) and 0 / 1 / 2 (game on, game over, all over).

The schedule (the default) is the official server's: the games are one engine match of the
preset (engine seats are player numbers), so seats are redrawn every 3 games, a class block's
first game has no exchange, the 3 of diamonds' holder leads, and the stall guard ranks the
players still in at random after 20 passes in a row. The report: each player's points per
game with a 95% interval over games.

Duplicate deals (``duplicate=True``): the games come in sets of five, one per rotation of the
players over the seats of one deal (hands, classes and the seat order's first seat are the
deal's), so each program plays each seat of each deal. The first deal has no exchange; each
later deal gives its seats classes at random (the exchange then applies as the standard
says). The report: each player's points per game with a 95% interval over deals.

Rulings, as the official server's: a move that is not legal, or cannot be read, is refused
(8) and counts as a pass (a pass is legal for every mover, the leader included). An invalid
gift is replaced by the giver's strongest cards. A client that closes its connection or stays
silent past the time limit ends the run: the report names it and counts the games finished
before.
"""

from __future__ import annotations

import math
import socket
import sys
import time

import numpy as np

from climbrl.envs.core.bits import iter_bits
from climbrl.envs.daifugo import PHASE_EXCHANGE
from climbrl.envs.daifugo.engine import SEED_LIMIT
from climbrl.envs.daifugo.rules import UECDA_CLASS_BLOCK, UECDA_RESEAT_EVERY, max_rounds
from climbrl.training.stats import mean_ci

from . import tables
from .rules import PRESET, uecda_game, uecda_match
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


def deal_plan(game, seed: int, deals: int) -> list[tuple[list[int], list[int] | None]]:
    """Each duplicate deal's hands by seat and classes by seat (None: no exchange, the first
    deal)."""
    rng = np.random.default_rng(seed % SEED_LIMIT)
    plan = []
    for d in range(deals):
        hands, _first = game.deal(int(rng.integers(2**62)), 0, None)
        classes = None if d == 0 else [int(c) for c in rng.permutation(PLAYERS)]
        plan.append((hands, classes))
    return plan


def _match_lengths(games: int) -> list[int]:
    """The schedule's games as engine matches: one match when the preset allows that many
    rounds, else matches of whole class blocks and reseating periods."""
    most = max_rounds(PRESET)
    if games <= most:
        return [games]
    size = most - most % math.lcm(UECDA_CLASS_BLOCK, UECDA_RESEAT_EVERY)
    return [size] * (games // size) + ([games % size] if games % size else [])


def serve(host: str, port: int, games: int, seed: int = 0, timeout_s: float = 120.0,
          record: str | None = None, log=None, duplicate: bool = False) -> dict:
    """Host ``games`` games (duplicate: rounded up to whole deals of 5 rotations); the
    report."""
    log = log or (lambda text: print(f"uecda serve: {text}", file=sys.stderr))
    report = {"names": [], "games": 0, "points": [], "refused": [0] * PLAYERS,
              "unreadable": [0] * PLAYERS, "gifts_replaced": [0] * PLAYERS,
              "complete": False, "ended": "", "seconds": 0.0, "duplicate": duplicate}
    start = time.perf_counter()
    try:
        table = accept_clients(host, port, timeout_s, record, log)
    except (ClientGone, OSError) as err:
        report["ended"] = f"stopped before the first game: {err}"
        return report
    report["names"] = table.names
    start = time.perf_counter()  # the games' time, not the wait for the clients
    try:
        if duplicate:
            _serve_duplicate(table, games, seed, report, log)
        else:
            _serve_schedule(table, games, seed, report, log)
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


def _serve_schedule(table: Table, games: int, seed: int, report: dict, log) -> None:
    """The official schedule: engine matches of the preset, player p in engine seat p."""
    players = list(range(PLAYERS))
    lengths = _match_lengths(games)
    for m, length in enumerate(lengths):
        state = uecda_match(length).new_state(np.random.default_rng([seed % SEED_LIMIT, m]),
                                              {"seed": (seed + m) % SEED_LIMIT})
        while not state.terminal:
            last = report["games"] + 1 == games
            points = play_game(state, table, players, last, report, log)
            report["points"].append({"deal": report["games"], "points": points})
            report["games"] += 1


def _serve_duplicate(table: Table, games: int, seed: int, report: dict, log) -> None:
    """Duplicate deals: each deal played five times, the players rotated over its seats."""
    game = uecda_game()
    deck = game.deck
    deals = -(-games // PLAYERS)
    total = deals * PLAYERS
    for d, (hands, classes) in enumerate(deal_plan(game, seed, deals)):
        options = {"hands": [deck.format(h) for h in hands], "seed": (seed + d) % SEED_LIMIT}
        if classes is not None:
            options["titles"] = classes
        for k in range(PLAYERS):
            players = [(s + k) % PLAYERS for s in range(PLAYERS)]  # the player in each seat
            state = game.new_state(np.random.default_rng(0), options)
            last = report["games"] + 1 == total
            points = play_game(state, table, players, last, report, log)
            report["points"].append({"deal": d, "points": points})
            report["games"] += 1


def _state_table(game, hand: int, counts, classes, order) -> np.ndarray:
    out = tables.hand_to_table(game.deck, hand)
    row = out[SEAT_ROW]
    row[COUNTS_AT:COUNTS_AT + PLAYERS] = counts
    row[CLASSES_AT:CLASSES_AT + PLAYERS] = classes
    row[SEATS_AT:SEATS_AT + PLAYERS] = order
    return out


def _strongest(game, hand: int, count: int) -> int:
    cards = sorted(iter_bits(hand), key=game.give_key.__getitem__, reverse=True)[:count]
    return sum(1 << c for c in cards)


def _give_id(game, card: int) -> int:
    """The engine's exchange action that gives back ``card``."""
    cat, deck = game.catalog, game.deck
    if deck.is_joker(card):
        return cat.give_joker
    rank, suit = deck.rank_suit(card)
    return cat.give_id[rank][suit]


def play_game(state, table: Table, players: list[int], last: bool, report, log) -> list[int]:
    """One game (the engine round ``state`` is at the start of, its exchange included), the
    player in engine seat s being ``players[s]``; the points of each player by number."""
    game = state.game
    deck, cat = game.deck, game.catalog
    points = game.rules.points
    seat_of = {p: s for s, p in enumerate(players)}
    round_index = state.round
    exchange = state.phase == PHASE_EXCHANGE
    classes = [state.titles[seat_of[p]] if exchange else 0 for p in range(PLAYERS)]
    order = [players[s] for s in state.order]

    def counts():
        return [state.hands[seat_of[p]].bit_count() for p in range(PLAYERS)]

    gifts = {players[receiver]: count for receiver, _giver, count in state.pending}
    # as the official server: every start table counts the cards as dealt; the lower classes
    # see their hands before their strongest cards are taken, the top classes theirs with
    # the cards received
    dealt = [state.deal_hands[seat_of[p]].bit_count() for p in range(PLAYERS)]
    for p in sorted(range(PLAYERS), key=lambda p: -classes[p]):  # lower classes first
        seat = seat_of[p]
        shown = state.deal_hands[seat] | state.received[seat]
        start = _state_table(game, shown, dealt, classes, order)
        start[EXCHANGE_FLAG] = 1
        start[GIFT_COUNT] = gifts.get(p, 0)
        table.call(p, Wire.send_table, start)
    while state.phase == PHASE_EXCHANGE:
        seat, count = state.current_player, state.pending[0][2]
        p = players[seat]
        hand = state.hands[seat]
        try:
            gift = tables.table_to_hand(deck, table.call(p, Wire.read_table))
        except TableError:
            gift = -1
        if gift < 0 or gift.bit_count() != count or gift & ~hand:
            report["gifts_replaced"][p] += 1
            log(f"player {p} ({table.names[p]}): an invalid gift; its strongest cards go instead")
            gift = _strongest(game, hand, count)
        for card in iter_bits(gift):
            state.apply(_give_id(game, card))
    pile = tables.new_table()
    while state.round == round_index and not state.terminal:
        seat = state.current_player
        mover = players[seat]
        for p in range(PLAYERS):
            turn = _state_table(game, state.hands[seat_of[p]], counts(), classes, order)
            turn[MY_TURN] = int(p == mover)
            turn[TO_MOVE] = mover
            turn[NEW_TRICK] = int(state.pile < 0)
            turn[REVOLUTION] = int(state.revolution)
            turn[LOCK] = int(state.lock != 0)
            table.call(p, Wire.send_table, turn)
        sent = table.call(mover, Wire.read_table)
        try:
            action = tables.table_to_move(game, sent)
        except TableError as err:
            report["unreadable"][mover] += 1
            log(f"player {mover} ({table.names[mover]}): refused, {err}")
            action = -1
        accepted = action != cat.pass_id and action in state.legal_actions()
        table.call(mover, Wire.send_int, ACCEPTED if accepted else REFUSED)
        if accepted:
            pile = sent.copy()
            pile[tables.CARD_ROWS:] = 0
        else:
            if action not in (-1, cat.pass_id):
                report["refused"][mover] += 1
                log(f"player {mover} ({table.names[mover]}): refused "
                    f"{game.action_to_str(action)!r}, not legal now")
            action = cat.pass_id  # a refused move counts as a pass
        state.apply(action)
        pile[TO_MOVE] = mover
        for p in range(PLAYERS):
            table.call(p, Wire.send_table, pile)
        over = state.round != round_index or state.terminal
        end = GAME_ON if not over else (ALL_OVER if last else GAME_OVER)
        for p in range(PLAYERS):
            table.call(p, Wire.send_int, end)
    # the round's places are the titles it leaves (the next round, if any, has begun)
    return [points[state.titles[seat_of[p]]] for p in range(PLAYERS)]


def format_report(report: dict) -> str:
    """Points per game per player with 95% intervals: over deals (each deal: its 5 rotations)
    with duplicate deals, else over games."""
    lines = [f"{report['games']} games in {report['seconds']:.1f} s; {report['ended']}"]
    if not report["points"]:
        return lines[0]
    by_deal: dict[int, list[list[int]]] = {}
    for entry in report["points"]:
        by_deal.setdefault(entry["deal"], []).append(entry["points"])
    over = "deals" if report.get("duplicate") else "games"
    lines.append(f"{'player':<8}{'name':<12}{'points/game':>12}  95% interval (over {over})"
                 f"  refused  unreadable  gifts replaced")
    for p, name in enumerate(report["names"]):
        per_deal = [float(np.mean([g[p] for g in games])) for games in by_deal.values()]
        mean, low, high = mean_ci(per_deal)
        lines.append(f"{p:<8}{name:<12}{mean:>12.3f}  [{low:.3f}, {high:.3f}]"
                     f"{report['refused'][p]:>21}{report['unreadable'][p]:>12}"
                     f"{report['gifts_replaced'][p]:>16}")
    if report["games"]:
        lines.append(f"{report['games'] / max(report['seconds'], 1e-9):.1f} games per second")
    return "\n".join(lines)
