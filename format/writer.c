// SPDX-License-Identifier: MIT
/*
 * format/writer.c - buffering and committing a recording.
 *
 * Everything a recorder adds is copied into memory and written by
 * recording__commit() in one BEGIN IMMEDIATE ... COMMIT transaction, so
 * the file on disk always ends at a complete commit, whenever the recorder
 * dies. Samples are sorted by time and coded as columns (codec.c); stacks
 * are sorted by id and delta-coded; symbol tables (and embedded DWARF
 * files) are coded and compressed when they are added, since they arrive
 * whole and are written once. A failed commit keeps its data buffered (a
 * later commit may succeed once the disk has room) and leaves the file at
 * the previous commit.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "format/internal.h"
#include "util/bsearch.h"
#include "util/log.h"
#include "util/vec.h"

#define REC_ZSTD_LEVEL_SYMBOLS	9
/*
 * Debug files are megabytes compressed while the recorder runs: a fast
 * level (see schema/README.md for what the levels cost and save).
 */
#define REC_ZSTD_LEVEL_DEBUGINFO	3

static int check_writable(struct recording *rec)
{
	if (!rec->writable) {
		pr_err("'%s' is open for reading, not writing", rec->path);
		return -EBADF;
	}
	if (rec->w.finished) {
		pr_err("'%s' is finished: nothing more can be added", rec->path);
		return -EINVAL;
	}
	return 0;
}

static int oom(const struct recording *rec)
{
	return pr_errno(-ENOMEM, "'%s': buffering recorded data", rec->path);
}

#define PUSH(rec, arr, nr, cap)                                                           \
	(vec__grow(&(arr), &(cap), (nr) + 1, sizeof(*(arr))) ? oom(rec) : 0)

size_t recording__pending_samples(const struct recording *rec)
{
	return rec->w.nr_samples;
}

int recording__add_sample(struct recording *rec, const struct rec_sample *s)
{
	struct writer *w = &rec->w;
	int err;

	if (w->nr_samples == w->cap_samples) {
		err = check_writable(rec);
		if (!err)
			err = PUSH(rec, w->samples, w->nr_samples, w->cap_samples);
		if (err)
			return err;
	} else if (w->finished) {
		return check_writable(rec);
	}
	w->samples[w->nr_samples++] = *s;
	return 0;
}

int recording__add_stack(struct recording *rec, const struct rec_stack *st)
{
	struct writer *w = &rec->w;
	struct pending_stack *p;
	size_t nr = (size_t)st->nr_kernel + st->nr_user;
	int err;

	err = check_writable(rec);
	if (err)
		return err;
	if (nr > REC_MAX_FRAMES || (nr && !st->frames)) {
		pr_err("'%s': stack %u has %zu frames (at most %d can be stored)", rec->path,
		       st->id, nr, REC_MAX_FRAMES);
		return -E2BIG;
	}
	err = PUSH(rec, w->stacks, w->nr_stacks, w->cap_stacks);
	if (!err && vec__grow(&w->frames, &w->cap_frames, w->nr_frames + nr,
				sizeof(*w->frames)))
		err = oom(rec);
	if (err)
		return err;
	err = idset__add(&w->stack_ids, st->id);
	if (err < 0)
		return oom(rec);
	if (err == 0) {
		pr_err("'%s': stack id %u added twice", rec->path, st->id);
		return -EEXIST;
	}
	p = &w->stacks[w->nr_stacks++];
	p->id = st->id;
	p->nr_kernel = st->nr_kernel;
	p->nr_user = st->nr_user;
	p->first_frame = w->nr_frames;
	if (nr)
		memcpy(w->frames + w->nr_frames, st->frames, nr * sizeof(*st->frames));
	w->nr_frames += nr;
	return 0;
}

int recording__add_comm(struct recording *rec, const struct rec_comm *c)
{
	struct writer *w = &rec->w;
	struct rec_comm *p;
	int err;

	err = check_writable(rec);
	if (!err)
		err = PUSH(rec, w->comms, w->nr_comms, w->cap_comms);
	if (err)
		return err;
	p = &w->comms[w->nr_comms++];
	*p = *c;
	p->comm[REC_COMM_LEN - 1] = '\0';
	return 0;
}

int recording__add_mapping(struct recording *rec, const struct rec_mapping *m)
{
	struct writer *w = &rec->w;
	struct pending_mapping *p;
	uint32_t file;
	int err;

	err = check_writable(rec);
	if (err)
		return err;
	if (m->build_id_len > REC_BUILD_ID_MAX || (m->path && strlen(m->path) > REC_MAX_PATH)) {
		pr_err("'%s': mapping of pid %u at %#llx: build-id or path too long", rec->path,
		       m->tgid, (unsigned long long)m->start);
		return -EINVAL;
	}
	if (m->end <= m->start || m->end - m->start > REC_MAX_MAPPING) {
		pr_err("'%s': mapping of pid %u at %#llx is empty or too large", rec->path, m->tgid,
		       (unsigned long long)m->start);
		return -EINVAL;
	}
	err = PUSH(rec, w->mappings, w->nr_mappings, w->cap_mappings);
	if (err)
		return err;
	if (file_table__intern(&w->files, m->path ? m->path : "", m->build_id, m->build_id_len,
			       &file))
		return oom(rec);
	p = &w->mappings[w->nr_mappings++];
	p->time_ns = m->time_ns;
	p->tgid = m->tgid;
	p->start = m->start;
	p->end = m->end;
	p->pgoff = m->pgoff;
	p->file = file;
	return 0;
}

