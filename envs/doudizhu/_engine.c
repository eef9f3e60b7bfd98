/* The compiled engine core of Dou Dizhu: legal plays, the apply of a play, and a seat's
 * observation with its action mask in one call.
 *
 * climbrl.envs.doudizhu.moves.MoveGenerator (leads and replies), laizi.WildMoves (hands with
 * wild cards) and DoudizhuState._apply_play (pure Python) are the reference: this file
 * makes the same legal list, in exactly the same order, and changes the same state
 * attributes in the same way; tests/test_compiled_core.py plays every variant both ways and
 * compares every step.
 *
 * Engine(spec)                the tables of one catalog (climbrl.envs.doudizhu.compiled.
 *                             engine_spec), shared by every game of that catalog
 *   .legal(state)             the legal ids of the play phase (a tuple: pass first when a
 *                             pile is to beat)
 *   .play(state, action)      apply a play or pass known to be legal; None, or the rewards
 *                             of state._finish when the hand is emptied
 *   .apply(state, action)     play(), when action is an int in state's cached legal tuple
 *                             of the play phase; else NotImplemented (the caller checks it)
 *   .observation(writer, state, seat)
 *                             {"observation": float32 vector written by writer (the game's
 *                             Writer), "action_mask": int8 mask of the legal ids (all zero
 *                             unless seat is to move)}, in arrays nobody else holds
 *
 * The engine keeps one scratch list for the plays it generates, and the last few vectors and
 * masks it handed out (to hand out again once the engine's reference is their only one):
 * calls run under the GIL, and generation never calls back into Python.
 *
 * Cards here are rank counts; a play's counts are looked up by a key of 4 bits a rank (no
 * count exceeds 8) in an open-addressing table of every catalog play.
 */

#include "_fast.h"

#include <stdint.h>
#include <string.h>

typedef uint64_t Key;
#define KEY_BITS 4
#define MAX_WIDTH 8            /* the most cards of one rank (two packs) */
#define MAX_READINGS 8         /* the most readings of one play */
#define FIRST_LENGTH_ANY 0     /* chain_plays: every length of the kind */
#define NONE (-1)              /* no id, no rank, no pile */
#define TABLE_LOAD 2           /* key table slots per play, at least */
#define GOLDEN 0x9E3779B97F4A7C15ULL /* Fibonacci hashing: 2^64 / the golden ratio */
#define HASH_SHIFT 17          /* the product's bits dropped below the slot bits */
#define FIRST_CAPACITY 256     /* ids the scratch list holds before it first grows */
#define FOUR_RUN 4             /* trios in a row that make an airplane read two ways */
#define PAIR_WIDTH 2
#define TRIO_WIDTH 3
#define BOMB_WIDTH 4           /* the fewest cards of a bomb, and the width of four-with-two */
#define TWO_KICKERS 2          /* four-with-two: two singles or two pairs */
#define SHORT_PLANE 2          /* an airplane of two trios takes its singles as two_singles */
#define READING_FIELDS 3       /* kind, length, main */
#define UNMAKEABLE 0x80        /* a shortfall mark: a joker the hand lacks (no wild stands in) */
#define JOKER_RANKS 2          /* B and R: pair kickers of both are the four-joker rocket */
#define SINGLES 1
#define DOUBLES 2

/* the 14 kinds, in the order of climbrl.envs.doudizhu.catalog.Kind (checked at init) */
enum Kind {
    SINGLE, PAIR, TRIO, TRIO_SINGLE, TRIO_PAIR, CHAIN, PAIR_CHAIN, AIRPLANE, AIRPLANE_SINGLE,
    AIRPLANE_PAIR, FOUR_TWO_SINGLE, FOUR_TWO_PAIR, BOMB, ROCKET, NUM_KINDS
};
static const char *KIND_LABELS[NUM_KINDS] = {
    "single", "pair", "trio", "trio_single", "trio_pair", "chain", "pair_chain", "airplane",
    "airplane_single", "airplane_pair", "four_two_single", "four_two_pair", "bomb", "rocket"};
/* the chain kind of each body width (singles, pairs, trios) */
static const int CHAIN_OF_WIDTH[] = {NONE, CHAIN, PAIR_CHAIN, AIRPLANE};
#define WIDEST_CHAIN 3

/* bomb tiers of the laizi game (climbrl.envs.doudizhu.laizi.Tier) */
enum Tier { SOFT, HARD, WILD, ROCKET_TIER };

typedef struct {
    unsigned char kind, length, main;
} Reading;

typedef struct {
    int *ids;
    Py_ssize_t n, cap;
} Ids;

/* An observation vector or mask handed out, kept by the engine that made it: once the
 * engine's reference is its only one (every caller has let go of it, so nothing outside can
 * see it change) it is handed out again, rewritten, instead of making a new array (a new
 * four-player mask is 81,294 zeroed bytes, more than the rest of the observation costs). */
typedef struct {
    PyObject *array; /* NULL: none kept in this slot */
    Ids set;         /* a mask: the ids set in it when it was handed out */
} Spare;
#define SPARES 4 /* arrays of each kind kept (a loop holds one or two at a time) */

/* a hand's counts and the ranks it holds at least one and two cards of, ascending */
typedef struct {
    unsigned char c[NUM_RANKS];
    int present[NUM_RANKS], npresent;
    int pairs[NUM_RANKS], npairs;
} Hand;

typedef struct {
    PyObject_HEAD
    PyObject **id_obj; /* an int object per action id */
    int num_actions, first_play, pass_id, rocket, rocket_power, play_phase, players;
    int widest, rocket_width, one_pack;
    unsigned char copies[NUM_RANKS];
    unsigned char *cards;         /* NUM_RANKS counts per action id */
    int *bomb_power, *bomb_main; /* per id, -1 for every other play */
    int *reading_start;          /* per id, then the end: its readings' first index */
    Reading *readings;
    Key *keys; /* the key table: keys and their ids */
    int *key_ids;
    size_t key_mask;
    int body[MAX_WIDTH + 1][NUM_RANKS]; /* the id of width cards of a rank, or NONE */
    int chain_min[NUM_KINDS], chain_max[NUM_KINDS];
    int chain_id[NUM_KINDS][CHAIN_RANKS + 1][CHAIN_RANKS]; /* [kind][length][start] */
    unsigned char *seen; /* per id, for removing repeats */
    /* laizi, made on first use: the plays' counts rank by rank (a column of every play's
     * count of one rank), and the scratch row of their shortfalls */
    unsigned char *columns, *shortfall;
    Ids out;
    /* the observation's arrays: np.empty(size, float32) and np.zeros(actions, int8) */
    PyObject *empty, *zeros, *float32, *int8;
    Spare vectors[SPARES], masks[SPARES]; /* those handed out, kept to be handed out again */
} Engine;

/* the state attributes read and written, interned once */
static PyObject *s_hands, *s_played, *s_plays_made, *s_trick, *s_history, *s_phase,
    *s_terminal, *s_current_player, *s_pile, *s_pile_owner, *s_pile_power, *s_pile_subs,
    *s_passes, *s_bombs, *s_wild, *s_legal, *s_legal_actions, *s_finish, *s_observation,
    *s_action_mask;

/* -- keys ---------------------------------------------------------------------------------- */

static inline Key unit(int rank, int count) { return (Key)count << (KEY_BITS * rank); }

static inline int key_count(Key key, int rank)
{
    return (int)(key >> (KEY_BITS * rank)) & ((1 << KEY_BITS) - 1);
}

