"""UECda tables: 8 x 15 signed 32-bit big-endian integers, and our cards and moves in them.

Card cells: rows 0..3 are the suits spades, hearts, diamonds, clubs (our suit order ``shdc``);
columns 1..13 the ranks 3, 4, ..., K, A, 2 (our rank index + 1). Column 0 and column 14 lie
below the 3 and above the 2: only a joker extending a run past an end stands there (our
``JK=below`` / ``JK=above``). In a hand the joker is ``[4][1] = 2``. In a move the joker is a
2 in the cell of the card it stands for: a set's joker in the row of the suit it names (our
``7s JK=7h``), a lone joker anywhere in rows 0..3 (we write it at :data:`LONE_JOKER_CELL`),
the fifth card of five of a kind at ``[4][rank column]``. Rows 5..7 carry the game's state
(:mod:`climbrl.play.uecda.wire` names those cells).

Every reading error is a :class:`TableError` naming the cell that is wrong.
"""

from __future__ import annotations

import numpy as np

from climbrl.envs.daifugo.cards import NUM_RANKS, NUM_SUITS, RANKS, SUITS, Deck, card_index
from climbrl.envs.daifugo.catalog import GIVE, PASS, RUN, SET, SINGLE

ROWS, COLS = 8, 15
TABLE_BYTES = ROWS * COLS * 4
WIRE_DTYPE = np.dtype(">i4")
#: rows of card cells (the four suits, then the joker's row)
CARD_ROWS = NUM_SUITS + 1
JOKER_ROW = NUM_SUITS
#: where a hand holds the joker, and the value of a joker cell
HAND_JOKER_CELL = (JOKER_ROW, 1)
REAL, JOKER = 1, 2
#: the cell we write a lone joker in (any cell of rows 0..3 means a lone joker)
LONE_JOKER_CELL = (0, 1)
FIRST_RANK_COL, LAST_RANK_COL = 1, NUM_RANKS
#: the columns below the 3 and above the 2 (a run's joker past an end), and their words
BELOW_COL, ABOVE_COL = FIRST_RANK_COL - 1, LAST_RANK_COL + 1
END_WORDS = {BELOW_COL: "JK=below", ABOVE_COL: "JK=above"}
MIN_RUN = 3


class TableError(ValueError):
    """A table we cannot read; the message names the cell."""


def new_table() -> np.ndarray:
    return np.zeros((ROWS, COLS), dtype=np.int64)


def pack(table) -> bytes:
    """The 480 bytes of ``table`` (8 x 15 integers that fit in 32 bits)."""
    arr = np.asarray(table)
    if arr.shape != (ROWS, COLS):
        raise TableError(f"a table is {ROWS} x {COLS}, got shape {arr.shape}")
    if arr.size and (arr.min() < -2**31 or arr.max() >= 2**31):
        raise TableError("a table cell does not fit in a signed 32-bit integer")
    return arr.astype(WIRE_DTYPE).tobytes()


def unpack(data: bytes) -> np.ndarray:
    """The table of 480 bytes (rows of 15 big-endian integers)."""
    if len(data) != TABLE_BYTES:
        raise TableError(f"a table is {TABLE_BYTES} bytes, got {len(data)}")
    return np.frombuffer(data, dtype=WIRE_DTYPE).reshape(ROWS, COLS).astype(np.int64)


def table_text(table) -> str:
    """One line per row, for logs and error reports."""
    return "\n".join(" ".join(f"{int(v):d}" for v in row) for row in np.asarray(table))


def cell_of(deck: Deck, card: int) -> tuple[int, int]:
    """The cell of one of our card ids (the joker: its hand cell)."""
    if deck.is_joker(card):
        return HAND_JOKER_CELL
    rank, suit = deck.rank_suit(card)
    return suit, rank + FIRST_RANK_COL


def _card_at(row: int, col: int) -> int:
    return card_index(col - FIRST_RANK_COL, row)


