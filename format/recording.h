/* SPDX-License-Identifier: MIT */
/*
 * format/recording.h - the recording file: the only API that knows it is
 * SQLite with zstd-compressed columnar chunks inside.
 *
 * A writer buffers samples, stacks, comms, mappings and loss counters and
 * writes them in one transaction per chunk (recording__commit), so a file
 * is readable up to its last chunk whatever happens to the recorder. A
 * reader walks every table with callbacks; everything read from the file is
 * checked before use, and damage is reported as -EBADMSG with one pr_err
 * line naming the file and the table.
 *
 * Errors: negative errno. Functions that fail print one line themselves
 * (the recording knows its path); callers only propagate.
 */
#ifndef EPROF_FORMAT_RECORDING_H
#define EPROF_FORMAT_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REC_SCHEMA_VERSION	2	/* schema/v1.sql + schema/v2.sql */
#define REC_APPLICATION_ID	0x45505246	/* "EPRF" */
#define REC_COMM_LEN		16
#define REC_BUILD_ID_MAX	20

struct recording;

/*
 * What a reader accepts, beyond each value's type: a file that breaks one
 * of these is damaged (-EBADMSG). Every sample lies in [start_ns, end_ns]
 * of the metadata (where present: the recorder reads the clock before it
 * starts sampling and after it stopped), on a CPU below nr_cpus, with
 * pids up to REC_MAX_PID; sample chunks do not overlap in time beyond the
 * ring buffer's reordering; mappings are non-empty.
 */
#define REC_MAX_CPUS		65536		/* meta nr_cpus (--cpu takes up to 65535) */
#define REC_MAX_PID		(1u << 22)	/* PID_MAX_LIMIT: no tgid or tid above it */

/*
 * Metadata keys every recorder writes (values are text; numbers in decimal).
 * numa_map is "cpu:node" pairs separated by commas, e.g. "0:0,1:0".
 */
#define REC_META_EPROF_VERSION	"eprof_version"
#define REC_META_HOSTNAME	"hostname"
#define REC_META_KERNEL		"kernel_release"
#define REC_META_ARCH		"arch"
#define REC_META_NR_CPUS	"nr_cpus"
#define REC_META_NUMA_MAP	"numa_map"
#define REC_META_FREQ_HZ	"freq_hz"
#define REC_META_EVENT		"event"		/* "cpu-clock" */
#define REC_META_CLOCK		"clock"		/* "CLOCK_MONOTONIC" */
#define REC_META_START_NS	"start_ns"
#define REC_META_END_NS		"end_ns"
#define REC_META_START_REALTIME	"start_realtime"	/* wall clock, seconds since the epoch */
#define REC_META_COMMAND	"command"	/* the eprof command line */
#define REC_META_TARGET		"target"	/* "-a", "-p 12,13" or "-- cmd args" */
#define REC_META_CALL_GRAPH	"call_graph"	/* "dwarf" or "fp" (absent: fp) */
#define REC_META_UNWIND_BUDGET	"unwind_budget"	/* bytes of unwind tables held at once */
#define REC_META_MEM_CEILING	"mem_ceiling"	/* bytes the recorder's memory stays under */
#define REC_META_PEAK_RSS	"peak_rss"	/* the recorder's peak resident set, bytes */
#define REC_META_MEM_BASE	"mem_base"	/* its resident set once set up, bytes */
/* the raw-stack fallback (record/rawstack.h), written when the recording ends */
#define REC_META_RAW_BUDGET	"raw_stack_budget"	/* bytes of stack copies a second */
#define REC_META_RAW_SAMPLES	"raw_stack_samples"	/* samples sent with a stack copy */
#define REC_META_RAW_BYTES	"raw_stack_bytes"	/* stack bytes copied (not stored) */
#define REC_META_RAW_OVER	"raw_stack_over_budget"	/* samples the budget refused a copy */
#define REC_META_RAW_FINISHED	"raw_stack_finished"	/* stacks walked again with their tables */
#define REC_META_RAW_COMPLETE	"raw_stack_complete"	/* of those, complete */
#define REC_META_RAW_GIVEN_UP	"raw_stack_given_up"	/* no table came in time: as walked */
#define REC_META_RAW_GAVE_WAY	"raw_stack_gave_way"	/* of those, for windows short of memory */
#define REC_META_RAW_NOT_HELD	"raw_stack_not_held"	/* no room in the memory budget to wait */
#define REC_META_RAW_HELD_BACK	"raw_stack_held_back"	/* commits that kept samples for waiting copies */
/* thread name rows (record/session.c): a thread's renames folded into its latest, */
#define REC_META_COMMS_FOLDED	"comm_rows_folded"
/* and rows of processes not sampled yet dropped, their share of the memory budget full */
#define REC_META_COMMS_DROPPED	"comm_rows_dropped"
/*
 * What the memory budget refused (record/stacks.h, record/mappings.h), when
 * it refused some: times the stack table was forgotten, and its stacks then
 * (stored again under new ids when met again); stacks recorded as the
 * empty stack instead; mappings not kept (samples in them unnamed).
 */
