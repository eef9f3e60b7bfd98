"""Dou Dizhu cards: ranks, rank counts packed into one ``int``, and the text form.

Suits never matter in Dou Dizhu, so a hand, a play or any other group of cards is a *rank
count*: how many cards of each of the 15 ranks it holds. It is packed into a Python ``int``
with one byte per rank (rank ``r`` in bits ``8r .. 8r+7``)::

    rank     3  4  5  6  7  8  9  T  J  Q  K  A  2  B  R
    index    0  1  2  3  4  5  6  7  8  9 10 11 12 13 14
    copies   4  4  4  4  4  4  4  4  4  4  4  4  4  1  1

    packed = sum(count[r] << (8 * r))

Counts never exceed 4, so adding and subtracting packed groups works byte by byte without
carries, ``packed.to_bytes(NUM_RANKS, "little")`` gives the counts at C speed, and
:func:`contains` tests ``sub <= hand`` for all ranks at once (a borrow clears a guard bit).

Text: ranks ``3456789TJQKA2`` plus ``B`` (black joker) and ``R`` (red joker), one character per
card, written in rank order (``"33344"``, ``"BR"``). :func:`parse` also accepts lower case,
``10`` for ``T``, spaces and any order.

The 54 physical cards of a pack (only needed by deal codes and the table) are numbered
``4 * rank + suit`` for the 52 number cards, then 52 for ``B`` and 53 for ``R``; a second pack
(the four-player game) follows as 54..107 in the same order.

A :class:`Setup` is what changes with the number of players: the packs, the hand and kitty
sizes, the copies of each rank (4 or 8 of a number, 1 or 2 of each joker). The module's
constants (``PLAYERS``, ``COPIES``, ``FULL_DECK`` ...) are those of the three-player game,
:data:`THREE`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

RANKS = "3456789TJQKA2BR"
NUM_RANKS = len(RANKS)
RANK_INDEX = {ch: i for i, ch in enumerate(RANKS)}
SUITS = 4
NUMBER_RANKS = 13
"""Ranks 3..2: the ones with four suits (indices ``0 .. NUMBER_RANKS - 1``)."""
ACE = RANK_INDEX["A"]
TWO = RANK_INDEX["2"]
BLACK_JOKER = RANK_INDEX["B"]
RED_JOKER = RANK_INDEX["R"]
CHAIN_RANKS = ACE + 1
"""Chains (solo chains, pair chains, airplanes) use ranks ``0 .. CHAIN_RANKS - 1`` (3 to A)."""
COPIES = (SUITS,) * NUMBER_RANKS + (1, 1)
DECK_SIZE = sum(COPIES)

PLAYERS = 3
HAND_SIZE = 17
KITTY_SIZE = 3
LANDLORD_HAND_SIZE = HAND_SIZE + KITTY_SIZE
"""The largest hand, hence the most cards one play can hold."""
assert PLAYERS * HAND_SIZE + KITTY_SIZE == DECK_SIZE
PACK_SIZE = DECK_SIZE
"""Physical cards in one pack."""
NUMBER_CARDS = NUMBER_RANKS * SUITS
"""Number cards (not jokers) in one pack."""

BYTE_BITS = 8
UNIT = tuple(1 << (BYTE_BITS * r) for r in range(NUM_RANKS))
"""``UNIT[r]``: one card of rank ``r``, packed."""
FULL_DECK = sum(c * u for c, u in zip(COPIES, UNIT))
_GUARD = sum(0x80 * u for u in UNIT)
_BYTE_MOD = (1 << BYTE_BITS) - 1
_ALIASES = {"10": "T"}


class CardParseError(ValueError):
    """Text that is not a valid group of Dou Dizhu cards (a ``ValueError``)."""


def card_rank(card: int) -> int:
    """Rank index of physical card ``card`` (0..53 in the first pack, 54..107 in the second)."""
    if not 0 <= card < PACKS_MAX * PACK_SIZE:
        raise ValueError(f"card {card} is outside 0..{PACKS_MAX * PACK_SIZE - 1}")
    card %= PACK_SIZE
    return card // SUITS if card < NUMBER_CARDS else BLACK_JOKER + card - NUMBER_CARDS


PACKS_MAX = 2
"""The most packs a table uses (the four-player game)."""
PHYSICAL_RANK = tuple(card_rank(i) for i in range(DECK_SIZE))
"""``PHYSICAL_RANK[card]``: rank index of each physical card of one pack."""
FIRST_CARD = tuple(PHYSICAL_RANK.index(r) for r in range(NUM_RANKS))
"""``FIRST_CARD[r]``: the lowest physical card of rank ``r``."""


@dataclass(frozen=True)
class Setup:
    """The cards and seats of one table: ``players`` seats dealt ``hand_size`` cards each from
    ``packs`` packs of 54, ``kitty_size`` left for the landlord. The derived fields are filled
    in from those four."""

    players: int
    packs: int
    hand_size: int
    kitty_size: int
    copies: tuple[int, ...] = field(init=False)
    """cards of each rank in the deck"""
    deck_size: int = field(init=False)
    full_deck: int = field(init=False)
    """every card of the deck, packed"""
    landlord_hand_size: int = field(init=False)
    """the largest hand, hence the most cards one play can hold"""
    physical_rank: tuple[int, ...] = field(init=False)
    """rank of each physical card"""
    cards_of_rank: tuple[tuple[int, ...], ...] = field(init=False)
    """the physical cards of each rank, lowest first"""
    rocket: int = field(init=False)
    """every joker of the deck, packed: the rocket"""

    def __post_init__(self) -> None:
        copies = tuple(c * self.packs for c in COPIES)
        size = sum(copies)
        if self.players * self.hand_size + self.kitty_size != size:
            raise ValueError(f"{self.players} hands of {self.hand_size} and a kitty of "
                             f"{self.kitty_size} do not make the {size} cards of "
                             f"{self.packs} pack(s)")
        ranks = tuple(card_rank(i) for i in range(size))
        fill = object.__setattr__
        fill(self, "copies", copies)
        fill(self, "deck_size", size)
        fill(self, "full_deck", sum(c * u for c, u in zip(copies, UNIT)))
        fill(self, "landlord_hand_size", self.hand_size + self.kitty_size)
        fill(self, "physical_rank", ranks)
        fill(self, "cards_of_rank", tuple(tuple(i for i in range(size) if ranks[i] == r)
                                          for r in range(NUM_RANKS)))
        fill(self, "rocket", copies[BLACK_JOKER] * UNIT[BLACK_JOKER]
             + copies[RED_JOKER] * UNIT[RED_JOKER])

    @property
    def max_copies(self) -> int:
        """Most cards of one rank (a number's copies)."""
        return max(self.copies)

    @property
    def joker_copies(self) -> int:
        """Copies of each joker (1, or 2 with two packs)."""
        return self.copies[BLACK_JOKER]

    @property
    def number_cards(self) -> int:
        """Cards of the ranks 3..2 in the deck."""
        return sum(self.copies[:NUMBER_RANKS])

    def parse(self, text: str) -> int:
        """:func:`parse` with this deck's copies."""
        return parse(text, self.copies)


SETUPS = {3: (1, HAND_SIZE, KITTY_SIZE), 4: (2, 25, 8)}
"""players -> (packs, hand size, kitty size): one pack for three players, two for four."""


@lru_cache(maxsize=None)
def setup_for(players: int) -> Setup:
    """The :class:`Setup` of a table of ``players`` (3 or 4)."""
    if players not in SETUPS:
        raise ValueError(f"Dou Dizhu is played by {' or '.join(map(str, SETUPS))} players, "
                         f"got {players!r}")
    return Setup(players, *SETUPS[players])


def counts(packed: int) -> bytes:
    """The 15 rank counts of ``packed`` (a ``bytes``, so ``counts(p)[r]`` is an int)."""
    return packed.to_bytes(NUM_RANKS, "little")


def pack(rank_counts, copies: tuple[int, ...] = COPIES) -> int:
    """Pack a sequence of 15 rank counts (each within ``copies``)."""
    rank_counts = list(rank_counts)
    if len(rank_counts) != NUM_RANKS:
        raise ValueError(f"need {NUM_RANKS} rank counts, got {len(rank_counts)}")
    for r, c in enumerate(rank_counts):
        if not 0 <= c <= copies[r]:
            raise ValueError(f"{c} cards of rank {RANKS[r]} (the deck has {copies[r]})")
    return sum(c * u for c, u in zip(rank_counts, UNIT))


def size(packed: int) -> int:
    """Number of cards in ``packed`` (the byte sum: ``256 = 1 mod 255`` and sums stay < 255)."""
    return packed % _BYTE_MOD


def contains(hand: int, sub: int) -> bool:
    """Whether every rank count of ``sub`` is at most that of ``hand``."""
    return ((hand | _GUARD) - sub) & _GUARD == _GUARD


def parse(text: str, copies: tuple[int, ...] = COPIES) -> int:
    """Packed rank counts of ``text`` such as ``"33344"``, ``"BR"`` or ``"10 10 10 j j"``.

    Raises :class:`CardParseError` naming a bad character or a rank given more times than
    ``copies`` (the deck's, one pack by default) holds, and ``TypeError`` for anything but a
    string.
    """
    if not isinstance(text, str):
        kind = type(text).__name__
        raise TypeError(f"cards must be text such as '33344', got {text!r} (type {kind})")
    clean = text.upper().replace(" ", "").replace(",", "")
    for alias, rank in _ALIASES.items():
        clean = clean.replace(alias, rank)
    rank_counts = [0] * NUM_RANKS
    for ch in clean:
        r = RANK_INDEX.get(ch)
        if r is None:
            raise CardParseError(
                f"bad card character {ch!r} in {text!r}; ranks are {RANKS} "
                f"(B black joker, R red joker)"
            )
        rank_counts[r] += 1
        if rank_counts[r] > copies[r]:
            raise CardParseError(
                f"{text!r} has too many cards of rank {ch}: the deck has {copies[r]}"
            )
    return sum(c * u for c, u in zip(rank_counts, UNIT))


def format_cards(packed: int) -> str:
    """Text of ``packed``, ranks ascending (``""`` for no cards)."""
    return "".join(RANKS[r] * c for r, c in enumerate(counts(packed)))


THREE = setup_for(PLAYERS)
"""The three-player table: one pack, 17 cards each, 3 in the kitty."""