static Key key_of(const unsigned char *counts)
{
    Key key = 0;
    for (int r = 0; r < NUM_RANKS; r++)
        key |= unit(r, counts[r]);
    return key;
}

static inline size_t slot_of(Engine *e, Key key)
{
    return (size_t)((key * GOLDEN) >> HASH_SHIFT) & e->key_mask;
}

static int lookup(Engine *e, Key key)
{
    for (size_t i = slot_of(e, key);; i = (i + 1) & e->key_mask) {
        if (e->key_ids[i] == NONE)
            return NONE;
        if (e->keys[i] == key)
            return e->key_ids[i];
    }
}

static int build_key_table(Engine *e)
{
    size_t slots = 1;
    while (slots < (size_t)e->num_actions * TABLE_LOAD)
        slots <<= 1;
    e->keys = PyMem_Calloc(slots, sizeof(Key));
    e->key_ids = PyMem_Malloc(slots * sizeof(int));
    if (e->keys == NULL || e->key_ids == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < slots; i++)
        e->key_ids[i] = NONE;
    e->key_mask = slots - 1;
    for (int a = e->first_play; a < e->num_actions; a++) {
        Key key = key_of(e->cards + (size_t)a * NUM_RANKS);
        size_t i = slot_of(e, key);
        while (e->key_ids[i] != NONE)
            i = (i + 1) & e->key_mask;
        e->keys[i] = key;
        e->key_ids[i] = a;
    }
    return 0;
}

/* -- the list being made ------------------------------------------------------------------- */

static int ids_push(Ids *o, int id)
{
    if (o->n == o->cap) {
        Py_ssize_t cap = o->cap ? 2 * o->cap : FIRST_CAPACITY;
        int *ids = PyMem_Realloc(o->ids, (size_t)cap * sizeof(int));
        if (ids == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        o->ids = ids;
        o->cap = cap;
    }
    o->ids[o->n++] = id;
    return 0;
}

static int push(Engine *e, int id) { return ids_push(&e->out, id); }

static int missing(void)
{
    PyErr_SetString(PyExc_RuntimeError, "a generated play is not in the catalog");
    return -1;
}

/* the play of these cards (a key), appended */
static int push_cards(Engine *e, Key cards)
{
    int id = lookup(e, cards);
    return id == NONE ? missing() : push(e, id);
}

static int push_body(Engine *e, int width, int rank)
{
    int id = e->body[width][rank];
    return id == NONE ? missing() : push(e, id);
}

/* drop the repeats of out[from:], keeping each id's first place */
static void drop_repeats(Engine *e, Py_ssize_t from)
{
    Ids *o = &e->out;
    Py_ssize_t kept = from;
    for (Py_ssize_t i = from; i < o->n; i++) {
        int id = o->ids[i];
        if (!e->seen[id]) {
            e->seen[id] = 1;
            o->ids[kept++] = id;
        }
    }
    for (Py_ssize_t i = from; i < kept; i++)
        e->seen[o->ids[i]] = 0;
    o->n = kept;
}

/* -- hands ---------------------------------------------------------------------------------- */

/* bit r set where the hand holds at least k cards of rank r */
static unsigned at_least(const unsigned char *c, int k)
{
    unsigned mask = 0;
    for (int r = 0; r < NUM_RANKS; r++)
        if (c[r] >= k)
            mask |= 1u << r;
    return mask;
}

/* bits of the ranks above main (main = NONE: every rank) */
static inline unsigned above(int main) { return ~((1u << (main + 1)) - 1); }

static inline unsigned run_bits(int start, int length) { return ((1u << length) - 1) << start; }

static void read_hand(Hand *h)
{
    h->npresent = h->npairs = 0;
    for (int r = 0; r < NUM_RANKS; r++) {
        if (h->c[r])
            h->present[h->npresent++] = r;
        if (h->c[r] >= PAIR_WIDTH)
            h->pairs[h->npairs++] = r;
    }
}

/* the ranks of list[n] outside lo..hi-1, into out; their number */
static int ranks_outside(const int *list, int n, int lo, int hi, int *out)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (list[i] < lo || list[i] >= hi)
            out[m++] = list[i];
    return m;
}

/* -- kickers (moves.py: _two_singles, single_kicker_sets, the pair combinations) ----------- */

/* two single kickers from ranks[n] added to body: one rank twice (where it holds two) then
 * with each later rank; never both jokers unless jokers (two packs) */
static int two_singles(Engine *e, const unsigned char *c, const int *ranks, int n, Key body)
{
    for (int i = 0; i < n; i++) {
        int a = ranks[i];
        if (a >= BLACK_JOKER && e->one_pack)
            break; /* only B+R could follow */
        if (c[a] >= PAIR_WIDTH && push_cards(e, body + unit(a, PAIR_WIDTH)))
            return -1;
        for (int j = i + 1; j < n; j++)
            if (push_cards(e, body + unit(a, 1) + unit(ranks[j], 1)))
                return -1;
    }
    return 0;
}

static inline int holds_rocket(Engine *e, Key key)
{
    return key_count(key, BLACK_JOKER) >= e->copies[BLACK_JOKER] &&
           key_count(key, RED_JOKER) >= e->copies[RED_JOKER];
}

/* every multiset of left single kickers from ranks[i:n] (each at most its count), in the
 * order of catalog.single_kicker_sets, never holding the rocket */
static int single_sets(Engine *e, const unsigned char *c, const int *ranks, int n, int i,
                       int left, Key acc, Key body)
{
    if (!left)
        return holds_rocket(e, acc) ? 0 : push_cards(e, body + acc);
    for (int j = i; j < n; j++) {
        int r = ranks[j];
        for (int take = 1; take <= c[r] && take <= left; take++)
            if (single_sets(e, c, ranks, n, j + 1, left - take, acc + unit(r, take), body))
                return -1;
    }
    return 0;
}

/* every set of left pair kickers of distinct ranks from ranks[i:n] (itertools.combinations
 * order), never both joker pairs */
static int pair_sets(Engine *e, const int *ranks, int n, int i, int left, Key acc, int jokers,
                     Key body)
{
    if (!left)
        return jokers == JOKER_RANKS ? 0 : push_cards(e, body + acc);
    for (int j = i; j <= n - left; j++) {
        int r = ranks[j];
        int joker = r >= BLACK_JOKER;
        if (pair_sets(e, ranks, n, j + 1, left - 1, acc + unit(r, PAIR_WIDTH), jokers + joker,
                      body))
            return -1;
    }
    return 0;
}

/* trio t with one single, then with one pair (what: SINGLES, DOUBLES or both) */
static int trio_kickers(Engine *e, Hand *h, int t, int what)
{
    Key body = unit(t, TRIO_WIDTH);
    if (what & SINGLES)
        for (int i = 0; i < h->npresent; i++)
            if (h->present[i] != t && push_cards(e, body + unit(h->present[i], 1)))
                return -1;
    if (what & DOUBLES)
        for (int i = 0; i < h->npairs; i++)
            if (h->pairs[i] != t && push_cards(e, body + unit(h->pairs[i], PAIR_WIDTH)))
                return -1;
    return 0;
}

