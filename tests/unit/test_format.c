// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_format.c - the recording file end to end: every table
 * written and read back field by field, unfinished and interrupted files,
 * version and identity checks, and damaged files (truncated, bytes flipped,
 * BLOBs and columns rewritten to lie) that must give an error, never a
 * crash. Also prints what a 2-CPU 999 Hz sample stream costs per sample
 * and how long reading a million samples takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <zstd.h>

#include "format/codec.h"
#include "format/internal.h"
#include "format/recording.h"
#include "tests/unit/harness.h"

/* --- helpers -------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static void rng_seed(uint64_t seed)
{
	rng_state = seed ? seed : 1;
}

static uint64_t rnd(void)		/* xorshift64* */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static char *path_dup(const char *name)
{
	return strdup(path_in(name));
}

/* stderr goes to a file (or /dev/null) between capture_begin and capture_end */
static int saved_stderr = -1;
static char captured[8192];
static char capture_path[600];

static void capture_begin(bool keep)
{
	int fd;

	fflush(stderr);
	snprintf(capture_path, sizeof(capture_path), "%s/stderr.txt", test_dir());
	saved_stderr = dup(2);
	fd = keep ? open(capture_path, O_RDWR | O_CREAT | O_TRUNC, 0600)
		  : open("/dev/null", O_WRONLY);
	dup2(fd, 2);
	close(fd);
}

static const char *capture_end(void)
{
	ssize_t n;
	int fd;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	captured[0] = '\0';
	fd = open(capture_path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, captured, sizeof(captured) - 1);
		captured[n > 0 ? n : 0] = '\0';
		close(fd);
		unlink(capture_path);
	}
	return captured;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int exec_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open(path, &db);

	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		fprintf(stderr, "  sql '%s' on %s: %s\n", sql, path, sqlite3_errmsg(db));
	sqlite3_close(db);
	return rc;
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int err = 0;

	if (!f)
		return -errno;
	if (len && fwrite(data, 1, len, f) != len)
		err = -EIO;
	if (fclose(f))
		err = -EIO;
	return err;
}

static void *read_whole(const char *path, size_t *len)
{
	struct stat sb;
	void *data;
	FILE *f = fopen(path, "rb");

	if (!f || fstat(fileno(f), &sb)) {
		if (f)
			fclose(f);
		return NULL;
	}
	data = malloc((size_t)sb.st_size + 1);
	*len = fread(data, 1, (size_t)sb.st_size, f);
	fclose(f);
	return data;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct rec_sample *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

/* --- counting callbacks: every reader call, as report/ would make them ---- */

struct counts {
	size_t samples, stacks, frames, comms, mappings, losses, binaries, symbols, ksyms;
};

static int count_sample(void *ctx, const struct rec_sample *s)
{
	(void)s;
	((struct counts *)ctx)->samples++;
	return 0;
}

static int count_stack(void *ctx, const struct rec_stack *st)
{
	struct counts *c = ctx;
	uint32_t i;

	c->stacks++;
	for (i = 0; i < st->nr_kernel + st->nr_user; i++)	/* touch every frame */
		c->frames += st->frames[i] != 1;
	return 0;
}

static int count_comm(void *ctx, const struct rec_comm *cm)
{
	((struct counts *)ctx)->comms += strlen(cm->comm) < REC_COMM_LEN;
	return 0;
}

static int count_mapping(void *ctx, const struct rec_mapping *m)
{
	((struct counts *)ctx)->mappings += strlen(m->path) <= 4096;
	return 0;
}

static int count_loss(void *ctx, const struct rec_loss *l)
{
	(void)l;
	((struct counts *)ctx)->losses++;
	return 0;
}

static int count_binary(void *ctx, const struct rec_binary *b)
{
	struct counts *c = ctx;
	size_t i;

	c->binaries++;
	for (i = 0; i < b->nr_symbols; i++)
		c->symbols += strlen(b->symbols[i].name) + 1;
	for (i = 0; i < b->nr_segments; i++)
		c->symbols += b->segments[i].filesz & 1;
	return 0;
}

static int count_ksym(void *ctx, const struct rec_ksym *k)
{
	((struct counts *)ctx)->ksyms += strlen(k->name) + (k->module ? strlen(k->module) : 0);
	return 0;
}

/*
 * Opens path and makes every reader call. Each must return 0 or a negative
 * errno; returns the first failure (the open's included), or 0.
 */
static int read_all(const char *path, struct counts *c)
{
	struct recording *rec = NULL;
	int errs[9], i, first = 0;
	uint64_t total;
	char *v = NULL;

	memset(c, 0, sizeof(*c));
	first = recording__open(path, &rec);
	if (first) {
		CHECK(first < 0);
		return first;
	}
	errs[0] = recording__for_each_sample(rec, count_sample, c);
	errs[1] = recording__for_each_stack(rec, count_stack, c);
	errs[2] = recording__for_each_comm(rec, count_comm, c);
	errs[3] = recording__for_each_mapping(rec, count_mapping, c);
	errs[4] = recording__for_each_loss(rec, count_loss, c);
	errs[5] = recording__for_each_binary(rec, count_binary, c);
	errs[6] = recording__for_each_ksym(rec, count_ksym, c);
	errs[7] = recording__sample_count(rec, &total);
	errs[8] = recording__get_meta(rec, REC_META_HOSTNAME, &v);
	if (errs[8] == -ENOENT)
		errs[8] = 0;
	free(v);
	for (i = 0; i < 9; i++) {
		CHECK(errs[i] <= 0);
		if (errs[i] && !first)
			first = errs[i];
	}
	recording__close(rec);
	return first;
}

/* --- a synthetic 2-CPU 999 Hz CPU-bound recording ------------------------- */

#define HZ_PERIOD_NS	1001001ull	/* 1 s / 999 */

struct gen999 {
	uint64_t tick[2];		/* next ideal expiry per CPU */
	unsigned int thread[2];		/* index into the threads */
	size_t nr_stacks;		/* ids 1..nr_stacks */
};

/* 3 processes: 1001 and 2002 single-threaded, 3003 with two threads */
static const uint32_t gen_tgid[] = { 1001, 2002, 3003, 3003 };
static const uint32_t gen_tid[] = { 1001, 2002, 3003, 3010 };

static void gen999_init(struct gen999 *g, uint64_t start_ns)
{
	g->tick[0] = start_ns;
	g->tick[1] = start_ns + 377123;		/* the CPUs' timers are out of phase */
	g->thread[0] = 0;
	g->thread[1] = 1;
	g->nr_stacks = 6 * ARRAY_SIZE(gen_tid);
}

/*
 * The sample of CPU cpu: the timer fires on its 1001001 ns grid, observed
 * 1-9 us late, sometimes up to 100 us (interrupts off); the thread on the
 * CPU changes with 2% probability; each thread has six stacks, two of
 * them hot (a CPU-bound loop and its callee).
 */
static struct rec_sample gen999_next(struct gen999 *g, uint32_t cpu)
{
	struct rec_sample s;
	uint64_t late = 1000 + rnd() % 8000, r;
	unsigned int t;

	if (rnd() % 50 == 0)
		late += rnd() % 100000;
	if (rnd() % 50 == 0)
		g->thread[cpu] = (unsigned int)(rnd() % ARRAY_SIZE(gen_tid));
	t = g->thread[cpu];
	r = rnd() % 16;
	s.time_ns = g->tick[cpu] + late;
	s.cpu = cpu;
	s.tgid = gen_tgid[t];
	s.tid = gen_tid[t];
	s.stack_id = (uint32_t)(1 + t * 6 + (r < 9 ? 0 : r < 14 ? 1 : r - 12));
	g->tick[cpu] += HZ_PERIOD_NS;
	return s;
}

/* Adds the stacks gen999 refers to: ids 1..nr_stacks, 3 kernel + 6..14 user frames. */
static int gen999_stacks(struct recording *rec, const struct gen999 *g)
{
	uint64_t frames[32];
	struct rec_stack st;
	size_t i, j;
	int err = 0;

	for (i = 0; i < g->nr_stacks && !err; i++) {
		st.id = (uint32_t)(i + 1);
		st.nr_kernel = 3;
		st.nr_user = (uint32_t)(6 + i % 9);
		for (j = 0; j < st.nr_kernel; j++)
			frames[j] = 0xffffffff81000000ull + 0x1234 * (j + 1) + i * 16;
		for (j = 0; j < st.nr_user; j++)
			frames[3 + j] = 0x555555554000ull + 0x100 * (st.nr_user - j) + i;
		st.frames = frames;
		err = recording__add_stack(rec, &st);
	}
	return err;
}

/*
 * Records seconds of the synthetic stream into path, committing once a
 * second as record/ does, with stacks, comms, mappings, symbols and losses
 * around it (finish: finalize it).
 */
static int make_999hz(const char *path, unsigned int seconds, bool finish, size_t *nr_samples)
{
	struct recording *rec = NULL;
	struct gen999 g;
	struct rec_sample s[2];
	struct rec_comm c = { 0, 1001, 1001, "spin" };
	struct rec_mapping m = { 0, 1001, 0x555555554000ull, 0x555555556000ull, 0x1000,
				 "/usr/bin/spin", { 0xab, 0xcd }, 2 };
	struct rec_segment seg = { 0x1000, 0x401000, 0x1000 };
	struct rec_symbol syms[50];
	struct rec_binary b = { { 0xab, 0xcd }, 2, "/usr/bin/spin", ".symtab", 1, &seg, 50, syms };
	struct rec_ksym ks[300];
	struct rec_loss l = { 0, 0, 1, 2, 3, 4, 5 };
	char names[50][16], knames[300][16];
	uint64_t until, start = 5000000000ull;
	size_t i, n = 0;
	int err;

	rng_seed(999);
	err = recording__create(path, &rec);
	if (err)
		return err;
	gen999_init(&g, start);
	err = gen999_stacks(rec, &g);
	err = err ?: recording__set_meta(rec, REC_META_HOSTNAME, "testhost");
	err = err ?: recording__set_meta(rec, REC_META_FREQ_HZ, "999");
	err = err ?: recording__add_comm(rec, &c);
	err = err ?: recording__add_mapping(rec, &m);
	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		snprintf(names[i], sizeof(names[i]), "func_%zu", i);
		syms[i] = (struct rec_symbol){ 0x401000 + i * 0x40, 0x40, names[i] };
	}
	for (i = 0; i < ARRAY_SIZE(ks); i++) {
		snprintf(knames[i], sizeof(knames[i]), "ksym_%zu", i);
		ks[i] = (struct rec_ksym){ 0xffffffff81000000ull + i * 0x100,
					   0xffffffff81000000ull + i * 0x100 + 0x80, knames[i],
					   i % 3 ? NULL : "ext4" };
	}
	err = err ?: recording__add_binary(rec, &b);
	err = err ?: recording__add_ksyms(rec, ks, ARRAY_SIZE(ks));
	for (until = start + 1000000000ull; !err && until <= start + seconds * 1000000000ull;
	     until += 1000000000ull) {
		while (!err && g.tick[0] < until) {
			s[0] = gen999_next(&g, 0);
			err = recording__add_sample(rec, &s[0]);
			n++;
			if (!err && g.tick[1] < until) {
				s[1] = gen999_next(&g, 1);
				err = recording__add_sample(rec, &s[1]);
				n++;
			}
		}
		l.time_ns = until;
		l.cpu = (uint32_t)(until / 1000000000ull % 2);
		err = err ?: recording__add_loss(rec, &l);
		err = err ?: recording__commit(rec);
	}
	if (!err && finish)
		err = recording__finish(rec);
	recording__close(rec);
	*nr_samples = n;
	return err;
}

