"""Cards of Daifugo and President as bitmasks.

One bit per physical card. A deck of ``decks`` standard packs plus ``jokers`` jokers:

    bit  copy * 52 + rank * 4 + suit      real cards, copy 0..decks-1
    bit  decks * 52 + k                   joker k, k = 0..jokers-1

    rank   0  1  2  3  4  5  6  7  8  9 10 11 12
    text   3  4  5  6  7  8  9  T  J  Q  K  A  2      (normal order, 3 weakest)
    suit   0 = s (spades), 1 = h (hearts), 2 = d (diamonds), 3 = c (clubs)

Within one copy the four suits of a rank sit in one nibble, so ``(mask >> 4 * rank) & 0xF`` is
the suits held of that rank. Jokers are interchangeable: text writes each as ``JK``.

>>> deck = Deck()
>>> deck.format(deck.parse("Ts 3h 3s JK"))
'3s 3h Ts JK'
"""

from __future__ import annotations

from ..core.bits import iter_bits

RANKS = "3456789TJQKA2"
SUITS = "shdc"
NUM_RANKS = len(RANKS)
NUM_SUITS = len(SUITS)
CARDS_PER_DECK = NUM_RANKS * NUM_SUITS
SUIT_NIBBLE = (1 << NUM_SUITS) - 1
JOKER_TEXT = "JK"
#: rank index given to a play of jokers alone; above every number in every order.
JOKER_RANK = NUM_RANKS

RANK_OF = {**{c: i for i, c in enumerate(RANKS)}, "10": RANKS.index("T")}
SUIT_OF = {**{c: i for i, c in enumerate(SUITS)}, "♠": 0, "♥": 1, "♦": 2, "♣": 3}

#: Rank index of some ranks the rules name.
RANK_3 = RANKS.index("3")
RANK_8 = RANKS.index("8")
RANK_J = RANKS.index("J")
RANK_2 = RANKS.index("2")
SUIT_SPADES = SUITS.index("s")
SUIT_DIAMONDS = SUITS.index("d")


def card_index(rank: int, suit: int, copy: int = 0) -> int:
    return copy * CARDS_PER_DECK + rank * NUM_SUITS + suit


def rank_suit_text(rank: int, suit: int | None) -> str:
    """``7h``; with ``suit=None`` the rank alone (``7``), used where suits do not matter."""
    return RANKS[rank] + ("" if suit is None else SUITS[suit])


def parse_rank_suit(token: str) -> tuple[int, int | None]:
    """``"7h"`` -> ``(4, 1)``; ``"7"`` -> ``(4, None)``. ``ValueError`` naming a bad token."""
    tok = token.strip()
    if not tok:
        raise ValueError("empty card token")
    suit = SUIT_OF.get(tok[-1].lower(), SUIT_OF.get(tok[-1])) if len(tok) > 1 else None
    body = tok if suit is None else tok[:-1]
    rank = RANK_OF.get(body.upper())
    if rank is None:
        raise ValueError(
            f"bad card {token!r}: rank must be one of {' '.join(RANKS)} (or 10), suit one of {SUITS}"
        )
    return rank, suit