/* four of rank q with two singles, then with two pairs */
static int four_kickers(Engine *e, Hand *h, int q, int what)
{
    int ranks[NUM_RANKS];
    Key body = unit(q, BOMB_WIDTH);
    if (what & SINGLES) {
        int n = ranks_outside(h->present, h->npresent, q, q + 1, ranks);
        if (two_singles(e, h->c, ranks, n, body))
            return -1;
    }
    if (what & DOUBLES) {
        int n = ranks_outside(h->pairs, h->npairs, q, q + 1, ranks);
        if (pair_sets(e, ranks, n, 0, TWO_KICKERS, 0, 0, body))
            return -1;
    }
    return 0;
}

/* the airplane of length trios from start with a single per trio, then with a pair per trio */
static int plane_kickers(Engine *e, Hand *h, int length, int start, int what)
{
    int ranks[NUM_RANKS];
    int stop = start + length;
    Key body = 0;
    for (int r = start; r < stop; r++)
        body += unit(r, TRIO_WIDTH);
    if (what & SINGLES) {
        int n = ranks_outside(h->present, h->npresent, start, stop, ranks);
        int rc = length == SHORT_PLANE ? two_singles(e, h->c, ranks, n, body)
                             : single_sets(e, h->c, ranks, n, 0, length, 0, body);
        if (rc)
            return -1;
    }
    if ((what & DOUBLES) && e->chain_min[AIRPLANE_PAIR] <= length &&
        length <= e->chain_max[AIRPLANE_PAIR]) {
        int n = ranks_outside(h->pairs, h->npairs, start, stop, ranks);
        if (n >= length && pair_sets(e, ranks, n, 0, length, 0, 0, body))
            return -1;
    }
    return 0;
}

/* -- bodies and chains --------------------------------------------------------------------- */

/* the chains of kind held by mask (length: one length, or FIRST_LENGTH_ANY for every one),
 * starting above main; by length, then start */
static int chain_plays(Engine *e, int kind, unsigned mask, int length, int main)
{
    int lo = length ? length : e->chain_min[kind], hi = length ? length : e->chain_max[kind];
    for (int n = lo; n <= hi; n++)
        for (int start = main + 1; start + n <= CHAIN_RANKS; start++) {
            unsigned bits = run_bits(start, n);
            if ((mask & bits) == bits && push(e, e->chain_id[kind][n][start]))
                return -1;
        }
    return 0;
}

/* moves.py _fill: width cards of each rank of mask, the chains of that width, the rocket */
static int width_plays(Engine *e, int width, unsigned mask)
{
    for (int r = 0; r < NUM_RANKS; r++)
        if ((mask >> r & 1) && push_body(e, width, r))
            return -1;
    if (width <= WIDEST_CHAIN &&
        chain_plays(e, CHAIN_OF_WIDTH[width], mask, FIRST_LENGTH_ANY, NONE))
        return -1;
    unsigned jokers = 1u << BLACK_JOKER | 1u << RED_JOKER;
    if (width == e->rocket_width && (mask & jokers) == jokers)
        return push(e, e->rocket);
    return 0;
}

static int has_run_of_four(unsigned m3)
{
    for (int start = 0; start + FOUR_RUN <= CHAIN_RANKS; start++)
        if ((m3 & run_bits(start, FOUR_RUN)) == run_bits(start, FOUR_RUN))
            return 1;
    return 0;
}

/* -- leading and replying (moves.py MoveGenerator.lead and .replies) ----------------------- */

static int lead(Engine *e, Hand *h)
{
    const unsigned char *c = h->c;
    unsigned m3 = at_least(c, TRIO_WIDTH);
    if (width_plays(e, 1, at_least(c, 1)) || width_plays(e, PAIR_WIDTH, at_least(c, PAIR_WIDTH)))
        return -1;
    if (!m3)
        return 0;
    if (width_plays(e, TRIO_WIDTH, m3))
        return -1;
    for (int i = 0; i < h->npairs; i++)
        if (c[h->pairs[i]] >= TRIO_WIDTH && trio_kickers(e, h, h->pairs[i], SINGLES | DOUBLES))
            return -1;
    unsigned m4 = at_least(c, BOMB_WIDTH);
    if (m4) {
        if (width_plays(e, BOMB_WIDTH, m4))
            return -1;
        for (int i = 0; i < h->npairs; i++)
            if (c[h->pairs[i]] >= BOMB_WIDTH &&
                four_kickers(e, h, h->pairs[i], SINGLES | DOUBLES))
                return -1;
        for (int width = BOMB_WIDTH + 1; width <= e->widest; width++) {
            unsigned wide = at_least(c, width);
            if (!wide)
                break;
            if (width_plays(e, width, wide))
                return -1;
        }
    }
    int planes = 0;
    for (int n = e->chain_min[AIRPLANE_SINGLE]; n <= e->chain_max[AIRPLANE_SINGLE]; n++)
        for (int start = 0; start + n <= CHAIN_RANKS; start++) {
            unsigned bits = run_bits(start, n);
            if ((m3 & bits) != bits)
                continue;
            planes = 1;
            if (plane_kickers(e, h, n, start, SINGLES | DOUBLES))
                return -1;
        }
    if (planes && has_run_of_four(m3))
        drop_repeats(e, 0);
    return 0;
}

/* the plays of one kind that beat a reading (kind, length, main) */
static int reply_kind(Engine *e, Hand *h, int kind, int length, int main)
{
    const unsigned char *c = h->c;
    int what = (kind == TRIO_SINGLE || kind == AIRPLANE_SINGLE || kind == FOUR_TWO_SINGLE)
                   ? SINGLES : DOUBLES;
    switch (kind) {
    case SINGLE:
    case PAIR:
    case TRIO: {
        int width = kind - SINGLE + 1; /* singles, pairs and trios: 1, 2 and 3 cards */
        unsigned mask = at_least(c, width) & above(main);
        for (int r = 0; r < NUM_RANKS; r++)
            if ((mask >> r & 1) && push_body(e, width, r))
                return -1;
        return 0;
    }
    case CHAIN:
    case PAIR_CHAIN:
    case AIRPLANE:
        /* chains, pair chains and airplanes: 1, 2 and 3 cards a rank */
        return chain_plays(e, kind, at_least(c, kind - CHAIN + 1), length, main);
    case TRIO_SINGLE:
    case TRIO_PAIR:
        for (int t = main + 1; t < NUMBER_RANKS; t++)
            if (c[t] >= TRIO_WIDTH && trio_kickers(e, h, t, what))
                return -1;
        return 0;
    case FOUR_TWO_SINGLE:
    case FOUR_TWO_PAIR:
        for (int q = main + 1; q < NUMBER_RANKS; q++)
            if (c[q] >= BOMB_WIDTH && four_kickers(e, h, q, what))
                return -1;
        return 0;
    case AIRPLANE_SINGLE:
    case AIRPLANE_PAIR: {
        unsigned m3 = at_least(c, TRIO_WIDTH);
        for (int start = main + 1; start + length <= CHAIN_RANKS; start++) {
            unsigned bits = run_bits(start, length);
            if ((m3 & bits) == bits && plane_kickers(e, h, length, start, what))
                return -1;
        }
        return 0;
    }
    default:
        PyErr_Format(PyExc_RuntimeError, "no reply to a pile of kind %d", kind);
        return -1;
    }
}

