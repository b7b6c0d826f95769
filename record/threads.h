/* SPDX-License-Identifier: MIT */
/*
 * record/threads.h - what the recorder keeps per thread and per process:
 * one table of each, with one lifetime, charged to the memory budget.
 *
 * A thread's row holds the name last recorded for it and its name rows in
 * the current commit (record/session.c folds a renaming loop); a
 * process's row whether it has samples in this file, its last exec and
 * its name rows held until its first sample. Rows are found by id (tid,
 * tgid) with one lookup.
 *
 * Lifetime: a thread's row goes two commits after the side-band's exit
 * record of that thread, as a process's mappings do (session.c,
 * forget_exited): by then the sampler has read every sample taken before
 * the exit, so a late sample still finds its thread's row. A thread whose
 * tid is named again after its exit (a new thread on a reused tid, its
 * comm or sample stamped later) keeps its row. A process's row, and the
 * rows of all its threads, go when session.c forgets the process. A row
 * removed early costs nothing but one more name row in the file: samples
 * carry their thread's name, and the reader takes a thread's latest row
 * at or before each sample.
 *
 * Bound: the rows and their index are taken from the memory budget
 * (record/budget.h), at most a quarter of it. Past that a new thread or
 * process gets no row (threads__thread_add says -ENOSPC, and a warning
 * says it once): its names are written without being deduplicated.
 *
 * Which tids have a name row in the current file is one bit per tid
 * (tids are below 2^22, the kernel's PID_MAX_LIMIT): at most 512 KiB,
 * and never forgotten within a file, so that a reused tid's first row is
 * never taken for a row "from the file's start" (session.c).
 */
#ifndef EPROF_RECORD_THREADS_H
#define EPROF_RECORD_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/recording.h"
#include "util/hashmap.h"

/* The first member of every row: its id and whether it is removed. */
struct row_head {
	uint32_t id;
	uint32_t dead;		/* removed, its slot kept until the table is compacted */
};

struct thread_row {
	struct row_head h;	/* h.id: the tid */
	uint32_t tgid;
	bool has_comm;		/* comm is the name last recorded for it in this file */
	bool comm_kept;		/* comm is its last name heard, in this file or an earlier one */
	uint32_t nr_rows;	/* name rows in comm epoch `epoch` */
	uint32_t late;		/* ... its folded row: index + 1 into session.late_comms */
	uint64_t epoch;
	uint64_t exit_ns;	/* its exit record's time; 0: none (or a new thread since) */
	uint64_t exit_commit;	/* the commit it was noted in */
	uint64_t cgroup_heard;	/* the cgroup id last heard for it (across files); 0: none */
	uint64_t cgroup_written;	/* ... of its last cgroup row in this file; 0: none */
	char comm[REC_COMM_LEN];
};

struct proc_row {
	struct row_head h;	/* h.id: the tgid */
	bool sampled;		/* has samples or off-CPU stacks in this file */
	uint64_t exec_ns;	/* its last exec the side-band saw; 0: none */
	uint64_t held;		/* its name rows held in session.pending_comms */
	uint64_t born_ns;	/* its fork the side-band saw (record/jitmap.c); 0: none */
	uint64_t exec_uid;	/* 1 + its uid just after its exec (record/jitmap.c); 0: none */
};

/* Rows of one kind by id; a row moves when the table grows or is compacted. */
struct row_table {
	struct hashmap index;	/* id -> position in rows (removed rows too, until compacted) */
	unsigned char *rows;
	size_t size;		/* of a row */
	size_t nr, alloc;	/* rows used (live and removed) and allocated */
	size_t nr_dead;
	size_t peak;		/* the most live rows at once */
	uint64_t charged;	/* bytes taken from the memory budget */
};

/* A bit per tid below THREADS_TID_LIMIT. */
struct tid_bits {
	uint64_t *v;
	size_t words;
};

struct threads {
	struct row_table thr, proc;
	struct tid_bits named;		/* has a name row in this file */
	struct tid_bits cgrouped;	/* has a cgroup row in this file */
	uint64_t nr_refused;	/* rows not kept: the table's share of the budget full */
	uint64_t nr_removed;	/* thread rows removed since the start */
};

/* Thread ids at or over this have no bit: always taken as named in this file. */
#define THREADS_TID_LIMIT	(1u << 22)

/* An empty table; zeroed memory is one too. */
void threads__init(struct threads *t);
/* Frees the rows and gives their bytes back to the budget. NULL-safe. */
void threads__release(struct threads *t);

/* The row of tid, or NULL. Valid until the next addition or threads__sweep(). */
struct thread_row *threads__thread(const struct threads *t, uint32_t tid);
/*
 * The row of tid, added (zeroed, with tgid) when absent. -ENOSPC when
 * the table's share of the budget is full (warned once), -ENOMEM.
 */
int threads__thread_add(struct threads *t, uint32_t tid, uint32_t tgid, struct thread_row **out);

/* Likewise for processes. */
struct proc_row *threads__proc(const struct threads *t, uint32_t tgid);
int threads__proc_add(struct threads *t, uint32_t tgid, struct proc_row **out);

/* Thread tid ended at time_ns, noted in commit `commit`: its row goes at commit + 2. */
void threads__thread_exit(struct threads *t, uint32_t tid, uint64_t time_ns, uint64_t commit);

/*
 * Thread row r is named or sampled at time_ns: later than its exit, it
 * is a new thread on the same tid, and keeps its row.
 */
static inline void thread_row__alive_at(struct thread_row *r, uint64_t time_ns)
{
	if (r->exit_ns && time_ns > r->exit_ns)
		r->exit_ns = r->exit_commit = 0;
}

/*
 * Removes the thread rows whose exit was noted two commits or more before
 * commit, the rows of the processes in gone (NULL: none) and their
 * threads', and gives memory back when most of the table is free (an
 * index that cannot be rebuilt then drops the rows: threads.c).
 */
void threads__sweep(struct threads *t, uint64_t commit, const struct u64map *gone);

/*
 * The processes not in live forget their exec time; their rows go unless
 * they have samples or held rows.
 */
void threads__forget_exec(struct threads *t, const struct u64map *live);

/* Whether tid has a name row in this file. */
bool threads__named(const struct threads *t, uint32_t tid);
/* Notes that tid has one. -ENOMEM. */
int threads__set_named(struct threads *t, uint32_t tid);

/* Whether tid has a cgroup row in this file; notes that it has one now. -ENOMEM. */
int threads__cgroup_first(struct threads *t, uint32_t tid, bool *first);

/*
 * A new file (--switch-output): no thread is named or has a cgroup row in
 * it, no process has samples in it; exits, exec times, cgroups heard and
 * held rows stay.
 */
void threads__start_file(struct threads *t);

/* Live rows now. */
size_t threads__nr_threads(const struct threads *t);
size_t threads__nr_procs(const struct threads *t);

#endif
