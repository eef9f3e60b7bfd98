"""A UECda program as a player of ours: the player spec ``uecda:<command>``.

``climbrl eval --game uecda --players scripted-hard,uecda:/path/client -h {host} -p {port} -n
{name},...`` seats any UECda client program (protocol 20070) at our tables, so the harness's
duplicate deals, intervals and ladder measure it against our players. The command is split
like a shell line; ``{host}``, ``{port}`` and ``{name}`` in it are filled in.

Each :class:`ProgramPlayer` is the server side of one connection. On its first decision it
listens on 127.0.0.1 (a free port), starts the program in its own process group, accepts its
connection and profile and gives it player number 0 (the other seats are numbered after it in
seat order). From then on it tells the program the game as a UECda server would: a game-start
table when a game begins (with the gift to give back when it is a top class), every other
player's action since its last turn (a turn table, the pile table, "game on"), then its own
turn table; it reads the program's move and answers 9 or 8. A move that is not legal, or a
table that cannot be read, is refused (8) and plays a pass, as on the official server. Between
two of its turns the program sees every action's pile table; the turn tables of the others'
turns carry the state as of its own turn (the protocol sends them, our harness shows a player
only its own decisions). A game's end reaches it with the next game's start (the last pile and
"game over"); the tournament's end as "every game is over", then the connection closes and the
program's process group ends (at once, with the harness, or with the process running it).

Its time limit per decision is :data:`DECISION_LIMIT_S`; past it, or when the program closes
its connection or exits, the run stops with one line (the harness's ``PlayerError`` names the
player, its command, and its seat).
"""

from __future__ import annotations

import atexit
import os
import shlex
import signal
import socket
import subprocess
import time
import weakref

import numpy as np

from climbrl.envs.core.bits import iter_bits
from climbrl.policies.base import Player

from . import tables
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
    Wire,
    WireClosed,
    WireSilent,
)

PREFIX = "uecda:"
#: seconds the program has for each decision (a move or a gift)
DECISION_LIMIT_S = 10.0
#: seconds it has to connect and send its profile after it starts
CONNECT_LIMIT_S = 30.0
#: seconds it has to exit after the connection closes, before its process group is killed
EXIT_GRACE_S = 2.0
#: how often the accept loop looks whether the program already exited
POLL_S = 0.1
PASS_TEXT, GIVE_WORD = "pass", "give"
HOST = "127.0.0.1"
#: the player number the program gets, and the name it is given for ``{name}``
NUMBER = 0
CLIENT_NAME = "uecda"


class ProgramError(RuntimeError):
    """The program could not go on (it exited, closed, went silent or spoke another
    protocol); one line naming it."""


def is_spec(spec: str) -> bool:
    return isinstance(spec, str) and spec.startswith(PREFIX)


def load(spec: str, seed=None) -> ProgramPlayer:
    """The player of a ``uecda:<command>`` spec; ``ValueError`` for an empty or unsplittable
    command."""
    command = spec[len(PREFIX):].strip()
    if not command:
        raise ValueError("uecda:<command> needs a command, e.g. uecda:./client -h {host} "
                         "-p {port} -n {name}")
    try:
        words = shlex.split(command)
    except ValueError as err:
        raise ValueError(f"uecda:{command}: the command cannot be split ({err})") from None
    player = ProgramPlayer(words, seed)
    player.name = spec
    return player


