"""The interface every climbrl engine offers; the PettingZoo adapter, the bots, the trainer
and the evaluation harness speak only this.

A *game* holds the fixed facts of one rules config (players, action catalog, observation
layout) and makes states. A *state* is one position: whose turn, the legal action ids, and
``apply`` to move on. Engines are pure Python (plus numpy) and never import PettingZoo or torch.

Beyond playing (:class:`Game`, :class:`State`), a game tells the trainer and the harness what
they would otherwise have to know by its name (:class:`GameDefaults` gives the members of a
game with one seat-relative network, scored by places, that a new engine inherits and
overrides):

- **roles**: ``roles`` names the networks the game trains, ``role_of(state, seat)`` and
  ``role_from_view(view)`` pick the one deciding for a seat, ``return_groups(state)`` the
  ``(name, seat)`` rows a finished episode's returns are logged under (none: an episode that
  ended unscored, counted under ``unscored_label``); ``won(state, seat)``: the seat won.
- **what the network reads**: ``action_features()`` (or ``catalog.action_features()``), the
  static feature table of the actions; ``seat_rows``, the seat rows of the history's movers;
  ``recent_actions(state, seat, count)`` (else ``state.history`` rows are read).
- **training starts**: ``start_options`` maps each starting option the game offers to what it
  does; ``episode_starter(**options)`` returns ``f(rng) -> state`` and refuses, in one line,
  an option the game does not have or a bad value.
- **tables**: ``draws_tables``: the game's rules can be drawn per episode (one network for
  every table), through ``rule_fields()``, ``rules_for(players, **rules)``,
  ``catalog_key_of(rules)``, ``make_catalog(rules)`` and ``with_rules(rules, catalog)``.
- **alike moves**: ``move_classes()``, for each action the first action that plays alike
  (the imitation loss does not rank a move over its twins).
- **derived tables**: ``derived(build)`` makes ``build(game)`` once per game, for the players
  that read the same facts of every action (a scripted bot bound to each drawn table).
- **scoring**, for the evaluation harness: ``scoring`` is :data:`PLACES` (matches of
  ``rounds`` rounds, each ranking the seats: ``place_points``, ``round_of(state)``,
  ``places_of(state)``) or :data:`SIDES` (``sides``: the name of one lone seat's side, then
  the others' side; ``lead_seat(state)``, the lone seat of a finished game, ``None`` when no
  game was played; ``duel_options(deal_code)``, reset options that seat the deal's lone side
  at seat 0; ``score_unit``, what a point is).

:class:`GameEntry` is a registered game (``climbrl.envs.GAMES``): its env module, engine, bots and
table sizes, so that nothing outside a game's packages needs its name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .layout import ObsLayout


class IllegalActionError(ValueError):
    """An action id that is not legal in the current state (a ``ValueError``)."""


class State(Protocol):
    current_player: int
    """Seat to act next; ``-1`` once the game is over."""

    terminal: bool

    def legal_actions(self) -> list[int]:
        """Catalog ids of the legal actions for ``current_player``, in a new list (the
        caller's own: changing it changes nothing in the state)."""

    def apply(self, action: int) -> Sequence[float] | None:
        """Play ``action`` for ``current_player``. Returns the reward of each seat earned by this
        step (end of a round or of the game) or ``None`` when nobody earned anything. Raises
        :class:`IllegalActionError` for an illegal id."""

    def clone(self) -> State: ...

    @property
    def deal_code(self) -> str: ...

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see, as plain Python values with cards as text."""

    def returns(self) -> list[float]:
        """Total reward of each seat so far."""


class Game(Protocol):
    name: str
    version: int
    num_players: int
    num_actions: int
    layout: ObsLayout
    max_game_length: int

    def new_state(self, rng: np.random.Generator, options: dict | None = None) -> State: ...

    def observe(self, state: State, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation vector of ``seat`` (float32, ``layout.size``), from scratch. A game
        may also offer ``seat_observer(seat)``: an object whose ``observe(state)`` returns the
        same vector in its own buffer, rewritten only where the state changed since its last
        call (the envs and the trainer's actors use it; callers copy the buffer)."""

    def action_to_str(self, action: int) -> str: ...

    def action_from_str(self, text: str, state: State | None = None) -> int: ...

    def render(self, state: State) -> str: ...

    def info(self, state: State, seat: int) -> dict[str, Any]:
        """Extra facts for PettingZoo's ``infos`` (refreshed at reset and at round ends)."""

    def config_dict(self) -> dict[str, Any]:
        """The rules config as plain values (recorded in checkpoints)."""


def seat_observation(game: Game, state: State, seat: int,
                     observation: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """What the PettingZoo env hands ``seat`` in ``state``: its observation vector
    (``observation`` when the caller has built it already) and the mask of its legal moves,
    empty when it is not this seat's turn or the game is over."""
    mask = np.zeros(game.num_actions, np.int8)
    if seat == state.current_player and not state.terminal:
        mask[state.legal_actions()] = 1
    if observation is None:
        observation = game.observe(state, seat)
    return {"observation": observation, "action_mask": mask}


MANY_IDS = 150
"""legal ids past which a mask is written by one numpy indexed write rather than id by id
through a memoryview (about where the two cost the same, timed on a 28,507-id mask)"""


class SeatBuffers:
    """What an env keeps to hand out observations fast: per seat the game's incremental
    observer (``game.seat_observer(seat)``, when the game has one: it rewrites only what
    changed in its own buffer), else the game's from-scratch writer. :meth:`observe` returns
    the same values as :func:`seat_observation`, in new arrays that are the caller's own (a
    copy of the observer's buffer, and a new mask: ``np.zeros`` with the legal ids set, which
    costs less than keeping one mask, zeroing the previous ids and copying it), so an
    observation kept is never written again. A compiled core makes the two arrays itself, the
    same values in arrays nobody else holds, in one call: a game whose ``fresh_observation``
    attribute is not ``None`` (Dou Dizhu's: the whole dict, legal moves included; it is then
    :meth:`observe` itself, and hands out again arrays every caller has let go of), or seat
    observers that offer ``observation_and_mask(state)`` (Daifugo's: the pair)."""

    def __init__(self, game: Game):
        self.game = game
        self.num_actions = game.num_actions
        self.fresh = getattr(game, "fresh_observation", None)
        # a game that makes the whole dict itself needs no seat observers of this env
        make = None if self.fresh is not None else getattr(game, "seat_observer", None)
        self.observers = [make(seat) for seat in range(game.num_players)] if make else None
        self.pairs = None
        if self.observers and all(hasattr(o, "observation_and_mask") for o in self.observers):
            self.pairs = [o.observation_and_mask for o in self.observers]
        if self.fresh is not None:
            self.observe = self.fresh  # the compiled call itself, no Python frame on the way

    def observe(self, state: State, seat: int) -> dict[str, np.ndarray]:
        if self.fresh is not None:
            return self.fresh(state, seat)
        if self.pairs is not None:
            observation, mask = self.pairs[seat](state)
            return {"observation": observation, "action_mask": mask}
        mask = np.zeros(self.num_actions, np.int8)
        if seat == state.current_player and not state.terminal:
            ids = state.legal_actions()
            if len(ids) > MANY_IDS:
                mask[ids] = 1
            else:
                view = memoryview(mask)
                for i in ids:
                    view[i] = 1
        if self.observers is None:
            observation = self.game.observe(state, seat)
        else:
            observation = self.observers[seat].observe(state).copy()
        return {"observation": observation, "action_mask": mask}


PLACES = "places"
"""``scoring`` of a game whose rounds rank the seats (points per place)"""
SIDES = "sides"
"""``scoring`` of a game of one lone seat against the others (each side wins or loses)"""
SEAT_ROLES = ("seat",)
"""the roles of a game that trains one seat-relative network"""


_DERIVED = "_derived"
"""the attribute of a game's memo of :meth:`GameDefaults.derived`"""


class GameDefaults:
    """The trainer's and the harness's members of a game with one seat-relative network, no
    training start options, one table and places for scoring; engines inherit it and override
    what differs (module docstring)."""

    roles: tuple[str, ...] = SEAT_ROLES
    start_options: Mapping[str, str] = {}
    draws_tables = False
    scoring = PLACES
    sides: tuple[str, ...] = ()
    score_unit = ""
    unscored_label: str | None = None
    """the name of the share of episodes that end unscored (the trainer logs it), or None"""

    def role_of(self, state, seat: int) -> int:
        """Index into ``roles`` of the network that decides for ``seat`` in ``state``."""
        return 0

    def role_from_view(self, view: dict[str, Any]) -> int:
        """The same index as :meth:`role_of`, from the seat's view."""
        return 0

    def return_groups(self, state) -> list[tuple[str, int]]:
        """``(name, seat)`` rows under which a finished episode's returns are logged."""
        return [(f"seat_{s}", s) for s in range(self.num_players)]

    def won(self, state, seat: int) -> bool:
        """The seat won the finished episode: the match winner where the state names one,
        else a positive return."""
        winner = getattr(state, "winner", None)
        if isinstance(winner, int):
            return winner == seat
        return state.returns()[seat] > 0

    def move_classes(self) -> tuple[int, ...]:
        """For each action id, the first id that plays alike in every position of this game
        (moves that differ only in what no rule reads); by default each id its own."""
        return tuple(range(self.num_actions))

    def check_start(self, options: Mapping[str, Any]) -> None:
        """``ValueError`` naming an option that is not among ``start_options``."""
        for key in options:
            if key not in self.start_options:
                have = ", ".join(self.start_options) or "none"
                raise ValueError(f"{key} is not a training start option of {self.name!r} "
                                 f"(its options: {have})")

    def episode_starter(self, **options: Any) -> Callable:
        """``f(rng) -> state``: a new training episode (a game without start options: every
        option is refused)."""
        self.check_start(options)
        return self.new_state

    def derived(self, build: Callable[[Any], Any]) -> Any:
        """``build(self)``, made once per game: the static tables a player derives from the
        game (a bot's facts of every action), shared by every player bound to it. ``build`` is
        the key: a module-level function or a classmethod, which a saved player can name."""
        memo = self.__dict__.setdefault(_DERIVED, {})
        if build not in memo:
            memo[build] = build(self)
        return memo[build]

    def derived_tables(self) -> dict[Callable, Any]:
        """What :meth:`derived` has made so far, by its ``build``."""
        return dict(self.__dict__.get(_DERIVED, {}))


@dataclass(frozen=True)
class GameEntry:
    """A registered game: what makes it and who plays it, by module name (imported on use)."""

    name: str
    title: str
    """the game's name in messages (``Dou Dizhu``)"""
    env_module: str
    """the PettingZoo module, whose ``env(players=..., **rules)`` makes the env"""
    engine: str
    """the engine package: its ``make_game(name, players, rules, reward)`` and
    ``game_from_config(name, config)`` build games, its ``GAME`` is the game class"""
    table_sizes: tuple[int, ...]
    default_players: int
    """the table of a tournament or a run that names no player count"""
    bots: str | None = None
    """the package of the scripted players (its ``make(level, seed, **knobs)``), or None"""
    train_config: str | None = None
    """the shipped training config the benchmark times"""
    match_rounds: int | None = None
    """rounds per match of a tournament or a training run that names none (games scored by
    places); ``None``: the env's own (UECda's env plays a class block of 100 rounds, too long
    for an episode)"""

    def seats_text(self, less: int = 0) -> str:
        """The table sizes as said, less ``less`` each: ``3 or 4``, ``3 to 8``."""
        sizes = [n - less for n in self.table_sizes]
        if len(sizes) > 2 and sizes == list(range(sizes[0], sizes[-1] + 1)):
            return f"{sizes[0]} to {sizes[-1]}"
        head = ", ".join(map(str, sizes[:-1]))
        return f"{head} or {sizes[-1]}" if head else str(sizes[0])

    def engine_module(self):
        try:
            return importlib.import_module(self.engine)
        except ImportError as err:
            raise ValueError(f"game {self.name!r} needs the {self.title} engine "
                             f"({self.engine}), not importable here: {err}") from None

    @property
    def game_class(self) -> type:
        return self.engine_module().GAME

    def make(self, players: int | None = None, rules: dict | None = None,
             reward: str | None = None):
        """The engine for a player count, rule overrides and reward mode."""
        return self.engine_module().make_game(self.name, players, dict(rules or {}), reward)

    def from_config(self, config: dict[str, Any]):
        """The engine of a recorded ``config_dict()``."""
        return self.engine_module().game_from_config(self.name, config)
