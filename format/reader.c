// SPDX-License-Identifier: MIT
/*
 * format/reader.c - walking a recording's tables with callbacks.
 *
 * Nothing read from the file is trusted: every column's type and range is
 * checked, every BLOB is decompressed only after its declared size has been
 * checked against a cap, every count against the bytes that could hold it,
 * and every string for its length and for embedded NULs. A violation stops
 * the walk with -EBADMSG and one line naming the table and chunk (or row).
 * Decoding reuses one decompression buffer and one sample array, so reading
 * a million samples costs a few allocations, not a million.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/internal.h"
#include "util/log.h"
#include "util/vec.h"

/* Samples per chunk a reader accepts: four times what the writer makes. */
#define REC_READ_MAX_SAMPLES	(4 * REC_CHUNK_SAMPLES)

void reader__release(struct reader *r)
{
	ZSTD_freeDCtx(r->dctx);
	bytebuf__release(&r->buf);
	free(r->samples);
	free(r->frames);
	memset(r, 0, sizeof(*r));
}

/* --- checked column access ---------------------------------------------- */

static bool col_i64(sqlite3_stmt *st, int i, int64_t *out)
{
	if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
		return false;
	*out = sqlite3_column_int64(st, i);
	return true;
}

/* Any 64-bit pattern: addresses and times are stored reinterpreted as signed. */
static bool col_u64(sqlite3_stmt *st, int i, uint64_t *out)
{
	int64_t v;

	if (!col_i64(st, i, &v))
		return false;
	*out = (uint64_t)v;
	return true;
}

static bool col_range(sqlite3_stmt *st, int i, int64_t min, int64_t max, int64_t *out)
{
	return col_i64(st, i, out) && *out >= min && *out <= max;
}

