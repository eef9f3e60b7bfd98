"""A UECda client that seats any player of our registry (``climbrl uecda play``).

It follows the game from the tables the server sends (its hand, the pile after every action
with ``[5][3]`` the actor, the classes, the seat order, the cards held) and, when it must
decide, builds an engine position consistent with what it knows: its own hand; the other
hands dealt at random from the cards it has not seen, in the sizes the server reports; the
pile, the passes (a pass on an empty pile stays until the pile clears), the revolution and
the lock as the server reports them; the game's public history. The position is the engine's
own :meth:`DaifugoGame.from_view` of a view built from the tables. The player then acts on
that position as it would in our own games.

Engine seats are the server's player numbers; the seat order (``[6][10..14]``) is the
engine's ``state.order``. Across the games of a class block it keeps what the server reports
(:mod:`.block`): each game is shown as a round of the match the player was trained on, with
the server's classes as titles, the points so far as scores, and the cards of the exchange it
took part in (a lower class's, read from its start table and first turn table; a top class's
gift, as it sent it). What the server sends is never trusted
to be well formed: a refused move (8) is logged and counts as a pass; a closed connection or a
silent server ends the run with one line; a table that cannot be read ends it with the
table. ``--think`` bounds each decision: past it a fast scripted player's move is sent.
"""

from __future__ import annotations

import concurrent.futures
import socket
import sys
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from climbrl.envs.core.bits import iter_bits
from climbrl.envs.core.game import seat_observation
from climbrl.envs.daifugo import PHASE_EXCHANGE, DaifugoState
from climbrl.envs.daifugo.cards import SUITS
from climbrl.training.errors import RunError

from . import tables
from .block import DEFAULT_ROUNDS, Block, trained_rounds
from .rules import EXCHANGE, POINTS, uecda_game, uecda_match
from .tables import TableError
from .wire import (
    ALL_OVER,
    CLASSES_AT,
    COUNTS_AT,
    GAME_ON,
    GAME_OVER,
    GIFT_COUNT,
    LOCK,
    MY_TURN,
    NEW_TRICK,
    PLAYERS,
    REFUSED,
    REVOLUTION,
    SEAT_ROW,
    SEATS_AT,
    TO_MOVE,
    Wire,
    WireClosed,
    WireSilent,
    profile_table,
)

#: the registered game whose players the client seats (its levels, its trained CPUs)
GAME_NAME = "uecda"
#: the player whose move is sent when the chosen one thinks too long or fails
FALLBACK_PLAYER = "scripted-medium"
DEFAULT_THINK_S = 5.0
#: seconds the client waits for any message before it calls the server silent
DEFAULT_SILENCE_S = 120.0
CONNECT_TIMEOUT_S = 10.0
#: seconds between the connections of --seats N clients (they connect in order)
CONNECT_GAP_S = 0.05


class UecdaError(RunError):
    """The run could not go on (the server closed, went silent or sent a table we cannot
    read); one line."""


