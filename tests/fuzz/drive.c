// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/drive.c - one fuzz input through format/, with the checks
 * that make a fuzzer find more than crashes.
 *
 * The reader driver opens a file and runs every reader call; each must
 * return 0 or a negative errno, and what the callbacks receive must keep
 * the promises of recording.h (frame counts, NUL-terminated comms, sorted
 * symbols, end >= start...). Two cross-checks need no knowledge of the
 * input: recording__sample_count() must equal the samples delivered when
 * both succeed, and a callback that returns non-zero must stop the walk
 * with exactly that value. The codec driver feeds raw bytes straight to
 * the BLOB decoders, which reaches their checks far more often than bytes
 * that must first survive SQLite and zstd; decoded samples are encoded
 * again and must decode to the same values.
 *
 * The fuzz targets (fuzz_reader.c, fuzz_codec.c) abort on FUZZ_BROKEN;
 * tests/unit/test_fuzz_regressions.c replays saved inputs through the same
 * functions.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/internal.h"
#include "tests/fuzz/drive.h"
#include "util/log.h"

FILE *fuzz_report;

#define STOP_VALUE	42	/* what the stopping callbacks return */

/* What every callback shares: a count, an optional stop, a verdict. */
struct walk {
	uint64_t n;
	bool stop;		/* return STOP_VALUE from the first call */
	bool bad;
	uint64_t sink;		/* touches the data so that ASan sees every byte */
};

/* Describes a contract violation; returns FUZZ_BROKEN. */
static enum fuzz_result violation(const char *what, int rc)
{
	fprintf(fuzz_report ? fuzz_report : stderr, "fuzz: contract violation: %s (rc %d)\n",
		what, rc);
	return FUZZ_BROKEN;
}

/*
 * A failure code is fine when it is a negative errno; with strict (a file
 * SQLite itself wrote, so nothing but eprof's layer can be damaged) only
 * "damaged" and "out of memory" are.
 */
static bool strict;

static bool bad_errno(int rc)
{
	return rc > 0 || (strict && rc && rc != -EBADMSG && rc != -ENOMEM);
}

/* The same from a callback: marks the walk bad. */
static void bad(struct walk *w, const char *what)
{
	violation(what, 0);
	w->bad = true;
}

int fuzz_write_file(const char *path, const void *data, size_t len)
{
	const uint8_t *p = data;
	int fd, err = 0;
	ssize_t n;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) && !err)
		err = -errno;
	return err;
}

void fuzz_remove_sidecars(const char *path)
{
	static const char *const suffixes[] = { "-journal", "-wal", "-shm" };
	char name[4200];
	size_t i;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", path, suffixes[i]);
		unlink(name);
	}
}

/* --- the reader ------------------------------------------------------------ */

static int walk_step(struct walk *w)
{
	w->n++;
	return w->stop ? STOP_VALUE : 0;
}

/* What the open recording's metadata promises of its samples (recording.h). */
static struct {
	bool has_start, has_end;
	uint64_t start, end, nr_cpus;
} promised;

static int on_sample(void *ctx, const struct rec_sample *s)
{
	struct walk *w = ctx;

	if ((promised.has_start && s->time_ns < promised.start) ||
	    (promised.has_end && s->time_ns > promised.end) ||
	    (promised.nr_cpus && s->cpu >= promised.nr_cpus) || s->tgid > REC_MAX_PID ||
	    s->tid > REC_MAX_PID)
		bad(w, "sample outside the span, CPUs or pids its recording promises");
	w->sink += s->time_ns + s->tgid + s->tid + s->cpu + s->stack_id;
	return walk_step(w);
}

static int on_stack(void *ctx, const struct rec_stack *st)
{
	struct walk *w = ctx;
	uint32_t i;

	if (st->nr_kernel > REC_MAX_FRAMES || st->nr_user > REC_MAX_FRAMES - st->nr_kernel)
		bad(w, "stack with more than REC_MAX_FRAMES frames");
	else
		for (i = 0; i < st->nr_kernel + st->nr_user; i++)
			w->sink += st->frames[i];
	return walk_step(w);
}

static int on_comm(void *ctx, const struct rec_comm *c)
{
	struct walk *w = ctx;

	if (strnlen(c->comm, REC_COMM_LEN) >= REC_COMM_LEN)
		bad(w, "comm not NUL-terminated");
	w->sink += c->time_ns + c->tgid + c->tid;
	return walk_step(w);
}

