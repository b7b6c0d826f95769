/* SPDX-License-Identifier: MIT */
/*
 * record/python.h - Python frames: which targets run a CPython interpreter
 * the sampler can walk, and what their frames name.
 *
 * For each sampled process record/ looks once (again after an exec) for a
 * mapped python3.x binary or libpython3.x that exports _PyRuntime, checks
 * the interpreter's version against the offset table and puts where to
 * walk into the sampler's py_procs map. Samples then carry Python frames
 * (bpf/events.h, PY_FRAME_TAG); pyrec__splice() puts each run of them just
 * inside the native eval-loop frame that ran it, and reads every code
 * object a frame names once per process (process_vm_readv, every size and
 * pointer from the target bounded) into the recording's python_code table.
 */
#ifndef EPROF_RECORD_PYTHON_H
#define EPROF_RECORD_PYTHON_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/events.h"

struct recording;
struct ev_sample;
struct pyrec;

/* Frames a spliced sample may have: kernel, user and Python. */
#define PYREC_MAX_FRAMES	(EV_MAX_FRAMES + EV_MAX_UFRAMES + EV_PY_MAX_FRAMES)

/* What the Python walks came to, for the summary and info. */
struct pyrec_stats {
	uint64_t procs;			/* interpreters walked */
	uint64_t unknown_version;	/* interpreters of a version without offsets */
	uint64_t unknown_samples;	/* their samples: native frames only */
	char unknown_first[48];		/* "3.10 (process 12)": the first of them, "" none */
	uint64_t codes;			/* code objects stored */
	uint64_t code_unreadable;	/* code objects that could not be read */
	uint64_t frames_unplaced;	/* Python frames with no eval-loop frame for them */
	uint64_t frames_outer;		/* put outermost: the native walk missed their eval loop */
	uint64_t frames_unnamed;	/* Python frames whose code object was not read or kept */
};

/* map_fd: the sampler's py_procs; -1 to only splice (tests). 0 or -ENOMEM. */
int pyrec__new(int map_fd, struct pyrec **out);
void pyrec__free(struct pyrec *pr);

/*
 * Notes a sample of tgid whose thread is named comm, taken at now_ns, the
 * process's last exec seen at exec_ns (0: none seen): the first sample of
 * a process, the first after an exec (a new exec_ns or a new name), and a
 * few more at growing intervals while none is found, look for an
 * interpreter. Never fails: a process it cannot walk has native frames only.
 */
void pyrec__seen(struct pyrec *pr, uint32_t tgid, const char *comm, uint64_t exec_ns,
		 uint64_t now_ns);

/*
 * The interpreters that run before sampling starts, looked for at once (as
 * pyrec__seen() does) so that their first samples are walked too: the n
 * processes pids (-p), or with pids NULL (-a) every process whose program
 * is a python3 binary (one that embeds libpython is found at its first
 * sample). Never fails.
 */
void pyrec__look_running(struct pyrec *pr, const uint32_t *pids, size_t n);

/*
 * The frames of a sample with Python frames (e->hdr.flags): kernel frames,
 * then the user frames with the Python frames put in, into out (room for
 * PYREC_MAX_FRAMES), *nu the user count; stores the code objects they name
 * that rec does not have yet. 0 or -errno (a write failure, printed).
 */
int pyrec__splice(struct pyrec *pr, struct recording *rec, const struct ev_sample *e, bool keyed,
		  uint64_t *out, uint32_t *nu);

/*
 * Replaces, in place, the code addresses of e's Python frames with their
 * keys (code objects read now, while the process lives), for a sample held
 * before its splice (record/rawstack.h): spliced later with keyed true.
 * 0 or -errno (a write failure, printed).
 */
int pyrec__key(struct pyrec *pr, struct recording *rec, struct ev_sample *e);

/*
 * A process that ended: its walk (the sampler's py_procs entry) and its
 * code objects are dropped; a later process with its id is looked at anew.
 * Accepts NULL.
 */
void pyrec__forget(struct pyrec *pr, uint32_t tgid);

/*
 * For tests, which drive the splice and the code-object budget without an
 * interpreter: process tgid is taken as running one of version (0x030b;
 * not one whose layout is read from the process) with its eval loop at
 * [eval_lo, eval_hi); and the budget set to per_proc code objects a process,
 * total in all (PY_CODES_MAX and PY_CODES_TOTAL_MAX in python.c otherwise).
 * 0, -EINVAL (no such row) or -ENOMEM.
 */
int pyrec__adopt(struct pyrec *pr, uint32_t tgid, uint32_t version, uint64_t eval_lo,
		 uint64_t eval_hi);
void pyrec__set_code_budget(struct pyrec *pr, uint64_t per_proc, uint64_t total);

const struct pyrec_stats *pyrec__stats(const struct pyrec *pr);

/*
 * The Python accounting into rec's meta (REC_META_PY_*), with the sampler's
 * totals tot (EV_STAT_MAX of them); nothing when no interpreter was met
 * (pr NULL too). 0 or -errno.
 */
int pyrec__store(const struct pyrec *pr, struct recording *rec, const uint64_t *tot);

#endif