/* --- the full round trip -------------------------------------------------- */

#define RT_STACKS	70
#define RT_KSYMS	70000		/* more than one ksym chunk */

struct rt_stack {
	struct rec_stack st;
	uint64_t frames[130];
	int seen;
};

static struct rt_stack rt_stacks[RT_STACKS];
static struct rec_sample *rt_samples;
static size_t rt_nr_samples, rt_next_sample;

/* in time order: a commit's names (and mappings) come back sorted by time */
static const struct rec_comm rt_comms[] = {
	{ 0, 1, 1, "systemd" },
	{ 10, 4242, 4242, "fifteen-chars-x" },
	{ 20, 4242, 4243, "" },
	{ 30, 0, REC_MAX_PID, "far tid" },
	{ UINT64_MAX, REC_MAX_PID, REC_MAX_PID, "max" },
};

static const struct rec_mapping rt_maps[] = {
	{ 0, 4242, 0x555555554000ull, 0x555555558000ull, 0, "/usr/bin/app",
	  { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 }, 20 },
	{ 123, 4242, 0x7ffff7fc1000ull, 0x7ffff7fc3000ull, 0, "[vdso]", { 0 }, 0 },
	{ 456, 4242, 0x7ffff7dd0000ull, 0x7ffff7f40000ull, 0x28000,
	  "/usr/lib/x86_64-linux-gnu/libc.so.6", { 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 1 }, 8 },
	{ 789, 1, 0xffffffffff600000ull, UINT64_MAX, UINT64_MAX, "//anon", { 0 }, 0 },
};

static const struct rec_loss rt_losses[] = {
	{ 1000, 0, 1, 2, 3, 4, 5 },
	{ 2000, 1, 0, 0, 0, 0, 0 },
	/* counters up to REC_MAX_COUNT (1 << 60) in all, the table's sum included */
	{ UINT64_MAX, 4095, 1ull << 58, (1ull << 58) - 1, 1ull << 58, 7, (1ull << 58) - 22 },
};

static const struct rec_segment rt_segs[] = {
	{ 0, 0, 0x1000 },
	{ 0x1000, 0x401000, 0x2345 },
};

static const char *const rt_meta[][2] = {
	{ REC_META_EPROF_VERSION, "0.1.0-test" }, { REC_META_HOSTNAME, "host" },
	{ REC_META_KERNEL, "6.18.0" }, { REC_META_ARCH, "x86_64" }, { REC_META_NR_CPUS, "4096" },
	{ REC_META_NUMA_MAP, "0:0,1:0" }, { REC_META_FREQ_HZ, "999" },
	{ REC_META_EVENT, "cpu-clock" }, { REC_META_CLOCK, "CLOCK_MONOTONIC" },
	{ REC_META_START_NS, "123" }, { REC_META_END_NS, "18446744073709551615" },
	{ REC_META_START_REALTIME, "1700000000" },
	{ REC_META_COMMAND, "eprof record -F 999 -- ./app 'with spaces'" },
	{ REC_META_TARGET, "-- ./app" },
};

static void rt_make_stacks(void)
{
	size_t i, j;

	for (i = 0; i < RT_STACKS; i++) {
		struct rt_stack *s = &rt_stacks[i];

		/* sparse ids, 0 and UINT32_MAX included; empty and 128-frame stacks */
		s->st.id = i == 0 ? 0 : i == 1 ? UINT32_MAX : (uint32_t)(i * 7919 + 13);
		s->st.nr_kernel = (uint32_t)(i % 5);
		s->st.nr_user = i == 2 ? 0 : i == 3 ? 127 : (uint32_t)(i % 11);
		if (i == 2)
			s->st.nr_kernel = 0;
		for (j = 0; j < s->st.nr_kernel; j++)
			s->frames[j] = 0xffffffff81000000ull + rnd() % 0x1000000;
		for (j = s->st.nr_kernel; j < s->st.nr_kernel + s->st.nr_user; j++)
			s->frames[j] = j % 3 ? 0x7f0000000000ull + rnd() % (1ull << 40) : rnd();
		s->st.frames = s->frames;
		s->seen = 0;
	}
}

static int rt_check_sample(void *ctx, const struct rec_sample *s)
{
	(void)ctx;
	if (rt_next_sample >= rt_nr_samples)
		return -1000;
	CHECK(!memcmp(s, &rt_samples[rt_next_sample], sizeof(*s)));
	rt_next_sample++;
	return 0;
}

static int rt_check_stack(void *ctx, const struct rec_stack *st)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < RT_STACKS; i++) {
		const struct rec_stack *want = &rt_stacks[i].st;

		if (want->id != st->id)
			continue;
		rt_stacks[i].seen++;
		CHECK_EQ_U64(st->nr_kernel, want->nr_kernel);
		CHECK_EQ_U64(st->nr_user, want->nr_user);
		if (st->nr_kernel + st->nr_user == want->nr_kernel + want->nr_user)
			CHECK(!memcmp(st->frames, want->frames,
				      (st->nr_kernel + st->nr_user) * sizeof(uint64_t)));
		return 0;
	}
	CHECK(!"a stack id that was never written");
	return 0;
}

static size_t rt_idx;

static int rt_check_comm(void *ctx, const struct rec_comm *c)
{
	(void)ctx;
	CHECK(rt_idx < ARRAY_SIZE(rt_comms));
	if (rt_idx < ARRAY_SIZE(rt_comms)) {
		CHECK_EQ_U64(c->time_ns, rt_comms[rt_idx].time_ns);
		CHECK_EQ_U64(c->tgid, rt_comms[rt_idx].tgid);
		CHECK_EQ_U64(c->tid, rt_comms[rt_idx].tid);
		CHECK_STR(c->comm, rt_comms[rt_idx].comm);
	}
	rt_idx++;
	return 0;
}

static int rt_check_mapping(void *ctx, const struct rec_mapping *m)
{
	const struct rec_mapping *w = &rt_maps[rt_idx < ARRAY_SIZE(rt_maps) ? rt_idx : 0];

	(void)ctx;
	CHECK(rt_idx++ < ARRAY_SIZE(rt_maps));
	CHECK_EQ_U64(m->time_ns, w->time_ns);
	CHECK_EQ_U64(m->tgid, w->tgid);
	CHECK_EQ_U64(m->start, w->start);
	CHECK_EQ_U64(m->end, w->end);
	CHECK_EQ_U64(m->pgoff, w->pgoff);
	CHECK_STR(m->path, w->path);
	CHECK_EQ_U64(m->build_id_len, w->build_id_len);
	CHECK(!memcmp(m->build_id, w->build_id, w->build_id_len));
	return 0;
}

static int rt_check_loss(void *ctx, const struct rec_loss *l)
{
	(void)ctx;
	CHECK(rt_idx < ARRAY_SIZE(rt_losses));
	if (rt_idx < ARRAY_SIZE(rt_losses))
		CHECK(!memcmp(l, &rt_losses[rt_idx], sizeof(*l)));
	rt_idx++;
	return 0;
}

/* binary 0: build-id, segments, 200 sorted symbols; 1: no build-id, unsorted; 2: empty */
static struct rec_symbol rt_syms[200];
static char rt_names[200][24];

static int rt_check_binary(void *ctx, const struct rec_binary *b)
{
	size_t i;

	(void)ctx;
	switch (rt_idx++) {
	case 0:
		CHECK_EQ_U64(b->build_id_len, 20);
		CHECK_EQ_U64(b->build_id[19], 0x99);
		CHECK_STR(b->path, "/usr/bin/app");
		CHECK_STR(b->source, ".symtab");
		CHECK_EQ_U64(b->nr_segments, 2);
		CHECK(b->nr_segments == 2 && !memcmp(b->segments, rt_segs, sizeof(rt_segs)));
		CHECK_EQ_U64(b->nr_symbols, 200);
		for (i = 0; i < b->nr_symbols && i < 200; i++) {
			CHECK_EQ_U64(b->symbols[i].addr, rt_syms[i].addr);
			CHECK_EQ_U64(b->symbols[i].size, rt_syms[i].size);
			CHECK_STR(b->symbols[i].name, rt_syms[i].name);
		}
		break;
	case 1:
		CHECK_EQ_U64(b->build_id_len, 0);
		CHECK_STR(b->path, "[vdso]");
		CHECK_STR(b->source, ".dynsym");
		CHECK_EQ_U64(b->nr_segments, 0);
		CHECK_EQ_U64(b->nr_symbols, 3);		/* sorted on the way in */
		if (b->nr_symbols == 3) {
			CHECK_EQ_U64(b->symbols[0].addr, 0x100);
			CHECK_STR(b->symbols[0].name, "");
			CHECK_EQ_U64(b->symbols[1].addr, 0x200);
			CHECK_STR(b->symbols[1].name, "__vdso_gettimeofday");
			CHECK_EQ_U64(b->symbols[2].addr, UINT64_MAX);
			CHECK_STR(b->symbols[2].name, "last");
		}
		break;
	case 2:
		CHECK_EQ_U64(b->nr_segments + b->nr_symbols, 0);
		CHECK_STR(b->path, "/empty");
		break;
	default:
		CHECK(!"too many binaries");
	}
	return 0;
}

static struct rec_ksym *rt_ksyms;
static char (*rt_knames)[24];

static int rt_check_ksym(void *ctx, const struct rec_ksym *k)
{
	const struct rec_ksym *w = &rt_ksyms[rt_idx < RT_KSYMS ? rt_idx : 0];

	(void)ctx;
	if (rt_idx++ >= RT_KSYMS) {
		CHECK(!"too many kernel symbols");
		return 1;
	}
	if (k->addr != w->addr || k->end != w->end || strcmp(k->name, w->name) ||
	    !k->module != !w->module || (k->module && strcmp(k->module, w->module))) {
		CHECK(!"kernel symbol differs");
		return 1;
	}
	return 0;
}

static int stop_after_three(void *ctx, const struct rec_ksym *k)
{
	(void)k;
	return ++*(size_t *)ctx == 3 ? 7 : 0;
}

