// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_record_sideband.c - the time order of side-band records
 * (record/sideband.c), fed as the kernel would deliver them: each CPU's
 * records come in their own buffer, so a fork can be read before the
 * parent's mmap that happened earlier on another CPU. A forked process must
 * get the mappings its parent had at the fork, no later ones, none of an
 * image an exec replaced, and a grandchild what its parent inherited.
 * The records go to a real recording in a temporary directory.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdio.h>
#include <unistd.h>

#include "record/budget.h"
#include "record/capture.h"
#include "record/jitmap.h"
#include "record/overlap.h"
#include "record/session.h"
#include "record/sideband.h"
#include "tests/unit/harness.h"

enum { P = 100, C = 200, G = 300 };	/* parent, child, grandchild */
enum { J = 4190001 };			/* a pid no process is likely to have */

#define REC_BUF_SIZE	512

/*
 * One perf record, 8-byte aligned as in the kernel's buffer. Heap memory:
 * it takes the types written into it, so reading it back as a header is
 * well-defined (and the compiler sees all 512 bytes of it).
 */
struct rec_buf {
	unsigned char *b;
	size_t len;
};

static void put(struct rec_buf *r, const void *p, size_t n)
{
	if (n > REC_BUF_SIZE - r->len) {
		CHECK(!"record too long for the test's buffer");
		return;
	}
	memcpy(r->b + r->len, p, n);
	r->len += n;
}

static void put_u32(struct rec_buf *r, uint32_t v)
{
	put(r, &v, sizeof(v));
}

static void put_u64(struct rec_buf *r, uint64_t v)
{
	put(r, &v, sizeof(v));
}

/* A NUL-terminated string padded to 8 bytes, as the kernel writes names. */
static void put_str(struct rec_buf *r, const char *s)
{
	size_t n = strlen(s) + 1;

	put(r, s, n);
	while (r->len % 8)
		put(r, "", 1);
}

static void begin(struct rec_buf *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	memset(r->b, 0, REC_BUF_SIZE);
	memcpy(r->b, &h, sizeof(h));
	r->len = sizeof(h);
}

/* sample_id_all with TID | TIME: pid, tid, time. */
static const struct perf_event_header *end(struct rec_buf *r, uint32_t pid, uint64_t time)
{
	struct perf_event_header h;

	put_u32(r, pid);
	put_u32(r, pid);
	put_u64(r, time);
	h.size = (uint16_t)r->len;
	memcpy(r->b + offsetof(struct perf_event_header, size), &h.size, sizeof(h.size));
	return (const struct perf_event_header *)r->b;
}

