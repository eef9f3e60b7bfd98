"""The Dou Dizhu rules engine: a :class:`DoudizhuGame` (fixed facts) and its :class:`DoudizhuState`
(one position), implementing :mod:`envs.core.game`. Pure Python and numpy.

Rules: the Dou Dizhu section of ``docs/rules.md``. In short:

* 54 cards, 17 to each seat and 3 to the kitty. The RNG draws the first bidder; each seat bids
  once in seat order: pass or 1/2/3 above the highest bid. A 3 ends bidding at once; otherwise
  the highest bidder becomes landlord. If all three pass the cards are dealt again in the same
  episode (the deal's 64-bit seed draws the next deal, so a deal code replays redeals too).
* The landlord takes the kitty (shown to all), holds 20 cards and leads. Play goes in seat order
  ``0 -> 1 -> 2``. Passing never locks a player out; after two passes in a row the player who
  made the last play leads. The first seat to empty its hand wins for its side.
* Score: ``10 x bid x 2^k`` (``k`` = bombs and rockets played), doubled once more for a spring
  (landlord wins, no peasant played a card) or an anti-spring (peasants win, the landlord made
  only its first play). The landlord wins or loses twice that, each peasant the opposite once.

Rulings where the sources are silent (documented in ``envs/doudizhu_v0.py`` too):

* A redeal draws a new first bidder as well as new hands.
* To keep every episode finite, after ``config.max_redeals`` redeals a further round of three
  passes ends the episode with no score (every return 0; ``result["outcome"] == "no bid"``).
* Rewards: ``reward="score"`` pays the points divided by the base (``10``), i.e. the landlord
  ``+-2 x bid x multiplier`` and each peasant the opposite half; ``reward="win"`` pays +1 to
  each seat of the winning side and -1 to each seat of the other (not zero-sum).

Seats are fixed; *landlord* and *peasant* are roles decided by bidding.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from ..core import dealcode
from ..core.checks import as_action, as_int_in, as_options
from ..core.dealcode import Deal
from ..core.game import IllegalActionError
from .cards import (
    COPIES,
    DECK_SIZE,
    FIRST_CARD,
    FULL_DECK,
    HAND_SIZE,
    KITTY_SIZE,
    LANDLORD_HAND_SIZE,
    NUM_RANKS,
    NUMBER_RANKS,
    PHYSICAL_RANK,
    PLAYERS,
    RANKS,
    UNIT,
    CardParseError,
    contains,
    counts,
    format_cards,
    parse,
    size,
)
from .catalog import NUM_BIDS, Catalog, get_catalog
from .evaluator import HandEvaluator
from .moves import MoveGenerator

DEAL_TAG = "DDZ"
KITTY_OWNER = PLAYERS
"""The owner value of kitty cards in a deal code."""
SEED_LIMIT = 1 << dealcode.SEED_BITS
MAX_PLAYS = DECK_SIZE - (PLAYERS - 1)
"""Most plays in one deal: each removes a card and the game ends while the two other seats
still hold at least one card each."""
MAX_PLAY_STEPS = MAX_PLAYS + (PLAYERS - 1) * (MAX_PLAYS - 1)
"""Most steps of the play phase: at most two passes follow a play before someone plays."""
MAX_BOMBS = NUMBER_RANKS + 1
"""Most bombs and rockets in one deal: a bomb of each number rank and the rocket."""
REWARD_MODES = ("score", "win")
_OPTION_KEYS = {"deal", "hands", "kitty", "first_bidder", "landlord", "bid"}
_NOT_BID = -1


class Phase(IntEnum):
    BIDDING = 0
    PLAY = 1
    OVER = 2

    @property
    def label(self) -> str:
        return self.name.lower()


class DealError(ValueError):
    """Reset options or a deal code that do not describe a valid deal (a ``ValueError``)."""


@dataclass(frozen=True)
class DoudizhuConfig:
    """The rules config (recorded in checkpoints through ``DoudizhuGame.config_dict``)."""

    reward: str = "score"
    """``"score"``: the game's points / ``base_points`` at the end; ``"win"``: +1 / -1 by side."""
    base_points: int = 10
    """The base of the score: a round is worth ``base_points x bid x multiplier`` points."""
    max_redeals: int = 16
    """Redeals allowed after all-pass bidding; one more all-pass ends the episode unscored."""
    history_length: int = 15
    """Recent plays and passes kept in the observation's ``history`` fields."""

    #: (name, least, most) of the integer fields; a history longer than the longest deal's
    #: play would never fill
    _BOUNDS = (("base_points", 1, None), ("max_redeals", 0, None),
               ("history_length", 1, MAX_PLAY_STEPS))

    def __post_init__(self) -> None:
        if not isinstance(self.reward, str) or self.reward not in REWARD_MODES:
            raise ValueError(f"reward {self.reward!r} is not one of {REWARD_MODES}")
        for name, least, most in self._BOUNDS:
            object.__setattr__(self, name, as_int_in(getattr(self, name), name, least, most))