static void roundtrip_every_table(void)
{
	static const size_t commit_sizes[] = { 1000, 2500, 1, 300 };
	const char *path = path_in("rt.eprof");
	struct recording *rec = NULL;
	struct rec_sample *pending;
	struct rec_binary b;
	struct rec_symbol unsorted[3] = { { 0x200, 0x10, "__vdso_gettimeofday" },
					  { UINT64_MAX, 0, "last" }, { 0x100, 1, NULL } };
	uint8_t bid[20];
	char *v = NULL;
	uint64_t total = 0;
	size_t i, k, off;
	int err;

	rng_seed(42);
	rt_make_stacks();
	for (i = 0; i < ARRAY_SIZE(rt_syms); i++) {
		snprintf(rt_names[i], sizeof(rt_names[i]), "_ZN3app4fn%zuEv", i);
		rt_syms[i] = (struct rec_symbol){ 0x401000 + i * 0x30 + (i % 3), 0x30 - (i % 3),
						  rt_names[i] };
	}
	rt_ksyms = calloc(RT_KSYMS, sizeof(*rt_ksyms));
	rt_knames = calloc(RT_KSYMS, sizeof(*rt_knames));
	for (i = 0; i < RT_KSYMS; i++) {
		snprintf(rt_knames[i], sizeof(rt_knames[i]), "k%zu_%llx", i,
			 (unsigned long long)(rnd() % 1000));
		/* mostly ascending, module symbols elsewhere, one at the very top */
		rt_ksyms[i].addr = i == RT_KSYMS - 1 ? UINT64_MAX - 5 :
				   i % 100 == 7 ? 0xffffffffc0000000ull + rnd() % 0x100000 :
						  0xffffffff81000000ull + i * 0x40;
		rt_ksyms[i].end = i == RT_KSYMS - 1 ? UINT64_MAX : rt_ksyms[i].addr + rnd() % 0x40;
		rt_ksyms[i].name = rt_knames[i];
		rt_ksyms[i].module = i % 100 == 7 ? (i % 200 == 7 ? "ext4" : "nvme") : NULL;
	}
	for (i = 0, rt_nr_samples = 0; i < ARRAY_SIZE(commit_sizes); i++)
		rt_nr_samples += commit_sizes[i];
	rt_samples = calloc(rt_nr_samples, sizeof(*rt_samples));
	pending = calloc(rt_nr_samples, sizeof(*pending));

	CHECK_OK(recording__create(path, &rec));
	if (!rec)
		goto out;
	for (i = 0; i < ARRAY_SIZE(rt_meta); i++)
		CHECK_OK(recording__set_meta(rec, rt_meta[i][0], rt_meta[i][1]));
	CHECK_OK(recording__set_meta(rec, REC_META_HOSTNAME, "renamed"));	/* last one wins */
	CHECK_OK(recording__get_meta(rec, REC_META_HOSTNAME, &v));
	CHECK_STR(v, "renamed");
	free(v);

	/* samples in several commits, each added out of order; stacks spread over them */
	for (k = 0, off = 0; k < ARRAY_SIZE(commit_sizes); k++) {
		for (i = 0; i < commit_sizes[k]; i++) {
			struct rec_sample *s = &pending[i];

			s->time_ns = 1000000000ull * (k + 1) + rnd() % 900000000ull;
			s->tgid = (uint32_t)(rnd() % 3 ? 4242 : rnd() % (REC_MAX_PID - 3));
			s->tid = s->tgid + (uint32_t)(rnd() % 4);
			s->cpu = (uint32_t)(rnd() % 2 ? rnd() % 2 : rnd() % 4096);
			s->stack_id = rt_stacks[rnd() % RT_STACKS].st.id;
			CHECK_OK(recording__add_sample(rec, s));
		}
		CHECK_EQ_U64(recording__pending_samples(rec), commit_sizes[k]);
		memcpy(rt_samples + off, pending, commit_sizes[k] * sizeof(*pending));
		qsort(rt_samples + off, commit_sizes[k], sizeof(*pending), cmp_sample);
		off += commit_sizes[k];
		for (i = k; i < RT_STACKS; i += ARRAY_SIZE(commit_sizes))
			CHECK_OK(recording__add_stack(rec, &rt_stacks[RT_STACKS - 1 - i].st));
		CHECK_OK(recording__commit(rec));
		CHECK_EQ_U64(recording__pending_samples(rec), 0);
	}
	for (i = 0; i < ARRAY_SIZE(rt_comms); i++)
		CHECK_OK(recording__add_comm(rec, &rt_comms[i]));
	for (i = 0; i < ARRAY_SIZE(rt_maps); i++)
		CHECK_OK(recording__add_mapping(rec, &rt_maps[i]));
	for (i = 0; i < ARRAY_SIZE(rt_losses); i++)
		CHECK_OK(recording__add_loss(rec, &rt_losses[i]));
	for (i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0x99 - 19 + i);
	b = (struct rec_binary){ { 0 }, 20, "/usr/bin/app", ".symtab", 2, rt_segs, 200, rt_syms };
	memcpy(b.build_id, bid, 20);
	CHECK_OK(recording__add_binary(rec, &b));
	b = (struct rec_binary){ { 0 }, 0, "[vdso]", ".dynsym", 0, NULL, 3, unsorted };
	CHECK_OK(recording__add_binary(rec, &b));
	b = (struct rec_binary){ { 0 }, 0, "/empty", "", 0, NULL, 0, NULL };
	CHECK_OK(recording__add_binary(rec, &b));
	CHECK_OK(recording__add_ksyms(rec, rt_ksyms, 1000));
	CHECK_OK(recording__add_ksyms(rec, rt_ksyms + 1000, RT_KSYMS - 1000));
	CHECK(!recording__is_finished(rec));
	CHECK_OK(recording__finish(rec));
	CHECK(recording__is_finished(rec));
	capture_begin(true);
	err = recording__add_sample(rec, &rt_samples[0]);
	capture_end();
	CHECK(err == -EINVAL);
	CHECK_EQ_U64(count_lines(captured), 1);
	recording__close(rec);
	rec = NULL;

	/* read it back: no warning, every field */
	capture_begin(true);
	err = recording__open(path, &rec);
	capture_end();
	CHECK_OK(err);
	CHECK_STR(captured, "");
	if (!rec)
		goto out;
	CHECK(recording__is_finished(rec));
	CHECK_STR(recording__path(rec), path);
	for (i = 0; i < ARRAY_SIZE(rt_meta); i++) {
		CHECK_OK(recording__get_meta(rec, rt_meta[i][0], &v));
		CHECK_STR(v, i == 1 ? "renamed" : rt_meta[i][1]);
		free(v);
		v = NULL;
	}
	CHECK(recording__get_meta(rec, "no such key", &v) == -ENOENT);
	CHECK_OK(recording__sample_count(rec, &total));
	CHECK_EQ_U64(total, rt_nr_samples);

	rt_next_sample = 0;
	CHECK_OK(recording__for_each_sample(rec, rt_check_sample, NULL));
	CHECK_EQ_U64(rt_next_sample, rt_nr_samples);
	CHECK_OK(recording__for_each_stack(rec, rt_check_stack, NULL));
	for (i = 0; i < RT_STACKS; i++)
		CHECK_EQ_U64(rt_stacks[i].seen, 1);
	rt_idx = 0;
	CHECK_OK(recording__for_each_comm(rec, rt_check_comm, NULL));
	CHECK_EQ_U64(rt_idx, ARRAY_SIZE(rt_comms));
	rt_idx = 0;
	CHECK_OK(recording__for_each_mapping(rec, rt_check_mapping, NULL));
	CHECK_EQ_U64(rt_idx, ARRAY_SIZE(rt_maps));
	rt_idx = 0;
	CHECK_OK(recording__for_each_loss(rec, rt_check_loss, NULL));
	CHECK_EQ_U64(rt_idx, ARRAY_SIZE(rt_losses));
	rt_idx = 0;
	CHECK_OK(recording__for_each_binary(rec, rt_check_binary, NULL));
	CHECK_EQ_U64(rt_idx, 3);
	rt_idx = 0;
	CHECK_OK(recording__for_each_ksym(rec, rt_check_ksym, NULL));
	CHECK_EQ_U64(rt_idx, RT_KSYMS);

	/* a callback's non-zero return stops the walk and is returned */
	rt_idx = 0;
	CHECK(recording__for_each_ksym(rec, stop_after_three, &rt_idx) == 7);
	CHECK_EQ_U64(rt_idx, 3);

	/* a reader cannot write */
	capture_begin(false);
	CHECK(recording__add_sample(rec, &rt_samples[0]) == -EBADF);
	CHECK(recording__commit(rec) == -EBADF);
	capture_end();
out:
	recording__close(rec);
	free(pending);
	free(rt_samples);
	free(rt_ksyms);
	free(rt_knames);
}

/* --- unfinished, versions, identity ---------------------------------------- */

static void unfinished_file_warns_and_reads(void)
{
	const char *path = path_in("unfinished.eprof");
	struct recording *rec = NULL;
	struct rec_sample s = { 100, 1, 1, 0, 1 };
	struct counts c;
	uint64_t total = 0;
	char want[600];
	int i, err;

	CHECK_OK(recording__create(path, &rec));
	if (!rec)
		return;
	for (i = 0; i < 30; i++) {		/* three commits of ten */
		s.time_ns += 1000;
		CHECK_OK(recording__add_sample(rec, &s));
		if (i % 10 == 9)
			CHECK_OK(recording__commit(rec));
	}
	for (i = 0; i < 5; i++)			/* never committed */
		CHECK_OK(recording__add_sample(rec, &s));
	recording__close(rec);			/* as if killed */
	rec = NULL;

	capture_begin(true);
	err = recording__open(path, &rec);
	capture_end();
	CHECK_OK(err);
	snprintf(want, sizeof(want), "eprof: warning: '%s' was not finalized (its recorder was "
		 "interrupted, or is still running): reading it up to its last complete chunk\n",
		 path);
	CHECK_STR(captured, want);
	if (rec) {
		CHECK(!recording__is_finished(rec));
		CHECK_OK(recording__sample_count(rec, &total));
		CHECK_EQ_U64(total, 30);
		recording__close(rec);
	}
	capture_begin(false);
	CHECK_OK(read_all(path, &c));
	capture_end();
	CHECK_EQ_U64(c.samples, 30);
}

/* The largest last_time of the chunks before the one starting latest, and its first_time. */
static int chunk_order(const char *path, int64_t *reach_before_last, int64_t *last_first)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "SELECT (SELECT max(last_time) FROM sample_chunk WHERE "
					"id < (SELECT max(id) FROM sample_chunk)), (SELECT first_time "
					"FROM sample_chunk ORDER BY id DESC LIMIT 1)", -1, &st, NULL);
	if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		*reach_before_last = sqlite3_column_int64(st, 0);
		*last_first = sqlite3_column_int64(st, 1);
		rc = 0;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

/*
 * A sample that must wait (a stack copy waiting for its tables) past a
 * commit holds back the samples after it (recording__commit_before): the
 * next chunk does not reach back into the committed one's time, which a
 * reader takes as damage. Before, a commit during such a wait wrote a file
 * `info` refused ("starts at ..., inside the time of an earlier chunk").
 */
static void held_samples_keep_chunks_in_order(void)
{
	const char *path = path_in("held.eprof");
	struct recording *rec = NULL;
	struct rec_sample s = { 0, 1, 1, 0, 1 };
	uint64_t t0 = 1000000000, total = 0;
	int64_t reach = 0, first = 0;
	struct counts c;
	int i;

	CHECK_OK(recording__create(path, &rec));
	if (!rec)
		return;
	for (i = 0; i < 10; i++) {		/* every 50 ms from t0 */
		s.time_ns = t0 + (uint64_t)i * 50000000;
		CHECK_OK(recording__add_sample(rec, &s));
	}
	/* the copy taken at t0 + 100 ms still waits: the 8 samples from then stay */
	CHECK_OK(recording__commit_before(rec, t0 + 100000000));
	CHECK_EQ_U64(recording__pending_samples(rec), 8);
	CHECK_OK(recording__sample_count(rec, &total));
	CHECK_EQ_U64(total, 2);
	s.time_ns = t0 + 100000000;		/* the copy, finished */
	CHECK_OK(recording__add_sample(rec, &s));
	CHECK_OK(recording__commit_before(rec, UINT64_MAX));
	CHECK_EQ_U64(recording__pending_samples(rec), 0);
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
	CHECK_OK(chunk_order(path, &reach, &first));
	CHECK(reach < first);
	capture_begin(false);
	CHECK_OK(read_all(path, &c));
	capture_end();
	CHECK_EQ_U64(c.samples, 11);
}

