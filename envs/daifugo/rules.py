"""The rules config of Daifugo and President: one frozen, validated dataclass with presets.

Every house rule is a switch. ``Rules.preset("daifugo", players=4)`` gives the standard
Daifugo rules (docs/rules.md); ``Rules.preset("president", players=6)`` the Western game;
``Rules.preset("uecda")`` the standard configuration of the UECda computer championship
(5 players, docs/rules.md "UECda standard rules"); keyword overrides switch
single rules (``Rules.preset("daifugo", lock=False)``). Combinations the engine cannot play
faithfully are refused with a ``ValueError`` that says why; a value of the wrong type (a switch
that is not ``True``/``False``, such as ``lock="no"`` or ``lock=None``; a count that is a float,
a bool or a string) with a ``TypeError`` naming the option and the value.

=====================  =========================================================================
switch                 meaning (``docs/rules.md`` has the full rules and rulings)
=====================  =========================================================================
players, rounds        table size (3-8) and rounds in the match (1..``MAX_ROUNDS`` = 20;
                       the uecda preset 1..``UECDA_MAX_ROUNDS`` = 1000)
decks, jokers          1 or 2 packs of 52; 0, 1 or 2 jokers
jokers_wild            a joker may stand in for a card in a set or a run (Daifugo); otherwise
                       jokers play alone or as a pair of jokers (President)
runs, run_suits        runs allowed; ``"same"`` suit (Daifugo) or ``"any"`` suits (President)
revolution             a set of 4+ cards reverses the number order for the rest of the round
eight_cut              a play with a real 8 clears the pile; its player leads again
spade_three_return     a single 3 of spades beats a single joker and clears the pile
lock                   two joker-free plays in a row with the same suits lock those suits
fall_of_capital        round 2+: the last round's top player drops to last when beaten to 1st
jack_back              a play with a real J reverses the order until the pile clears
illegal_finish         finishing on a 2 (3 reversed), joker, 8 or revolution sends you down
strict_pass            a pass keeps you out until the pile clears (Daifugo) or not (President)
skip_on_equal          a play of the pile's number is legal and skips the next player
bombs                  a single top card (2, or 3 when reversed) or joker beats any pair/triple
exchange               cards given per tier after round 1: ``(2, 1)`` = bottom gives 2 to top,
                       second-to-bottom gives 1 to second; receivers give back as many
points, titles         per place, 1st first
first_leader           ``"three_of_diamonds"`` or ``"first_dealt"`` leads round 1
later_leader           ``"last_place"``, ``"top_place"`` or ``"three_of_diamonds"`` (its holder
                       after the exchange) leads rounds 2+
later_dealing          ``"random"`` first seat dealt, ``"after_last_place"`` (the Scum deals) or
                       ``"top_place"`` (the top place is dealt first)
run_revolution         a run of this many cards or more also reverses the order (0: never)
joker_suits            a joker in a set names the suit it stands for (``7s JK=7h``); the lock
                       reads every joker as the suit it stands for, and a joker alone starts no
                       lock and lifts one
joker_run_ends         a joker may extend a run below the 3 (``JK=below``) or above the 2
                       (``JK=above``)
lead_pass              the seat to lead may pass; it is out until the pile clears, and when
                       every seat still in has passed the seat that got the lead leads again
stall_passes           after this many passes in a row the round ends and the seats still in
                       take the remaining places at random (0: never)
class_block            the first round of each block of this many rounds has no exchange and
                       is dealt from a random seat (0: one block, the match)
reseat_every           the turn order is drawn anew at rounds 1, 1+n, 1+2n, ... (0: never)
=====================  =========================================================================

Rulings this engine adds where the usual rules are silent (all in ``docs/rules.md``):

- Jack back toggles on every play with a real J, so two such plays on one pile cancel.
- Illegal finish judges "a 2 (a 3 when reversed)" by the order in force before the play.
- Bombs: under a reversed order the top number is the 3; a bomb does not beat the pair of
  jokers ("cannot be beaten" wins over "beats any pair").
- Skip on equal rank applies to singles and sets of the pile's number (never to jokers).
- President with 3 players: titles President / Neutral / Scum, points +3/0/-3, and the Scum
  gives its 2 best cards to the President (the 2-1 tax without a Vice pair).
- President's default deck has no jokers (the standard 52 cards); ``jokers=1|2``
  adds them, and they are never wild there.
- The lock needs one deck and same-suit runs (suits of two decks or mixed runs are ambiguous).
- UECda (``uecda`` preset), as its official server plays: the pile clears when every other
  seat still in the round has passed since the last play, and its player leads (the next
  seat in turn order with cards when it has finished); a pass on an empty pile is a pass
  (the seat is out until the pile clears; the next seat leads on the empty pile); the 3 of
  diamonds' holder leads every round, after the exchange; a run of 5+ revolts; the joker in
  a run or a set counts as the suit it stands for in the lock; the eight cut needs a real 8
  (a joker standing for an 8 does not cut); ``stall_passes`` places the seats at random with
  the match's RNG, so a replayed match places them alike; a lone joker lifts the lock; a
  set's joker may stand for a card its player also holds; a set-up from hands keeps the
  seats in index order until the next reseating round.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..core.checks import as_bool, as_int, as_str
from .cards import CARDS_PER_DECK, NUM_RANKS

MIN_PLAYERS, MAX_PLAYERS = 3, 8
#: most rounds in a match (the table offers 3, 5 or 7)
MAX_ROUNDS = 20
#: most rounds in a uecda match (the championship plays blocks of 100 games)
UECDA_MAX_ROUNDS = 1000
#: most packs of 52 and most jokers a deck may have
MAX_DECKS, MAX_JOKERS = 2, 2
MIN_RUN = 3
REVOLUTION_SIZE = 4
#: President (docs/rules.md): one pack up to 5 players, two packs from 6.
PRESIDENT_ONE_DECK_MAX_PLAYERS = 5

DAIFUGO_TITLES = {
    3: ("Millionaire", "Commoner", "Poor"),
    4: ("Grand Millionaire", "Millionaire", "Poor", "Very Poor"),
}
DAIFUGO_POINTS = {3: (2, 1, 0), 4: (3, 2, 1, 0)}
DAIFUGO_EXCHANGE = {3: (1,), 4: (2, 1)}
DAIFUGO_ROUNDS = (3, 5, 7)
#: the player counts each preset plays (the observation has a seat row for the largest)
#: UECda's standard configuration (docs/rules.md): five seats, five classes
UECDA_PLAYERS = 5
UECDA_TITLES = ("Grand Millionaire", "Millionaire", "Commoner", "Poor", "Very Poor")
UECDA_POINTS = (5, 4, 3, 2, 1)
UECDA_EXCHANGE = (2, 1)
#: rounds of a uecda match by default: one class block
UECDA_ROUNDS = 100
UECDA_CLASS_BLOCK = 100
UECDA_RESEAT_EVERY = 3
UECDA_RUN_REVOLUTION = 5
UECDA_STALL_PASSES = 20
#: the player counts each preset plays (the observation has a seat row for the largest)
PRESET_PLAYERS = {
    "daifugo": tuple(sorted(DAIFUGO_TITLES)),
    "president": tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    "uecda": (UECDA_PLAYERS,),
}
#: presets whose matches may be longer than ``MAX_ROUNDS``
PRESET_MAX_ROUNDS = {"uecda": UECDA_MAX_ROUNDS}


def max_rounds(preset_name: str) -> int:
    """The most rounds a match of the preset may have."""
    return PRESET_MAX_ROUNDS.get(preset_name, MAX_ROUNDS)


def seat_rows(preset_name: str) -> int:
    """Seat rows of the observation for a preset: its largest table (every player count of
    the preset then shares one observation layout)."""
    return max(PRESET_PLAYERS.get(preset_name, (MAX_PLAYERS,)))


def president_titles(players: int) -> tuple[str, ...]:
    if players == 3:
        return ("President", "Neutral", "Scum")
    middle = ("Neutral",) * (players - 4)
    return ("President", "Vice-President", *middle, "Vice-Scum", "Scum")


def president_points(players: int) -> tuple[int, ...]:
    """+3/+2/0/-2/-3 (docs/rules.md); with 3 players there is no Vice (+3/0/-3)."""
    if players == 3:
        return (3, 0, -3)
    return (3, 2, *(0,) * (players - 4), -2, -3)


def _int_tuple(value: Any, name: str) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        kind = type(value).__name__
        raise TypeError(f"{name} must be a list of integers, got {value!r} (type {kind})")
    return tuple(as_int(v, f"{name}[{i}]") for i, v in enumerate(value))


def _str_tuple(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        kind = type(value).__name__
        raise TypeError(f"{name} must be a list of names, got {value!r} (type {kind})")
    return tuple(as_str(v, f"{name}[{i}]") for i, v in enumerate(value))


#: the check of each field type (the annotations below, as text)
_FIELD_CHECKS = {
    "str": as_str,
    "int": as_int,
    "bool": as_bool,
    "tuple[int, ...]": _int_tuple,
    "tuple[str, ...]": _str_tuple,
}

LEADERS_FIRST = ("three_of_diamonds", "first_dealt")
LEADERS_LATER = ("last_place", "top_place", "three_of_diamonds")
DEALING_LATER = ("random", "after_last_place", "top_place")
RUN_SUITS = ("same", "any")


@dataclass(frozen=True)
class Rules:
    """One complete rules config. Build it with :meth:`preset`; it validates itself."""

    preset_name: str = "daifugo"
    players: int = 4
    rounds: int = 3
    decks: int = 1
    jokers: int = 2
    jokers_wild: bool = True
    runs: bool = True
    run_suits: str = "same"
    revolution: bool = True
    eight_cut: bool = True
    spade_three_return: bool = True
    lock: bool = True
    fall_of_capital: bool = True
    jack_back: bool = True
    illegal_finish: bool = False
    strict_pass: bool = True
    skip_on_equal: bool = False
    bombs: bool = False
    exchange: tuple[int, ...] = (2, 1)
    points: tuple[int, ...] = DAIFUGO_POINTS[4]
    titles: tuple[str, ...] = DAIFUGO_TITLES[4]
    first_leader: str = "three_of_diamonds"
    later_leader: str = "last_place"
    later_dealing: str = "random"
    run_revolution: int = 0
    joker_suits: bool = False
    joker_run_ends: bool = False
    lead_pass: bool = False
    stall_passes: int = 0
    class_block: int = 0
    reseat_every: int = 0

    #: the switches and options the uecda preset added; its fixed configuration sets them,
    #: so the observation leaves them out (climbrl.envs.daifugo.observation)
    UECDA_SWITCHES = ("joker_suits", "joker_run_ends", "lead_pass")
    UECDA_OPTIONS = {"later_leader": ("three_of_diamonds",), "later_dealing": ("top_place",)}
    #: every field the uecda preset added (none is observed)
    UECDA_FIELDS = (*UECDA_SWITCHES, "run_revolution", "stall_passes", "class_block",
                    "reseat_every")

    #: The seven switchable house rules of Daifugo (docs/rules.md).
    HOUSE_RULES = (
        "revolution",
        "eight_cut",
        "spade_three_return",
        "lock",
        "fall_of_capital",
        "jack_back",
        "illegal_finish",
    )

    @property
    def suits_matter(self) -> bool:
        """A rule reads the suits of the cards played (the lock, the spade three's return,
        same-suit runs); otherwise two moves that differ in their suits alone play alike."""
        return self.lock or self.spade_three_return or (self.runs and self.run_suits == "same")

    def __post_init__(self) -> None:
        name = self.preset_name
        if not isinstance(name, str):
            raise TypeError(f"rules: preset_name must be a string, got {name!r}")

        def bad(msg: str) -> None:
            raise ValueError(f"rules {name!r}: {msg}")

        # every field has the type its annotation says: switches real bools, counts ints (no
        # bools, floats or strings), lists of counts or names; a wrong type is a TypeError
        for f in dataclasses.fields(self):
            check = _FIELD_CHECKS[f.type]
            try:
                value = check(getattr(self, f.name), f.name)
            except TypeError as err:
                raise TypeError(f"rules {name!r}: {err}") from None
            object.__setattr__(self, f.name, value)
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            bad(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {self.players}")
        most_rounds = max_rounds(name)
        if not 1 <= self.rounds <= most_rounds:
            bad(f"rounds must be 1..{most_rounds}, got {self.rounds}")
        allowed = PRESET_PLAYERS.get(name)
        if allowed is not None and self.players not in allowed:
            bad(f"players must be {min(allowed)}..{max(allowed)} for this preset, got "
                f"{self.players}")
        if not 1 <= self.decks <= MAX_DECKS:
            bad(f"decks must be 1..{MAX_DECKS}, got {self.decks}")
        if not 0 <= self.jokers <= MAX_JOKERS:
            bad(f"jokers must be 0..{MAX_JOKERS}, got {self.jokers}")
        if self.run_suits not in RUN_SUITS:
            bad(f"run_suits must be one of {RUN_SUITS}, got {self.run_suits!r}")
        if self.first_leader not in LEADERS_FIRST:
            bad(f"first_leader must be one of {LEADERS_FIRST}, got {self.first_leader!r}")
        if self.later_leader not in LEADERS_LATER:
            bad(f"later_leader must be one of {LEADERS_LATER}, got {self.later_leader!r}")
        if self.later_dealing not in DEALING_LATER:
            bad(f"later_dealing must be one of {DEALING_LATER}, got {self.later_dealing!r}")
        if len(self.points) != self.players:
            bad(f"points needs one value per place ({self.players}), got {self.points!r}")
        if len(self.titles) != self.players:
            bad(f"titles needs one name per place ({self.players}), got {self.titles!r}")
        if list(self.points) != sorted(self.points, reverse=True):
            bad(f"points must not rise with a lower place, got {self.points}")
        tiers = len(self.exchange)
        if 2 * tiers > self.players:
            bad(f"exchange {self.exchange} pairs {2 * tiers} places but there are {self.players}")
        if any(n < 1 for n in self.exchange):
            bad(f"exchange counts must be at least 1, got {self.exchange}")
        if self.lock and self.decks != 1:
            bad("lock compares suits and needs a single deck (decks=1)")
        if self.lock and self.runs and self.run_suits != "same":
            bad("lock needs runs of one suit (run_suits='same'): a mixed-suit run has no suit")
        if self.spade_three_return and self.jokers == 0:
            bad("spade_three_return answers a joker, so it needs jokers >= 1")
        if self.first_leader == "three_of_diamonds" and self.decks != 1:
            bad("first_leader 'three_of_diamonds' needs a single deck (two decks have two)")
        for count in ("run_revolution", "stall_passes", "class_block", "reseat_every"):
            if getattr(self, count) < 0:
                bad(f"{count} must be 0 (off) or more, got {getattr(self, count)}")
        if self.run_revolution and not MIN_RUN <= self.run_revolution <= NUM_RANKS:
            bad(f"run_revolution must be 0 (off) or {MIN_RUN}..{NUM_RANKS}, got "
                f"{self.run_revolution}")
        if self.run_revolution and not (self.runs and self.revolution):
            bad("run_revolution needs runs=True and revolution=True")
        if self.joker_suits and not (self.decks == 1 and self.jokers == 1 and self.jokers_wild):
            bad("joker_suits needs one deck and one wild joker (decks=1, jokers=1)")
        if self.joker_run_ends and not (self.runs and self.run_suits == "same"
                                        and self.jokers_wild and self.jokers == 1):
            bad("joker_run_ends needs same-suit runs and one wild joker (jokers=1)")
        if self.lead_pass and not (self.stall_passes and self.strict_pass):
            bad("lead_pass needs stall_passes >= 1 (else a round may never end) and "
                "strict_pass=True")
        if self.stall_passes and self.stall_passes < self.players:
            bad(f"stall_passes must be 0 (off) or at least the players ({self.players}), got "
                f"{self.stall_passes}")
        if self.later_leader == "three_of_diamonds" and self.decks != 1:
            bad("later_leader 'three_of_diamonds' needs a single deck (two decks have two)")
        cards = self.decks * CARDS_PER_DECK + self.jokers
        if cards < self.players * 2:
            bad(f"{cards} cards are too few for {self.players} players")
        if max(self.exchange, default=0) > cards // self.players:
            bad("exchange asks for more cards than a hand holds")

    # -- presets ----------------------------------------------------------------------------

    @classmethod
    def preset(cls, name: str = "daifugo", players: int | None = None, **overrides: Any) -> Rules:
        """A named preset (``"daifugo"``, ``"president"`` or ``"uecda"``) with switches
        overridden."""
        builders = {"daifugo": _daifugo, "president": _president, "uecda": _uecda}
        if not isinstance(name, str) or name not in builders:
            raise ValueError(f"unknown preset {name!r}; presets are {sorted(builders)}")
        base = builders[name](None if players is None else as_int(players, "players"))
        unknown = set(overrides) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise ValueError(
                f"unknown rule option(s) {sorted(unknown)}; options are "
                f"{sorted(f.name for f in dataclasses.fields(cls))}"
            )
        if "players" in overrides:
            raise ValueError("give players as the preset's players argument")
        return dataclasses.replace(base, **overrides)

    def to_dict(self) -> dict[str, Any]:
        """Plain values (tuples as lists), for checkpoints and logs."""
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """The rules of :meth:`to_dict`'s output (lists for the tuple fields are fine)."""
        if not isinstance(data, dict):
            raise TypeError(f"rules data must be a dict, got {data!r}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(
                f"unknown rule option(s) {sorted(unknown)}; options are {sorted(known)}"
            )
        return cls(**data)

    @property
    def cards(self) -> int:
        return self.decks * CARDS_PER_DECK + self.jokers

    @property
    def max_set_size(self) -> int:
        return self.decks * (CARDS_PER_DECK // NUM_RANKS) + (self.jokers if self.jokers_wild else 0)


def _daifugo(players: int | None) -> Rules:
    players = 4 if players is None else players
    if players not in DAIFUGO_TITLES:
        raise ValueError(
            f"the daifugo preset is for 3 or 4 players, got {players}; "
            "use preset='president' for 3-8"
        )
    return Rules(
        preset_name="daifugo",
        players=players,
        exchange=DAIFUGO_EXCHANGE[players],
        points=DAIFUGO_POINTS[players],
        titles=DAIFUGO_TITLES[players],
    )


def _president(players: int | None) -> Rules:
    players = 4 if players is None else players
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"the president preset is for {MIN_PLAYERS}-{MAX_PLAYERS} players, got {players}")
    return Rules(
        preset_name="president",
        players=players,
        rounds=5,
        decks=1 if players <= PRESIDENT_ONE_DECK_MAX_PLAYERS else 2,
        jokers=0,
        jokers_wild=False,
        runs=False,
        run_suits="any",
        revolution=True,
        eight_cut=False,
        spade_three_return=False,
        lock=False,
        fall_of_capital=False,
        jack_back=False,
        illegal_finish=False,
        strict_pass=False,
        skip_on_equal=False,
        bombs=False,
        exchange=(2, 1) if players >= 4 else (2,),
        points=president_points(players),
        titles=president_titles(players),
        first_leader="first_dealt",
        later_leader="top_place",
        later_dealing="after_last_place",
    )