static bool col_u32(sqlite3_stmt *st, int i, uint32_t *out)
{
	int64_t v;

	if (!col_range(st, i, 0, UINT32_MAX, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

/*
 * A counter (events or ns): an INTEGER in [0, REC_MAX_COUNT], added to
 * *sum, the table's running total, which must stay within it too. So no
 * count prints as 18446744073709551615 and no sum a view makes of a
 * table's counters (or of a few files' totals) can wrap.
 */
static bool col_count(sqlite3_stmt *st, int i, uint64_t *sum, uint64_t *out)
{
	int64_t v;

	if (!col_range(st, i, 0, (int64_t)REC_MAX_COUNT, &v) ||
	    (uint64_t)v > REC_MAX_COUNT - *sum)
		return false;
	*sum += (uint64_t)v;
	*out = (uint64_t)v;
	return true;
}

/* TEXT of at most max bytes without NULs. */
static bool col_text(sqlite3_stmt *st, int i, size_t max, const char **out)
{
	const char *s;
	size_t len;

	if (sqlite3_column_type(st, i) != SQLITE_TEXT)
		return false;
	s = (const char *)sqlite3_column_text(st, i);
	len = (size_t)sqlite3_column_bytes(st, i);
	if (!s || len > max || strlen(s) != len)
		return false;
	*out = s;
	return true;
}

/* A build-id: NULL (none) or a BLOB of 1..REC_BUILD_ID_MAX bytes. */
static bool col_build_id(sqlite3_stmt *st, int i, uint8_t *id, uint32_t *len)
{
	int type = sqlite3_column_type(st, i);
	int n;

	*len = 0;
	if (type == SQLITE_NULL)
		return true;
	if (type != SQLITE_BLOB)
		return false;
	n = sqlite3_column_bytes(st, i);
	if (n < 1 || n > REC_BUILD_ID_MAX)
		return false;
	memcpy(id, sqlite3_column_blob(st, i), (size_t)n);
	*len = (uint32_t)n;
	return true;
}

/* Decompresses column i (a BLOB, encoding enc) into r->buf. */
/*
 * A name read from r->buf that is longer than REC_NAME_CUT: cut there (at
 * a UTF-8 character boundary) with REC_NAME_CUT_MARK, in place, so that
 * every copy, line and page made of it stays small. The bytes after the
 * cut stay in the buffer, unread.
 */
static void cut_name(struct reader *r, const char **name)
{
	size_t len = strlen(*name), at = REC_NAME_CUT - (sizeof(REC_NAME_CUT_MARK) - 1);
	char *s = (char *)r->buf.data + (*name - (const char *)r->buf.data);

	if (len <= REC_NAME_CUT)
		return;
	while (at > 0 && ((unsigned char)s[at] & 0xc0) == 0x80)
		at--;
	memcpy(s + at, REC_NAME_CUT_MARK, sizeof(REC_NAME_CUT_MARK));
}

/* Steps a SELECT: 1 for a row, 0 at the end, or the errno (printed). */
static int step_row(struct recording *rec, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return rec_sql_error(rec, rc, what);
}

/* --- samples -------------------------------------------------------------- */

/*
 * Two sample_chunk rows with the same time range: a row copied, whose
 * samples would count twice. Chunks that only touch (a single-instant
 * chunk after one that ends at that instant) are told apart by their count.
 */
static int check_duplicate_chunks(struct recording *rec)
{
	sqlite3_stmt *st = NULL;
	int64_t a = 0, b = 0;
	int err;

	err = rec_prepare(rec, "SELECT min(id), max(id) FROM sample_chunk GROUP BY first_time, "
			       "last_time, nr_samples HAVING count(*) > 1 LIMIT 1",
			  "reading samples", &st);
	if (!err)
		err = step_row(rec, st, "reading samples");
	if (err == 1) {
		a = sqlite3_column_int64(st, 0);
		b = sqlite3_column_int64(st, 1);
		err = rec_damaged(rec, "sample_chunk chunks %" PRId64 " and %" PRId64 " are the same "
				  "(a copied row: its samples would count twice)", a, b);
	}
	sqlite3_finalize(st);
	return err;
}

/*
 * A chunk header against the rest of the file: within the recording's
 * span, and not reaching back into the time of the chunks before it by
 * more than the ring buffer's reordering (REC_CHUNK_OVERLAP_NS). *reach is
 * the latest time of the chunks so far.
 */
static int check_chunk_times(struct recording *rec, int64_t id, uint64_t first, uint64_t last,
			     uint64_t *reach)
{
	if (rec->has_start && first < rec->span_start)
		return rec_damaged(rec, "sample_chunk chunk %" PRId64 ": a sample at %" PRIu64 " ns, "
				   "before the recording's start_ns %" PRIu64, id, first,
				   rec->span_start);
	if (rec->has_end && last > rec->span_end)
		return rec_damaged(rec, "sample_chunk chunk %" PRId64 ": a sample at %" PRIu64 " ns, "
				   "after the recording's end_ns %" PRIu64, id, last, rec->span_end);
	if (*reach > REC_CHUNK_OVERLAP_NS && first < *reach - REC_CHUNK_OVERLAP_NS)
		return rec_damaged(rec, "sample_chunk chunk %" PRId64 ": starts at %" PRIu64 " ns, "
				   "inside the time of an earlier chunk (up to %" PRIu64 " ns)", id,
				   first, *reach);
	if (last > *reach)
		*reach = last;
	return 0;
}

/* One decoded sample against the file's CPU count and the kernel's pid limit. */
static bool sample_ok(const struct recording *rec, const struct rec_sample *s)
{
	return (!rec->nr_cpus || s->cpu < rec->nr_cpus) && s->tgid <= REC_MAX_PID &&
	       s->tid <= REC_MAX_PID;
}

int recording__for_each_sample(struct recording *rec, rec_sample_fn fn, void *ctx)
{
	struct reader *r = &rec->r;
	sqlite3_stmt *st = NULL;
	int64_t id, n, enc;
	uint64_t first, last, reach = 0;
	size_t i;
	int err;

	err = check_duplicate_chunks(rec);
	if (!err)
		err = rec_prepare(rec, "SELECT id, first_time, last_time, nr_samples, encoding, "
				       "data FROM sample_chunk ORDER BY id", "reading samples", &st);
	while (!err && (err = step_row(rec, st, "reading samples")) == 1) {
		err = 0;
		if (!col_i64(st, 0, &id) || !col_u64(st, 1, &first) || !col_u64(st, 2, &last) ||
		    !col_range(st, 3, 1, REC_READ_MAX_SAMPLES, &n) || !col_i64(st, 4, &enc) ||
		    last < first) {
			err = rec_damaged(rec, "sample_chunk row: bad header");
			break;
		}
		err = check_chunk_times(rec, id, first, last, &reach);
		if (err)
			break;
		err = rec_unzstd_column(rec, st, 5, enc, "sample_chunk", id);
		if (err)
			break;
		if ((uint64_t)n > r->buf.len / 5) {
			err = rec_damaged(rec, "sample_chunk chunk %" PRId64 ": %" PRId64
					  " samples cannot fit in %zu bytes", id, n, r->buf.len);
			break;
		}
		if (vec__grow(&r->samples, &r->cap_samples, (size_t)n,
				sizeof(*r->samples))) {
			err = pr_errno(-ENOMEM, "'%s': reading samples", rec->path);
			break;
		}
		if (codec__decode_samples(r->buf.data, r->buf.len, first, r->samples, (size_t)n) ||
		    r->samples[0].time_ns != first || r->samples[n - 1].time_ns != last) {
			err = rec_damaged(rec, "sample_chunk chunk %" PRId64 ": samples do not "
					  "decode to the %" PRId64 " in its header", id, n);
			break;
		}
		/* all of them first: a damaged chunk hands none of its samples on */
		for (i = 0; i < (size_t)n && sample_ok(rec, &r->samples[i]); i++)
			;
		if (i < (size_t)n) {
			err = rec_damaged(rec, "sample_chunk chunk %" PRId64 ": sample %zu has CPU %"
					  PRIu32 " (the recording has %" PRIu32 "), pid %" PRIu32
					  ", tid %" PRIu32, id, i, r->samples[i].cpu, rec->nr_cpus,
					  r->samples[i].tgid, r->samples[i].tid);
			break;
		}
		for (i = 0; i < (size_t)n && !err; i++)
			err = fn(ctx, &r->samples[i]);
	}
	sqlite3_finalize(st);
	return err;
}

int recording__sample_count(struct recording *rec, uint64_t *out)
{
	sqlite3_stmt *st = NULL;
	uint64_t total = 0;
	int64_t n;
	int err;

	err = rec_prepare(rec, "SELECT nr_samples FROM sample_chunk", "counting samples", &st);
	while (!err && (err = step_row(rec, st, "counting samples")) == 1) {
		err = 0;
		if (!col_range(st, 0, 1, REC_READ_MAX_SAMPLES, &n)) {
			err = rec_damaged(rec, "sample_chunk row: bad sample count");
			break;
		}
		total += (uint64_t)n;
	}
	sqlite3_finalize(st);
	if (!err)
		*out = total;
	return err;
}

/* --- stacks --------------------------------------------------------------- */

/* Decodes one chunk in r->buf and hands each stack to fn (see internal.h). */
/*
 * A user frame of encoding 2 (see writer.c): 0 then a delta from the
 * previous user frame, or a mapping row (a delta from the previous one,
 * plus one) and the offset from that mapping's start. -EBADMSG.
 */
static int read_user_frame(struct cursor *c, const uint64_t *bases, size_t nr_bases,
			   uint64_t *prev, uint64_t *prev_row)
{
	uint64_t t, v;
	int64_t d;

	if (cursor__varint(c, &t) || cursor__varint(c, &v))
		return -EBADMSG;
	if (!t) {
		*prev += (uint64_t)codec__unzigzag(v);
		return 0;
	}
	d = codec__unzigzag(t - 1);
	if (d < -(int64_t)*prev_row || (d >= 0 && (uint64_t)d >= nr_bases - *prev_row))
		return -EBADMSG;
	*prev_row += (uint64_t)d;
	*prev = bases[*prev_row] + v;
	return 0;
}

int rec_read_stack_chunk(struct recording *rec, int64_t id, uint32_t first_id,
			 uint32_t last_id, int64_t n, const uint64_t *bases, size_t nr_bases,
			 struct idset *seen, rec_stack_fn fn, void *ctx)
{
	struct reader *r = &rec->r;
	struct cursor c;
	struct rec_stack s;
	uint64_t prev_k = 0, prev_u = 0, prev_row = 0, v, nk, nu, cur = first_id;
	int64_t i;
	size_t j;
	int err;

	cursor__init(&c, r->buf.data, r->buf.len);
	if ((uint64_t)n > r->buf.len / 3)
		return rec_damaged(rec, "stack_chunk chunk %" PRId64 ": %" PRId64 " stacks cannot "
				   "fit in %zu bytes", id, n, r->buf.len);
	for (i = 0; i < n; i++) {
		if (cursor__varint(&c, &v) || (i > 0 && v == 0) || v > (uint64_t)last_id - cur)
			return rec_damaged(rec, "stack_chunk chunk %" PRId64 ": bad stack id", id);
		cur += v;
		if (cursor__varint_max(&c, REC_MAX_FRAMES, &nk) ||
		    cursor__varint_max(&c, REC_MAX_FRAMES - nk, &nu) ||
		    nk + nu > cursor__left(&c))
			return rec_damaged(rec, "stack_chunk chunk %" PRId64 ": stack %" PRIu64
					   ": bad frame count", id, cur);
		for (j = 0; j < nk + nu; j++) {
			uint64_t *prev = j < nk ? &prev_k : &prev_u;

			if (j >= nk && bases)
				err = read_user_frame(&c, bases, nr_bases, prev, &prev_row);
			else if (!(err = cursor__varint(&c, &v)))
				*prev += (uint64_t)codec__unzigzag(v);
			if (err)
				return rec_damaged(rec, "stack_chunk chunk %" PRId64 ": stack %"
						   PRIu64 ": truncated or bad frames", id, cur);
			r->frames[j] = *prev;
		}
		err = idset__add(seen, (uint32_t)cur);
		if (err < 0)
			return pr_errno(err, "'%s': reading stacks", rec->path);
		if (err == 0)
			return rec_damaged(rec, "stack_chunk chunk %" PRId64 ": stack id %" PRIu64
					   " appears twice", id, cur);
		s.id = (uint32_t)cur;
		s.nr_kernel = (uint32_t)nk;
		s.nr_user = (uint32_t)nu;
		s.frames = r->frames;
		err = fn(ctx, &s);
		if (err)
			return err;
	}
	if (cur != last_id || cursor__left(&c))
		return rec_damaged(rec, "stack_chunk chunk %" PRId64 ": does not end as its header "
				   "says", id);
	return 0;
}

int recording__for_each_stack(struct recording *rec, rec_stack_fn fn, void *ctx)
{
	struct reader *r = &rec->r;
	static const uint64_t no_bases[1];
	struct idset seen = { 0 };
	struct rec_bases bases = { 0 };
	struct bytebuf prev = { 0 }, tmp;
	sqlite3_stmt *st = NULL;
	int64_t id, n, enc;
	uint32_t first_id, last_id;
	int err;

	if (vec__grow(&r->frames, &r->cap_frames, REC_MAX_FRAMES, sizeof(*r->frames)))
		return pr_errno(-ENOMEM, "'%s': reading stacks", rec->path);
	err = rec_prepare(rec, "SELECT id, first_id, last_id, nr_stacks, encoding, data "
			       "FROM stack_chunk ORDER BY id", "reading stacks", &st);
	while (!err && (err = step_row(rec, st, "reading stacks")) == 1) {
		err = 0;
		if (!col_i64(st, 0, &id) || !col_u32(st, 1, &first_id) ||
		    !col_u32(st, 2, &last_id) || !col_range(st, 3, 1, INT32_MAX, &n) ||
		    !col_i64(st, 4, &enc) || last_id < first_id) {
			err = rec_damaged(rec, "stack_chunk row: bad header");
			break;
		}
		if (enc == REC_ENCODING_STACKS_V2 && rec->has_mapping_chunks) {
			/* prefixed by the chunk before; led by the mapping chunk coded by */
			err = rec_unzstd_prefixed(rec, st, 5, &prev, "stack_chunk", id);
			err = err ?: rec_load_bases(rec, id, &bases);
			if (!err)
				err = rec_read_stack_chunk(rec, id, first_id, last_id, n,
							   bases.chunk ? bases.starts : no_bases,
							   bases.chunk ? bases.nr : 0, &seen, fn, ctx);
		} else {
			err = rec_unzstd_column(rec, st, 5, enc, "stack_chunk", id);
			if (!err)
				err = rec_read_stack_chunk(rec, id, first_id, last_id, n, NULL, 0,
							   &seen, fn, ctx);
		}
		/* this chunk's stacks are the next one's prefix */
		tmp = prev;
		prev = r->buf;
		r->buf = tmp;
	}
	sqlite3_finalize(st);
	free(bases.starts);
	bytebuf__release(&prev);
	idset__release(&seen);
	return err;
}

/* --- plain rows ----------------------------------------------------------- */

int recording__for_each_comm(struct recording *rec, rec_comm_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_comm c;
	const char *name;
	int64_t row;
	int err;

	err = rec_prepare(rec, "SELECT rowid, time, tgid, tid, comm FROM comm ORDER BY rowid",
			  "reading comms", &st);
	while (!err && (err = step_row(rec, st, "reading comms")) == 1) {
		err = 0;
		memset(&c, 0, sizeof(c));
		row = sqlite3_column_int64(st, 0);
		if (!col_u64(st, 1, &c.time_ns) ||
		    !col_u32(st, 2, &c.tgid) || !col_u32(st, 3, &c.tid) ||
		    !col_text(st, 4, REC_COMM_LEN - 1, &name) || c.tgid > REC_MAX_PID ||
		    c.tid > REC_MAX_PID) {
			err = rec_damaged(rec, "comm row %" PRId64 ": bad value", row);
			break;
		}
		memcpy(c.comm, name, strlen(name) + 1);
		err = fn(ctx, &c);
	}
	sqlite3_finalize(st);
	/* v1 files have only rows; v2 writers put their names in chunks */
	if (!err && rec->has_comm_chunks)
		err = rec_read_comm_chunks(rec, fn, ctx);
	return err;
}

int recording__for_each_mapping(struct recording *rec, rec_mapping_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_mapping m;
	int64_t row;
	int err;

	err = rec_prepare(rec, "SELECT rowid, time, tgid, start_addr, end_addr, pgoff, path, "
			       "build_id FROM mapping ORDER BY rowid", "reading mappings", &st);
	while (!err && (err = step_row(rec, st, "reading mappings")) == 1) {
		err = 0;
		memset(&m, 0, sizeof(m));
		row = sqlite3_column_int64(st, 0);
		if (!col_u64(st, 1, &m.time_ns) || !col_u32(st, 2, &m.tgid) ||
		    !col_u64(st, 3, &m.start) || !col_u64(st, 4, &m.end) ||
		    !col_u64(st, 5, &m.pgoff) || !col_text(st, 6, REC_MAX_PATH, &m.path) ||
		    !col_build_id(st, 7, m.build_id, &m.build_id_len) || m.end <= m.start ||
		    m.end - m.start > REC_MAX_MAPPING || m.tgid > REC_MAX_PID) {
			err = rec_damaged(rec, "mapping row %" PRId64 ": bad value", row);
			break;
		}
		err = fn(ctx, &m);
	}
	sqlite3_finalize(st);
	/* v1 files have only rows; v2 writers put their mappings in chunks */
	if (!err && rec->has_mapping_chunks)
		err = rec_read_mapping_chunks(rec, fn, ctx);
	return err;
}

int recording__for_each_loss(struct recording *rec, rec_loss_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_loss l;
	uint64_t sum = 0;
	int64_t row;
	int err;

	err = rec_prepare(rec, "SELECT rowid, time, cpu, lost_samples, lost_ustacks, "
			       "lost_kstacks, truncated_stacks, lost_sideband FROM loss "
			       "ORDER BY rowid", "reading loss counts", &st);
	while (!err && (err = step_row(rec, st, "reading loss counts")) == 1) {
		err = 0;
		memset(&l, 0, sizeof(l));
		row = sqlite3_column_int64(st, 0);
		if (!col_u64(st, 1, &l.time_ns) || !col_u32(st, 2, &l.cpu) ||
		    !col_count(st, 3, &sum, &l.lost_samples) ||
		    !col_count(st, 4, &sum, &l.lost_ustacks) ||
		    !col_count(st, 5, &sum, &l.lost_kstacks) ||
		    !col_count(st, 6, &sum, &l.truncated_stacks) ||
		    !col_count(st, 7, &sum, &l.lost_sideband) || (rec->nr_cpus && l.cpu >= rec->nr_cpus)) {
			err = rec_damaged(rec, "loss row %" PRId64 ": bad value", row);
			break;
		}
		err = fn(ctx, &l);
	}
	sqlite3_finalize(st);
	return err;
}

int recording__for_each_unwind(struct recording *rec, rec_unwind_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_unwind u;
	uint64_t sum = 0;
	int64_t row;
	int err, c;
	size_t j;
	bool ok;

	if (rec->version < 2)
		return 0;	/* v1: not recorded */
	err = rec_prepare(rec, "SELECT rowid, build_id, path, walks, frames_table, frames_fp, "
			       "fb_no_table, fb_no_cfi, fb_no_vma, stop_end, stop_zero, stop_depth, "
			       "stop_unreadable, stop_bad_sp, stop_no_table, stop_no_cfi, "
			       "stop_no_regs, table_rows, table_bytes, build_ns FROM unwind "
			       "ORDER BY path != '', rowid", "reading unwind counts", &st);
	while (!err && (err = step_row(rec, st, "reading unwind counts")) == 1) {
		err = 0;
		memset(&u, 0, sizeof(u));
		row = sqlite3_column_int64(st, 0);
		c = 3;
		ok = col_build_id(st, 1, u.build_id, &u.build_id_len) &&
		     col_text(st, 2, REC_MAX_PATH, &u.path) && col_count(st, c++, &sum, &u.walks) &&
		     col_count(st, c++, &sum, &u.frames_table) &&
		     col_count(st, c++, &sum, &u.frames_fp);
		for (j = 0; ok && j < REC_UNW_FB_MAX; j++)
			ok = col_count(st, c++, &sum, &u.fallback[j]);
		for (j = 0; ok && j < REC_UNW_STOP_MAX; j++)
			ok = col_count(st, c++, &sum, &u.stop[j]);
		ok = ok && col_count(st, c++, &sum, &u.table_rows) &&
		     col_count(st, c++, &sum, &u.table_bytes) && col_count(st, c, &sum, &u.build_ns);
		if (!ok) {
			err = rec_damaged(rec, "unwind row %" PRId64 ": bad value", row);
			break;
		}
		err = fn(ctx, &u);
	}
	sqlite3_finalize(st);
	return err;
}

bool recording__has_ticks(const struct recording *rec)
{
	return rec->version >= 2;
}

#define TICKS_MAX_CPU	65535

/* Per CPU, what its rows kept and fired so far: only the sums must hold kept <= fired. */
struct kept_fired {
	uint64_t kept, fired;
};

void rec_ticks__add(struct rec_ticks *sum, const struct rec_ticks *t)
{
	if (!sum->period_ns) {
		sum->cpu = t->cpu;
		sum->period_ns = t->period_ns;
	}
	sum->time_ns = t->time_ns;
	sum->enabled_ns += t->enabled_ns;
	sum->throttled_ns += t->throttled_ns;
	sum->throttles += t->throttles;
	sum->fired += t->fired;
	sum->kept += t->kept;
}

void rec_ticks__explain(const struct rec_ticks *sum, struct tick_breakdown *out)
{
	uint64_t half = sum->period_ns / 2, expected = 0, throttled = 0, missed = 0;

	if (sum->period_ns) {
		/* nearest: a clock enabled for 3 s at 100 us fires 29997 +- 1 times */
		expected = (sum->enabled_ns + half) / sum->period_ns;
		throttled = (sum->throttled_ns + half) / sum->period_ns;
	}
	/* Rounding and the reads' own skew may make fired + throttled overshoot. */
	if (throttled > expected)
		throttled = expected;
	if (sum->fired + throttled < expected)
		missed = expected - throttled - sum->fired;
	else if (sum->fired > expected)
		expected = sum->fired + throttled;
	else
		throttled = expected - sum->fired;
	out->expected += expected;
	out->throttled += throttled;
	out->missed += missed;
	out->fired += sum->fired;
	out->kept += sum->kept < sum->fired ? sum->kept : sum->fired;
	out->throttles += sum->throttles;
}

int recording__for_each_ticks(struct recording *rec, rec_ticks_fn fn, void *ctx)
{
	struct kept_fired *sums = NULL;
	sqlite3_stmt *st = NULL;
	struct rec_ticks t;
	size_t nr_sums = 0, i;
	uint64_t sum = 0;
	int64_t period;
	int64_t row;
	int err;

	if (!recording__has_ticks(rec))
		return 0;
	err = rec_prepare(rec, "SELECT rowid, time, cpu, period_ns, enabled_ns, throttled_ns, "
			       "throttles, fired, kept FROM ticks ORDER BY rowid",
			  "reading tick counts", &st);
	while (!err && (err = step_row(rec, st, "reading tick counts")) == 1) {
		err = 0;
		memset(&t, 0, sizeof(t));
		row = sqlite3_column_int64(st, 0);
		if (!col_u64(st, 1, &t.time_ns) || !col_u32(st, 2, &t.cpu) ||
		    !col_range(st, 3, 1, REC_MAX_PERIOD_NS, &period) ||
		    !col_count(st, 4, &sum, &t.enabled_ns) ||
		    !col_count(st, 5, &sum, &t.throttled_ns) ||
		    !col_count(st, 6, &sum, &t.throttles) || !col_count(st, 7, &sum, &t.fired) ||
		    !col_count(st, 8, &sum, &t.kept) ||
		    t.throttled_ns > t.enabled_ns || t.cpu > TICKS_MAX_CPU ||
		    (rec->nr_cpus && t.cpu >= rec->nr_cpus)) {
			err = rec_damaged(rec, "ticks row %" PRId64 ": bad value", row);
			break;
		}
		t.period_ns = (uint64_t)period;
		if (t.cpu >= nr_sums) {
			size_t was = nr_sums;

			err = vec__grow(&sums, &nr_sums, (size_t)t.cpu + 1, sizeof(*sums));
			if (err) {
				err = pr_errno(err, "cannot read '%s'", rec->path);
				break;
			}
			memset(sums + was, 0, (nr_sums - was) * sizeof(*sums));
		}
		/* a sample may be kept in the row after the one its tick fired in */
		sums[t.cpu].kept += t.kept;
		sums[t.cpu].fired += t.fired;
		if (sums[t.cpu].kept < t.kept || sums[t.cpu].fired < t.fired) {
			err = rec_damaged(rec, "ticks row %" PRId64 ": counts overflow", row);
			break;
		}
		err = fn(ctx, &t);
	}
	sqlite3_finalize(st);
	for (i = 0; !err && i < nr_sums; i++)
		if (sums[i].kept > sums[i].fired)
			err = rec_damaged(rec, "ticks of CPU %zu: more samples kept than ticks fired", i);
	free(sums);
	return err;
}


struct tick_sums {
	struct rec_ticks *cpu;		/* indexed by CPU */
	size_t nr;
	bool any;
	bool oom;
};

static int add_tick_row(void *ctx, const struct rec_ticks *t)
{
	struct tick_sums *ts = ctx;
	struct rec_ticks *n;
	size_t want = (size_t)t->cpu + 1;

	if (t->cpu > TICKS_MAX_CPU)
		return -ERANGE;
	if (want > ts->nr) {
		n = reallocarray(ts->cpu, want, sizeof(*n));
		if (!n) {
			ts->oom = true;
			return -ENOMEM;
		}
		memset(n + ts->nr, 0, (want - ts->nr) * sizeof(*n));
		ts->cpu = n;
		ts->nr = want;
	}
	rec_ticks__add(&ts->cpu[t->cpu], t);
	ts->any = true;
	return 0;
}

int recording__tick_breakdown(struct recording *rec, struct tick_breakdown *out)
{
	struct tick_sums ts = { 0 };
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	err = recording__for_each_ticks(rec, add_tick_row, &ts);
	if (err == -ERANGE)
		err = rec_damaged(rec, "ticks: a CPU number above %d", TICKS_MAX_CPU);
	else if (ts.oom)
		err = pr_errno(err, "cannot read '%s'", rec->path);
	for (i = 0; !err && i < ts.nr; i++)
		if (ts.cpu[i].period_ns)
			rec_ticks__explain(&ts.cpu[i], out);
	free(ts.cpu);
	if (!err && !ts.any)
		err = -ENOENT;
	return err;
}

/* --- symbol tables -------------------------------------------------------- */

/* Decodes the binary in r->buf into b (arrays malloc'd; names point into r->buf). */
int rec_decode_binary(struct reader *r, struct rec_binary *b, struct rec_segment **segs,
		      struct rec_symbol **syms)
{
	struct cursor c;
	uint64_t nseg, nsym, addr = 0, v;
	size_t i;

	cursor__init(&c, r->buf.data, r->buf.len);
	if (cursor__varint_max(&c, cursor__left(&c) / 3, &nseg) || nseg > REC_MAX_SEGMENTS)
		return -EBADMSG;
	*segs = calloc(nseg ? nseg : 1, sizeof(**segs));
	if (!*segs)
		return -ENOMEM;
	for (i = 0; i < nseg; i++) {
		if (cursor__varint(&c, &(*segs)[i].offset) || cursor__varint(&c, &(*segs)[i].vaddr) ||
		    cursor__varint(&c, &(*segs)[i].filesz))
			return -EBADMSG;
	}
	if (cursor__varint_max(&c, cursor__left(&c) / 4, &nsym) || nsym > REC_MAX_SYMBOLS)
		return -EBADMSG;
	*syms = calloc(nsym ? nsym : 1, sizeof(**syms));
	if (!*syms)
		return -ENOMEM;
	for (i = 0; i < nsym; i++) {
		struct rec_symbol *s = &(*syms)[i];

		if (cursor__varint(&c, &v) || v > UINT64_MAX - addr)
			return -EBADMSG;
		addr += v;
		s->addr = addr;
		if (cursor__varint(&c, &s->size) || cursor__string(&c, REC_MAX_NAME, &s->name))
			return -EBADMSG;
		cut_name(r, &s->name);
	}
	if (cursor__left(&c))
		return -EBADMSG;
	b->nr_segments = nseg;
	b->segments = *segs;
	b->nr_symbols = nsym;
	b->symbols = *syms;
	return 0;
}

/*
 * The data of a binary row (column col of st, in table) decoded into b and
 * handed to fn; the row's other columns are b's already.
 */
static int hand_binary(struct recording *rec, sqlite3_stmt *st, int col, int64_t enc,
		       const char *table, int64_t id, struct rec_binary *b, rec_binary_fn fn,
		       void *ctx)
{
	struct rec_segment *segs = NULL;
	struct rec_symbol *syms = NULL;
	int err;

	err = rec_unzstd_column(rec, st, col, enc, table, id);
	if (err)
		return err;
	err = rec_decode_binary(&rec->r, b, &segs, &syms);
	if (err == -ENOMEM)
		err = pr_errno(err, "'%s': reading symbols", rec->path);
	else if (err)
		err = rec_damaged(rec, "%s chunk %" PRId64 ": bad segments or symbols", table, id);
	if (!err)
		err = fn(ctx, b);
	free(segs);
	free(syms);
	return err;
}

/* v2's binary_chunk rows: as binary rows, their path and build-id those of a mapped file. */
static int read_binary_chunks(struct recording *rec, rec_binary_fn fn, void *ctx)
{
	struct file_list files = { 0 };
	const struct mapped_file *f;
	sqlite3_stmt *st = NULL;
	struct rec_binary b;
	int64_t id, file, enc;
	int err;

	if (!rec->has_binary_chunks)
		return 0;
	err = file_list__load(rec, &files);
	err = err ?: rec_prepare(rec, "SELECT id, file, source, encoding, data FROM binary_chunk "
				      "ORDER BY id", "reading symbols", &st);
	while (!err && (err = step_row(rec, st, "reading symbols")) == 1) {
		err = 0;
		memset(&b, 0, sizeof(b));
		if (!col_i64(st, 0, &id) || !col_i64(st, 1, &file) || file < 1 ||
		    file > UINT32_MAX || !(f = file_list__find(&files, (uint32_t)file)) ||
		    !col_text(st, 2, REC_MAX_PATH, &b.source) || !col_i64(st, 3, &enc)) {
			err = rec_damaged(rec, "binary_chunk row: bad value or no such file");
			break;
		}
		b.path = f->path;
		memcpy(b.build_id, f->build_id, f->build_id_len);
		b.build_id_len = f->build_id_len;
		err = hand_binary(rec, st, 4, enc, "binary_chunk", id, &b, fn, ctx);
	}
	sqlite3_finalize(st);
	file_list__release(&files);
	return err;
}

int recording__for_each_binary(struct recording *rec, rec_binary_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_binary b;
	int64_t id, enc;
	int err;

	err = rec_prepare(rec, "SELECT id, build_id, path, source, encoding, data FROM binary "
			       "ORDER BY id", "reading symbols", &st);
	while (!err && (err = step_row(rec, st, "reading symbols")) == 1) {
		err = 0;
		memset(&b, 0, sizeof(b));
		if (!col_i64(st, 0, &id) || !col_build_id(st, 1, b.build_id, &b.build_id_len) ||
		    !col_text(st, 2, REC_MAX_PATH, &b.path) ||
		    !col_text(st, 3, REC_MAX_PATH, &b.source) || !col_i64(st, 4, &enc)) {
			err = rec_damaged(rec, "binary row: bad value");
			break;
		}
		err = hand_binary(rec, st, 5, enc, "binary", id, &b, fn, ctx);
	}
	sqlite3_finalize(st);
	return err ?: read_binary_chunks(rec, fn, ctx);
}

int rec_read_ksym_chunk(struct recording *rec, int64_t id, int64_t n, rec_ksym_fn fn,
			void *ctx)
{
	struct cursor c;
	struct rec_ksym k;
	uint64_t addr = 0, v, size;
	int64_t i;
	int err;

	cursor__init(&c, rec->r.buf.data, rec->r.buf.len);
	if ((uint64_t)n > cursor__left(&c) / 4)
		return rec_damaged(rec, "ksym_chunk chunk %" PRId64 ": %" PRId64 " symbols cannot "
				   "fit in %zu bytes", id, n, cursor__left(&c));
	for (i = 0; i < n; i++) {
		if (cursor__varint(&c, &v) || cursor__varint(&c, &size))
			return rec_damaged(rec, "ksym_chunk chunk %" PRId64 ": truncated", id);
		addr += (uint64_t)codec__unzigzag(v);
		if (size > UINT64_MAX - addr ||
		    cursor__string(&c, REC_MAX_NAME, &k.name) ||
		    cursor__string(&c, REC_MAX_PATH, &k.module))
			return rec_damaged(rec, "ksym_chunk chunk %" PRId64 ": bad symbol", id);
		cut_name(&rec->r, &k.name);
		k.addr = addr;
		k.end = addr + size;
		if (!k.module[0])
			k.module = NULL;
		err = fn(ctx, &k);
		if (err)
			return err;
	}
	if (cursor__left(&c))
		return rec_damaged(rec, "ksym_chunk chunk %" PRId64 ": bytes after its %" PRId64
				   " symbols", id, n);
	return 0;
}

int recording__for_each_ksym(struct recording *rec, rec_ksym_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	int64_t id, n, enc;
	int err;

	err = rec_prepare(rec, "SELECT id, nr_syms, encoding, data FROM ksym_chunk ORDER BY id",
			  "reading kernel symbols", &st);
	while (!err && (err = step_row(rec, st, "reading kernel symbols")) == 1) {
		err = 0;
		if (!col_i64(st, 0, &id) || !col_range(st, 1, 1, INT32_MAX, &n) ||
		    !col_i64(st, 2, &enc)) {
			err = rec_damaged(rec, "ksym_chunk row: bad header");
			break;
		}
		err = rec_unzstd_column(rec, st, 3, enc, "ksym_chunk", id);
		if (!err)
			err = rec_read_ksym_chunk(rec, id, n, fn, ctx);
	}
	sqlite3_finalize(st);
	return err;
}

/* --- embedded DWARF ------------------------------------------------------- */

int recording__has_debuginfo(struct recording *rec, const uint8_t *build_id, uint32_t len)
{
	sqlite3_stmt *st = NULL;
	int err;

	if (!rec->has_debuginfo || !len || len > REC_BUILD_ID_MAX)
		return 0;
	err = rec_prepare(rec, "SELECT 1 FROM debuginfo WHERE build_id = ? LIMIT 1",
			  "reading DWARF", &st);
	if (err)
		return err;
	sqlite3_bind_blob(st, 1, build_id, (int)len, SQLITE_STATIC);
	err = step_row(rec, st, "reading DWARF");
	sqlite3_finalize(st);
	return err;
}

int recording__get_debuginfo(struct recording *rec, const uint8_t *build_id, uint32_t len,
			     void **data, size_t *size)
{
	struct bytebuf out = { 0 };
	sqlite3_stmt *st = NULL;
	const void *blob;
	int64_t row, enc, want;
	int n, err;

	if (!rec->has_debuginfo || !len || len > REC_BUILD_ID_MAX)
		return -ENOENT;
	err = rec_prepare(rec, "SELECT rowid, encoding, size, data FROM debuginfo "
			       "WHERE build_id = ? ORDER BY rowid LIMIT 1", "reading DWARF", &st);
	if (err)
		return err;
	sqlite3_bind_blob(st, 1, build_id, (int)len, SQLITE_STATIC);
	err = step_row(rec, st, "reading DWARF");
	if (err <= 0) {
		err = err ?: -ENOENT;
		goto out;
	}
	row = sqlite3_column_int64(st, 0);
	if (!col_i64(st, 1, &enc) || !col_range(st, 2, 1, REC_DEBUGINFO_MAX, &want) ||
	    enc != REC_ENCODING_ZSTD_V1 || sqlite3_column_type(st, 3) != SQLITE_BLOB) {
		err = rec_damaged(rec, "debuginfo row %" PRId64 ": bad value", row);
		goto out;
	}
	blob = sqlite3_column_blob(st, 3);
	n = sqlite3_column_bytes(st, 3);
	if (!blob && n) {
		err = rec_sql_error(rec, sqlite3_errcode(rec->db), "reading a BLOB");
		goto out;
	}
	/* the frame may not declare more than the row does: nothing larger is allocated */
	err = codec__zstd_decompress(rec->r.dctx, blob, (size_t)n, (size_t)want, &out);
	if (!err && out.len != (size_t)want)
		err = -EBADMSG;
	if (err == -ENOMEM)
		err = pr_errno(err, "'%s': reading DWARF", rec->path);
	else if (err)
		err = rec_damaged(rec, "debuginfo row %" PRId64 ": bad or oversized zstd frame, "
				  "or not the %" PRId64 " bytes its size says", row, want);
	if (!err) {
		*data = out.data;
		*size = out.len;
		out.data = NULL;
	}
out:
	bytebuf__release(&out);
	sqlite3_finalize(st);
	return err;
}

/* --- off-CPU (v2) ----------------------------------------------------------- */

bool recording__has_offcpu(const struct recording *rec)
{
	return rec->version >= 2 && rec->has_offcpu_tables && rec->offcpu_thresh_ns;
}

uint64_t recording__offcpu_thresh_ns(const struct recording *rec)
{
	return recording__has_offcpu(rec) ? rec->offcpu_thresh_ns : 0;
}

/* [t, t + d] within the recording's span, where the metadata gives it. */
static bool within_span(const struct recording *rec, uint64_t t, uint64_t d)
{
	if (t + d < t)
		return false;
	if (rec->has_start && t < rec->span_start)
		return false;
	return !rec->has_end || t + d <= rec->span_end;
}

/* An interval may begin before the span when the file says so (REC_META_OFFCPU_SINCE). */
static bool offcpu_ok(const struct recording *rec, const struct rec_offcpu *o)
{
	uint64_t t = o->time_ns, d = o->duration_ns;

	if (rec->has_start && t < rec->span_start && t >= rec->offcpu_since && t + d > t) {
		d -= rec->span_start - t < d ? rec->span_start - t : d;
		t = rec->span_start;
	}
	return o->duration_ns && o->state < REC_OFFCPU_STATES && within_span(rec, t, d) &&
	       (!rec->nr_cpus || o->cpu < rec->nr_cpus) && o->tgid <= REC_MAX_PID &&
	       o->tid <= REC_MAX_PID;
}

int recording__for_each_offcpu(struct recording *rec, rec_offcpu_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_offcpu o;
	uint64_t prev_end = 0, sum = 0;
	uint32_t prev_tid = 0;
	bool any = false;
	int64_t row;
	int err;

	if (!recording__has_offcpu(rec))
		return 0;
	err = rec_prepare(rec, "SELECT rowid, time, duration, tgid, tid, cpu, state, stack_id "
			       "FROM offcpu ORDER BY tid, time, rowid", "reading off-CPU intervals",
			  &st);
	while (!err && (err = step_row(rec, st, "reading off-CPU intervals")) == 1) {
		err = 0;
		memset(&o, 0, sizeof(o));
		row = sqlite3_column_int64(st, 0);
		if (!col_u64(st, 1, &o.time_ns) || !col_count(st, 2, &sum, &o.duration_ns) ||
		    !col_u32(st, 3, &o.tgid) || !col_u32(st, 4, &o.tid) || !col_u32(st, 5, &o.cpu) ||
		    !col_u32(st, 6, &o.state) || !col_u32(st, 7, &o.stack_id) ||
		    !offcpu_ok(rec, &o)) {
			err = rec_damaged(rec, "offcpu row %" PRId64 ": bad value", row);
			break;
		}
		/* one thread is off the CPU once at a time: an overlap is a copied row */
		if (any && o.tid == prev_tid && o.time_ns < prev_end) {
			err = rec_damaged(rec, "offcpu row %" PRId64 ": thread %" PRIu32 " is off "
					  "the CPU twice at once", row, o.tid);
			break;
		}
		any = true;
		prev_tid = o.tid;
		prev_end = o.time_ns + o.duration_ns;
		err = fn(ctx, &o);
	}
	sqlite3_finalize(st);
	return err;
}

int recording__for_each_offcpu_sum(struct recording *rec, rec_offcpu_sum_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_offcpu_sum o;
	uint64_t span = rec->has_start && rec->has_end ? rec->span_end - rec->span_start : 0;
	uint64_t sum = 0;
	int64_t row;
	int err;

	if (!recording__has_offcpu(rec))
		return 0;
	/* a flush sums each (thread, stack, state) once: a repeat is a copied row */
	err = rec_prepare(rec, "SELECT min(rowid) FROM offcpu_sum GROUP BY time, tid, state, "
			       "cpu, stack_id HAVING count(*) > 1 LIMIT 1", "reading off-CPU sums", &st);
	if (!err && (err = step_row(rec, st, "reading off-CPU sums")) == 1)
		err = rec_damaged(rec, "offcpu_sum row %lld: appears twice in one flush",
				  (long long)sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	st = NULL;
	if (!err)
		err = rec_prepare(rec, "SELECT rowid, time, tgid, tid, state, cpu, stack_id, "
				       "count, total_ns FROM offcpu_sum ORDER BY rowid",
				  "reading off-CPU sums", &st);
	while (!err && (err = step_row(rec, st, "reading off-CPU sums")) == 1) {
		err = 0;
		memset(&o, 0, sizeof(o));
		row = sqlite3_column_int64(st, 0);
		if (!col_u64(st, 1, &o.time_ns) || !col_u32(st, 2, &o.tgid) ||
		    !col_u32(st, 3, &o.tid) || !col_u32(st, 4, &o.state) ||
		    !col_u32(st, 5, &o.cpu) || !col_u32(st, 6, &o.stack_id) ||
		    !col_count(st, 7, &sum, &o.count) || !col_count(st, 8, &sum, &o.total_ns) ||
		    (!o.count && !o.total_ns) || (rec->nr_cpus && o.cpu >= rec->nr_cpus) ||
		    o.state >= REC_OFFCPU_STATES ||
		    o.tgid > REC_MAX_PID || o.tid > REC_MAX_PID || !within_span(rec, o.time_ns, 0) ||
		    (span && o.total_ns > span)) {
			err = rec_damaged(rec, "offcpu_sum row %" PRId64 ": bad value", row);
			break;
		}
		err = fn(ctx, &o);
	}
	sqlite3_finalize(st);
	return err;
}

static int add_offcpu_loss(void *ctx, const struct rec_offcpu_loss *l)
{
	struct rec_offcpu_loss *sum = ctx;

	sum->lost += l->lost;
	sum->lost_ns += l->lost_ns;
	sum->untracked += l->untracked;
	sum->lost_stacks += l->lost_stacks;
	return 0;
}

int recording__offcpu_loss_total(struct recording *rec, struct rec_offcpu_loss *out)
{
	memset(out, 0, sizeof(*out));
	return recording__for_each_offcpu_loss(rec, add_offcpu_loss, out);
}

int recording__for_each_offcpu_loss(struct recording *rec, rec_offcpu_loss_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_offcpu_loss l;
	uint64_t sum = 0;
	int64_t row;
	int err;

	if (!recording__has_offcpu(rec))
		return 0;
	err = rec_prepare(rec, "SELECT rowid, time, cpu, lost, lost_ns, untracked, lost_stacks "
			       "FROM offcpu_loss ORDER BY rowid", "reading off-CPU losses", &st);
	while (!err && (err = step_row(rec, st, "reading off-CPU losses")) == 1) {
		err = 0;
		memset(&l, 0, sizeof(l));
		row = sqlite3_column_int64(st, 0);
		if (!col_u64(st, 1, &l.time_ns) || !col_u32(st, 2, &l.cpu) ||
		    !col_count(st, 3, &sum, &l.lost) || !col_count(st, 4, &sum, &l.lost_ns) ||
		    !col_count(st, 5, &sum, &l.untracked) ||
		    !col_count(st, 6, &sum, &l.lost_stacks) ||
		    (rec->nr_cpus && l.cpu >= rec->nr_cpus)) {
			err = rec_damaged(rec, "offcpu_loss row %" PRId64 ": bad value", row);
			break;
		}
		err = fn(ctx, &l);
	}
	sqlite3_finalize(st);
	return err;
}
