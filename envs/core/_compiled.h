/* What the games' compiled cores share (climbrl.envs.doudizhu._fast, envs/doudizhu/_fast.c;
 * climbrl.envs.daifugo._fast, envs/daifugo/_fast.c): reading the writer spec, the float32
 * buffer a writer writes into, the part of a seat observer (SeatWriter) that holds that
 * buffer, the methods and slots the Writer and SeatWriter types have alike, and the module
 * holding them.
 *
 * Static functions: each extension that includes this header (once, from its _fast.c) has its
 * own copy. setup.py puts this folder on both extensions' include path.
 */

#ifndef CLIMBRL_CORE_COMPILED_H
#define CLIMBRL_CORE_COMPILED_H

#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN
#endif
#include <Python.h>
#include <string.h>
#if PY_VERSION_HEX >= 0x030C0000
#define SLOT_OBJECT Py_T_OBJECT_EX
#else
#include <structmember.h>
#define SLOT_OBJECT T_OBJECT_EX
#endif
#ifdef Py_RELATIVE_OFFSET
#define RELATIVE(member) ((member)->flags & Py_RELATIVE_OFFSET)
#else
#define RELATIVE(member) 0
#endif

#define FLOAT_BYTES 4 /* an entry of the float32 observation */
#define MAX_STATE_ATTRS 32 /* the most state attributes a writer reads */

/* -- the writer spec (a dict the game's compiled.writer_spec builds) ---------------------- */

/* spec[key] as a long in lo..hi: missing, a KeyError; out of range, a ValueError naming key */
static int spec_long(PyObject *spec, const char *key, long lo, long hi, long *out)
{
    PyObject *value = PyDict_GetItemString(spec, key);
    if (value == NULL) {
        PyErr_Format(PyExc_KeyError, "writer spec lacks %s", key);
        return -1;
    }
    *out = PyLong_AsLong(value);
    if (*out == -1 && PyErr_Occurred())
        return -1;
    if (*out < lo || *out > hi) {
        PyErr_Format(PyExc_ValueError, "writer spec %s is %ld, outside %ld..%ld", key, *out, lo,
                     hi);
        return -1;
    }
    return 0;
}

/* spec[key] as an int in lo..hi (spec_long's errors) */
static int spec_int(PyObject *spec, const char *key, int lo, int hi, int *out)
{
    long value;
    if (spec_long(spec, key, lo, hi, &value))
        return -1;
    *out = (int)value;
    return 0;
}

/* spec[key], bytes of exactly length (a new reference), else NULL with a ValueError naming
 * key and length */
static PyObject *spec_bytes(PyObject *spec, const char *key, Py_ssize_t length)
{
    PyObject *value = PyDict_GetItemString(spec, key);
    if (value == NULL || !PyBytes_Check(value) || PyBytes_GET_SIZE(value) != length) {
        PyErr_Format(PyExc_ValueError, "writer spec %s must be bytes of %zd", key, length);
        return NULL;
    }
    Py_INCREF(value);
    return value;
}

/* -- the state's attributes ---------------------------------------------------------------- */

/* Where each attribute a writer reads lies in the states of one class: a slot (__slots__)
 * holding an object is read at its offset; anything else (a property, an instance dict, a
 * class with its own __getattribute__) through getattr. A writer learns the class of the
 * first state it reads, and again when another class comes. */
typedef struct {
    PyObject *type; /* the class learnt (a reference; NULL: none yet) */
    Py_ssize_t offset[MAX_STATE_ATTRS]; /* per attribute: its slot's offset, or -1 */
} StateSlots;

/* learns where names[0..count) lie in type's states (count <= MAX_STATE_ATTRS) */
static void slots_learn(StateSlots *slots, PyObject *const *names, int count, PyTypeObject *type)
{
    int generic = type->tp_getattro == PyObject_GenericGetAttr;
    for (int a = 0; a < count; a++) {
        slots->offset[a] = -1;
        PyObject *found = generic ? PyObject_GetAttr((PyObject *)type, names[a]) : NULL;
        if (found == NULL) {
            PyErr_Clear();
            continue;
        }
        if (Py_IS_TYPE(found, &PyMemberDescr_Type)) {
            PyMemberDef *member = ((PyMemberDescrObject *)found)->d_member;
            if (member->type == SLOT_OBJECT && member->offset > 0 && !RELATIVE(member))
                slots->offset[a] = member->offset;
        }
        Py_DECREF(found);
    }
    Py_INCREF(type);
    Py_XSETREF(slots->type, (PyObject *)type);
}

/* state.names[a] (a new reference), read at its slot where state is of the class learnt, or
 * NULL with an error */
static PyObject *slots_get(const StateSlots *slots, PyObject *const *names, PyObject *state,
                           int a)
{
    Py_ssize_t offset = Py_TYPE(state) == (PyTypeObject *)slots->type ? slots->offset[a] : -1;
    if (offset < 0)
        return PyObject_GetAttr(state, names[a]);
    PyObject *value = *(PyObject **)((char *)state + offset);
    if (value == NULL) {
        PyErr_Format(PyExc_AttributeError, "state.%U is not set", names[a]);
        return NULL;
    }
    Py_INCREF(value);
    return value;
}