def _uecda(players: int | None) -> Rules:
    """The standard configuration of the UECda championship's server (docs/rules.md)."""
    players = UECDA_PLAYERS if players is None else players
    if players != UECDA_PLAYERS:
        raise ValueError(f"the uecda preset is for {UECDA_PLAYERS} players, got {players}")
    return Rules(
        preset_name="uecda",
        players=players,
        rounds=UECDA_ROUNDS,
        decks=1,
        jokers=1,
        jokers_wild=True,
        runs=True,
        run_suits="same",
        revolution=True,
        eight_cut=True,
        spade_three_return=True,
        lock=True,
        fall_of_capital=False,
        jack_back=False,
        illegal_finish=False,
        strict_pass=True,
        skip_on_equal=False,
        bombs=False,
        exchange=UECDA_EXCHANGE,
        points=UECDA_POINTS,
        titles=UECDA_TITLES,
        first_leader="three_of_diamonds",
        later_leader="three_of_diamonds",
        later_dealing="top_place",
        run_revolution=UECDA_RUN_REVOLUTION,
        joker_suits=True,
        joker_run_ends=True,
        lead_pass=True,
        stall_passes=UECDA_STALL_PASSES,
        class_block=UECDA_CLASS_BLOCK,
        reseat_every=UECDA_RESEAT_EVERY,
    )