static int replies(Engine *e, Hand *h, int pile)
{
    const unsigned char *c = h->c;
    if (pile == e->rocket)
        return 0;
    int bomb_main = e->bomb_main[pile];
    if (bomb_main < 0) {
        Py_ssize_t from = e->out.n;
        int first = e->reading_start[pile], stop = e->reading_start[pile + 1];
        for (int i = first; i < stop; i++) {
            Reading *rd = &e->readings[i];
            if (reply_kind(e, h, rd->kind, rd->length, rd->main))
                return -1;
        }
        if (stop - first > 1 || e->readings[first].kind == AIRPLANE_SINGLE)
            drop_repeats(e, from);
    }
    if (e->one_pack) {
        unsigned m4 = at_least(c, BOMB_WIDTH) & above(bomb_main);
        for (int r = 0; r < NUM_RANKS; r++)
            if ((m4 >> r & 1) && push_body(e, BOMB_WIDTH, r))
                return -1;
    } else {
        int power = e->bomb_power[pile];
        for (int width = BOMB_WIDTH; width <= e->widest; width++) {
            unsigned mask = at_least(c, width);
            if (!mask)
                break;
            for (int r = 0; r < NUM_RANKS; r++) {
                int id = e->body[width][r];
                if ((mask >> r & 1) && e->bomb_power[id] > power && push(e, id))
                    return -1;
            }
        }
    }
    if (c[BLACK_JOKER] == e->copies[BLACK_JOKER] && c[RED_JOKER] == e->copies[RED_JOKER])
        return push(e, e->rocket);
    return 0;
}

/* -- laizi (laizi.py): a scan of the catalog in id order ----------------------------------- */

/* how many wild cards stand in for another rank when have plays need (laizi.substitutes) */
static int substitutes(const unsigned char *have, int wild, const unsigned char *need)
{
    int subs = 0;
    for (int r = 0; r < NUMBER_RANKS; r++)
        if (r != wild && need[r] > have[r])
            subs += need[r] - have[r];
    return subs;
}

/* laizi.bomb_tier: tier first, then the catalog's power; -1 for every other play */
static int bomb_tier(Engine *e, int a, int wild, int subs)
{
    int power = e->bomb_power[a];
    if (power < 0)
        return -1;
    int span = e->rocket_power + 1;
    if (a == e->rocket)
        return ROCKET_TIER * span;
    if (e->bomb_main[a] == wild)
        return WILD * span + power;
    return (subs ? SOFT : HARD) * span + power;
}

/* whether a reading of play a beats one of the (non-bomb) pile */
static int beats_by_reading(Engine *e, int a, int pile)
{
    for (int i = e->reading_start[a]; i < e->reading_start[a + 1]; i++)
        for (int j = e->reading_start[pile]; j < e->reading_start[pile + 1]; j++) {
            Reading *x = &e->readings[i], *y = &e->readings[j];
            if (x->kind == y->kind && x->length == y->length && x->main > y->main)
                return 1;
        }
    return 0;
}

static int build_columns(Engine *e)
{
    Py_ssize_t plays = e->num_actions - e->first_play;
    e->columns = PyMem_Malloc((size_t)plays * NUM_RANKS);
    e->shortfall = PyMem_Malloc((size_t)plays);
    if (e->columns == NULL || e->shortfall == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < plays; i++)
        for (int r = 0; r < NUM_RANKS; r++)
            e->columns[r * plays + i] = e->cards[(size_t)(e->first_play + i) * NUM_RANKS + r];
    return 0;
}

/* per play, the wild cards have needs to make it (laizi.WildMoves.held, a column at a time:
 * loops the compiler vectorizes): its cards of the wild rank, plus what it lacks of the
 * other ranks 3..2; UNMAKEABLE where it lacks a joker */
static void shortfalls(Engine *e, const unsigned char *have, int wild)
{
    Py_ssize_t plays = e->num_actions - e->first_play;
    unsigned char *out = e->shortfall;
    memcpy(out, e->columns + wild * plays, (size_t)plays);
    for (int r = 0; r < NUM_RANKS; r++) {
        const unsigned char *column = e->columns + r * plays;
        unsigned char held = have[r];
        if (r == wild || held >= e->copies[r])
            continue; /* no play needs more of r than the deck has */
        if (r < NUMBER_RANKS)
            for (Py_ssize_t i = 0; i < plays; i++)
                out[i] += column[i] > held ? column[i] - held : 0;
        else
            for (Py_ssize_t i = 0; i < plays; i++)
                out[i] |= column[i] > held ? UNMAKEABLE : 0;
    }
}

static int wild_legal(Engine *e, const unsigned char *have, int wild, int pile, int pile_power)
{
    if (e->columns == NULL && build_columns(e))
        return -1;
    if (pile >= 0 && push(e, e->pass_id))
        return -1;
    shortfalls(e, have, wild);
    for (int a = e->first_play; a < e->num_actions; a++) {
        const unsigned char *need = e->cards + (size_t)a * NUM_RANKS;
        if (e->shortfall[a - e->first_play] > have[wild])
            continue;
        if (pile >= 0) {
            int bomb = e->bomb_power[a] >= 0;
            if (pile_power >= 0) {
                if (!bomb || bomb_tier(e, a, wild, substitutes(have, wild, need)) <= pile_power)
                    continue;
            } else if (!bomb && !beats_by_reading(e, a, pile)) {
                continue;
            }
        }
        if (push(e, a))
            return -1;
    }
    return 0;
}

/* -- reading the state --------------------------------------------------------------------- */

/* a list attribute of one entry per seat (a new reference) */
static PyObject *seat_list(Engine *e, PyObject *state, PyObject *name)
{
    PyObject *value = PyObject_GetAttr(state, name);
    if (value != NULL && (!PyList_Check(value) || PyList_GET_SIZE(value) != e->players)) {
        PyErr_Format(PyExc_ValueError, "state.%U must be a list of %d entries", name, e->players);
        Py_CLEAR(value);
    }
    return value;
}

static int check_seat(Engine *e, long seat)
{
    if (seat < 0 || seat >= e->players) {
        PyErr_Format(PyExc_ValueError, "seat %ld is outside 0..%d", seat, e->players - 1);
        return -1;
    }
    return 0;
}

static int check_id(Engine *e, long a)
{
    if (a < 0 || a >= e->num_actions) {
        PyErr_Format(PyExc_ValueError, "action id %ld is outside the catalog", a);
        return -1;
    }
    return 0;
}

/* an Engine's methods refuse to run before a successful __init__ */
static int ready(Engine *e)
{
    if (e->id_obj == NULL || e->id_obj[e->num_actions - 1] == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Engine was not initialised");
        return -1;
    }
    return 0;
}

/* the legal ids of the play phase of state into e->out */
static int make_legal(Engine *e, PyObject *state)
{
    long seat, pile, wild, pile_power = NONE;
    Hand h;
    e->out.n = 0;
    if (attr_long(state, s_current_player, &seat) || check_seat(e, seat) ||
        attr_long(state, s_pile, &pile) || attr_long(state, s_wild, &wild))
        return -1;
    if (pile != NONE && check_id(e, pile))
        return -1;
    PyObject *hands = seat_list(e, state, s_hands);
    if (hands == NULL)
        return -1;
    int rc = packed_bytes(PyList_GET_ITEM(hands, seat), h.c);
    Py_DECREF(hands);
    if (rc)
        return -1;
    if (wild >= 0) {
        if (wild >= NUMBER_RANKS) {
            PyErr_Format(PyExc_ValueError, "wild rank %ld is not one of 3..2", wild);
            return -1;
        }
        if (pile != NONE && attr_long(state, s_pile_power, &pile_power))
            return -1;
        return wild_legal(e, h.c, (int)wild, (int)pile, (int)pile_power);
    }
    read_hand(&h);
    if (pile == NONE)
        return lead(e, &h);
    return push(e, e->pass_id) || replies(e, &h, (int)pile);
}