static int on_mapping(void *ctx, const struct rec_mapping *m)
{
	struct walk *w = ctx;

	if (m->end < m->start || !m->path || strlen(m->path) > REC_MAX_PATH ||
	    m->build_id_len > REC_BUILD_ID_MAX)
		bad(w, "mapping out of its documented ranges");
	else
		w->sink += m->time_ns + m->tgid + m->pgoff + m->build_id[m->build_id_len ?
									 m->build_id_len - 1 : 0];
	return walk_step(w);
}

static int on_loss(void *ctx, const struct rec_loss *l)
{
	struct walk *w = ctx;

	w->sink += l->time_ns + l->cpu + l->lost_samples + l->lost_ustacks + l->lost_kstacks +
		   l->truncated_stacks + l->lost_sideband;
	return walk_step(w);
}

static bool binary_ok(struct walk *w, const struct rec_binary *b)
{
	size_t i;

	if (b->build_id_len > REC_BUILD_ID_MAX || !b->path || !b->source ||
	    b->nr_segments > REC_MAX_SEGMENTS || b->nr_symbols > REC_MAX_SYMBOLS ||
	    (b->nr_segments && !b->segments) || (b->nr_symbols && !b->symbols))
		return false;
	w->sink += strlen(b->path) + strlen(b->source);
	for (i = 0; i < b->nr_segments; i++)
		w->sink += b->segments[i].offset + b->segments[i].vaddr + b->segments[i].filesz;
	for (i = 0; i < b->nr_symbols; i++) {
		if (i && b->symbols[i].addr < b->symbols[i - 1].addr)
			return false;
		if (!b->symbols[i].name || strlen(b->symbols[i].name) > REC_MAX_NAME)
			return false;
		w->sink += b->symbols[i].size;
	}
	return true;
}

static int on_binary(void *ctx, const struct rec_binary *b)
{
	struct walk *w = ctx;

	if (!binary_ok(w, b))
		bad(w, "binary out of its documented ranges or unsorted");
	return walk_step(w);
}

static int on_ksym(void *ctx, const struct rec_ksym *k)
{
	struct walk *w = ctx;

	if (k->end < k->addr || !k->name || strlen(k->name) > REC_MAX_NAME ||
	    (k->module && (!k->module[0] || strlen(k->module) > REC_MAX_PATH)))
		bad(w, "kernel symbol out of its documented ranges");
	w->sink += k->addr;
	return walk_step(w);
}

static int on_jit_cut(void *ctx, const struct rec_jit_cut *c)
{
	struct walk *w = ctx;

	if (!c->path || strlen(c->path) > REC_MAX_PATH || c->kept_symbols > c->kept_bytes ||
	    c->dropped_lines > c->dropped_bytes)
		bad(w, "JIT map cut out of its documented ranges");
	else
		w->sink += c->tgid + c->kept_bytes + c->dropped_lines + c->dropped_lines_exact;
	return walk_step(w);
}

static int on_py_code(void *ctx, const struct rec_py_code *c)
{
	struct walk *w = ctx;

	if (!c->name || !c->qualname || !c->filename || strlen(c->name) > REC_PY_NAME_BYTES ||
	    strlen(c->qualname) > REC_PY_NAME_BYTES || strlen(c->filename) > REC_PY_NAME_BYTES ||
	    c->linetable_len > REC_PY_LINETABLE_MAX || (c->linetable_len && !c->linetable) ||
	    !c->key || c->key >> 44 || c->version > 0xffff || c->first_line > INT32_MAX)
		bad(w, "Python code object out of its documented ranges");
	else
		w->sink += c->tgid + c->key + c->first_line + c->linetable_len +
			   (c->linetable_len ? c->linetable[c->linetable_len - 1] : 0) +
			   (unsigned char)c->qualname[0];
	return walk_step(w);
}

static int on_offcpu(void *ctx, const struct rec_offcpu *o)
{
	struct walk *w = ctx;

	if (!o->duration_ns || o->state >= REC_OFFCPU_STATES || o->tgid > REC_MAX_PID ||
	    o->tid > REC_MAX_PID || o->time_ns + o->duration_ns < o->time_ns)
		bad(w, "off-CPU interval out of its documented ranges");
	else
		w->sink += o->time_ns + o->duration_ns + o->cpu + o->stack_id;
	return walk_step(w);
}

static int on_offcpu_sum(void *ctx, const struct rec_offcpu_sum *o)
{
	struct walk *w = ctx;

	if ((!o->count && !o->total_ns) || o->state >= REC_OFFCPU_STATES ||
	    o->tgid > REC_MAX_PID || o->tid > REC_MAX_PID)
		bad(w, "off-CPU sum out of its documented ranges");
	else
		w->sink += o->time_ns + o->count + o->total_ns + o->cpu + o->stack_id;
	return walk_step(w);
}

