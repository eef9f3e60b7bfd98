/* The optional compiled core of the Daifugo, President and UECda environments: the seat
 * observation writer.
 *
 * climbrl.envs.daifugo.observation.observe (pure Python, from scratch) is the reference; this
 * module writes the same float32 vector, entry for entry, from the same state attributes,
 * and tests/test_compiled_daifugo.py plays every preset and a spread of house rules both ways
 * and compares. It is built by the normal pip install (setup.py, an optional extension: where
 * no compiler exists the package installs without it and climbrl.envs.daifugo.compiled falls
 * back to Python).
 *
 * Writer(spec)              the facts of one game's layout (built by compiled.writer_spec
 *                           from the Python writer: field starts and widths, the table's
 *                           template, the catalog's pile facts)
 *   .write(state, seat, out)   the observation of seat in state, written from scratch into
 *                              out (a writable float32 buffer of the layout's size)
 *   .observer(seat, out[, no_moves])
 *                              a SeatWriter: .observe(state) writes into out and returns it;
 *                              given no_moves (a zeroed int8 array, one slot per action),
 *                              .observation_and_mask(state) returns a copy of the observation
 *                              and a new mask of the legal moves (empty when it is not the
 *                              seat's turn), both the caller's own
 *
 * Every value the state gives is checked before it is used as an index (a seat, a place, an
 * action id, a card mask): a state holding values out of range raises ValueError, never
 * writes outside the buffer or into another field.
 */

#include "_compiled.h"

#include <stdint.h>
#include <string.h>

#define CARDS_PER_DECK 52
#define NUM_SUITS 4
#define NUM_RANKS 13
#define CARD_SLOTS (CARDS_PER_DECK + 1)
#define MAX_PLAYERS 8
#define MAX_DECKS 2
#define MASK_BYTES 16 /* 128 bits: the largest deck (two packs and two jokers) fits */
#define NUM_PHASES 3
#define PILE_SHAPES 4
#define PILE_RANKS (NUM_RANKS + 1)
#define NUM_FLAGS 4
#define ACTION_BYTES 5 /* per action: pile shape, size, low rank (a joker below the 3: 0),
                        * high rank, unsuited */
#define NOT_A_PILE 0xFF /* the pile shape of an action that never makes a pile (pass, give) */
#define ONE_DECK ((UINT64_C(1) << CARDS_PER_DECK) - 1)
#define SUIT_NIBBLE ((1u << NUM_SUITS) - 1)

/* the state attributes read (their names interned once, in attr_names) */
enum {
    A_HANDS, A_PLAYED, A_UNSUITED, A_PILE, A_PILE_CARDS, A_GAVE, A_RECEIVED,
    A_PASSED, A_ACTIVE, A_PLACES, A_TITLES, A_SCORES, A_ORDER, A_LAST_PLAYER,
    A_REVOLUTION, A_JACK_BACK, A_LOCK, A_ROUND, A_PHASE, A_PENDING, A_CURRENT_PLAYER,
    A_TERMINAL, NUM_ATTRS
};
static const char *attr_texts[NUM_ATTRS] = {
    "hands", "played", "unsuited", "pile", "pile_cards", "gave", "received",
    "passed", "active", "places", "titles", "scores", "order", "last_player",
    "revolution", "jack_back", "lock", "round", "phase", "pending", "current_player",
    "terminal"};
static PyObject *attr_names[NUM_ATTRS];
_Static_assert(NUM_ATTRS <= MAX_STATE_ATTRS, "StateSlots holds MAX_STATE_ATTRS attributes");
/* the methods called, interned once */
static PyObject *s_copy, *s_legal_ids;

/* the fields the writer writes, in the order of the spec's "fields" and of Writer.at */
enum {
    F_HAND, F_PLAYED, F_PILE_CARDS, F_GAVE, F_RECEIVED, F_HAND_COUNTS, F_PILE_SHAPE,
    F_PILE_SIZE, F_PILE_LOW, F_PILE_HIGH, F_PILE_OWNER, F_PASSED, F_ACTIVE, F_PLACES, F_TITLES,
    F_FLAGS, F_LOCK_SUITS, F_TO_GIVE, F_ROUND, F_ROUNDS_LEFT, F_SCORES, F_PHASE, F_TO_MOVE,
    F_PLAYED_RANKS, F_PILE_RANKS, NUM_FIELDS
};
static const char *field_names[NUM_FIELDS] = {
    "hand", "played", "pile_cards", "gave", "received", "hand_counts", "pile_shape",
    "pile_size", "pile_low", "pile_high", "pile_owner", "passed", "active", "places", "titles",
    "flags", "lock_suits", "to_give", "round", "rounds_left", "scores", "phase", "to_move",
    "played_ranks", "pile_ranks"};