/* state.names[a] as a C long (0, or -1 with an error) */
static int slots_long(const StateSlots *slots, PyObject *const *names, PyObject *state, int a,
                      long *out)
{
    PyObject *value = slots_get(slots, names, state, a);
    if (value == NULL)
        return -1;
    *out = PyLong_AsLong(value);
    Py_DECREF(value);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* interns texts[0..count) into names (0, or -1 with an error) */
static int intern_names(const char *const *texts, int count, PyObject **names)
{
    for (int a = 0; a < count; a++)
        if ((names[a] = PyUnicode_InternFromString(texts[a])) == NULL)
            return -1;
    return 0;
}

/* -- the buffer written ------------------------------------------------------------------- */

/* out as a writable float32 buffer of size entries into view, or -1 with a ValueError */
static int get_float_buffer(PyObject *out, Py_ssize_t size, Py_buffer *view)
{
    if (PyObject_GetBuffer(out, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->itemsize != FLOAT_BYTES || view->format == NULL || strcmp(view->format, "f") != 0 ||
        view->len != size * FLOAT_BYTES) {
        PyErr_Format(PyExc_ValueError, "out must be a float32 buffer of %zd entries", size);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* -- the seat observer's buffer ----------------------------------------------------------- */

/* The first fields of every game's SeatWriter struct (its own fields follow): the buffer
 * written (NULL until held), its view, the seat observed. */
#define SEAT_HEAD                                                                            \
    PyObject_HEAD                                                                            \
    PyObject *out;                                                                           \
    Py_buffer view;                                                                          \
    int seat;

typedef struct {
    SEAT_HEAD
} SeatHead;

/* A new seat observer of type (a SeatWriter type, whose struct begins with SEAT_HEAD): out
 * held as a float32 buffer of size entries, the seat set, the fields after the head zeroed
 * (the caller sets them); or NULL with an error. */
static PyObject *seat_new(PyTypeObject *type, PyObject *out, Py_ssize_t size, int seat)
{
    SeatHead *obs = (SeatHead *)PyType_GenericAlloc(type, 0); /* zeroed: out is NULL */
    if (obs == NULL)
        return NULL;
    if (get_float_buffer(out, size, &obs->view)) {
        Py_DECREF(obs);
        return NULL;
    }
    Py_INCREF(out);
    obs->out = out;
    obs->seat = seat;
    return (PyObject *)obs;
}

/* lets go of what seat_new held (a SeatWriter's dealloc) */
static void seat_release(SeatHead *obs)
{
    if (obs->out != NULL) {
        PyBuffer_Release(&obs->view);
        Py_CLEAR(obs->out);
    }
}

static PyObject *SeatHead_get_buf(PyObject *self, void *closure)
{
    PyObject *out = ((SeatHead *)self)->out;
    Py_INCREF(out);
    return out;
}

static PyObject *SeatHead_get_seat(PyObject *self, void *closure)
{
    return PyLong_FromLong(((SeatHead *)self)->seat);
}

/* a SeatWriter type's getters: buf and seat */
static PyGetSetDef SeatHead_getset[] = {
    {"buf", SeatHead_get_buf, NULL, "the buffer written", NULL},
    {"seat", SeatHead_get_seat, NULL, "the seat observed", NULL},
    {NULL}};

/* a SeatWriter type's observe method, the game's observe function (METH_O) */
#define SEAT_OBSERVE_METHOD(observe)                                                         \
    {"observe", (PyCFunction)(observe), METH_O,                                              \
     "observe(state): this seat's observation of state, written into the buffer, which is "  \
     "returned (callers copy it)"}

/* the slots of a SeatWriter type but its name and size: the game's dealloc and methods */
#define SEAT_WRITER_SLOTS(dealloc, methods)                                                  \
    .tp_flags = Py_TPFLAGS_DEFAULT,                                                          \
    .tp_doc = "One seat's observer over one buffer (Writer.observer)",                        \
    .tp_dealloc = (destructor)(dealloc), .tp_methods = (methods), .tp_getset = SeatHead_getset

/* -- the Writer type ---------------------------------------------------------------------- */

/* the Writer type's methods, each game's write and observer functions (METH_FASTCALL) */
#define WRITER_METHODS(write, observer)                                                      \
    {"write", (PyCFunction)(void (*)(void))(write), METH_FASTCALL,                           \
     "write(state, seat, out): the observation of seat in state, from scratch, into out "    \
     "(a float32 buffer of the layout's size); returns out"},                                \
    {"observer", (PyCFunction)(void (*)(void))(observer), METH_FASTCALL,                     \
     "observer(seat, out): a SeatWriter of seat writing into out"}

/* the slots of a Writer type but its name, size and doc: the game's init, dealloc and
 * methods */
#define WRITER_SLOTS(init, dealloc, methods)                                                 \
    .tp_flags = Py_TPFLAGS_DEFAULT, .tp_new = PyType_GenericNew, .tp_init = (initproc)(init), \
    .tp_dealloc = (destructor)(dealloc), .tp_methods = (methods)

/* -- the module --------------------------------------------------------------------------- */

/* the definition of a game's module climbrl.envs.<game>._fast, doc its docstring */
#define FAST_MODULE(doc)                                                                     \
    {PyModuleDef_HEAD_INIT, .m_name = "_fast", .m_doc = (doc), .m_size = -1}

/* the module of def holding writer as Writer and seat_writer as SeatWriter (a new reference),
 * or NULL with an error */
static PyObject *writer_module(PyModuleDef *def, PyTypeObject *writer, PyTypeObject *seat_writer)
{
    if (PyType_Ready(writer) < 0 || PyType_Ready(seat_writer) < 0)
        return NULL;
    PyObject *m = PyModule_Create(def);
    if (m == NULL)
        return NULL;
    Py_INCREF(writer);
    Py_INCREF(seat_writer);
    if (PyModule_AddObject(m, "Writer", (PyObject *)writer) < 0 ||
        PyModule_AddObject(m, "SeatWriter", (PyObject *)seat_writer) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

#endif