static PyObject *legal_tuple(Engine *e)
{
    PyObject *out = PyTuple_New(e->out.n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < e->out.n; i++) {
        PyObject *id = e->id_obj[e->out.ids[i]];
        Py_INCREF(id);
        PyTuple_SET_ITEM(out, i, id);
    }
    return out;
}

static PyObject *Engine_legal(Engine *self, PyObject *state)
{
    if (ready(self) || make_legal(self, state))
        return NULL;
    return legal_tuple(self);
}

/* -- the apply (engine.py DoudizhuState._apply_play) --------------------------------------- */

static int set_long(PyObject *state, PyObject *name, long value)
{
    PyObject *v = PyLong_FromLong(value);
    if (v == NULL)
        return -1;
    int rc = PyObject_SetAttr(state, name, v);
    Py_DECREF(v);
    return rc;
}

/* list[i] = value (a new int of value), the list keeping its identity */
static int set_item_long(PyObject *list, Py_ssize_t i, long value)
{
    PyObject *v = PyLong_FromLong(value);
    return v == NULL ? -1 : PyList_SetItem(list, i, v);
}

static int set_item_cards(PyObject *list, Py_ssize_t i, const unsigned char *counts)
{
    PyObject *v = packed_int(counts);
    return v == NULL ? -1 : PyList_SetItem(list, i, v);
}

static int append_history(Engine *e, PyObject *state, long seat, int a)
{
    PyObject *history = PyObject_GetAttr(state, s_history);
    if (history == NULL)
        return -1;
    int rc = -1;
    PyObject *entry = NULL, *who = PyLong_FromLong(seat);
    if (!PyList_Check(history))
        PyErr_SetString(PyExc_TypeError, "state.history must be a list");
    else if (who != NULL && (entry = PyTuple_Pack(2, who, e->id_obj[a])) != NULL)
        rc = PyList_Append(history, entry);
    Py_XDECREF(entry);
    Py_XDECREF(who);
    Py_DECREF(history);
    return rc;
}

/* a pass: the trick ends after every other seat passed, and the last to play leads */
static int apply_pass(Engine *e, PyObject *state, long seat)
{
    long passes, pile_owner;
    PyObject *trick = seat_list(e, state, s_trick);
    if (trick == NULL)
        return -1;
    int rc = set_item_long(trick, seat, e->pass_id);
    Py_DECREF(trick);
    if (rc || attr_long(state, s_passes, &passes))
        return -1;
    passes += 1;
    if (passes < e->players - 1)
        return set_long(state, s_passes, passes) ||
               set_long(state, s_current_player, (seat + 1) % e->players);
    if (attr_long(state, s_pile_owner, &pile_owner))
        return -1;
    PyObject *fresh = PyList_New(e->players), *none = PyLong_FromLong(NONE);
    if (fresh == NULL || none == NULL) {
        Py_XDECREF(fresh);
        Py_XDECREF(none);
        return -1;
    }
    for (int s = 0; s < e->players; s++) {
        Py_INCREF(none);
        PyList_SET_ITEM(fresh, s, none);
    }
    Py_DECREF(none);
    rc = PyObject_SetAttr(state, s_trick, fresh);
    Py_DECREF(fresh);
    return rc || set_long(state, s_current_player, pile_owner) || set_long(state, s_pile, NONE) ||
           set_long(state, s_pile_owner, NONE) || set_long(state, s_pile_power, NONE) ||
           set_long(state, s_pile_subs, 0) || set_long(state, s_passes, 0);
}

/* the cards of play a leave the hand (laizi: its own cards first, wild cards for the rest) */
static PyObject *apply_cards(Engine *e, PyObject *state, long seat, int a)
{
    long wild, bombs;
    unsigned char hand[NUM_RANKS], given[NUM_RANKS], played[NUM_RANKS];
    const unsigned char *need = e->cards + (size_t)a * NUM_RANKS;
    PyObject *hands = NULL, *played_list = NULL, *made = NULL, *trick = NULL;
    PyObject *result = NULL;
    int empty = 1;

    if (attr_long(state, s_wild, &wild) || (hands = seat_list(e, state, s_hands)) == NULL ||
        (played_list = seat_list(e, state, s_played)) == NULL ||
        (made = seat_list(e, state, s_plays_made)) == NULL ||
        (trick = seat_list(e, state, s_trick)) == NULL ||
        packed_bytes(PyList_GET_ITEM(hands, seat), hand) ||
        packed_bytes(PyList_GET_ITEM(played_list, seat), played))
        goto done;
    memcpy(given, need, NUM_RANKS);
    if (wild >= 0 && wild < NUMBER_RANKS) {
        int subs = substitutes(hand, (int)wild, need), wilds = 0;
        if (set_long(state, s_pile_subs, subs) ||
            set_long(state, s_pile_power, bomb_tier(e, a, (int)wild, subs)))
            goto done;
        for (int r = 0; r < NUM_RANKS; r++) {
            if (r == wild) {
                wilds += need[r];
                continue;
            }
            given[r] = need[r] < hand[r] ? need[r] : hand[r];
            wilds += need[r] - given[r];
        }
        given[wild] = (unsigned char)wilds;
    }
    for (int r = 0; r < NUM_RANKS; r++) {
        if (given[r] > hand[r]) {
            PyErr_SetString(PyExc_ValueError, "the hand does not hold the cards played");
            goto done;
        }
        hand[r] -= given[r];
        played[r] += given[r];
        empty &= hand[r] == 0;
    }
    long count = PyLong_AsLong(PyList_GET_ITEM(made, seat));
    if ((count == -1 && PyErr_Occurred()) || set_item_cards(hands, seat, hand) ||
        set_item_cards(played_list, seat, played) || set_item_long(made, seat, count + 1))
        goto done;
    if (e->bomb_power[a] >= 0 &&
        (attr_long(state, s_bombs, &bombs) || set_long(state, s_bombs, bombs + 1)))
        goto done;
    Py_INCREF(e->id_obj[a]);
    if (PyList_SetItem(trick, seat, e->id_obj[a]) || set_long(state, s_pile, a) ||
        set_long(state, s_pile_owner, seat) || set_long(state, s_passes, 0))
        goto done;
    if (empty) {
        PyObject *who = PyLong_FromLong(seat);
        if (who != NULL)
            result = PyObject_CallMethodOneArg(state, s_finish, who);
        Py_XDECREF(who);
        goto done;
    }
    if (set_long(state, s_current_player, (seat + 1) % e->players))
        goto done;
    result = Py_None;
    Py_INCREF(result);
done:
    Py_XDECREF(hands);
    Py_XDECREF(played_list);
    Py_XDECREF(made);
    Py_XDECREF(trick);
    return result;
}

static PyObject *play(Engine *e, PyObject *state, long a)
{
    long seat;
    if (check_id(e, a) || attr_long(state, s_current_player, &seat) || check_seat(e, seat) ||
        append_history(e, state, seat, (int)a))
        return NULL;
    if (a == e->pass_id) {
        if (apply_pass(e, state, seat))
            return NULL;
        Py_RETURN_NONE;
    }
    if (a < e->first_play) {
        PyErr_Format(PyExc_ValueError, "action id %ld is not a play", a);
        return NULL;
    }
    return apply_cards(e, state, seat, (int)a);
}

