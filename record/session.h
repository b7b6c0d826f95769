/* SPDX-License-Identifier: MIT */
/*
 * record/session.h - the state of one `eprof record` run: options, the
 * recording being written, the stack table, the mappings seen so far, and
 * the counters of the summary line. Only session.c and cmd_record.c see it:
 * the pipeline stages get their configuration and a sink of callbacks.
 */
#ifndef EPROF_RECORD_SESSION_H
#define EPROF_RECORD_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/recording.h"
#include "record/cgroup.h"
#include "record/mappings.h"
#include "record/stacks.h"
#include "record/threads.h"

enum target_mode {
	TARGET_NONE,
	TARGET_ALL,		/* -a */
	TARGET_PIDS,		/* -p PID,... */
	TARGET_CMD,		/* -- CMD ARGS */
};

enum call_graph {
	CALL_GRAPH_DWARF,	/* user stacks walked with unwind tables (default) */
	CALL_GRAPH_FP,		/* frame pointers only: bpf_get_stack() */
};

struct record_opts {
	uint64_t freq;			/* -F */
	const char *output;		/* -o */
	uint64_t duration_ns;		/* -d, 0: until the target ends */
	uint32_t *cpus;			/* --cpu, or every online CPU */
	size_t nr_cpus;
	enum target_mode mode;
	uint32_t *pids;			/* -p */
	size_t nr_pids;
	char **cmd;			/* -- CMD ARGS, NULL-terminated */
	char *command_line;		/* the eprof command line, for the metadata */
	char *target_desc;		/* "-a", "-p 12,13", "-- cmd args" */
	bool debuginfo;			/* --debuginfo: embed the DWARF of sampled binaries */
	enum call_graph call_graph;	/* --call-graph */
	uint64_t unwind_budget;		/* bytes of unwind tables held at once */
	uint64_t mem_limit;		/* --mem-limit: the memory ceiling (record/budget.h) */
	bool mem_limit_given;		/* ... given on the command line */
	const char *table_cache;	/* --table-cache DIR, NULL: none */
	bool no_inherit;		/* --no-inherit: not the processes the targets start */
	bool no_python;			/* --no-python: no interpreter walked (bench/python.sh) */
	bool quiet;			/* -q: no status line, no summary line */
	bool off_cpu;			/* --off-cpu: also the time threads spend off the CPU */
	uint64_t switch_bytes;		/* --switch-output SIZE: next file at this size */
	uint64_t switch_ns;		/* --switch-output TIME: next file after this long */
	const char *cgroup;		/* --cgroup: only that cgroup's tasks (implies -a) */
	uint64_t off_cpu_thresh_ns;	/* --off-cpu-thresh: intervals kept with their times */
};

/* A process whose exit the side-band saw, in the commit it saw it. */
struct exit_note {
	uint32_t pid;		/* 0: cancelled (its pid's next owner forked before it) */
	uint32_t prev;		/* index + 1 of the pid's note before it; 0: none */
	uint64_t time_ns;	/* of the exit */
	uint64_t commit;	/* session.nr_commits then */
};

struct sampler;
struct sampler_sink;
struct sideband;
struct sideband_sink;
struct jitmaps;
struct capture;
struct capture_source;
struct unwinder;
struct rawstack;
struct offcpu;
struct offcpu_config;

/*
 * A side-band record is readable a little after the time it is stamped
 * with; sideband_past_ns is trusted only this far back.
 */
#define SIDEBAND_MARGIN_NS	10000000ull

#define SESSION_COMMS_PER_COMMIT	4	/* name rows of one thread, then folded */

struct session {
	const struct record_opts *opts;
	struct recording *rec;
	struct sampler *sampler;
	struct sideband *sideband;
	struct jitmaps *jitmaps;	/* /tmp/perf-PID.map of sampled processes */
	struct capture *capture;	/* symbol data stored so far, and what is new */
	struct unwinder *unwinder;	/* --call-graph dwarf: tables for the BPF walker */
	struct rawstack *rawstack;	/* samples waiting for their tables (record/rawstack.h) */
	bool raw_final;			/* the next commit ends a file: no sample waits */
	bool gate_scan;			/* mappings met now are -- CMD's before its exec: no tables */
	struct offcpu *offcpu;		/* --off-cpu */
	struct pyrec *python;		/* Python interpreters (record/python.h), made at the first sample */
	uint64_t final_ns;		/* set at the end: the time of the last off-CPU flush */