static void open_expect(const char *path, int want_err, const char *want_msg)
{
	struct recording *rec = NULL;
	int err;

	capture_begin(true);
	err = recording__open(path, &rec);
	capture_end();
	CHECK_EQ_U64(err, want_err);
	CHECK(rec == NULL);
	CHECK_EQ_U64(count_lines(captured), 1);
	if (want_msg && !strstr(captured, want_msg)) {
		fprintf(stderr, "  got \"%s\", expected \"%s\"\n", captured, want_msg);
		harness_failures++;
	}
	recording__close(rec);
}

static void newer_version_is_refused(void)
{
	const char *path = path_in("newer.eprof");
	struct recording *rec = NULL;
	char sql[64], want[600];

	/* the version written is the last schema/vN.sql embedded */
	CHECK_EQ_U64(eprof_schema_nr, REC_SCHEMA_VERSION);
	CHECK_OK(recording__create(path, &rec));
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", REC_SCHEMA_VERSION + 1);
	CHECK_OK(exec_sql(path, sql));
	snprintf(want, sizeof(want), "eprof: error: '%s' uses recording format v%d; this eprof "
		 "reads up to v%d (upgrade eprof)\n", path, REC_SCHEMA_VERSION + 1,
		 REC_SCHEMA_VERSION);
	open_expect(path, -EPROTONOSUPPORT, want);
}

static void foreign_files_are_refused(void)
{
	char *text = path_dup("text.eprof"), *empty = path_dup("empty.eprof");
	char *foreign = path_dup("foreign.db"), *gone = path_dup("gone.eprof");
	char want[600];

	CHECK_OK(write_file(text, "hello, I am not a database, just some text\n", 44));
	snprintf(want, sizeof(want), "eprof: error: '%s' is not an eprof recording\n", text);
	open_expect(text, -EINVAL, want);

	CHECK_OK(write_file(empty, "", 0));
	open_expect(empty, -EINVAL, "is not an eprof recording");

	CHECK_OK(exec_sql(foreign, "CREATE TABLE t (x); INSERT INTO t VALUES (1)"));
	snprintf(want, sizeof(want), "eprof: error: '%s' is not an eprof recording\n", foreign);
	open_expect(foreign, -EINVAL, want);

	snprintf(want, sizeof(want), "eprof: error: cannot open '%s': No such file or directory (give",
		 gone);
	open_expect(gone, -ENOENT, want);
	open_expect(test_dir(), -EISDIR, "Is a directory");
	free(text);
	free(empty);
	free(foreign);
	free(gone);
}

static void missing_tables_are_damage(void)
{
	char *bare = path_dup("bare.eprof"), *col = path_dup("column.eprof");
	char sql[200];
	struct recording *rec = NULL;

	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = 1;"
		 "CREATE TABLE meta (key, value)", REC_APPLICATION_ID);
	CHECK_OK(exec_sql(bare, sql));
	open_expect(bare, -EBADMSG, "is damaged: its schema defines the table 'meta'");

	/* a whole recording with one column renamed */
	CHECK_OK(recording__create(col, &rec));
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
	CHECK_OK(exec_sql(col, "ALTER TABLE mapping RENAME COLUMN pgoff TO offset"));
	open_expect(col, -EBADMSG, "is damaged: its schema defines the table 'mapping'");

	/* application_id but no version at all */
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; CREATE TABLE x (y)",
		 REC_APPLICATION_ID);
	CHECK_OK(exec_sql(path_in("nover.eprof"), sql));
	open_expect(path_in("nover.eprof"), -EBADMSG, "is damaged");
	free(bare);
	free(col);
}

static void duplicate_stack_ids(void)
{
	const char *path = path_in("dup.eprof");
	struct recording *rec = NULL;
	uint64_t f[2] = { 1, 2 };
	struct rec_stack st = { 7, 1, 1, f };
	struct counts c;
	int err;

	CHECK_OK(recording__create(path, &rec));
	CHECK_OK(recording__add_stack(rec, &st));
	CHECK_OK(recording__commit(rec));
	capture_begin(true);
	err = recording__add_stack(rec, &st);		/* even across commits */
	capture_end();
	CHECK(err == -EEXIST);
	CHECK(strstr(captured, "stack id 7 added twice") != NULL);
	CHECK_OK(recording__finish(rec));
	recording__close(rec);

	/* a file holding the same stack twice is damaged, the stack delivered once */
	CHECK_OK(exec_sql(path, "INSERT INTO stack_chunk (first_id, last_id, nr_stacks, encoding, "
				"data) SELECT first_id, last_id, nr_stacks, encoding, data "
				"FROM stack_chunk"));
	capture_begin(true);
	err = read_all(path, &c);
	capture_end();
	CHECK(err == -EBADMSG);
	CHECK_EQ_U64(c.stacks, 1);
	CHECK(strstr(captured, "stack id 7 appears twice") != NULL);
}

/* --- damaged files --------------------------------------------------------- */

static bool allowed_error(int err)
{
	return err == 0 || err == -EBADMSG || err == -EINVAL || err == -EPROTONOSUPPORT ||
	       err == -EIO;
}

static void truncations_never_crash(void)
{
	char *good = path_dup("trunc-src.eprof"), *bad = path_dup("trunc.eprof");
	size_t len = 0, nr = 0, off, ok = 0, damaged = 0, other = 0;
	struct counts c;
	uint8_t *data;
	int err;

	CHECK_OK(make_999hz(good, 20, true, &nr));
	data = read_whole(good, &len);
	CHECK(data && len > 4096);
	if (!data)
		return;
	for (off = 0; off < len; off += off < 8192 ? 97 : 512) {
		CHECK_OK(write_file(bad, data, off));
		unlink(path_in("trunc.eprof-journal"));
		capture_begin(false);
		err = read_all(bad, &c);
		capture_end();
		CHECK(allowed_error(err));
		ok += err == 0;
		damaged += err == -EBADMSG;
		other += err && err != -EBADMSG;
	}
	printf("# %zu-byte recording truncated at %zu offsets: %zu read, %zu damaged, "
	       "%zu other errors\n", len, ok + damaged + other, ok, damaged, other);
	CHECK(damaged > 0);
	free(data);
	free(good);
	free(bad);
}

static void byte_flips_never_crash(void)
{
	char *good = path_dup("flip-src.eprof"), *bad = path_dup("flip.eprof");
	size_t len = 0, nr = 0, i, ok = 0, damaged = 0, other = 0;
	struct counts c;
	uint8_t *data, *copy;
	int iter, err;

	CHECK_OK(make_999hz(good, 10, true, &nr));
	data = read_whole(good, &len);
	if (!data)
		return;
	copy = malloc(len);
	rng_seed(0xf11b5);
	for (iter = 0; iter < 300; iter++) {
		size_t nflips = 1 + rnd() % 8;

		memcpy(copy, data, len);
		for (i = 0; i < nflips; i++) {
			/* half the flips past the header and schema, where the data is */
			size_t pos = iter % 2 ? rnd() % len : 4096 + rnd() % (len - 4096);

			copy[pos] ^= (uint8_t)(1 + rnd() % 255);
		}
		CHECK_OK(write_file(bad, copy, len));
		capture_begin(false);
		err = read_all(bad, &c);
		capture_end();
		CHECK(allowed_error(err));
		ok += err == 0;
		damaged += err == -EBADMSG;
		other += err && err != -EBADMSG;
	}
	printf("# 300 runs of 1-8 flipped bytes: %zu read, %zu damaged, %zu other errors\n", ok,
	       damaged, other);
	CHECK(damaged > 0);
	free(copy);
	free(data);
	free(good);
	free(bad);
}

/* True when s has lines and each of them contains what. */
static bool every_line_says(const char *s, const char *what)
{
	const char *nl;
	bool any = false;

	for (; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl)
			return false;
		if (!memmem(s, (size_t)(nl - s), what, strlen(what)))
			return false;
		any = true;
	}
	return any;
}

/* A v1 mapping row (v2 writers write none) for the lies about that table. */
#define V1_ROW	"INSERT INTO mapping (time, tgid, start_addr, end_addr, pgoff, path, build_id) " \
		"VALUES (0, 7, 4096, 8192, 0, '/bin/v1', NULL); "

/* A v1 binary row (v2 writers write binary_chunk rows) for the lies about that table. */
#define V1_BINARY "INSERT INTO binary (build_id, path, source, encoding, data) " \
		  "SELECT NULL, '/lib/v1.so', source, encoding, data FROM binary_chunk LIMIT 1; "

/* A v1 comm row (v2 writers write none) for the lies about that table. */
#define V1_COMM	"INSERT INTO comm (time, tgid, tid, comm) VALUES (0, 7, 7, 'v1'); "