static PyObject *Engine_play(Engine *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "play(state, action) takes 2 arguments");
        return NULL;
    }
    long a = PyLong_AsLong(args[1]);
    if (ready(self) || (a == -1 && PyErr_Occurred()))
        return NULL;
    return play(self, args[0], a);
}

/* whether the int action is in the tuple legal (the same object, or an equal value) */
static int in_legal(PyObject *legal, PyObject *action, long a)
{
    Py_ssize_t n = PyTuple_GET_SIZE(legal);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(legal, i);
        if (item == action || (PyLong_CheckExact(item) && PyLong_AsLong(item) == a))
            return 1;
    }
    return 0;
}

static PyObject *Engine_apply(Engine *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "apply(state, action) takes 2 arguments");
        return NULL;
    }
    PyObject *state = args[0], *action = args[1];
    long phase;
    if (ready(self))
        return NULL;
    if (!PyLong_CheckExact(action))
        Py_RETURN_NOTIMPLEMENTED;
    long a = PyLong_AsLong(action);
    if (a == -1 && PyErr_Occurred()) {
        PyErr_Clear(); /* too large for a long: never legal, the caller says why */
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (attr_long(state, s_phase, &phase))
        return NULL;
    PyObject *legal = PyObject_GetAttr(state, s_legal);
    if (legal == NULL)
        return NULL;
    int known = phase == self->play_phase && PyTuple_Check(legal) && in_legal(legal, action, a);
    Py_DECREF(legal);
    if (!known)
        Py_RETURN_NOTIMPLEMENTED;
    if (PyObject_SetAttr(state, s_legal, Py_None))
        return NULL;
    return play(self, state, a);
}

/* -- the observation and its mask --------------------------------------------------------- */

/* the legal ids of the seat to move (a new reference): the state's cached tuple; made here
 * and cached in the play phase, else state.legal_actions() */
static PyObject *state_legal(Engine *e, PyObject *state)
{
    long phase;
    PyObject *legal = PyObject_GetAttr(state, s_legal);
    if (legal == NULL || legal != Py_None)
        return legal;
    Py_DECREF(legal);
    if (attr_long(state, s_phase, &phase))
        return NULL;
    if (phase != e->play_phase)
        return PyObject_CallMethodNoArgs(state, s_legal_actions);
    if (make_legal(e, state) || (legal = legal_tuple(e)) == NULL)
        return NULL;
    if (PyObject_SetAttr(state, s_legal, legal)) {
        Py_DECREF(legal);
        return NULL;
    }
    return legal;
}

/* whether a weak reference to array exists (through it, a caller could still reach it) */
static int weakly_held(PyObject *array)
{
    Py_ssize_t offset = Py_TYPE(array)->tp_weaklistoffset;
    return offset > 0 && *(PyObject **)((char *)array + offset) != NULL;
}

/* A kept array of kept that no caller holds any more, still a writable C-contiguous vector
 * of format and bytes, held in view (the caller releases it): a new reference and its slot in
 * *slot. NULL (no error) when none is free; a kept array a caller changed (its shape, dtype or
 * flags) or still reaches through a weak reference is let go of. */
static PyObject *take_spare(Spare *kept, const char *format, Py_ssize_t bytes, Py_buffer *view,
                            int *slot)
{
    for (int i = 0; i < SPARES; i++) {
        PyObject *array = kept[i].array;
        if (array == NULL || Py_REFCNT(array) != 1)
            continue;
        if (!weakly_held(array) &&
            PyObject_GetBuffer(array, view,
                               PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_ND | PyBUF_C_CONTIGUOUS) == 0) {
            if (view->ndim == 1 && view->format != NULL && strcmp(view->format, format) == 0) {
                if (view->len == bytes) {
                    Py_INCREF(array);
                    *slot = i;
                    return array;
                }
                PyBuffer_Release(view);
                continue; /* another layout's vector (engines serve every history length) */
            }
            PyBuffer_Release(view);
        }
        PyErr_Clear();
        Py_CLEAR(kept[i].array);
    }
    return NULL;
}

/* keeps array (being handed out) in a free slot of kept: its slot, or -1 when none is free */
static int keep_spare(Spare *kept, PyObject *array)
{
    for (int i = 0; i < SPARES; i++)
        if (kept[i].array == NULL) {
            Py_INCREF(array);
            kept[i].array = array;
            kept[i].set.n = 0;
            return i;
        }
    return -1;
}

static void free_spares(Spare *kept)
{
    for (int i = 0; i < SPARES; i++) {
        Py_CLEAR(kept[i].array);
        PyMem_Free(kept[i].set.ids);
        kept[i].set.ids = NULL;
    }
}

/* a new reference to a writable vector of count items of format (itemsize bytes each) in
 * view (the caller releases it): a kept one no caller holds, else a new one made by
 * make(count, dtype) and kept where there is room; *slot is its slot (-1: not kept), *fresh
 * whether it was just made */
static PyObject *spare_or_new(Spare *kept, const char *format, Py_ssize_t count,
                              Py_ssize_t itemsize, PyObject *make, PyObject *dtype,
                              Py_buffer *view, int *slot, int *fresh)
{
    Py_ssize_t bytes = count * itemsize;
    PyObject *array = take_spare(kept, format, bytes, view, slot);
    *fresh = array == NULL;
    if (array != NULL)
        return array;
    PyObject *args[2] = {PyLong_FromSsize_t(count), dtype};
    if (args[0] == NULL)
        return NULL;
    array = PyObject_Vectorcall(make, args, 2, NULL);
    Py_DECREF(args[0]);
    if (array == NULL)
        return NULL;
    if (PyObject_GetBuffer(array, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(array);
        return NULL;
    }
    if (view->len != bytes) {
        PyErr_SetString(PyExc_ValueError, "numpy made an array of another size");
        PyBuffer_Release(view);
        Py_DECREF(array);
        return NULL;
    }
    *slot = keep_spare(kept, array);
    return array;
}

/* whether any of len bytes is not zero; built for AVX2 too where the compiler can pick at
 * load time (reading a four-player mask takes about half the time with it) */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
__attribute__((target_clones("avx2", "default")))
#endif
#endif
static int any_set(const char *bytes, Py_ssize_t len)
{
    uint64_t any = 0, word;
    Py_ssize_t i = 0;
    for (; i + (Py_ssize_t)sizeof word <= len; i += sizeof word) {
        memcpy(&word, bytes + i, sizeof word);
        any |= word;
    }
    for (; i < len; i++)
        any |= (unsigned char)bytes[i];
    return any != 0;
}

/* zeroes a mask handed out again: the ids it was handed out with, then, should its last
 * holder have written into it, the rest */
static void clear_mask(char *bytes, Py_ssize_t len, Ids *set)
{
    for (Py_ssize_t i = 0; i < set->n; i++)
        bytes[set->ids[i]] = 0;
    set->n = 0;
    if (any_set(bytes, len))
        memset(bytes, 0, (size_t)len);
}

/* sets the legal ids in the mask's bytes, noting them in set (NULL: a mask not kept) */
static int fill_mask(Engine *e, char *bytes, PyObject *legal, Ids *set)
{
    PyObject *seq = PySequence_Fast(legal, "legal actions must be a sequence");
    if (seq == NULL)
        return -1;
    int rc = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n && !rc; i++) {
        long a = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((a == -1 && PyErr_Occurred()) || check_id(e, a) ||
            (set != NULL && ids_push(set, (int)a)))
            rc = -1;
        else
            bytes[a] = 1;
    }
    Py_DECREF(seq);
    return rc;
}