typedef struct {
    uint64_t lo, hi;
} Mask;

typedef struct {
    PyObject_HEAD
    PyObject *template; /* bytes: the float32 vector of the table's fields, zeros elsewhere */
    PyObject *actions;  /* bytes: ACTION_BYTES per action id */
    Py_ssize_t size, num_actions;
    Py_ssize_t at[NUM_FIELDS];
    int players, rows, decks, real, has_unsuited, last_round;
    Mask full;          /* every card of the deck */
    Mask real_cards;    /* every card but the jokers */
    uint64_t joker_bits; /* the jokers, counted from the first joker's bit */
    double score_scale;
    StateSlots slots; /* where each attribute lies in the states of the class last read */
} Writer;

typedef struct {
    SEAT_HEAD
    Writer *writer;
    PyObject *no_moves; /* a zeroed int8 array of one slot per action (NULL: no masks) */
} SeatWriter;

static PyTypeObject SeatWriterType;

/* -- bits -------------------------------------------------------------------------------- */

/* the bits set (inline: no popcount instruction is assumed of the build's target) */
static int popcount64(uint64_t x)
{
    x = x - (x >> 1 & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + (x >> 2 & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (int)(x * UINT64_C(0x0101010101010101) >> 56);
}

static int lowest_bit(uint64_t x) /* x != 0 */
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* the low 64 bits of m >> k (0 <= k < 128) */
static uint64_t shifted(Mask m, int k)
{
    if (k == 0)
        return m.lo;
    if (k < 64)
        return m.lo >> k | m.hi << (64 - k);
    return m.hi >> (k - 64);
}

/* the cards of the first and of the second pack, one bit per (rank, suit); past the first
 * pack of a one-pack deck lie its jokers, not a second pack */
static uint64_t first_pack(Mask m) { return m.lo & ONE_DECK; }
static uint64_t second_pack(Mask m) { return shifted(m, CARDS_PER_DECK) & ONE_DECK; }

/* -- reading the state ------------------------------------------------------------------- */

/* a card mask of the deck into m; what is not one (a negative int, a card past the deck)
 * is a ValueError naming the attribute */
static int read_mask(Writer *w, PyObject *value, PyObject *name, Mask *m)
{
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "state.%U must hold int card masks, got %.100s", name,
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    unsigned char bytes[MASK_BYTES];
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t need = PyLong_AsNativeBytes(value, bytes, MASK_BYTES,
                                           Py_ASNATIVEBYTES_LITTLE_ENDIAN |
                                               Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
                                               Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    int bad = need < 0 || need > MASK_BYTES;
#else
    int sign = _PyLong_Sign(value);
    if (sign >= 0 && _PyLong_NumBits(value) <= 64) { /* one pack's masks: no byte copy */
        m->lo = PyLong_AsUnsignedLongLongMask(value);
        m->hi = 0;
        if (!(m->lo & ~w->full.lo))
            return 0;
        PyErr_Format(PyExc_ValueError, "state.%U holds a card mask outside the deck: %R", name,
                     value);
        return -1;
    }
    int bad = _PyLong_AsByteArray((PyLongObject *)value, bytes, MASK_BYTES, 1, 0) < 0;
#endif
    if (!bad) {
        m->lo = m->hi = 0;
        for (int i = 7; i >= 0; i--) {
            m->lo = m->lo << 8 | bytes[i];
            m->hi = m->hi << 8 | bytes[8 + i];
        }
        bad = (m->lo & ~w->full.lo) || (m->hi & ~w->full.hi);
    }
    if (bad) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "state.%U holds a card mask outside the deck: %R", name,
                     value);
        return -1;
    }
    return 0;
}

/* attribute a of the state (a new reference), or NULL with an error */
static PyObject *get_attr(Writer *w, PyObject *state, int a)
{
    return slots_get(&w->slots, attr_names, state, a);
}

static int attr_long(Writer *w, PyObject *state, int a, long *out)
{
    return slots_long(&w->slots, attr_names, state, a, out);
}

static int attr_bool(Writer *w, PyObject *state, int a, int *out)
{
    PyObject *value = get_attr(w, state, a);
    if (value == NULL)
        return -1;
    *out = PyObject_IsTrue(value);
    Py_DECREF(value);
    return *out < 0 ? -1 : 0;
}

static int attr_mask(Writer *w, PyObject *state, int a, Mask *m)
{
    PyObject *value = get_attr(w, state, a);
    if (value == NULL)
        return -1;
    int rc = read_mask(w, value, attr_names[a], m);
    Py_DECREF(value);
    return rc;
}

/* a list or tuple attribute of `count` entries (a new reference), or NULL with an error */
static PyObject *attr_seats(Writer *w, PyObject *state, int a, int count)
{
    PyObject *value = get_attr(w, state, a);
    if (value == NULL)
        return NULL;
    if (!(PyList_Check(value) || PyTuple_Check(value)) ||
        PySequence_Fast_GET_SIZE(value) != count) {
        PyErr_Format(PyExc_ValueError, "state.%U must be a list of %d entries", attr_names[a],
                     count);
        Py_DECREF(value);
        return NULL;
    }
    return value;
}

/* entry i of a list or tuple as a long in lo..hi, else a ValueError naming the attribute */
static int item_in(PyObject *seq, PyObject *name, Py_ssize_t i, long lo, long hi, long *out)
{
    *out = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    if (*out == -1 && PyErr_Occurred())
        return -1;
    if (*out < lo || *out > hi) {
        PyErr_Format(PyExc_ValueError, "state.%U[%zd] is %ld, outside %ld..%ld", name, i, *out,
                     lo, hi);
        return -1;
    }
    return 0;
}

static int check_in(const char *what, long value, long lo, long hi)
{
    if (value < lo || value > hi) {
        PyErr_Format(PyExc_ValueError, "state.%s is %ld, outside %ld..%ld", what, value, lo, hi);
        return -1;
    }
    return 0;
}

/* -- writing ----------------------------------------------------------------------------- */

/* a card field from zeros: each (rank, suit) slot the copies held, then the jokers */
static void card_field(Writer *w, float *field, Mask m)
{
    for (uint64_t bits = first_pack(m); bits; bits &= bits - 1)
        field[lowest_bit(bits)] += 1.0f;
    if (w->decks > 1)
        for (uint64_t bits = second_pack(m); bits; bits &= bits - 1)
            field[lowest_bit(bits)] += 1.0f;
    field[CARDS_PER_DECK] = (float)popcount64(shifted(m, w->real) & w->joker_bits);
}

/* the real cards of m per rank, both packs (deck.rank_counts) */
static void rank_field(Writer *w, float *field, Mask m)
{
    uint64_t packs[MAX_DECKS] = {first_pack(m), w->decks > 1 ? second_pack(m) : 0};
    for (int r = 0; r < NUM_RANKS; r++) {
        int shift = r * NUM_SUITS;
        field[r] = (float)(popcount64(packs[0] >> shift & SUIT_NIBBLE) +
                           popcount64(packs[1] >> shift & SUIT_NIBBLE));
    }
}

static Mask mask_and_not(Mask a, Mask b) { return (Mask){a.lo & ~b.lo, a.hi & ~b.hi}; }

/* The from-scratch write of observation.observe: the template's table fields, then every
 * field the state sets. */
static int write_fields(Writer *w, float *obs, PyObject *state, int seat)
{
    int players = w->players, rows = w->rows;
    const Py_ssize_t *at = w->at;
    int rc = -1;
    long pile, last_player, passed, active, lock, round, phase, mover;
    int revolution, jack_back;
    long position[MAX_PLAYERS], order[MAX_PLAYERS];
    Mask hand, played, unsuited, pile_cards, gave, received;
    PyObject *hands = NULL, *places = NULL, *titles = NULL, *scores = NULL, *order_seq = NULL,
             *gave_list = NULL, *received_list = NULL, *pending = NULL;

    if (seat < 0 || seat >= players) {
        PyErr_Format(PyExc_ValueError, "seat %d is outside 0..%d", seat, players - 1);
        return -1;
    }
    if (Py_TYPE(state) != (PyTypeObject *)w->slots.type)
        slots_learn(&w->slots, attr_names, NUM_ATTRS, Py_TYPE(state));
    if (attr_long(w, state, A_PILE, &pile) || attr_long(w, state, A_LAST_PLAYER, &last_player) ||
        attr_long(w, state, A_PASSED, &passed) || attr_long(w, state, A_ACTIVE, &active) ||
        attr_long(w, state, A_LOCK, &lock) || attr_long(w, state, A_ROUND, &round) ||
        attr_long(w, state, A_PHASE, &phase) || attr_long(w, state, A_CURRENT_PLAYER, &mover) ||
        attr_bool(w, state, A_REVOLUTION, &revolution) ||
        attr_bool(w, state, A_JACK_BACK, &jack_back))
        return -1;
    if (check_in("pile", pile, -1, (long)w->num_actions - 1) ||
        (pile >= 0 && check_in("last_player", last_player, 0, players - 1)) ||
        check_in("passed", passed, 0, (1L << players) - 1) ||
        check_in("active", active, 0, (1L << players) - 1) ||
        check_in("lock", lock, 0, (1L << NUM_SUITS) - 1) || check_in("round", round, 0, LONG_MAX) ||
        check_in("phase", phase, 0, NUM_PHASES - 1) ||
        check_in("current_player", mover, -1, players - 1))
        return -1;

    /* the turn order: each seat's row is its distance after this seat */
    if ((order_seq = attr_seats(w, state, A_ORDER, players)) == NULL)
        goto done;
    for (int s = 0; s < players; s++)
        position[s] = -1;
    for (int i = 0; i < players; i++) {
        if (item_in(order_seq, attr_names[A_ORDER], i, 0, players - 1, &order[i]))
            goto done;
        if (position[order[i]] >= 0) {
            PyErr_Format(PyExc_ValueError, "state.order names seat %ld twice", order[i]);
            goto done;
        }
        position[order[i]] = i;
    }
    long at_seat = position[seat];
#define ROW(s) ((position[s] - at_seat + players) % players)

    /* the card fields (an unsuited play's real cards are public by rank only) */
    const unsigned char *action =
        pile >= 0 ? (const unsigned char *)PyBytes_AS_STRING(w->actions) + pile * ACTION_BYTES
                  : NULL;
    if (action != NULL && action[0] == NOT_A_PILE) {
        PyErr_Format(PyExc_ValueError, "state.pile is %ld, an action that is not a play", pile);
        goto done;
    }
    int unsuited_pile = w->has_unsuited && action != NULL && action[4];
    if ((hands = attr_seats(w, state, A_HANDS, players)) == NULL ||
        (gave_list = attr_seats(w, state, A_GAVE, players)) == NULL ||
        (received_list = attr_seats(w, state, A_RECEIVED, players)) == NULL ||
        read_mask(w, PySequence_Fast_GET_ITEM(hands, seat), attr_names[A_HANDS], &hand) ||
        read_mask(w, PySequence_Fast_GET_ITEM(gave_list, seat), attr_names[A_GAVE], &gave) ||
        read_mask(w, PySequence_Fast_GET_ITEM(received_list, seat), attr_names[A_RECEIVED],
                  &received) ||
        attr_mask(w, state, A_PLAYED, &played) || attr_mask(w, state, A_UNSUITED, &unsuited) ||
        attr_mask(w, state, A_PILE_CARDS, &pile_cards))
        goto done;
    memcpy(obs, PyBytes_AS_STRING(w->template), (size_t)w->size * sizeof(float));
    card_field(w, obs + at[F_HAND], hand);
    card_field(w, obs + at[F_PLAYED], mask_and_not(played, unsuited));
    Mask shown = unsuited_pile ? mask_and_not(pile_cards, w->real_cards) : pile_cards;
    card_field(w, obs + at[F_PILE_CARDS], shown);
    card_field(w, obs + at[F_GAVE], gave);
    card_field(w, obs + at[F_RECEIVED], received);

    /* the per-seat fields, by row */
    if ((places = attr_seats(w, state, A_PLACES, players)) == NULL ||
        (titles = attr_seats(w, state, A_TITLES, players)) == NULL ||
        (scores = attr_seats(w, state, A_SCORES, players)) == NULL)
        goto done;
    for (int s = 0; s < players; s++) {
        long row = ROW(s), place, title;
        Mask held;
        PyObject *points = PySequence_Fast_GET_ITEM(scores, s);
        double value = PyLong_Check(points) ? PyLong_AsDouble(points) : PyFloat_AsDouble(points);
        if ((value == -1.0 && PyErr_Occurred()) ||
            read_mask(w, PySequence_Fast_GET_ITEM(hands, s), attr_names[A_HANDS], &held) ||
            item_in(places, attr_names[A_PLACES], s, -1, players - 1, &place) ||
            item_in(titles, attr_names[A_TITLES], s, -1, players - 1, &title))
            goto done;
        obs[at[F_HAND_COUNTS] + row] = (float)(popcount64(held.lo) + popcount64(held.hi));
        obs[at[F_SCORES] + row] = (float)(value * w->score_scale);
        if (passed >> s & 1)
            obs[at[F_PASSED] + row] = 1.0f;
        if (active >> s & 1)
            obs[at[F_ACTIVE] + row] = 1.0f;
        if (place >= 0)
            obs[at[F_PLACES] + row * rows + place] = 1.0f;
        if (title >= 0)
            obs[at[F_TITLES] + row * rows + title] = 1.0f;
    }

    /* the real cards of unsuited plays, by rank */
    if (w->has_unsuited) {
        rank_field(w, obs + at[F_PLAYED_RANKS], unsuited);
        if (unsuited_pile)
            rank_field(w, obs + at[F_PILE_RANKS], pile_cards);
    }

    /* the pile */
    if (action != NULL) {
        obs[at[F_PILE_SHAPE] + action[0]] = 1.0f;
        obs[at[F_PILE_SIZE]] = (float)action[1];
        obs[at[F_PILE_LOW] + action[2]] = 1.0f;
        obs[at[F_PILE_HIGH] + action[3]] = 1.0f;
        obs[at[F_PILE_OWNER] + ROW(last_player)] = 1.0f;
    } else {
        obs[at[F_PILE_SHAPE]] = 1.0f;
    }

    /* the flags and the locked suits */
    float *flags = obs + at[F_FLAGS];
    flags[0] = (float)revolution;
    flags[1] = (float)jack_back;
    flags[2] = (float)(revolution != jack_back);
    flags[3] = (float)(lock != 0);
    for (int suit = 0; suit < NUM_SUITS; suit++)
        if (lock >> suit & 1)
            obs[at[F_LOCK_SUITS] + suit] = 1.0f;

    /* the turn: cards still to give, the round, the phase, the seat to move */
    long to_give = 0;
    if ((pending = get_attr(w, state, A_PENDING)) == NULL)
        goto done;
    if (!PyList_Check(pending)) {
        PyErr_SetString(PyExc_ValueError, "state.pending must be a list");
        goto done;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pending); i++) {
        PyObject *entry = PyList_GET_ITEM(pending, i);
        long receiver, count;
        if (!(PyList_Check(entry) || PyTuple_Check(entry)) ||
            PySequence_Fast_GET_SIZE(entry) != 3) {
            PyErr_SetString(PyExc_ValueError,
                            "state.pending entries must be [receiver, giver, count]");
            goto done;
        }
        receiver = PyLong_AsLong(PySequence_Fast_GET_ITEM(entry, 0));
        count = PyLong_AsLong(PySequence_Fast_GET_ITEM(entry, 2));
        if ((receiver == -1 || count == -1) && PyErr_Occurred())
            goto done;
        if (receiver < 0 || receiver >= players) {
            PyErr_Format(PyExc_ValueError, "state.pending[%zd] names seat %ld, outside 0..%d",
                         i, receiver, players - 1);
            goto done;
        }
        if (count < 0) {
            PyErr_Format(PyExc_ValueError, "state.pending[%zd] gives %ld cards", i, count);
            goto done;
        }
        if (receiver == seat)
            to_give += count;
    }
    long current = round < w->last_round ? round : w->last_round;
    obs[at[F_TO_GIVE]] = (float)to_give;
    obs[at[F_ROUND]] = (float)current;
    obs[at[F_ROUNDS_LEFT]] = (float)(w->last_round - current);
    obs[at[F_PHASE] + phase] = 1.0f;
    if (mover >= 0)
        obs[at[F_TO_MOVE] + ROW(mover)] = 1.0f;
#undef ROW
    rc = 0;
done:
    Py_XDECREF(hands);
    Py_XDECREF(places);
    Py_XDECREF(titles);
    Py_XDECREF(scores);
    Py_XDECREF(order_seq);
    Py_XDECREF(gave_list);
    Py_XDECREF(received_list);
    Py_XDECREF(pending);
    return rc;
}