#define REC_META_STACKS_FORGETS	"stack_table_forgotten"
#define REC_META_STACKS_FORGOTTEN	"stacks_forgotten"
#define REC_META_STACKS_REFUSED	"stacks_refused"
#define REC_META_MAPS_REFUSED	"mappings_refused"
/*
 * Python frames (record/python.h), written when the recording ends; absent
 * when no interpreter was met. Samples of the known interpreters' processes:
 */
#define REC_META_PY_WALKS	"python_walks"		/* walked (or meant to be) */
#define REC_META_PY_SAMPLES	"python_samples"	/* with Python frames */
#define REC_META_PY_NO_THREAD	"python_no_thread"	/* of a thread with no Python state */
#define REC_META_PY_UNREADABLE	"python_stop_unreadable"	/* stopped: a frame unreadable */
#define REC_META_PY_DEPTH	"python_stop_depth"	/* stopped: at the depth limit */
#define REC_META_PY_COPY	"python_stop_stack_copy"	/* a stack copy: not walked */
#define REC_META_PY_UNKNOWN	"python_stop_unknown_version"	/* an interpreter without offsets */
#define REC_META_PY_VERSIONS	"python_unknown_versions"	/* "3.10 (process 12)", the first */
#define REC_META_PY_CODES	"python_codes"		/* code objects stored */
#define REC_META_PY_CODE_BAD	"python_codes_unreadable"	/* code objects not readable */
#define REC_META_PY_UNNAMED	"python_frames_unnamed"	/* frames: code object not read or kept */
#define REC_META_PY_UNPLACED	"python_frames_unplaced"	/* frames: no eval-loop frame for them */
#define REC_META_PY_OUTER	"python_frames_outer"	/* frames put outermost: the native
							   walk stopped before their eval loop */
#define REC_META_TABLE_CACHE	"table_cache"		/* record --table-cache DIR; absent: none */
#define REC_META_TABLE_CACHE_HITS	"table_cache_hits"	/* tables read from it, not built */
#define REC_META_TABLE_CACHE_STORED	"table_cache_stored"	/* tables built and kept in it */
#define REC_META_UNWIND_PARTIAL	"unwind_partial_tables"	/* big tables loaded by windows */
#define REC_META_UNWIND_WINDOWS	"unwind_windows"	/* windows loaded into them */
#define REC_META_UNWIND_WINDOWS_OUT	"unwind_windows_refused"	/* windows over the budget */
#define REC_META_UNWIND_WINDOWS_WAITED	"unwind_windows_waited"	/* batches that waited for memory */
#define REC_META_UNWIND_WINDOWS_UNBUILT	"unwind_windows_unbuilt"	/* asked for, not loaded by the end */
/*
 * Binaries whose table the memory budget or eprof's bounds refused: their
 * frames are walked with frame pointers. Of the totals row's "no CFI"
 * frame-pointer steps and stops, these many were in them.
 */
#define REC_META_UNWIND_REFUSED	"unwind_tables_refused"
#define REC_META_UNWIND_FB_REFUSED	"unwind_fb_refused"
#define REC_META_UNWIND_STOP_REFUSED	"unwind_stop_refused"
#define REC_META_SIDEBAND_REREAD	"sideband_reread"	/* processes whose mappings were read
							   again from /proc after a side-band loss */
#define REC_META_SIDEBAND_KIB	"sideband_buffer_kib"	/* side-band buffer per CPU at the end */
#define REC_META_SIDEBAND_GROWN	"sideband_grown"	/* times it grew after losses */
#define REC_META_OFF_CPU_THRESH	"off_cpu_thresh_ns"	/* record --off-cpu: intervals at least
							   this long are offcpu rows */