	struct stack_table stacks;	/* and the (process, stack) pairs sampled */
	/*
	 * Per thread: its name as last recorded, its name rows this commit;
	 * per process: samples in this file, last exec, rows held. One table
	 * each, rows gone two commits after their exit (record/threads.h).
	 */
	struct threads threads;
	struct rec_comm *first_names;	/* their first rows, written at the next commit */
	size_t nr_first_names, alloc_first_names;
	/*
	 * A thread renaming itself in a loop: past SESSION_COMMS_PER_COMMIT
	 * rows in one commit, its names are folded into one row, its latest,
	 * written at the commit (late_comms, one per thread; the count and
	 * the index in its thread row, valid in comm_epoch).
	 */
	uint64_t comm_epoch;
	struct rec_comm *late_comms;
	size_t nr_late_comms, alloc_late_comms;
	uint64_t nr_comms_folded;
	uint64_t nr_comms_dropped_full;	/* held rows dropped: their share of the budget full */
	uint64_t nr_procs;		/* processes with samples in this file */
	struct cgroup_log cgroups;	/* the threads' cgroups, as this file has them */

	/*
	 * Every mapping of a live process, and of a process with samples:
	 * written only once a sample falls in it (mapping__write), dropped
	 * unwritten when its process ends without a sample. Comm rows of
	 * processes without samples wait in pending_comms likewise.
	 */
	struct mapping_table maps;
	struct rec_comm *pending_comms;
	size_t nr_pending_comms, alloc_pending_comms;
	struct exit_note *exits;	/* exited, not yet forgotten */
	size_t nr_exits, alloc_exits;
	/*
	 * Processes with samples in this file that ended while a pair of
	 * theirs still waited for a mapping: their mappings serve the last
	 * capture pass, and are forgotten when the next file starts
	 * (--switch-output). Other ended processes are forgotten two commits
	 * after their exit (forget_exited).
	 */
	uint32_t *ended;
	size_t nr_ended, alloc_ended;
	/*
	 * The pids in exits and ended, and perhaps a few more (rebuilt at
	 * each commit), each to index + 1 of its latest note in exits (0:
	 * none), the older ones chained by exit_note.prev: a fork finds its
	 * pid's notes there (a scan of exits per fork was a third of the
	 * recorder in a 16-CPU fork storm).
	 */
	struct u64map exit_pids;
	uint64_t nr_commits;
	uint64_t nr_maps_dropped, nr_comms_dropped;
	/*
	 * The unsorted tail of maps (v[nr_sorted, nr)) by process, so that a
	 * fork copies its parent's mappings without a scan of every mapping
	 * added since the last sort (inherit_mappings): tgid -> position + 1
	 * of its latest tail mapping, and per position the one before it of
	 * the same process. Valid for tail_from == nr_sorted and the layout
	 * maps_layout counts (bumped wherever mappings are dropped or moved).
	 * Its bytes are taken from the memory budget where it has room (index_tail).
	 */
	struct u64map tail_heads;
	uint32_t *tail_prev;
	size_t tail_alloc, tail_from, tail_upto;
	uint64_t tail_layout, maps_layout;

	int nr_possible_cpus;
	uint64_t *lost_sideband;	/* per possible CPU, since the last loss rows */
	uint64_t *stats_prev;		/* stats map values at the last loss rows */
	uint64_t nr_samples;
	uint64_t total_lost, total_lost_sideband, total_ustack_fail, total_kstack_fail,
		total_truncated;
	uint64_t repair_lost;		/* total_lost_sideband when the last repair began */
	uint64_t repair_until_ns;	/* processes missing mappings are read again until then */
	uint64_t repair_since_ns;	/* the loss window's start: the commit before the loss */
	uint64_t nr_rescanned;		/* processes read again from /proc after a loss */
	struct u64map repaired;		/* pids read again since the last loss */
	size_t repair_checked;		/* capture's noted pairs session__repair() looked at */
	bool repair_retry;		/* a new window: the pairs capture could not place too */
	bool repair_opened;		/* a window was opened, */
	uint64_t repair_commit;		/* when nr_commits was this */
	size_t sideband_pages_noted;	/* the buffers' size in this file's meta */
	bool comm_bounds_noted;		/* nr_comms_folded and _dropped_full in its meta: */
	uint64_t comms_folded_noted, comms_dropped_noted;
	uint64_t *stats_total;		/* stats map summed over CPUs, at the last loss rows */
	struct rec_ticks *tick_sum;	/* per possible CPU, since the start */
	uint64_t last_commit_ns;
	/*
	 * The side-band has handled every record stamped before this
	 * (sideband__read_past(), set by whoever reads it). A thread's first
	 * name in a file, and a mapping no other of its process overlaps, are
	 * written with time 0 ("from the file's start") when older than this:
	 * no row of the same thread or address that came before them can be
	 * read after. A row's time only orders rows that compete; written
	 * exact, it cost most of a fork storm's names and mappings.
	 */
	uint64_t sideband_past_ns;
};