static int on_offcpu_loss(void *ctx, const struct rec_offcpu_loss *l)
{
	struct walk *w = ctx;

	w->sink += l->time_ns + l->cpu + l->lost + l->lost_ns + l->untracked + l->lost_stacks;
	return walk_step(w);
}

static int on_cgroup(void *ctx, const struct rec_cgroup *c)
{
	struct walk *w = ctx;

	if (!c->id || !c->path || !c->path[0] || strlen(c->path) > REC_MAX_PATH)
		bad(w, "cgroup out of its documented ranges");
	else
		w->sink += c->id + (unsigned char)c->path[0];
	return walk_step(w);
}

static int on_thread_cgroup(void *ctx, const struct rec_thread_cgroup *t)
{
	struct walk *w = ctx;

	if (!t->cgroup_id || t->tgid > REC_MAX_PID || t->tid > REC_MAX_PID ||
	    (t->time_ns && ((promised.has_start && t->time_ns < promised.start) ||
			    (promised.has_end && t->time_ns > promised.end))))
		bad(w, "thread cgroup row out of its documented ranges");
	else
		w->sink += t->time_ns + t->tgid + t->tid + t->cgroup_id;
	return walk_step(w);
}

typedef int (*walk_fn)(struct recording *rec, void *fn, void *ctx);

#define WALKER(name, type)                                                          \
	static int walk_##name(struct recording *rec, void *fn, void *ctx)          \
	{                                                                           \
		return recording__for_each_##name(rec, (type)fn, ctx);              \
	}
WALKER(sample, rec_sample_fn)
WALKER(stack, rec_stack_fn)
WALKER(comm, rec_comm_fn)
WALKER(mapping, rec_mapping_fn)
WALKER(loss, rec_loss_fn)
WALKER(binary, rec_binary_fn)
WALKER(ksym, rec_ksym_fn)
WALKER(jit_cut, rec_jit_cut_fn)
WALKER(offcpu, rec_offcpu_fn)
WALKER(offcpu_sum, rec_offcpu_sum_fn)
WALKER(offcpu_loss, rec_offcpu_loss_fn)
WALKER(cgroup, rec_cgroup_fn)
WALKER(thread_cgroup, rec_thread_cgroup_fn)
WALKER(py_code, rec_py_code_fn)
#undef WALKER

static const struct {
	const char *name;
	walk_fn walk;
	void *cb;
} walks[] = {
	{ "for_each_sample", walk_sample, (void *)on_sample },
	{ "for_each_stack", walk_stack, (void *)on_stack },
	{ "for_each_comm", walk_comm, (void *)on_comm },
	{ "for_each_mapping", walk_mapping, (void *)on_mapping },
	{ "for_each_loss", walk_loss, (void *)on_loss },
	{ "for_each_binary", walk_binary, (void *)on_binary },
	{ "for_each_ksym", walk_ksym, (void *)on_ksym },
	{ "for_each_jit_cut", walk_jit_cut, (void *)on_jit_cut },
	{ "for_each_offcpu", walk_offcpu, (void *)on_offcpu },
	{ "for_each_offcpu_sum", walk_offcpu_sum, (void *)on_offcpu_sum },
	{ "for_each_offcpu_loss", walk_offcpu_loss, (void *)on_offcpu_loss },
	{ "for_each_cgroup", walk_cgroup, (void *)on_cgroup },
	{ "for_each_thread_cgroup", walk_thread_cgroup, (void *)on_thread_cgroup },
	{ "for_each_py_code", walk_py_code, (void *)on_py_code },
};

/*
 * Runs one iterator twice: to the end, then stopping at the first element.
 * *n is how many elements the first walk delivered.
 */
static enum fuzz_result run_walk(struct recording *rec, size_t i, uint64_t *n, uint64_t *sink)
{
	struct walk full = { 0 }, stop = { .stop = true };
	unsigned int errors = log_error_count();
	int rc, rc_stop;

