/* The optional compiled core of the Dou Dizhu environment: the observation writer (this
 * file) and the engine core of legal plays, apply and observation with mask (_engine.c).
 *
 * climbrl.envs.doudizhu.observation.ObservationWriter (pure Python) is the reference; this
 * module writes the same float32 vector, entry for entry, from the same state attributes,
 * and tests/test_compiled_core.py plays every variant both ways and compares. It is built by
 * the normal pip install (setup.py, an optional extension: where no compiler exists the
 * package installs without it and climbrl.envs.doudizhu.compiled falls back to Python).
 *
 * Writer(spec)              the facts of one game's layout (built by compiled.writer_spec)
 *   .write(state, seat, out)   the observation of seat in state, written from scratch into
 *                              out (a writable float32 buffer of the layout's size)
 *   .observer(seat, out)       a SeatWriter: .observe(state) writes into out and returns it
 *
 * Every index written is checked against the layout's size: a state holding values out of
 * range raises ValueError, never writes outside the buffer.
 */

#include "_fast.h"

#include <limits.h>
#include <string.h>

#include "_compiled.h"

#define MAX_DEPTH 16

/* the state attributes read (their names interned once, in attr_names) */
enum {
    A_HANDS, A_KITTY, A_OUT, A_PLAYED, A_TRICK, A_HISTORY, A_PHASE, A_FIRST_BIDDER, A_LANDLORD,
    A_BIDS, A_CALLER, A_ROBS, A_ROB_SEATS, A_SHOWN, A_WILD, A_PILE, A_PILE_OWNER, A_PILE_SUBS,
    A_BOMBS, NUM_ATTRS
};
static const char *attr_texts[NUM_ATTRS] = {
    "hands", "kitty", "out", "played", "trick", "history", "phase", "first_bidder", "landlord",
    "bids", "caller", "robs", "rob_seats", "shown", "wild", "pile", "pile_owner", "pile_subs",
    "bombs"};
static PyObject *attr_names[NUM_ATTRS];
_Static_assert(NUM_ATTRS <= MAX_STATE_ATTRS, "StateSlots holds MAX_STATE_ATTRS attributes");

struct Writer {
    PyObject_HEAD
    PyObject *card_bytes; /* bytes: NUM_RANKS counts per action id, then one all-zero entry */
    Py_ssize_t num_actions;
    Py_ssize_t size;
    int players, depth, history_length, pass_id, play_phase, classic, open_hand;
    int not_yet, pass_code, rob_passed, rob_called, rob_robbed;
    double largest, max_bombs, max_robs, suits;
    unsigned char full_deck[NUM_RANKS];
    /* field starts (-1: the field is not in this layout) */
    Py_ssize_t at_hand, at_kitty, at_unseen, at_shown_hand, at_played, at_pile, at_trick,
        at_history, at_phase, at_role, at_landlord, at_first_bidder, at_bids, bids_width,
        at_cards_left, at_pile_owner, at_leading, at_trick_pass, at_bombs, at_history_seat,
        at_history_pass, at_robs, at_shown, at_wild, at_pile_wilds;
    Py_ssize_t variant[MAX_PLAYERS];
    int num_variant;
    StateSlots slots; /* where each attribute lies in the states of the class last read */
};

typedef struct {
    SEAT_HEAD
    Writer *writer;
} SeatWriter;

static PyTypeObject SeatWriterType;

/* -- reading the state ------------------------------------------------------------------- */