/* Each statement, applied to a fresh copy of a good file, must give -EBADMSG. */
static void lying_columns_are_damage(void)
{
	static const char *const lies[] = {
		"UPDATE sample_chunk SET nr_samples = nr_samples + 1 WHERE id = 2",
		"UPDATE sample_chunk SET nr_samples = nr_samples - 1 WHERE id = 2",
		"UPDATE sample_chunk SET nr_samples = 0 WHERE id = 1",
		"UPDATE sample_chunk SET nr_samples = -5 WHERE id = 1",
		"UPDATE sample_chunk SET nr_samples = 4000000000000 WHERE id = 1",
		"UPDATE sample_chunk SET nr_samples = 'many' WHERE id = 1",
		"UPDATE sample_chunk SET first_time = first_time + 1 WHERE id = 3",
		"UPDATE sample_chunk SET last_time = last_time - 1 WHERE id = 3",
		"UPDATE sample_chunk SET last_time = first_time - 1 WHERE id = 3",
		"UPDATE sample_chunk SET encoding = 2 WHERE id = 1",
		"UPDATE sample_chunk SET data = x'00' WHERE id = 1",
		"UPDATE sample_chunk SET data = 'text' WHERE id = 1",
		"UPDATE sample_chunk SET data = substr(data, 1, length(data) - 1) WHERE id = 1",
		"UPDATE sample_chunk SET data = data || x'00' WHERE id = 1",
		"UPDATE sample_chunk SET data = (SELECT data FROM stack_chunk) WHERE id = 1",
		"UPDATE stack_chunk SET nr_stacks = nr_stacks + 1",
		"UPDATE stack_chunk SET nr_stacks = 1000000000",
		"UPDATE stack_chunk SET first_id = first_id + 1",
		"UPDATE stack_chunk SET last_id = last_id + 1",
		"UPDATE stack_chunk SET last_id = 5000000000",
		"UPDATE stack_chunk SET data = (SELECT data FROM ksym_chunk)",
		V1_COMM "UPDATE comm SET comm = 'sixteen-chars-xx'",
		V1_COMM "UPDATE comm SET comm = CAST(x'610062' AS TEXT)",
		V1_COMM "UPDATE comm SET tgid = -1",
		V1_COMM "UPDATE comm SET tid = 4294967296",
		V1_COMM "UPDATE comm SET time = 1.5",
		V1_ROW "UPDATE mapping SET build_id = zeroblob(21)",
		V1_ROW "UPDATE mapping SET build_id = x''",
		V1_ROW "UPDATE mapping SET build_id = 'text'",
		V1_ROW "UPDATE mapping SET path = x'2f62696e'",
		V1_ROW "UPDATE mapping SET end_addr = start_addr - 1",
		"UPDATE mapped_file SET build_id = zeroblob(21)",
		"UPDATE mapped_file SET build_id = 'text'",
		"UPDATE mapped_file SET path = x'2f62696e'",
		"UPDATE mapped_file SET id = id + 100",
		"DELETE FROM mapped_file",
		"UPDATE mapping_chunk SET nr_mappings = nr_mappings + 1",
		"UPDATE mapping_chunk SET nr_mappings = 0",
		"UPDATE mapping_chunk SET nr_mappings = 'many'",
		"UPDATE mapping_chunk SET id = id + 100",
		"UPDATE stack_chunk SET encoding = 3",
		"UPDATE mapping_chunk SET encoding = 2",
		"UPDATE mapping_chunk SET data = x'00'",
		"UPDATE mapping_chunk SET data = (SELECT data FROM sample_chunk WHERE id = 1)",
		"UPDATE comm_chunk SET nr_comms = nr_comms + 1",
		"UPDATE comm_chunk SET nr_comms = nr_comms - 1",
		"UPDATE comm_chunk SET nr_comms = 0",
		"UPDATE comm_chunk SET encoding = 2",
		"UPDATE comm_chunk SET data = x'00'",
		"UPDATE comm_chunk SET data = (SELECT data FROM mapping_chunk)",
		"UPDATE comm_chunk SET data = (SELECT data FROM sample_chunk WHERE id = 1)",
		"UPDATE loss SET lost_samples = 'x'",
		"UPDATE loss SET cpu = -1",
		V1_BINARY "UPDATE binary SET build_id = zeroblob(21)",
		V1_BINARY "UPDATE binary SET encoding = 0",
		V1_BINARY "UPDATE binary SET data = (SELECT data FROM sample_chunk WHERE id = 1)",
		"UPDATE binary_chunk SET file = file + 100",
		"UPDATE binary_chunk SET file = 'lib'",
		"UPDATE binary_chunk SET encoding = 0",
		"UPDATE binary_chunk SET source = zeroblob(3)",
		"UPDATE binary_chunk SET data = (SELECT data FROM sample_chunk WHERE id = 1)",
		"UPDATE ksym_chunk SET nr_syms = nr_syms + 1",
		"UPDATE ksym_chunk SET nr_syms = nr_syms - 1",
		"UPDATE ksym_chunk SET data = (SELECT data FROM binary_chunk LIMIT 1)",
		"UPDATE meta SET value = zeroblob(10) WHERE key = 'hostname'",
		/* what the rest of the file says (issue 9) */
		"INSERT INTO sample_chunk (first_time, last_time, nr_samples, encoding, data) "
		"SELECT first_time, last_time, nr_samples, encoding, data FROM sample_chunk "
		"WHERE id = 3",
		"UPDATE sample_chunk SET id = id + 100 WHERE id = 1",
		"INSERT OR REPLACE INTO meta (key, value) VALUES ('nr_cpus', '1')",
		"INSERT OR REPLACE INTO meta (key, value) VALUES ('nr_cpus', 'two')",
		"INSERT OR REPLACE INTO meta (key, value) VALUES ('nr_cpus', '65537')",
		"INSERT OR REPLACE INTO meta (key, value) VALUES ('end_ns', '1')",
		"INSERT OR REPLACE INTO meta (key, value) VALUES ('start_ns', '99999999999999999')",
		"INSERT OR REPLACE INTO meta (key, value) VALUES ('start_ns', '-1')",
		"INSERT OR REPLACE INTO meta (key, value) VALUES ('start_ns', '2'); "
		"INSERT OR REPLACE INTO meta (key, value) VALUES ('end_ns', '1')",
		"INSERT OR REPLACE INTO meta (key, value) VALUES ('freq_hz', '99 Hz')",
		"INSERT OR REPLACE INTO meta (key, value) VALUES ('finished', '2')",
		V1_ROW "UPDATE mapping SET end_addr = start_addr",
		V1_ROW "UPDATE mapping SET tgid = 4194305",
		V1_COMM "UPDATE comm SET tid = 4194305",
		"INSERT OR REPLACE INTO meta (key, value) VALUES ('nr_cpus', '2'); "
		"INSERT INTO loss (time, cpu, lost_samples, lost_ustacks, lost_kstacks, "
		"truncated_stacks, lost_sideband) VALUES (0, 2, 0, 0, 0, 0, 0)",
	};
	char *good = path_dup("lie-src.eprof"), *bad = path_dup("lie.eprof");
	size_t len = 0, nr = 0, i;
	struct counts c;
	uint8_t *data;
	int err;

	CHECK_OK(make_999hz(good, 3, true, &nr));
	data = read_whole(good, &len);
	if (!data)
		return;
	for (i = 0; i < ARRAY_SIZE(lies); i++) {
		CHECK_OK(write_file(bad, data, len));
		CHECK_OK(exec_sql(bad, lies[i]));
		capture_begin(true);
		err = read_all(bad, &c);
		capture_end();
		if (err != -EBADMSG || !every_line_says(captured, "is damaged")) {
			fprintf(stderr, "  %s: got %d, \"%s\"\n", lies[i], err, captured);
			harness_failures++;
		}
	}
	free(data);
	free(good);
	free(bad);
}

/*
 * Rewrites one BLOB of a table with a valid zstd frame around damaged
 * content (flips, truncation, extra bytes): the decoders themselves must
 * hold, since the frame checksum no longer protects them.
 */
static void mutate_blob(sqlite3 *db, const char *table, int64_t id, int how)
{
	char sql[200];
	sqlite3_stmt *st;
	struct bytebuf raw = { 0 };
	void *blob = NULL;
	size_t len, i, blob_len;

	snprintf(sql, sizeof(sql), "SELECT data FROM %s WHERE id = %lld", table, (long long)id);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW)
		codec__zstd_decompress(NULL, sqlite3_column_blob(st, 0),
				       (size_t)sqlite3_column_bytes(st, 0), 1 << 30, &raw);
	sqlite3_finalize(st);
	if (!raw.len)
		return;
	len = raw.len;
	switch (how) {
	case 0:		/* flip a few bytes */
		for (i = 0; i < 1 + rnd() % 4; i++)
			raw.data[rnd() % len] ^= (uint8_t)(1 + rnd() % 255);
		break;
	case 1:		/* cut */
		raw.len = rnd() % len;
		if (!raw.len)
			raw.len = 1;
		break;
	case 2:		/* a byte set to 0xff (long varints) */
		raw.data[rnd() % len] = 0xff;
		break;
	default:	/* random bytes appended */
		bytebuf__reserve(&raw, 16);
		for (i = 0; i < 16; i++)
			raw.data[raw.len++] = (uint8_t)rnd();
	}
	if (!codec__zstd_compress(NULL, 1, raw.data, raw.len, &blob, &blob_len)) {
		snprintf(sql, sizeof(sql), "UPDATE %s SET data = ? WHERE id = %lld", table,
			 (long long)id);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_blob(st, 1, blob, (int)blob_len, SQLITE_STATIC);
			sqlite3_step(st);
			sqlite3_finalize(st);
		}
	}
	free(blob);
	bytebuf__release(&raw);
}

static void damaged_blob_contents_never_crash(void)
{
	static const char *const tables[] = { "sample_chunk", "stack_chunk", "binary_chunk",
					      "ksym_chunk" };
	char *good = path_dup("blob-src.eprof"), *bad = path_dup("blob.eprof");
	size_t len = 0, nr = 0, ok = 0, damaged = 0;
	struct counts c;
	uint8_t *data;
	sqlite3 *db;
	int iter, err;

	CHECK_OK(make_999hz(good, 3, true, &nr));
	data = read_whole(good, &len);
	if (!data)
		return;
	rng_seed(7);
	for (iter = 0; iter < 400; iter++) {
		CHECK_OK(write_file(bad, data, len));
		if (sqlite3_open(bad, &db) == SQLITE_OK)
			mutate_blob(db, tables[iter % 4], iter % 4 ? 1 : 1 + (iter / 4) % 3,
				    (iter / 4) % 4);
		sqlite3_close(db);
		capture_begin(false);
		err = read_all(bad, &c);
		capture_end();
		CHECK(err == 0 || err == -EBADMSG);
		ok += err == 0;
		damaged += err == -EBADMSG;
	}
	printf("# 400 rewritten BLOBs: %zu still valid, %zu damaged\n", ok, damaged);
	CHECK(damaged > 300);
	free(data);
	free(good);
	free(bad);
}

/* --- writing failures and interrupted writers ----------------------------- */

static void write_error_keeps_committed_part(void)
{
	const char *path = path_in("full.eprof");
	struct recording *rec = NULL;
	struct rlimit old, lim;
	struct rec_sample s = { 0 };
	struct stat sb;
	struct counts c;
	size_t i;
	int err;

	CHECK_OK(recording__create(path, &rec));
	if (!rec)
		return;
	for (i = 0; i < 100; i++) {
		s.time_ns = i;
		CHECK_OK(recording__add_sample(rec, &s));
	}
	CHECK_OK(recording__commit(rec));
	CHECK_OK(stat(path, &sb));

	/* the file may not grow: the next commit fails */
	rng_seed(3);
	for (i = 0; i < 200000; i++) {
		s = (struct rec_sample){ 1000 + rnd() % (1ull << 40), (uint32_t)rnd(),
					 (uint32_t)rnd(), (uint32_t)rnd(), (uint32_t)rnd() };
		CHECK_OK(recording__add_sample(rec, &s));
	}
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = (rlim_t)sb.st_size;
	setrlimit(RLIMIT_FSIZE, &lim);
	capture_begin(true);
	err = recording__commit(rec);
	capture_end();
	setrlimit(RLIMIT_FSIZE, &old);
	CHECK(err == -EIO || err == -ENOSPC);
	CHECK_EQ_U64(count_lines(captured), 1);
	CHECK(strstr(captured, path) && strstr(captured, "writing samples"));
	CHECK_EQ_U64(recording__pending_samples(rec), 200000);	/* still buffered */
	recording__close(rec);

	capture_begin(false);
	CHECK_OK(read_all(path, &c));
	capture_end();
	CHECK_EQ_U64(c.samples, 100);
}

/*
 * v2 codes a stack's user frames by the mappings written in its commit,
 * and each stack chunk with the one before as a zstd prefix (stack_chunk
 * encoding 2). Frames inside, at the end of, between, below
 * and above mappings, in overlapping and identical ranges of two
 * processes, at the top of the address space, in commits with mappings
 * and without, and after a commit that failed (its chunk must not be the
 * next one's prefix), must all come back exactly.
 */
static const struct rec_mapping bm_maps[] = {
	{ 10, 100, 0x7f0000000000ull, 0x7f0000010000ull, 0x1000, "/lib/a.so", { 1 }, 1 },
	{ 11, 101, 0x7f0000000000ull, 0x7f0000010000ull, 0x1000, "/lib/a.so", { 1 }, 1 },
	{ 12, 100, 0x7f0000008000ull, 0x7f0000020000ull, 0, "/lib/b.so", { 2 }, 1 },
	{ 13, 102, 0xfffffffffffff000ull, UINT64_MAX, 0, "//anon", { 0 }, 0 },
	{ 14, 100, 0x1000, 0x2000, 0, "/bin/low", { 0 }, 0 },
};