class ProgramPlayer(Player):
    """One connection to a UECda program (module docstring)."""

    def __init__(self, words: list[str], seed=None):
        self._match = object()
        super().__init__(seed)
        self.words = words
        self.link: _Link | None = None
        self._game = None
        self._told = 0
        self._gifts: list[int] = []

    @property
    def refused(self) -> int:
        """The program's moves and gifts refused so far (each played as a pass / replaced)."""
        return 0 if self.link is None else self.link.refused

    # -- the harness's side ------------------------------------------------------------------

    def seed(self, seed) -> None:
        super().seed(seed)
        self._match = object()  # the harness seeds a player before every match it plays

    def bind(self, game):
        rules = getattr(game, "rules", None)
        if getattr(rules, "preset_name", None) != "uecda" or game.num_players != PLAYERS:
            raise ValueError(f"{PREFIX}<command> plays the UECda rules only (--game uecda, 5 "
                             "players)")
        return super().bind(game)

    def act(self, observation, view) -> int:
        game = self._require_game()
        if self.link is None:
            self.link = _Link.start(self.words)
            # the program ends with this player, with the interpreter, or with its parent
            weakref.finalize(self, self.link.stop)
            atexit.register(self.link.stop)
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        try:
            return self._decide(game, view, legal)
        except (WireClosed, WireSilent) as err:
            raise ProgramError(self.link.gone(err)) from None

    def close(self) -> None:
        """Tell the program every game is over, close the connection, end its processes."""
        if self.link is not None:
            self.link.stop()

    # -- the conversation --------------------------------------------------------------------

    def _decide(self, game, view, legal: list[int]) -> int:
        link, seat = self.link, view["seat"]
        key = (self._match, view["round"])
        if key != self._game or len(view["history"]) < self._told:
            if self._game is not None:
                link.end_game(GAME_OVER)
            self._game = key
            self._begin_game(game, view)
        if view["phase"] == "exchange":
            return self._give(legal, view)
        self._catch_up(game, view)
        link.wire.send_table(self._turn_table(game, view, seat))
        sent = link.wire.read_table()
        cat = game.catalog
        try:
            action = tables.table_to_move(game, sent)
        except TableError:
            action = -1
        accepted = action != cat.pass_id and action in legal
        link.wire.send_int(ACCEPTED if accepted else REFUSED)
        if not accepted:
            if action != cat.pass_id:
                link.refused += 1
            action = cat.pass_id  # a refused move plays a pass, as on the official server
        self._told = len(view["history"]) + 1  # its own action comes next in the history
        self._after(game, view, seat, action)
        return action

    @staticmethod
    def _numbers(view) -> list[int]:
        """Engine seat -> player number: the program is 0, the others after it in seat order."""
        me = view["seat"]
        return [(s - me) % PLAYERS for s in range(PLAYERS)]

    def _table(self, game, view, hand: int) -> np.ndarray:
        """A table holding ``hand`` and row 6 (cards held, classes, the seat order)."""
        out = tables.hand_to_table(game.deck, hand)
        number = self._numbers(view)
        row = out[SEAT_ROW]
        for s in range(PLAYERS):
            row[COUNTS_AT + number[s]] = view["hand_counts"][s]
            title = view["title_places"][s]
            row[CLASSES_AT + number[s]] = 0 if title is None else title
        for i, s in enumerate(view["order"]):
            row[SEATS_AT + i] = number[s]
        return out

    def _begin_game(self, game, view) -> None:
        """The game-start table: a lower class's hand as dealt (with the cards the exchange
        took), a top class's with the cards received and the count it gives back."""
        deck = game.deck
        hand = deck.parse(view["hand"])
        to_give = view["exchange"]["to_give"] if view["phase"] == "exchange" else 0
        shown = hand if to_give else hand | deck.parse(view["exchange"]["gave"])
        start = self._table(game, view, shown)
        start[EXCHANGE_FLAG] = 1
        start[GIFT_COUNT] = to_give
        self.link.wire.send_table(start)
        self.link.last_turn = start
        self.link.pile = tables.new_table()
        self._told = 0
        self._gifts = self._read_gift(game, hand, to_give) if to_give else []

    def _read_gift(self, game, hand: int, count: int) -> list[int]:
        deck, cat = game.deck, game.catalog
        try:
            gift = tables.table_to_hand(deck, self.link.wire.read_table())
        except TableError:
            gift = -1
        if gift < 0 or gift.bit_count() != count or gift & ~hand:
            self.link.refused += 1
            gift = sum(1 << c for c in list(iter_bits(hand))[:count])  # replaced, as the server does
        out = []
        for card in iter_bits(gift):
            if deck.is_joker(card):
                out.append(cat.give_joker)
            else:
                rank, suit = deck.rank_suit(card)
                out.append(cat.give_id[rank][suit])
        return out

    def _give(self, legal: list[int], view) -> int:
        self._told = len(view["history"]) + 1
        while self._gifts:
            action = self._gifts.pop(0)
            if action in legal:
                return action
        return legal[0]

    def _catch_up(self, game, view) -> None:
        """Tell the program the actions since its last one (exchange gives are not turns)."""
        cat = game.catalog
        for mover, text in view["history"][self._told:]:
            if text.startswith(GIVE_WORD):
                continue
            action = cat.pass_id if text == PASS_TEXT else cat.action_from_str(text)
            self.link.wire.send_table(self._turn_table(game, view, mover))
            self._after(game, view, mover, action)
        self._told = len(view["history"])

    def _turn_table(self, game, view, mover: int) -> np.ndarray:
        out = self._table(game, view, game.deck.parse(view["hand"]))
        out[MY_TURN] = int(mover == view["seat"])
        out[TO_MOVE] = self._numbers(view)[mover]
        out[NEW_TRICK] = int(view["pile"] is None)
        out[REVOLUTION] = int(view["revolution"])
        out[LOCK] = int(view["lock"] is not None)
        self.link.last_turn = out
        return out

    def _after(self, game, view, mover: int, action: int) -> None:
        """The pile table after ``mover``'s ``action`` (unchanged after a pass), "game on"."""
        link = self.link
        if action != game.catalog.pass_id:
            link.pile = tables.move_to_table(game, action)
        link.pile[TO_MOVE] = self._numbers(view)[mover]
        link.wire.send_table(link.pile)
        link.wire.send_int(GAME_ON)