/*
 * record --off-cpu --switch-output: the start of the earliest offcpu row,
 * when it lies before start_ns (an interval open at the switch that began
 * the file: it is kept whole in the file it ends in). Absent: none does.
 */
#define REC_META_OFFCPU_SINCE	"offcpu_since_ns"

/* One sample; stack_id refers to a stack added with recording__add_stack. */
struct rec_sample {
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
	uint32_t tgid;
	uint32_t tid;
	uint32_t cpu;
	uint32_t stack_id;
};

/*
 * A distinct stack. frames[0 .. nr_kernel) kernel, innermost first, then
 * frames[nr_kernel .. nr_kernel + nr_user) user, innermost first.
 */
struct rec_stack {
	uint32_t id;
	uint32_t nr_kernel;
	uint32_t nr_user;
	const uint64_t *frames;
};

/* Thread tid of process tgid is called comm from time_ns on. */
struct rec_comm {
	uint64_t time_ns;
	uint32_t tgid;
	uint32_t tid;
	char comm[REC_COMM_LEN];	/* NUL-terminated */
};

/*
 * A file (or special) mapping of process tgid, from time_ns on (0: it
 * existed when recording started). path is "[vdso]", "//anon" etc. for
 * special mappings.
 */
struct rec_mapping {
	uint64_t time_ns;
	uint32_t tgid;
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;		/* file offset of start */
	const char *path;
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint32_t build_id_len;	/* 0: unknown */
};

/* A PT_LOAD segment: file offset -> ELF virtual address translation. */
struct rec_segment {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
};

/* A symbol: [addr, addr + size) in ELF virtual addresses. */
struct rec_symbol {
	uint64_t addr;
	uint64_t size;
	const char *name;
};

/*
 * The symbol data of one binary (executable, library, vDSO), keyed by
 * build-id (or by path when the binary has none). Writers may store only the
 * symbols that cover sampled addresses.
 */
struct rec_binary {
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint32_t build_id_len;		/* 0: no build-id; matched by path */
	const char *path;
	const char *source;		/* where the symbols came from: ".symtab", ".dynsym", ... */
	size_t nr_segments;
	const struct rec_segment *segments;
	size_t nr_symbols;
	const struct rec_symbol *symbols;	/* sorted by addr */
};

/* A kernel symbol [addr, end); module is NULL for the core kernel. */
struct rec_ksym {
	uint64_t addr;
	uint64_t end;
	const char *name;
	const char *module;
};

/* Losses on one CPU up to time_ns, counted since the previous row. */
struct rec_loss {
	uint64_t time_ns;
	uint32_t cpu;
	uint64_t lost_samples;		/* ring buffer full */
	uint64_t lost_ustacks;		/* user stack unreadable */
	uint64_t lost_kstacks;		/* kernel stack unreadable */
	uint64_t truncated_stacks;	/* deeper than the capture limit */
	uint64_t lost_sideband;		/* mmap/comm events the kernel dropped */
};

/*
 * How user stacks were unwound (format v2, table `unwind`): the totals row
 * has path "", then one row per binary. The arrays follow the walker's
 * enums (bpf/events.h): fallback[] = no table, no CFI, no mapping;
 * stop[] = end, zero, depth, unreadable, bad sp, no table, no CFI, no regs.
 */
#define REC_UNW_FB_MAX		3
#define REC_UNW_STOP_MAX	8

enum rec_unw_stop {
	REC_UNW_STOP_END,
	REC_UNW_STOP_ZERO,
	REC_UNW_STOP_DEPTH,
	REC_UNW_STOP_UNREADABLE,
	REC_UNW_STOP_BAD_SP,
	REC_UNW_STOP_NO_TABLE,
	REC_UNW_STOP_NO_CFI,
	REC_UNW_STOP_NO_REGS,
};

struct rec_unwind {
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint32_t build_id_len;		/* 0: none or unknown */
	const char *path;
	uint64_t walks;
	uint64_t frames_table;
	uint64_t frames_fp;
	uint64_t fallback[REC_UNW_FB_MAX];
	uint64_t stop[REC_UNW_STOP_MAX];
	uint64_t table_rows;
	uint64_t table_bytes;
	uint64_t build_ns;
};