/* -- Writer ------------------------------------------------------------------------------- */

/* the width each field must have: the C writer's own view of the layout, checked against
 * the Python writer's */
static Py_ssize_t field_width(int field, int rows)
{
    switch (field) {
    case F_HAND: case F_PLAYED: case F_PILE_CARDS: case F_GAVE: case F_RECEIVED:
        return CARD_SLOTS;
    case F_HAND_COUNTS: case F_PILE_OWNER: case F_PASSED: case F_ACTIVE: case F_SCORES:
    case F_TO_MOVE:
        return rows;
    case F_PLACES: case F_TITLES:
        return (Py_ssize_t)rows * rows;
    case F_PILE_SHAPE:
        return PILE_SHAPES;
    case F_PILE_LOW: case F_PILE_HIGH:
        return PILE_RANKS;
    case F_FLAGS:
        return NUM_FLAGS;
    case F_LOCK_SUITS:
        return NUM_SUITS;
    case F_PHASE:
        return NUM_PHASES;
    case F_PLAYED_RANKS: case F_PILE_RANKS:
        return NUM_RANKS;
    default:
        return 1;
    }
}

static int Writer_init(Writer *self, PyObject *args, PyObject *kwds)
{
    PyObject *spec;
    if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &spec))
        return -1;
    long size, num_actions, jokers;
    if (spec_long(spec, "size", 1, PY_SSIZE_T_MAX / 4, &size) ||
        spec_long(spec, "num_actions", 1, PY_SSIZE_T_MAX / ACTION_BYTES, &num_actions) ||
        spec_int(spec, "players", 1, MAX_PLAYERS, &self->players) ||
        spec_int(spec, "rows", self->players, MAX_PLAYERS, &self->rows) ||
        spec_int(spec, "decks", 1, MAX_DECKS, &self->decks) ||
        spec_long(spec, "jokers", 0, MASK_BYTES * 8 - MAX_DECKS * CARDS_PER_DECK, &jokers) ||
        spec_int(spec, "has_unsuited", 0, 1, &self->has_unsuited) ||
        spec_int(spec, "last_round", 0, INT_MAX, &self->last_round))
        return -1;
    self->size = size;
    self->num_actions = num_actions;
    self->real = self->decks * CARDS_PER_DECK;
    self->joker_bits = (UINT64_C(1) << jokers) - 1;
    int deck_size = self->real + (int)jokers;
    self->full.lo = deck_size >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << deck_size) - 1;
    self->full.hi = deck_size <= 64 ? 0 : (UINT64_C(1) << (deck_size - 64)) - 1;
    self->real_cards.lo = self->real >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << self->real) - 1;
    self->real_cards.hi = self->real <= 64 ? 0 : (UINT64_C(1) << (self->real - 64)) - 1;
    long facts[][2] = {{CARDS_PER_DECK, 0}, {NUM_SUITS, 0}, {NUM_RANKS, 0}};
    const char *fact_names[] = {"cards_per_deck", "num_suits", "num_ranks"};
    for (int i = 0; i < 3; i++) {
        if (spec_long(spec, fact_names[i], facts[i][0], facts[i][0], &facts[i][1]))
            return -1;
    }
    PyObject *scale = PyDict_GetItemString(spec, "score_scale");
    if (scale == NULL || !PyFloat_Check(scale)) {
        PyErr_SetString(PyExc_ValueError, "writer spec score_scale must be a float");
        return -1;
    }
    self->score_scale = PyFloat_AS_DOUBLE(scale);
    PyObject *fields = PyDict_GetItemString(spec, "fields");
    if (fields == NULL || !PyDict_Check(fields)) {
        PyErr_SetString(PyExc_ValueError, "writer spec fields must be a dict");
        return -1;
    }
    for (int f = 0; f < NUM_FIELDS; f++) {
        PyObject *slot = PyDict_GetItemString(fields, field_names[f]);
        Py_ssize_t start, width;
        if (slot == NULL || !PyArg_ParseTuple(slot, "nn", &start, &width)) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "writer spec fields lacks %s as (start, width)",
                         field_names[f]);
            return -1;
        }
        if (width != field_width(f, self->rows) || start < 0 || start + width > size) {
            PyErr_Format(PyExc_ValueError,
                         "writer spec field %s at %zd of %zd entries does not fit the C writer "
                         "(%zd entries, in a vector of %ld)",
                         field_names[f], start, width, field_width(f, self->rows), size);
            return -1;
        }
        self->at[f] = start;
    }
    PyObject *template = spec_bytes(spec, "template", size * (Py_ssize_t)sizeof(float));
    if (template == NULL)
        return -1;
    Py_XSETREF(self->template, template);
    PyObject *actions = spec_bytes(spec, "actions", num_actions * ACTION_BYTES);
    if (actions == NULL)
        return -1;
    const unsigned char *a = (const unsigned char *)PyBytes_AS_STRING(actions);
    for (Py_ssize_t i = 0; i < num_actions; i++, a += ACTION_BYTES) {
        if ((a[0] >= PILE_SHAPES && a[0] != NOT_A_PILE) || a[2] >= PILE_RANKS ||
            a[3] >= PILE_RANKS || a[4] > 1) {
            PyErr_Format(PyExc_ValueError, "writer spec actions: action %zd out of range", i);
            Py_DECREF(actions);
            return -1;
        }
    }
    Py_XSETREF(self->actions, actions);
    return 0;
}