int packed_bytes(PyObject *value, unsigned char *out)
{
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "packed cards must be an int, got %.100s",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t need = PyLong_AsNativeBytes(value, out, NUM_RANKS,
                                           Py_ASNATIVEBYTES_LITTLE_ENDIAN |
                                               Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
                                               Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    if (need < 0)
        return -1;
    if (need > NUM_RANKS) {
        PyErr_SetString(PyExc_ValueError, "packed cards hold more than 15 ranks");
        return -1;
    }
    return 0;
#else
    return _PyLong_AsByteArray((PyLongObject *)value, out, NUM_RANKS, 1, 0);
#endif
}

int attr_long(PyObject *state, PyObject *name, long *out)
{
    PyObject *value = PyObject_GetAttr(state, name);
    if (value == NULL)
        return -1;
    *out = PyLong_AsLong(value);
    Py_DECREF(value);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

PyObject *packed_int(const unsigned char *counts)
{
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(counts, NUM_RANKS, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(counts, NUM_RANKS, 1, 0);
#endif
}

/* state attribute a (a new reference), at its slot where it has one, or NULL with an error */
static PyObject *w_attr(Writer *w, PyObject *state, int a)
{
    return slots_get(&w->slots, attr_names, state, a);
}

static int w_long(Writer *w, PyObject *state, int a, long *out)
{
    return slots_long(&w->slots, attr_names, state, a, out);
}

static int w_packed(Writer *w, PyObject *state, int a, unsigned char *out)
{
    PyObject *value = w_attr(w, state, a);
    if (value == NULL)
        return -1;
    int rc = packed_bytes(value, out);
    Py_DECREF(value);
    return rc;
}

/* a list attribute of one entry per seat (a new reference), or NULL with an error */
static PyObject *w_seats(Writer *w, PyObject *state, int a)
{
    PyObject *value = w_attr(w, state, a);
    if (value == NULL)
        return NULL;
    if (!PyList_Check(value) || PyList_GET_SIZE(value) != w->players) {
        PyErr_Format(PyExc_ValueError, "state.%U must be a list of %d entries", attr_names[a],
                     w->players);
        Py_DECREF(value);
        return NULL;
    }
    return value;
}

static int item_long(PyObject *list, Py_ssize_t i, long *out)
{
    *out = PyLong_AsLong(PyList_GET_ITEM(list, i));
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* -- writing ----------------------------------------------------------------------------- */

typedef struct {
    float *buf;
    Py_ssize_t size;
} Out;

static int put(Out *o, Py_ssize_t at, float value)
{
    if (at < 0 || at >= o->size) {
        PyErr_Format(PyExc_ValueError,
                     "observation index %zd is outside the layout (a state value out of range)",
                     at);
        return -1;
    }
    o->buf[at] = value;
    return 0;
}

/* the thermometer rows of one card group: row r, column j is 1 when counts[r] > j */
static int thermometer(Writer *w, Out *o, Py_ssize_t at, const unsigned char *counts)
{
    if (at < 0 || at + NUM_RANKS * w->depth > o->size) {
        PyErr_SetString(PyExc_ValueError, "card field outside the layout");
        return -1;
    }
    float *row = o->buf + at;
    for (int r = 0; r < NUM_RANKS; r++, row += w->depth) {
        int n = counts[r];
        if (n > w->depth) {
            PyErr_Format(PyExc_ValueError, "a group holds %d cards of a rank (at most %d)", n,
                         w->depth);
            return -1;
        }
        for (int j = 0; j < n; j++)
            row[j] = 1.0f;
    }
    return 0;
}

/* the NUM_RANKS counts of action id a (-1: no play, all zero) */
static const unsigned char *action_cards(Writer *w, long a)
{
    if (a < -1 || a >= w->num_actions) {
        PyErr_Format(PyExc_ValueError, "action id %ld is outside the catalog", a);
        return NULL;
    }
    Py_ssize_t index = a < 0 ? w->num_actions : a;
    return (const unsigned char *)PyBytes_AS_STRING(w->card_bytes) + index * NUM_RANKS;
}

static int group_action(Writer *w, Out *o, Py_ssize_t at, long a)
{
    const unsigned char *cards = action_cards(w, a);
    return cards == NULL ? -1 : thermometer(w, o, at, cards);
}

static int card_size(const unsigned char *counts)
{
    int n = 0;
    for (int r = 0; r < NUM_RANKS; r++)
        n += counts[r];
    return n;
}

/* Everything but the from-scratch zeroing: the same fields, in the same order, as
 * ObservationWriter.write (card groups, the history and its marks, the scalars). */
static int write_fields(Writer *w, Out *o, PyObject *state, int seat)
{
    int players = w->players;
    int rc = -1;
    long phase, first_bidder, landlord, pile, pile_owner, bombs, shown, wild;
    unsigned char hand[NUM_RANKS], cards[NUM_RANKS], unseen[NUM_RANKS], out_cards[NUM_RANKS];
    unsigned char played[MAX_PLAYERS][NUM_RANKS];
    long trick[MAX_PLAYERS], bids[MAX_PLAYERS];
    int left[MAX_PLAYERS];
    PyObject *hands = NULL, *played_list = NULL, *trick_list = NULL, *bids_list = NULL,
             *history = NULL;

    if (seat < 0 || seat >= players) {
        PyErr_Format(PyExc_ValueError, "seat %d is outside 0..%d", seat, players - 1);
        return -1;
    }
    if (Py_TYPE(state) != (PyTypeObject *)w->slots.type)
        slots_learn(&w->slots, attr_names, NUM_ATTRS, Py_TYPE(state));
    if (w_long(w, state, A_PHASE, &phase) || w_long(w, state, A_FIRST_BIDDER, &first_bidder) ||
        w_long(w, state, A_LANDLORD, &landlord) || w_long(w, state, A_PILE, &pile) ||
        w_long(w, state, A_PILE_OWNER, &pile_owner) || w_long(w, state, A_BOMBS, &bombs) ||
        w_long(w, state, A_SHOWN, &shown) || w_long(w, state, A_WILD, &wild))
        return -1;
    if (landlord >= players || first_bidder < 0 || first_bidder >= players ||
        (pile >= 0 && (pile_owner < 0 || pile_owner >= players))) {
        PyErr_SetString(PyExc_ValueError, "a seat of the state is outside the table");
        return -1;
    }
    if ((hands = w_seats(w, state, A_HANDS)) == NULL ||
        (played_list = w_seats(w, state, A_PLAYED)) == NULL ||
        (trick_list = w_seats(w, state, A_TRICK)) == NULL ||
        (bids_list = w_seats(w, state, A_BIDS)) == NULL)
        goto done;
    for (int s = 0; s < players; s++) {
        if (packed_bytes(PyList_GET_ITEM(played_list, s), played[s]) ||
            item_long(trick_list, s, &trick[s]) || item_long(bids_list, s, &bids[s]) ||
            packed_bytes(PyList_GET_ITEM(hands, s), cards))
            goto done;
        left[s] = card_size(cards);
        if (s == seat)
            memcpy(hand, cards, NUM_RANKS);
    }

    /* the card groups: hand, kitty, unseen, shown hand, played, pile, trick */
    if (thermometer(w, o, w->at_hand, hand))
        goto done;
    if (landlord >= 0) {
        if (w_packed(w, state, A_KITTY, cards) || thermometer(w, o, w->at_kitty, cards))
            goto done;
    }
    if (w_packed(w, state, A_OUT, out_cards))
        goto done;
    for (int r = 0; r < NUM_RANKS; r++) {
        int n = w->full_deck[r] - out_cards[r] - hand[r];
        for (int s = 0; s < players; s++)
            n -= played[s][r];
        if (n < 0) {
            PyErr_SetString(PyExc_ValueError, "the state holds more cards than the deck");
            goto done;
        }
        unseen[r] = (unsigned char)n;
    }
    if (thermometer(w, o, w->at_unseen, unseen))
        goto done;
    if (w->open_hand && shown) {
        if (landlord < 0) {
            PyErr_SetString(PyExc_ValueError, "a hand shown with no landlord");
            goto done;
        }
        if (packed_bytes(PyList_GET_ITEM(hands, landlord), cards) ||
            thermometer(w, o, w->at_shown_hand, cards))
            goto done;
    }
    Py_ssize_t group = NUM_RANKS * w->depth;
    for (int i = 0; i < players; i++) {
        int s = (seat + i) % players;
        if (thermometer(w, o, w->at_played + i * group, played[s]) ||
            group_action(w, o, w->at_trick + i * group, trick[s]))
            goto done;
    }
    if (group_action(w, o, w->at_pile, pile))
        goto done;

    /* the history, most recent first, with its seat and pass marks */
    history = w_attr(w, state, A_HISTORY);
    if (history == NULL)
        goto done;
    if (!PyList_Check(history)) {
        PyErr_SetString(PyExc_TypeError, "state.history must be a list");
        goto done;
    }
    Py_ssize_t length = PyList_GET_SIZE(history);
    for (Py_ssize_t i = 0; i < w->history_length && i < length; i++) {
        PyObject *entry = PyList_GET_ITEM(history, length - 1 - i);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2) {
            PyErr_SetString(PyExc_TypeError, "state.history entries must be (seat, action)");
            goto done;
        }
        long s = PyLong_AsLong(PyTuple_GET_ITEM(entry, 0));
        long a = PyLong_AsLong(PyTuple_GET_ITEM(entry, 1));
        if (PyErr_Occurred())
            goto done;
        if (s < 0 || s >= players) {
            PyErr_Format(PyExc_ValueError, "history seat %ld is outside the table", s);
            goto done;
        }
        if (group_action(w, o, w->at_history + i * group, a) ||
            put(o, w->at_history_seat + i * players + (s - seat + players) % players, 1.0f))
            goto done;
        if (a == w->pass_id && put(o, w->at_history_pass + i, 1.0f))
            goto done;
    }

    /* the scalars (ObservationWriter.scalars) */
    if (put(o, w->at_phase + phase, 1.0f) ||
        put(o, w->at_first_bidder + (first_bidder - seat + players) % players, 1.0f))
        goto done;
    for (int i = 0; i < w->num_variant; i++)
        if (put(o, w->variant[i], 1.0f))
            goto done;
    if (landlord >= 0) {
        if (put(o, w->at_role + (landlord == seat ? 1 : 2), 1.0f) ||
            put(o, w->at_landlord + (landlord - seat + players) % players, 1.0f))
            goto done;
    } else if (put(o, w->at_role, 1.0f)) {
        goto done;
    }
    for (int i = 0; i < players; i++) {
        int s = (seat + i) % players;
        if (put(o, w->at_cards_left + i, (float)(left[s] / w->largest)))
            goto done;
    }
    if (put(o, w->at_bombs, (float)(bombs / w->max_bombs)))
        goto done;
    if (w->classic) {
        for (int i = 0; i < players; i++) {
            long code = bids[(seat + i) % players];
            if (put(o, w->at_bids + i * w->bids_width + code + 1, 1.0f))
                goto done;
        }
    } else {
        long caller, robs, rob_seats;
        if (w_long(w, state, A_CALLER, &caller) || w_long(w, state, A_ROBS, &robs) ||
            w_long(w, state, A_ROB_SEATS, &rob_seats))
            goto done;
        for (int i = 0; i < players; i++) {
            int s = (seat + i) % players;
            Py_ssize_t base = w->at_bids + i * w->bids_width;
            if (bids[s] == w->not_yet) {
                if (put(o, base, 1.0f))
                    goto done;
                continue;
            }
            if ((bids[s] == w->pass_code && put(o, base + w->rob_passed, 1.0f)) ||
                (s == caller && put(o, base + w->rob_called, 1.0f)) ||
                ((rob_seats >> s & 1) && put(o, base + w->rob_robbed, 1.0f)))
                goto done;
        }
        if (put(o, w->at_robs, (float)(robs / w->max_robs)))
            goto done;
    }
    if (pile >= 0) {
        if (put(o, w->at_pile_owner + (pile_owner - seat + players) % players, 1.0f))
            goto done;
    } else if (phase == w->play_phase && put(o, w->at_leading, 1.0f)) {
        goto done;
    }
    for (int i = 0; i < players; i++)
        if (trick[(seat + i) % players] == w->pass_id && put(o, w->at_trick_pass + i, 1.0f))
            goto done;
    if (shown && put(o, w->at_shown, 1.0f))
        goto done;
    if (wild >= 0) {
        long subs;
        if (w_long(w, state, A_PILE_SUBS, &subs) || put(o, w->at_wild + wild, 1.0f) ||
            put(o, w->at_pile_wilds, (float)(subs / w->suits)))
            goto done;
    }
    rc = 0;
done:
    Py_XDECREF(hands);
    Py_XDECREF(played_list);
    Py_XDECREF(trick_list);
    Py_XDECREF(bids_list);
    Py_XDECREF(history);
    return rc;
}

int writer_fill(Writer *w, float *buf, PyObject *state, int seat)
{
    Out o = {buf, w->size};
    memset(o.buf, 0, (size_t)w->size * sizeof(float));
    return write_fields(w, &o, state, seat);
}

Py_ssize_t writer_size(Writer *w) { return w->size; }

static int write_into(Writer *w, Py_buffer *view, PyObject *state, int seat)
{
    return writer_fill(w, (float *)view->buf, state, seat);
}

/* -- Writer ------------------------------------------------------------------------------- */

/* spec[key] as a field start or a size (-1: not in this layout) */
static int spec_at(PyObject *spec, const char *key, Py_ssize_t *out)
{
    long value;
    if (spec_long(spec, key, LONG_MIN, LONG_MAX, &value))
        return -1;
    *out = value;
    return 0;
}

/* spec[key] as an int (the C writer's own checks of its range follow) */
static int spec_any_int(PyObject *spec, const char *key, int *out)
{
    return spec_int(spec, key, INT_MIN, INT_MAX, out);
}

static int spec_double(PyObject *spec, const char *key, double *out)
{
    long value;
    if (spec_long(spec, key, LONG_MIN, LONG_MAX, &value))
        return -1;
    if (value <= 0) {
        PyErr_Format(PyExc_ValueError, "writer spec %s must be > 0", key);
        return -1;
    }
    *out = (double)value;
    return 0;
}

static int Writer_init(Writer *self, PyObject *args, PyObject *kwds)
{
    PyObject *spec;
    if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &spec))
        return -1;
    static const char *ats[] = {
        "hand", "kitty", "unseen", "shown_hand", "played", "pile", "trick", "history", "phase",
        "role", "landlord", "first_bidder", "bids", "bids_width", "cards_left", "pile_owner",
        "leading", "trick_pass", "bombs", "history_seat", "history_pass", "robs", "shown",
        "wild", "pile_wilds"};
    Py_ssize_t *fields[] = {
        &self->at_hand, &self->at_kitty, &self->at_unseen, &self->at_shown_hand,
        &self->at_played, &self->at_pile, &self->at_trick, &self->at_history, &self->at_phase,
        &self->at_role, &self->at_landlord, &self->at_first_bidder, &self->at_bids,
        &self->bids_width, &self->at_cards_left, &self->at_pile_owner, &self->at_leading,
        &self->at_trick_pass, &self->at_bombs, &self->at_history_seat, &self->at_history_pass,
        &self->at_robs, &self->at_shown, &self->at_wild, &self->at_pile_wilds};
    for (size_t i = 0; i < sizeof(ats) / sizeof(ats[0]); i++)
        if (spec_at(spec, ats[i], fields[i]))
            return -1;
    if (spec_at(spec, "size", &self->size) || spec_at(spec, "num_actions", &self->num_actions) ||
        spec_any_int(spec, "players", &self->players) ||
        spec_any_int(spec, "depth", &self->depth) ||
        spec_any_int(spec, "history_length", &self->history_length) ||
        spec_any_int(spec, "pass_id", &self->pass_id) ||
        spec_any_int(spec, "play_phase", &self->play_phase) ||
        spec_any_int(spec, "classic", &self->classic) ||
        spec_any_int(spec, "open_hand", &self->open_hand) ||
        spec_any_int(spec, "not_yet", &self->not_yet) ||
        spec_any_int(spec, "pass_code", &self->pass_code) ||
        spec_any_int(spec, "rob_passed", &self->rob_passed) ||
        spec_any_int(spec, "rob_called", &self->rob_called) ||
        spec_any_int(spec, "rob_robbed", &self->rob_robbed) ||
        spec_double(spec, "largest", &self->largest) ||
        spec_double(spec, "max_bombs", &self->max_bombs) ||
        spec_double(spec, "suits", &self->suits))
        return -1;
    /* the classic bidding has no robs field: its count is never divided */
    long max_robs;
    if (spec_long(spec, "max_robs", LONG_MIN, LONG_MAX, &max_robs))
        return -1;
    self->max_robs = max_robs > 0 ? (double)max_robs : 1.0;
    if (self->players < 1 || self->players > MAX_PLAYERS || self->depth < 1 ||
        self->depth > MAX_DEPTH || self->size < 1) {
        PyErr_SetString(PyExc_ValueError, "writer spec out of range");
        return -1;
    }
    PyObject *deck = PyDict_GetItemString(spec, "full_deck");
    if (deck == NULL) {
        PyErr_SetString(PyExc_KeyError, "writer spec lacks full_deck");
        return -1;
    }
    if (packed_bytes(deck, self->full_deck))
        return -1;
    /* NUM_RANKS counts per action id, then the all-zero counts of no play */
    PyObject *cards = spec_bytes(spec, "card_bytes", (self->num_actions + 1) * NUM_RANKS);
    if (cards == NULL)
        return -1;
    Py_XSETREF(self->card_bytes, cards);
    PyObject *variant = PyDict_GetItemString(spec, "variant");
    if (variant == NULL || !PyTuple_Check(variant) || PyTuple_GET_SIZE(variant) > MAX_PLAYERS) {
        PyErr_SetString(PyExc_ValueError, "writer spec variant must be a short tuple");
        return -1;
    }
    self->num_variant = (int)PyTuple_GET_SIZE(variant);
    for (int i = 0; i < self->num_variant; i++) {
        self->variant[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(variant, i));
        if (self->variant[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

static void Writer_dealloc(Writer *self)
{
    Py_XDECREF(self->card_bytes);
    Py_XDECREF(self->slots.type);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ready(Writer *w)
{
    if (w->card_bytes == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Writer was not initialised");
        return -1;
    }
    return 0;
}

/* the opening of write() and observer(): nargs must be want (usage names the call), and
 * args[seat_at] a seat of the table */
static int seat_call(Writer *self, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want,
                     Py_ssize_t seat_at, const char *usage, int *seat)
{
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arguments", usage, want);
        return -1;
    }
    long value = PyLong_AsLong(args[seat_at]);
    if ((value == -1 && PyErr_Occurred()) || ready(self))
        return -1;
    if (value < 0 || value >= self->players) {
        PyErr_Format(PyExc_ValueError, "seat %ld is outside 0..%d", value, self->players - 1);
        return -1;
    }
    *seat = (int)value;
    return 0;
}

static PyObject *Writer_write(Writer *self, PyObject *const *args, Py_ssize_t nargs)
{
    int seat;
    Py_buffer view;
    if (seat_call(self, args, nargs, 3, 1, "write(state, seat, out)", &seat) ||
        get_float_buffer(args[2], self->size, &view))
        return NULL;
    int rc = write_into(self, &view, args[0], seat);
    PyBuffer_Release(&view);
    if (rc)
        return NULL;
    Py_INCREF(args[2]);
    return args[2];
}

static PyObject *Writer_observer(Writer *self, PyObject *const *args, Py_ssize_t nargs)
{
    int seat;
    if (seat_call(self, args, nargs, 2, 0, "observer(seat, out)", &seat))
        return NULL;
    SeatWriter *obs = (SeatWriter *)seat_new(&SeatWriterType, args[1], self->size, seat);
    if (obs == NULL)
        return NULL;
    Py_INCREF(self);
    obs->writer = self;
    return (PyObject *)obs;
}

static PyMethodDef Writer_methods[] = {WRITER_METHODS(Writer_write, Writer_observer), {NULL}};

PyTypeObject WriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "climbrl.envs.doudizhu._fast.Writer",
    .tp_basicsize = sizeof(Writer),
    .tp_doc = "Writer(spec): the Dou Dizhu observation writer of one layout "
              "(climbrl.envs.doudizhu.compiled.writer_spec)",
    WRITER_SLOTS(Writer_init, Writer_dealloc, Writer_methods),
};

/* -- SeatWriter --------------------------------------------------------------------------- */

static void SeatWriter_dealloc(SeatWriter *self)
{
    seat_release((SeatHead *)self);
    Py_XDECREF(self->writer);
    PyObject_Free(self);
}

static PyObject *SeatWriter_observe(SeatWriter *self, PyObject *state)
{
    if (write_into(self->writer, &self->view, state, self->seat))
        return NULL;
    Py_INCREF(self->out);
    return self->out;
}

static PyMethodDef SeatWriter_methods[] = {
    SEAT_OBSERVE_METHOD(SeatWriter_observe),
    {NULL}};

static PyTypeObject SeatWriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "climbrl.envs.doudizhu._fast.SeatWriter",
    .tp_basicsize = sizeof(SeatWriter),
    SEAT_WRITER_SLOTS(SeatWriter_dealloc, SeatWriter_methods),
};

/* -- module ------------------------------------------------------------------------------- */

static struct PyModuleDef fast_module =
    FAST_MODULE("The optional compiled core of the Dou Dizhu environment "
                "(climbrl.envs.doudizhu.compiled).");

PyMODINIT_FUNC PyInit__fast(void)
{
    if (intern_names(attr_texts, NUM_ATTRS, attr_names))
        return NULL;
    PyObject *m = writer_module(&fast_module, &WriterType, &SeatWriterType);
    if (m != NULL && engine_add_type(m) < 0)
        Py_CLEAR(m);
    return m;
}
