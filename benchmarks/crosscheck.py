"""Dou Dizhu legal-move cross-check against the peers, with every disagreement classified.

Positions: random deals with seat 0 as the landlord (20 cards). For each deal the landlord's
leads are compared; then the landlord leads a random play (a random shape first, then a random
play of it, so rare shapes are met too) and seat 1's replies are compared, where the peer can
represent that position (it generates the same lead itself and, for DouZero, can type it).

A disagreement is one play that one side allows and the other does not. It is judged by
:func:`rules_readings`, a reading of ``docs/rules.md`` written here independently of the engine
(brute force over one play's cards, never the engine's catalog or generator), with *switches*
for the rule differences known between the libraries:

* if docs/rules.md contradicts our engine, the class is ``bug: ours ...``, printed loudly;
* else if a known rule difference of that peer (:data:`RULE_DIFFERENCES`) flips the verdict,
  the class is ``rule: <name>``;
* else if it is a known defect of the peer's generator (:data:`PEER_BUGS`), ``bug: <peer>:
  <name>``;
* else ``bug: <peer> (unexplained)``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from climbrl.envs.doudizhu.cards import (
    BLACK_JOKER,
    CHAIN_RANKS,
    NUM_RANKS,
    NUMBER_RANKS,
    RED_JOKER,
    TWO,
    FULL_DECK,
    KITTY_SIZE,
    contains,
    counts,
    format_cards,
    parse,
)

from .peers import LANDLORD, PASS, REPLIER

CHAIN_MIN = {"chain": 5, "pair_chain": 3, "airplane": 2}
CHAIN_MAX = {"chain": 12, "pair_chain": 10}
"""docs/rules.md: solo chains 5-12 cards, pair chains 3-10 pairs, airplanes 2+ trios (all 3..A)."""
WIDTH = {"chain": 1, "pair_chain": 2, "airplane": 3}
MAX_COPIES = 4


@dataclass(frozen=True)
class Rules:
    """Switches of :func:`rules_readings`; the defaults are docs/rules.md."""

    four_with_two: bool = True
    """four-with-two (two singles or two pairs) exists"""
    jokers_as_kickers: bool = False
    """single kickers may hold both jokers"""
    same_single_kickers: int = MAX_COPIES
    """most single kickers of one rank"""
    kicker_trio_next_to_airplane: bool = True
    """single kickers may hold three cards of a rank next to the airplane body (not 2)"""


RULES = Rules()


def rules_readings(cards: int, rules: Rules = RULES) -> set[tuple[str, int, int]]:
    """Every ``(kind, length, main)`` under which ``cards`` is a legal play (empty: none)."""
    c = list(counts(cards))
    n = sum(c)
    ranks = [r for r in range(NUM_RANKS) if c[r]]
    out: set[tuple[str, int, int]] = set()
    if not n:
        return out
    if ranks == [BLACK_JOKER, RED_JOKER] and n == 2:
        out.add(("rocket", 1, BLACK_JOKER))
    if len(ranks) == 1:
        r = ranks[0]
        kind = {1: "single", 2: "pair", 3: "trio", 4: "bomb"}[n]
        out.add((kind, n if kind == "bomb" else 1, r))  # a bomb's length is its cards
    for kind, width in WIDTH.items():
        run = ranks == list(range(ranks[0], ranks[0] + len(ranks)))
        if run and ranks[-1] < CHAIN_RANKS and all(c[r] == width for r in ranks):
            length = len(ranks)
            if CHAIN_MIN[kind] <= length <= CHAIN_MAX.get(kind, CHAIN_RANKS):
                out.add((kind, length, ranks[0]))
    # bodies with kickers: trios and airplanes (width 3), four-with-two (width 4)
    for start in range(NUMBER_RANKS):
        for length in range(1, CHAIN_RANKS - start + 1 if start < CHAIN_RANKS else 2):
            body = range(start, start + length)
            if any(c[r] < 3 for r in body):
                break
            rest = c[:]
            for r in body:
                rest[r] -= 3
            base = "trio" if length == 1 else "airplane"
            if _singles_ok(rest, body, length, rules):
                out.add((f"{base}_single", length, start))
            if _pairs_ok(rest, body, length):
                out.add((f"{base}_pair", length, start))
    if rules.four_with_two:
        for q in range(NUMBER_RANKS):
            if c[q] == MAX_COPIES:
                rest = c[:]
                rest[q] = 0
                if _singles_ok(rest, range(q, q + 1), 2, rules, quad=True):
                    out.add(("four_two_single", 1, q))
                if _pairs_ok(rest, range(q, q + 1), 2):
                    out.add(("four_two_pair", 1, q))
    return out


def _singles_ok(rest: list[int], body: range, k: int, rules: Rules, quad: bool = False) -> bool:
    if sum(rest) != k or any(rest[r] for r in body):
        return False
    if rest[BLACK_JOKER] and rest[RED_JOKER] and not rules.jokers_as_kickers:
        return False
    if max(rest) > rules.same_single_kickers:
        return False
    if not rules.kicker_trio_next_to_airplane and not quad:
        beside = (body.start - 1, body.stop)
        if any(0 <= r < TWO and rest[r] >= 3 for r in beside):
            return False
    return True


def _pairs_ok(rest: list[int], body: range, k: int) -> bool:
    kick = [r for r in range(NUM_RANKS) if rest[r]]
    return (len(kick) == k and all(rest[r] == 2 for r in kick)
            and not any(rest[r] for r in body))


def beats(play: int, pile: int, rules: Rules = RULES, pile_readings=None) -> bool:
    """docs/rules.md: the rocket beats everything; a bomb beats non-bombs and lower bombs; else a
    reading of ``play`` must share kind and length with one of the pile's, with a higher main."""
    mine = rules_readings(play, rules)
    theirs = rules_readings(pile, rules) if pile_readings is None else pile_readings
    if not mine:
        return False
    kinds = {k for k, _, _ in theirs}
    if "rocket" in kinds:
        return False
    if any(k == "rocket" for k, _, _ in mine):
        return True
    bomb = [m for k, _, m in mine if k == "bomb"]
    pile_bomb = [m for k, _, m in theirs if k == "bomb"]
    if bomb:
        return not pile_bomb or bomb[0] > pile_bomb[0]
    if pile_bomb:
        return False
    return any(k == pk and n == pn and m > pm for k, n, m in mine for pk, pn, pm in theirs)