/*
 * A Python code object of one process (format v2, table python_code), as
 * the recorder read it from the interpreter's memory: a sample's Python
 * frame (bpf/events.h, PY_FRAME_TAG) names it by tgid and key.
 * linetable is CPython 3.11's co_linetable (the location table of the
 * version; report/ decodes it), first_line its co_firstlineno.
 */
#define REC_PY_NAME_MAX		1024	/* characters */
#define REC_PY_NAME_BYTES	(REC_PY_NAME_MAX * 4)	/* their UTF-8, at most */
#define REC_PY_LINETABLE_MAX	65536
struct rec_py_code {
	uint32_t tgid;
	uint64_t key;			/* the frames' key (record/ numbers them per process) */
	uint64_t addr;			/* the code object's address in the process */
	const char *name;		/* co_name */
	const char *qualname;		/* co_qualname */
	const char *filename;		/* co_filename */
	uint32_t first_line;
	uint32_t version;		/* the interpreter's PY_VERSION_HEX >> 16 (0x030b) */
	const uint8_t *linetable;
	size_t linetable_len;
};

/*
 * A JIT map (/tmp/perf-PID.map) the recorder read only up to a cut (format
 * v2, table jit_map_cut): the symbols of the dropped lines are not stored.
 */
struct rec_jit_cut {
	uint32_t tgid;
	const char *path;
	uint64_t kept_bytes;		/* parsed, up to a line boundary */
	uint64_t kept_symbols;
	uint64_t dropped_bytes;
	uint64_t dropped_lines;
	bool dropped_lines_exact;	/* false: dropped_lines is a lower bound */
};

/*
 * The sampling clock of one CPU up to time_ns, since the previous row of
 * that CPU (format v2). Expected ticks are enabled_ns / period_ns; of those,
 * throttled_ns / period_ns were withheld by the kernel's throttling, fired
 * ran the sampler, and the rest were skipped by a late timer. Of the fired
 * ticks, kept were samples of targets (all of them with -a); the loss rows
 * say how many of those the ring buffer could not take.
 */
struct rec_ticks {
	uint64_t time_ns;
	uint32_t cpu;
	uint64_t period_ns;	/* >= 1 */
	uint64_t enabled_ns;
	uint64_t throttled_ns;	/* <= enabled_ns */
	uint64_t throttles;	/* times the kernel throttled the clock */
	uint64_t fired;
	uint64_t kept;		/* the sum of a CPU's rows is <= their fired */
};

/* How a thread was off the CPU (format v2, tables offcpu and offcpu_sum). */
enum rec_offcpu_state {
	REC_OFFCPU_BLOCKED,	/* slept: I/O, a lock, a timer, a pipe */
	REC_OFFCPU_RUNNABLE,	/* preempted: waited for a CPU */
	REC_OFFCPU_STATES,
};

/* One off-CPU interval of thread tid, with its times. */
struct rec_offcpu {
	uint64_t time_ns;	/* it left the CPU */
	uint64_t duration_ns;	/* >= 1: until it ran again or the recording ended */
	uint32_t tgid;
	uint32_t tid;
	uint32_t cpu;		/* the CPU it left */
	uint32_t state;		/* enum rec_offcpu_state */
	uint32_t stack_id;	/* where it left */
};

/* Short off-CPU intervals summed per (thread, stack, state), flushed at time_ns. */
struct rec_offcpu_sum {
	uint64_t time_ns;
	uint32_t tgid;
	uint32_t tid;
	uint32_t state;
	uint32_t cpu;		/* the CPU they left */
	uint32_t stack_id;
	uint64_t count;		/* 0 only in a row that carries time of an earlier row's
				   intervals (read while being added) */
	uint64_t total_ns;
};

/* Off-CPU intervals not kept on one CPU up to time_ns, since its previous row. */
struct rec_offcpu_loss {
	uint64_t time_ns;
	uint32_t cpu;
	uint64_t lost;		/* intervals lost */
	uint64_t lost_ns;	/* their time */
	uint64_t untracked;	/* switches not followed: time unknown */
	uint64_t lost_stacks;	/* intervals kept on an empty stack */
};

