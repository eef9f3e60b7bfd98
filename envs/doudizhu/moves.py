"""Legal play generation: which catalog plays a hand can lead, and which beat a pile.

Generation is structural, never a scan of the 28,502-play catalog. A hand is packed rank counts
(:mod:`climbrl.envs.doudizhu.cards`); four guard-bit masks say which ranks hold at least 1, 2, 3 or 4
cards, all computed in one addition each (``(hand + ADD[k]) & GUARD``). Everything made of
bodies only (singles, pairs, trios, bombs, the rocket and all chains) depends on one of those
masks alone, so it is looked up in a per-mask table filled on first use. Plays with kickers
loop over the bodies the hand holds and the kicker sets its remaining cards allow, mapping
each to its id through the catalog's per-body dictionaries.

One play can be generated twice only through an airplane with single kickers whose kickers
complete a longer airplane (``333444555666``); such hands are deduplicated.

With two packs (the four-player game) the same generator also makes the pairs of jokers, the
bombs of 5 to 8 cards and the four-joker rocket, and keeps the rocket out of kickers.
"""

from __future__ import annotations

from itertools import combinations

from .cards import (
    BLACK_JOKER,
    CHAIN_RANKS,
    COPIES,
    NUM_RANKS,
    NUMBER_RANKS,
    PACKS_MAX,
    RED_JOKER,
    UNIT,
)
from .catalog import BOMB_WIDTH, SPECS, Catalog, Kind, single_kicker_sets

_BYTE_HIGH = 0x80
_GUARD = sum(_BYTE_HIGH * u for u in UNIT)
_AT_LEAST = tuple(sum((_BYTE_HIGH - k) * u for u in UNIT)
                  for k in range(PACKS_MAX * max(COPIES) + 1))
"""``(hand + _AT_LEAST[k]) & _GUARD`` sets bit 7 of each rank byte holding ``>= k`` cards."""
_FLAG = tuple(_BYTE_HIGH * u for u in UNIT)
"""``_FLAG[r]``: the guard bit of rank ``r``."""
_RANGE = range(NUM_RANKS)
_ABOVE = {main: sum(_FLAG[main + 1 :]) for main in range(-1, NUM_RANKS)}
"""``_ABOVE[main]``: guard bits of the ranks above ``main`` (``-1``: every rank)."""
_ROCKET_BYTES = 0xFF * (UNIT[BLACK_JOKER] + UNIT[RED_JOKER])
"""The joker bytes of a packed hand (``hand & _ROCKET_BYTES == rocket``: every joker)."""
_JOKER_PAIRS = 2 * (UNIT[BLACK_JOKER] + UNIT[RED_JOKER])
"""Both joker pairs: never kickers together (with two packs, they are the rocket)."""


def rank_mask(hand: int, at_least: int) -> int:
    """Guard bits (``_FLAG[r]``) of the ranks where ``hand`` holds ``>= at_least`` cards."""
    return (hand + _AT_LEAST[at_least]) & _GUARD


def _two_singles(c: bytes, ranks: list[int], jokers: bool = False) -> list[int]:
    """Every pair of single kickers (packed) from ``ranks`` (ascending, counts ``c``): two
    different ranks, or one rank twice where it holds two cards; never both jokers unless
    ``jokers`` (two packs: two singles never hold the four-joker rocket)."""
    out = []
    for i, a in enumerate(ranks):
        if a >= BLACK_JOKER and not jokers:
            break  # only B+R could follow: never both jokers
        ua = UNIT[a]
        if c[a] >= 2:
            out.append(2 * ua)
        out += [ua + UNIT[b] for b in ranks[i + 1 :]]
    return out


def _run_flags(start: int, length: int) -> int:
    return sum(_FLAG[r] for r in range(start, start + length))


_RUNS_OF_FOUR = tuple(_run_flags(s, 4) for s in range(CHAIN_RANKS - 3))
"""Guard flags of every run of four chain ranks (a trio run that long may read two ways)."""