def legal(play: int, hand: int, pile: int | None, rules: Rules = RULES) -> bool:
    """Whether ``play`` (``PASS`` or packed cards) is legal for ``hand`` leading (``pile`` None)
    or replying to ``pile``, under ``rules``."""
    if play == PASS:
        return pile is not None
    if not contains(hand, play):
        return False
    return beats(play, pile, rules) if pile is not None else bool(rules_readings(play, rules))


# -- known differences --------------------------------------------------------------------------

RULE_DIFFERENCES: dict[str, dict[str, Rules]] = {
    "rlcard": {
        "no four identical single kickers": replace(RULES, same_single_kickers=3),
        "no kicker trio next to the airplane": replace(
            RULES, kicker_trio_next_to_airplane=False
        ),
    },
    "douzero": {
        "both jokers may be single kickers": replace(RULES, jokers_as_kickers=True),
    },
    "openspiel": {
        "no four-with-two": replace(RULES, four_with_two=False),
        "no four identical single kickers": replace(RULES, same_single_kickers=3),
    },
}
"""Per peer: rule differences, each as docs/rules.md with one switch turned (docs/peers.md)."""
PILE_ONE_READING = "the pile counts under one reading only"
"""Every peer gives a play one reading (``333444555666``: an airplane of 4 for DouZero and
RLCard, the lead's chosen reading for OpenSpiel); docs/rules.md lets a reply beat any reading."""


OURS_ALLOWS_ILLEGAL = "bug: ours allows a play docs/rules.md forbids"
OURS_MISSES_LEGAL = "bug: ours misses a play docs/rules.md allows"


def _chain_head_held_four(play: int, hand: int, pile: int | None) -> bool:
    """OpenSpiel's chain search skips every chain head the hand holds four of."""
    kinds = {k for k, _, _ in rules_readings(play)}
    head = next(r for r in range(NUM_RANKS) if counts(play)[r])
    chainy = kinds & {"chain", "pair_chain", "airplane"}
    return bool(chainy) and counts(hand)[head] == MAX_COPIES


def _bomb_over_rocket(play: int, hand: int, pile: int | None) -> bool:
    """OpenSpiel offers every bomb as a reply to the rocket (its search adds bombs for any pile
    but a bomb)."""
    readings = rules_readings(pile) if pile is not None else set()
    return any(k == "rocket" for k, _, _ in readings) and any(
        k == "bomb" for k, _, _ in rules_readings(play))


PEER_BUGS: dict[str, dict[str, Callable[[int, int, int | None], bool]]] = {
    "openspiel": {
        "chains never start at a rank the hand holds four of": _chain_head_held_four,
        "bombs offered against the rocket": _bomb_over_rocket,
    },
}
"""Per peer: defects of its generator found by this check, as predicates on
``(play, hand, pile)``, each described in docs/peers.md."""


def classify(peer: str, play: int, hand: int, pile: int | None, ours_allows: bool) -> str:
    """The class of a play that our engine allows (``ours_allows``) and ``peer`` does not, or
    the other way round (see the module doc)."""
    verdict = legal(play, hand, pile)
    if verdict != ours_allows:
        return OURS_ALLOWS_ILLEGAL if ours_allows else OURS_MISSES_LEGAL
    for name, rules in RULE_DIFFERENCES.get(peer, {}).items():
        if legal(play, hand, pile, rules) != verdict:
            return f"rule: {name}"
    if pile is not None and play != PASS and len(rules_readings(pile)) > 1:
        one_way = {beats(play, pile, pile_readings={r}) for r in rules_readings(pile)}
        if len(one_way) > 1:
            return f"rule: {PILE_ONE_READING}"
    for name, test in PEER_BUGS.get(peer, {}).items():
        if play != PASS and test(play, hand, pile):
            return f"bug: {peer}: {name}"
    return f"bug: {peer} (unexplained)"