	rc = walks[i].walk(rec, walks[i].cb, &full);
	*n = full.n;
	*sink += full.sink;
	if (full.bad)
		return FUZZ_BROKEN;
	if (bad_errno(rc))
		return violation(walks[i].name, rc);
	/* a failure says why, a success says no error (issue 9: damage fails) */
	if ((rc < 0) != (log_error_count() != errors))
		return violation(rc < 0 ? "a walk failed without a message" :
				 "a walk printed an error and did not fail", rc);
	rc_stop = walks[i].walk(rec, walks[i].cb, &stop);
	if (stop.bad || stop.n > 1)
		return violation(walks[i].name, rc_stop);	/* went on after a stop */
	/* the file did not change: the second walk meets the same first element */
	if (full.n ? rc_stop != STOP_VALUE : rc_stop != rc) {
		fprintf(fuzz_report ? fuzz_report : stderr,
			"fuzz: contract violation: %s returned %d to the end, %d when stopped at "
			"the first of %llu elements\n", walks[i].name, rc, rc_stop,
			(unsigned long long)full.n);
		return FUZZ_BROKEN;
	}
	return rc ? FUZZ_REJECTED : FUZZ_ACCEPTED;
}

static const char *const meta_keys[] = {
	REC_META_EPROF_VERSION, REC_META_HOSTNAME, REC_META_KERNEL, REC_META_ARCH,
	REC_META_NR_CPUS, REC_META_NUMA_MAP, REC_META_FREQ_HZ, REC_META_EVENT, REC_META_CLOCK,
	REC_META_START_NS, REC_META_END_NS, REC_META_START_REALTIME, REC_META_COMMAND,
	REC_META_TARGET, REC_META_FINISHED, "",
};

/* The metadata numbers an open recording holds its samples to. */
static void promised_from_meta(struct recording *rec)
{
	const char *keys[] = { REC_META_START_NS, REC_META_END_NS, REC_META_NR_CPUS };
	uint64_t *vals[] = { &promised.start, &promised.end, &promised.nr_cpus };
	bool *has[] = { &promised.has_start, &promised.has_end, NULL };
	char *v;
	size_t i;

	memset(&promised, 0, sizeof(promised));
	for (i = 0; i < 3; i++) {
		v = NULL;
		if (recording__get_meta(rec, keys[i], &v))
			continue;	/* open checked them: absent */
		*vals[i] = strtoull(v, NULL, 10);
		if (has[i])
			*has[i] = true;
		free(v);
	}
}

/* Volatile, so that the compiler keeps every read that feeds it. */
static volatile uint64_t sink_global;

enum fuzz_result fuzz_drive_reader(const char *path, bool strict_errno)
{
	struct recording *rec = NULL;
	enum fuzz_result res = FUZZ_ACCEPTED, r;
	uint64_t count = 0, n, sink = 0;
	bool counted;
	char *value;
	size_t i;
	int rc;

	strict = strict_errno;
	i = log_error_count();
	rc = recording__open(path, &rec);
	if ((rc < 0) != (log_error_count() != i))
		return violation(rc < 0 ? "recording__open failed without a message" :
				 "recording__open printed an error and did not fail", rc);
	if (rc) {
		if (bad_errno(rc) || rec)
			return violation("recording__open", rc);
		return FUZZ_REJECTED;
	}
	promised_from_meta(rec);
	if (!recording__path(rec) || strcmp(recording__path(rec), path))
		res = violation("recording__path", 0);
	sink += recording__is_finished(rec);
	for (i = 0; i < sizeof(meta_keys) / sizeof(meta_keys[0]) && res != FUZZ_BROKEN; i++) {
		value = NULL;
		rc = recording__get_meta(rec, meta_keys[i], &value);
		if ((rc != -ENOENT && bad_errno(rc)) || (!rc && !value)) {
			res = violation("recording__get_meta", rc);
		} else if (!rc) {
			if (!strcmp(meta_keys[i], REC_META_FINISHED) &&
			    recording__is_finished(rec) != !strcmp(value, "1"))
				res = violation("recording__is_finished differs from meta", 0);
			sink += strlen(value);
			free(value);
		} else if (rc == -ENOENT) {
			if (!strcmp(meta_keys[i], REC_META_FINISHED) && recording__is_finished(rec))
				res = violation("finished without meta.finished", 0);
		} else {
			res = FUZZ_REJECTED;
		}
	}
	rc = recording__sample_count(rec, &count);
	if (bad_errno(rc))
		res = violation("recording__sample_count", rc);
	counted = !rc;
	for (i = 0; i < sizeof(walks) / sizeof(walks[0]) && res != FUZZ_BROKEN; i++) {
		r = run_walk(rec, i, &n, &sink);
		if (r == FUZZ_BROKEN || r == FUZZ_REJECTED)
			res = r;
		/* both succeeded: the chunk headers and the decoded chunks agree */
		else if (i == 0 && counted && n != count)
			res = violation("sample_count differs from the samples delivered", 0);
	}
	if (!counted && res == FUZZ_ACCEPTED)
		res = FUZZ_REJECTED;
	recording__close(rec);
	sink_global += sink;
	return res;
}