class MoveGenerator:
    """Legal plays of a hand; all methods return fresh lists of catalog ids (no pass)."""

    _KICKER_MEMO = 1 << 11
    """Most kicker-set lists kept for airplanes of 3+ trios (keyed by the cards outside)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        setup = catalog.setup
        body = catalog.body_ids
        self._single = [body[Kind.SINGLE][(1, r)] for r in _RANGE]
        self._pair = [body[Kind.PAIR].get((1, r)) for r in _RANGE]
        self._trio = [body[Kind.TRIO].get((1, r)) for r in _RANGE]
        self._bomb = [body[Kind.BOMB].get((BOMB_WIDTH, r)) for r in _RANGE]
        self._widest = setup.max_copies
        self._bombs_of = {w: [body[Kind.BOMB].get((w, r)) for r in _RANGE]
                          for w in range(BOMB_WIDTH, self._widest + 1)}
        """``_bombs_of[width][rank]``: the bomb of ``width`` cards of a rank"""
        self._one_pack = self._widest == BOMB_WIDTH
        self._rocket = catalog.ROCKET
        self._rocket_cards = setup.rocket
        self._rocket_width = setup.joker_copies
        self._rocket_flags = _FLAG[BLACK_JOKER] | _FLAG[RED_JOKER]
        # _chains[kind]: every chain body (length, start rank, guard flags, id or -1 for the
        # airplane-with-kickers bodies, which have no id of their own)
        self._chains: dict[Kind, list[tuple[int, int, int, int]]] = {}
        for kind in (Kind.CHAIN, Kind.PAIR_CHAIN, Kind.AIRPLANE, Kind.AIRPLANE_SINGLE):
            spec = SPECS[kind]
            rows = []
            for length in spec.lengths(catalog.setup):
                for start in range(CHAIN_RANKS - length + 1):
                    rid = body[kind].get((length, start), -1)
                    rows.append((length, start, _run_flags(start, length), rid))
            self._chains[kind] = rows
        kick = catalog.kicker_ids
        self._trio_single = [self._by_rank(kick[Kind.TRIO_SINGLE].get((1, t))) for t in _RANGE]
        self._trio_pair = [self._by_rank(kick[Kind.TRIO_PAIR].get((1, t))) for t in _RANGE]
        self._four_single = [kick[Kind.FOUR_TWO_SINGLE].get((1, q)) for q in _RANGE]
        self._four_pair = [kick[Kind.FOUR_TWO_PAIR].get((1, q)) for q in _RANGE]
        self._plane_single = kick[Kind.AIRPLANE_SINGLE]
        self._plane_pair = kick[Kind.AIRPLANE_PAIR]
        # lazily filled tables keyed by a rank mask
        self._by_mask: dict[int, dict[int, list[int]]] = {w: {} for w in range(1, self._widest + 1)}
        """``_by_mask[width][mask]``: the body-only plays of width ``width`` (see ``_fill``)."""
        self._planes: dict[int, tuple[list[tuple[int, int]], bool]] = {}
        self._kicker_sets: dict[tuple, list[int]] = {}
        self._body_of_width = {1: self._single, 2: self._pair, 3: self._trio, **self._bombs_of}
        self._rank_bodies: dict[int, dict[int, list[int]]] = {w: {} for w in self._body_of_width}
        """``_rank_bodies[width][mask]``: single-rank bodies of ``width`` cards (replies)."""
        self._reply_kind = {
            Kind.SINGLE: self._reply_rank,
            Kind.PAIR: self._reply_rank,
            Kind.TRIO: self._reply_rank,
            Kind.TRIO_SINGLE: self._trio_singles,
            Kind.TRIO_PAIR: self._trio_pairs,
            Kind.CHAIN: self._reply_chain,
            Kind.PAIR_CHAIN: self._reply_chain,
            Kind.AIRPLANE: self._reply_chain,
            Kind.AIRPLANE_SINGLE: self._plane_singles,
            Kind.AIRPLANE_PAIR: self._plane_pairs,
            Kind.FOUR_TWO_SINGLE: self._four_singles,
            Kind.FOUR_TWO_PAIR: self._four_pairs,
        }

    @staticmethod
    def _by_rank(kicks: dict[int, int] | None) -> list[int | None] | None:
        """A kicker dict of single-unit kickers as a list indexed by the kicker's rank."""
        if kicks is None:
            return None
        out: list[int | None] = [None] * NUM_RANKS
        for packed, action in kicks.items():
            r = (packed.bit_length() - 1) // 8
            out[r] = action
        return out

    # -- leading ------------------------------------------------------------------------------

    def lead(self, hand: int) -> list[int]:
        """Every play ``hand`` can lead."""
        c = hand.to_bytes(NUM_RANKS, "little")
        by_mask = self._by_mask
        m1 = (hand + _AT_LEAST[1]) & _GUARD
        m2 = (hand + _AT_LEAST[2]) & _GUARD
        m3 = (hand + _AT_LEAST[3]) & _GUARD
        m4 = (hand + _AT_LEAST[4]) & _GUARD
        out = by_mask[1].get(m1)
        if out is None:
            out = self._fill(1, m1)
        bodies = by_mask[2].get(m2)
        if bodies is None:
            bodies = self._fill(2, m2)
        out = out + bodies  # a new list: the tables stay untouched
        if m3:
            bodies = by_mask[3].get(m3)
            out += bodies if bodies is not None else self._fill(3, m3)
            present = [r for r in _RANGE if c[r]]
            pairs = [r for r in present if c[r] >= 2]
            for t in pairs:
                if c[t] >= 3:
                    self._trio_kickers(t, present, pairs, out)
            if m4:
                bodies = by_mask[4].get(m4)
                out += bodies if bodies is not None else self._fill(4, m4)
                for q in pairs:
                    if c[q] >= BOMB_WIDTH:
                        self._four_kickers(c, q, present, pairs, out)
                for width in range(BOMB_WIDTH + 1, self._widest + 1):
                    wide = (hand + _AT_LEAST[width]) & _GUARD
                    if not wide:
                        break
                    bodies = by_mask[width].get(wide)
                    out += bodies if bodies is not None else self._fill(width, wide)
            planes_dup = self._planes.get(m3)
            planes, dup = planes_dup if planes_dup is not None else self._fill_planes(m3)
            if planes:
                for length, start in planes:
                    self._plane_kickers(c, length, start, present, pairs, out)
                if dup:
                    out = list(dict.fromkeys(out))
        return out

    def _fill(self, width: int, mask: int) -> list[int]:
        """Plays made of bodies only with ``width`` cards per rank, for the ranks of ``mask``:
        singles, chains and the rocket (1); pairs and pair chains (2); trios and airplanes (3);
        bombs (4)."""
        ranks = [r for r in _RANGE if mask & _FLAG[r]]
        if width == 1:
            out = [self._single[r] for r in ranks] + self._chain_ids(Kind.CHAIN, mask)
        elif width == 2:
            out = [self._pair[r] for r in ranks] + self._chain_ids(Kind.PAIR_CHAIN, mask)
        elif width == 3:
            out = [self._trio[r] for r in ranks] + self._chain_ids(Kind.AIRPLANE, mask)
        else:
            out = [self._bombs_of[width][r] for r in ranks]
        if width == self._rocket_width and mask & self._rocket_flags == self._rocket_flags:
            out.append(self._rocket)
        self._by_mask[width][mask] = out
        return out

    def _chain_ids(self, kind: Kind, mask: int) -> list[int]:
        return [rid for _, _, flags, rid in self._chains[kind] if mask & flags == flags]

    def _fill_planes(self, m3: int) -> tuple[list[tuple[int, int]], bool]:
        """Airplane bodies ``(length, start)`` held by a hand with trio mask ``m3``, and whether
        an airplane-with-singles may be generated twice (a run of 4 or more trios)."""
        rows = [
            (length, start)
            for length, start, flags, _ in self._chains[Kind.AIRPLANE_SINGLE]
            if m3 & flags == flags
        ]
        dup = any(m3 & run == run for run in _RUNS_OF_FOUR)
        self._planes[m3] = (rows, dup)
        return rows, dup

    # -- kickers ------------------------------------------------------------------------------

    def _trio_kickers(self, t, present, pairs, out, singles=True, doubles=True) -> None:
        """Trio-with-one plays on the trio ``t``, appended to ``out``."""
        if singles:
            row = self._trio_single[t]
            out += [row[r] for r in present if r != t]
        if doubles:
            row = self._trio_pair[t]
            out += [row[r] for r in pairs if r != t]

    def _four_kickers(self, c, q, present, pairs, out, singles=True, doubles=True) -> None:
        """Four-with-two plays on the quad ``q``, appended to ``out``."""
        if singles:
            kicks = self._four_single[q]
            ranks = [r for r in present if r != q]
            out += [kicks[k] for k in _two_singles(c, ranks, not self._one_pack)]
        if doubles:
            kicks = self._four_pair[q]
            ps = [r for r in pairs if r != q]
            sets = (2 * UNIT[a] + 2 * UNIT[b] for a, b in combinations(ps, 2))
            out += [kicks[k] for k in sets if k != _JOKER_PAIRS]

    def _plane_kickers(self, c, length, start, present, pairs, out, singles=True, doubles=True):
        """Airplane-with-kickers plays on the body ``(length, start)``, appended to ``out``."""
        stop = start + length
        if singles:
            kicks = self._plane_single[(length, start)]
            ranks = [r for r in present if not start <= r < stop]
            if length == 2:
                sets = _two_singles(c, ranks, not self._one_pack)
            else:
                key = (length, tuple([min(c[r], length) for r in ranks]), tuple(ranks))
                sets = self._kicker_sets.get(key)
                if sets is None:
                    sets = single_kicker_sets([(r, c[r]) for r in ranks], length,
                                              self._rocket_cards)
                    if len(self._kicker_sets) >= self._KICKER_MEMO:
                        self._kicker_sets.clear()
                    self._kicker_sets[key] = sets
            out += [kicks[k] for k in sets]
        if doubles and (length, start) in self._plane_pair:
            kicks = self._plane_pair[(length, start)]
            ps = [r for r in pairs if not start <= r < stop]
            if len(ps) >= length:
                sets = (sum(2 * UNIT[r] for r in combo) for combo in combinations(ps, length))
                out += [kicks[k] for k in sets if k & _JOKER_PAIRS != _JOKER_PAIRS]

    # -- replies ------------------------------------------------------------------------------

    def replies(self, hand: int, pile: int) -> list[int]:
        """Every play of ``hand`` that beats the play ``pile`` (pass not included)."""
        if pile == self._rocket:
            return []
        cat = self.catalog
        bomb_main = cat.bomb_main[pile]
        if bomb_main < 0:
            readings = cat.readings[pile]
            if len(readings) == 1:
                kind, length, main = readings[0]
                out = self._reply_kind[kind](hand, kind, length, main)
                if kind == Kind.AIRPLANE_SINGLE:
                    out = list(dict.fromkeys(out))
            else:
                out = []
                for kind, length, main in readings:
                    out += self._reply_kind[kind](hand, kind, length, main)
                out = list(dict.fromkeys(out))
        else:
            out = []
        if self._one_pack:
            m4 = (hand + _AT_LEAST[4]) & _GUARD & _ABOVE[bomb_main]
            if m4:
                out += self._bodies(4, m4)
        else:
            out += self._bombs_above(hand, cat.bomb_power[pile])
        if hand & _ROCKET_BYTES == self._rocket_cards:
            out.append(self._rocket)
        return out

    def _bombs_above(self, hand: int, power: int) -> list[int]:
        """The bombs of ``hand`` stronger than ``power`` (a bomb's :attr:`Catalog.bomb_power`,
        ``-1`` for any other play), rocket aside."""
        powers = self.catalog.bomb_power
        out = []
        for width in range(BOMB_WIDTH, self._widest + 1):
            mask = (hand + _AT_LEAST[width]) & _GUARD
            if not mask:
                break
            out += [a for a in self._bodies(width, mask) if powers[a] > power]
        return out

    def _bodies(self, width: int, mask: int) -> list[int]:
        """Single-rank bodies (singles, pairs, trios, bombs) of ``width`` cards for the ranks of
        ``mask``, from a per-mask table filled on first use (shared: callers copy)."""
        table = self._rank_bodies[width]
        ids = table.get(mask)
        if ids is None:
            body = self._body_of_width[width]
            ids = table[mask] = [body[r] for r in _RANGE if mask & _FLAG[r]]
        return ids

    def _reply_rank(self, hand, kind, length, main):
        """Singles, pairs or trios above ``main``: one masked table lookup."""
        width = SPECS[kind].width
        mask = (hand + _AT_LEAST[width]) & _GUARD & _ABOVE[main]
        return self._bodies(width, mask)[:] if mask else []

    def _reply_chain(self, hand, kind, length, main):
        mask = rank_mask(hand, SPECS[kind].width)
        return [
            rid
            for n, start, flags, rid in self._chains[kind]
            if n == length and start > main and mask & flags == flags
        ]

    def _trio_singles(self, hand, kind, length, main, singles=True):
        c = hand.to_bytes(NUM_RANKS, "little")
        present = [r for r in _RANGE if c[r]]
        pairs = [r for r in present if c[r] >= 2]
        out: list[int] = []
        for t in range(main + 1, NUMBER_RANKS):
            if c[t] >= 3:
                self._trio_kickers(t, present, pairs, out, singles, not singles)
        return out

    def _trio_pairs(self, hand, kind, length, main):
        return self._trio_singles(hand, kind, length, main, singles=False)

    def _four_singles(self, hand, kind, length, main, singles=True):
        c = hand.to_bytes(NUM_RANKS, "little")
        present = [r for r in _RANGE if c[r]]
        pairs = [r for r in present if c[r] >= 2]
        out: list[int] = []
        for q in range(main + 1, NUMBER_RANKS):
            if c[q] >= BOMB_WIDTH:
                self._four_kickers(c, q, present, pairs, out, singles, not singles)
        return out

    def _four_pairs(self, hand, kind, length, main):
        return self._four_singles(hand, kind, length, main, singles=False)

    def _plane_singles(self, hand, kind, length, main, singles=True):
        c = hand.to_bytes(NUM_RANKS, "little")
        present = [r for r in _RANGE if c[r]]
        pairs = [r for r in present if c[r] >= 2]
        mask = rank_mask(hand, SPECS[kind].width)
        out: list[int] = []
        for n, start, flags, _ in self._chains[Kind.AIRPLANE_SINGLE]:
            if n == length and start > main and mask & flags == flags:
                self._plane_kickers(c, n, start, present, pairs, out, singles, not singles)
        return out

    def _plane_pairs(self, hand, kind, length, main):
        return self._plane_singles(hand, kind, length, main, singles=False)