def _cell_name(row: int, col: int) -> str:
    if row < NUM_SUITS and FIRST_RANK_COL <= col <= LAST_RANK_COL:
        return f"[{row}][{col}] ({RANKS[col - FIRST_RANK_COL]}{SUITS[row]})"
    return f"[{row}][{col}]"


# -- hands ---------------------------------------------------------------------------------


def hand_to_table(deck: Deck, cards: int, table: np.ndarray | None = None) -> np.ndarray:
    """Cards held (or given): 1 in each real card's cell, the joker ``[4][1] = 2``."""
    out = new_table() if table is None else table
    out[:CARD_ROWS] = 0
    for card in range(deck.size):
        if cards >> card & 1:
            row, col = cell_of(deck, card)
            out[row, col] = JOKER if deck.is_joker(card) else REAL
    return out


def table_to_hand(deck: Deck, table) -> int:
    """The cards of a hand table (rows 0..4; rows 5..7 are not cards)."""
    arr = np.asarray(table)
    cards = 0
    for row, col in zip(*np.nonzero(arr[:CARD_ROWS])):
        row, col, value = int(row), int(col), int(arr[row, col])
        if (row, col) == HAND_JOKER_CELL and value in (REAL, JOKER):
            if not deck.jokers:
                raise TableError(f"cell {_cell_name(row, col)} holds a joker; the deck has none")
            cards |= 1 << deck.real_cards
        elif row < NUM_SUITS and FIRST_RANK_COL <= col <= LAST_RANK_COL and value == REAL:
            cards |= 1 << _card_at(row, col)
        else:
            raise TableError(f"cell {_cell_name(row, col)} of a hand is {value}: a hand has 1 in "
                             f"card cells (rows 0-3, columns 1-13) and the joker as [4][1] = 2")
    return cards


def table_cards(deck: Deck, table) -> int:
    """The physical cards a move table shows (any 2 is the joker), without judging the move."""
    arr = np.asarray(table)
    cards = 0
    for row, col in zip(*np.nonzero(arr[:CARD_ROWS])):
        row, col, value = int(row), int(col), int(arr[row, col])
        if value == JOKER and deck.jokers:
            cards |= 1 << deck.real_cards
        elif value == REAL and row < NUM_SUITS and FIRST_RANK_COL <= col <= LAST_RANK_COL:
            cards |= 1 << _card_at(row, col)
        else:
            raise TableError(f"cell {_cell_name(row, col)} is {value}: not a card")
    return cards


# -- moves ---------------------------------------------------------------------------------


def move_to_table(game, action: int, table: np.ndarray | None = None) -> np.ndarray:
    """Our move ``action`` (a catalog id of the Daifugo engine) as a move table: a set's joker
    in the row of the suit it names, the fifth card of five of a kind at ``[4][column]``, a
    run's joker past the 3 or the 2 in column 0 or 14."""
    cat = game.catalog
    m = cat.moves[action]
    out = new_table() if table is None else table
    out[:CARD_ROWS] = 0
    if m.kind == PASS:
        return out
    if m.kind == GIVE:
        raise TableError(f"{cat.action_to_str(action)!r} is an exchange give: send the gift as a "
                         "hand table (hand_to_table)")
    if m.kind == SINGLE and m.low >= NUM_RANKS:
        out[LONE_JOKER_CELL] = JOKER
        return out
    col = m.low + FIRST_RANK_COL
    if m.kind == SINGLE:
        out[m.suit, col] = REAL
    elif m.kind == SET:
        for s in range(NUM_SUITS):
            if m.suits >> s & 1:
                out[s, col] = REAL
        if m.jokers:
            out[JOKER_ROW if m.joker_suit < 0 else m.joker_suit, col] = JOKER
    elif m.kind == RUN:
        for r in range(m.low, m.high + 1):
            out[m.suit, r + FIRST_RANK_COL] = JOKER if r in m.joker_ranks else REAL
    return out