/* --- the codecs ------------------------------------------------------------ */

struct params {
	uint64_t a;
	uint32_t b, c;
};

static uint64_t le(const uint8_t *p, size_t bytes)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static bool same_samples(const struct rec_sample *x, const struct rec_sample *y, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i].time_ns != y[i].time_ns || x[i].cpu != y[i].cpu ||
		    x[i].tgid != y[i].tgid || x[i].tid != y[i].tid ||
		    x[i].stack_id != y[i].stack_id)
			return false;
	return true;
}

static enum fuzz_result codec_samples(const struct params *p, const uint8_t *data, size_t len)
{
	size_t n = p->b & 0xffff, i, enc_len = 0;
	struct rec_sample *out, *again = NULL;
	enum fuzz_result res = FUZZ_REJECTED;
	uint8_t *enc = NULL;
	int rc;

	/* exactly n elements, so that ASan sees a decoder that writes past them */
	out = malloc((n ? n : 1) * sizeof(*out));
	if (!out)
		return FUZZ_REJECTED;
	rc = codec__decode_samples(data, len, p->a, out, n);
	if (rc) {
		if (rc != -EBADMSG)
			res = violation("codec__decode_samples", rc);
		goto out;
	}
	res = FUZZ_ACCEPTED;
	for (i = 0; i < n; i++) {
		if (out[i].time_ns < (i ? out[i - 1].time_ns : p->a)) {
			res = violation("decoded times go backwards", 0);
			goto out;
		}
	}
	if (!n)
		goto out;
	/* what decodes must survive the writer's encoder unchanged */
	enc = malloc(n * CODEC_SAMPLE_MAX_BYTES + CODEC_VARINT_MAX);
	again = malloc(n * sizeof(*again));
	if (!enc || !again)
		goto out;
	rc = codec__encode_samples(out, n, out[0].time_ns, enc, &enc_len);
	if (rc)
		goto out;
	rc = codec__decode_samples(enc, enc_len, out[0].time_ns, again, n);
	if (rc || !same_samples(out, again, n))
		res = violation("decode(encode(decoded samples)) differs", rc);
out:
	free(out);
	free(again);
	free(enc);
	return res;
}

struct stack_check {
	uint32_t first_id, last_id;
	struct walk w;
};

static int on_chunk_stack(void *ctx, const struct rec_stack *st)
{
	struct stack_check *sc = ctx;

	if (st->id < sc->first_id || st->id > sc->last_id)
		bad(&sc->w, "stack id outside its chunk's range");
	return on_stack(&sc->w, st);
}

/* A recording that owns nothing but a copy of the input as its BLOB. */
static int fake_recording(struct recording *rec, const uint8_t *data, size_t len)
{
	memset(rec, 0, sizeof(*rec));
	rec->path = (char *)"fuzz-input";
	rec->r.buf.data = malloc(len ? len : 1);
	if (!rec->r.buf.data)
		return -ENOMEM;
	if (len)
		memcpy(rec->r.buf.data, data, len);
	rec->r.buf.len = rec->r.buf.cap = len;
	return 0;
}

/* What encoding 2's user frames are coded against, when the parameters ask for it. */
static const uint64_t fuzz_bases[] = { 0, 0x1000, 0x7f0000000000ull, UINT64_MAX - 0xfff };

static enum fuzz_result codec_stacks(const struct params *p, const uint8_t *data, size_t len)
{
	bool by_mapping = p->a & (1u << 16);
	struct stack_check sc = { .first_id = p->b, .last_id = p->c };
	struct idset seen = { 0 };
	struct recording rec;
	enum fuzz_result res;
	int rc;

	/* the reader checks the header before it decodes */
	if (sc.last_id < sc.first_id || fake_recording(&rec, data, len))
		return FUZZ_REJECTED;
	rec.r.frames = malloc(REC_MAX_FRAMES * sizeof(*rec.r.frames));
	if (!rec.r.frames) {
		free(rec.r.buf.data);
		return FUZZ_REJECTED;
	}
	rc = rec_read_stack_chunk(&rec, 1, sc.first_id, sc.last_id, (int64_t)(p->a & 0xffff),
				  by_mapping ? fuzz_bases : NULL,
				  by_mapping ? sizeof(fuzz_bases) / sizeof(*fuzz_bases) : 0, &seen,
				  on_chunk_stack, &sc);
	if (sc.w.bad || (rc && rc != -EBADMSG))
		res = violation("rec_read_stack_chunk", rc);
	else if (seen.ids.nr != sc.w.n)
		res = violation("stacks delivered differ from ids recorded", 0);
	else
		res = rc ? FUZZ_REJECTED : FUZZ_ACCEPTED;
	idset__release(&seen);
	free(rec.r.frames);
	free(rec.r.buf.data);
	sink_global += sc.w.sink;
	return res;
}