/*
 * The sinks through which the pipeline stages hand what they read to s:
 * the sampler's samples and off-CPU records, the side-band's mappings,
 * names, forks, exits and losses. The stages know nothing of the session.
 */
void session__sampler_sink(struct session *s, struct sampler_sink *out);

struct uwalk_vma;

/* rawstack_vma_fn over the session's mappings (ctx: the session). */
bool session__find_vma(void *ctx, uint32_t tgid, uint64_t pc, uint64_t time_ns,
		       struct uwalk_vma *out);
void session__sideband_sink(struct session *s, struct sideband_sink *out);

/*
 * The off-CPU reader's configuration over the sampler's maps start_fd and
 * sums_fd: its stacks are interned in s's stack table, as samples' are.
 */
void session__offcpu_config(struct session *s, int start_fd, int sums_fd,
			    struct offcpu_config *out);

/* What capture reads and writes: s's recording, stacks, pairs, mappings, JIT maps. */
void session__capture_source(struct session *s, struct capture_source *out);

/*
 * -p and -a, before sampling starts: the Python interpreters already
 * running are looked for now, not at their first sample's arrival (late
 * when the recorder is behind), so that their first samples are walked.
 * 0 or -ENOMEM.
 */
int session__look_python(struct session *s);

/*
 * Process tgid has samples (or off-CPU stacks) in this file: its names and
 * mappings are stored. 0 or -ENOMEM (printed).
 */
int session__note_sampled(struct session *s, uint32_t tgid);

/* Whether thread tid has a name recorded in this file. */
bool session__thread_named(const struct session *s, uint32_t tid);

/*
 * Notes that thread tid of process tgid is called comm at time_ns, and adds
 * a comm row when that differs from what was last recorded for tid.
 */
int session__note_comm(struct session *s, uint64_t time_ns, uint32_t tgid, uint32_t tid,
		       const char *comm);

/*
 * record --switch-output: closes s->rec (finished by the caller) and goes
 * on in a new recording at path, forgetting what was stored in the
 * previous one, so that the new file gets again every stack, mapping,
 * comm row and symbol its own samples need. Stack ids start again at 1.
 * The mappings and exec times of processes that ended are forgotten.
 * Prints; -errno.
 */
int session__start_file(struct session *s, const char *path);

/* Frees what the session keeps for deciding what is stored. */
void session__release_kept(struct session *s);

/*
 * Sets up s for opts on a machine of nr_possible_cpus: the counters, the
 * JIT maps and the capture; the pipeline stages (sampler, side-band,
 * unwinder, off-CPU) are opened by the caller. Prints; -ENOMEM.
 */
int session__init(struct session *s, const struct record_opts *opts, int nr_possible_cpus);

/*
 * Frees what s owns and closes its recording. The caller closes the
 * pipeline stages (sampler, side-band, unwinder, off-CPU) first, the
 * sampler's links before anything else.
 */
void session__release(struct session *s);

/* What the sampler counted, read by the caller for session__commit(). */
struct session_counters {
	uint64_t time_ns;		/* when they were read */
	const uint64_t *stats;		/* EV_STAT_MAX per possible CPU, as sampler__read_stats() */
	const struct rec_ticks *ticks;	/* one row per sampled CPU since the last commit */
	size_t nr_ticks;
};

/*
 * Adds the symbol data the samples since the last commit need, loss rows
 * for what the counters c gained since then and their tick rows, then
 * commits. c is NULL before there is a sampler.
 */
int session__commit(struct session *s, const struct session_counters *c);

/*
 * Whether samples wait for their unwind tables (record/rawstack.h): the
 * commit waits with them, so that they land in the chunk of their time.
 */
bool session__raw_waiting(struct session *s);

/*
 * After the side-band was read: while a side-band loss is recent, reads
 * again from /proc, at once, the processes of the pairs noted since it
 * looked last that have a user address in no mapping kept (a process may
 * be gone by the next commit). 0 or -errno (printed).
 */
int session__repair(struct session *s);

/* The ticks of every sampled CPU so far into *out; 0 when nothing was accounted yet. */
int session__ticks(const struct session *s, struct tick_breakdown *out);

#endif
