"""A tiny third game, for the tests of the game protocol (``climbrl.envs.core.game``): nothing outside
this module knows it, and :func:`register` adds it to ``climbrl.envs.GAMES`` like any game.

*Climb*: three seats, each dealt :data:`HAND` cards from two copies of the values 0 to
``VALUES - 1``. The leader plays any card; each next seat plays a higher one or passes; when
every other seat has passed, the last to play leads again. A seat that empties its hand
takes the next place; the last seat holding cards takes the last place and the round ends
(one round a match). Actions: a value's id is the value, :data:`PASS` is the last id.

:class:`ToySidesGame` plays the same cards as a game of sides: seat 0, the runner, wins when
it goes out first, against the two chasers; it trains a network per side and offers a
training start option (``chasers_first``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from climbrl.envs.core.game import PLACES, SIDES, GameDefaults, GameEntry, IllegalActionError
from climbrl.envs.core.layout import ObsLayout

NAME = "toy"
VALUES = 6
COPIES = 2
HAND = 3
PLAYERS = 3
PASS = VALUES
NO_CARD = -1
POINTS = (2, 1, 0)
"""points of each place, first place first"""
SEPARATOR = "-"


class ToyState:
    def __init__(self, game: ToyGame, hands: list[list[int]]):
        self.game = game
        self.hands = [sorted(h) for h in hands]
        self.deal_hands = tuple(tuple(h) for h in self.hands)
        self.current_player = 0
        self.terminal = False
        self.pile = NO_CARD
        self.last_player = -1
        self.passed = 0
        self.round = 0
        self.titles = [-1] * game.num_players
        self.next_place = 0
        self.history: list[tuple[int, int]] = []
        self.winner = -1

    def legal_actions(self) -> list[int]:
        if self.terminal:
            return []
        hand = self.hands[self.current_player]
        higher = sorted({v for v in hand if v > self.pile})
        return higher if self.pile == NO_CARD else higher + [PASS]

    def apply(self, action: int):
        if action not in self.legal_actions():
            raise IllegalActionError(f"illegal action {action} for seat {self.current_player}")
        seat, players = self.current_player, self.game.num_players
        self.history.append((seat, action))
        if action == PASS:
            self.passed += 1
        else:
            self.hands[seat].remove(action)
            self.pile, self.last_player, self.passed = action, seat, 0
            if not self.hands[seat]:
                self._place(seat)
        holding = [s for s in range(players) if self.titles[s] < 0]
        if len(holding) == 1:
            self._place(holding[0])
            self.terminal, self.current_player, self.round = True, -1, 1
            self.winner = self.titles.index(0)
            return self.returns()
        nxt = (seat + 1) % players
        while self.titles[nxt] >= 0:
            nxt = (nxt + 1) % players
        if self.passed >= len(holding) - (self.titles[self.last_player] < 0):
            self.pile, self.passed = NO_CARD, 0  # every other seat passed: the table clears
        self.current_player = nxt
        return None

    def _place(self, seat: int) -> None:
        self.titles[seat] = self.next_place
        self.next_place += 1

    def clone(self) -> ToyState:
        other = ToyState.__new__(ToyState)
        other.__dict__.update(self.__dict__)
        other.hands = [h[:] for h in self.hands]
        other.titles = self.titles[:]
        other.history = self.history[:]
        return other

    @property
    def deal_code(self) -> str:
        return SEPARATOR.join("".join(map(str, h)) for h in self.deal_hands)

    def returns(self) -> list[float]:
        if not self.terminal:
            return [0.0] * self.game.num_players
        return self.game.score(self.titles)

    def view(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "hand": "".join(map(str, self.hands[seat])),
                "counts": [len(h) for h in self.hands], "to_move": self.current_player,
                "history": [(s, self.game.action_to_str(a)) for s, a in self.history]}


class ToyGame(GameDefaults):
    """The protocol's defaults: one seat-relative network, scored by places."""

    name = NAME
    version = 1
    scoring = PLACES
    place_points = POINTS
    rounds = 1

    @staticmethod
    def round_of(state: ToyState) -> int:
        return state.round

    @staticmethod
    def places_of(state: ToyState) -> list[int]:
        return list(state.titles)

    def __init__(self, players: int = PLAYERS):
        if players != PLAYERS:
            raise ValueError(f"toy seats {PLAYERS} players, got {players!r}")
        self.num_players = players
        self.num_actions = VALUES + 1
        self.max_game_length = HAND * players * players
        self.layout = ObsLayout([("hand", (VALUES,), 0.0, float(COPIES)),
                                 ("pile", (VALUES + 1,)),
                                 ("counts", (players,), 0.0, float(HAND))])

    def new_state(self, rng: np.random.Generator, options: dict | None = None) -> ToyState:
        code = (options or {}).get("deal")
        if code is not None:
            hands = [[int(c) for c in part] for part in code.split(SEPARATOR)]
        else:
            deck = rng.permutation(np.repeat(np.arange(VALUES), COPIES))
            hands = [deck[i * HAND:(i + 1) * HAND].tolist() for i in range(self.num_players)]
        return ToyState(self, hands)

    def observe(self, state: ToyState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        out = self.layout.zeros() if out is None else out
        out[:] = 0
        np.add.at(self.layout.view(out, "hand"), state.hands[seat], 1.0)
        self.layout.view(out, "pile")[VALUES if state.pile == NO_CARD else state.pile] = 1.0
        counts = self.layout.view(out, "counts")
        for k in range(self.num_players):
            counts[k] = len(state.hands[(seat + k) % self.num_players])
        return out

    def action_features(self) -> np.ndarray:
        return np.eye(self.num_actions, dtype=np.float32)

    def action_to_str(self, action: int) -> str:
        return "pass" if action == PASS else str(action)

    def action_from_str(self, text: str, state: ToyState | None = None) -> int:
        return PASS if text == "pass" else int(text)

    def render(self, state: ToyState) -> str:
        return " | ".join("".join(map(str, h)) for h in state.hands)

    def info(self, state: ToyState, seat: int) -> dict[str, Any]:
        return {}

    def config_dict(self) -> dict[str, Any]:
        return {"players": self.num_players}

    @staticmethod
    def score(titles: list[int]) -> list[float]:
        return [float(POINTS[place]) for place in titles]


RUNNER = 0
"""the lone seat of :class:`ToySidesGame`"""
RUNNER_WINS = 2.0


class ToySidesGame(ToyGame):
    """The runner (seat 0) against the chasers: a network per side, a start option."""

    name = "toy_sides"
    scoring = SIDES
    sides = ("runner", "chasers")
    score_unit = "points"
    roles = ("runner", "chaser")
    start_options = {"chasers_first": "share of deals a chaser leads"}

    def role_of(self, state: ToyState, seat: int) -> int:
        return 0 if seat == RUNNER else 1

    def role_from_view(self, view: dict[str, Any]) -> int:
        return 0 if view["seat"] == RUNNER else 1

    def return_groups(self, state: ToyState) -> list[tuple[str, int]]:
        return [(self.roles[self.role_of(state, s)], s) for s in range(self.num_players)]

    def won(self, state: ToyState, seat: int) -> bool:
        return state.returns()[seat] > 0

    @staticmethod
    def score(titles: list[int]) -> list[float]:
        sign = 1.0 if titles[RUNNER] == 0 else -1.0
        return [sign * RUNNER_WINS if s == RUNNER else -sign * RUNNER_WINS / 2
                for s in range(len(titles))]

    def episode_starter(self, **options: Any):
        self.check_start(options)
        share = options.get("chasers_first", 0.0)
        if not isinstance(share, (int, float)) or not 0 <= share <= 1:
            raise ValueError(f"chasers_first must be a share in [0, 1], got {share!r}")

        def start(rng: np.random.Generator) -> ToyState:
            state = self.new_state(rng)
            if rng.random() < share:
                state.current_player = RUNNER + 1
            return state

        return start

    @staticmethod
    def lead_seat(state: ToyState) -> int:
        return RUNNER

    @staticmethod
    def duel_options(code: str) -> dict[str, Any]:
        return {"deal": code}


GAME = ToyGame


def make_game(name: str = NAME, players: int | None = None, rules: dict | None = None,
              reward: str | None = None) -> ToyGame:
    if rules:
        raise ValueError(f"toy has no rules, got {sorted(rules)}")
    return CLASSES[name](players or PLAYERS)


def game_from_config(name: str, config: dict) -> ToyGame:
    return CLASSES[name](config["players"])


CLASSES = {ToyGame.name: ToyGame, ToySidesGame.name: ToySidesGame}


def _env(name: str, players: int, render_mode: str | None, rules: dict):
    from climbrl.envs.core.aec import CardGameEnv, wrap

    class RawEnv(CardGameEnv):
        metadata = {**CardGameEnv.metadata, "name": f"{name}_v1"}

    return wrap(RawEnv(make_game(name, players, rules), render_mode))


def env(players: int = PLAYERS, render_mode: str | None = None, **rules):
    return _env(NAME, players, render_mode, rules)


def sides_env(players: int = PLAYERS, render_mode: str | None = None, **rules):
    return _env(ToySidesGame.name, players, render_mode, rules)


ENTRIES = (
    GameEntry(NAME, "Toy", env_module=__name__, engine=__name__, table_sizes=(PLAYERS,),
              default_players=PLAYERS),
    GameEntry(ToySidesGame.name, "Toy sides", env_module="toy_sides", engine="toy_sides",
              table_sizes=(PLAYERS,), default_players=PLAYERS),
)


def register(monkeypatch) -> None:
    """Add the toy games to ``climbrl.envs.GAMES`` for one test."""
    from climbrl import envs

    for entry in ENTRIES:
        monkeypatch.setitem(envs.GAMES, entry.name, entry)