static enum fuzz_result codec_binary(const uint8_t *data, size_t len)
{
	struct rec_segment *segs = NULL;
	struct rec_symbol *syms = NULL;
	struct walk w = { 0 };
	struct rec_binary b = { .path = "p", .source = "s" };
	struct recording rec;
	enum fuzz_result res;
	int rc;

	if (fake_recording(&rec, data, len))
		return FUZZ_REJECTED;
	rc = rec_decode_binary(&rec.r, &b, &segs, &syms);
	if (rc && rc != -EBADMSG)
		res = violation("rec_decode_binary", rc);
	else if (!rc && !binary_ok(&w, &b))
		res = violation("decoded binary out of its documented ranges", 0);
	else
		res = rc ? FUZZ_REJECTED : FUZZ_ACCEPTED;
	free(segs);
	free(syms);
	free(rec.r.buf.data);
	sink_global += w.sink;
	return res;
}

static enum fuzz_result codec_ksyms(const struct params *p, const uint8_t *data, size_t len)
{
	struct walk w = { 0 };
	struct recording rec;
	int64_t n = p->b & 0xffff;
	enum fuzz_result res;
	int rc;

	if (!n || fake_recording(&rec, data, len))	/* the reader wants n >= 1 */
		return FUZZ_REJECTED;
	rc = rec_read_ksym_chunk(&rec, 1, n, on_ksym, &w);
	if (w.bad || (rc && rc != -EBADMSG))
		res = violation("rec_read_ksym_chunk", rc);
	else if (!rc && w.n != (uint64_t)n)
		res = violation("ksym chunk delivered a different count", 0);
	else
		res = rc ? FUZZ_REJECTED : FUZZ_ACCEPTED;
	free(rec.r.buf.data);
	sink_global += w.sink;
	return res;
}

static enum fuzz_result codec_zstd(const struct params *p, const uint8_t *data, size_t len)
{
	struct bytebuf dst = { 0 };
	size_t cap = p->b & 0xfffff;
	enum fuzz_result res;
	int rc;

	rc = codec__zstd_decompress(NULL, data, len, cap, &dst);
	if (rc && rc != -EBADMSG)
		res = violation("codec__zstd_decompress", rc);
	else if (!rc && (dst.len < 1 || dst.len > cap))
		res = violation("decompressed size outside 1..cap", 0);
	else
		res = rc ? FUZZ_REJECTED : FUZZ_ACCEPTED;
	if (!rc && dst.len)
		sink_global += dst.data[dst.len - 1];
	bytebuf__release(&dst);
	return res;
}

static enum fuzz_result codec_strings(const struct params *p, const uint8_t *data, size_t len)
{
	struct cursor c;
	const char *s;
	uint64_t v, vmax = p->b;
	size_t smax = (size_t)(p->a & 0xffff), left;
	bool string = true;

	cursor__init(&c, data, len);
	for (;;) {
		left = cursor__left(&c);
		/* a failed read may leave the cursor anywhere, but within the buffer */
		if (string ? cursor__string(&c, smax, &s) : cursor__varint_max(&c, vmax, &v))
			return c.p <= c.end ? FUZZ_REJECTED :
			       violation("a failed read left the buffer", 0);
		if (cursor__left(&c) >= left || c.p > c.end)
			return violation("a read did not advance within the buffer", 0);
		if (string && (strlen(s) > smax || s + strlen(s) >= (const char *)c.p))
			return violation("string longer than its bound", 0);
		if (!string && v > vmax)
			return violation("varint above its bound", 0);
		if (!cursor__left(&c))
			return FUZZ_ACCEPTED;
		string = !string;
	}
}

enum fuzz_result fuzz_drive_codec(const uint8_t *data, size_t len)
{
	uint8_t head[FUZZ_CODEC_HEADER] = { 0 };
	struct params p;