class Deck:
    """The physical cards of a game: ``decks`` packs of 52 and ``jokers`` jokers."""

    def __init__(self, decks: int = 1, jokers: int = 2):
        if decks not in (1, 2):
            raise ValueError(f"decks must be 1 or 2, got {decks}")
        if not 0 <= jokers <= 2:
            raise ValueError(f"jokers must be 0, 1 or 2, got {jokers}")
        self.decks = decks
        self.jokers = jokers
        self.real_cards = decks * CARDS_PER_DECK
        self.size = self.real_cards + jokers
        self.full = (1 << self.size) - 1
        self.real_mask = (1 << self.real_cards) - 1
        self.joker_mask = self.full ^ self.real_mask
        self.one_deck_mask = (1 << CARDS_PER_DECK) - 1
        #: all copies of rank r
        self.rank_mask = [
            sum(1 << card_index(r, s, c) for s in range(NUM_SUITS) for c in range(decks))
            for r in range(NUM_RANKS)
        ]
        #: all copies of (rank, suit)
        self.rank_suit_mask = [
            [sum(1 << card_index(r, s, c) for c in range(decks)) for s in range(NUM_SUITS)]
            for r in range(NUM_RANKS)
        ]
        # each card's text and place in the normal order, for format()
        self._texts = tuple(self.card_text(i) for i in range(self.size))
        self._rank_texts = tuple(JOKER_TEXT if i >= self.real_cards
                                 else RANKS[self.rank_suit(i)[0]] for i in range(self.size))
        self._order = tuple(self.sort_key(i) for i in range(self.size))

    def __repr__(self) -> str:
        return f"Deck(decks={self.decks}, jokers={self.jokers})"

    # -- card identity ---------------------------------------------------------------------

    def is_joker(self, index: int) -> bool:
        return index >= self.real_cards

    def rank_suit(self, index: int) -> tuple[int, int]:
        """(rank, suit) of a real card index; ``(JOKER_RANK, -1)`` for a joker."""
        if index >= self.real_cards:
            return JOKER_RANK, -1
        rs = index % CARDS_PER_DECK
        return rs // NUM_SUITS, rs % NUM_SUITS

    def card_text(self, index: int) -> str:
        if index >= self.real_cards:
            return JOKER_TEXT
        rank, suit = self.rank_suit(index)
        return rank_suit_text(rank, suit)

    def sort_key(self, index: int) -> tuple[int, int, int]:
        rank, suit = self.rank_suit(index)
        return (rank, suit, index)

    # -- text ------------------------------------------------------------------------------

    def parse(self, text: str, taken: int = 0) -> int:
        """Cards from text like ``"3s 3h Ts JK"`` (spaces or commas between cards).

        A card named twice takes the next copy when there are two decks; copies in ``taken``
        (cards already given to other hands) are skipped. More copies than the deck has raise
        ``ValueError``, as does any bad token; anything but a string is a ``TypeError``.
        """
        if not isinstance(text, str):
            raise TypeError(
                f"cards must be text such as '3s 3h JK', got {text!r} (type {type(text).__name__})"
            )
        mask = 0
        for token in text.replace(",", " ").split():
            if token.upper() == JOKER_TEXT:
                free = self.joker_mask & ~(mask | taken)
                if not free:
                    raise ValueError(f"too many jokers in {text!r}: the deck has {self.jokers}")
                mask |= free & -free
                continue
            rank, suit = parse_rank_suit(token)
            if suit is None:
                raise ValueError(f"bad card {token!r}: a suit ({SUITS}) is needed")
            free = self.rank_suit_mask[rank][suit] & ~(mask | taken)
            if not free:
                raise ValueError(
                    f"card {token!r} appears more often than the deck has it "
                    f"({self.decks} {'copy' if self.decks == 1 else 'copies'})"
                )
            mask |= free & -free
        return mask

    def format(self, mask: int, suits: bool = True) -> str:
        """Cards as text, weakest first in the normal order, jokers last; ``suits=False``
        writes the real cards by rank alone (``"7 7 JK"``)."""
        cards = sorted(iter_bits(mask), key=self._order.__getitem__)
        texts = self._texts if suits else self._rank_texts
        return " ".join([texts[i] for i in cards])

    def rank_counts(self, mask: int) -> list[int]:
        """How many real cards of each rank ``mask`` holds (13 counts)."""
        return [(mask & m).bit_count() for m in self.rank_mask]

    # -- counting --------------------------------------------------------------------------

    def presence(self, mask: int) -> int:
        """The 52-bit set of (rank, suit) pairs held, folding the copies of two decks."""
        if self.decks == 1:
            return mask & self.one_deck_mask
        return (mask | (mask >> CARDS_PER_DECK)) & self.one_deck_mask

    def joker_count(self, mask: int) -> int:
        return (mask & self.joker_mask).bit_count()