static void stacks_by_mapping(void)
{
	static const uint64_t where[] = {
		0, 0xfff, 0x1000, 0x1abc, 0x2000, 0x2001, 0x7f0000000000ull, 0x7f0000008123ull,
		0x7f000000ffffull, 0x7f0000010000ull, 0x7f000001ffffull, 0x7f0000020000ull,
		0x7f0000020001ull, 0xfffffffffffff000ull, UINT64_MAX - 1, UINT64_MAX,
	};
	const char *path = path_in("by-mapping.eprof");
	struct recording *rec = NULL;
	struct rlimit old, lim;
	struct stat sb;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t i, j;
	int enc2 = 0, others = 0, err;

	rt_make_stacks();
	for (i = 0; i < RT_STACKS; i++) {
		struct rt_stack *s = &rt_stacks[i];

		for (j = s->st.nr_kernel; j < s->st.nr_kernel + s->st.nr_user; j++)
			s->frames[j] = j % 4 ? where[rnd() % ARRAY_SIZE(where)] : rnd();
	}
	unlink(path);
	CHECK_OK(recording__create(path, &rec));
	if (!rec)
		return;
	for (i = 0; i < ARRAY_SIZE(bm_maps) - 1; i++)
		CHECK_OK(recording__add_mapping(rec, &bm_maps[i]));
	for (i = 0; i < 30; i++)
		CHECK_OK(recording__add_stack(rec, &rt_stacks[i].st));
	CHECK_OK(recording__commit(rec));
	for (; i < 50; i++)	/* a commit without mappings, failed once: the file may not grow */
		CHECK_OK(recording__add_stack(rec, &rt_stacks[i].st));
	CHECK_OK(stat(path, &sb));
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = (rlim_t)sb.st_size;
	setrlimit(RLIMIT_FSIZE, &lim);
	capture_begin(true);
	err = recording__commit(rec);
	capture_end();
	setrlimit(RLIMIT_FSIZE, &old);
	CHECK(err == -EIO || err == -ENOSPC);
	CHECK(strstr(captured, "committing"));	/* the stacks were written, then rolled back */
	CHECK_OK(recording__commit(rec));
	CHECK_OK(recording__add_mapping(rec, &bm_maps[ARRAY_SIZE(bm_maps) - 1]));
	for (; i < RT_STACKS; i++)
		CHECK_OK(recording__add_stack(rec, &rt_stacks[i].st));
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
	rec = NULL;

	CHECK_OK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL));
	if (sqlite3_prepare_v2(db, "SELECT encoding FROM stack_chunk ORDER BY id", -1, &st,
			       NULL) == SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW) {
			enc2 += sqlite3_column_int(st, 0) == 2;
			others += sqlite3_column_int(st, 0) != 2;
		}
	sqlite3_finalize(st);
	sqlite3_close(db);
	CHECK_EQ_U64(enc2, 3);
	CHECK_EQ_U64(others, 0);

	CHECK_OK(recording__open(path, &rec));
	if (!rec)
		return;
	CHECK_OK(recording__for_each_stack(rec, rt_check_stack, NULL));
	for (i = 0; i < RT_STACKS; i++)
		CHECK_EQ_U64(rt_stacks[i].seen, 1);
	recording__close(rec);
}

/* A recorder killed while SQLite writes pages leaves a hot journal behind. */
static void killed_inside_a_commit(void)
{
	const char *path = path_in("killed.eprof");
	char journal[600];
	struct recording *rec = NULL;
	struct rec_sample s = { 0 };
	struct counts c;
	struct stat sb;
	int status = 0, i, err;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		sqlite3 *db = NULL;

		if (recording__create(path, &rec))
			_exit(1);
		for (i = 0; i < 1000; i++) {
			s.time_ns = (uint64_t)i;
			recording__add_sample(rec, &s);
		}
		if (recording__commit(rec))
			_exit(2);
		/* a second writer fills a tiny page cache so that pages spill mid-transaction */
		sqlite3_open(path, &db);
		sqlite3_exec(db, "PRAGMA cache_size = 2; BEGIN; CREATE TABLE junk (x);"
				 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
				 "WHERE i < 3000) INSERT INTO junk SELECT randomblob(600) FROM n;"
				 "DELETE FROM sample_chunk;", NULL, NULL, NULL);
		kill(getpid(), SIGKILL);
		_exit(3);
	}
	CHECK(pid > 0);
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	snprintf(journal, sizeof(journal), "%s-journal", path);
	CHECK(stat(journal, &sb) == 0 && sb.st_size > 0);

	capture_begin(true);
	err = read_all(path, &c);
	capture_end();
	CHECK_OK(err);
	CHECK_EQ_U64(c.samples, 1000);
	CHECK(strstr(captured, "rolled back") != NULL);
	CHECK(strstr(captured, "was not finalized") != NULL);
}

/* --- size and speed --------------------------------------------------------- */

