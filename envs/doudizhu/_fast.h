/* What the two C files of climbrl.envs.doudizhu._fast share: the card constants and the
 * helpers that read packed cards and state attributes (_fast.c), and the types each file
 * adds to the module. */

#ifndef CLIMBRL_DOUDIZHU_FAST_H
#define CLIMBRL_DOUDIZHU_FAST_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NUM_RANKS 15    /* 3 4 5 6 7 8 9 T J Q K A 2 B R */
#define NUMBER_RANKS 13 /* ranks 3..2, the ones with suits */
#define CHAIN_RANKS 12  /* chains run over 3..A */
#define BLACK_JOKER 13
#define RED_JOKER 14
#define MAX_PLAYERS 8

/* the counts of packed cards (an int, one byte a rank) into out[NUM_RANKS] */
int packed_bytes(PyObject *value, unsigned char *out);
/* counts[NUM_RANKS] as packed cards (a new int) */
PyObject *packed_int(const unsigned char *counts);
/* state.name as a C long (0, or -1 with an error) */
int attr_long(PyObject *state, PyObject *name, long *out);

/* the observation writer of _fast.c, for the engine's observation-and-mask call */
typedef struct Writer Writer;
extern PyTypeObject WriterType;
Py_ssize_t writer_size(Writer *w);
/* the observation of seat in state, from scratch, into buf (writer_size floats) */
int writer_fill(Writer *w, float *buf, PyObject *state, int seat);

/* _engine.c: adds the Engine type to the module */
int engine_add_type(PyObject *module);

#endif