class GameView:
    """What one player knows of the game in progress, read from the server's tables. Engine
    seats are player numbers; the seat order (``[6][10..14]``) is the engine's ``order``."""

    def __init__(self, game, me: int, rounds: int = DEFAULT_ROUNDS):
        self.game = game
        self.me = me
        self.block = Block(rounds)
        self.hand = self.played = self.dealt = 0
        self.gave = self.received = 0
        self.exchange_read = True
        self.counts, self.classes = [0] * PLAYERS, [0] * PLAYERS
        self.order = tuple(range(PLAYERS))
        self.finished: list[int] = []
        self.history: list[tuple[int, int]] = []
        self.revolution = self.lock = False
        self.trick_open = False
        self._new_trick()

    def start(self, table) -> None:
        deck = self.game.deck
        self.hand = self.dealt = tables.table_to_hand(deck, table)
        self._read_row6(table)
        self.block.start_game(self.classes)
        self.gave = self.received = 0
        self.exchange_read = False  # the first turn table shows what a lower class's exchange did
        self.played = 0
        self.finished: list[int] = []
        self.history: list[tuple[int, int]] = []
        self._new_trick()
        self.revolution = False
        self.lock = False

    def _new_trick(self) -> None:
        self.pile = -1
        self.pile_cards = 0
        self.pile_known = True
        self.last_player = -1
        self.passed = 0
        self.trick_open = False

    def _read_row6(self, table) -> None:
        row = [int(v) for v in table[SEAT_ROW]]
        self.counts = row[COUNTS_AT:COUNTS_AT + PLAYERS]
        self.classes = row[CLASSES_AT:CLASSES_AT + PLAYERS]
        order = row[SEATS_AT:SEATS_AT + PLAYERS]
        if sorted(order) != list(range(PLAYERS)):
            raise TableError(f"cells [6][10..14] must give each seat a player 0-4 once, "
                             f"got {order}")
        self.order = tuple(order)
        if any(not 0 <= c <= self.game.deck.size for c in self.counts):
            raise TableError(f"cells [6][0..4] (cards held) out of range: {self.counts}")

    def turn(self, table) -> None:
        """A turn table (every player gets one each turn)."""
        self.hand = tables.table_to_hand(self.game.deck, table)
        self._read_row6(table)
        if not self.exchange_read:
            self._read_exchange()
        if table[NEW_TRICK] == 1 and self.trick_open:
            self._new_trick()  # the pile cleared (passes on an empty pile stay until it does)
        self.revolution = bool(table[REVOLUTION])
        self.lock = bool(table[LOCK])
        for player, count in enumerate(self.counts):
            if count == 0 and player not in self.finished:
                self.finished.append(player)

    def _read_exchange(self) -> None:
        """The first turn table of a game: a lower class's start table showed its hand as
        dealt, this one shows it after the exchange (before any play), so the difference is
        what it gave and what it got back. A top class's gift is set by :meth:`gave_back`."""
        self.exchange_read = True
        titles = self.block.titles
        if titles is not None and titles[self.me] >= PLAYERS - len(EXCHANGE):
            self.gave = self.dealt & ~self.hand
            self.received = self.hand & ~self.dealt

    def gave_back(self, gift: int) -> None:
        """A top class sent ``gift``: the cards its exchange gave. Which of its cards the
        exchange brought it the server does not say (its start table holds them among the
        rest), so its ``received`` stays empty."""
        self.gave = gift

    def acted(self, table) -> None:
        """The pile table after an action: a play when it shows cards not seen before."""
        actor = int(table[TO_MOVE])
        if not 0 <= actor < PLAYERS:
            raise TableError(f"cell [5][3] (who acted) is {actor}, not a player 0-4")
        cards = tables.table_cards(self.game.deck, table)
        if cards & ~self.played:
            self.played |= cards
            self.pile_cards = cards
            self.last_player = actor
            self.trick_open = True
            try:
                self.pile = tables.table_to_move(self.game, table)
                self.pile_known = True
                self.history.append((actor, self.pile))
            except TableError:
                self.pile, self.pile_known = -1, False  # a play our engine has no move for
            return
        self.passed |= 1 << actor
        self.history.append((actor, self.game.catalog.pass_id))
        still_in = sum(1 << p for p, c in enumerate(self.counts) if c)
        if not self.trick_open and still_in & ~self.passed == 0:
            self.passed = 0  # every player still in passed on an empty pile: they lead again

    def places(self) -> list[int]:
        """Finishing places by player number, once the game is over: the finishers seen in
        order, then ``last_player`` (who finished 4th on the last action), then the one left."""
        order = list(self.finished)
        rest = [p for p in range(PLAYERS) if p not in order]
        if len(rest) == 2 and self.last_player in rest:
            rest.remove(self.last_player)
            order += [self.last_player, *rest]
        else:
            order += rest
        places = [0] * PLAYERS
        for place, player in enumerate(order):
            places[player] = place
        return places

    def _guess_hands(self, rng: np.random.Generator) -> list[int]:
        """Our hand, and the others' dealt at random from the cards not seen, in the sizes
        the server reports; the cards we gave in the exchange and have not seen played since
        stay with the player we gave them to."""
        deck = self.game.deck
        unseen_mask = deck.full & ~self.hand & ~self.played
        partner = self._partner()
        kept = 0
        if partner is not None:
            kept = self.gave & unseen_mask
            kept = sum(1 << c for c in list(iter_bits(kept))[:self.counts[partner]])
        unseen = [c for c in iter_bits(unseen_mask & ~kept)]
        rng.shuffle(unseen)
        hands, taken = [0] * PLAYERS, 0
        for player in self.order:
            if player == self.me:
                hands[player] = self.hand
                continue
            known = kept if player == partner else 0
            count = self.counts[player] - known.bit_count()
            hands[player] = known | sum(1 << c for c in unseen[taken:taken + count])
            taken += count
        return hands

    def _partner(self) -> int | None:
        """The player we exchange cards with in this game, if any."""
        titles = self.block.titles
        if titles is None:
            return None
        place, tiers = titles[self.me], len(EXCHANGE)
        if place < tiers or place >= PLAYERS - tiers:
            return titles.index(PLAYERS - 1 - place)
        return None

    def view(self, hands: list[int], exchange: int = 0) -> dict:
        """The engine's view of this player (:meth:`DaifugoState.view`'s keys) from what the
        tables told; ``exchange``: cards it gives back now (the exchange phase)."""
        game = self.game
        deck, cat = game.deck, game.catalog
        places = [None] * PLAYERS
        for place, player in enumerate(self.finished):
            places[player] = place
        passed = [bool(self.passed >> p & 1) for p in range(PLAYERS)]
        pile = None
        if self.pile >= 0:
            pile = {"move": cat.action_to_str(self.pile), "cards": deck.format(self.pile_cards),
                    "by": self.last_player}
        lock = None
        if self.lock and self.pile >= 0:
            lock = "".join(SUITS[s] for s in iter_bits(cat.lock_suits[self.pile]))
        return {
            "seat": self.me, "round": self.block.round, "scores": list(self.block.scores),
            "title_places": list(self.block.titles or [None] * PLAYERS),
            "phase": "exchange" if exchange else "play", "winner": None,
            "hand": deck.format(self.hand), "hand_counts": [h.bit_count() for h in hands],
            "places": places, "active": [bool(h) or p == self.me for p, h in enumerate(hands)],
            "revolution": self.revolution, "jack_back": False,
            "played": deck.format(self.played), "played_ranks": "",
            "exchange": {"gave": deck.format(self.gave), "received": deck.format(self.received),
                         "to_give": exchange},
            "current_player": self.me, "pile": pile, "lock": lock,
            "passed": passed, "passed_pile": passed, "order": list(self.order),
            "history": [(p, cat.action_to_str(a)) for p, a in self.history],
        }

    def position(self, rng: np.random.Generator, exchange: int = 0) -> DaifugoState:
        """An engine position consistent with what this player knows (module docstring),
        built by the engine's own :meth:`DaifugoGame.from_view`."""
        hands = self._guess_hands(rng)
        return self.game.from_view(self.view(hands, exchange), hands)


