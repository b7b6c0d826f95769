// SPDX-License-Identifier: MIT
/*
 * format/cgroup.c - which cgroup the threads ran in: the cgroup names
 * (table cgroup) and a change log per thread (thread_cgroup_chunk).
 *
 * A cgroup id per sample would cost bytes per sample for a value that
 * almost never changes, so the recorder stores a row only when a thread is
 * first seen in a file and when it moves; a reader looks a sample's thread
 * and time up in the log, as it does its thread name. On a fork storm that
 * is one row per process, so the rows are columnar and compressed like
 * mappings: the processes come in pid order and share one cgroup, so each
 * row costs about a byte.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/internal.h"
#include "util/log.h"
#include "util/vec.h"

/* Rows per chunk a reader accepts (a commit's worth is far less). */
#define REC_READ_MAX_THREAD_CGROUPS	(1u << 22)
/* Columns of a chunk: tgid, tid, time, cgroup. */
#define TCG_COLUMNS			4

static int oom(const struct recording *rec)
{
	return pr_errno(-ENOMEM, "'%s': buffering recorded data", rec->path);
}

static int check_adding(struct recording *rec)
{
	if (!rec->writable || rec->w.finished) {
		pr_err("'%s' is not open for adding cgroups", rec->path);
		return -EINVAL;
	}
	return 0;
}

int recording__add_cgroup(struct recording *rec, const struct rec_cgroup *c)
{
	struct writer *w = &rec->w;
	struct pending_cgroup *p;
	int err = check_adding(rec);

	if (err)
		return err;
	if (!c->id || c->id > INT64_MAX || !c->path || !c->path[0] ||
	    strlen(c->path) > REC_MAX_PATH) {
		pr_err("'%s': cgroup %" PRIu64 ": bad id or path", rec->path, c->id);
		return -EINVAL;
	}
	if (vec__grow(&w->cgroups, &w->cap_cgroups, w->nr_cgroups + 1,
			sizeof(*w->cgroups)))
		return oom(rec);
	p = &w->cgroups[w->nr_cgroups];
	p->id = c->id;
	p->path = strdup(c->path);
	if (!p->path)
		return oom(rec);
	w->nr_cgroups++;
	return 0;
}

int recording__add_thread_cgroup(struct recording *rec, const struct rec_thread_cgroup *t)
{
	struct writer *w = &rec->w;
	int err = check_adding(rec);

	if (err)
		return err;
	if (!t->cgroup_id || t->tgid > REC_MAX_PID || t->tid > REC_MAX_PID) {
		pr_err("'%s': cgroup row of thread %" PRIu32 ": bad value", rec->path, t->tid);
		return -EINVAL;
	}
	if (vec__grow(&w->thread_cgroups, &w->cap_thread_cgroups,
			w->nr_thread_cgroups + 1, sizeof(*w->thread_cgroups)))
		return oom(rec);
	w->thread_cgroups[w->nr_thread_cgroups++] = *t;
	return 0;
}

void rec_clear_cgroups(struct writer *w, bool release)
{
	size_t i;

	for (i = 0; i < w->nr_cgroups; i++)
		free(w->cgroups[i].path);
	w->nr_cgroups = w->nr_thread_cgroups = 0;
	if (!release)
		return;
	free(w->cgroups);
	free(w->thread_cgroups);
	w->cgroups = NULL;
	w->thread_cgroups = NULL;
	w->cap_cgroups = w->cap_thread_cgroups = 0;
}

/* --- the change log's codec ------------------------------------------------ */

int rec_encode_thread_cgroups(const struct rec_thread_cgroup *t, size_t n, struct bytebuf *raw)
{
	uint64_t prev = 0, v;
	size_t i;
	int col;

	raw->len = 0;
	for (col = 0; col < TCG_COLUMNS; col++) {
		prev = 0;
		for (i = 0; i < n; i++) {
			switch (col) {
			case 0:
				v = codec__zigzag((int64_t)((uint64_t)t[i].tgid - prev));
				prev = t[i].tgid;
				break;
			case 1:
				v = codec__zigzag((int64_t)t[i].tid - (int64_t)t[i].tgid);
				break;
			case 2:
				v = t[i].time_ns;	/* mostly 0: a delta would spread it */
				break;
			default:
				v = codec__zigzag((int64_t)(t[i].cgroup_id - prev));
				prev = t[i].cgroup_id;
				break;
			}
			if (bytebuf__put_varint(raw, v))
				return -ENOMEM;
		}
	}
	return 0;
}

int rec_decode_thread_cgroups(const uint8_t *data, size_t len, void *rows, size_t n)
{
	struct rec_thread_cgroup *out = rows;
	struct cursor c;
	uint64_t prev, v;
	int64_t tid;
	size_t i;
	int col;

	cursor__init(&c, data, len);
	for (col = 0; col < TCG_COLUMNS; col++) {
		prev = 0;
		for (i = 0; i < n; i++) {
			if (cursor__varint(&c, &v))
				return -EBADMSG;
			switch (col) {
			case 0:
				prev += (uint64_t)codec__unzigzag(v);
				if (prev > REC_MAX_PID)
					return -EBADMSG;
				out[i].tgid = (uint32_t)prev;
				break;
			case 1:
				tid = (int64_t)out[i].tgid + codec__unzigzag(v);
				if (tid < 0 || tid > REC_MAX_PID)
					return -EBADMSG;
				out[i].tid = (uint32_t)tid;
				break;
			case 2:
				out[i].time_ns = v;
				break;
			default:
				prev += (uint64_t)codec__unzigzag(v);
				if (!prev)
					return -EBADMSG;
				out[i].cgroup_id = prev;
				break;
			}
		}
	}
	return cursor__left(&c) ? -EBADMSG : 0;
}