/*
 * A cgroup v2 (format v2, table cgroup): its id, the inode number of its
 * directory (what bpf_get_current_cgroup_id() gives), and its path from
 * the cgroup2 mount ("/" for the root).
 */
struct rec_cgroup {
	uint64_t id;		/* >= 1 */
	const char *path;
};

/*
 * Thread tid of process tgid ran in cgroup cgroup_id from time_ns on
 * (table thread_cgroup_chunk): a change log, a row per thread first seen
 * and per move. time_ns 0: since before the thread's first sample.
 */
struct rec_thread_cgroup {
	uint64_t time_ns;
	uint32_t tgid;
	uint32_t tid;
	uint64_t cgroup_id;	/* >= 1; the cgroup row names it, if any */
};

/* What the tick rows of one CPU say, in ticks. */
struct tick_breakdown {
	uint64_t expected;	/* enabled time over the period */
	uint64_t throttled;	/* withheld by the kernel's throttling */
	uint64_t missed;	/* neither fired nor throttled: skipped by a late timer */
	uint64_t fired;		/* ran the sampler */
	uint64_t kept;		/* of which samples of targets */
	uint64_t throttles;	/* times throttled */
};

/* Adds row t to the running total *sum of its CPU (same cpu and period). */
void rec_ticks__add(struct rec_ticks *sum, const struct rec_ticks *t);

/* Explains the total of one CPU's rows in ticks; adds to *out. */
void rec_ticks__explain(const struct rec_ticks *sum, struct tick_breakdown *out);

/* --- opening and closing ------------------------------------------------ */

/* Creates (truncates) path as a new, empty recording. */
int recording__create(const char *path, struct recording **out);

/*
 * Opens an existing recording read-only. Checks the application_id (not an
 * eprof recording: -EINVAL), the schema version (newer: -EPROTONOSUPPORT)
 * and the tables (damaged: -EBADMSG). A file that was not finalized opens
 * with one warning.
 */
int recording__open(const char *path, struct recording **out);

/*
 * Accepts NULL. A writer that was not finished is left readable as is: up
 * to its last commit (what was added after it is dropped).
 */
void recording__close(struct recording *rec);

/*
 * Closes a recording being written and removes its file, putting back the
 * file recording__create() moved to FILE.old (the older FILE.old it
 * replaced, as stderr said then, is not restored). For a recording that
 * must not exist (the command never ran). Accepts NULL.
 */
void recording__discard(struct recording *rec);

const char *recording__path(const struct recording *rec);

/* True when the recorder finished the file (recording__finish). */
bool recording__is_finished(const struct recording *rec);

/* The file's own format version (its user_version: 1 or 2), not this eprof's. */
int recording__version(const struct recording *rec);

/* --- metadata: text key/value --------------------------------------------- */

/* Buffered with the next chunk. */
int recording__set_meta(struct recording *rec, const char *key, const char *value);
/* The same, a count in decimal. */
int recording__set_meta_u64(struct recording *rec, const char *key, uint64_t value);

/* *out is malloc'd (caller frees). -ENOENT when the key is absent. */
int recording__get_meta(struct recording *rec, const char *key, char **out);

/* --- writing: everything is buffered and lands at the next commit -------- */

int recording__add_sample(struct recording *rec, const struct rec_sample *s);
/* Stack ids are the writer's to choose; each id is added once. Copies frames. */
int recording__add_stack(struct recording *rec, const struct rec_stack *st);
int recording__add_comm(struct recording *rec, const struct rec_comm *c);
int recording__add_mapping(struct recording *rec, const struct rec_mapping *m);
int recording__add_loss(struct recording *rec, const struct rec_loss *l);
int recording__add_ticks(struct recording *rec, const struct rec_ticks *t);
int recording__add_binary(struct recording *rec, const struct rec_binary *b);
int recording__add_ksyms(struct recording *rec, const struct rec_ksym *syms, size_t nr);
/* Off-CPU rows (format v2), buffered for the next commit; bad values: -EINVAL. */
int recording__add_offcpu(struct recording *rec, const struct rec_offcpu *o);
int recording__add_offcpu_sum(struct recording *rec, const struct rec_offcpu_sum *o);
int recording__add_offcpu_loss(struct recording *rec, const struct rec_offcpu_loss *l);
/* cgroup names and the threads' change log (format v2), buffered; bad values: -EINVAL. */
int recording__add_cgroup(struct recording *rec, const struct rec_cgroup *c);
int recording__add_thread_cgroup(struct recording *rec, const struct rec_thread_cgroup *t);
/* Buffers unwind count rows (copied) for the next commit. */
int recording__add_unwind(struct recording *rec, const struct rec_unwind *rows, size_t nr);