def role_name(state: DoudizhuState, seat: int) -> str:
    if state.landlord < 0:
        return "undecided"
    return "landlord" if seat == state.landlord else "peasant"


class DoudizhuState:
    """One position. Attributes are public for reading (bots, observers); change them only
    through :meth:`apply`. Cards are packed rank counts (see :mod:`envs.doudizhu.cards`)."""

    __slots__ = (
        "game",
        "phase",
        "current_player",
        "terminal",
        "hands",
        "kitty",
        "owners",
        "first_bidder",
        "seed",
        "redeals",
        "bids",
        "num_bids",
        "high_bid",
        "high_bidder",
        "landlord",
        "bid",
        "played",
        "plays_made",
        "pile",
        "pile_owner",
        "passes",
        "trick",
        "history",
        "bombs",
        "_returns",
        "result",
        "_legal",
        "_code",
    )

    # -- construction --------------------------------------------------------------------------

    def __init__(self, game: DoudizhuGame, owners: tuple[int, ...], first_bidder: int, seed: int):
        self.game = game
        self.redeals = 0
        self._returns = [0.0] * PLAYERS
        self.result: dict[str, Any] | None = None
        self._start_deal(owners, first_bidder, seed)

    def _start_deal(self, owners: tuple[int, ...], first_bidder: int, seed: int) -> None:
        hands = [0] * PLAYERS
        kitty = 0
        for card, owner in enumerate(owners):
            if owner == KITTY_OWNER:
                kitty += UNIT[PHYSICAL_RANK[card]]
            else:
                hands[owner] += UNIT[PHYSICAL_RANK[card]]
        self.owners = owners
        self._code: str | None = None
        self.hands = hands
        self.kitty = kitty
        self.first_bidder = first_bidder
        self.seed = seed
        self.phase = Phase.BIDDING
        self.current_player = first_bidder
        self.terminal = False
        self.bids = [_NOT_BID] * PLAYERS
        self.num_bids = 0
        self.high_bid = 0
        self.high_bidder = -1
        self.landlord = -1
        self.bid = 0
        self.played = [0] * PLAYERS
        self.plays_made = [0] * PLAYERS
        self.pile = -1
        self.pile_owner = -1
        self.passes = 0
        self.trick = [-1] * PLAYERS
        self.history: list[tuple[int, int]] = []
        self.bombs = 0
        self._legal: list[int] | None = None

    def _start_play(self, landlord: int, bid: int) -> None:
        self.landlord = landlord
        self.bid = bid
        self.hands[landlord] += self.kitty
        self.phase = Phase.PLAY
        self.current_player = landlord

    def clone(self) -> DoudizhuState:
        """An independent copy (cheap: a few small lists)."""
        new = object.__new__(DoudizhuState)
        new.game = self.game
        new.phase = self.phase
        new.current_player = self.current_player
        new.terminal = self.terminal
        new.hands = self.hands[:]
        new.kitty = self.kitty
        new.owners = self.owners
        new.first_bidder = self.first_bidder
        new.seed = self.seed
        new.redeals = self.redeals
        new.bids = self.bids[:]
        new.num_bids = self.num_bids
        new.high_bid = self.high_bid
        new.high_bidder = self.high_bidder
        new.landlord = self.landlord
        new.bid = self.bid
        new.played = self.played[:]
        new.plays_made = self.plays_made[:]
        new.pile = self.pile
        new.pile_owner = self.pile_owner
        new.passes = self.passes
        new.trick = self.trick[:]
        new.history = self.history[:]
        new.bombs = self.bombs
        new._returns = self._returns[:]
        new.result = self.result
        new._legal = self._legal
        new._code = self._code
        return new

    # -- protocol ------------------------------------------------------------------------------

    @property
    def deal_code(self) -> str:
        """Code of the current deal (hands, kitty, first bidder, redeal seed): the whole deal,
        for the operator; seats get it only in the ``result`` once the deal is over."""
        if not self.owners:
            raise ValueError("a position rebuilt from a view has no deal code")
        if self._code is None:
            deal = Deal(self.owners, self.first_bidder, self.seed)
            self._code = dealcode.encode(DEAL_TAG, deal, PLAYERS)
        return self._code

    @property
    def leading(self) -> bool:
        """Whether the player to move starts a trick (may play any shape, may not pass)."""
        return self.phase == Phase.PLAY and self.pile < 0

    def legal_actions(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self.game.legal_for(self)
        return list(legal)

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal now, without generating every legal action."""
        if self.terminal:
            return False
        cat = self.game.catalog
        if self.phase == Phase.BIDDING:
            return cat.is_bid(action) and (action == cat.BID_PASS or
                                           action - cat.BID_PASS > self.high_bid)
        if action == cat.PASS:
            return self.pile >= 0
        if not cat.pass_segment.stop <= action < cat.num_actions:
            return False
        if not contains(self.hands[self.current_player], cat.cards[action]):
            return False
        return self.pile < 0 or cat.beats(action, self.pile)

    def apply(self, action: int) -> list[float] | None:
        if type(action) is not int:
            action = as_action(action)
        if not self.is_legal(action):
            raise IllegalActionError(self._illegal_reason(action))
        self._legal = None
        if self.phase == Phase.BIDDING:
            return self._apply_bid(action)
        return self._apply_play(action)

    def returns(self) -> list[float]:
        return self._returns[:]

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see (documented at :meth:`DoudizhuGame.view`)."""
        return self.game.view(self, seat)

    def __repr__(self) -> str:
        deal = f" deal={self.deal_code}" if self.owners else ""
        return f"<DoudizhuState {self.phase.label}{deal} to_move={self.current_player}>"

    # -- bidding -------------------------------------------------------------------------------

    def _apply_bid(self, action: int) -> list[float] | None:
        seat = self.current_player
        bid = action - self.game.catalog.BID_PASS
        self.bids[seat] = bid
        self.num_bids += 1
        if bid > self.high_bid:
            self.high_bid = bid
            self.high_bidder = seat
        if bid == NUM_BIDS or (self.num_bids == PLAYERS and self.high_bid):
            self._start_play(self.high_bidder, self.high_bid)
        elif self.num_bids == PLAYERS:
            return self._redeal()
        else:
            self.current_player = (seat + 1) % PLAYERS
        return None

    def _redeal(self) -> list[float] | None:
        if self.redeals >= self.game.config.max_redeals:
            self.phase = Phase.OVER
            self.terminal = True
            self.current_player = -1
            self.result = {
                "outcome": "no bid",
                "redeals": self.redeals,
                "points": [0] * PLAYERS,
                "deal": self.deal_code if self.owners else None,
            }
            return [0.0] * PLAYERS
        self.redeals += 1
        owners, first, seed = random_deal(np.random.default_rng(self.seed))
        self._start_deal(owners, first, seed)
        return None

    # -- play ----------------------------------------------------------------------------------

    def _apply_play(self, action: int) -> list[float] | None:
        game = self.game
        cat = game.catalog
        seat = self.current_player
        self.history.append((seat, action))
        if action == cat.PASS:
            self.trick[seat] = action
            self.passes += 1
            if self.passes == PLAYERS - 1:
                self.current_player = self.pile_owner
                self.pile = -1
                self.pile_owner = -1
                self.passes = 0
                self.trick = [-1] * PLAYERS
            else:
                self.current_player = (seat + 1) % PLAYERS
            return None
        cards = cat.cards[action]
        self.hands[seat] -= cards
        self.played[seat] += cards
        self.plays_made[seat] += 1
        if action == cat.ROCKET or cat.bomb_main[action] >= 0:
            self.bombs += 1
        self.pile = action
        self.pile_owner = seat
        self.passes = 0
        self.trick[seat] = action
        if not self.hands[seat]:
            return self._finish(seat)
        self.current_player = (seat + 1) % PLAYERS
        return None

    def _finish(self, winner: int) -> list[float]:
        config = self.game.config
        landlord = self.landlord
        landlord_won = winner == landlord
        peasants = [s for s in range(PLAYERS) if s != landlord]
        spring = landlord_won and all(self.plays_made[s] == 0 for s in peasants)
        anti_spring = not landlord_won and self.plays_made[landlord] == 1
        multiplier = (1 << self.bombs) * (2 if spring or anti_spring else 1)
        units = self.bid * multiplier
        sign = 1 if landlord_won else -1
        unit_scores = [(PLAYERS - 1) * sign * units if s == landlord else -sign * units
                       for s in range(PLAYERS)]
        if config.reward == "score":
            rewards = [float(u) for u in unit_scores]
        else:
            rewards = [float(sign if s == landlord else -sign) for s in range(PLAYERS)]
        self._returns = [a + b for a, b in zip(self._returns, rewards)]
        self.phase = Phase.OVER
        self.terminal = True
        self.current_player = -1
        self.result = {
            "outcome": "landlord" if landlord_won else "peasants",
            "winner": winner,
            "bid": self.bid,
            "bombs": self.bombs,
            "spring": spring,
            "anti_spring": anti_spring,
            "multiplier": multiplier,
            "round_points": config.base_points * units,
            "points": [config.base_points * u for u in unit_scores],
            "deal": self.deal_code if self.owners else None,
        }
        return rewards

    def _illegal_reason(self, action: int) -> str:
        cat = self.game.catalog
        try:
            text = cat.action_to_str(action)
        except ValueError:
            return f"action id {action} is outside the catalog [0, {cat.num_actions})"
        if self.terminal:
            return f"{text!r}: the game is over"
        seat = self.current_player
        if self.phase == Phase.BIDDING:
            if not cat.is_bid(action):
                return f"{text!r}: seat {seat} must bid (bid pass, bid 1..{NUM_BIDS})"
            return f"{text!r}: the bid must be above the highest bid {self.high_bid}"
        if cat.is_bid(action):
            return f"{text!r}: bidding is over"
        if action == cat.PASS:
            return "'pass': the leader of a trick must play"
        if not contains(self.hands[seat], cat.cards[action]):
            return f"{text!r}: seat {seat} does not hold those cards"
        return f"{text!r} does not beat the pile {cat.action_to_str(self.pile)!r}"


def random_deal(rng: np.random.Generator) -> tuple[tuple[int, ...], int, int]:
    """Owners of the 54 cards (seats, ``KITTY_OWNER``), first bidder and next seed, from ``rng``."""
    template = np.repeat(np.arange(PLAYERS + 1), [HAND_SIZE] * PLAYERS + [KITTY_SIZE])
    owners = tuple(int(o) for o in rng.permutation(template))
    first = int(rng.integers(PLAYERS))
    seed = int(rng.integers(0, SEED_LIMIT, dtype=np.uint64))
    return owners, first, seed


class DoudizhuGame:
    """Fixed facts of Dou Dizhu under one :class:`DoudizhuConfig`, and the state factory."""

    name = "doudizhu"
    version = 0
    num_players = PLAYERS
    _CACHE_LIMIT = 1 << 8
    """Entries per move cache. Small on purpose: a large cache made every garbage collection
    walk it (measured: 1 << 16 entries ran random play ~30% slower than 1 << 8); the values are
    tuples, which the collector stops tracking."""

    def __init__(self, config: DoudizhuConfig | None = None):
        from .observation import ObservationWriter

        self.config = config or DoudizhuConfig()
        self.catalog: Catalog = get_catalog()
        self.moves = MoveGenerator(self.catalog)
        self.num_actions = self.catalog.num_actions
        self.max_game_length = PLAYERS * (self.config.max_redeals + 1) + MAX_PLAY_STEPS
        self._writer = ObservationWriter(self)
        self.layout = self._writer.layout
        cat = self.catalog
        self._bid_moves = [
            [cat.BID_PASS] + [cat.BID_PASS + b for b in range(high + 1, NUM_BIDS + 1)]
            for high in range(NUM_BIDS + 1)
        ]
        self._lead_cache: dict[int, list[int]] = {}
        self._reply_cache: dict[tuple[int, int], list[int]] = {}
        self._evaluator: HandEvaluator | None = None

    @property
    def evaluator(self) -> HandEvaluator:
        """The hand evaluator (min plays, high cards, bombs, bid advice), sharing the move
        generator's tables."""
        if self._evaluator is None:
            self._evaluator = HandEvaluator(self.moves)
        return self._evaluator

    # -- states --------------------------------------------------------------------------------

    def new_state(self, rng: np.random.Generator, options: dict | None = None) -> DoudizhuState:
        """A new deal. ``options`` (all optional):

        * ``{"deal": code}`` replays a deal code (hands, kitty, first bidder, redeal seed).
        * ``{"hands": [h0, h1, h2], "kitty": k, "first_bidder": s}`` sets the deal (17, 17, 17
          and 3 cards as text, together the whole deck; ``first_bidder`` drawn when absent).
        * adding ``"landlord": s, "bid": b`` skips bidding; the landlord's hand then holds 20
          cards, the kitty among them.
        """
        options = as_options(options)
        unknown = set(options) - _OPTION_KEYS
        if unknown:
            # Ignored, not refused: PettingZoo's api_test resets with a foreign option.
            warnings.warn(
                f"ignoring unknown reset options {sorted(unknown)}; Dou Dizhu knows "
                f"{sorted(_OPTION_KEYS)}",
                stacklevel=3,
            )
            for key in unknown:
                del options[key]
        if "deal" in options:
            if len(options) > 1:
                extra = sorted(set(options) - {"deal"})
                raise DealError(f"'deal' replays a whole deal; drop {extra}")
            owners, first, seed = self._decode(options["deal"])
            return DoudizhuState(self, owners, first, seed)
        if "hands" not in options:
            extra = set(options) - {"hands"}
            if extra:
                raise DealError(f"options {sorted(extra)} need 'hands' (and 'kitty')")
            return DoudizhuState(self, *random_deal(rng))
        return self._setup(rng, options)

    def _decode(self, code: str) -> tuple[tuple[int, ...], int, int]:
        try:
            deal = dealcode.decode(DEAL_TAG, code, DECK_SIZE, PLAYERS)
        except ValueError as e:
            raise DealError(str(e)) from None
        want = [HAND_SIZE] * PLAYERS + [KITTY_SIZE]
        got = [deal.owners.count(o) for o in range(PLAYERS + 1)]
        if got != want:
            raise DealError(
                f"deal code {code!r} gives {got} cards to the seats and kitty, not {want}"
            )
        return deal.owners, deal.first_seat, deal.seed

    def _setup(self, rng: np.random.Generator, options: dict) -> DoudizhuState:
        hands_text = options["hands"]
        if not isinstance(hands_text, (list, tuple)) or len(hands_text) != PLAYERS:
            raise DealError(f"'hands' must be a list of {PLAYERS} card strings, got {hands_text!r}")
        if "kitty" not in options:
            raise DealError("'hands' needs 'kitty' too (the 3 kitty cards as text)")
        hands = [_parse_option(f"hands[{s}]", h) for s, h in enumerate(hands_text)]
        kitty = _parse_option("kitty", options["kitty"])
        landlord = options.get("landlord")
        bid = options.get("bid")
        if (landlord is None) != (bid is None):
            raise DealError("'landlord' and 'bid' go together (both or neither)")
        if landlord is not None:
            landlord = _int_option("landlord", landlord, 0, PLAYERS - 1)
            bid = _int_option("bid", bid, 1, NUM_BIDS)
        if size(kitty) != KITTY_SIZE:
            raise DealError(f"kitty has {size(kitty)} cards, not {KITTY_SIZE}")
        for s, h in enumerate(hands):
            want = LANDLORD_HAND_SIZE if s == landlord else HAND_SIZE
            if size(h) != want:
                role = " (the landlord: its hand includes the kitty)" if s == landlord else ""
                raise DealError(f"hands[{s}] has {size(h)} cards, not {want}{role}")
        if landlord is not None:
            if not contains(hands[landlord], kitty):
                raise DealError(
                    f"the landlord's hand {format_cards(hands[landlord])!r} must include the "
                    f"kitty {format_cards(kitty)!r}"
                )
            hands[landlord] -= kitty
        total = [sum(col) for col in zip(*(counts(x) for x in hands + [kitty]))]
        for r, n in enumerate(total):
            if n != COPIES[r]:
                raise DealError(
                    f"rank {RANKS[r]} appears {n} times across hands and kitty; the deck has "
                    f"{COPIES[r]}"
                )
        if "first_bidder" in options:
            first = _int_option("first_bidder", options["first_bidder"], 0, PLAYERS - 1)
        else:
            first = int(rng.integers(PLAYERS))
        seed = int(rng.integers(0, SEED_LIMIT, dtype=np.uint64))
        owners = _owners_of(hands + [kitty])
        state = DoudizhuState(self, owners, first, seed)
        if landlord is not None:
            state.bids[landlord] = bid
            state.high_bid = bid
            state.high_bidder = landlord
            state._start_play(landlord, bid)
        return state

    # -- legal moves ---------------------------------------------------------------------------

    def legal_for(self, state: DoudizhuState) -> list[int]:
        """Legal ids of ``state`` (shared, read-only lists; states copy them out)."""
        if state.terminal:
            return []
        if state.phase == Phase.BIDDING:
            return self._bid_moves[state.high_bid]
        hand = state.hands[state.current_player]
        if state.pile < 0:
            legal = self._lead_cache.get(hand)
            if legal is None:
                if len(self._lead_cache) >= self._CACHE_LIMIT:
                    self._lead_cache.clear()
                legal = self._lead_cache[hand] = tuple(self.moves.lead(hand))
            return legal
        key = (hand, state.pile)
        legal = self._reply_cache.get(key)
        if legal is None:
            if len(self._reply_cache) >= self._CACHE_LIMIT:
                self._reply_cache.clear()
            legal = self._reply_cache[key] = (self.catalog.PASS, *self.moves.replies(*key))
        return legal

    def from_view(self, view: dict[str, Any], hands: list[int]) -> DoudizhuState:
        """The play-phase position of ``view`` (what one seat saw) in which the seats hold
        ``hands`` (packed rank counts; the viewer's own as in its view). Bots use it to search
        over guesses of the hidden hands. Facts the view does not give (the deal's physical
        cards, the redeal seed) are left neutral: a rebuilt state is for playing on, not for
        its deal code."""
        if view["phase"] != Phase.PLAY.label:
            raise ValueError(f"from_view rebuilds play positions, not phase {view['phase']!r}")
        if hands[view["seat"]] != parse(view["hand"]):
            raise ValueError("the viewer's hand differs from its view")
        for seat, hand in enumerate(hands):
            if size(hand) != view["cards_left"][seat]:
                raise ValueError(
                    f"seat {seat} holds {view['cards_left'][seat]} cards in the view, "
                    f"{size(hand)} in the hands given"
                )
        cat = self.catalog
        state = object.__new__(DoudizhuState)
        state.game = self
        state.phase = Phase.PLAY
        state.current_player = view["to_move"]
        state.terminal = False
        state.hands = list(hands)
        state.kitty = parse(view["kitty"] or "")
        state.owners = ()
        state.first_bidder = view["first_bidder"]
        state.seed = 0
        state.redeals = view["redeals"]
        state.bids = [_NOT_BID if b is None else b for b in view["bids"]]
        state.num_bids = sum(b is not None for b in view["bids"])
        state.high_bid = state.bid = view["bid"]
        state.high_bidder = state.landlord = view["landlord"]
        state.played = [parse(p) for p in view["played"]]
        plays = [0] * PLAYERS
        for seat, text in view["history"]:
            if text != cat.action_to_str(cat.PASS):
                plays[seat] += 1
        state.plays_made = plays
        state.pile = -1 if view["pile"] is None else cat.action_from_str(view["pile"])
        state.pile_owner = -1 if view["pile_owner"] is None else view["pile_owner"]
        state.trick = [-1 if t is None else cat.action_from_str(t) for t in view["trick"]]
        passes = 0
        if state.pile >= 0:
            for _seat, text in reversed(view["history"]):
                if text != cat.action_to_str(cat.PASS):
                    break
                passes += 1
        state.passes = passes
        state.history = []
        state.bombs = view["bombs"]
        state._returns = [0.0] * PLAYERS
        state.result = None
        state._legal = None
        state._code = None
        return state

    # -- observation, text, info ---------------------------------------------------------------

    def observe(self, state: DoudizhuState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        return self._writer.write(state, seat, out)

    def action_to_str(self, action: int) -> str:
        return self.catalog.action_to_str(action)

    def action_from_str(self, text: str, state: DoudizhuState | None = None) -> int:
        bidding = state is not None and state.phase == Phase.BIDDING
        return self.catalog.action_from_str(text, bidding=bidding)

    def info(self, state: DoudizhuState, seat: int) -> dict[str, Any]:
        out = {
            "seat": seat,
            "role": role_name(state, seat),
            "landlord": state.landlord if state.landlord >= 0 else None,
            "bid": state.bid,
            "phase": state.phase.label,
            "redeals": state.redeals,
        }
        if state.result is not None:
            out["result"] = dict(state.result)
        return out

    def config_dict(self) -> dict[str, Any]:
        return {"game": self.name, "version": self.version, **asdict(self.config)}

    def view(self, state: DoudizhuState, seat: int) -> dict[str, Any]:
        """What ``seat`` may see, as plain values with cards as text:

        ``seat``, ``role`` ("undecided"/"landlord"/"peasant"), ``phase``, ``to_move`` (seat or
        None), ``hand``, ``first_bidder``, ``bids`` (per seat: None not yet, 0 pass, 1..3),
        ``landlord`` and ``bid`` (None/0 while bidding), ``kitty`` (text once public, else None),
        ``cards_left`` and ``played`` (per seat), ``unseen`` (cards neither in the hand nor
        played: the card counter), ``pile`` and ``pile_owner`` (None when leading),
        ``trick`` (per seat, its latest action in this trick or None), ``history`` (list of
        ``[seat, text]`` plays and passes of this deal), ``bombs``, ``multiplier`` (the round's
        ``2^bombs`` so far), ``redeals``, ``legal`` (texts, only for the seat to move),
        ``advice`` (the bid advice line of docs/rules.md, only for the seat to bid) and, once over,
        ``result`` (its ``deal`` is the deal code) and ``hands`` (every seat's remaining cards).

        Nothing in it depends on another seat's hidden cards: the deal code, which is the whole
        deal, appears only in the result. The view is safe to send to that seat.
        """
        cat = self.catalog
        me = state.hands[seat]
        public_kitty = state.landlord >= 0
        out: dict[str, Any] = {
            "seat": seat,
            "role": role_name(state, seat),
            "phase": state.phase.label,
            "to_move": None if state.terminal else state.current_player,
            "hand": format_cards(me),
            "first_bidder": state.first_bidder,
            "bids": [None if b == _NOT_BID else b for b in state.bids],
            "landlord": state.landlord if public_kitty else None,
            "bid": state.bid,
            "kitty": format_cards(state.kitty) if public_kitty else None,
            "cards_left": [size(h) for h in state.hands],
            "played": [format_cards(p) for p in state.played],
            "unseen": format_cards(FULL_DECK - me - sum(state.played)),
            "pile": cat.action_to_str(state.pile) if state.pile >= 0 else None,
            "pile_owner": state.pile_owner if state.pile >= 0 else None,
            "trick": [cat.action_to_str(a) if a >= 0 else None for a in state.trick],
            "history": [[s, cat.action_to_str(a)] for s, a in state.history],
            "bombs": state.bombs,
            "multiplier": 1 << state.bombs,
            "redeals": state.redeals,
        }
        if seat == state.current_player and not state.terminal:
            out["legal"] = [cat.action_to_str(a) for a in state.legal_actions()]
            if state.phase == Phase.BIDDING:
                out["advice"] = self.evaluator.advice(me, state.high_bid)
        if state.result is not None:
            out["result"] = dict(state.result)
            out["hands"] = [format_cards(h) for h in state.hands]
        return out

    def render(self, state: DoudizhuState) -> str:
        """The whole table as text (every hand shown: this is the spectator's view)."""
        cat = self.catalog
        head = f"Dou Dizhu [{state.phase.label}] deal {state.deal_code}"
        if state.redeals:
            head += f" (redeal {state.redeals})"
        lines = [head]
        if state.landlord >= 0:
            lines.append(
                f"landlord player_{state.landlord}, bid {state.bid}, bombs {state.bombs}: "
                f"{self.config.base_points} x {state.bid} x {1 << state.bombs} = "
                f"{self.config.base_points * state.bid * (1 << state.bombs)}; kitty "
                f"{format_cards(state.kitty)}"
            )
        for s in range(PLAYERS):
            bid = state.bids[s]
            tag = "" if bid == _NOT_BID else f" bid {'pass' if bid == 0 else bid}"
            arrow = "  <- to move" if s == state.current_player else ""
            trick = state.trick[s]
            last = f" | {cat.action_to_str(trick)}" if trick >= 0 else ""
            lines.append(
                f"player_{s} {role_name(state, s):<9}{size(state.hands[s]):>3} "
                f"{format_cards(state.hands[s]) or '-'}{tag}{last}{arrow}"
            )
        if state.pile >= 0:
            lines.append(f"pile: {cat.action_to_str(state.pile)} by player_{state.pile_owner}")
        if state.result is not None:
            lines.append(f"result: {state.result}")
        return "\n".join(lines)


def _parse_option(name: str, text: Any) -> int:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be card text such as '33344', got {text!r}")
    try:
        return parse(text)
    except CardParseError as e:
        raise DealError(f"{name}: {e}") from None


def _int_option(name: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int in ``low..high`` (a seat, a bid), or a :class:`DealError`."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not ok or not low <= value <= high:
        raise DealError(f"{name!r} must be {low}..{high}, got {value!r}")
    return int(value)


def _owners_of(groups: list[int]) -> tuple[int, ...]:
    """Physical owners for rank-count groups (seats, then the kitty): each rank's suits go to
    the groups in order."""
    owners = [0] * DECK_SIZE
    for r in range(NUM_RANKS):
        card = FIRST_CARD[r]
        for owner, group in enumerate(groups):
            for _ in range(counts(group)[r]):
                owners[card] = owner
                card += 1
    return tuple(owners)


__all__ = [
    "DealError",
    "DoudizhuConfig",
    "DoudizhuGame",
    "DoudizhuState",
    "MAX_BOMBS",
    "Phase",
    "random_deal",
]