@dataclass
class Summary:
    """What one client saw: games, its places, every player's points, refused moves."""

    name: str
    player_number: int = -1
    games: int = 0
    places: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=lambda: [0] * PLAYERS)
    refused: int = 0
    fallbacks: int = 0
    unknown_piles: int = 0
    ended: str = "all games over"

    def text(self) -> str:
        counts = [self.places.count(p) for p in range(PLAYERS)]
        mine = self.points[self.player_number] if self.player_number >= 0 else 0
        return (f"{self.name} (player {self.player_number}): {self.games} games, places "
                f"1st-5th {counts}, {mine} points ({mine / max(self.games, 1):.2f} a game); "
                f"all players' points {self.points}; {self.refused} refused moves, "
                f"{self.fallbacks} moves by the fallback player; {self.ended}")


class Decider:
    """The player, its time limit and its fallback."""

    def __init__(self, spec: str, seed: int | None, think_s: float, log):
        from climbrl import policies

        self.player = load_player(spec, seed)
        #: the games are shown as rounds of a match as long as the player's training's
        self.rounds = trained_rounds(self.player)
        game = uecda_match(self.rounds)
        self.game = game
        self.player.bind(game)
        self.fallback = policies.load(GAME_NAME, FALLBACK_PLAYER, seed=seed).bind(game)
        self.think_s = think_s
        self.log = log
        self.rng = np.random.default_rng(seed)
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        self.fallbacks = 0

    def choose(self, state: DaifugoState) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player
        obs = seat_observation(self.game, state, seat)
        view = state.view(seat)
        future = self.pool.submit(self.player.act, obs, view)
        why = None
        try:
            action = int(future.result(timeout=self.think_s))
        except concurrent.futures.TimeoutError:
            why = f"thought past --think {self.think_s:g} s"
            self.pool.shutdown(wait=False)  # its thread ends on its own; a new one thinks next
            self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        except Exception as err:  # a player's failure must not end the game for the others
            why = f"failed: {type(err).__name__}: {err}"
        else:
            if action not in legal:
                why = f"chose {action}, not a legal move"
        if why is None:
            return action
        self.fallbacks += 1
        self.log(f"the player {why}; {FALLBACK_PLAYER} moves instead")
        return int(self.fallback.act(obs, view))

    def close(self) -> None:
        self.pool.shutdown(wait=False)


