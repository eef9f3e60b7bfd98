"""The action catalog of Daifugo and President: a fixed id for every possible move.

Built once per :class:`~climbrl.envs.daifugo.rules.Rules`. Segments, in id order:

===========  ============================================================================
segment      content
===========  ============================================================================
``pass``     1 id
``single``   one per (rank, suit): 52; then one joker single when the deck has jokers
``set``      2+ cards of one number. One deck: per rank, every suit subset S (|S| >= 1)
             with j wild jokers, |S| + j >= 2 (suits matter for the lock). Two decks: per
             rank, k real cards with j jokers, k + j >= 2 (suits do not matter). Last, the
             pair of jokers when the deck has two. Under ``joker_suits`` a set's joker
             also names the suit it stands for (``7s JK=7h``).
``run``      3+ consecutive numbers 3..2 (no wrap). Same-suit runs: per suit, start,
             length and the positions the wild jokers fill (each choice its own id).
             Any-suit runs: per start, length and joker positions. Under
             ``joker_run_ends`` a joker may also stand below the 3 (rank -1, ``JK=below``)
             or above the 2 (rank 13, ``JK=above``).
``give``     exchange: give back one (rank, suit), or a joker: 52 (+1) ids
===========  ============================================================================

Each id carries a small record (:class:`Move`) and the parallel tuples below, which the engine
reads on its hot path. Text: ``pass``, ``7h``, ``JK``, ``7s 7h JK`` (suited set), ``7 7 JK``
(two-deck set), ``3s JK=4s 5s`` (run with a joker standing for the 4 of spades), ``3 JK=4 5``
(any-suit run), ``JK=below 3s 4s`` (a joker below the 3), ``7s JK=7h`` (a set whose joker
stands for the 7 of hearts, ``joker_suits``), ``give 7h``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache

from ..core.bits import iter_bits
from ..core.catalog import SegmentTable
from ..core.checks import as_action
from .cards import (
    JOKER_RANK,
    JOKER_TEXT,
    NUM_RANKS,
    NUM_SUITS,
    RANK_8,
    RANK_J,
    SUIT_NIBBLE,
    Deck,
    card_index,
    parse_rank_suit,
    rank_suit_text,
)
from .rules import MAX_DECKS, MAX_JOKERS, MIN_RUN, Rules

PASS, SINGLE, SET, RUN, GIVE = range(5)
KIND_NAMES = ("pass", "single", "set", "run", "give")
RANK_BITS = (1 << NUM_RANKS) - 1
#: the most cards one move can hold under any rules: a run of every number, or a set of
#: every copy of a number with every joker
MAX_MOVE_SIZE = max(NUM_RANKS, MAX_DECKS * NUM_SUITS + MAX_JOKERS)
#: the rank a joker stands for below the 3 and above the 2 at the ends of a run
#: (``joker_run_ends``), and their text
BELOW_3, ABOVE_2 = -1, NUM_RANKS
END_TEXTS = {BELOW_3: "below", ABOVE_2: "above"}
#: the name of the action feature table's layout (:meth:`Catalog.features`): the same width
#: and meaning under every rules config, so one network scores the moves of any catalog
FEATURE_SCHEMA = "daifugo-moves-1"


@dataclass(frozen=True)
class Move:
    """One catalog entry. ``low``/``high`` are rank indices (``JOKER_RANK`` for jokers alone);
    ``suits`` the real suits shown (4-bit mask); ``jokers`` the jokers used; ``joker_ranks`` the
    ranks the jokers stand for in a run; ``suit`` the suit of a same-suit run or a single /
    give card (-1 when none); ``joker_suit`` the suit a set's joker stands for
    (``joker_suits``; -1 when none)."""

    id: int
    kind: int
    size: int
    low: int
    high: int
    suits: int
    jokers: int
    suit: int = -1
    joker_ranks: tuple[int, ...] = ()
    joker_suit: int = -1

    def __repr__(self) -> str:
        return f"Move({self.id}, {KIND_NAMES[self.kind]}, {self.low}..{self.high}, size={self.size})"


class _RunGroup:
    """Runs available from one suit's (or, any-suit, one rank set's) cards and some jokers."""

    __slots__ = ("all", "by_len")

    def __init__(self, entries: list[tuple[int, int, int]]):
        self.all = tuple(e[2] for e in entries)
        by_len: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        for length in {e[0] for e in entries}:
            rows = sorted((low, aid) for ln, low, aid in entries if ln == length)
            by_len[length] = (tuple(r[0] for r in rows), tuple(r[1] for r in rows))
        self.by_len = by_len


class Catalog:
    """Every move of a rules config, with encode/decode and fast tables for move generation."""

    @staticmethod
    def key_of(rules: Rules) -> tuple:
        """What the catalog depends on: rules with the same key share one catalog."""
        return (rules.decks, rules.jokers, rules.jokers_wild, rules.runs, rules.run_suits,
                rules.joker_suits, rules.joker_run_ends)

    def __init__(self, rules: Rules):
        self.rules = rules
        self.key = self.key_of(rules)
        self._features = None
        self._texts: dict[int, str] = {}
        """each action's text, written once (views write a round's history every turn)"""
        #: lookup tables the engine derives from the catalog alone, filled by the first game
        #: built on it and shared by every game that shares the catalog
        self.engine_tables = None
        self.deck = Deck(rules.decks, rules.jokers)
        self.suited_sets = rules.decks == 1
        self.wild = rules.jokers if rules.jokers_wild else 0
        self.table = SegmentTable()
        moves: list[Move] = []

        def add(kind, size, low, high, suits, jokers, suit=-1, joker_ranks=(), joker_suit=-1):
            moves.append(Move(len(moves), kind, size, low, high, suits, jokers, suit, joker_ranks,
                              joker_suit))
            return len(moves) - 1

        # pass
        self.table.add("pass", 1)
        self.pass_id = add(PASS, 0, -1, -1, 0, 0)

        # singles
        self.single_id = [[0] * NUM_SUITS for _ in range(NUM_RANKS)]
        for r in range(NUM_RANKS):
            for s in range(NUM_SUITS):
                self.single_id[r][s] = add(SINGLE, 1, r, r, 1 << s, 0, s)
        self.joker_single = add(SINGLE, 1, JOKER_RANK, JOKER_RANK, 0, 1) if rules.jokers else -1
        self.table.add("single", len(moves) - self.table.size)

        # sets
        per_rank = self.deck.decks * NUM_SUITS
        # (rank, suits-or-count, jokers, suit the joker stands for or -1)
        self._set_key: dict[tuple[int, int, int, int], int] = {}
        named = rules.joker_suits
        for r in range(NUM_RANKS):
            if self.suited_sets:
                for sm in range(1, SUIT_NIBBLE + 1):
                    for j in range(self.wild + 1):
                        n = sm.bit_count() + j
                        if n < 2:
                            continue
                        if not (named and j) or sm == SUIT_NIBBLE:
                            self._set_key[r, sm, j, -1] = add(SET, n, r, r, sm, j)
                            continue
                        for js in range(NUM_SUITS):
                            if not sm >> js & 1:
                                self._set_key[r, sm, j, js] = add(SET, n, r, r, sm, j,
                                                                  joker_suit=js)
            else:
                for k in range(1, per_rank + 1):
                    for j in range(self.wild + 1):
                        if k + j >= 2:
                            self._set_key[r, k, j, -1] = add(SET, k + j, r, r, 0, j)
        self.joker_pair = add(SET, 2, JOKER_RANK, JOKER_RANK, 0, 2) if rules.jokers == 2 else -1
        self.table.add("set", len(moves) - self.table.size)

        # runs
        self.suited_runs = rules.run_suits == "same"
        # (suit, low, length, joker ranks) -> id
        self._run_key: dict[tuple[int, int, int, tuple[int, ...]], int] = {}
        # (suit, length, low, ranks of the window, [(jmask, jokers, id)]): jmask the window's
        # ranks the jokers fill, jokers how many the move uses
        self._windows: list[tuple[int, int, int, int, list[tuple[int, int, int]]]] = []
        if rules.runs:
            for suit in range(NUM_SUITS) if self.suited_runs else (-1,):
                suits = 0 if suit < 0 else 1 << suit
                for length in range(MIN_RUN, NUM_RANKS + 1):
                    for low in range(NUM_RANKS - length + 1):
                        window = ((1 << length) - 1) << low
                        variants = []
                        for jmask in _joker_subsets(window, min(self.wild, length - 1)):
                            joker_ranks = tuple(iter_bits(jmask))
                            aid = add(RUN, length, low, low + length - 1, suits,
                                      jmask.bit_count(), suit, joker_ranks)
                            self._run_key[suit, low, length, joker_ranks] = aid
                            variants.append((jmask, jmask.bit_count(), aid))
                        self._windows.append((suit, length, low, window, variants))
                    if rules.joker_run_ends and self.wild:
                        # a joker past either end: every real rank of the window is needed
                        for end, low in ((BELOW_3, BELOW_3), (ABOVE_2, NUM_RANKS + 1 - length)):
                            real = ((1 << (length - 1)) - 1) << max(low, 0)
                            aid = add(RUN, length, low, low + length - 1, suits, 1, suit, (end,))
                            self._run_key[suit, low, length, (end,)] = aid
                            self._windows.append((suit, length, low, real, [(0, 1, aid)]))
        self.table.add("run", len(moves) - self.table.size)

        # exchange: give one card back
        self.give_id = [[0] * NUM_SUITS for _ in range(NUM_RANKS)]
        for r in range(NUM_RANKS):
            for s in range(NUM_SUITS):
                self.give_id[r][s] = add(GIVE, 1, r, r, 1 << s, 0, s)
        self.give_joker = add(GIVE, 1, JOKER_RANK, JOKER_RANK, 0, 1) if rules.jokers else -1
        self.table.add("give", len(moves) - self.table.size)

        self.moves = tuple(moves)
        self.size = len(moves)
        assert self.size == self.table.size
        # hot-path tuples, indexed by id
        self.kind = tuple(m.kind for m in moves)
        self.msize = tuple(m.size for m in moves)
        self.low = tuple(m.low for m in moves)
        self.high = tuple(m.high for m in moves)
        self.suits = tuple(m.suits for m in moves)
        #: the suits the lock reads: the real suits and, under ``joker_suits``, the suit a
        #: set's joker stands for (a same-suit run's jokers stand for its suit)
        self.lock_suits = tuple(m.suits | (0 if m.joker_suit < 0 else 1 << m.joker_suit)
                                for m in moves)
        self.njokers = tuple(m.jokers for m in moves)
        self.has8 = tuple(self._has_real(m, RANK_8) for m in moves)
        self.hasJ = tuple(self._has_real(m, RANK_J) for m in moves)
        #: the exact real cards of a move when they are fixed (one deck, suits named; the
        #: engine adds jokers); None when the engine picks copies or suits from the hand
        self.cards = tuple(
            self._exact_cards(m) if rules.decks == 1 and (m.kind != RUN or m.suit >= 0) else None
            for m in moves
        )
        #: the player names no suits: a two-deck set (``7 7``) or an any-suit run (``3 4 5``).
        #: The engine picks the copies from the hand, so their suits would tell the other
        #: seats about the cards left in it: the public record of such a play is its ranks
        self.unsuited = tuple(
            (m.kind == SET and not self.suited_sets and m.low < JOKER_RANK)
            or (m.kind == RUN and m.suit < 0)
            for m in moves
        )
        self.has_unsuited = any(self.unsuited)
        self._build_tables()
        self._run_cache: dict[tuple[int, int, int], _RunGroup] = {}

    def suit_free_classes(self) -> tuple[int, ...]:
        """For each id, the first id of the same kind, size, numbers and jokers: moves that
        differ in their suits alone (``4s`` and ``4h``, ``7s 7h`` and ``7d 7c``) share it."""
        first: dict[tuple, int] = {}
        return tuple(first.setdefault((m.kind, m.size, m.low, m.high, m.jokers, m.joker_ranks),
                                      m.id) for m in self.moves)

    # -- construction helpers ----------------------------------------------------------------

    @staticmethod
    def _has_real(m: Move, rank: int) -> bool:
        if m.kind in (SINGLE, SET):
            return m.low == rank
        if m.kind == RUN:
            return m.low <= rank <= m.high and rank not in m.joker_ranks
        return False

    def _exact_cards(self, m: Move) -> int:
        if m.kind in (SINGLE, GIVE, SET) and m.low < JOKER_RANK:
            return sum(1 << card_index(m.low, s) for s in iter_bits(m.suits))
        if m.kind == RUN and m.suit >= 0:
            return sum(
                1 << card_index(r, m.suit)
                for r in range(m.low, m.high + 1)
                if r not in m.joker_ranks
            )
        return 0

    def _build_tables(self) -> None:
        """Tables of ids by (rank, suits held or count held, jokers held[, size])."""
        wild = self.wild
        sizes = range(self.rules.max_set_size + 1)
        self.singles_by = [
            [tuple(self.single_id[r][s] for s in iter_bits(sm)) for sm in range(SUIT_NIBBLE + 1)]
            for r in range(NUM_RANKS)
        ]
        self.gives_by = [
            [tuple(self.give_id[r][s] for s in iter_bits(sm)) for sm in range(SUIT_NIBBLE + 1)]
            for r in range(NUM_RANKS)
        ]
        held_range = SUIT_NIBBLE + 1 if self.suited_sets else self.deck.decks * NUM_SUITS + 1
        jok_range = self.rules.jokers + 1
        # sets_by[r][held][j] -> ids; sets_sized[r][held][j][n] -> ids of size n
        self.sets_by = []
        self.sets_sized = []
        for r in range(NUM_RANKS):
            by_held, sized_held = [], []
            for held in range(held_range):
                by_j, sized_j = [], []
                for j in range(jok_range):
                    ids = []
                    for (rr, key, jj, _js), aid in self._set_key.items():
                        if rr != r or jj > min(j, wild):
                            continue
                        ok = (key & ~held) == 0 if self.suited_sets else key <= held
                        if ok:
                            ids.append(aid)
                    ids.sort()
                    by_j.append(tuple(ids))
                    sized_j.append(tuple(tuple(a for a in ids if self.msize[a] == n) for n in sizes))
                by_held.append(by_j)
                sized_held.append(sized_j)
            self.sets_by.append(by_held)
            self.sets_sized.append(sized_held)

    # -- runs --------------------------------------------------------------------------------

    def runs_from(self, suit: int, ranks: int, jokers: int) -> _RunGroup:
        """Runs playable from the ranks ``ranks`` (13-bit) of ``suit`` (-1: any suit) and
        ``jokers`` jokers. Cached: there are at most 4 x 8192 x 3 keys."""
        key = (suit, ranks, jokers)
        group = self._run_cache.get(key)
        if group is None:
            wild = min(jokers, self.wild)
            entries = []
            for wsuit, length, low, window, variants in self._windows:
                if wsuit != suit:
                    continue
                missing = window & ~ranks
                if missing.bit_count() > wild:
                    continue
                for jmask, used, aid in variants:
                    if jmask & missing == missing and used <= wild:
                        entries.append((length, low, aid))
            group = self._run_cache[key] = _RunGroup(entries)
        return group

    @staticmethod
    def runs_beating(group: _RunGroup, length: int, low: int, high: int, reversed_: bool):
        """Ids in ``group`` of ``length`` whose cards all beat a run ``low..high``."""
        row = group.by_len.get(length)
        if row is None:
            return ()
        lows, ids = row
        if reversed_:
            # reply high < pile low  <=>  reply low < pile low - length + 1
            return ids[: bisect_left(lows, low - length + 1)]
        return ids[bisect_right(lows, high) :]

    # -- text --------------------------------------------------------------------------------

    def action_to_str(self, action: int) -> str:
        text = self._texts.get(action) if type(action) is int else None
        if text is None:
            if type(action) is not int:
                action = as_action(action)
            if not 0 <= action < self.size:
                raise ValueError(f"action id {action} is outside the catalog [0, {self.size})")
            text = self._texts[action] = self._text(action)
        return text

    def _text(self, action: int) -> str:
        m = self.moves[action]
        if m.kind == PASS:
            return "pass"
        if m.kind == GIVE:
            return "give " + (JOKER_TEXT if m.low == JOKER_RANK else rank_suit_text(m.low, m.suit))
        if m.low == JOKER_RANK:
            return " ".join([JOKER_TEXT] * m.size)
        if m.kind == SINGLE:
            return rank_suit_text(m.low, m.suit)
        if m.kind == SET:
            if self.suited_sets:
                real = [rank_suit_text(m.low, s) for s in iter_bits(m.suits)]
            else:
                real = [rank_suit_text(m.low, None)] * (m.size - m.jokers)
            if m.joker_suit >= 0:
                return " ".join(real + [f"{JOKER_TEXT}={rank_suit_text(m.low, m.joker_suit)}"])
            return " ".join(real + [JOKER_TEXT] * m.jokers)
        suit = m.suit if m.suit >= 0 else None
        parts = []
        for r in range(m.low, m.high + 1):
            if r in END_TEXTS:
                parts.append(f"{JOKER_TEXT}={END_TEXTS[r]}")
                continue
            text = rank_suit_text(r, suit)
            parts.append(f"{JOKER_TEXT}={text}" if r in m.joker_ranks else text)
        return " ".join(parts)

    def action_from_str(self, text: str, giving: bool = False) -> int:
        """The id of a move written as text. ``giving``: bare cards mean an exchange give.

        Raises ``ValueError`` naming what is wrong (bad card, not a shape, not in catalog),
        ``TypeError`` for anything but a string.
        """
        if not isinstance(text, str):
            raise TypeError(
                f"move text must be a string such as '7s 7h' or 'pass', got {text!r} "
                f"(type {type(text).__name__})"
            )
        words = text.replace(",", " ").split()
        if not words:
            raise ValueError("empty move text")
        if len(words) == 1 and words[0].lower() == "pass":
            return self.pass_id
        if words[0].lower() == "give":
            giving, words = True, words[1:]
        if giving:
            if len(words) != 1:
                raise ValueError(f"give takes exactly one card, got {text!r}")
            return self._give_from(words[0])
        jokers_free = 0
        cards: list[tuple[int, int | None, bool]] = []  # rank, suit, is a stand-in joker
        for w in words:
            if w.upper() == JOKER_TEXT:
                jokers_free += 1
            elif w.upper().startswith(JOKER_TEXT + "="):
                stands = w[len(JOKER_TEXT) + 1 :].lower()
                ends = {text: r for r, text in END_TEXTS.items()}
                rank, suit = (ends[stands], None) if stands in ends else parse_rank_suit(stands)
                cards.append((rank, suit, True))
            else:
                rank, suit = parse_rank_suit(w)
                cards.append((rank, suit, False))
        if not cards:
            if jokers_free == 1:
                return self._require(self.joker_single, text, "the deck has no joker")
            if jokers_free == 2:
                return self._require(self.joker_pair, text, "the deck has fewer than 2 jokers")
            raise ValueError(f"{text!r} is not a move: at most two jokers")
        ranks = {c[0] for c in cards}
        if len(ranks) == 1 and not any(c[2] for c in cards):
            return self._set_from(text, cards, jokers_free)
        if len(ranks) == 1 and len(cards) > 1 and self.rules.joker_suits:
            return self._named_set_from(text, cards, jokers_free)
        return self._run_from(text, cards, jokers_free)

    def _require(self, aid: int, text: str, why: str) -> int:
        if aid < 0:
            raise ValueError(f"{text!r} is not a move here: {why}")
        return aid

    def _give_from(self, word: str) -> int:
        if word.upper() == JOKER_TEXT:
            return self._require(self.give_joker, word, "the deck has no joker")
        rank, suit = parse_rank_suit(word)
        if suit is None:
            raise ValueError(f"give needs a card with its suit, got {word!r}")
        return self.give_id[rank][suit]

    def _set_from(self, text: str, cards, jokers: int) -> int:
        rank = cards[0][0]
        if len(cards) == 1 and not jokers:
            if cards[0][1] is None:
                raise ValueError(f"single {text!r} needs a suit")
            return self.single_id[rank][cards[0][1]]
        if jokers > self.wild:
            raise ValueError(
                f"{text!r}: jokers are not wild under these rules" if not self.wild
                else f"{text!r} uses {jokers} jokers; the deck has {self.wild}"
            )
        if self.suited_sets:
            suits = [c[1] for c in cards]
            if None in suits:
                raise ValueError(f"{text!r}: name each card's suit (one deck: suits matter)")
            sm = 0
            for s in suits:
                if sm >> s & 1:
                    raise ValueError(f"{text!r} names {rank_suit_text(rank, s)} twice")
                sm |= 1 << s
            key = (rank, sm, jokers, -1)
        else:
            key = (rank, len(cards), jokers, -1)
        aid = self._set_key.get(key)
        if aid is None:
            raise ValueError(f"{text!r} is not a set these rules allow")
        return aid

    def _named_set_from(self, text: str, cards, jokers_free: int) -> int:
        """A set whose joker names the suit it stands for (``7s JK=7h``, ``joker_suits``)."""
        real = [c for c in cards if not c[2]]
        named = [c for c in cards if c[2]]
        if jokers_free or len(named) != 1 or not real or None in {c[1] for c in cards}:
            raise ValueError(f"{text!r} is not a set: name each card's suit and one joker's "
                             f"(e.g. 7s JK=7h)")
        sm = 0
        for _rank, s, _ in real:
            if sm >> s & 1:
                raise ValueError(f"{text!r} names {rank_suit_text(cards[0][0], s)} twice")
            sm |= 1 << s
        aid = self._set_key.get((cards[0][0], sm, 1, named[0][1]))
        if aid is None:
            raise ValueError(f"{text!r} is not a set these rules allow (the joker stands for "
                             f"a suit of the set's real cards)")
        return aid

    def _run_from(self, text: str, cards, jokers_free: int) -> int:
        if not self.rules.runs:
            raise ValueError(f"{text!r} is not one number, and runs are off under these rules")
        if jokers_free:
            raise ValueError(f"{text!r}: a joker in a run must say what it stands for, e.g. JK=4s")
        cards = sorted(cards, key=lambda c: c[0])
        suits = {c[1] for c in cards if c[0] not in END_TEXTS}
        if self.suited_runs:
            if len(suits) != 1 or None in suits:
                raise ValueError(f"{text!r} is not a run: a run is one suit, each card suited")
            suit = suits.pop()
        else:
            suit = -1
        low, length = cards[0][0], len(cards)
        if [c[0] for c in cards] != list(range(low, low + length)):
            raise ValueError(
                f"{text!r} is not a run: the numbers must be consecutive in 3..2 (no wrap)"
            )
        joker_ranks = tuple(c[0] for c in cards if c[2])
        aid = self._run_key.get((suit, low, length, joker_ranks))
        if aid is None:
            raise ValueError(f"{text!r} is not a run these rules allow (length or jokers)")
        return aid

    # -- features for learning -------------------------------------------------------------

    def features(self):
        """A static float32 table [size, F] describing each move (for the trainer), read-only
        and built once: kind one-hot, size, low and high rank one-hot, suits shown, jokers,
        real-card counts by rank. Its width and scales come from the engine's limits
        (:data:`MAX_MOVE_SIZE`, ``MAX_JOKERS``), never from these rules, so a move reads the
        same in every catalog (:data:`FEATURE_SCHEMA`)."""
        if self._features is None:
            self._features = self._build_features()
        return self._features

    def _build_features(self):
        import numpy as np

        ranks = NUM_RANKS + 1
        width = len(KIND_NAMES) + 1 + 2 * ranks + NUM_SUITS + 1 + NUM_RANKS
        out = np.zeros((self.size, width), np.float32)
        for m in self.moves:
            row = out[m.id]
            row[m.kind] = 1
            col = len(KIND_NAMES)
            row[col] = m.size / MAX_MOVE_SIZE
            col += 1
            if m.kind != PASS:
                # a joker below the 3 reads as the 3 (nothing is lower; JOKER_RANK's column
                # holds a joker above the 2: nothing is higher either)
                row[col + max(m.low, 0)] = 1
                row[col + ranks + m.high] = 1
            col += 2 * ranks
            for s in iter_bits(m.suits):
                row[col + s] = 1
            col += NUM_SUITS
            row[col] = m.jokers / MAX_JOKERS
            col += 1
            if m.kind in (SINGLE, SET) and m.low < JOKER_RANK:
                row[col + m.low] = (m.size - m.jokers) / MAX_MOVE_SIZE
            elif m.kind == RUN:
                for r in range(m.low, m.high + 1):
                    if r not in m.joker_ranks:
                        row[col + r] = 1 / MAX_MOVE_SIZE
        out.flags.writeable = False
        return out


def _joker_subsets(window: int, max_jokers: int):
    """Subsets of the bits of ``window`` with at most ``max_jokers`` bits, smallest first."""
    bits = list(iter_bits(window))
    yield 0
    if max_jokers >= 1:
        for b in bits:
            yield 1 << b
    if max_jokers >= 2:
        for i, a in enumerate(bits):
            for b in bits[i + 1 :]:
                yield (1 << a) | (1 << b)


class _RulesKey:
    """Rules compared and hashed by their catalog key only (the cache key of
    :func:`shared_catalog`), carrying the first rules seen to build the catalog from."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.key = Catalog.key_of(rules)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other) -> bool:
        return isinstance(other, _RulesKey) and self.key == other.key


@lru_cache(maxsize=None)
def _catalog_of(rules_key: _RulesKey) -> Catalog:
    return Catalog(rules_key.rules)


def shared_catalog(rules: Rules) -> Catalog:
    """The catalog of ``rules``, built once per catalog key (:meth:`Catalog.key_of`) and shared
    by every game of rules with that key: a catalog reads no other field of its rules, and
    what it fills on use (action features, texts, the engine's tables) is the same for all."""
    return _catalog_of(_RulesKey(rules))