static void Writer_dealloc(Writer *self)
{
    Py_XDECREF(self->slots.type);
    Py_XDECREF(self->template);
    Py_XDECREF(self->actions);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ready(Writer *w)
{
    if (w->template == NULL || w->actions == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Writer was not initialised");
        return -1;
    }
    return 0;
}

static PyObject *Writer_write(Writer *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "write(state, seat, out) takes 3 arguments");
        return NULL;
    }
    long seat = PyLong_AsLong(args[1]);
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    if (seat < INT_MIN || seat > INT_MAX)
        seat = -1;
    Py_buffer view;
    if (ready(self) || get_float_buffer(args[2], self->size, &view))
        return NULL;
    int rc = write_fields(self, (float *)view.buf, args[0], (int)seat);
    PyBuffer_Release(&view);
    if (rc)
        return NULL;
    Py_INCREF(args[2]);
    return args[2];
}

static int get_mask_buffer(Writer *w, PyObject *mask, Py_buffer *view);

static PyObject *Writer_observer(Writer *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 && nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "observer(seat, out[, no_moves]) takes 2 or 3 "
                                         "arguments");
        return NULL;
    }
    long seat = PyLong_AsLong(args[0]);
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    if (ready(self))
        return NULL;
    if (seat < 0 || seat >= self->players) {
        PyErr_Format(PyExc_ValueError, "seat %ld is outside 0..%d", seat, self->players - 1);
        return NULL;
    }
    SeatWriter *obs = (SeatWriter *)seat_new(&SeatWriterType, args[1], self->size, (int)seat);
    if (obs == NULL)
        return NULL;
    if (nargs == 3) {
        Py_buffer mask;
        if (get_mask_buffer(self, args[2], &mask)) {
            Py_DECREF(obs);
            return NULL;
        }
        PyBuffer_Release(&mask);
        Py_INCREF(args[2]);
        obs->no_moves = args[2];
    }
    Py_INCREF(self);
    obs->writer = self;
    return (PyObject *)obs;
}