static void bytes_per_sample_at_999hz(void)
{
	const char *path = path_in("999hz.eprof");
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t nr = 0;
	int64_t blob_bytes = 0, chunks = 0;
	struct stat sb;
	double per_sample = 99;

	CHECK_OK(make_999hz(path, 60, true, &nr));
	CHECK_OK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL));
	if (sqlite3_prepare_v2(db, "SELECT sum(length(data)), count(*) FROM sample_chunk", -1, &st,
			       NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		blob_bytes = sqlite3_column_int64(st, 0);
		chunks = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	CHECK_OK(stat(path, &sb));
	if (nr)
		per_sample = (double)blob_bytes / (double)nr;
	printf("# 2 CPUs at 999 Hz for 60 s, one commit a second: %zu samples in %lld chunks, "
	       "%.2f bytes/sample in sample BLOBs, %.2f bytes/sample for the whole %lld-byte "
	       "file\n", nr, (long long)chunks, per_sample, (double)sb.st_size / (double)nr,
	       (long long)sb.st_size);
	CHECK_EQ_U64(chunks, 60);
	CHECK(per_sample <= 4.0);
}

static int sum_sample(void *ctx, const struct rec_sample *s)
{
	*(uint64_t *)ctx += s->tid + s->stack_id;
	return 0;
}

static void read_a_million_samples(void)
{
	const char *path = path_in("million.eprof");
	struct recording *rec = NULL;
	struct gen999 g;
	struct rec_sample s;
	uint64_t sum = 0, total = 0;
	double t0, t1, t2;
	size_t i;

	rng_seed(1);
	gen999_init(&g, 0);
	CHECK_OK(recording__create(path, &rec));
	if (!rec)
		return;
	t0 = now_s();
	for (i = 0; i < 1000000; i++) {
		s = gen999_next(&g, (uint32_t)(i % 2));
		CHECK_OK(recording__add_sample(rec, &s));
		if (i % 20000 == 19999)		/* a commit per second at 20k samples/s */
			CHECK_OK(recording__commit(rec));
	}
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
	rec = NULL;
	t1 = now_s();
	CHECK_OK(recording__open(path, &rec));
	if (!rec)
		return;
	CHECK_OK(recording__for_each_sample(rec, sum_sample, &sum));
	t2 = now_s();
	CHECK_OK(recording__sample_count(rec, &total));
	CHECK_EQ_U64(total, 1000000);
	CHECK(sum > 0);
	recording__close(rec);
	printf("# 1M samples: written in %.3f s (50 commits), read in %.3f s%s\n", t1 - t0,
	       t2 - t1,
#if defined(__SANITIZE_ADDRESS__)
	       " (ASan build)"
#else
	       ""
#endif
	);
}

/* Reads build_id's DWARF, expecting err and (for errors) one line saying want_msg. */
static void get_debuginfo_expect(struct recording *rec, const uint8_t *id, uint32_t len,
				 int want_err, const char *want_msg)
{
	void *data = NULL;
	size_t size = 0;
	int err;

	capture_begin(true);
	err = recording__get_debuginfo(rec, id, len, &data, &size);
	capture_end();
	CHECK_EQ_U64(err, want_err);
	CHECK(err ? data == NULL : data != NULL);
	if (want_msg) {
		CHECK_EQ_U64(count_lines(captured), 1);
		if (!strstr(captured, want_msg)) {
			fprintf(stderr, "  got \"%s\", expected \"%s\"\n", captured, want_msg);
			harness_failures++;
		}
	}
	free(data);
}

static void debuginfo_roundtrip_and_damage(void)
{
	static const uint8_t id_a[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3 };
	static const uint8_t id_b[4] = { 0xde, 0xad, 0xbe, 0xef };
	char *path = path_dup("debuginfo.eprof"), *old = path_dup("old.eprof");
	struct recording *rec = NULL;
	uint8_t *file, *back_a = NULL;
	size_t size = 300000, back_len = 0, i;
	void *back = NULL;

	file = malloc(size);
	if (!file)
		return;
	rng_seed(7);
	for (i = 0; i < size; i++)	/* half text-like, half random: as a debug file */
		file[i] = i % 2 ? (uint8_t)rnd() : (uint8_t)("abcdefgh"[i % 8]);
	CHECK_OK(recording__create(path, &rec));
	CHECK_OK(recording__add_debuginfo(rec, id_a, sizeof(id_a), "/usr/lib/debug/a.debug",
					  file, size));
	CHECK_OK(recording__commit(rec));
	CHECK_OK(recording__add_debuginfo(rec, id_b, sizeof(id_b), NULL, file, 1));
	capture_begin(false);
	CHECK(recording__add_debuginfo(rec, id_b, 0, "x", file, 1) == -EINVAL);
	CHECK(recording__add_debuginfo(rec, id_b, 4, "x", file, 0) == -EINVAL);
	capture_end();
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
	rec = NULL;

	CHECK_OK(recording__open(path, &rec));
	if (!rec)
		goto out;
	CHECK_OK(recording__get_debuginfo(rec, id_a, sizeof(id_a), &back, &back_len));
	back_a = back;
	CHECK_EQ_U64(back_len, size);
	CHECK(back_a && !memcmp(back_a, file, size));
	free(back);
	back = NULL;
	CHECK_OK(recording__get_debuginfo(rec, id_b, sizeof(id_b), &back, &back_len));
	CHECK_EQ_U64(back_len, 1);
	CHECK(back && *(uint8_t *)back == file[0]);
	free(back);
	back = NULL;
	CHECK_EQ_U64(recording__has_debuginfo(rec, id_a, sizeof(id_a)), 1);
	CHECK_EQ_U64(recording__has_debuginfo(rec, id_a, 5), 0);
	/* another build-id, or a prefix of one: none */
	get_debuginfo_expect(rec, id_a, 4 + 1, -ENOENT, NULL);
	get_debuginfo_expect(rec, id_b, 3, -ENOENT, NULL);
	recording__close(rec);
	rec = NULL;

	/* a file written before the table existed: it opens, and has none */
	CHECK_OK(recording__create(old, &rec));
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
	rec = NULL;
	CHECK_OK(exec_sql(old, "DROP TABLE debuginfo"));
	CHECK_OK(recording__open(old, &rec));
	if (rec) {
		get_debuginfo_expect(rec, id_a, sizeof(id_a), -ENOENT, NULL);
		CHECK_EQ_U64(recording__has_debuginfo(rec, id_a, sizeof(id_a)), 0);
	}
	recording__close(rec);
	rec = NULL;

	/* sizes and BLOBs that lie are damage, never a crash or a larger allocation */
	{
		static const char *const lies[] = {
			"UPDATE debuginfo SET size = size + 1",
			"UPDATE debuginfo SET size = size - 1",
			"UPDATE debuginfo SET size = 0",
			"UPDATE debuginfo SET size = 1 << 40",
			"UPDATE debuginfo SET size = 'big'",
			"UPDATE debuginfo SET encoding = 2",
			"UPDATE debuginfo SET data = substr(data, 1, length(data) - 9)",
			"UPDATE debuginfo SET data = zeroblob(64)",
			"UPDATE debuginfo SET data = NULL",
			"UPDATE debuginfo SET data = (SELECT data FROM debuginfo WHERE length(build_id) = 4)",
		};
		char *copy = path_dup("debuginfo-lie.eprof");
		size_t k, len = 0;
		void *bytes = read_whole(path, &len);

		for (k = 0; bytes && k < ARRAY_SIZE(lies); k++) {
			CHECK_OK(write_file(copy, bytes, len));
			CHECK_OK(exec_sql(copy, lies[k]));
			rec = NULL;
			CHECK_OK(recording__open(copy, &rec));
			if (rec)
				get_debuginfo_expect(rec, id_a, sizeof(id_a), -EBADMSG,
						     "is damaged: debuginfo row");
			recording__close(rec);
		}
		/* a table with other columns is damage when the file is opened */
		CHECK_OK(write_file(copy, bytes, len));
		CHECK_OK(exec_sql(copy, "ALTER TABLE debuginfo RENAME COLUMN size TO bytes"));
		open_expect(copy, -EBADMSG, "is damaged: its schema defines the table 'debuginfo'");
		free(bytes);
		free(copy);
		rec = NULL;
	}
out:
	recording__close(rec);
	free(file);
	free(path);
	free(old);
}

/* --- off-CPU tables (v2) -------------------------------------------------- */

static const struct rec_offcpu oc_rows[] = {
	{ 2000000, 3000000, 10, 11, 1, REC_OFFCPU_BLOCKED, 1 },
	{ 6000000, 1000000, 10, 11, 0, REC_OFFCPU_RUNNABLE, 1 },
	{ 2500000, 500000, 10, 10, 1, REC_OFFCPU_BLOCKED, 1 },
};

/* A finished recording over [1 ms, 20 ms] on 2 CPUs with off-CPU rows. */
static void make_offcpu(const char *path, bool thresh)
{
	static const uint64_t frames[] = { 0xffffffff81000010ull, 0x401000 };
	struct rec_stack st = { .id = 1, .nr_kernel = 1, .nr_user = 1, .frames = frames };
	struct rec_offcpu_sum sum = { 10000000, 10, 11, REC_OFFCPU_BLOCKED, 1, 1, 40, 200000 };
	struct rec_offcpu_loss loss = { 10000000, 1, 2, 3000, 1, 1 };
	struct recording *rec = NULL;
	char old[600];
	size_t i;

	snprintf(old, sizeof(old), "%s.old", path);
	unlink(path);		/* a new file each time: no FILE.old kept, nothing said */
	unlink(old);
	CHECK_OK(recording__create(path, &rec));
	CHECK_OK(recording__set_meta(rec, REC_META_START_NS, "1000000"));
	CHECK_OK(recording__set_meta(rec, REC_META_END_NS, "20000000"));
	CHECK_OK(recording__set_meta(rec, REC_META_NR_CPUS, "2"));
	if (thresh)
		CHECK_OK(recording__set_meta(rec, REC_META_OFF_CPU_THRESH, "1000000"));
	CHECK_OK(recording__add_stack(rec, &st));
	for (i = 0; i < ARRAY_SIZE(oc_rows); i++)
		CHECK_OK(recording__add_offcpu(rec, &oc_rows[i]));
	CHECK_OK(recording__add_offcpu_sum(rec, &sum));
	CHECK_OK(recording__add_offcpu_loss(rec, &loss));
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
}

struct oc_seen {
	size_t n, sums, losses;
	uint64_t ns, sum_ns, lost_ns;
	uint32_t prev_tid;
	uint64_t prev_time;
	bool ordered;
};

static int oc_interval(void *ctx, const struct rec_offcpu *o)
{
	struct oc_seen *v = ctx;

	if (v->n && (o->tid < v->prev_tid || (o->tid == v->prev_tid && o->time_ns < v->prev_time)))
		v->ordered = false;
	v->prev_tid = o->tid;
	v->prev_time = o->time_ns;
	v->n++;
	v->ns += o->duration_ns;
	return 0;
}

static int oc_sum(void *ctx, const struct rec_offcpu_sum *o)
{
	struct oc_seen *v = ctx;

	v->sums += o->count;
	v->sum_ns += o->total_ns;
	return 0;
}

static int oc_loss(void *ctx, const struct rec_offcpu_loss *l)
{
	struct oc_seen *v = ctx;

	v->losses += l->lost;
	v->lost_ns += l->lost_ns;
	return 0;
}

/* Every off-CPU walk; the first error, or 0. */
static int walk_offcpu(const char *path, struct oc_seen *v)
{
	struct recording *rec = NULL;
	int err;

	memset(v, 0, sizeof(*v));
	v->ordered = true;
	err = recording__open(path, &rec);
	if (!err)
		err = recording__for_each_offcpu(rec, oc_interval, v);
	if (!err)
		err = recording__for_each_offcpu_sum(rec, oc_sum, v);
	if (!err)
		err = recording__for_each_offcpu_loss(rec, oc_loss, v);
	recording__close(rec);
	return err;
}

static void offcpu_roundtrip_and_damage(void)
{
	static const char *const lies[] = {
		/* a copied row: the thread would be off the CPU twice at once */
		"INSERT INTO offcpu SELECT * FROM offcpu WHERE rowid = 1",
		"UPDATE offcpu SET time = 500000 WHERE rowid = 1",		/* before the start */
		"UPDATE offcpu SET duration = 30000000 WHERE rowid = 2",	/* past the end */
		"UPDATE offcpu SET duration = 0 WHERE rowid = 2",
		"UPDATE offcpu SET duration = -1 WHERE rowid = 2",
		"UPDATE offcpu SET cpu = 2 WHERE rowid = 1",			/* nr_cpus is 2 */
		"UPDATE offcpu SET state = 2 WHERE rowid = 1",
		"UPDATE offcpu SET tid = 'x' WHERE rowid = 1",
		"UPDATE offcpu SET time = 4500000 WHERE rowid = 2",		/* overlaps row 1 */
		"INSERT INTO offcpu_sum SELECT * FROM offcpu_sum",		/* twice in a flush */
		"UPDATE offcpu_sum SET count = 0, total_ns = 0",
		"UPDATE offcpu_sum SET total_ns = 19000001",			/* more than the span */
		"UPDATE offcpu_sum SET time = 30000000",
		"UPDATE offcpu_sum SET cpu = 7",
		"UPDATE offcpu_sum SET state = -1",
		"UPDATE offcpu_loss SET cpu = 2",
		"UPDATE offcpu_loss SET lost_ns = 1.5",
		"UPDATE meta SET value = '0' WHERE key = 'off_cpu_thresh_ns'",
		"UPDATE meta SET value = 'soon' WHERE key = 'off_cpu_thresh_ns'",
	};
	const char *path = path_in("offcpu.eprof");
	struct recording *rec = NULL;
	struct oc_seen v;
	size_t i;
	int err;

	make_offcpu(path, true);
	CHECK_OK(walk_offcpu(path, &v));
	CHECK_EQ_U64(v.n, 3);
	CHECK(v.ordered);		/* by thread, then time */
	CHECK_EQ_U64(v.ns, 4500000);
	CHECK_EQ_U64(v.sums, 40);
	CHECK_EQ_U64(v.sum_ns, 200000);
	CHECK_EQ_U64(v.losses, 2);
	CHECK_EQ_U64(v.lost_ns, 3000);
	CHECK_OK(recording__open(path, &rec));
	CHECK(recording__has_offcpu(rec));
	CHECK_EQ_U64(recording__offcpu_thresh_ns(rec), 1000000);
	recording__close(rec);
	rec = NULL;

	for (i = 0; i < ARRAY_SIZE(lies); i++) {
		make_offcpu(path, true);
		CHECK_OK(exec_sql(path, lies[i]));
		capture_begin(true);
		err = walk_offcpu(path, &v);
		capture_end();
		if (err != -EBADMSG || count_lines(captured) != 1) {
			fprintf(stderr, "  \"%s\": %d, %zu lines\n", lies[i], err,
				count_lines(captured));
			harness_failures++;
		}
	}

	/* no threshold: recorded without --off-cpu, the rows are not read */
	make_offcpu(path, false);
	CHECK_OK(walk_offcpu(path, &v));
	CHECK_EQ_U64(v.n + v.sums + v.losses, 0);
	/* a v2 file from before the off-CPU tables: none, and no damage */
	make_offcpu(path, true);
	CHECK_OK(exec_sql(path, "DROP TABLE offcpu; DROP TABLE offcpu_sum; DROP TABLE offcpu_loss"));
	CHECK_OK(walk_offcpu(path, &v));
	CHECK_EQ_U64(v.n + v.sums + v.losses, 0);
	CHECK_OK(recording__open(path, &rec));
	CHECK(!recording__has_offcpu(rec));
	recording__close(rec);
	/* one table of three missing, or a column: damage */
	make_offcpu(path, true);
	CHECK_OK(exec_sql(path, "ALTER TABLE offcpu_sum DROP COLUMN cpu"));
	capture_begin(true);
	CHECK_EQ_U64(walk_offcpu(path, &v), -EBADMSG);
	capture_end();
	/* the writer refuses what the reader would call damage */
	make_offcpu(path, true);
	unlink(path);
	CHECK_OK(recording__create(path, &rec));
	{
		struct rec_offcpu z = { 1, 0, 1, 1, 0, 0, 1 };
		struct rec_offcpu_sum e = { 1, 1, 1, 0, 0, 1, 0, 0 };

		capture_begin(false);
		CHECK_EQ_U64(recording__add_offcpu(rec, &z), -EINVAL);
		CHECK_EQ_U64(recording__add_offcpu_sum(rec, &e), -EINVAL);
		capture_end();
	}
	recording__close(rec);
}

/* --- cgroup tables (v2) ----------------------------------------------------- */

/* A finished recording over [1 ms, 20 ms] with two cgroups and four rows in two chunks. */
static void make_cgroups(const char *path)
{
	static const struct rec_cgroup names[] = { { 1, "/" }, { 4242, "/system.slice/a b" } };
	static const struct rec_thread_cgroup rows[] = {
		{ 0, 10, 10, 4242 }, { 0, 10, 11, 1 }, { 0, 30, 30, 99 }, { 15000000, 10, 11, 4242 },
	};
	struct recording *rec = NULL;
	char old[600];
	size_t i;

	snprintf(old, sizeof(old), "%s.old", path);
	unlink(path);
	unlink(old);
	CHECK_OK(recording__create(path, &rec));
	CHECK_OK(recording__set_meta(rec, REC_META_START_NS, "1000000"));
	CHECK_OK(recording__set_meta(rec, REC_META_END_NS, "20000000"));
	for (i = 0; i < ARRAY_SIZE(names); i++)
		CHECK_OK(recording__add_cgroup(rec, &names[i]));
	for (i = 0; i < 3; i++)
		CHECK_OK(recording__add_thread_cgroup(rec, &rows[i]));
	CHECK_OK(recording__commit(rec));
	CHECK_OK(recording__add_thread_cgroup(rec, &rows[3]));
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
}

struct cg_seen {
	size_t names, rows;
	uint64_t id_sum, time_sum;
	char text[256];		/* "tgid/tid:id@time " per row, in order */
};

static int cg_name(void *ctx, const struct rec_cgroup *c)
{
	struct cg_seen *v = ctx;

	v->names++;
	v->id_sum += c->id;
	if (c->id == 4242)
		CHECK_STR(c->path, "/system.slice/a b");
	return 0;
}

static int cg_row(void *ctx, const struct rec_thread_cgroup *t)
{
	struct cg_seen *v = ctx;
	size_t len = strlen(v->text);

	snprintf(v->text + len, sizeof(v->text) - len, "%u/%u:%llu@%llu ", t->tgid, t->tid,
		 (unsigned long long)t->cgroup_id, (unsigned long long)t->time_ns);
	v->rows++;
	return 0;
}

static int walk_cgroups(const char *path, struct cg_seen *v)
{
	struct recording *rec = NULL;
	int err;

	memset(v, 0, sizeof(*v));
	err = recording__open(path, &rec);
	if (!err)
		err = recording__for_each_cgroup(rec, cg_name, v);
	if (!err)
		err = recording__for_each_thread_cgroup(rec, cg_row, v);
	recording__close(rec);
	return err;
}

static void cgroups_roundtrip_and_damage(void)
{
	static const char *const lies[] = {
		"UPDATE cgroup SET path = '' WHERE id = 1",
		"UPDATE cgroup SET path = x'2f00' WHERE id = 1",		/* a NUL inside */
		"UPDATE cgroup SET path = x'2f' WHERE id = 1",		/* a BLOB */
		"UPDATE cgroup SET id = -5 WHERE id = 1",
		"UPDATE thread_cgroup_chunk SET nr_rows = 4 WHERE id = 1",	/* 3 in the data */
		"UPDATE thread_cgroup_chunk SET nr_rows = 0 WHERE id = 1",
		"UPDATE thread_cgroup_chunk SET encoding = 2 WHERE id = 1",
		"UPDATE thread_cgroup_chunk SET data = x'00' WHERE id = 1",
		"UPDATE thread_cgroup_chunk SET nr_rows = 'x' WHERE id = 2",
		"UPDATE meta SET value = '14000000' WHERE key = 'end_ns'",	/* a row after it */
	};
	const char *path = path_in("cgroups.eprof");
	struct recording *rec = NULL;
	struct cg_seen v;
	size_t i;
	int err;

	make_cgroups(path);
	CHECK_OK(walk_cgroups(path, &v));
	CHECK_EQ_U64(v.names, 2);
	CHECK_EQ_U64(v.id_sum, 4243);
	CHECK_STR(v.text, "10/10:4242@0 10/11:1@0 30/30:99@0 10/11:4242@15000000 ");
	CHECK_OK(recording__open(path, &rec));
	CHECK(recording__has_cgroups(rec));
	recording__close(rec);
	rec = NULL;

	for (i = 0; i < ARRAY_SIZE(lies); i++) {
		make_cgroups(path);
		CHECK_OK(exec_sql(path, lies[i]));
		capture_begin(true);
		err = walk_cgroups(path, &v);
		capture_end();
		if (err != -EBADMSG || count_lines(captured) != 1) {
			fprintf(stderr, "  \"%s\": %d, %zu lines\n", lies[i], err,
				count_lines(captured));
			harness_failures++;
		}
	}

	/* a v2 file from before the cgroup tables: no data, and no damage */
	make_cgroups(path);
	CHECK_OK(exec_sql(path, "DROP TABLE cgroup; DROP TABLE thread_cgroup_chunk"));
	CHECK_OK(walk_cgroups(path, &v));
	CHECK_EQ_U64(v.names + v.rows, 0);
	CHECK_OK(recording__open(path, &rec));
	CHECK(!recording__has_cgroups(rec));
	recording__close(rec);
	/* one of the two missing: damage */
	make_cgroups(path);
	CHECK_OK(exec_sql(path, "DROP TABLE cgroup"));
	capture_begin(true);
	CHECK_EQ_U64(walk_cgroups(path, &v), -EBADMSG);
	capture_end();
	/* the writer refuses what the reader would call damage */
	unlink(path);
	CHECK_OK(recording__create(path, &rec));
	{
		struct rec_cgroup noname = { 3, "" }, noid = { 0, "/" };
		struct rec_thread_cgroup zero = { 0, 1, 1, 0 }, pid = { 0, REC_MAX_PID + 1, 1, 1 };

		capture_begin(false);
		CHECK_EQ_U64(recording__add_cgroup(rec, &noname), -EINVAL);
		CHECK_EQ_U64(recording__add_cgroup(rec, &noid), -EINVAL);
		CHECK_EQ_U64(recording__add_thread_cgroup(rec, &zero), -EINVAL);
		CHECK_EQ_U64(recording__add_thread_cgroup(rec, &pid), -EINVAL);
		capture_end();
	}
	recording__close(rec);
}

/* --- tick rows (v2) -------------------------------------------------------- */

/* A finished 2-CPU recording over [1 ms, 20 ms] with the given tick rows. */
static void make_ticks(const char *path, const struct rec_ticks *rows, size_t nr)
{
	struct recording *rec = NULL;
	char old[600];
	size_t i;

	snprintf(old, sizeof(old), "%s.old", path);
	unlink(path);
	unlink(old);
	CHECK_OK(recording__create(path, &rec));
	CHECK_OK(recording__set_meta(rec, REC_META_START_NS, "1000000"));
	CHECK_OK(recording__set_meta(rec, REC_META_END_NS, "20000000"));
	CHECK_OK(recording__set_meta(rec, REC_META_NR_CPUS, "2"));
	for (i = 0; i < nr; i++)
		CHECK_OK(recording__add_ticks(rec, &rows[i]));
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
}

static int tick_breakdown_of(const char *path, struct tick_breakdown *tb)
{
	struct recording *rec = NULL;
	int err;

	err = recording__open(path, &rec);
	if (!err)
		err = recording__tick_breakdown(rec, tb);
	recording__close(rec);
	return err;
}

/*
 * The recorder reads kept before fired, so a sample can land in the row
 * after its tick's: a row may keep more than it fired, a CPU's sum never.
 */
static void tick_rows_hold_kept_by_sums(void)
{
	/* time, cpu, period, enabled, throttled, throttles, fired, kept */
	const struct rec_ticks late[] = {
		{ 5000000, 0, 1000000, 4000000, 0, 0, 4, 3 },
		{ 10000000, 0, 1000000, 5000000, 0, 0, 5, 6 },	/* the late one */
		{ 10000000, 1, 1000000, 9000000, 0, 0, 9, 9 },
	};
	const struct rec_ticks more[] = {
		{ 5000000, 0, 1000000, 4000000, 0, 0, 4, 4 },
		{ 10000000, 0, 1000000, 5000000, 0, 0, 5, 6 },	/* one kept never fired */
	};
	struct tick_breakdown tb;
	const char *path = path_in("ticks.eprof");

	make_ticks(path, late, ARRAY_SIZE(late));
	CHECK_OK(tick_breakdown_of(path, &tb));
	make_ticks(path, more, ARRAY_SIZE(more));
	capture_begin(true);
	CHECK_EQ_U64(tick_breakdown_of(path, &tb), -EBADMSG);
	capture_end();
}

/*
 * A comm_chunk's tgid column is deltas: one so large it would overflow the
 * running pid (undefined behaviour) is damage, found before the addition.
 */
static void comm_tgid_delta_overflow_is_damage(void)
{
	static const uint8_t data[] = {
		0x00, 0x00,					/* times */
		0x0a,						/* tgid 5 */
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* +INT64_MAX */
		0x00, 0x00, 0x00, 0x00,				/* tids, names */
	};
	struct rec_comm out[2];

	CHECK(rec_decode_comms(data, sizeof(data), out, 2) == -EBADMSG);
}

static int count_py_code(void *ctx, const struct rec_py_code *c)
{
	size_t *n = ctx;

	if (strlen(c->name) == REC_PY_NAME_BYTES && !strcmp(c->qualname, "q") &&
	    !strcmp(c->filename, "f.py"))
		(*n)++;
	return 0;
}

/*
 * A name of REC_PY_NAME_MAX characters of four bytes each is the longest
 * the recorder writes: it reads back (a PyTorch run once wrote one that
 * its reader then called damage); one byte more is refused when written.
 */
static void py_code_longest_name_reads(void)
{
	static char name[REC_PY_NAME_BYTES + 2];
	const char *path = path_in("pycode.eprof");
	struct recording *rec = NULL;
	struct rec_py_code c = { .tgid = 7, .key = 1, .addr = 0x1000, .qualname = "q",
				 .filename = "f.py", .first_line = 3, .version = 0x030c };
	size_t i, n = 0;

	for (i = 0; i < REC_PY_NAME_BYTES; i += 4)
		memcpy(name + i, "\xf0\x9f\x90\x8d", 4);	/* U+1F40D */
	name[REC_PY_NAME_BYTES] = '\0';
	c.name = name;
	unlink(path);
	CHECK_OK(recording__create(path, &rec));
	CHECK_OK(recording__set_meta(rec, REC_META_START_NS, "1000000"));
	CHECK_OK(recording__set_meta(rec, REC_META_END_NS, "20000000"));
	CHECK_OK(recording__set_meta(rec, REC_META_NR_CPUS, "2"));
	CHECK_OK(recording__add_py_code(rec, &c));
	name[REC_PY_NAME_BYTES] = 'x';
	name[REC_PY_NAME_BYTES + 1] = '\0';
	c.key = 2;
	capture_begin(false);
	CHECK_EQ_U64(recording__add_py_code(rec, &c), -EINVAL);
	capture_end();
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
	rec = NULL;
	CHECK_OK(recording__open(path, &rec));
	if (rec)
		CHECK_OK(recording__for_each_py_code(rec, count_py_code, &n));
	CHECK_EQ_U64(n, 1);
	recording__close(rec);
}

static const struct test tests[] = {
	{ "every table and field round-trips", roundtrip_every_table },
	{ "a comm tgid delta that overflows is damage", comm_tgid_delta_overflow_is_damage },
	{ "an unfinished file warns once and reads its commits", unfinished_file_warns_and_reads },
	{ "samples held back by a commit keep its chunks in time order",
	  held_samples_keep_chunks_in_order },
	{ "a newer user_version is refused", newer_version_is_refused },
	{ "text, empty, foreign SQLite and missing files are refused", foreign_files_are_refused },
	{ "missing tables or columns are damage", missing_tables_are_damage },
	{ "stack ids are unique on both sides", duplicate_stack_ids },
	{ "truncated files never crash", truncations_never_crash },
	{ "flipped bytes never crash", byte_flips_never_crash },
	{ "columns that lie are damage", lying_columns_are_damage },
	{ "damaged BLOB contents never crash", damaged_blob_contents_never_crash },
	{ "a failed write keeps the committed part", write_error_keeps_committed_part },
	{ "a writer killed inside a commit is rolled back", killed_inside_a_commit },
	{ "stacks coded by their commit's mappings come back exactly", stacks_by_mapping },
	{ "2-CPU 999 Hz samples cost at most 4 bytes each", bytes_per_sample_at_999hz },
	{ "a million samples write and read", read_a_million_samples },
	{ "embedded DWARF round-trips; absent is -ENOENT; lies are damage",
	  debuginfo_roundtrip_and_damage },
	{ "off-CPU rows round-trip; overlaps, copies and rows out of the span are damage",
	  offcpu_roundtrip_and_damage },
	{ "cgroup names and rows: round trip, damage, files without them",
	  cgroups_roundtrip_and_damage },
	{ "a tick row may keep a late sample; a CPU's sums may not keep more than fired",
	  tick_rows_hold_kept_by_sums },
	{ "the longest Python name the recorder writes reads back", py_code_longest_name_reads },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