int recording__add_loss(struct recording *rec, const struct rec_loss *l)
{
	struct writer *w = &rec->w;
	int err;

	err = check_writable(rec);
	if (!err)
		err = PUSH(rec, w->losses, w->nr_losses, w->cap_losses);
	if (err)
		return err;
	w->losses[w->nr_losses++] = *l;
	return 0;
}

int recording__add_unwind(struct recording *rec, const struct rec_unwind *rows, size_t nr)
{
	struct writer *w = &rec->w;
	size_t i;
	int err;

	err = check_writable(rec);
	for (i = 0; !err && i < nr; i++) {
		char *path = strdup(rows[i].path ? rows[i].path : "");

		if (!path || rows[i].build_id_len > REC_BUILD_ID_MAX ||
		    PUSH(rec, w->unwind, w->nr_unwind, w->cap_unwind)) {
			free(path);
			return path ? -EINVAL : oom(rec);
		}
		w->unwind[w->nr_unwind] = rows[i];
		w->unwind[w->nr_unwind++].path = path;
	}
	return err;
}

int recording__add_ticks(struct recording *rec, const struct rec_ticks *t)
{
	struct writer *w = &rec->w;
	int err;

	err = check_writable(rec);
	if (!err && (!t->period_ns || t->throttled_ns > t->enabled_ns)) {
		pr_err("'%s': inconsistent tick counts for CPU %u", rec->path, t->cpu);
		err = -EINVAL;
	}
	if (!err)
		err = PUSH(rec, w->ticks, w->nr_ticks, w->cap_ticks);
	if (err)
		return err;
	w->ticks[w->nr_ticks++] = *t;
	return 0;
}

int recording__add_offcpu(struct recording *rec, const struct rec_offcpu *o)
{
	struct writer *w = &rec->w;
	int err;

	err = check_writable(rec);
	if (!err && (!o->duration_ns || o->state >= REC_OFFCPU_STATES ||
		     o->time_ns + o->duration_ns < o->time_ns)) {
		pr_err("'%s': an inconsistent off-CPU interval of thread %u", rec->path, o->tid);
		err = -EINVAL;
	}
	if (!err)
		err = PUSH(rec, w->offcpu, w->nr_offcpu, w->cap_offcpu);
	if (err)
		return err;
	w->offcpu[w->nr_offcpu++] = *o;
	return 0;
}

int recording__add_offcpu_sum(struct recording *rec, const struct rec_offcpu_sum *o)
{
	struct writer *w = &rec->w;
	int err;

	err = check_writable(rec);
	if (!err && ((!o->count && !o->total_ns) || o->state >= REC_OFFCPU_STATES)) {
		pr_err("'%s': an inconsistent off-CPU sum of thread %u", rec->path, o->tid);
		err = -EINVAL;
	}
	if (!err)
		err = PUSH(rec, w->offcpu_sum, w->nr_offcpu_sum, w->cap_offcpu_sum);
	if (err)
		return err;
	w->offcpu_sum[w->nr_offcpu_sum++] = *o;
	return 0;
}

int recording__add_offcpu_loss(struct recording *rec, const struct rec_offcpu_loss *l)
{
	struct writer *w = &rec->w;
	int err;

	err = check_writable(rec);
	if (!err)
		err = PUSH(rec, w->offcpu_loss, w->nr_offcpu_loss, w->cap_offcpu_loss);
	if (err)
		return err;
	w->offcpu_loss[w->nr_offcpu_loss++] = *l;
	return 0;
}

int recording__set_meta(struct recording *rec, const char *key, const char *value)
{
	struct writer *w = &rec->w;
	struct pending_meta *p;
	char *k, *v;
	int err;

	err = check_writable(rec);
	if (err)
		return err;
	if (strlen(value) > REC_MAX_META) {
		pr_err("'%s': metadata %s is longer than %u bytes", rec->path, key, REC_MAX_META);
		return -E2BIG;
	}
	err = PUSH(rec, w->meta, w->nr_meta, w->cap_meta);
	if (err)
		return err;
	k = strdup(key);
	v = strdup(value);
	if (!k || !v) {
		free(k);
		free(v);
		return oom(rec);
	}
	p = &w->meta[w->nr_meta++];
	p->key = k;
	p->value = v;
	return 0;
}

int recording__set_meta_u64(struct recording *rec, const char *key, uint64_t value)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)value);
	return recording__set_meta(rec, key, buf);
}