static PyMethodDef Writer_methods[] = {WRITER_METHODS(Writer_write, Writer_observer), {NULL}};

static PyTypeObject WriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "climbrl.envs.daifugo._fast.Writer",
    .tp_basicsize = sizeof(Writer),
    .tp_doc = "Writer(spec): the Daifugo / President / UECda observation writer of one game "
              "(climbrl.envs.daifugo.compiled.writer_spec)",
    WRITER_SLOTS(Writer_init, Writer_dealloc, Writer_methods),
};

/* -- SeatWriter --------------------------------------------------------------------------- */

static void SeatWriter_dealloc(SeatWriter *self)
{
    seat_release((SeatHead *)self);
    Py_XDECREF(self->writer);
    Py_XDECREF(self->no_moves);
    PyObject_Free(self);
}

/* a writable int8 buffer of one slot per action, or -1 with a ValueError */
static int get_mask_buffer(Writer *w, PyObject *mask, Py_buffer *view)
{
    if (PyObject_GetBuffer(mask, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->itemsize != 1 || view->format == NULL || strcmp(view->format, "b") != 0 ||
        view->len != w->num_actions) {
        PyErr_Format(PyExc_ValueError, "a mask must be an int8 buffer of %zd entries",
                     w->num_actions);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *SeatWriter_observe(SeatWriter *self, PyObject *state)
{
    if (write_fields(self->writer, (float *)self->view.buf, state, self->seat))
        return NULL;
    Py_INCREF(self->out);
    return self->out;
}

/* the legal ids of the seat to move, set in mask (a new int8 array of one slot per action):
 * the state's own list (state._legal_ids(), read only here: legal_actions() would copy it) */
static int set_moves(Writer *w, PyObject *state, PyObject *mask)
{
    PyObject *ids = PyObject_CallMethodNoArgs(state, s_legal_ids);
    if (ids == NULL)
        return -1;
    int rc = -1;
    Py_buffer view;
    if (!PyList_Check(ids)) {
        PyErr_SetString(PyExc_TypeError, "state._legal_ids() must return a list");
        goto done;
    }
    if (get_mask_buffer(w, mask, &view))
        goto done;
    char *slots = (char *)view.buf;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(ids); i++) {
        Py_ssize_t a = PyLong_AsSsize_t(PyList_GET_ITEM(ids, i));
        if (a == -1 && PyErr_Occurred())
            break;
        if (a < 0 || a >= w->num_actions) {
            PyErr_Format(PyExc_ValueError, "legal action id %zd is outside the catalog", a);
            break;
        }
        slots[a] = 1;
    }
    PyBuffer_Release(&view);
    rc = PyErr_Occurred() ? -1 : 0;
done:
    Py_DECREF(ids);
    return rc;
}

static PyObject *SeatWriter_observation_and_mask(SeatWriter *self, PyObject *state)
{
    Writer *w = self->writer;
    if (self->no_moves == NULL) {
        PyErr_SetString(PyExc_TypeError, "this observer was made without no_moves: no masks");
        return NULL;
    }
    long mover;
    int terminal;
    if (write_fields(w, (float *)self->view.buf, state, self->seat) ||
        attr_long(w, state, A_CURRENT_PLAYER, &mover) ||
        attr_bool(w, state, A_TERMINAL, &terminal))
        return NULL;
    PyObject *observation = PyObject_CallMethodNoArgs(self->out, s_copy);
    if (observation == NULL)
        return NULL;
    PyObject *mask = PyObject_CallMethodNoArgs(self->no_moves, s_copy);
    if (mask == NULL || (mover == self->seat && !terminal && set_moves(w, state, mask))) {
        Py_DECREF(observation);
        Py_XDECREF(mask);
        return NULL;
    }
    PyObject *pair = PyTuple_Pack(2, observation, mask);
    Py_DECREF(observation);
    Py_DECREF(mask);
    return pair;
}

static PyMethodDef SeatWriter_methods[] = {
    SEAT_OBSERVE_METHOD(SeatWriter_observe),
    {"observation_and_mask", (PyCFunction)SeatWriter_observation_and_mask, METH_O,
     "observation_and_mask(state): (a copy of this seat's observation of state, a new int8 "
     "mask of its legal moves, empty when it is not its turn), both the caller's own"},
    {NULL}};

static PyTypeObject SeatWriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "climbrl.envs.daifugo._fast.SeatWriter",
    .tp_basicsize = sizeof(SeatWriter),
    SEAT_WRITER_SLOTS(SeatWriter_dealloc, SeatWriter_methods),
};

/* -- module ------------------------------------------------------------------------------- */

static struct PyModuleDef fast_module =
    FAST_MODULE("The optional compiled core of the Daifugo, President and UECda environments "
                "(climbrl.envs.daifugo.compiled).");

PyMODINIT_FUNC PyInit__fast(void)
{
    if (intern_names(attr_texts, NUM_ATTRS, attr_names) ||
        (s_copy = PyUnicode_InternFromString("copy")) == NULL ||
        (s_legal_ids = PyUnicode_InternFromString("_legal_ids")) == NULL)
        return NULL;
    return writer_module(&fast_module, &WriterType, &SeatWriterType);
}