@dataclass
class Disagreement:
    peer: str
    position: str
    hand: str
    pile: str | None
    play: str
    allowed_by: str
    klass: str

    def line(self) -> str:
        where = f"leading with {self.hand}" if self.pile is None else (
            f"{self.hand} replying to {self.pile}")
        return f"{self.peer:<10}{self.klass:<70}{self.play} (only {self.allowed_by}; {where})"


EDGE_POSITIONS = (
    ("333444555666777789TJ", "888999TTTJQKAA22B", "333444555666",
     "four identical single kickers (3334445556667777); a pile read three ways"),
    ("333444555666777888JQ", "999TTTJJJQQKKAA22", "333444555666777888JQ",
     "a kicker trio next to the airplane (444555666777888 + 333JQ)"),
    ("333445678TJQKA2222BR", "9999555666777888A", "BR",
     "the rocket as the pile against a bomb; four-with-two of 2s; both jokers as kickers"),
)
"""Hand-made positions (landlord's 20 cards, seat 1's 17, the landlord's lead) that meet the
known differences random deals meet rarely; seat 2 holds the rest, the kitty is the landlord's
three lowest cards."""


def run_check(peers: dict, deals: int, seed: int) -> dict:
    """Cross-check ``deals`` random deals and :data:`EDGE_POSITIONS` against every peer adapter
    in ``peers``; returns the counts per peer and class, every disagreement, and how many
    positions were compared or could not be represented."""
    from climbrl.envs.core.game import IllegalActionError
    from climbrl.envs.doudizhu.engine import DoudizhuGame

    game = DoudizhuGame()
    cat = game.catalog
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    found: list[Disagreement] = []
    compared = {name: Counter() for name in peers}
    positions = [_random_position(game, rng, pick) for _ in range(deals)]
    positions += [_edge_position(*edge[:3]) for edge in EDGE_POSITIONS]
    for hands, kitty, pile in positions:
        state = game.new_state(rng, {
            "hands": [format_cards(h) for h in hands], "kitty": format_cards(kitty),
            "landlord": LANDLORD, "bid": 1,
        })
        ours_lead = {cat.cards[a] for a in state.legal_actions()}
        try:
            state.apply(cat.id_of_cards[pile])
        except (KeyError, IllegalActionError):
            raise ValueError(f"pile {format_cards(pile)!r} is no lead of "
                             f"{format_cards(hands[LANDLORD])!r}") from None
        ours_reply = {PASS if a == cat.PASS else cat.cards[a] for a in state.legal_actions()}
        for name, peer in peers.items():
            extra = (kitty,) if name == "openspiel" else ()
            theirs = peer.lead(hands, *extra)
            compared[name]["leads"] += 1
            found += _diff(name, "lead", hands[LANDLORD], None, ours_lead, theirs)
            theirs = peer.reply(hands, *extra, pile)
            if theirs is None:
                compared[name]["replies not representable"] += 1
                continue
            compared[name]["replies"] += 1
            found += _diff(name, "reply", hands[REPLIER], pile, ours_reply, theirs)
    classes = {name: Counter() for name in peers}
    for d in found:
        classes[d.peer][d.klass] += 1
    return {"compared": compared, "classes": classes, "disagreements": found}


def _random_position(game, rng: np.random.Generator, pick: random.Random):
    """A random deal with seat 0 as the landlord, and a random lead of it: a random shape (by
    the first reading of each legal lead), then a random play of that shape."""
    deal = game.new_state(rng)
    kitty = deal.kitty
    hands = [deal.hands[0] + kitty, deal.hands[1], deal.hands[2]]
    cat = game.catalog
    by_kind: dict[int, list[int]] = {}
    for a in game.moves.lead(hands[LANDLORD]):
        by_kind.setdefault(cat.readings[a][0].kind, []).append(a)
    shape = sorted(by_kind)[pick.randrange(len(by_kind))]
    return hands, kitty, cat.cards[by_kind[shape][pick.randrange(len(by_kind[shape]))]]


def _edge_position(landlord: str, replier: str, pile: str):
    lord, second = parse(landlord), parse(replier)
    return [lord, second, FULL_DECK - lord - second], parse(landlord[:KITTY_SIZE]), parse(pile)


def _diff(peer: str, position: str, hand: int, pile: int | None, ours: set[int],
          theirs: set[int]) -> list[Disagreement]:
    out = []
    for side, plays in (("ours", ours - theirs), (peer, theirs - ours)):
        for play in sorted(plays):
            klass = classify(peer, play, hand, pile, ours_allows=side == "ours")
            out.append(Disagreement(
                peer, position, format_cards(hand),
                None if pile is None else format_cards(pile),
                "pass" if play == PASS else format_cards(play), side, klass,
            ))
    return out


__all__ = ["RULES", "Rules", "classify", "legal", "rules_readings", "run_check"]