static int cmp_symbol(const void *a, const void *b)
{
	const struct rec_symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int compress_into(struct recording *rec, const struct bytebuf *raw, int level,
			 void **blob, size_t *blob_len, const char *what)
{
	int err;

	if (raw->len > CODEC_MAX_DECOMPRESSED) {
		pr_err("'%s': %s: %zu bytes is more than a reader accepts", rec->path, what, raw->len);
		return -E2BIG;
	}
	err = codec__zstd_compress(rec->w.cctx, level, raw->data, raw->len, blob, blob_len);
	if (err)
		pr_errno(err, "'%s': compressing %s", rec->path, what);
	return err;
}

/*
 * Binary blob (before zstd): varint nr_segments, then offset, vaddr, filesz
 * each; varint nr_symbols, then per symbol the address as a delta from the
 * previous one (they are sorted), the size, the name as a string.
 */
static int encode_binary(const struct rec_binary *b, struct bytebuf *raw)
{
	struct rec_symbol *sorted = NULL;
	const struct rec_symbol *syms = b->symbols;
	uint64_t prev = 0;
	size_t i;
	int err = 0;

	for (i = 1; i < b->nr_symbols; i++) {
		if (syms[i].addr < syms[i - 1].addr)
			break;
	}
	if (b->nr_symbols && i < b->nr_symbols) {	/* promised sorted; be lenient */
		sorted = malloc(b->nr_symbols * sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		memcpy(sorted, syms, b->nr_symbols * sizeof(*sorted));
		qsort(sorted, b->nr_symbols, sizeof(*sorted), cmp_symbol);
		syms = sorted;
	}
	err = bytebuf__put_varint(raw, b->nr_segments);
	for (i = 0; !err && i < b->nr_segments; i++) {
		err = bytebuf__put_varint(raw, b->segments[i].offset);
		err = err ?: bytebuf__put_varint(raw, b->segments[i].vaddr);
		err = err ?: bytebuf__put_varint(raw, b->segments[i].filesz);
	}
	err = err ?: bytebuf__put_varint(raw, b->nr_symbols);
	for (i = 0; !err && i < b->nr_symbols; i++) {
		if (syms[i].name && strlen(syms[i].name) > REC_MAX_NAME) {
			err = -E2BIG;
			break;
		}
		err = bytebuf__put_varint(raw, syms[i].addr - prev);
		err = err ?: bytebuf__put_varint(raw, syms[i].size);
		err = err ?: bytebuf__put_string(raw, syms[i].name);
		prev = syms[i].addr;
	}
	free(sorted);
	return err;
}

int recording__add_binary(struct recording *rec, const struct rec_binary *b)
{
	struct writer *w = &rec->w;
	struct pending_binary p = { 0 };
	struct bytebuf raw = { 0 };
	const char *path = b->path ? b->path : "";
	const char *source = b->source ? b->source : "";
	int err;

	err = check_writable(rec);
	if (err)
		return err;
	if (b->build_id_len > REC_BUILD_ID_MAX || strlen(path) > REC_MAX_PATH ||
	    strlen(source) > REC_MAX_PATH || b->nr_segments > REC_MAX_SEGMENTS ||
	    b->nr_symbols > REC_MAX_SYMBOLS) {
		pr_err("'%s': symbols of '%s': build-id, path, source or table too long", rec->path,
		       path);
		return -EINVAL;
	}
	err = encode_binary(b, &raw);
	if (err == -E2BIG) {
		pr_err("'%s': symbols of '%s': a name is longer than %u bytes", rec->path, path,
		       REC_MAX_NAME);
		goto out;
	}
	if (err) {
		err = oom(rec);
		goto out;
	}
	err = compress_into(rec, &raw, REC_ZSTD_LEVEL_SYMBOLS, &p.blob, &p.blob_len, "symbols");
	if (err)
		goto out;
	err = PUSH(rec, w->binaries, w->nr_binaries, w->cap_binaries);
	if (err)
		goto out;
	memcpy(p.build_id, b->build_id, b->build_id_len);
	p.build_id_len = b->build_id_len;
	p.path = strdup(path);
	p.source = strdup(source);
	if (!p.path || !p.source) {
		err = oom(rec);
		goto out;
	}
	w->binaries[w->nr_binaries++] = p;
	memset(&p, 0, sizeof(p));
out:
	free(p.path);
	free(p.source);
	free(p.blob);
	bytebuf__release(&raw);
	return err;
}

int recording__add_debuginfo(struct recording *rec, const uint8_t *build_id, uint32_t len,
			     const char *path, const void *data, size_t size)
{
	struct writer *w = &rec->w;
	struct pending_debuginfo p = { 0 };
	const struct bytebuf raw = { (uint8_t *)data, size, size };
	int err;

	err = check_writable(rec);
	if (err)
		return err;
	if (!path)
		path = "";
	if (!len || len > REC_BUILD_ID_MAX || strlen(path) > REC_MAX_PATH || !size) {
		pr_err("'%s': DWARF of '%s': no build-id, path too long or no data", rec->path,
		       path);
		return -EINVAL;
	}
	if (size > REC_DEBUGINFO_MAX) {
		pr_err("'%s': DWARF of '%s': %zu bytes is more than a recording holds", rec->path,
		       path, size);
		return -E2BIG;
	}
	err = compress_into(rec, &raw, REC_ZSTD_LEVEL_DEBUGINFO, &p.blob, &p.blob_len, "DWARF");
	if (err)
		return err;
	err = PUSH(rec, w->debuginfo, w->nr_debuginfo, w->cap_debuginfo);
	p.path = err ? NULL : strdup(path);
	if (!err && !p.path)
		err = oom(rec);
	if (err) {
		free(p.blob);
		return err;
	}
	memcpy(p.build_id, build_id, len);
	p.build_id_len = len;
	p.size = size;
	w->debuginfo[w->nr_debuginfo++] = p;
	return 0;
}

static int flush_ksyms(struct recording *rec, struct bytebuf *raw, size_t nr)
{
	struct writer *w = &rec->w;
	struct pending_ksyms p = { nr, NULL, 0 };
	int err;

	err = compress_into(rec, raw, REC_ZSTD_LEVEL_SYMBOLS, &p.blob, &p.blob_len,
			    "kernel symbols");
	if (!err)
		err = PUSH(rec, w->ksyms, w->nr_ksyms, w->cap_ksyms);
	if (err) {
		free(p.blob);
		return err;
	}
	w->ksyms[w->nr_ksyms++] = p;
	raw->len = 0;
	return 0;
}

/*
 * Kernel symbol chunk (before zstd), per symbol: the address as a zigzag
 * delta from the previous one, end - address, the name and the module as
 * strings ("" for the core kernel).
 */
int recording__add_ksyms(struct recording *rec, const struct rec_ksym *syms, size_t nr)
{
	struct bytebuf raw = { 0 };
	uint64_t prev = 0;
	size_t i, in_chunk = 0;
	int err;

	err = check_writable(rec);
	if (err)
		return err;
	for (i = 0; i < nr; i++) {
		const struct rec_ksym *k = &syms[i];

		if (k->end < k->addr || (k->name && strlen(k->name) > REC_MAX_NAME) ||
		    (k->module && strlen(k->module) > REC_MAX_PATH)) {
			pr_err("'%s': kernel symbol %s at %#llx: bad range or name", rec->path,
			       k->name ? k->name : "?", (unsigned long long)k->addr);
			err = -EINVAL;
			goto out;
		}
		if (bytebuf__put_varint(&raw, codec__zigzag((int64_t)(k->addr - prev))) ||
		    bytebuf__put_varint(&raw, k->end - k->addr) ||
		    bytebuf__put_string(&raw, k->name) || bytebuf__put_string(&raw, k->module)) {
			err = oom(rec);
			goto out;
		}
		prev = k->addr;
		if (++in_chunk == REC_CHUNK_KSYMS || raw.len >= (16u << 20)) {
			err = flush_ksyms(rec, &raw, in_chunk);
			if (err)
				goto out;
			in_chunk = 0;
			prev = 0;
		}
	}
	if (in_chunk)
		err = flush_ksyms(rec, &raw, in_chunk);
out:
	bytebuf__release(&raw);
	return err;
}

/* --- commit ------------------------------------------------------------- */

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

static int cmp_stack(const void *a, const void *b)
{
	const struct pending_stack *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Steps an INSERT whose parameters are bound, and resets it for the next row. */
static int step_insert(struct recording *rec, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : rec_sql_error(rec, rc, what);
}

static bool sample_before(const void *elem, const void *key)
{
	return ((const struct rec_sample *)elem)->time_ns < *(const uint64_t *)key;
}

/* The samples taken before keep_from_ns, in chunks; w->samples_kept: the others. */
static int write_samples(struct recording *rec, uint64_t keep_from_ns)
{
	struct writer *w = &rec->w;
	sqlite3_stmt *st = NULL;
	uint8_t *raw = NULL;
	void *blob = NULL;
	size_t i, n, len, blob_len, nr;
	int err;

	w->samples_kept = 0;
	if (!w->nr_samples)
		return 0;
	qsort(w->samples, w->nr_samples, sizeof(*w->samples), cmp_sample);
	nr = bsearch_lower_bound(&keep_from_ns, w->samples, w->nr_samples, sizeof(*w->samples),
				 sample_before);
	w->samples_kept = w->nr_samples - nr;
	if (!nr)
		return 0;
	n = nr < REC_CHUNK_SAMPLES ? nr : REC_CHUNK_SAMPLES;
	raw = malloc(n * CODEC_SAMPLE_MAX_BYTES + CODEC_VARINT_MAX);
	if (!raw)
		return oom(rec);
	err = rec_prepare(rec, "INSERT INTO sample_chunk (first_time, last_time, nr_samples, "
			       "encoding, data) VALUES (?, ?, ?, ?, ?)", "writing samples", &st);
	for (i = 0; !err && i < nr; i += n) {
		const struct rec_sample *s = w->samples + i;

		n = nr - i < REC_CHUNK_SAMPLES ? nr - i : REC_CHUNK_SAMPLES;
		err = codec__encode_samples(s, n, s[0].time_ns, raw, &len);
		if (err) {
			err = oom(rec);
			break;
		}
		err = codec__zstd_compress(w->cctx, REC_ZSTD_LEVEL, raw, len, &blob, &blob_len);
		if (err) {
			pr_errno(err, "'%s': compressing samples", rec->path);
			break;
		}
		sqlite3_bind_int64(st, 1, (int64_t)s[0].time_ns);
		sqlite3_bind_int64(st, 2, (int64_t)s[n - 1].time_ns);
		sqlite3_bind_int64(st, 3, (int64_t)n);
		sqlite3_bind_int(st, 4, REC_ENCODING_ZSTD_V1);
		sqlite3_bind_blob(st, 5, blob, (int)blob_len, SQLITE_STATIC);
		err = step_insert(rec, st, "writing samples");
		free(blob);
	}
	sqlite3_finalize(st);
	free(raw);
	return err;
}

/* A mapping of this commit's chunk, by where it starts: what user frames are coded against. */
struct base {
	uint64_t start;
	uint64_t end;
	uint32_t row;		/* in the mapping chunk */
};

static int cmp_base(const void *a, const void *b)
{
	const struct base *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* How many mappings back from the last one starting at or below a frame are tried. */
#define BASE_TRIES	16

/*
 * The mapping to code frame f against: one that holds it (f may be its end,
 * a return address after a call that ends it), of those starting nearest
 * below f the one closest to the row before (the same process's mappings
 * are neighbours in the chunk): its index in b, or -1 if none.
 */
static bool base_starts_at_or_below(const void *elem, const void *key)
{
	return ((const struct base *)elem)->start <= *(const uint64_t *)key;
}

static int64_t find_base(const struct base *b, size_t n, uint64_t f, uint32_t prev_row)
{
	size_t lo, tries;
	int64_t best = -1;
	uint64_t best_dist = UINT64_MAX, d;

	/* first with start > f */
	lo = bsearch_lower_bound(&f, b, n, sizeof(*b), base_starts_at_or_below);
	for (tries = 0; lo > 0 && tries < BASE_TRIES; tries++) {
		const struct base *c = &b[--lo];

		if (f > c->end)
			continue;
		d = c->row > prev_row ? c->row - prev_row : prev_row - c->row;
		if (d < best_dist) {
			best_dist = d;
			best = (int64_t)lo;
		}
	}
	return best;
}

/*
 * Stack chunk (before zstd), per stack in id order: the id as a delta from
 * the previous one (from first_id for the first), nr_kernel, nr_user, then
 * each frame as a zigzag delta from the previous kernel (or user) frame in
 * the chunk. Successive frames of one stack, and the same frames in
 * similar stacks, are near each other, so the deltas are short.
 *
 * Encoding 2 (v2) leads with the id of the commit's mapping chunk (0:
 * none) and codes a user frame inside one of its mappings (bases) as that
 * mapping's row (a delta from the previous such row, plus one) and the
 * offset from its start, any other as 0 and the delta. A short-lived process's
 * libraries sit at random addresses (ASLR), so every stack of it was new
 * bytes; as offsets, the same code in the next process is the same bytes
 * again, and zstd finds them (the fork storm's stacks: 129 KB -> ~90).
 */
static int encode_stacks(const struct writer *w, const struct pending_stack *s, size_t n,
			 const struct base *bases, size_t nr_bases, struct bytebuf *raw,
			 size_t *lead)
{
	uint64_t prev_k = 0, prev_u = 0;
	uint32_t prev_id = s[0].id, prev_row = 0;
	int64_t k;
	size_t i, j;

	raw->len = 0;
	if (bytebuf__put_varint(raw, bases ? (uint64_t)w->mapping_chunk : 0))
		return -ENOMEM;
	*lead = raw->len;
	for (i = 0; i < n; i++) {
		size_t nr = (size_t)s[i].nr_kernel + s[i].nr_user;
		/* frames is NULL while every stack so far had none: NULL + 0 is UB */
		const uint64_t *f = nr ? w->frames + s[i].first_frame : NULL;

		if (bytebuf__reserve(raw, 3 * CODEC_VARINT_MAX + 2 * nr * CODEC_VARINT_MAX))
			return -ENOMEM;
		raw->len += codec__put_varint(raw->data + raw->len, s[i].id - prev_id);
		raw->len += codec__put_varint(raw->data + raw->len, s[i].nr_kernel);
		raw->len += codec__put_varint(raw->data + raw->len, s[i].nr_user);
		for (j = 0; j < nr; j++) {
			bool user = j >= s[i].nr_kernel;
			uint64_t *prev = user ? &prev_u : &prev_k;
			uint8_t *p = raw->data + raw->len;

			k = user && bases ? find_base(bases, nr_bases, f[j], prev_row) : -1;
			if (k >= 0) {
				const struct base *b = &bases[k];

				p += codec__put_varint(p, 1 + codec__zigzag((int64_t)b->row - prev_row));
				p += codec__put_varint(p, f[j] - b->start);
				prev_row = b->row;
			} else {
				if (user)
					*p++ = 0;
				p += codec__put_varint(p, codec__zigzag((int64_t)(f[j] - *prev)));
			}
			raw->len = (size_t)(p - raw->data);
			*prev = f[j];
		}
		prev_id = s[i].id;
	}
	return 0;
}

/*
 * Each stack chunk is compressed with the stacks of the chunk before it as
 * a zstd prefix (encoding 2): the same code runs second after second, and
 * a chunk alone starts from nothing (the fork storm's stacks: -14%). The
 * prefix of the next chunk is kept in w->stack_prefix_next until the
 * commit succeeds: a rolled-back chunk must not be anyone's prefix.
 */
static int write_stacks(struct recording *rec)
{
	struct writer *w = &rec->w;
	struct base *bases = NULL;
	struct bytebuf raw = { 0 }, prev = { 0 };
	const struct bytebuf *prefix = &w->stack_prefix;
	sqlite3_stmt *st = NULL;
	void *blob = NULL;
	size_t i, n, blob_len, lead;
	int err;

	if (!w->nr_stacks)
		return 0;
	qsort(w->stacks, w->nr_stacks, sizeof(*w->stacks), cmp_stack);
	if (w->mapping_chunk) {
		bases = malloc(w->nr_mappings * sizeof(*bases));
		if (!bases)
			return oom(rec);
		for (i = 0; i < w->nr_mappings; i++) {
			bases[i].start = w->mappings[i].start;
			bases[i].end = w->mappings[i].end;
			bases[i].row = (uint32_t)i;
		}
		qsort(bases, w->nr_mappings, sizeof(*bases), cmp_base);
	}
	err = rec_prepare(rec, "INSERT INTO stack_chunk (first_id, last_id, nr_stacks, encoding, "
			       "data) VALUES (?, ?, ?, ?, ?)", "writing stacks", &st);
	for (i = 0; !err && i < w->nr_stacks; i += n) {
		const struct pending_stack *s = w->stacks + i;

		n = w->nr_stacks - i < REC_CHUNK_STACKS ? w->nr_stacks - i : REC_CHUNK_STACKS;
		if (encode_stacks(w, s, n, bases, bases ? w->nr_mappings : 0, &raw, &lead)) {
			err = oom(rec);
			break;
		}
		if (raw.len > CODEC_MAX_DECOMPRESSED) {
			pr_err("'%s': stacks: %zu bytes is more than a reader accepts", rec->path,
			       raw.len);
			err = -E2BIG;
			break;
		}
		err = codec__zstd_compress_prefixed(w->cctx, REC_ZSTD_LEVEL, prefix->data,
						    prefix->len, raw.data, raw.len, &blob,
						    &blob_len);
		if (err) {
			pr_errno(err, "'%s': compressing stacks", rec->path);
			break;
		}
		sqlite3_bind_int64(st, 1, s[0].id);
		sqlite3_bind_int64(st, 2, s[n - 1].id);
		sqlite3_bind_int64(st, 3, (int64_t)n);
		sqlite3_bind_int(st, 4, REC_ENCODING_STACKS_V2);
		sqlite3_bind_blob(st, 5, blob, (int)blob_len, SQLITE_STATIC);
		err = step_insert(rec, st, "writing stacks");
		free(blob);
		/* this chunk's stacks, without the mapping chunk id, prefix the next */
		prev.len = 0;
		if (!err && bytebuf__put(&prev, raw.data + lead, raw.len - lead))
			err = oom(rec);
		prefix = &prev;
	}
	sqlite3_finalize(st);
	bytebuf__release(&raw);
	free(bases);
	if (!err) {
		bytebuf__release(&w->stack_prefix_next);
		w->stack_prefix_next = prev;
		w->has_prefix_next = true;
	} else {
		bytebuf__release(&prev);
	}
	return err;
}

static int write_rows(struct recording *rec)
{
	struct writer *w = &rec->w;
	sqlite3_stmt *st = NULL;
	size_t i;
	int err;

	err = rec_write_comms(rec);
	if (err)
		return err;

	err = rec_write_mappings(rec);
	if (err)
		return err;

	err = rec_prepare(rec, "INSERT INTO loss (time, cpu, lost_samples, lost_ustacks, "
			       "lost_kstacks, truncated_stacks, lost_sideband) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?)", "writing loss counts", &st);
	for (i = 0; !err && i < w->nr_losses; i++) {
		const struct rec_loss *l = &w->losses[i];

		sqlite3_bind_int64(st, 1, (int64_t)l->time_ns);
		sqlite3_bind_int64(st, 2, l->cpu);
		sqlite3_bind_int64(st, 3, (int64_t)l->lost_samples);
		sqlite3_bind_int64(st, 4, (int64_t)l->lost_ustacks);
		sqlite3_bind_int64(st, 5, (int64_t)l->lost_kstacks);
		sqlite3_bind_int64(st, 6, (int64_t)l->truncated_stacks);
		sqlite3_bind_int64(st, 7, (int64_t)l->lost_sideband);
		err = step_insert(rec, st, "writing loss counts");
	}
	sqlite3_finalize(st);
	if (err || !w->nr_ticks)
		return err;

	err = rec_prepare(rec, "INSERT INTO ticks (time, cpu, period_ns, enabled_ns, "
			       "throttled_ns, throttles, fired, kept) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			  "writing tick counts", &st);
	for (i = 0; !err && i < w->nr_ticks; i++) {
		const struct rec_ticks *t = &w->ticks[i];

		sqlite3_bind_int64(st, 1, (int64_t)t->time_ns);
		sqlite3_bind_int64(st, 2, t->cpu);
		sqlite3_bind_int64(st, 3, (int64_t)t->period_ns);
		sqlite3_bind_int64(st, 4, (int64_t)t->enabled_ns);
		sqlite3_bind_int64(st, 5, (int64_t)t->throttled_ns);
		sqlite3_bind_int64(st, 6, (int64_t)t->throttles);
		sqlite3_bind_int64(st, 7, (int64_t)t->fired);
		sqlite3_bind_int64(st, 8, (int64_t)t->kept);
		err = step_insert(rec, st, "writing tick counts");
	}
	sqlite3_finalize(st);
	return err;
}

/* The off-CPU tables (v2): plain rows, few of them (long intervals, flushed sums). */
static int write_offcpu(struct recording *rec)
{
	struct writer *w = &rec->w;
	sqlite3_stmt *st = NULL;
	size_t i;
	int err = 0;

	if (w->nr_offcpu) {
		err = rec_prepare(rec, "INSERT INTO offcpu (time, duration, tgid, tid, cpu, state, "
				       "stack_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
				  "writing off-CPU intervals", &st);
		for (i = 0; !err && i < w->nr_offcpu; i++) {
			const struct rec_offcpu *o = &w->offcpu[i];

			sqlite3_bind_int64(st, 1, (int64_t)o->time_ns);
			sqlite3_bind_int64(st, 2, (int64_t)o->duration_ns);
			sqlite3_bind_int64(st, 3, o->tgid);
			sqlite3_bind_int64(st, 4, o->tid);
			sqlite3_bind_int64(st, 5, o->cpu);
			sqlite3_bind_int64(st, 6, o->state);
			sqlite3_bind_int64(st, 7, o->stack_id);
			err = step_insert(rec, st, "writing off-CPU intervals");
		}
		sqlite3_finalize(st);
	}
	if (!err && w->nr_offcpu_sum) {
		err = rec_prepare(rec, "INSERT INTO offcpu_sum (time, tgid, tid, state, cpu, "
				       "stack_id, count, total_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
				  "writing off-CPU sums", &st);
		for (i = 0; !err && i < w->nr_offcpu_sum; i++) {
			const struct rec_offcpu_sum *o = &w->offcpu_sum[i];

			sqlite3_bind_int64(st, 1, (int64_t)o->time_ns);
			sqlite3_bind_int64(st, 2, o->tgid);
			sqlite3_bind_int64(st, 3, o->tid);
			sqlite3_bind_int64(st, 4, o->state);
			sqlite3_bind_int64(st, 5, o->cpu);
			sqlite3_bind_int64(st, 6, o->stack_id);
			sqlite3_bind_int64(st, 7, (int64_t)o->count);
			sqlite3_bind_int64(st, 8, (int64_t)o->total_ns);
			err = step_insert(rec, st, "writing off-CPU sums");
		}
		sqlite3_finalize(st);
	}
	if (!err && w->nr_offcpu_loss) {
		err = rec_prepare(rec, "INSERT INTO offcpu_loss (time, cpu, lost, lost_ns, untracked, "
				       "lost_stacks) VALUES (?, ?, ?, ?, ?, ?)",
				  "writing off-CPU losses", &st);
		for (i = 0; !err && i < w->nr_offcpu_loss; i++) {
			const struct rec_offcpu_loss *l = &w->offcpu_loss[i];

			sqlite3_bind_int64(st, 1, (int64_t)l->time_ns);
			sqlite3_bind_int64(st, 2, l->cpu);
			sqlite3_bind_int64(st, 3, (int64_t)l->lost);
			sqlite3_bind_int64(st, 4, (int64_t)l->lost_ns);
			sqlite3_bind_int64(st, 5, (int64_t)l->untracked);
			sqlite3_bind_int64(st, 6, (int64_t)l->lost_stacks);
			err = step_insert(rec, st, "writing off-CPU losses");
		}
		sqlite3_finalize(st);
	}
	return err;
}

static int write_unwind(struct recording *rec)
{
	struct writer *w = &rec->w;
	sqlite3_stmt *st = NULL;
	size_t i, j;
	int err;

	if (!w->nr_unwind)
		return 0;
	err = rec_prepare(rec, "INSERT INTO unwind (build_id, path, walks, frames_table, "
			       "frames_fp, fb_no_table, fb_no_cfi, fb_no_vma, stop_end, stop_zero, "
			       "stop_depth, stop_unreadable, stop_bad_sp, stop_no_table, stop_no_cfi, "
			       "stop_no_regs, table_rows, table_bytes, build_ns) VALUES (?, ?, ?, ?, "
			       "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "writing unwind counts",
			  &st);
	for (i = 0; !err && i < w->nr_unwind; i++) {
		const struct rec_unwind *u = &w->unwind[i];
		int c = 1;

		if (u->build_id_len)
			sqlite3_bind_blob(st, c, u->build_id, (int)u->build_id_len, SQLITE_STATIC);
		sqlite3_bind_text(st, ++c, u->path, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, ++c, (int64_t)u->walks);
		sqlite3_bind_int64(st, ++c, (int64_t)u->frames_table);
		sqlite3_bind_int64(st, ++c, (int64_t)u->frames_fp);
		for (j = 0; j < REC_UNW_FB_MAX; j++)
			sqlite3_bind_int64(st, ++c, (int64_t)u->fallback[j]);
		for (j = 0; j < REC_UNW_STOP_MAX; j++)
			sqlite3_bind_int64(st, ++c, (int64_t)u->stop[j]);
		sqlite3_bind_int64(st, ++c, (int64_t)u->table_rows);
		sqlite3_bind_int64(st, ++c, (int64_t)u->table_bytes);
		sqlite3_bind_int64(st, ++c, (int64_t)u->build_ns);
		err = step_insert(rec, st, "writing unwind counts");
	}
	sqlite3_finalize(st);
	return err;
}

static int write_blobs(struct recording *rec)
{
	struct writer *w = &rec->w;
	sqlite3_stmt *st = NULL;
	size_t i;
	int err;

	/*
	 * Each row names its binary by mapped_file id (v2's binary_chunk): a
	 * binary that gains symbols at every commit has its path and build-id
	 * stored once, with the files its mappings use.
	 */
	for (i = 0; i < w->nr_binaries; i++) {
		struct pending_binary *b = &w->binaries[i];

		if (file_table__intern(&w->files, b->path, b->build_id, b->build_id_len, &b->file))
			return oom(rec);
	}
	err = rec_write_files(rec);
	err = err ?: rec_prepare(rec, "INSERT INTO binary_chunk (file, source, encoding, data) "
				      "VALUES (?, ?, ?, ?)", "writing symbols", &st);
	for (i = 0; !err && i < w->nr_binaries; i++) {
		const struct pending_binary *b = &w->binaries[i];

		sqlite3_bind_int64(st, 1, b->file);
		sqlite3_bind_text(st, 2, b->source, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, REC_ENCODING_ZSTD_V1);
		sqlite3_bind_blob(st, 4, b->blob, (int)b->blob_len, SQLITE_STATIC);
		err = step_insert(rec, st, "writing symbols");
	}
	sqlite3_finalize(st);
	if (err)
		return err;

	err = rec_prepare(rec, "INSERT INTO ksym_chunk (nr_syms, encoding, data) VALUES (?, ?, ?)",
			  "writing kernel symbols", &st);
	for (i = 0; !err && i < w->nr_ksyms; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)w->ksyms[i].nr);
		sqlite3_bind_int(st, 2, REC_ENCODING_ZSTD_V1);
		sqlite3_bind_blob(st, 3, w->ksyms[i].blob, (int)w->ksyms[i].blob_len,
				  SQLITE_STATIC);
		err = step_insert(rec, st, "writing kernel symbols");
	}
	sqlite3_finalize(st);
	if (err || !w->nr_debuginfo)
		return err;

	err = rec_prepare(rec, "INSERT INTO debuginfo (build_id, path, encoding, size, data) "
			       "VALUES (?, ?, ?, ?, ?)", "writing DWARF", &st);
	for (i = 0; !err && i < w->nr_debuginfo; i++) {
		const struct pending_debuginfo *d = &w->debuginfo[i];

		sqlite3_bind_blob(st, 1, d->build_id, (int)d->build_id_len, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, d->path, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, REC_ENCODING_ZSTD_V1);
		sqlite3_bind_int64(st, 4, (int64_t)d->size);
		sqlite3_bind_blob64(st, 5, d->blob, d->blob_len, SQLITE_STATIC);
		err = step_insert(rec, st, "writing DWARF");
	}
	sqlite3_finalize(st);
	return err;
}

static int write_meta(struct recording *rec, bool finishing)
{
	struct writer *w = &rec->w;
	sqlite3_stmt *st = NULL;
	size_t i;
	int err;

	err = rec_prepare(rec, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
			  "writing metadata", &st);
	for (i = 0; !err && i < w->nr_meta; i++) {
		sqlite3_bind_text(st, 1, w->meta[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, w->meta[i].value, -1, SQLITE_STATIC);
		err = step_insert(rec, st, "writing metadata");
	}
	if (!err && finishing) {	/* last statement of the last commit */
		sqlite3_bind_text(st, 1, REC_META_FINISHED, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, "1", -1, SQLITE_STATIC);
		err = step_insert(rec, st, "marking the recording finished");
	}
	sqlite3_finalize(st);
	return err;
}

/* Forgets what a successful commit wrote. The stack id set stays. */
static void clear_pending(struct writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_binaries; i++) {
		free(w->binaries[i].path);
		free(w->binaries[i].source);
		free(w->binaries[i].blob);
	}
	for (i = 0; i < w->nr_ksyms; i++)
		free(w->ksyms[i].blob);
	for (i = 0; i < w->nr_debuginfo; i++) {
		free(w->debuginfo[i].path);
		free(w->debuginfo[i].blob);
	}
	w->nr_debuginfo = 0;
	for (i = 0; i < w->nr_meta; i++) {
		free(w->meta[i].key);
		free(w->meta[i].value);
	}
	for (i = 0; i < w->nr_unwind; i++)
		free((char *)w->unwind[i].path);
	w->nr_unwind = 0;
	w->nr_samples = w->nr_stacks = w->nr_frames = w->nr_comms = 0;
	w->nr_mappings = w->nr_losses = w->nr_binaries = w->nr_ksyms = w->nr_meta = 0;
	w->nr_ticks = 0;
	w->nr_offcpu = w->nr_offcpu_sum = w->nr_offcpu_loss = 0;
	rec_clear_cgroups(w, false);
	rec_clear_py_codes(w, false);
}

void writer__release(struct writer *w)
{
	clear_pending(w);
	ZSTD_freeCCtx(w->cctx);
	free(w->samples);
	free(w->stacks);
	free(w->frames);
	free(w->comms);
	free(w->mappings);
	file_table__release(&w->files);
	free(w->losses);
	free(w->ticks);
	free(w->binaries);
	free(w->ksyms);
	free(w->debuginfo);
	free(w->meta);
	free(w->unwind);
	free(w->offcpu);
	free(w->offcpu_sum);
	free(w->offcpu_loss);
	rec_clear_cgroups(w, true);
	rec_clear_py_codes(w, true);
	idset__release(&w->stack_ids);
	bytebuf__release(&w->stack_prefix);
	bytebuf__release(&w->stack_prefix_next);
	memset(w, 0, sizeof(*w));
}

static int commit(struct recording *rec, bool finishing, uint64_t keep_from_ns)
{
	size_t kept, written;
	int rc, err;

	err = check_writable(rec);
	if (err)
		return err;
	rc = sqlite3_exec(rec->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return rec_sql_error(rec, rc, "starting a commit");
	rec->w.mapping_chunk = 0;
	rec->w.files.written = rec->w.files.committed;	/* a rolled-back commit wrote none */
	err = write_samples(rec, finishing ? UINT64_MAX : keep_from_ns);
	err = err ?: write_rows(rec);	/* the mappings first: stacks refer to them */
	err = err ?: write_stacks(rec);
	err = err ?: write_blobs(rec);
	err = err ?: write_unwind(rec);
	err = err ?: write_offcpu(rec);
	err = err ?: rec_write_cgroups(rec);
	err = err ?: rec_write_py_codes(rec);
	err = err ?: write_meta(rec, finishing);
	if (!err) {
		rc = sqlite3_exec(rec->db, "COMMIT", NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			err = rec_sql_error(rec, rc, "committing recorded data");
	}
	if (err) {
		/* the file stays at the previous commit; the data stays buffered */
		if (!sqlite3_get_autocommit(rec->db))
			sqlite3_exec(rec->db, "ROLLBACK", NULL, NULL, NULL);
		rec->w.has_prefix_next = false;	/* its chunks were rolled back */
		return err;
	}
	kept = rec->w.samples_kept;
	written = rec->w.nr_samples - kept;
	clear_pending(&rec->w);
	if (kept) {	/* held back: the next commit's */
		memmove(rec->w.samples, rec->w.samples + written, kept * sizeof(*rec->w.samples));
		rec->w.nr_samples = kept;
	}
	rec->w.files.committed = rec->w.files.written;
	if (rec->w.has_prefix_next) {
		bytebuf__release(&rec->w.stack_prefix);
		rec->w.stack_prefix = rec->w.stack_prefix_next;
		memset(&rec->w.stack_prefix_next, 0, sizeof(rec->w.stack_prefix_next));
		rec->w.has_prefix_next = false;
	}
	if (finishing) {
		rec->w.finished = true;
		rec->finished = true;
	}
	return 0;
}

int recording__commit(struct recording *rec)
{
	return commit(rec, false, UINT64_MAX);
}

int recording__commit_before(struct recording *rec, uint64_t keep_from_ns)
{
	return commit(rec, false, keep_from_ns);
}

int recording__finish(struct recording *rec)
{
	return commit(rec, true, UINT64_MAX);
}