def load_player(spec: str, seed: int | None):
    """The registry's player ``spec`` of the game ``uecda`` (a level is UECda's, a trained
    CPU may be one trained on ``uecda``), bound to the UECda rules; ``ValueError`` saying
    why it cannot play them (a trained CPU of another table)."""
    from climbrl import policies

    player = policies.load(GAME_NAME, spec, seed=seed)
    try:
        return player.bind(uecda_game())
    except (ValueError, TypeError) as err:
        raise ValueError(f"player {spec!r} cannot play the UECda rules (5 players, one "
                         f"joker): {err}; the scripted players (scripted-hard...) can") from None


def play(host: str, port: int, spec: str, name: str, think_s: float = DEFAULT_THINK_S,
         seed: int | None = None, silence_s: float = DEFAULT_SILENCE_S, recorder=None,
         log=None, decider: Decider | None = None) -> Summary:
    """Connect, play until the server says every game is over; the :class:`Summary`.
    ``UecdaError`` (one line) when the server closes, goes silent or sends what we cannot
    read; the games played so far are in its ``summary`` attribute."""
    log = log or (lambda text: print(f"{name}: {text}", file=sys.stderr))
    summary = Summary(name)
    decider = decider or Decider(spec, seed, think_s, log)
    try:
        sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S)
    except OSError as err:
        raise UecdaError(f"cannot connect to {host}:{port}: {err.strerror or err}") from None
    wire = Wire(sock, silence_s, recorder)
    table = None
    try:
        _conversation(wire, decider, summary, log)
    except (WireClosed, WireSilent) as err:
        summary.ended = f"stopped after {summary.games} games: {err}"
        raise _with(UecdaError(f"{name}: the server {'went silent' if isinstance(err, WireSilent) else 'closed'} "
                               f"after {summary.games} games ({err})"), summary) from None
    except TableError as err:
        table = getattr(err, "table", None)
        shown = "" if table is None else f"; the table: {np.asarray(table).tolist()}"
        summary.ended = f"stopped: unreadable table: {err}"
        raise _with(UecdaError(f"{name}: a table we cannot read ({err}){shown}"), summary) from None
    finally:
        wire.close()
        summary.fallbacks = decider.fallbacks
        decider.close()
    return summary


def _with(err: UecdaError, summary: Summary) -> UecdaError:
    err.summary = summary
    return err