/* PERF_RECORD_MMAP2 with a kernel-given build-id (no file is read). */
static const struct perf_event_header *mmap2(struct rec_buf *r, uint32_t pid, uint64_t time,
					     uint64_t start, uint32_t prot, const char *path)
{
	uint8_t id[24] = { 20, 0, 0, 0, 0xb1, 0xd0 };	/* size, reserved, then the id */

	begin(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put_u32(r, pid);
	put_u32(r, pid);
	put_u64(r, start);
	put_u64(r, 0x1000);	/* len */
	put_u64(r, 0);		/* pgoff */
	put(r, id, sizeof(id));
	put_u32(r, prot);
	put_u32(r, MAP_PRIVATE);
	put_str(r, path);
	return end(r, pid, time);
}

/* PERF_RECORD_FORK: pid, ppid, tid, ptid, time. */
static const struct perf_event_header *fork_rec(struct rec_buf *r, uint32_t ppid, uint32_t pid,
						uint32_t tid, uint64_t time)
{
	begin(r, PERF_RECORD_FORK, 0);
	put_u32(r, pid);
	put_u32(r, ppid);
	put_u32(r, tid);
	put_u32(r, ppid);
	put_u64(r, time);
	return end(r, pid, time);
}

/* PERF_RECORD_EXIT of a process: the same layout as a fork. */
static const struct perf_event_header *exit_rec(struct rec_buf *r, uint32_t pid, uint64_t time)
{
	begin(r, PERF_RECORD_EXIT, 0);
	put_u32(r, pid);
	put_u32(r, 1);
	put_u32(r, pid);
	put_u32(r, 1);
	put_u64(r, time);
	return end(r, pid, time);
}

/* PERF_RECORD_COMM of an exec. */
static const struct perf_event_header *exec_rec(struct rec_buf *r, uint32_t pid, uint64_t time,
						const char *comm)
{
	begin(r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put_u32(r, pid);
	put_u32(r, pid);
	put_str(r, comm);
	return end(r, pid, time);
}

/* PERF_RECORD_LOST: id, how many records were lost. */
static const struct perf_event_header *lost_rec(struct rec_buf *r, uint64_t nr, uint64_t time)
{
	begin(r, PERF_RECORD_LOST, 0);
	put_u64(r, 1);
	put_u64(r, nr);
	return end(r, 0, time);
}

struct fixture {
	struct session s;
	struct sideband *sb;
	struct rec_buf r;
};

static void fixture__init(struct fixture *f, const char *name)
{
	struct sideband_sink sink;

	memset(f, 0, sizeof(*f));
	f->r.b = aligned_alloc(8, REC_BUF_SIZE);
	CHECK(f->r.b != NULL);
	CHECK_OK(recording__create(path_in(name), &f->s.rec));
	session__sideband_sink(&f->s, &sink);
	CHECK_OK(sideband__new(&sink, &f->sb));
}

static void fixture__release(struct fixture *f)
{
	sideband__close(f->sb);
	session__release_kept(&f->s);
	recording__close(f->s.rec);
	free(f->r.b);
}

/* Mappings of pid at start: how many, and the time of the last one. */
static size_t mapped(const struct fixture *f, uint32_t pid, uint64_t start, uint64_t *time)
{
	size_t i, n = 0;

	for (i = 0; i < f->s.maps.nr; i++) {
		if (f->s.maps.v[i].tgid != pid || f->s.maps.v[i].start != start)
			continue;
		n++;
		if (time)
			*time = f->s.maps.v[i].time_ns;
	}
	return n;
}

static void handle(struct fixture *f, int cpu, const struct perf_event_header *h)
{
	CHECK_OK(sideband__handle(f->sb, cpu, h));
}

static void fork_before_earlier_mmap(void)
{
	struct fixture f;
	uint64_t t = 0;

	fixture__init(&f, "order.eprof");
	/* CPU 0's buffer is read first: the fork at 20 ... */
	handle(&f, 0, fork_rec(&f.r, P, C, C, 20));
	/* ... then CPU 1's: the parent's dlopen at 10, and another mmap at 30 */
	handle(&f, 1, mmap2(&f.r, P, 10, 0x7000, PROT_READ | PROT_EXEC, "/lib/hot.so"));
	handle(&f, 1, mmap2(&f.r, P, 30, 0x9000, PROT_READ | PROT_EXEC, "/lib/late.so"));
	CHECK_EQ_U64(mapped(&f, C, 0x7000, NULL), 0);	/* nothing before the batch ends */
	CHECK_OK(sideband__end_batch(f.sb));
	CHECK_EQ_U64(mapped(&f, C, 0x7000, &t), 1);
	CHECK_EQ_U64(t, 10);			/* with the parent's time */
	CHECK_EQ_U64(mapped(&f, C, 0x9000, NULL), 0);	/* mapped after the fork */
	CHECK_EQ_U64(mapped(&f, P, 0x9000, NULL), 1);
	CHECK_OK(sideband__end_batch(f.sb));	/* a fork is applied once */
	CHECK_EQ_U64(mapped(&f, C, 0x7000, NULL), 1);
	fixture__release(&f);
}

static void grandchild_after_child_whatever_the_order(void)
{
	struct fixture f;

	fixture__init(&f, "grand.eprof");
	handle(&f, 1, fork_rec(&f.r, C, G, G, 25));	/* read first, happened later */
	handle(&f, 0, mmap2(&f.r, P, 10, 0x7000, PROT_EXEC, "/lib/hot.so"));
	handle(&f, 0, fork_rec(&f.r, P, C, C, 20));
	CHECK_OK(sideband__end_batch(f.sb));
	CHECK_EQ_U64(mapped(&f, C, 0x7000, NULL), 1);
	CHECK_EQ_U64(mapped(&f, G, 0x7000, NULL), 1);
	fixture__release(&f);
}

static void exec_replaces_the_image(void)
{
	struct fixture f;

	fixture__init(&f, "exec.eprof");
	handle(&f, 0, mmap2(&f.r, P, 5, 0x1000, PROT_EXEC, "/bin/old"));
	handle(&f, 0, exec_rec(&f.r, P, 8, "new"));
	handle(&f, 0, mmap2(&f.r, P, 9, 0x2000, PROT_EXEC, "/bin/new"));
	handle(&f, 1, fork_rec(&f.r, P, C, C, 20));
	CHECK_OK(sideband__end_batch(f.sb));
	CHECK_EQ_U64(mapped(&f, C, 0x2000, NULL), 1);
	CHECK_EQ_U64(mapped(&f, C, 0x1000, NULL), 0);	/* the image before the exec */
	fixture__release(&f);
}

/*
 * pid C was used before by a process that exec'd at 3. When C is forked
 * anew at 20, that exec is not its own: its child G, forked at 30, must
 * still get the mapping C inherited from P (made at 1, before 3).
 */
static void reused_pid_forgets_old_exec(void)
{
	struct fixture f;

	fixture__init(&f, "reuse.eprof");
	handle(&f, 0, exec_rec(&f.r, C, 3, "old-owner"));
	CHECK_OK(sideband__end_batch(f.sb));
	handle(&f, 0, mmap2(&f.r, P, 1, 0x7000, PROT_EXEC, "/lib/hot.so"));
	handle(&f, 0, fork_rec(&f.r, P, C, C, 20));
	handle(&f, 1, fork_rec(&f.r, C, G, G, 30));
	CHECK_OK(sideband__end_batch(f.sb));
	CHECK_EQ_U64(mapped(&f, C, 0x7000, NULL), 1);
	CHECK_EQ_U64(mapped(&f, G, 0x7000, NULL), 1);
	fixture__release(&f);
}

/* Writes /tmp/perf-PID.map with the lines given. */
static void write_map(uint32_t pid, const char *lines)
{
	char path[64];
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (fp) {
		fputs(lines, fp);
		fclose(fp);
	}
}

struct jit_rows {
	char first[256];	/* names stored for /tmp/perf-J.map */
	char later[256];	/* ... for /tmp/perf-J.map@30 */
	size_t other;
};

static int collect_jit(void *ctx, const struct rec_binary *b)
{
	struct jit_rows *rows = ctx;
	char want[64], *into;
	size_t i;

	snprintf(want, sizeof(want), "/tmp/perf-%u.map", J);
	into = !strcmp(b->path, want) ? rows->first : NULL;
	snprintf(want, sizeof(want), "/tmp/perf-%u.map@30", J);
	if (!strcmp(b->path, want))
		into = rows->later;
	if (!into) {
		rows->other++;
		return 0;
	}
	for (i = 0; i < b->nr_symbols; i++)
		snprintf(into + strlen(into), 256 - strlen(into), "%s ", b->symbols[i].name);
	return 0;
}

/*
 * A pid that exits and comes back as another process: the second process's
 * JIT map is read while it lives and at its own exit, stored apart from the
 * first's, and a sample is named from the map of the process that had the
 * pid at its time. Before, the first exit marked the pid's map final for
 * good: the second process kept the first one's symbols, or none.
 */
static void reused_pid_jit_map(void)
{
	static const struct jit_sample before[] = { { 0x1000, 10 } };
	static const struct jit_sample mixed[] = { { 0x1000, 15 }, { 0x1000, 40 }, { 0x2000, 41 } };
	static const struct jit_sample late[] = { { 0x3000, 45 } };
	struct jit_rows rows;
	struct fixture f;
	size_t nr_maps = 0;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u", J);
	if (!access(path, F_OK))
		return;		/* the pid lives here: the test would read its map */
	memset(&rows, 0, sizeof(rows));
	fixture__init(&f, "jitreuse.eprof");
	f.s.jitmaps = jitmaps__new(&f.s.threads);
	CHECK(f.s.jitmaps != NULL);
	write_map(J, "1000 100 first_a\n");
	CHECK_OK(jitmaps__store(f.s.jitmaps, f.s.rec, J, before, 1, &nr_maps));
	handle(&f, 0, exit_rec(&f.r, J, 20));	/* the first process's last read */
	write_map(J, "1000 100 second_b\n2000 100 second_c\n");
	handle(&f, 0, fork_rec(&f.r, 1, J, J, 30));
	CHECK_OK(sideband__end_batch(f.sb));
	CHECK_OK(jitmaps__store(f.s.jitmaps, f.s.rec, J, mixed, 3, &nr_maps));
	write_map(J, "1000 100 second_b\n2000 100 second_c\n3000 100 second_d\n");
	handle(&f, 0, exit_rec(&f.r, J, 50));	/* the second's: read again */
	CHECK_OK(jitmaps__store(f.s.jitmaps, f.s.rec, J, late, 1, &nr_maps));
	CHECK_EQ_U64(nr_maps, 2);
	CHECK_OK(recording__commit(f.s.rec));
	CHECK_OK(recording__for_each_binary(f.s.rec, collect_jit, &rows));
	CHECK_STR(rows.first, "first_a ");
	CHECK_STR(rows.later, "second_b second_c second_d ");
	CHECK_EQ_U64(rows.other, 0);
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", J);
	unlink(path);
	jitmaps__free(f.s.jitmaps);
	fixture__release(&f);
}

static void ignored_records(void)
{
	struct fixture f;
	const struct perf_event_header *h;

	fixture__init(&f, "ignored.eprof");
	handle(&f, 0, mmap2(&f.r, P, 1, 0x7000, PROT_EXEC, "/lib/hot.so"));
	/* a new thread (pid == ppid) is not a new process */
	handle(&f, 0, fork_rec(&f.r, P, P, P + 1, 5));
	/* data mappings are not kept */
	handle(&f, 0, mmap2(&f.r, P, 2, 0x8000, PROT_READ | PROT_WRITE, "/data"));
	/* a name with no NUL inside the record is malformed */
	h = mmap2(&f.r, P, 3, 0x9000, PROT_EXEC, "/lib/abcdefg");	/* 13 bytes, padded to 16 */
	memset(f.r.b + 72, 'x', 16);
	handle(&f, 0, h);
	/* too short to hold what its type needs */
	begin(&f.r, PERF_RECORD_FORK, 0);
	handle(&f, 0, end(&f.r, P, 6));
	CHECK_OK(sideband__end_batch(f.sb));
	CHECK_EQ_U64(f.s.maps.nr, 1);
	CHECK_EQ_U64(mapped(&f, P, 0x7000, NULL), 1);
	fixture__release(&f);
}

static int count_mapping(void *ctx, const struct rec_mapping *m)
{
	uint64_t *n = ctx;

	n[m->tgid == P ? 0 : 1]++;
	return 0;
}

static int count_comm(void *ctx, const struct rec_comm *c)
{
	uint64_t *n = ctx;

	n[c->tgid == P ? 0 : 1]++;
	return 0;
}

/*
 * Issue 14: P has a sample, its child C none. P's sampled mapping and its
 * names are written; C's are held, and forgotten two commits after C's
 * exit, never written. P's unsampled mapping stays in memory, unwritten.
 */
static void only_what_samples_use_is_stored(void)
{
	uint64_t maps[2] = { 0 }, comms[2] = { 0 };
	struct recording *rec = NULL;
	struct fixture f;
	size_t i;

	fixture__init(&f, "used.eprof");
	handle(&f, 0, exec_rec(&f.r, P, 1, "parent"));
	handle(&f, 0, mmap2(&f.r, P, 2, 0x7000, PROT_EXEC, "/lib/hot.so"));
	handle(&f, 0, mmap2(&f.r, P, 3, 0x9000, PROT_EXEC, "/lib/cold.so"));
	handle(&f, 0, fork_rec(&f.r, P, C, C, 4));
	handle(&f, 0, exec_rec(&f.r, C, 5, "child"));
	handle(&f, 0, mmap2(&f.r, C, 6, 0x5000, PROT_EXEC, "/bin/child"));
	CHECK_OK(sideband__end_batch(f.sb));
	/* a sample of P in hot.so, as the sampler and capture note it */
	CHECK_OK(session__note_sampled(&f.s, P));
	CHECK_OK(session__note_comm(&f.s, 7, P, P, "parent"));
	for (i = 0; i < f.s.maps.nr; i++)
		if (f.s.maps.v[i].tgid == P && f.s.maps.v[i].start == 0x7000)
			CHECK_OK(mapping__write(&f.s.maps, f.s.rec, &f.s.maps.v[i], 0));
	handle(&f, 0, exit_rec(&f.r, C, 8));
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_EQ_U64(mapped(&f, C, 0x5000, NULL), 1);	/* a late sample may still come */
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_EQ_U64(mapped(&f, C, 0x5000, NULL), 0);
	CHECK_EQ_U64(mapped(&f, C, 0x7000, NULL), 0);	/* the inherited one too */
	CHECK_EQ_U64(mapped(&f, P, 0x9000, NULL), 1);	/* P may still sample it */
	CHECK_EQ_U64(f.s.nr_pending_comms, 0);
	CHECK_EQ_U64(f.s.maps.nr_written, 1);
	CHECK_OK(recording__finish(f.s.rec));
	CHECK_OK(recording__open(path_in("used.eprof"), &rec));
	CHECK_OK(recording__for_each_mapping(rec, count_mapping, maps));
	CHECK_OK(recording__for_each_comm(rec, count_comm, comms));
	recording__close(rec);
	CHECK_EQ_U64(maps[0], 1);
	CHECK_EQ_U64(maps[1], 0);
	CHECK_EQ_U64(comms[0], 1);	/* "parent" once: the sample's own name is the same */
	CHECK_EQ_U64(comms[1], 0);
	fixture__release(&f);
}

/* The exit notes of pid (0: the cancelled ones). */
static size_t live_exits(const struct session *s, uint32_t pid)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr_exits; i++)
		n += s->exits[i].pid == pid;
	return n;
}

