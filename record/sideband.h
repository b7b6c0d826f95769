/* SPDX-License-Identifier: MIT */
/*
 * record/sideband.h - mappings and thread names of the targets: from perf
 * side-band records while recording, from /proc for what existed before.
 */
#ifndef EPROF_RECORD_SIDEBAND_H
#define EPROF_RECORD_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/recording.h"

struct perf_event_header;

struct sideband;

/*
 * Where what the side-band learns goes (record/session.c keeps it). Each
 * returns 0 or a negative error (printed), which stops the consume.
 */
struct sideband_sink {
	/* An executable mapping of a target (time 0: it existed before the recording). */
	int (*mapping)(void *ctx, const struct rec_mapping *m);
	/* Thread tid of tgid is called comm from time_ns on; exec: the name came with an exec. */
	int (*comm)(void *ctx, uint64_t time_ns, uint32_t tgid, uint32_t tid, const char *comm,
		    bool exec);
	/* Process pid was forked from ppid at fork_ns; forks come oldest first. */
	int (*fork)(void *ctx, uint32_t ppid, uint32_t pid, uint64_t fork_ns);
	/* Process pid ended. */
	int (*exit)(void *ctx, uint32_t pid, uint64_t time_ns);
	/* Thread tid of tgid ended, not its leader (NULL: not wanted). */
	int (*thread_exit)(void *ctx, uint32_t tgid, uint32_t tid, uint64_t time_ns);
	/* The kernel dropped nr side-band records of CPU cpu (-1: unknown). */
	void (*lost)(void *ctx, int cpu, uint64_t nr);
	/* Whether pid is recorded; NULL: every process is. */
	bool (*is_target)(void *ctx, uint32_t pid);
	void *ctx;
};

/*
 * Opens and enables a dummy perf event with mmap2/comm/task records on
 * every online CPU (build-ids read from the files, never the kernel),
 * registered in the sampler's map map_fd; what it learns goes to sink
 * (copied). task non-zero (-- CMD, the command at its gate): the events
 * follow that process, its threads and children only. Else nr_pids
 * processes pids (-p): every thread of theirs, and what they start later,
 * unless they have too many threads (then every process, as without).
 */
int sideband__open(int map_fd, uint32_t task, const uint32_t *pids, size_t nr_pids,
		   const struct sideband_sink *sink, struct sideband **out);

/*
 * A side-band with no perf events yet (sideband__open() adds them): records
 * reach it through sideband__handle() only, as unit tests feed them.
 */
int sideband__new(const struct sideband_sink *sink, struct sideband **out);

/*
 * Handles one perf record read from CPU cpu's buffer. Forks are held back
 * until sideband__end_batch(): the records of the other CPUs may still
 * hold the parent's mmaps that happened before the fork.
 */
int sideband__handle(struct sideband *sb, int cpu, const struct perf_event_header *h);

/*
 * Applies every held fork, oldest first: for the end of a recording, when
 * every buffer has been read for the last time (sideband__consume applies
 * only the forks whose earlier records are surely in).
 */
int sideband__end_batch(struct sideband *sb);

/* Readable when records wait; the same fd however often the buffers grow. */
int sideband__epoll_fd(struct sideband *sb);

/*
 * Handles every queued record. When records were lost since the last
 * growth, larger buffers replace the current ones, with nothing lost or
 * handled twice in between (record/overlap.h); a failure there is said
 * once, and the buffers stay.
 */
int sideband__consume(struct sideband *sb);

/*
 * Every record stamped before this time has been handled: the start of the
 * last pass of sideband__consume() (UINT64_MAX after sideband__end_batch(),
 * 0 before the first pass or for NULL). No record handled later is stamped
 * before it.
 */
uint64_t sideband__read_past(const struct sideband *sb);

/*
 * Adds the executable file mappings (time 0) and the thread names of the
 * existing processes pids[0 .. nr), or of every process when all is set.
 */
int sideband__scan_proc(struct sideband *sb, const uint32_t *pids, size_t nr, bool all);

/*
 * After a side-band loss: the mappings and thread names of processes
 * pids[0 .. nr) read again from /proc, the mappings stamped time_ns (their
 * records may be among those lost). A process gone is skipped.
 */
int sideband__rescan(struct sideband *sb, const uint32_t *pids, size_t nr, uint64_t time_ns);

/*
 * The side-band buffers' size now, in pages per CPU, and how many times
 * they grew: a loss replaces them by larger ones, up to a bound and within
 * the memory budget (record/budget.h). 0 and 0 for NULL.
 */
void sideband__size(const struct sideband *sb, size_t *pages, size_t *grown);

/* Accepts NULL. */
void sideband__close(struct sideband *sb);

#endif