def table_to_move(game, table) -> int:
    """The catalog id of a move table (rows 0..4; all zero is a pass). ``TableError`` naming
    the cell for a cell that is no card, for cards that make no move of our engine."""
    arr = np.asarray(table)
    if arr.shape != (ROWS, COLS):
        raise TableError(f"a table is {ROWS} x {COLS}, got shape {arr.shape}")
    cat = game.catalog
    real, jokers = [], []
    for row, col in zip(*np.nonzero(arr[:CARD_ROWS])):
        row, col, value = int(row), int(col), int(arr[row, col])
        if value not in (REAL, JOKER):
            raise TableError(f"cell {_cell_name(row, col)} is {value}: a move has 1 (a card) "
                             "or 2 (the joker)")
        if value == REAL and (row == JOKER_ROW or not FIRST_RANK_COL <= col <= LAST_RANK_COL):
            raise TableError(f"cell {_cell_name(row, col)} is 1 but holds no card (only the "
                             "joker, a 2, may stand there)")
        (jokers if value == JOKER else real).append((row, col))
    if not real and not jokers:
        return cat.pass_id
    if len(jokers) > game.deck.jokers:
        raise TableError(f"cells {', '.join(_cell_name(*c) for c in jokers)} are jokers (2); "
                         f"the deck has {game.deck.jokers}")
    if not real:
        row, col = jokers[0]
        if row == JOKER_ROW:
            raise TableError(f"cell {_cell_name(row, col)}: a lone joker is a 2 in rows 0-3")
        return cat.joker_single
    cells = real + jokers
    cols = {c for _, c in cells}
    rows = {r for r, _ in cells}
    if len(cols) == 1:
        return _set_move(cat, real, jokers)
    if len(rows) == 1 and len(cells) >= MIN_RUN:
        return _run_move(cat, real, jokers)
    raise TableError(f"cells {', '.join(_cell_name(*c) for c in sorted(cells))} are neither one "
                     "rank (a single or a set) nor one suit (a run)")


def _set_move(cat, real, jokers) -> int:
    col = real[0][1]
    rank = RANKS[col - FIRST_RANK_COL]
    for row, c in jokers:
        if row == JOKER_ROW and len(real) != NUM_SUITS:
            raise TableError(f"cell {_cell_name(row, c)}: the joker stands in row 4 only as the "
                             f"fifth card of five of a kind, here with {len(real)} real card(s)")
    words = [rank + SUITS[row] for row, _ in sorted(real)]
    # the joker names its suit (its row); in row 4 it is the fifth of five of a kind
    words += ["JK" if row == JOKER_ROW else f"JK={rank}{SUITS[row]}" for row, _ in jokers]
    return _catalog_id(cat, " ".join(words), real + jokers)


def _run_move(cat, real, jokers) -> int:
    row = real[0][0]
    kinds = {c: "real" for _, c in real} | {c: "joker" for _, c in jokers}
    low, high = min(kinds), max(kinds)
    gaps = [c for c in range(low, high + 1) if c not in kinds]
    if gaps:
        raise TableError(f"cell {_cell_name(row, gaps[0])} is empty inside the run "
                         f"{_cell_name(row, low)}..{_cell_name(row, high)}")
    words = []
    for col in range(low, high + 1):
        if col in END_WORDS:
            words.append(END_WORDS[col])
            continue
        text = RANKS[col - FIRST_RANK_COL] + SUITS[row]
        words.append(f"JK={text}" if kinds[col] == "joker" else text)
    return _catalog_id(cat, " ".join(words), real + jokers)


def _catalog_id(cat, text: str, cells) -> int:
    try:
        return cat.action_from_str(text)
    except ValueError as err:
        raise TableError(f"cells {', '.join(_cell_name(*c) for c in sorted(cells))} ({text}) "
                         f"are no move of our engine: {err}") from None