/*
 * A child that lives a few ms: its exit is read in the same batch as its
 * fork, and applied first (forks wait for the batch's end). The fork must
 * not take the child's own exit for a previous owner's: its mappings are
 * still forgotten two commits later. An exit from before the fork is a
 * previous owner's, and is not the new process's.
 */
static void short_child_exit_before_its_fork_is_applied(void)
{
	struct fixture f;

	fixture__init(&f, "short.eprof");
	handle(&f, 0, exec_rec(&f.r, P, 1, "parent"));
	handle(&f, 0, mmap2(&f.r, P, 2, 0x7000, PROT_EXEC, "/lib/hot.so"));
	CHECK_OK(sideband__end_batch(f.sb));
	handle(&f, 1, exit_rec(&f.r, C, 3));	/* a previous owner of pid C */
	handle(&f, 0, fork_rec(&f.r, P, C, C, 4));
	handle(&f, 1, exit_rec(&f.r, C, 6));	/* read before the fork is applied */
	CHECK_OK(sideband__end_batch(f.sb));
	CHECK_EQ_U64(mapped(&f, C, 0x7000, NULL), 1);	/* inherited */
	/* its own exit stays, the old owner's is cancelled (pid 0) */
	CHECK_EQ_U64(live_exits(&f.s, C), 1);
	CHECK_EQ_U64(live_exits(&f.s, 0), 1);
	CHECK_EQ_U64(f.s.exits[f.s.nr_exits - 1].time_ns, 6);
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_EQ_U64(mapped(&f, C, 0x7000, NULL), 0);
	CHECK_EQ_U64(mapped(&f, P, 0x7000, NULL), 1);
	CHECK_OK(recording__finish(f.s.rec));
	fixture__release(&f);
}