/*
 * The DWARF of one binary (`record --debuginfo`): the bytes of an ELF file
 * carrying it for that build-id (a separate debug file, or the binary
 * itself), copied, compressed and written at the next commit. At most
 * REC_DEBUGINFO_MAX bytes (-E2BIG, printed). A build-id is expected once.
 */
#define REC_DEBUGINFO_MAX	(256u << 20)
int recording__add_debuginfo(struct recording *rec, const uint8_t *build_id, uint32_t len,
			     const char *path, const void *data, size_t size);

/*
 * Records that a JIT map was cut (replacing an earlier row of the same tgid
 * and path). Written at once, in its own transaction, so call it between
 * commits; cuts are rare.
 */
int recording__add_jit_cut(struct recording *rec, const struct rec_jit_cut *c);

/*
 * Stores a Python code object (one row per tgid and key; a later one
 * replaces it), copied and written by the next commit. -EINVAL when a
 * string is over REC_PY_NAME_BYTES bytes or the line table over
 * REC_PY_LINETABLE_MAX: what the reader takes as damage is never written.
 */
int recording__add_py_code(struct recording *rec, const struct rec_py_code *c);

/* Samples buffered since the last commit. */
size_t recording__pending_samples(const struct recording *rec);

/*
 * Writes everything buffered in one transaction. On failure (-ENOSPC full
 * disk, -EIO, -ENOMEM) the file stays at its previous commit and the data
 * stays buffered, so a later commit may still write it.
 */
int recording__commit(struct recording *rec);

/*
 * recording__commit, but the samples taken at or after keep_from_ns stay
 * buffered for a later commit: a reader takes a chunk that reaches back
 * into the time of the chunks before it as damage (beyond the ring
 * buffer's reordering), so samples that must wait (stack copies waiting
 * for their tables) hold back the ones after them.
 */
int recording__commit_before(struct recording *rec, uint64_t keep_from_ns);

/*
 * Commits, marking the recording finished in the same transaction. Adding
 * or committing afterwards fails with -EINVAL.
 */
int recording__finish(struct recording *rec);

/* --- reading: callbacks return 0 to go on, non-zero to stop (returned) ---- */

typedef int (*rec_sample_fn)(void *ctx, const struct rec_sample *s);
typedef int (*rec_stack_fn)(void *ctx, const struct rec_stack *st);
typedef int (*rec_comm_fn)(void *ctx, const struct rec_comm *c);
typedef int (*rec_mapping_fn)(void *ctx, const struct rec_mapping *m);
typedef int (*rec_loss_fn)(void *ctx, const struct rec_loss *l);
typedef int (*rec_ticks_fn)(void *ctx, const struct rec_ticks *t);
typedef int (*rec_binary_fn)(void *ctx, const struct rec_binary *b);
typedef int (*rec_ksym_fn)(void *ctx, const struct rec_ksym *k);
typedef int (*rec_unwind_fn)(void *ctx, const struct rec_unwind *u);
typedef int (*rec_jit_cut_fn)(void *ctx, const struct rec_jit_cut *c);
typedef int (*rec_py_code_fn)(void *ctx, const struct rec_py_code *c);
typedef int (*rec_offcpu_fn)(void *ctx, const struct rec_offcpu *o);
typedef int (*rec_offcpu_sum_fn)(void *ctx, const struct rec_offcpu_sum *o);
typedef int (*rec_offcpu_loss_fn)(void *ctx, const struct rec_offcpu_loss *l);
typedef int (*rec_cgroup_fn)(void *ctx, const struct rec_cgroup *c);
typedef int (*rec_thread_cgroup_fn)(void *ctx, const struct rec_thread_cgroup *t);

/* Samples in chunk order (time order within a chunk). Pointers in the
 * callback argument are valid only during the call. */