/* a float32 vector holding writer's observation of seat in state (a new reference) */
static PyObject *new_observation(Engine *e, Writer *writer, PyObject *state, int seat)
{
    Py_buffer view;
    int slot, fresh;
    PyObject *obs = spare_or_new(e->vectors, "f", writer_size(writer), sizeof(float), e->empty,
                                 e->float32, &view, &slot, &fresh);
    if (obs == NULL)
        return NULL;
    int rc = writer_fill(writer, view.buf, state, seat); /* every entry, from scratch */
    PyBuffer_Release(&view);
    if (rc)
        Py_CLEAR(obs);
    return obs;
}

/* the int8 mask of legal (NULL: no legal moves) as a new reference */
static PyObject *new_mask(Engine *e, PyObject *legal)
{
    Py_buffer view;
    int slot, fresh;
    PyObject *mask = spare_or_new(e->masks, "b", e->num_actions, 1, e->zeros, e->int8, &view,
                                  &slot, &fresh);
    if (mask == NULL)
        return NULL;
    Ids *set = slot < 0 ? NULL : &e->masks[slot].set;
    if (!fresh)
        clear_mask(view.buf, view.len, set);
    int rc = legal == NULL ? 0 : fill_mask(e, view.buf, legal, set);
    PyBuffer_Release(&view);
    if (rc)
        Py_CLEAR(mask); /* the ids set so far are noted: the next clear_mask clears them */
    return mask;
}

static PyObject *Engine_observation(Engine *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "observation(writer, state, seat) takes 3 arguments");
        return NULL;
    }
    PyObject *state = args[1], *obs = NULL, *mask = NULL, *legal = NULL, *out = NULL;
    if (!PyObject_TypeCheck(args[0], &WriterType)) {
        PyErr_SetString(PyExc_TypeError,
                        "observation(writer, state, seat): writer must be a Writer");
        return NULL;
    }
    long seat = PyLong_AsLong(args[2]), to_move;
    if (ready(self) || (seat == -1 && PyErr_Occurred()) || check_seat(self, seat) ||
        attr_long(state, s_current_player, &to_move))
        return NULL;
    obs = new_observation(self, (Writer *)args[0], state, (int)seat);
    if (obs == NULL)
        goto done;
    if (seat == to_move) {
        PyObject *terminal = PyObject_GetAttr(state, s_terminal);
        int over = terminal == NULL ? -1 : PyObject_IsTrue(terminal);
        Py_XDECREF(terminal);
        if (over < 0 || (!over && (legal = state_legal(self, state)) == NULL))
            goto done;
    }
    if ((mask = new_mask(self, legal)) == NULL)
        goto done;
    out = PyDict_New();
    if (out != NULL && (PyDict_SetItem(out, s_observation, obs) ||
                        PyDict_SetItem(out, s_action_mask, mask)))
        Py_CLEAR(out);
done:
    Py_XDECREF(obs);
    Py_XDECREF(mask);
    Py_XDECREF(legal);
    return out;
}

/* -- Engine -------------------------------------------------------------------------------- */

static int spec_int(PyObject *spec, const char *key, int *out)
{
    PyObject *value = PyDict_GetItemString(spec, key);
    if (value == NULL) {
        PyErr_Format(PyExc_KeyError, "engine spec lacks %s", key);
        return -1;
    }
    long v = PyLong_AsLong(value);
    if (v == -1 && PyErr_Occurred())
        return -1;
    *out = (int)v;
    return 0;
}

static PyObject *spec_item(PyObject *spec, const char *key)
{
    PyObject *value = PyDict_GetItemString(spec, key);
    if (value == NULL)
        PyErr_Format(PyExc_KeyError, "engine spec lacks %s", key);
    return value;
}

/* a copy of spec[key], bytes of count C ints */
static int *spec_ints(PyObject *spec, const char *key, Py_ssize_t count)
{
    PyObject *value = spec_item(spec, key);
    if (value == NULL)
        return NULL;
    if (!PyBytes_Check(value) || PyBytes_GET_SIZE(value) != count * (Py_ssize_t)sizeof(int)) {
        PyErr_Format(PyExc_ValueError, "engine spec %s must be bytes of %zd C ints", key, count);
        return NULL;
    }
    int *out = PyMem_Malloc((size_t)count * sizeof(int));
    if (out == NULL)
        return (int *)PyErr_NoMemory();
    memcpy(out, PyBytes_AS_STRING(value), (size_t)count * sizeof(int));
    return out;
}

static int check_kinds(PyObject *spec)
{
    PyObject *kinds = spec_item(spec, "kinds");
    if (kinds == NULL)
        return -1;
    if (!PyTuple_Check(kinds) || PyTuple_GET_SIZE(kinds) != NUM_KINDS)
        goto bad;
    for (int k = 0; k < NUM_KINDS; k++) {
        PyObject *label = PyTuple_GET_ITEM(kinds, k);
        if (!PyUnicode_Check(label) || PyUnicode_CompareWithASCIIString(label, KIND_LABELS[k]))
            goto bad;
    }
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "engine spec kinds differ from the compiled core's");
    return -1;
}

static int read_readings(Engine *e, PyObject *spec)
{
    if ((e->reading_start = spec_ints(spec, "reading_start", e->num_actions + 1)) == NULL)
        return -1;
    int count = e->reading_start[e->num_actions];
    int *flat = spec_ints(spec, "readings", READING_FIELDS * (Py_ssize_t)count);
    if (flat == NULL)
        return -1;
    e->readings = PyMem_Malloc((size_t)(count ? count : 1) * sizeof(Reading));
    if (e->readings == NULL) {
        PyMem_Free(flat);
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < count; i++) {
        const int *f = flat + READING_FIELDS * i;
        e->readings[i] = (Reading){(unsigned char)f[0], (unsigned char)f[1], (unsigned char)f[2]};
    }
    PyMem_Free(flat);
    for (int a = 0; a < e->num_actions; a++) {
        int n = e->reading_start[a + 1] - e->reading_start[a];
        if (n < 0 || n > MAX_READINGS || (a >= e->first_play && n == 0)) {
            PyErr_SetString(PyExc_ValueError, "engine spec readings out of range");
            return -1;
        }
    }
    return 0;
}

/* chain lengths (min, max) per chain kind, then the ids of bodies and chains */
static int read_shapes(Engine *e, PyObject *spec)
{
    static const int chains[] = {CHAIN, PAIR_CHAIN, AIRPLANE, AIRPLANE_SINGLE, AIRPLANE_PAIR};
    PyObject *lengths = spec_item(spec, "chain_lengths");
    if (lengths == NULL)
        return -1;
    for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
        int kind = chains[i];
        PyObject *pair = PyDict_GetItemString(lengths, KIND_LABELS[kind]);
        int *lo = &e->chain_min[kind], *hi = &e->chain_max[kind];
        if (pair == NULL || !PyArg_ParseTuple(pair, "ii", lo, hi) || *lo < 1 || *hi > CHAIN_RANKS) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "engine spec chain_lengths lacks %s",
                             KIND_LABELS[kind]);
            return -1;
        }
    }
    for (int width = 1; width <= MAX_WIDTH; width++)
        for (int r = 0; r < NUM_RANKS; r++)
            e->body[width][r] = width <= e->copies[r] ? lookup(e, unit(r, width)) : NONE;
    for (int width = 1; width <= WIDEST_CHAIN; width++) {
        int kind = CHAIN_OF_WIDTH[width];
        for (int n = e->chain_min[kind]; n <= e->chain_max[kind]; n++)
            for (int start = 0; start + n <= CHAIN_RANKS; start++) {
                Key key = 0;
                for (int r = start; r < start + n; r++)
                    key += unit(r, width);
                if ((e->chain_id[kind][n][start] = lookup(e, key)) == NONE)
                    return missing();
            }
    }
    return 0;
}

