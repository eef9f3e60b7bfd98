"""Dealing Dou Dizhu: random deals, deal codes and the set-up positions of reset options.

A deal says who holds each physical card (a seat, or :func:`kitty_owner` for the kitty), the
first bidder and a 64-bit seed from which the next deal is drawn when every seat passes (so a
deal code replays redeals too). The code's tag names the table (:func:`deal_tag`), so the code
of a three-player deal is refused by the four-player game with a message saying so.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dealcode
from .cards import RANKS, THREE, CardParseError, Setup, contains, counts, format_cards, size

DEAL_TAG = "DDZ"
SEED_LIMIT = 1 << dealcode.SEED_BITS


class DealError(ValueError):
    """Reset options or a deal code that do not describe a valid deal (a ``ValueError``)."""


def deal_tag(setup: Setup) -> str:
    """``DDZ`` for three players, ``DDZ4`` for four."""
    return DEAL_TAG if setup.packs == 1 else f"{DEAL_TAG}{setup.players}"


def kitty_owner(setup: Setup) -> int:
    """The owner value of kitty cards in a deal code (one past the last seat)."""
    return setup.players


def out_of_play(setup: Setup) -> int:
    """The owner value of the cards of a set-up position that are in no hand nor the kitty
    (never in a deal code)."""
    return setup.players + 1


def random_deal(rng: np.random.Generator, setup: Setup = THREE) -> tuple[tuple[int, ...], int, int]:
    """Owners of the deck's cards (seats, :func:`kitty_owner`), first bidder and next seed, from
    ``rng``."""
    players = setup.players
    sizes = [setup.hand_size] * players + [setup.kitty_size]
    template = np.repeat(np.arange(players + 1), sizes)
    owners = tuple(int(o) for o in rng.permutation(template))
    first = int(rng.integers(players))
    seed = int(rng.integers(0, SEED_LIMIT, dtype=np.uint64))
    return owners, first, seed


def encode(setup: Setup, owners: tuple[int, ...], first: int, seed: int) -> str:
    return dealcode.encode(deal_tag(setup), dealcode.Deal(owners, first, seed), setup.players)


def decode(setup: Setup, code: str) -> tuple[tuple[int, ...], int, int]:
    """Owners, first bidder and seed of a deal code; :class:`DealError` for a bad one."""
    players = setup.players
    try:
        deal = dealcode.decode(deal_tag(setup), code, setup.deck_size, players)
    except ValueError as e:
        raise DealError(str(e)) from None
    want = [setup.hand_size] * players + [setup.kitty_size]
    got = [deal.owners.count(o) for o in range(players + 1)]
    if got != want:
        raise DealError(f"deal code {code!r} gives {got} cards to the seats and kitty, not {want}")
    return deal.owners, deal.first_seat, deal.seed


def owners_of(setup: Setup, groups: list[int]) -> tuple[int, ...]:
    """Physical owners for rank-count groups (seats, then the kitty, then the cards out of
    play): each rank's cards go to the groups in order."""
    owners = [0] * setup.deck_size
    for r, cards in enumerate(setup.cards_of_rank):
        at = 0
        for owner, group in enumerate(groups):
            for _ in range(counts(group)[r]):
                owners[cards[at]] = owner
                at += 1
    return tuple(owners)


def parse_option(setup: Setup, name: str, text: Any) -> int:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be card text such as '33344', got {text!r}")
    try:
        return setup.parse(text)
    except CardParseError as e:
        raise DealError(f"{name}: {e}") from None


def int_option(name: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int in ``low..high`` (a seat, a bid), or a :class:`DealError`."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not ok or not low <= value <= high:
        raise DealError(f"{name!r} must be {low}..{high}, got {value!r}")
    return int(value)


def set_up_hands(setup: Setup, options: dict, landlord: int | None) -> tuple[list[int], int, int]:
    """The seats' hands (the landlord's without the kitty), the kitty and the cards out of
    play of a set-up position's ``hands`` and ``kitty`` options. Cards named nowhere are out
    of play (an endgame names only what is left); each hand holds at most what a deal gives it
    (the landlord's, the kitty included) and is not empty, the kitty at most its cards, and no
    card is named more often than the deck has it. ``kitty`` may be left out once the landlord
    is given (the landlord then shows none); given, the landlord's hand must hold it."""
    players = setup.players
    hands_text = options["hands"]
    if not isinstance(hands_text, (list, tuple)) or len(hands_text) != players:
        raise DealError(f"'hands' must be a list of {players} card strings, got {hands_text!r}")
    if "kitty" not in options and landlord is None:
        raise DealError(f"'hands' needs 'kitty' too when the bidding is played (up to the "
                        f"{setup.kitty_size} kitty cards as text)")
    hands = [parse_option(setup, f"hands[{s}]", h) for s, h in enumerate(hands_text)]
    kitty = parse_option(setup, "kitty", options.get("kitty", ""))
    if size(kitty) > setup.kitty_size:
        raise DealError(f"kitty has {size(kitty)} cards; a deal's kitty has {setup.kitty_size}")
    for s, h in enumerate(hands):
        most = setup.landlord_hand_size if s == landlord else setup.hand_size
        if size(h) > most:
            role = " (the landlord's, the kitty included)" if s == landlord else ""
            raise DealError(f"hands[{s}] has {size(h)} cards; a deal gives at most {most}{role}")
        if not h:
            raise DealError(f"hands[{s}] is empty: a seat out of cards has won already")
    groups = hands + [kitty]
    names = [f"hands[{s}]" for s in range(players)] + ["kitty"]
    if landlord is not None:  # the kitty is in the landlord's hand: count it there once
        if not contains(hands[landlord], kitty):
            raise DealError(
                f"the landlord's hand {format_cards(hands[landlord])!r} must include the "
                f"kitty {format_cards(kitty)!r} (leave 'kitty' out when the landlord has "
                "played some of it)"
            )
        hands[landlord] -= kitty
    per_group = [counts(g) for g in hands + [kitty]]
    for r, copies in enumerate(setup.copies):
        named = sum(c[r] for c in per_group)
        if named > copies:
            where = [name for name, c in zip(names, [counts(g) for g in groups]) if c[r]]
            raise DealError(f"card {RANKS[r]!r} is named {named} times ({', '.join(where)}); "
                            f"the deck has {copies}")
    out = setup.full_deck - sum(hands) - kitty
    return hands, kitty, out
