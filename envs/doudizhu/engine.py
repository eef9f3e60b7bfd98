"""The Dou Dizhu rules engine: a :class:`DoudizhuGame` (fixed facts) and its :class:`DoudizhuState`
(one position), implementing :mod:`climbrl.envs.core.game`. Pure Python and numpy; where the
optional compiled core was built, it makes the legal plays, applies plays and passes and
writes observations (:mod:`climbrl.envs.doudizhu.compiled`), the Python here staying the
reference.

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

Rulings where the sources are silent (documented in ``envs/doudizhu_v1.py`` too):

* A redeal draws a new first bidder as well as new hands.
* To keep every episode finite, after ``config.max_redeals`` redeals a further round of three
  passes ends the episode with no score (every return 0; ``result["outcome"] == "no bid"``).
* Rewards: ``reward="score"`` pays the points divided by the base (``10``), i.e. the landlord
  ``+-2 x bid x multiplier`` and each peasant the opposite half; ``reward="win"`` pays +1 to
  each seat of the winning side and -1 to each seat of the other (not zero-sum).

The variants (:class:`~climbrl.envs.doudizhu.config.DoudizhuConfig`, rulings in docs/rules.md):

* ``bidding="rob"`` (:mod:`climbrl.envs.doudizhu.bidding`): a seat calls, the seats after it that have
  not spoken may rob, the caller may rob back; the last to rob is landlord at a bid of 1, and
  every rob doubles the round like a bomb (``result["robs"]``).
* ``open_hand``: once it holds the kitty, the landlord chooses (phase ``show``) to play with
  its hand face up (``show``: every seat then sees its cards, and the round doubles) or hidden
  (``hide``), then leads (``result["shown"]``).
* ``players=4``: two packs (:func:`~climbrl.envs.doudizhu.cards.setup_for`), 25 cards each and 8 in
  the kitty, one landlord against three peasants; bombs of 4 to 8 cards, the rocket of four
  jokers (the catalog of :mod:`climbrl.envs.doudizhu.catalog`); the landlord scores three times.
* ``laizi`` (:mod:`climbrl.envs.doudizhu.laizi`): the rank ``state.wild`` (the deal seed modulo 13,
  so the deal code carries it) is wild; a play takes the hand's own cards first and wild
  cards for the rest; soft bombs rank below hard ones (``pile_power``, ``pile_subs``).

Seats are fixed; *landlord* and *peasant* are roles decided by bidding.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np

from ..core.checks import as_action, reset_options
from ..core.game import SIDES, GameDefaults, IllegalActionError
from .bidding import CLASSIC, NOT_YET, NUM_BIDS, PASS_CODE, ROB_BID, Outcome, auction_for
from . import compiled, laizi
from . import roles as role_rules
from .cards import NUMBER_RANKS, RANKS, UNIT, contains, format_cards, size
from .catalog import Catalog, get_catalog
from .config import DoudizhuConfig, Phase, max_bombs, max_play_steps
from .deal import (
    SEED_LIMIT,
    DealError,
    decode,
    encode,
    int_option,
    kitty_owner,
    out_of_play,
    owners_of,
    random_deal,
    set_up_hands,
)
from .evaluator import HandEvaluator, bid_for
from .moves import MoveGenerator

MAX_BOMBS = max_bombs(DoudizhuConfig().setup)
"""Most bombs and rockets in one deal of the three-player game."""
_OPTION_KEYS = ("deal", "hands", "kitty", "first_bidder", "landlord", "bid", "wild")


def role_name(state: DoudizhuState, seat: int) -> str:
    if state.landlord < 0:
        return "undecided"
    return "landlord" if seat == state.landlord else "peasant"


class DoudizhuState:
    """One position. Attributes are public for reading (bots, observers); change them only
    through :meth:`apply`. Cards are packed rank counts (see :mod:`climbrl.envs.doudizhu.cards`)."""

    __slots__ = (
        "game",
        "phase",
        "current_player",
        "terminal",
        "hands",
        "kitty",
        "out",
        "owners",
        "first_bidder",
        "seed",
        "redeals",
        "bids",
        "num_bids",
        "high_bid",
        "high_bidder",
        "caller",
        "robs",
        "rob_seats",
        "shown",
        "wild",
        "landlord",
        "bid",
        "played",
        "plays_made",
        "pile",
        "pile_owner",
        "pile_power",
        "pile_subs",
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
        self._returns = [0.0] * game.num_players
        self.result: dict[str, Any] | None = None
        self._start_deal(owners, first_bidder, seed)

    def _start_deal(self, owners: tuple[int, ...], first_bidder: int, seed: int) -> None:
        setup = self.game.setup
        players = setup.players
        kitty_seat = kitty_owner(setup)
        rank_of = setup.physical_rank
        groups = [0] * (out_of_play(setup) + 1)
        for card, owner in enumerate(owners):
            groups[owner] += UNIT[rank_of[card]]
        self.out = groups[out_of_play(setup)]
        # a deal code says where every card is, with no word for "out of play"
        self.owners = () if self.out else owners
        self._code: str | None = None
        self.hands = groups[:kitty_seat]
        self.kitty = groups[kitty_seat]
        self.first_bidder = first_bidder
        self.seed = seed
        self.wild = seed % NUMBER_RANKS if self.game.config.laizi else -1
        self.phase = Phase.BIDDING
        self.current_player = first_bidder
        self.terminal = False
        self.bids = [NOT_YET] * players
        self.num_bids = 0
        self.high_bid = 0
        self.high_bidder = -1
        self.caller = -1
        self.robs = 0
        self.rob_seats = 0
        self.shown = False
        self.landlord = -1
        self.bid = 0
        self.played = [0] * players
        self.plays_made = [0] * players
        self.pile = -1
        self.pile_owner = -1
        self.pile_power = -1
        self.pile_subs = 0
        self.passes = 0
        self.trick = [-1] * players
        self.history: list[tuple[int, int]] = []
        self.bombs = 0
        self._legal: list[int] | None = None

    def _start_play(self, landlord: int, bid: int) -> None:
        self.landlord = landlord
        self.bid = bid
        self.hands[landlord] += self.kitty
        self.phase = Phase.SHOW if self.game.config.open_hand else Phase.PLAY
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
        new.out = self.out
        new.owners = self.owners
        new.first_bidder = self.first_bidder
        new.seed = self.seed
        new.redeals = self.redeals
        new.bids = self.bids[:]
        new.num_bids = self.num_bids
        new.high_bid = self.high_bid
        new.high_bidder = self.high_bidder
        new.caller = self.caller
        new.robs = self.robs
        new.rob_seats = self.rob_seats
        new.shown = self.shown
        new.wild = self.wild
        new.landlord = self.landlord
        new.bid = self.bid
        new.played = self.played[:]
        new.plays_made = self.plays_made[:]
        new.pile = self.pile
        new.pile_owner = self.pile_owner
        new.pile_power = self.pile_power
        new.pile_subs = self.pile_subs
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
            raise ValueError("this position has no deal code (rebuilt from a view, or set up "
                             "with cards out of play)")
        if self._code is None:
            self._code = encode(self.game.setup, self.owners, self.first_bidder, self.seed)
        return self._code

    @property
    def leading(self) -> bool:
        """Whether the player to move starts a trick (may play any shape, may not pass)."""
        return self.phase == Phase.PLAY and self.pile < 0

    @property
    def multiplier(self) -> int:
        """The round's doublings so far, as a factor: ``2`` per bomb, rocket and rob, and for a
        hand shown."""
        return 1 << (self.bombs + self.robs + self.shown)

    def legal_actions(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self.game.legal_for(self)
        return list(legal)

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal now, without generating every legal action."""
        if self.terminal:
            return False
        game = self.game
        cat = game.catalog
        if self.phase == Phase.BIDDING:
            return cat.is_bid(action) and game.auction.is_legal(self, action - cat.BID_PASS)
        if self.phase == Phase.SHOW:
            return cat.is_show(action)
        if action == cat.PASS:
            return self.pile >= 0
        if not cat.pass_segment.stop <= action < cat.num_actions:
            return False
        hand = self.hands[self.current_player]
        cards = cat.cards[action]
        if self.wild >= 0:
            return self._wild_legal(hand, action, cards)
        if not contains(hand, cards):
            return False
        return self.pile < 0 or cat.beats(action, self.pile)

    def _wild_legal(self, hand: int, action: int, cards: int) -> bool:
        """Laizi: whether ``hand`` makes the play ``action`` and it beats the pile."""
        if not laizi.holds(hand, self.wild, cards):
            return False
        if self.pile < 0:
            return True
        if self.pile_power < 0:
            return self.game.catalog.beats(action, self.pile)
        subs = laizi.substitutes(hand, self.wild, cards)
        return laizi.bomb_tier(self.game.catalog, action, self.wild, subs) > self.pile_power

    def apply(self, action: int) -> list[float] | None:
        core = self.game._core
        if core is not None:
            # an id of the legal list cached this turn is played at once (no re-check)
            rewards = core.apply(self, action)
            if rewards is not NotImplemented:
                return rewards
        if type(action) is not int:
            action = as_action(action)
        if not self.is_legal(action):
            raise IllegalActionError(self._illegal_reason(action))
        self._legal = None
        if self.phase == Phase.BIDDING:
            return self._apply_bid(action)
        if self.phase == Phase.SHOW:
            self.shown = action == self.game.catalog.SHOW
            self.phase = Phase.PLAY
            return None
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
        outcome = self.game.auction.apply(self, action - self.game.catalog.BID_PASS)
        if outcome == Outcome.LANDLORD:
            self._start_play(self.high_bidder, self.high_bid)
        elif outcome == Outcome.REDEAL:
            return self._redeal()
        return None

    def _redeal(self) -> list[float] | None:
        game = self.game
        if self.redeals >= game.config.max_redeals:
            self.phase = Phase.OVER
            self.terminal = True
            self.current_player = -1
            self.result = {
                "outcome": "no bid",
                "redeals": self.redeals,
                "points": [0] * game.num_players,
                "deal": self.deal_code if self.owners else None,
            }
            return [0.0] * game.num_players
        self.redeals += 1
        owners, first, seed = random_deal(np.random.default_rng(self.seed), game.setup)
        self._start_deal(owners, first, seed)
        return None

    # -- play ----------------------------------------------------------------------------------

    def _apply_play(self, action: int) -> list[float] | None:
        game = self.game
        if game._core is not None:
            return game._core.play(self, action)
        cat = game.catalog
        seat = self.current_player
        players = game.num_players
        self.history.append((seat, action))
        if action == cat.PASS:
            self.trick[seat] = action
            self.passes += 1
            if self.passes == players - 1:
                self.current_player = self.pile_owner
                self.pile = -1
                self.pile_owner = -1
                self.pile_power = -1
                self.pile_subs = 0
                self.passes = 0
                self.trick = [-1] * players
            else:
                self.current_player = (seat + 1) % players
            return None
        cards = cat.cards[action]
        if self.wild >= 0:
            hand = self.hands[seat]
            self.pile_subs = laizi.substitutes(hand, self.wild, cards)
            self.pile_power = laizi.bomb_tier(cat, action, self.wild, self.pile_subs)
            cards = laizi.taken(hand, self.wild, cards)
        self.hands[seat] -= cards
        self.played[seat] += cards
        self.plays_made[seat] += 1
        if cat.bomb_power[action] >= 0:
            self.bombs += 1
        self.pile = action
        self.pile_owner = seat
        self.passes = 0
        self.trick[seat] = action
        if not self.hands[seat]:
            return self._finish(seat)
        self.current_player = (seat + 1) % players
        return None

    def _finish(self, winner: int) -> list[float]:
        game = self.game
        config = game.config
        players = game.num_players
        landlord = self.landlord
        landlord_won = winner == landlord
        peasants = [s for s in range(players) if s != landlord]
        spring = landlord_won and all(self.plays_made[s] == 0 for s in peasants)
        anti_spring = not landlord_won and self.plays_made[landlord] == 1
        multiplier = self.multiplier * (2 if spring or anti_spring else 1)
        units = self.bid * multiplier
        sign = 1 if landlord_won else -1
        unit_scores = [(players - 1) * sign * units if s == landlord else -sign * units
                       for s in range(players)]
        if config.reward == "score":
            rewards = [float(u) for u in unit_scores]
        else:
            rewards = [float(sign if s == landlord else -sign) for s in range(players)]
        self._returns = [a + b for a, b in zip(self._returns, rewards)]
        self.phase = Phase.OVER
        self.terminal = True
        self.current_player = -1
        self.result = {
            "outcome": "landlord" if landlord_won else "peasants",
            "winner": winner,
            "bid": self.bid,
            "robs": self.robs,
            "shown": self.shown,
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
        game = self.game
        cat = game.catalog
        try:
            text = cat.action_to_str(action)
        except ValueError:
            return f"action id {action} is outside the catalog [0, {cat.num_actions})"
        if self.terminal:
            return f"{text!r}: the game is over"
        seat = self.current_player
        if self.phase == Phase.BIDDING:
            now = " or ".join(repr(cat.action_to_str(a)) for a in game.legal_for(self))
            if not cat.is_bid(action):
                return f"{text!r}: seat {seat} must bid ({now})"
            if game.auction.style == CLASSIC:
                return f"{text!r}: the bid must be above the highest bid {self.high_bid}"
            return f"{text!r}: seat {seat} may now {now}"
        if self.phase == Phase.SHOW:
            return f"{text!r}: the landlord first chooses 'show' or 'hide'"
        if cat.is_bid(action):
            return f"{text!r}: bidding is over"
        if action == cat.PASS:
            return "'pass': the leader of a trick must play"
        hand = self.hands[seat]
        if not (laizi.holds(hand, self.wild, cat.cards[action]) if self.wild >= 0
                else contains(hand, cat.cards[action])):
            return f"{text!r}: seat {seat} does not hold those cards"
        return f"{text!r} does not beat the pile {cat.action_to_str(self.pile)!r}"


class DoudizhuGame(GameDefaults):
    """Fixed facts of Dou Dizhu under one :class:`DoudizhuConfig`, and the state factory."""

    name = "doudizhu"
    version = 1
    _CACHE_LIMIT = 1 << 8
    """Entries per move cache. Small on purpose: a large cache made every garbage collection
    walk it (measured: 1 << 16 entries ran random play ~30% slower than 1 << 8); the values are
    tuples, which the collector stops tracking."""

    def __init__(self, config: DoudizhuConfig | None = None, pure: bool | None = None):
        """``pure``: true for the pure-Python observation writer even where the compiled core
        is built, false or ``None`` for the compiled one where it is (``None``: unless the
        environment variable ``CLIMBRL_PURE=1``; :mod:`climbrl.envs.doudizhu.compiled`)."""
        from .observation import ObservationWriter

        self.config = config = config or DoudizhuConfig()
        self.setup = setup = config.setup
        self.num_players = setup.players
        self.catalog: Catalog = get_catalog(setup.players, config.bidding, config.open_hand)
        self.auction = auction_for(config.bidding, setup.players, self.catalog.BID_PASS)
        self.moves = MoveGenerator(self.catalog)
        self.wild_moves = laizi.WildMoves(self.catalog) if config.laizi else None
        """laizi: the legal plays of hands with wild cards"""
        self.num_actions = self.catalog.num_actions
        self.max_bombs = max_bombs(setup)
        self.max_game_length = (setup.players * config.max_redeals + self.auction.max_turns
                                + config.open_hand + max_play_steps(setup))
        self._writer = ObservationWriter(self)
        self.layout = self._writer.layout
        self._pure = pure
        self._compiled_core()
        self._lead_cache: dict[int, list[int]] = {}
        self._reply_cache: dict[tuple[int, int], list[int]] = {}
        self._evaluator: HandEvaluator | None = None

    def _compiled_core(self) -> None:
        """The compiled writer and engine core where the game uses them, else ``None``."""
        module = compiled.load(self._pure)
        self._fast = None if module is None else compiled.FastWriter(module, self._writer)
        self._core = None if module is None else self._fast.engine
        self.fresh_observation = None if module is None else self._fast.observation
        """``fresh_observation(state, seat)``: the env's observation and action mask in arrays
        nobody else holds, in one C call (:class:`~climbrl.envs.core.game.SeatBuffers`);
        ``None`` in pure Python"""

    @property
    def compiled(self) -> bool:
        """Whether this game uses the compiled core (``_fast``): legal plays, apply, observations."""
        return self._fast is not None

    def __getstate__(self) -> dict:
        # the compiled core is rebuilt where the game is loaded (it may not be built there)
        return {**self.__dict__, "_fast": None, "_core": None, "fresh_observation": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._pure = state.get("_pure")
        self._compiled_core()

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
        * ``{"hands": [h0, h1, h2], "kitty": k, "first_bidder": s}`` sets the deal (cards as
          text: at most 17 a hand and 3 in the kitty; ``first_bidder`` drawn when absent).
        * adding ``"landlord": s, "bid": b`` skips bidding; the landlord's hand then holds at
          most 20 cards, the kitty among them (with ``bidding="rob"`` the bid is 1, no rob);
          ``kitty`` may then be left out (an endgame where the landlord has played some of it).

        Cards named nowhere are out of play, as in Daifugo: an endgame names only the cards
        left (``{"hands": ["33", "4", "5"], "landlord": 0, "bid": 1}``). They are in no one's
        hand and in no observation's unseen cards, and such a position has no deal code. A seat
        holding fewer cards than a deal gives it counts as having played once before the
        position (for the spring and anti-spring). A hand may not be empty, nor a card be named
        more often than the deck has it.
        """
        options = reset_options(options, _OPTION_KEYS, "Dou Dizhu")
        if "deal" in options:
            if len(options) > 1:
                extra = sorted(set(options) - {"deal"})
                raise DealError(f"'deal' replays a whole deal; drop {extra}")
            return DoudizhuState(self, *decode(self.setup, options["deal"]))
        if "hands" not in options:
            extra = set(options) - {"hands"}
            if extra:
                raise DealError(f"options {sorted(extra)} need 'hands' (and 'kitty')")
            return DoudizhuState(self, *random_deal(rng, self.setup))
        return self._setup(rng, options)

    def _setup(self, rng: np.random.Generator, options: dict) -> DoudizhuState:
        players = self.num_players
        landlord = options.get("landlord")
        bid = options.get("bid")
        if (landlord is None) != (bid is None):
            raise DealError("'landlord' and 'bid' go together (both or neither)")
        if landlord is not None:
            landlord = int_option("landlord", landlord, 0, players - 1)
            top = NUM_BIDS if self.auction.style == CLASSIC else ROB_BID
            bid = int_option("bid", bid, 1, top)
        hands, kitty, out = set_up_hands(self.setup, options, landlord)
        if "first_bidder" in options:
            first = int_option("first_bidder", options["first_bidder"], 0, players - 1)
        else:
            first = int(rng.integers(players))
        seed = int(rng.integers(0, SEED_LIMIT, dtype=np.uint64))
        if "wild" in options:
            seed = self._seed_with_wild(seed, options["wild"])
        state = DoudizhuState(self, owners_of(self.setup, hands + [kitty, out]), first, seed)
        setup = self.setup
        for seat, hand in enumerate(hands):
            held, dealt = size(hand), setup.hand_size
            if seat == landlord:
                held, dealt = held + size(kitty), setup.landlord_hand_size
            if held < dealt:  # it played before the position (no spring for it to suffer)
                state.plays_made[seat] = 1
        if landlord is not None:
            state.bids[landlord] = bid
            state.high_bid = bid
            state.high_bidder = landlord
            if self.auction.style != CLASSIC:
                state.caller = landlord
            state._start_play(landlord, bid)
        return state

    def _seed_with_wild(self, seed: int, wild: Any) -> int:
        """``seed`` moved to the nearest one below whose deal has the wild rank ``wild``
        (text such as ``"7"``; laizi only)."""
        if not self.config.laizi:
            raise DealError("'wild' is an option of the laizi game")
        rank = RANKS.find(wild) if isinstance(wild, str) and len(wild) == 1 else -1
        if not 0 <= rank < NUMBER_RANKS:
            raise DealError(f"'wild' must be a rank 3..2 written as one character "
                            f"({RANKS[:NUMBER_RANKS]}), got {wild!r}")
        seed -= seed % NUMBER_RANKS - rank
        return seed if seed < SEED_LIMIT else seed - NUMBER_RANKS

    def cards_given(self, hand: int, action: int, wild: int = -1) -> int:
        """The cards ``hand`` gives up to make the play ``action`` (packed): the play's cards,
        or in laizi (``wild``: the wild rank) its own cards first and wild cards for the rest."""
        cards = self.catalog.cards[action]
        return laizi.taken(hand, wild, cards) if wild >= 0 else cards

    def variant_options(self, state: DoudizhuState) -> dict[str, Any]:
        """The reset options, beside the cards, that a set-up position of ``state``'s deal
        needs to keep its variant facts (laizi: the wild rank)."""
        return {"wild": RANKS[state.wild]} if state.wild >= 0 else {}

    def with_landlord(self, state: DoudizhuState, landlord: int, bid: int,
                      rng: np.random.Generator) -> DoudizhuState:
        """A state on the cards of ``state``'s deal in which bidding is skipped: ``landlord``
        took the kitty at ``bid`` (trainers deal such positions, as DouZero does)."""
        hands = [h + (state.kitty if s == landlord else 0) for s, h in enumerate(state.hands)]
        return self.new_state(rng, {"hands": [format_cards(h) for h in hands],
                                    "kitty": format_cards(state.kitty),
                                    "landlord": landlord, "bid": bid,
                                    **self.variant_options(state)})

    # -- what the trainer and the harness read (climbrl.envs.core.game) ------------------------------

    scoring = SIDES
    sides = role_rules.SIDES
    start_options = role_rules.START_OPTIONS
    score_unit = role_rules.SCORE_UNIT
    unscored_label = role_rules.NO_BID

    @property
    def roles(self) -> tuple[str, ...]:
        """one network for the bidding, the landlord and each peasant (:mod:`.roles`)"""
        return role_rules.roles_at(self.num_players)

    def role_of(self, state: DoudizhuState, seat: int) -> int:
        return role_rules.role_index(state.landlord, seat, self.num_players)

    def role_from_view(self, view: dict[str, Any]) -> int:
        return role_rules.role_index(view.get("landlord"), view["seat"], self.num_players)

    def return_groups(self, state: DoudizhuState) -> list[tuple[str, int]]:
        """By role; none when every bid passed until the redeals ran out (no game, no
        return)."""
        if state.landlord < 0:
            return []
        names = self.roles
        return [(names[self.role_of(state, s)], s) for s in range(self.num_players)]

    def action_features(self) -> np.ndarray:
        return self.catalog.action_features()

    def episode_starter(self, **options: Any):
        """``f(rng) -> state``; ``fixed_landlord``: the share of deals that skip the bidding,
        as DouZero trains: a random deal whose landlord is a random seat at bid 1 (the rest
        start with the bidding, redeals included)."""
        self.check_start(options)
        share = role_rules.check_share(options.get(role_rules.FIXED_LANDLORD, 0.0))
        if not share:
            return self.new_state

        def start(rng: np.random.Generator) -> DoudizhuState:
            state = self.new_state(rng)
            if rng.random() >= share:
                return state
            landlord = int(rng.integers(self.num_players))
            return self.with_landlord(state, landlord, role_rules.FIXED_LANDLORD_BID, rng)

        return start

    @staticmethod
    def lead_seat(state: DoudizhuState) -> int | None:
        """The landlord of a finished deal (``None``: every bid passed, no game)."""
        return state.view(0).get("landlord")

    def duel_options(self, code: str) -> dict[str, Any]:
        """Reset options that seat the deal ``code``'s first bidder as landlord at seat 0
        (bid 1, the kitty in its hand) and the seats after it next."""
        state = self.new_state(np.random.default_rng(0), {"deal": code})
        first = state.first_bidder
        order = [(first + k) % len(state.hands) for k in range(len(state.hands))]
        hands = [state.hands[s] for s in order]
        hands[0] += state.kitty
        return {
            "hands": [format_cards(h) for h in hands],
            "kitty": format_cards(state.kitty),
            "landlord": 0,
            "bid": role_rules.FIXED_LANDLORD_BID,
            "first_bidder": 0,
            **self.variant_options(state),
        }

    # -- legal moves ---------------------------------------------------------------------------

    def legal_for(self, state: DoudizhuState) -> list[int]:
        """Legal ids of ``state`` (shared, read-only lists; states copy them out)."""
        if state.terminal:
            return []
        if state.phase == Phase.BIDDING:
            return self.auction.legal(state)
        if state.phase == Phase.SHOW:
            return tuple(self.catalog.show_segment)
        if self._core is not None:
            return self._core.legal(state)
        hand = state.hands[state.current_player]
        if state.wild >= 0:
            return self._wild_legal(state, hand)
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

    def _wild_legal(self, state: DoudizhuState, hand: int) -> tuple[int, ...]:
        """Laizi: the legal ids of ``hand`` (cached by hand, wild rank and pile)."""
        key = (hand, state.wild, state.pile, state.pile_power)
        legal = self._reply_cache.get(key)
        if legal is None:
            if len(self._reply_cache) >= self._CACHE_LIMIT:
                self._reply_cache.clear()
            moves = self.wild_moves
            if state.pile < 0:
                legal = tuple(moves.lead(hand, state.wild))
            else:
                replies = moves.replies(hand, state.wild, state.pile, state.pile_power)
                legal = (self.catalog.PASS, *replies)
            self._reply_cache[key] = legal
        return legal

    def from_view(self, view: dict[str, Any], hands: list[int]) -> DoudizhuState:
        """The play-phase position of ``view`` (what one seat saw) in which the seats hold
        ``hands`` (packed rank counts; the viewer's own as in its view). Bots use it to search
        over guesses of the hidden hands. Facts the view does not give (the deal's physical
        cards, the redeal seed) are left neutral: a rebuilt state is for playing on, not for
        its deal code."""
        if view["phase"] != Phase.PLAY.label:
            raise ValueError(f"from_view rebuilds play positions, not phase {view['phase']!r}")
        setup = self.setup
        if hands[view["seat"]] != setup.parse(view["hand"]):
            raise ValueError("the viewer's hand differs from its view")
        for seat, hand in enumerate(hands):
            if size(hand) != view["cards_left"][seat]:
                raise ValueError(
                    f"seat {seat} holds {view['cards_left'][seat]} cards in the view, "
                    f"{size(hand)} in the hands given"
                )
        cat = self.catalog
        players = self.num_players
        state = object.__new__(DoudizhuState)
        state.game = self
        state.phase = Phase.PLAY
        state.current_player = view["to_move"]
        state.terminal = False
        state.hands = list(hands)
        state.kitty = setup.parse(view["kitty"] or "")
        state.owners = ()
        state.first_bidder = view["first_bidder"]
        state.seed = 0
        state.redeals = view["redeals"]
        state.bids = [NOT_YET if b is None else b for b in view["bids"]]
        state.num_bids = sum(b is not None for b in view["bids"])
        state.high_bid = state.bid = view["bid"]
        state.high_bidder = state.landlord = view["landlord"]
        state.caller = -1 if view["caller"] is None else view["caller"]
        state.robs = view["robs"]
        state.rob_seats = 0
        state.shown = view["shown_hand"] is not None
        state.wild = -1 if view["wild"] is None else RANKS.index(view["wild"])
        state.played = [setup.parse(p) for p in view["played"]]
        # out of play: what the viewer can place nowhere (not its hand, played or unseen)
        state.out = (setup.full_deck - hands[view["seat"]] - sum(state.played)
                     - setup.parse(view["unseen"]))
        plays = [0] * players
        for seat, text in view["history"]:
            if text != cat.action_to_str(cat.PASS):
                plays[seat] += 1
        state.plays_made = plays
        state.pile = -1 if view["pile"] is None else cat.action_from_str(view["pile"])
        state.pile_owner = -1 if view["pile_owner"] is None else view["pile_owner"]
        state.trick = [-1 if t is None else cat.action_from_str(t) for t in view["trick"]]
        state.pile_subs = view["pile_wilds"]
        state.pile_power = (-1 if state.pile < 0 or state.wild < 0
                            else laizi.bomb_tier(cat, state.pile, state.wild, state.pile_subs))
        passes = 0
        if state.pile >= 0:
            for _seat, text in reversed(view["history"]):
                if text != cat.action_to_str(cat.PASS):
                    break
                passes += 1
        state.passes = passes
        state.history = []
        state.bombs = view["bombs"]
        state._returns = [0.0] * players
        state.result = None
        state._legal = None
        state._code = None
        return state

    # -- observation, text, info ---------------------------------------------------------------

    def observe(self, state: DoudizhuState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        if self._fast is not None:
            return self._fast.write(state, seat, out)
        return self._writer.write(state, seat, out)

    def seat_observer(self, seat: int):
        """An observer of ``seat`` whose ``observe(state)`` returns its own buffer: the
        compiled core's (written from scratch in C) where the game uses it, else one that keeps
        the observation between calls and rewrites only what changed
        (:class:`~climbrl.envs.doudizhu.observation.SeatObserver`)."""
        if self._fast is not None:
            return self._fast.seat_observer(seat)
        from .observation import SeatObserver

        return SeatObserver(self._writer, seat)

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

    def advice(self, state: DoudizhuState, seat: int) -> str:
        """The bid advice line of docs/rules.md for ``seat``'s hand now (in the rob bidding, the
        move is ``call``, ``rob`` or ``pass``)."""
        facts = self.advice_facts(state, seat)
        return self.evaluator.value(state.hands[seat]).line(facts["move"])

    def advice_facts(self, state: DoudizhuState, seat: int) -> dict[str, Any]:
        """:meth:`advice` as values: ``high_cards``, ``bombs``, ``moves`` (about how many moves
        the hand takes) and the advised ``move`` (``"bid 2"``, ``"call"``, ``"rob"``, ``"pass"``)."""
        value = self.evaluator.value(state.hands[seat])
        code = self.auction.advised(bid_for(value), self.view_bids(state))
        cat = self.catalog
        move = "pass" if code == PASS_CODE else cat.action_to_str(cat.bid_action(code))
        return {"high_cards": value.high_cards, "bombs": value.bombs, "moves": value.moves, "move": move}

    def view_bids(self, state: DoudizhuState) -> dict[str, Any]:
        """The public bidding facts of ``state`` (part of every view)."""
        return {"bids": [None if b == NOT_YET else b for b in state.bids],
                "caller": state.caller if state.caller >= 0 else None, "robs": state.robs}

    def view(self, state: DoudizhuState, seat: int) -> dict[str, Any]:
        """What ``seat`` may see, as plain values with cards as text:

        ``seat``, ``role`` ("undecided"/"landlord"/"peasant"), ``phase``, ``to_move`` (seat or
        None), ``hand``, ``first_bidder``, ``bids`` (per seat its latest bidding move: None not
        yet, 0 pass, 1..3 a bid; with ``bidding="rob"`` 1 call and 2 rob), ``caller`` and
        ``robs`` (the rob bidding's caller, None otherwise, and how many robbed), ``landlord``
        and ``bid`` (None/0 while bidding), ``kitty`` (text once public, else None),
        ``cards_left`` and ``played`` (per seat), ``unseen`` (cards neither in the hand nor
        played: the card counter), ``pile`` and ``pile_owner`` (None when leading),
        ``trick`` (per seat, its latest action in this trick or None), ``wild`` (laizi: the wild
        rank, else None) and ``pile_wilds`` (laizi: wild cards standing in for another rank
        in the pile), ``history`` (list of
        ``[seat, text]`` plays and passes of this deal), ``shown_hand`` (open hand: the
        landlord's cards once it showed them, else None), ``bombs``, ``multiplier`` (the round's
        doublings so far: ``2`` per bomb, rob and hand shown), ``redeals``, ``variants`` (the
        names of the variants on),
        ``legal`` (texts, only for the seat to move), ``advice`` (the bid advice line of
        docs/rules.md, only for the seat to bid) and, once over, ``result`` (its ``deal`` is
        the deal code) and ``hands`` (every seat's remaining cards).

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
            **self.view_bids(state),
            "landlord": state.landlord if public_kitty else None,
            "bid": state.bid,
            "kitty": format_cards(state.kitty) if public_kitty else None,
            "cards_left": [size(h) for h in state.hands],
            "played": [format_cards(p) for p in state.played],
            "unseen": format_cards(self.setup.full_deck - state.out - me - sum(state.played)),
            "pile": cat.action_to_str(state.pile) if state.pile >= 0 else None,
            "pile_owner": state.pile_owner if state.pile >= 0 else None,
            "trick": [cat.action_to_str(a) if a >= 0 else None for a in state.trick],
            "wild": RANKS[state.wild] if state.wild >= 0 else None,
            "pile_wilds": state.pile_subs,
            "history": [[s, cat.action_to_str(a)] for s, a in state.history],
            "shown_hand": format_cards(state.hands[state.landlord]) if state.shown else None,
            "bombs": state.bombs,
            "multiplier": state.multiplier,
            "redeals": state.redeals,
            "variants": list(self.config.variants),
        }
        if seat == state.current_player and not state.terminal:
            out["legal"] = [cat.action_to_str(a) for a in state.legal_actions()]
            if state.phase == Phase.BIDDING:
                out["advice"] = self.advice(state, seat)
        if state.result is not None:
            out["result"] = dict(state.result)
            out["hands"] = [format_cards(h) for h in state.hands]
        return out

    def render(self, state: DoudizhuState) -> str:
        """The whole table as text (every hand shown: this is the spectator's view)."""
        cat = self.catalog
        head = (f"Dou Dizhu [{state.phase.label}] deal {state.deal_code}" if state.owners
                else f"Dou Dizhu [{state.phase.label}] set-up position")
        if state.redeals:
            head += f" (redeal {state.redeals})"
        if state.wild >= 0:
            head += f", wild {RANKS[state.wild]}"
        lines = [head]
        if state.landlord >= 0:
            base = self.config.base_points
            lines.append(
                f"landlord player_{state.landlord}, bid {state.bid}, bombs {state.bombs}"
                + (f", robs {state.robs}" if state.robs else "")
                + (", hand shown" if state.shown else "")
                + f": {base} x {state.bid} x {state.multiplier} = "
                f"{base * state.bid * state.multiplier}; kitty {format_cards(state.kitty)}"
            )
        for s in range(self.num_players):
            bid = state.bids[s]
            tag = "" if bid == NOT_YET else f" {cat.action_to_str(cat.bid_action(bid))}"
            arrow = "  <- to move" if s == state.current_player else ""
            trick = state.trick[s]
            last = f" | {cat.action_to_str(trick)}" if trick >= 0 else ""
            lines.append(
                f"player_{s} {role_name(state, s):<9}{size(state.hands[s]):>3} "
                f"{format_cards(state.hands[s]) or '-'}{tag}{last}{arrow}"
            )
        if state.pile >= 0:
            soft = f" ({state.pile_subs} wild)" if state.pile_subs else ""
            lines.append(f"pile: {cat.action_to_str(state.pile)}{soft} by player_{state.pile_owner}")
        if state.result is not None:
            lines.append(f"result: {state.result}")
        return "\n".join(lines)


__all__ = [
    "DealError",
    "DoudizhuConfig",
    "DoudizhuGame",
    "DoudizhuState",
    "MAX_BOMBS",
    "Phase",
    "random_deal",
]