	memcpy(head, data, len < sizeof(head) ? len : sizeof(head));
	p.a = le(head + 1, 8);
	p.b = (uint32_t)le(head + 9, 4);
	p.c = (uint32_t)le(head + 13, 4);
	if (len > FUZZ_CODEC_HEADER) {
		data += FUZZ_CODEC_HEADER;
		len -= FUZZ_CODEC_HEADER;
	} else {
		data = head;	/* no payload */
		len = 0;
	}
	switch (head[0] % FUZZ_CODEC_NR) {
	case FUZZ_CODEC_SAMPLES:
		return codec_samples(&p, data, len);
	case FUZZ_CODEC_STACKS:
		return codec_stacks(&p, data, len);
	case FUZZ_CODEC_BINARY:
		return codec_binary(data, len);
	case FUZZ_CODEC_KSYMS:
		return codec_ksyms(&p, data, len);
	case FUZZ_CODEC_ZSTD:
		return codec_zstd(&p, data, len);
	default:
		return codec_strings(&p, data, len);
	}
}

/* --- table inputs ------------------------------------------------------------ */

const struct fuzz_table fuzz_tables[FUZZ_TABLES_NR] = {
	{ "sample_chunk", 6, "INSERT INTO sample_chunk (id, first_time, last_time, nr_samples, "
			     "encoding, data) VALUES (?, ?, ?, ?, ?, ?)",
	  "SELECT id, first_time, last_time, nr_samples, encoding, data FROM sample_chunk", 5 },
	{ "stack_chunk", 6, "INSERT INTO stack_chunk (id, first_id, last_id, nr_stacks, encoding, "
			    "data) VALUES (?, ?, ?, ?, ?, ?)",
	  "SELECT id, first_id, last_id, nr_stacks, encoding, data FROM stack_chunk", 5 },
	{ "comm", 4, "INSERT INTO comm (time, tgid, tid, comm) VALUES (?, ?, ?, ?)",
	  "SELECT time, tgid, tid, comm FROM comm", -1 },
	{ "mapping", 7, "INSERT INTO mapping (time, tgid, start_addr, end_addr, pgoff, path, "
			"build_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
	  "SELECT time, tgid, start_addr, end_addr, pgoff, path, build_id FROM mapping", -1 },
	{ "binary", 6, "INSERT INTO binary (id, build_id, path, source, encoding, data) "
		       "VALUES (?, ?, ?, ?, ?, ?)",
	  "SELECT id, build_id, path, source, encoding, data FROM binary", 5 },
	{ "ksym_chunk", 4, "INSERT INTO ksym_chunk (id, nr_syms, encoding, data) "
			   "VALUES (?, ?, ?, ?)",
	  "SELECT id, nr_syms, encoding, data FROM ksym_chunk", 3 },
	{ "loss", 7, "INSERT INTO loss (time, cpu, lost_samples, lost_ustacks, lost_kstacks, "
		     "truncated_stacks, lost_sideband) VALUES (?, ?, ?, ?, ?, ?, ?)",
	  "SELECT time, cpu, lost_samples, lost_ustacks, lost_kstacks, truncated_stacks, "
	  "lost_sideband FROM loss", -1 },
	{ "meta", 2, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
	  "SELECT key, value FROM meta", -1 },
	{ "mapped_file", 3, "INSERT INTO mapped_file (id, path, build_id) VALUES (?, ?, ?)",
	  "SELECT id, path, build_id FROM mapped_file", -1 },
	{ "mapping_chunk", 4, "INSERT INTO mapping_chunk (id, nr_mappings, encoding, data) "
			      "VALUES (?, ?, ?, ?)",
	  "SELECT id, nr_mappings, encoding, data FROM mapping_chunk", 3 },
	{ "comm_chunk", 4, "INSERT INTO comm_chunk (id, nr_comms, encoding, data) "
			   "VALUES (?, ?, ?, ?)",
	  "SELECT id, nr_comms, encoding, data FROM comm_chunk", 3 },
	{ "cgroup", 2, "INSERT INTO cgroup (id, path) VALUES (?, ?)",
	  "SELECT id, path FROM cgroup", -1 },
	{ "thread_cgroup_chunk", 4, "INSERT INTO thread_cgroup_chunk (id, nr_rows, encoding, "
				    "data) VALUES (?, ?, ?, ?)",
	  "SELECT id, nr_rows, encoding, data FROM thread_cgroup_chunk", 3 },
	/* last: the inputs found before it keep their table numbers */
	{ "binary_chunk", 5, "INSERT INTO binary_chunk (id, file, source, encoding, data) "
			     "VALUES (?, ?, ?, ?, ?)",
	  "SELECT id, file, source, encoding, data FROM binary_chunk", 4 },
	{ "python_code", 9, "INSERT INTO python_code (tgid, code_key, addr, version, name, "
			    "qualname, filename, first_line, linetable) "
			    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
	  "SELECT tgid, code_key, addr, version, name, qualname, filename, first_line, "
	  "linetable FROM python_code", -1 },
};