/* --- writing ------------------------------------------------------------------ */

static int write_names(struct recording *rec)
{
	struct writer *w = &rec->w;
	sqlite3_stmt *st = NULL;
	size_t i;
	int err, rc;

	if (!w->nr_cgroups)
		return 0;
	/* OR IGNORE: a name given twice (a file switch raced a lookup) is stored once */
	err = rec_prepare(rec, "INSERT OR IGNORE INTO cgroup (id, path) VALUES (?, ?)",
			  "writing cgroups", &st);
	for (i = 0; !err && i < w->nr_cgroups; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)w->cgroups[i].id);
		sqlite3_bind_text(st, 2, w->cgroups[i].path, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			err = rec_sql_error(rec, rc, "writing cgroups");
	}
	sqlite3_finalize(st);
	return err;
}

int rec_write_cgroups(struct recording *rec)
{
	struct writer *w = &rec->w;
	struct bytebuf raw = { 0 };
	int err;

	err = write_names(rec);
	if (err || !w->nr_thread_cgroups)
		return err;
	if (w->nr_thread_cgroups > REC_READ_MAX_THREAD_CGROUPS) {
		pr_err("'%s': %zu cgroup rows in one commit is more than a reader accepts",
		       rec->path, w->nr_thread_cgroups);
		return -E2BIG;
	}
	if (rec_encode_thread_cgroups(w->thread_cgroups, w->nr_thread_cgroups, &raw))
		return oom(rec);
	err = rec_write_chunk(rec, "INSERT INTO thread_cgroup_chunk (nr_rows, encoding, data) "
				   "VALUES (?, ?, ?)", w->nr_thread_cgroups, &raw, "cgroup rows");
	bytebuf__release(&raw);
	return err;
}

/* --- reading ------------------------------------------------------------------ */

bool recording__has_cgroups(const struct recording *rec)
{
	return rec->version >= 2 && rec->has_cgroup_tables;
}

int recording__for_each_cgroup(struct recording *rec, rec_cgroup_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_cgroup c;
	int64_t id;
	int err, rc = SQLITE_DONE, n;

	if (!recording__has_cgroups(rec))
		return 0;
	err = rec_prepare(rec, "SELECT id, path FROM cgroup ORDER BY id", "reading cgroups", &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		n = sqlite3_column_type(st, 1);		/* before _text() converts it */
		c.path = n == SQLITE_TEXT ? (const char *)sqlite3_column_text(st, 1) : NULL;
		n = c.path ? sqlite3_column_bytes(st, 1) : 0;
		if (id < 1 || !c.path || !n || n > REC_MAX_PATH || strlen(c.path) != (size_t)n) {
			err = rec_damaged(rec, "cgroup row %" PRId64 ": bad value", id);
			break;
		}
		c.id = (uint64_t)id;
		err = fn(ctx, &c);
	}
	if (!err && rc != SQLITE_DONE)
		err = rec_sql_error(rec, rc, "reading cgroups");
	sqlite3_finalize(st);
	return err;
}

/* What recording__for_each_thread_cgroup() hands each chunk's rows to. */
struct cgroup_walk {
	rec_thread_cgroup_fn fn;
	void *ctx;
};

static int check_thread_cgroups(struct recording *rec, int64_t id, const void *v, size_t n,
				void *ctx)
{
	const struct rec_thread_cgroup *rows = v, *t;
	size_t i;

	(void)ctx;
	for (i = 0; i < n; i++) {
		t = &rows[i];
		if (t->time_ns && ((rec->has_start && t->time_ns < rec->span_start) ||
				   (rec->has_end && t->time_ns > rec->span_end)))
			return rec_damaged(rec, "thread_cgroup_chunk chunk %" PRId64 ": row %zu "
					   "lies outside the recording", id, i);
	}
	return 0;
}

static int each_thread_cgroup(void *ctx, const void *row)
{
	const struct cgroup_walk *w = ctx;

	return w->fn(w->ctx, row);
}

int recording__for_each_thread_cgroup(struct recording *rec, rec_thread_cgroup_fn fn,
				      void *ctx)
{
	static const struct rec_chunk_table table = {
		.sql = "SELECT id, nr_rows, encoding, data FROM thread_cgroup_chunk ORDER BY id",
		.table = "thread_cgroup_chunk",
		.unit = "rows",
		.reading = "reading cgroup rows",
		.max_rows = REC_READ_MAX_THREAD_CGROUPS,
		.min_bytes = TCG_COLUMNS,
		.row_size = sizeof(struct rec_thread_cgroup),
		.decode = rec_decode_thread_cgroups,
		.check = check_thread_cgroups,
		.each = each_thread_cgroup,
	};
	struct cgroup_walk w = { .fn = fn, .ctx = ctx };

	if (!recording__has_cgroups(rec))
		return 0;
	return rec_read_chunks(rec, &table, &w);
}