def _reading(table, step):
    """Run ``step(table)``; a :class:`TableError` carries the table it could not read."""
    try:
        return step(table)
    except TableError as err:
        err.table = table
        raise


def _conversation(wire: Wire, decider: Decider, summary: Summary, log) -> None:
    game = decider.game
    wire.send_table(profile_table(summary.name))
    me = wire.read_int()
    if not 0 <= me < PLAYERS:
        raise TableError(f"the server gave player number {me}, not 0-4")
    summary.player_number = me
    view = GameView(game, me, decider.rounds)
    while True:
        table = wire.read_table()
        _reading(table, view.start)
        gifts = int(table[GIFT_COUNT])
        if gifts > 0:
            wire.send_table(tables.hand_to_table(game.deck, _gift(view, decider, gifts)))
        while True:
            table = wire.read_table()
            _reading(table, view.turn)
            if table[MY_TURN] == 1:
                action = _move(view, decider, summary, log)
                wire.send_table(tables.move_to_table(game, action))
                answer = wire.read_int()
                if answer == REFUSED and action != game.catalog.pass_id:
                    summary.refused += 1
                    log(f"game {summary.games + 1}: the server refused "
                        f"{game.action_to_str(action)!r}; it counts as a pass")
            table = wire.read_table()
            _reading(table, view.acted)
            end = wire.read_int()
            if end == GAME_ON:
                continue
            if end not in (GAME_OVER, ALL_OVER):
                raise TableError(f"the server's end-of-action flag is {end}, not 0, 1 or 2")
            places = view.places()
            view.block.end_game(places)
            summary.games += 1
            summary.places.append(places[me])
            for player, place in enumerate(places):
                summary.points[player] += POINTS[place]
            if end == ALL_OVER:
                return
            break


def _move(view: GameView, decider: Decider, summary: Summary, log) -> int:
    if not view.pile_known:
        summary.unknown_piles += 1
        log("the pile is a play our engine has no move for; pass")
        return decider.game.catalog.pass_id
    return decider.choose(view.position(decider.rng))


def _gift(view: GameView, decider: Decider, count: int) -> int:
    """The cards a top class gives back: the player's choice, one card at a time."""
    state = view.position(decider.rng, exchange=count)
    while state.phase == PHASE_EXCHANGE and state.current_player == view.me:
        state.apply(decider.choose(state))
    gift = state.gave[view.me]
    if gift.bit_count() != count or gift & ~view.hand:
        gift = sum(1 << c for c in list(iter_bits(view.hand))[:count])
    view.gave_back(gift)
    return gift


def play_seats(host: str, port: int, spec: str, name: str, seats: int,
               recorders: list | None = None, **kwargs) -> list:
    """``seats`` clients at once (threads; one: ``NAME``, more: ``NAME1``..``NAMEn``); each
    one's :class:`Summary` or the :class:`UecdaError` that ended it. ``recorders``: one per
    client (:class:`climbrl.play.uecda.wire.JsonLinesRecorder`)."""
    names = [name] if seats == 1 else [f"{name}{i + 1}" for i in range(seats)]
    recorders = recorders or [None] * seats
    results: list = [None] * seats
    deciders = [Decider(spec, kwargs.get("seed"), kwargs.get("think_s", DEFAULT_THINK_S),
                        _logger(n)) for n in names]

    def run(i: int) -> None:
        try:
            results[i] = play(host, port, spec, names[i], decider=deciders[i],
                              log=deciders[i].log, recorder=recorders[i], **kwargs)
        except UecdaError as err:
            results[i] = err

    threads = []
    for i in range(seats):
        thread = threading.Thread(target=run, args=(i,), daemon=True)
        thread.start()
        threads.append(thread)
        time.sleep(CONNECT_GAP_S)  # connect in order: player numbers follow the names
    for thread in threads:
        thread.join()
    return results


def _logger(name: str):
    return lambda text: print(f"{name}: {text}", file=sys.stderr)