struct input {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct input *in, size_t bytes)
{
	uint8_t buf[8] = { 0 };
	size_t n = bytes < in->left ? bytes : in->left;

	memcpy(buf, in->p, n);
	in->p += n;
	in->left -= n;
	return le(buf, bytes);
}

/* Binds the next value of the input to parameter i; -ENOMEM or 0. */
static int bind_value(sqlite3_stmt *st, int i, struct input *in, ZSTD_CCtx *cctx)
{
	enum fuzz_value kind = (enum fuzz_value)(take(in, 1) % FUZZ_VALUE_NR);
	uint64_t v;
	double d;
	size_t len;
	const uint8_t *bytes;
	void *blob;
	int err;

	switch (kind) {
	case FUZZ_SMALL:
		sqlite3_bind_int64(st, i, (int8_t)take(in, 1));
		return 0;
	case FUZZ_I64:
		sqlite3_bind_int64(st, i, (int64_t)take(in, 8));
		return 0;
	case FUZZ_REAL:
		v = take(in, 8);
		memcpy(&d, &v, sizeof(d));
		sqlite3_bind_double(st, i, d);
		return 0;
	case FUZZ_NULL:
		sqlite3_bind_null(st, i);
		return 0;
	default:
		break;
	}
	len = (size_t)take(in, 2);
	if (len > in->left)
		len = in->left;
	bytes = in->p;
	in->p += len;
	in->left -= len;
	if (kind == FUZZ_TEXT) {
		sqlite3_bind_text(st, i, (const char *)bytes, (int)len, SQLITE_TRANSIENT);
		return 0;
	}
	if (kind == FUZZ_BLOB) {
		sqlite3_bind_blob(st, i, len ? bytes : (const void *)"", (int)len, SQLITE_TRANSIENT);
		return 0;
	}
	err = codec__zstd_compress(cctx, 1, bytes, len, &blob, &len);
	if (err)
		return err;
	sqlite3_bind_blob(st, i, blob, (int)len, free);
	return 0;
}

int fuzz_build_tables(const char *path, const void *template, size_t tlen,
		      const uint8_t *data, size_t len)
{
	static ZSTD_CCtx *cctx;
	sqlite3_stmt *st[FUZZ_TABLES_NR] = { 0 };
	struct input in = { data, len };
	sqlite3 *db = NULL;
	int err, i, t;

	if (!cctx)
		cctx = ZSTD_createCCtx();	/* kept for the life of the process */
	fuzz_remove_sidecars(path);
	err = fuzz_write_file(path, template, tlen);
	if (err)
		return err;
	if (!cctx || sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN",
			 NULL, NULL, NULL) != SQLITE_OK) {
		err = -EIO;
		goto out;
	}
	for (t = 0; t < FUZZ_TABLES_NR; t++) {
		if (sqlite3_prepare_v2(db, fuzz_tables[t].insert, -1, &st[t], NULL) != SQLITE_OK) {
			err = -EIO;
			goto out;
		}
	}
	while (in.left && !err) {
		t = (int)(take(&in, 1) % FUZZ_TABLES_NR);
		sqlite3_reset(st[t]);
		for (i = 1; i <= fuzz_tables[t].nr_columns && !err; i++)
			err = bind_value(st[t], i, &in, cctx);
		if (!err)
			sqlite3_step(st[t]);	/* a refused row is skipped */
	}
	if (!err && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		err = -EIO;
out:
	for (t = 0; t < FUZZ_TABLES_NR; t++)
		sqlite3_finalize(st[t]);
	sqlite3_close(db);
	fuzz_remove_sidecars(path);
	return err;
}

int fuzz_make_template(const char *path, void **out, size_t *len)
{
	struct recording *rec = NULL;
	void *buf = NULL;
	FILE *f = NULL;
	long n = 0;
	int err;

	err = recording__create(path, &rec);
	if (!err)
		err = recording__finish(rec);
	recording__close(rec);
	if (!err && (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
		     fseek(f, 0, SEEK_SET) || !(buf = malloc((size_t)n)) ||
		     fread(buf, 1, (size_t)n, f) != (size_t)n))
		err = -EIO;
	if (f)
		fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	*len = (size_t)n;
	return 0;
}