class _Link:
    """The program's process and connection (kept apart from the player, so that the
    player's end can stop them)."""

    def __init__(self, process: subprocess.Popen, wire: Wire):
        self.process = process
        self.wire = wire
        self.refused = 0
        self.pile = tables.new_table()
        self.last_turn = tables.new_table()
        self.stopped = False

    @classmethod
    def start(cls, words: list[str]) -> _Link:
        """Listen, start the program, accept it, read its profile, give it its number."""
        with socket.create_server((HOST, 0)) as listener:
            port = listener.getsockname()[1]
            args = [w.replace("{host}", HOST).replace("{port}", str(port))
                    .replace("{name}", CLIENT_NAME) for w in words]
            try:
                process = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                           stdout=subprocess.DEVNULL, start_new_session=True,
                                           preexec_fn=_die_with_parent)
            except OSError as err:
                raise ProgramError(f"cannot start {args[0]!r}: "
                                   f"{err.strerror or err}") from None
            try:
                sock = _accept(listener, process)
            except ProgramError:
                _end(process)
                raise
        link = cls(process, Wire(sock, DECISION_LIMIT_S))
        try:
            profile = link.wire.read_table()
            if profile[0, 0] != PROTOCOL_VERSION:
                raise ProgramError(f"the program speaks protocol {int(profile[0, 0])}; we "
                                   f"speak {PROTOCOL_VERSION}")
            link.wire.send_int(NUMBER)
        except (WireClosed, WireSilent) as err:
            link.stop()
            raise ProgramError(link.gone(err, "before its profile")) from None
        except ProgramError:
            link.stop()
            raise
        return link

    def gone(self, err, when: str = "") -> str:
        """One line: what the program did (and its exit status when it exited)."""
        if isinstance(err, WireSilent):
            what = f"did not answer within {DECISION_LIMIT_S:g} s"
        else:
            what = "closed its connection"
            try:
                self.process.wait(POLL_S * 10)
            except subprocess.TimeoutExpired:
                pass
        status = self.process.poll()
        exited = "" if status is None else f"; it exited with status {status}"
        return f"the program {what}{' ' + when if when else ''}{exited}"

    def end_game(self, flag: int) -> None:
        """The game (or every game) is over: a turn table nobody acts on, the last pile, the
        flag."""
        turn = self.last_turn.copy()
        turn[MY_TURN] = 0
        self.wire.send_table(turn)
        self.wire.send_table(self.pile)
        self.wire.send_int(flag)

    def stop(self) -> None:
        """Every game is over: tell the program, close, give it a moment, end its group."""
        if self.stopped:
            return
        self.stopped = True
        if self.process.poll() is None:
            try:
                self.end_game(ALL_OVER)
            except (WireClosed, WireSilent, OSError):
                pass
        self.wire.close()
        _end(self.process)


def _accept(listener: socket.socket, process: subprocess.Popen) -> socket.socket:
    listener.settimeout(POLL_S)
    deadline = time.monotonic() + CONNECT_LIMIT_S
    while time.monotonic() < deadline:
        try:
            sock, _ = listener.accept()
            return sock
        except socket.timeout:
            pass
        if process.poll() is not None:
            raise ProgramError(f"the program exited with status {process.returncode} "
                               "before it connected")
    raise ProgramError(f"the program did not connect within {CONNECT_LIMIT_S:g} s")


def _end(process: subprocess.Popen) -> None:
    """Wait :data:`EXIT_GRACE_S` for the program to exit, then kill its process group."""
    try:
        process.wait(EXIT_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # its children too (a shell's, a wrapper's)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _die_with_parent() -> None:
    """In the program's process, before it starts: end when the process that started it ends."""
    from climbrl.training.children import _set_death_signal

    _set_death_signal(signal.SIGKILL)