int recording__for_each_sample(struct recording *rec, rec_sample_fn fn, void *ctx);
int recording__for_each_stack(struct recording *rec, rec_stack_fn fn, void *ctx);
int recording__for_each_comm(struct recording *rec, rec_comm_fn fn, void *ctx);
int recording__for_each_mapping(struct recording *rec, rec_mapping_fn fn, void *ctx);
int recording__for_each_loss(struct recording *rec, rec_loss_fn fn, void *ctx);
/* The unwind rows, totals first; none in a v1 file (the table is v2). */
int recording__for_each_unwind(struct recording *rec, rec_unwind_fn fn, void *ctx);

/* Whether the file can hold tick rows (format v2 and later); v1: "not recorded". */
bool recording__has_ticks(const struct recording *rec);
/* Tick rows in insertion order; none in a v1 file. */
int recording__for_each_ticks(struct recording *rec, rec_ticks_fn fn, void *ctx);

/*
 * Every CPU's tick rows summed and explained (rec_ticks__explain) into
 * *out (zeroed first). 0 when the file has tick rows, -ENOENT when it has
 * none (format v1, or nothing accounted), -EBADMSG (printed), -ENOMEM.
 */
int recording__tick_breakdown(struct recording *rec, struct tick_breakdown *out);
int recording__for_each_binary(struct recording *rec, rec_binary_fn fn, void *ctx);
int recording__for_each_ksym(struct recording *rec, rec_ksym_fn fn, void *ctx);
/*
 * Whether the file was recorded with --off-cpu (format v2 and the
 * off_cpu_thresh_ns metadata); v1 and other files: "not recorded".
 */
bool recording__has_offcpu(const struct recording *rec);
/* The off-CPU threshold in ns (0 when not recorded). */
uint64_t recording__offcpu_thresh_ns(const struct recording *rec);
/*
 * Off-CPU intervals by thread then time; none without off-CPU data. Besides
 * each value's range, the reader checks that every interval lies within the
 * recording's span, on a CPU below nr_cpus, and that no two intervals of a
 * thread overlap (a duplicated row would): -EBADMSG, printed.
 */
int recording__for_each_offcpu(struct recording *rec, rec_offcpu_fn fn, void *ctx);
/* Sums in flush order; a sum may not claim more time than the span, nor a repeated key per flush. */
int recording__for_each_offcpu_sum(struct recording *rec, rec_offcpu_sum_fn fn, void *ctx);
int recording__for_each_offcpu_loss(struct recording *rec, rec_offcpu_loss_fn fn, void *ctx);
/* The off-CPU loss rows summed into *out (zeroed first; time and cpu stay 0). */
int recording__offcpu_loss_total(struct recording *rec, struct rec_offcpu_loss *out);
/*
 * Whether the file can say which cgroup a sample ran in (format v2 with
 * the cgroup tables); v1 and older v2 files: "not recorded".
 */
bool recording__has_cgroups(const struct recording *rec);
/* The cgroup names by id; none without cgroup data. */
int recording__for_each_cgroup(struct recording *rec, rec_cgroup_fn fn, void *ctx);
/* The threads' cgroup rows in write order; none without cgroup data. */
int recording__for_each_thread_cgroup(struct recording *rec, rec_thread_cgroup_fn fn,
				      void *ctx);
/* JIT maps cut by the recorder, by tgid; none in a v1 file. */
int recording__for_each_jit_cut(struct recording *rec, rec_jit_cut_fn fn, void *ctx);
/*
 * The Python code objects, by tgid and address; none in a file without the
 * table. A row of bad values (a name not UTF-8-free of NULs, over its bound,
 * a line table over REC_PY_LINETABLE_MAX) is damage.
 */
int recording__for_each_py_code(struct recording *rec, rec_py_code_fn fn, void *ctx);

/*
 * The embedded DWARF file of build_id: *data malloc'd (caller frees), *size
 * its length. -ENOENT when the recording has none for it (files written
 * before the debuginfo table existed have none at all), -EBADMSG when the
 * row is damaged, -ENOMEM.
 */
int recording__get_debuginfo(struct recording *rec, const uint8_t *build_id, uint32_t len,
			     void **data, size_t *size);

/* Whether build_id has embedded DWARF, without reading it. 1, 0 or -errno (printed). */
int recording__has_debuginfo(struct recording *rec, const uint8_t *build_id, uint32_t len);

/* Total samples (from chunk headers, without decoding them). */
int recording__sample_count(struct recording *rec, uint64_t *out);

#endif