static int read_arrays(Engine *e, PyObject *spec)
{
    PyObject *zeros = spec_item(spec, "zeros"), *empty = spec_item(spec, "empty");
    PyObject *float32 = spec_item(spec, "float32"), *int8 = spec_item(spec, "int8");
    if (zeros == NULL || empty == NULL || float32 == NULL || int8 == NULL)
        return -1;
    Py_INCREF(zeros);
    Py_INCREF(empty);
    Py_INCREF(float32);
    Py_INCREF(int8);
    e->zeros = zeros;
    e->empty = empty;
    e->float32 = float32;
    e->int8 = int8;
    return 0;
}

static int Engine_init(Engine *self, PyObject *args, PyObject *kwds)
{
    PyObject *spec;
    if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &spec))
        return -1;
    if (self->cards != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "an Engine is initialised once");
        return -1;
    }
    if (check_kinds(spec) || spec_int(spec, "num_actions", &self->num_actions) ||
        spec_int(spec, "first_play", &self->first_play) ||
        spec_int(spec, "pass_id", &self->pass_id) || spec_int(spec, "rocket", &self->rocket) ||
        spec_int(spec, "rocket_power", &self->rocket_power) ||
        spec_int(spec, "play_phase", &self->play_phase) ||
        spec_int(spec, "players", &self->players) || spec_int(spec, "widest", &self->widest) ||
        spec_int(spec, "rocket_width", &self->rocket_width))
        return -1;
    if (self->num_actions < 1 || self->first_play < 1 || self->first_play > self->num_actions ||
        self->players < 1 || self->players > MAX_PLAYERS || self->widest < BOMB_WIDTH ||
        self->widest > MAX_WIDTH || self->rocket < self->first_play ||
        self->rocket >= self->num_actions) {
        PyErr_SetString(PyExc_ValueError, "engine spec out of range");
        return -1;
    }
    self->one_pack = self->widest == BOMB_WIDTH;
    PyObject *copies = spec_item(spec, "copies"), *cards = spec_item(spec, "card_bytes");
    if (copies == NULL || cards == NULL || packed_bytes(copies, self->copies))
        return -1;
    size_t table = (size_t)(self->num_actions + 1) * NUM_RANKS;
    if (!PyBytes_Check(cards) || (size_t)PyBytes_GET_SIZE(cards) != table) {
        PyErr_SetString(PyExc_ValueError,
                        "engine spec card_bytes must be (num_actions + 1) * 15 bytes");
        return -1;
    }
    if ((self->cards = PyMem_Malloc(table)) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(self->cards, PyBytes_AS_STRING(cards), table);
    if ((self->bomb_power = spec_ints(spec, "bomb_power", self->num_actions)) == NULL ||
        (self->bomb_main = spec_ints(spec, "bomb_main", self->num_actions)) == NULL ||
        read_readings(self, spec) || build_key_table(self) || read_shapes(self, spec) ||
        read_arrays(self, spec))
        return -1;
    if ((self->seen = PyMem_Calloc((size_t)self->num_actions, 1)) == NULL ||
        (self->id_obj = PyMem_Calloc((size_t)self->num_actions, sizeof(PyObject *))) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int a = 0; a < self->num_actions; a++)
        if ((self->id_obj[a] = PyLong_FromLong(a)) == NULL)
            return -1;
    return 0;
}

static void Engine_dealloc(Engine *self)
{
    if (self->id_obj != NULL)
        for (int a = 0; a < self->num_actions; a++)
            Py_XDECREF(self->id_obj[a]);
    PyMem_Free(self->id_obj);
    PyMem_Free(self->cards);
    PyMem_Free(self->bomb_power);
    PyMem_Free(self->bomb_main);
    PyMem_Free(self->reading_start);
    PyMem_Free(self->readings);
    PyMem_Free(self->keys);
    PyMem_Free(self->key_ids);
    PyMem_Free(self->seen);
    PyMem_Free(self->columns);
    PyMem_Free(self->shortfall);
    PyMem_Free(self->out.ids);
    free_spares(self->vectors);
    free_spares(self->masks);
    Py_XDECREF(self->empty);
    Py_XDECREF(self->zeros);
    Py_XDECREF(self->float32);
    Py_XDECREF(self->int8);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Engine_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    Engine *self = (Engine *)type->tp_alloc(type, 0); /* zero-filled */
    return (PyObject *)self;
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f)

static PyMethodDef Engine_methods[] = {
    {"legal", (PyCFunction)Engine_legal, METH_O,
     "legal(state): the legal ids of the play phase, as a tuple in the generator's order"},
    {"play", FASTCALL(Engine_play), METH_FASTCALL,
     "play(state, action): apply a legal play or pass; None or the rewards of the end"},
    {"apply", FASTCALL(Engine_apply), METH_FASTCALL,
     "apply(state, action): play() when action is in the state's cached legal tuple of the "
     "play phase, else NotImplemented"},
    {"observation", FASTCALL(Engine_observation), METH_FASTCALL,
     "observation(writer, state, seat): {'observation': float32 vector written by writer, "
     "'action_mask': int8 mask}, in arrays nobody else holds"},
    {NULL}};

static PyTypeObject EngineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "climbrl.envs.doudizhu._fast.Engine",
    .tp_basicsize = sizeof(Engine),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Engine(spec): legal plays, apply and observation with mask for the games of "
              "one Dou Dizhu catalog (climbrl.envs.doudizhu.compiled.engine_spec)",
    .tp_new = Engine_new,
    .tp_init = (initproc)Engine_init,
    .tp_dealloc = (destructor)Engine_dealloc,
    .tp_methods = Engine_methods,
};

#define INTERN(var, text)                                                                    \
    if ((var = PyUnicode_InternFromString(text)) == NULL)                                    \
        return -1;

int engine_add_type(PyObject *module)
{
    INTERN(s_hands, "hands");
    INTERN(s_played, "played");
    INTERN(s_plays_made, "plays_made");
    INTERN(s_trick, "trick");
    INTERN(s_history, "history");
    INTERN(s_phase, "phase");
    INTERN(s_terminal, "terminal");
    INTERN(s_current_player, "current_player");
    INTERN(s_pile, "pile");
    INTERN(s_pile_owner, "pile_owner");
    INTERN(s_pile_power, "pile_power");
    INTERN(s_pile_subs, "pile_subs");
    INTERN(s_passes, "passes");
    INTERN(s_bombs, "bombs");
    INTERN(s_wild, "wild");
    INTERN(s_legal, "_legal");
    INTERN(s_legal_actions, "legal_actions");
    INTERN(s_finish, "_finish");
    INTERN(s_observation, "observation");
    INTERN(s_action_mask, "action_mask");
    if (PyType_Ready(&EngineType) < 0)
        return -1;
    Py_INCREF(&EngineType);
    if (PyModule_AddObject(module, "Engine", (PyObject *)&EngineType) < 0) {
        Py_DECREF(&EngineType);
        return -1;
    }
    return 0;
}