/* The rows read back, by their start (mappings) or time order (names). */
struct rows_seen {
	struct rec_mapping maps[8];
	char paths[8][32];		/* maps[i].path: valid only in the callback */
	struct rec_comm comms[8];
	size_t nr_maps, nr_comms;
};

static int keep_mapping(void *ctx, const struct rec_mapping *m)
{
	struct rows_seen *r = ctx;

	if (r->nr_maps < ARRAY_SIZE(r->maps)) {
		r->maps[r->nr_maps] = *m;
		snprintf(r->paths[r->nr_maps], sizeof(r->paths[0]), "%s", m->path ? m->path : "");
		r->maps[r->nr_maps].path = r->paths[r->nr_maps];
	}
	r->nr_maps++;
	return 0;
}

static int keep_comm(void *ctx, const struct rec_comm *c)
{
	struct rows_seen *r = ctx;

	if (r->nr_comms < ARRAY_SIZE(r->comms))
		r->comms[r->nr_comms] = *c;
	r->nr_comms++;
	return 0;
}

static int by_pid_start_time(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* Writes P's kept mapping at start mapped at time (its table sorted as capture sorts it). */
static void write_mapping(struct fixture *f, uint32_t pid, uint64_t start, uint64_t time,
			  uint64_t complete_ns)
{
	size_t i;

	qsort(f->s.maps.v, f->s.maps.nr, sizeof(*f->s.maps.v), by_pid_start_time);
	f->s.maps.dirty = false;
	for (i = 0; i < f->s.maps.nr; i++)
		if (f->s.maps.v[i].tgid == pid && f->s.maps.v[i].start == start &&
		    f->s.maps.v[i].time_ns == time)
			CHECK_OK(mapping__write(&f->s.maps, f->s.rec, &f->s.maps.v[i], complete_ns));
}

static uint64_t mapping_time(const struct rows_seen *r, uint32_t pid, uint64_t start,
			     const char *path)
{
	size_t i;

	for (i = 0; i < r->nr_maps && i < ARRAY_SIZE(r->maps); i++)
		if (r->maps[i].tgid == pid && r->maps[i].start == start &&
		    !strcmp(r->maps[i].path, path))
			return r->maps[i].time_ns;
	CHECK(!"a mapping row is missing");
	return UINT64_MAX;
}

/*
 * A row's time only orders the rows that compete for one thread or one
 * address. A mapping that no other of its process overlaps, and a
 * thread's first name in the file, go "from the file's start" (time 0),
 * once the side-band is surely read past them; the others keep theirs.
 * A pid whose written rows were forgotten keeps its next owner's times.
 */
static void rows_alone_go_from_the_start(void)
{
	struct recording *rec = NULL;
	struct rows_seen r = { 0 };
	struct fixture f;

	fixture__init(&f, "alone.eprof");
	handle(&f, 0, exec_rec(&f.r, P, 1, "parent"));
	handle(&f, 0, mmap2(&f.r, P, 2, 0x7000, PROT_EXEC, "/lib/alone.so"));
	handle(&f, 0, mmap2(&f.r, P, 3, 0x9000, PROT_EXEC, "/lib/first.so"));
	handle(&f, 0, mmap2(&f.r, P, 4, 0x9000, PROT_EXEC, "/lib/second.so"));	/* same place */
	handle(&f, 0, mmap2(&f.r, P, 60, 0xb000, PROT_EXEC, "/lib/late.so"));
	handle(&f, 0, exec_rec(&f.r, C, 5, "other"));
	handle(&f, 0, mmap2(&f.r, C, 6, 0x5000, PROT_EXEC, "/bin/other"));
	CHECK_OK(sideband__end_batch(f.sb));
	f.s.sideband_past_ns = 50 + SIDEBAND_MARGIN_NS;
	CHECK_OK(session__note_sampled(&f.s, P));
	CHECK_OK(session__note_sampled(&f.s, C));
	CHECK_OK(session__note_comm(&f.s, 7, P, P, "parent"));
	CHECK_OK(session__note_comm(&f.s, 8, P, P, "renamed"));	/* competes: exact */
	CHECK_OK(session__note_comm(&f.s, 70, C, C + 1, "late thread"));	/* not surely read past */
	write_mapping(&f, P, 0x7000, 2, 50);
	write_mapping(&f, P, 0x9000, 3, 50);
	write_mapping(&f, P, 0x9000, 4, 50);
	write_mapping(&f, P, 0xb000, 60, 50);
	/* C ends with a row written: a later owner of its pid keeps its times */
	write_mapping(&f, C, 0x5000, 6, 50);
	handle(&f, 0, exit_rec(&f.r, C, 9));
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_EQ_U64(mapped(&f, C, 0x5000, NULL), 0);
	handle(&f, 0, exec_rec(&f.r, C, 20, "new owner"));
	handle(&f, 0, mmap2(&f.r, C, 21, 0x3000, PROT_EXEC, "/bin/new"));
	CHECK_OK(sideband__end_batch(f.sb));
	/* a sample of the new owner: C's row went with the old one, its name was held */
	CHECK_OK(session__note_sampled(&f.s, C));
	CHECK_OK(session__note_comm(&f.s, 22, C, C, "new owner"));
	write_mapping(&f, C, 0x3000, 21, 50);
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_OK(recording__finish(f.s.rec));

	CHECK_OK(recording__open(path_in("alone.eprof"), &rec));
	CHECK_OK(recording__for_each_mapping(rec, keep_mapping, &r));
	CHECK_OK(recording__for_each_comm(rec, keep_comm, &r));
	recording__close(rec);
	CHECK_EQ_U64(r.nr_maps, 6);
	CHECK_EQ_U64(mapping_time(&r, P, 0x7000, "/lib/alone.so"), 0);
	CHECK_EQ_U64(mapping_time(&r, P, 0x9000, "/lib/first.so"), 3);
	CHECK_EQ_U64(mapping_time(&r, P, 0x9000, "/lib/second.so"), 4);
	CHECK_EQ_U64(mapping_time(&r, P, 0xb000, "/lib/late.so"), 60);
	CHECK_EQ_U64(mapping_time(&r, C, 0x5000, "/bin/other"), 0);
	CHECK_EQ_U64(mapping_time(&r, C, 0x3000, "/bin/new"), 21);
	/*
	 * Names by commit, each in time order: P's and C's first from the
	 * start, P's rename, C's late thread; then the pid's new owner,
	 * whose tid had a row in this file already.
	 */
	CHECK_EQ_U64(r.nr_comms, 5);
	CHECK_EQ_U64(r.comms[0].time_ns, 0);
	CHECK_EQ_U64(r.comms[1].time_ns, 0);
	CHECK_EQ_U64(r.comms[2].time_ns, 8);
	CHECK_STR(r.comms[2].comm, "renamed");
	CHECK_EQ_U64(r.comms[3].time_ns, 70);
	CHECK_STR(r.comms[3].comm, "late thread");
	CHECK_EQ_U64(r.comms[4].time_ns, 20);
	CHECK_STR(r.comms[4].comm, "new owner");
	fixture__release(&f);
}

/* Sorts the kept mappings as capture's step does (its sort_maps). */
static void sort_like_capture(struct fixture *f)
{
	qsort(f->s.maps.v, f->s.maps.nr, sizeof(*f->s.maps.v), by_pid_start_time);
	f->s.maps.dirty = false;
	f->s.maps.nr_sorted = f->s.maps.nr;
}

/*
 * A fork finds its parent's mappings through the sorted part and the tail
 * index (session.c, index_tail), whatever moved them: a sort between two
 * forks, mappings added to the tail by others, processes forgotten (their
 * mappings dropped, the others moved down).
 */
static void forks_across_sorts_and_compactions(void)
{
	struct fixture f;
	uint32_t q;

	fixture__init(&f, "tail.eprof");
	handle(&f, 0, mmap2(&f.r, P, 1, 0x7000, PROT_EXEC, "/lib/a.so"));
	CHECK_OK(sideband__end_batch(f.sb));
	sort_like_capture(&f);
	for (q = 1000; q < 1040; q++)	/* others' mappings, in the tail before P's */
		handle(&f, 0, mmap2(&f.r, q, 2, 0x1000, PROT_EXEC, "/bin/other"));
	handle(&f, 0, mmap2(&f.r, P, 5, 0x9000, PROT_EXEC, "/lib/b.so"));
	handle(&f, 0, mmap2(&f.r, 1050, 5, 0x1000, PROT_EXEC, "/bin/other"));
	handle(&f, 0, fork_rec(&f.r, P, C, C, 10));
	CHECK_OK(sideband__end_batch(f.sb));
	CHECK_EQ_U64(mapped(&f, C, 0x7000, NULL), 1);	/* from the sorted part */
	CHECK_EQ_U64(mapped(&f, C, 0x9000, NULL), 1);	/* from the tail */
	CHECK_EQ_U64(mapped(&f, C, 0x1000, NULL), 0);
	/* the others end and are forgotten: the kept mappings move down */
	for (q = 1000; q < 1040; q++)
		handle(&f, 0, exit_rec(&f.r, q, 11));
	CHECK_OK(sideband__end_batch(f.sb));
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_OK(session__commit(&f.s, NULL));
	CHECK_EQ_U64(mapped(&f, 1000, 0x1000, NULL), 0);
	handle(&f, 0, mmap2(&f.r, C, 12, 0xb000, PROT_EXEC, "/lib/c.so"));
	handle(&f, 0, fork_rec(&f.r, C, G, G, 20));
	handle(&f, 0, fork_rec(&f.r, P, J, J, 21));
	CHECK_OK(sideband__end_batch(f.sb));
	CHECK_EQ_U64(mapped(&f, G, 0x7000, NULL), 1);
	CHECK_EQ_U64(mapped(&f, G, 0x9000, NULL), 1);
	CHECK_EQ_U64(mapped(&f, G, 0xb000, NULL), 1);
	CHECK_EQ_U64(mapped(&f, J, 0x7000, NULL), 1);
	CHECK_EQ_U64(mapped(&f, J, 0x9000, NULL), 1);
	CHECK_EQ_U64(mapped(&f, J, 0xb000, NULL), 0);	/* C's, not P's */
	CHECK_OK(recording__finish(f.s.rec));
	fixture__release(&f);
}

/*
 * Issue 24: the tail index takes its bytes from the memory budget where it
 * has room, and gives them back. With the budget full it is still kept (a
 * scan of the tail per fork and per frame instead fell far behind a user's
 * many mappings), and it takes nothing from the floor that keeps small
 * processes' mappings.
 */
static void the_tail_index_is_charged_where_the_budget_has_room(void)
{
	struct fixture f;
	uint64_t before = mem_budget__used(), held;
	uint32_t q;

	fixture__init(&f, "tail-charged.eprof");
	handle(&f, 0, mmap2(&f.r, P, 1, 0x7000, PROT_EXEC, "/lib/a.so"));
	CHECK_OK(sideband__end_batch(f.sb));
	sort_like_capture(&f);
	for (q = 1000; q < 1040; q++)
		handle(&f, 0, mmap2(&f.r, q, 2, 0x1000, PROT_EXEC, "/bin/other"));
	handle(&f, 0, mmap2(&f.r, P, 5, 0x9000, PROT_EXEC, "/lib/b.so"));
	held = mem_budget__take_upto(mem_budget__free());	/* the budget full */
	handle(&f, 0, fork_rec(&f.r, P, C, C, 10));
	CHECK_OK(sideband__end_batch(f.sb));
	/* 42 tail mappings of 41 processes, indexed but not charged */
	CHECK(f.s.tail_prev != NULL);
	CHECK(f.s.maps.index_bytes >= f.s.tail_alloc * sizeof(*f.s.tail_prev) + 16 * 41);
	CHECK_EQ_U64(f.s.maps.index_charged, 0);
	CHECK_EQ_U64(mapped(&f, C, 0x7000, NULL), 1);
	CHECK_EQ_U64(mapped(&f, C, 0x9000, NULL), 1);	/* through the index */
	mem_budget__give(held);
	for (q = 2000; q < 2100; q++)	/* the index grows: charged now */
		handle(&f, 0, mmap2(&f.r, q, 11, 0x1000, PROT_EXEC, "/bin/other"));
	handle(&f, 0, fork_rec(&f.r, C, G, G, 20));
	CHECK_OK(sideband__end_batch(f.sb));
	CHECK(f.s.maps.index_charged > 0 && f.s.maps.index_charged <= f.s.maps.index_bytes);
	CHECK_EQ_U64(mapped(&f, G, 0x9000, NULL), 1);
	CHECK_OK(recording__finish(f.s.rec));
	fixture__release(&f);
	CHECK(mem_budget__used() <= before);
}

/*
 * A record the kernel wrote into both the old and the new buffers while
 * the side-band grew: its copies differ only in their times. The new
 * buffer's copy of a record the old one kept inside the window is skipped,
 * once per copy kept; anything else is handled.
 */
static void copies_across_a_grow_are_handled_once(void)
{
	struct rec_buf r2 = { .b = aligned_alloc(8, REC_BUF_SIZE) };
	struct rec_buf r = { .b = aligned_alloc(8, REC_BUF_SIZE) };
	struct overlap o = { 0 };
	uint64_t k;

	CHECK(r.b && r2.b);
	if (!r.b || !r2.b)
		goto out;
	k = overlap__key(1, mmap2(&r, P, 150, 0x1000, PROT_EXEC, "/bin/p"));
	CHECK(overlap__key(1, mmap2(&r2, P, 151, 0x1000, PROT_EXEC, "/bin/p")) == k);
	CHECK(overlap__key(0, mmap2(&r2, P, 150, 0x1000, PROT_EXEC, "/bin/p")) != k);
	CHECK(overlap__key(1, mmap2(&r2, P, 150, 0x2000, PROT_EXEC, "/bin/p")) != k);
	CHECK(overlap__key(1, mmap2(&r2, P, 150, 0x1000, PROT_EXEC, "/bin/q")) != k);
	/* a fork's own time is stamped per event too; its pids are not */
	k = overlap__key(1, fork_rec(&r, P, C, C, 150));
	CHECK(overlap__key(1, fork_rec(&r2, P, C, C, 152)) == k);
	CHECK(overlap__key(1, fork_rec(&r2, P, G, G, 150)) != k);

	overlap__begin(&o, 100, 200);
	CHECK(overlap__open(&o));
	CHECK_OK(overlap__note(&o, 1, mmap2(&r, P, 150, 0x1000, PROT_EXEC, "/bin/p")));
	CHECK_OK(overlap__note(&o, 1, mmap2(&r, P, 50, 0x3000, PROT_EXEC, "/bin/p")));
	CHECK_OK(overlap__note(&o, 1, exec_rec(&r, C, 190, "c")));
	CHECK_OK(overlap__note(&o, 0, fork_rec(&r, P, C, C, 199)));
	/* not searchable until the old buffer was read to its end */
	CHECK(!overlap__is_copy(&o, 1, mmap2(&r, P, 151, 0x1000, PROT_EXEC, "/bin/p")));
	overlap__seal(&o);
	CHECK(overlap__is_copy(&o, 1, mmap2(&r, P, 151, 0x1000, PROT_EXEC, "/bin/p")));
	CHECK(!overlap__is_copy(&o, 1, mmap2(&r, P, 152, 0x1000, PROT_EXEC, "/bin/p")));
	CHECK(!overlap__is_copy(&o, 1, mmap2(&r, P, 120, 0x3000, PROT_EXEC, "/bin/p")));
	CHECK(!overlap__is_copy(&o, 1, exec_rec(&r, C, 201, "c")));	/* after the window */
	CHECK(overlap__is_copy(&o, 1, exec_rec(&r, C, 191, "c")));
	CHECK(overlap__is_copy(&o, 0, fork_rec(&r, P, C, C, 200)));
	CHECK(!overlap__is_copy(&o, 0, fork_rec(&r, P, C, C, 200)));
	overlap__end(&o);
	CHECK(!overlap__open(&o));
	CHECK(!overlap__is_copy(&o, 1, mmap2(&r, P, 151, 0x1000, PROT_EXEC, "/bin/p")));
out:
	overlap__release(&o);
	free(r.b);
	free(r2.b);
}

/* Mappings of pid holding addr: how many, and the time of the last one. */
static size_t holding(const struct fixture *f, uint32_t pid, uint64_t addr, uint64_t *time)
{
	size_t i, n = 0;

	for (i = 0; i < f->s.maps.nr; i++) {
		const struct mapping *m = &f->s.maps.v[i];

		if (m->tgid != pid || addr < m->start || addr >= m->end)
			continue;
		n++;
		*time = m->time_ns;
	}
	return n;
}

/* A sample of pid with the one user frame pc, noted as the sampler's would be. */
static void sample_at(struct fixture *f, uint32_t pid, uint64_t pc, uint64_t time)
{
	struct stack_use u;

	CHECK_OK(stack_table__use(&f->s.stacks, &pc, 0, 1, pid, time, &u));
	CHECK(u.pair_added);
	CHECK_OK(capture__note_pair(f->s.capture, (uint64_t)pid << 32 | u.id));
}

/*
 * t0405: a process whose mmap records a side-band loss took is read again
 * from /proc as soon as the loss is read and a sample of it falls in no
 * mapping, not at the next commit (it may have ended by then), its
 * mappings stamped from the commit before the loss. A process is read
 * once between two commits, however many losses come; one whose samples
 * are all mapped is not read. This test's own process stands for it.
 */
static void a_loss_is_repaired_before_the_next_commit(void)
{
	uint32_t me = (uint32_t)getpid();
	uint64_t pc = (uint64_t)(uintptr_t)&a_loss_is_repaired_before_the_next_commit, t = 0;
	struct fixture f;

	fixture__init(&f, "repair.eprof");
	f.s.sideband = f.sb;
	f.s.capture = capture__new();
	CHECK(f.s.capture != NULL);
	f.s.last_commit_ns = 1000;
	handle(&f, 0, mmap2(&f.r, J, 1500, 0x7000, PROT_EXEC, "/lib/known.so"));
	sample_at(&f, me, pc, 2000);
	CHECK_OK(session__repair(&f.s));
	CHECK_EQ_U64(f.s.nr_rescanned, 0);	/* no loss: nothing to repair */
	handle(&f, 1, lost_rec(&f.r, 7, 2100));
	sample_at(&f, J, 0x7010, 2200);		/* in a mapping: not read again */
	CHECK_OK(session__repair(&f.s));
	CHECK_EQ_U64(f.s.nr_rescanned, 1);
	CHECK_EQ_U64(holding(&f, me, pc, &t), 1);
	CHECK_EQ_U64(t, 1000);
	CHECK_EQ_U64(holding(&f, J, 0x7010, &t), 1);
	CHECK_EQ_U64(t, 1500);
	sample_at(&f, me, pc + 1, 2300);
	CHECK_OK(session__repair(&f.s));
	CHECK_EQ_U64(f.s.nr_rescanned, 1);	/* once a loss */
	/* another loss before a commit: the window goes on, no one is read twice */
	sample_at(&f, me, 0x10, 2350);
	handle(&f, 1, lost_rec(&f.r, 2, 2400));
	CHECK_OK(session__repair(&f.s));
	CHECK_EQ_U64(f.s.nr_rescanned, 1);
	/*
	 * after a commit, a loss opens it again: the process with a pair the
	 * commit's step could not place (0x10) is read again, from that
	 * commit on; the other is not
	 */
	CHECK_OK(session__commit(&f.s, NULL));
	sample_at(&f, J, 0x7020, 2500);
	handle(&f, 1, lost_rec(&f.r, 3, 2600));
	CHECK_OK(session__repair(&f.s));
	CHECK_EQ_U64(f.s.nr_rescanned, 2);
	CHECK_EQ_U64(holding(&f, me, pc, &t), 2);
	CHECK_EQ_U64(t, f.s.last_commit_ns);
	sample_at(&f, me, 0x20, 2700);
	CHECK_OK(session__repair(&f.s));
	CHECK_EQ_U64(f.s.nr_rescanned, 2);
	capture__free(f.s.capture);
	f.s.capture = NULL;
	stack_table__release(&f.s.stacks);
	u64map__release(&f.s.repaired);
	f.s.sideband = NULL;	/* the fixture closes it */
	fixture__release(&f);
}

#define STORM		20000
#define STORM_PIDS	2000

/* Which of the storm's names ("s" and its number) the file has. */
static int mark_storm_name(void *ctx, const struct rec_comm *c)
{
	bool *seen = ctx;
	unsigned long n;
	char *end;

	if (c->comm[0] != 's')
		return 0;
	n = strtoul(c->comm + 1, &end, 10);
	if (!*end && n < STORM)
		seen[n] = true;
	return 0;
}

/*
 * Issue 22: a fork storm through the side-band, 20,000 processes on 2,000
 * pids, each forked, named at its exec, sampled, exited; a commit every
 * 100. The session's rows of threads and processes stay within those of
 * the last commits, and the file names every process.
 */
static void a_fork_storm_is_forgotten_not_its_names(void)
{
	static bool seen[STORM];
	struct recording *rec = NULL;
	size_t peak = 0, missing = 0;
	struct fixture f;
	char name[16];
	uint32_t i, pid;
	uint64_t t;

	fixture__init(&f, "storm.eprof");
	CHECK_OK(session__note_sampled(&f.s, P));
	CHECK_OK(session__note_comm(&f.s, 1, P, P, "parent"));
	for (i = 0; i < STORM; i++) {
		pid = 1000 + i % STORM_PIDS;
		t = 10 + 10ull * i;
		snprintf(name, sizeof(name), "s%u", i);
		handle(&f, 0, fork_rec(&f.r, P, pid, pid, t));
		handle(&f, 0, exec_rec(&f.r, pid, t + 1, name));
		CHECK_OK(sideband__end_batch(f.sb));
		/* its sample, as use_stack and take_sample note it */
		CHECK_OK(session__note_sampled(&f.s, pid));
		CHECK_OK(session__note_comm(&f.s, t + 2, pid, pid, name));
		handle(&f, 0, exit_rec(&f.r, pid, t + 3));
		if (i % 100 == 99) {
			CHECK_OK(session__commit(&f.s, NULL));
			if (threads__nr_threads(&f.s.threads) > peak)
				peak = threads__nr_threads(&f.s.threads);
		}
	}
	CHECK(peak >= 100 && peak <= 301);
	CHECK(f.s.threads.thr.peak <= 301);
	CHECK(f.s.threads.proc.peak <= 301);
	CHECK_OK(recording__finish(f.s.rec));
	CHECK_OK(recording__open(path_in("storm.eprof"), &rec));
	CHECK_OK(recording__for_each_comm(rec, mark_storm_name, seen));
	recording__close(rec);
	for (i = 0; i < STORM; i++)
		missing += !seen[i];
	CHECK_EQ_U64(missing, 0);
	fixture__release(&f);
}

static const struct test tests[] = {
	{ "a fork storm's rows are forgotten, never its names",
	  a_fork_storm_is_forgotten_not_its_names },
	{ "copies across a buffer's growth are handled once", copies_across_a_grow_are_handled_once },
	{ "forks find their parent's mappings across sorts and compactions",
	  forks_across_sorts_and_compactions },
	{ "the tail index is charged where the budget has room, and kept when it is full",
	  the_tail_index_is_charged_where_the_budget_has_room },
	{ "a short child's exit read before its fork still forgets it",
	  short_child_exit_before_its_fork_is_applied },
	{ "a fork read before its parent's earlier mmap inherits it", fork_before_earlier_mmap },
	{ "a grandchild gets what its parent inherited", grandchild_after_child_whatever_the_order },
	{ "a fork copies only the image after the last exec", exec_replaces_the_image },
	{ "a reused pid forgets its previous owner's exec", reused_pid_forgets_old_exec },
	{ "threads, data mappings and malformed records are skipped", ignored_records },
	{ "a reused pid's JIT map is its own, read at its own exit", reused_pid_jit_map },
	{ "only the mappings and names of sampled processes are stored",
	  only_what_samples_use_is_stored },
	{ "rows alone go from the file's start, competing ones keep their times",
	  rows_alone_go_from_the_start },
	{ "a side-band loss is repaired before the next commit",
	  a_loss_is_repaired_before_the_next_commit },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
