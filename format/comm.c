// SPDX-License-Identifier: MIT
/*
 * format/comm.c - thread names as v2 writes them: columnar, zstd-compressed
 * comm_chunk rows, one per commit, instead of a row each in v1's comm table.
 *
 * A fork storm names thousands of processes, nearly all "sh", "true" or
 * "echo", each its own thread, forked a millisecond after the one before:
 * as rows they were a third of the file (issue 14: 182 KB of 536 KB, 25
 * bytes a name). As four columns (times and pids as deltas from the row
 * before, the tid from its own tgid, the names one after the other) zstd
 * sees runs of alike values and a name costs about four bytes, most of
 * them the fork times.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/internal.h"
#include "util/cmp.h"
#include "util/log.h"
#include "util/vec.h"

/* Names per chunk a reader accepts (a commit's worth is far less). */
#define REC_READ_MAX_COMMS	(1u << 22)
/* The fewest bytes a name takes in a chunk: 3 one-byte varints and "" */
#define COMM_MIN_BYTES		5

int rec_encode_comms(const struct rec_comm *c, size_t n, struct bytebuf *raw)
{
	uint64_t prev_time = 0;
	uint32_t prev_tgid = 0;
	size_t i;
	int err = 0;

	raw->len = 0;
	for (i = 0; i < n && !err; i++) {
		err = bytebuf__put_varint(raw, codec__zigzag((int64_t)(c[i].time_ns - prev_time)));
		prev_time = c[i].time_ns;
	}
	for (i = 0; i < n && !err; i++) {
		err = bytebuf__put_varint(raw, codec__zigzag((int64_t)c[i].tgid - prev_tgid));
		prev_tgid = c[i].tgid;
	}
	for (i = 0; i < n && !err; i++)
		err = bytebuf__put_varint(raw, codec__zigzag((int64_t)c[i].tid - c[i].tgid));
	for (i = 0; i < n && !err; i++)
		err = bytebuf__put_string(raw, c[i].comm);
	return err;
}

int rec_decode_comms(const uint8_t *data, size_t len, struct rec_comm *out, size_t n)
{
	struct cursor c;
	const char *name;
	uint64_t v, prev = 0;
	int64_t pid;
	size_t i;

	cursor__init(&c, data, len);
	for (i = 0; i < n; i++) {
		if (cursor__varint(&c, &v))
			return -EBADMSG;
		prev += (uint64_t)codec__unzigzag(v);
		memset(&out[i], 0, sizeof(out[i]));
		out[i].time_ns = prev;
	}
	for (i = 0, pid = 0; i < n; i++) {
		/* two pids differ by at most REC_MAX_PID: a larger delta would overflow pid */
		if (cursor__varint(&c, &v) || v > 2ull * REC_MAX_PID)
			return -EBADMSG;
		pid += codec__unzigzag(v);
		if (pid < 0 || pid > REC_MAX_PID)
			return -EBADMSG;
		out[i].tgid = (uint32_t)pid;
	}
	for (i = 0; i < n; i++) {
		if (cursor__varint(&c, &v) || v > 2ull * REC_MAX_PID + 1)
			return -EBADMSG;
		pid = (int64_t)out[i].tgid + codec__unzigzag(v);
		if (pid < 0 || pid > REC_MAX_PID)
			return -EBADMSG;
		out[i].tid = (uint32_t)pid;
	}
	for (i = 0; i < n; i++) {
		if (cursor__string(&c, REC_COMM_LEN - 1, &name))
			return -EBADMSG;
		memcpy(out[i].comm, name, strlen(name) + 1);
	}
	return cursor__left(&c) ? -EBADMSG : 0;
}

static int cmp_comm(const void *a, const void *b)
{
	const struct rec_comm *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return CMP(x->time_ns, y->time_ns);
	if (x->tgid != y->tgid)
		return CMP(x->tgid, y->tgid);
	if (x->tid != y->tid)
		return CMP(x->tid, y->tid);
	return memcmp(x->comm, y->comm, sizeof(x->comm));
}

int rec_write_comms(struct recording *rec)
{
	struct writer *w = &rec->w;
	struct bytebuf raw = { 0 };
	int err;

	if (!w->nr_comms)
		return 0;
	if (w->nr_comms > REC_READ_MAX_COMMS) {
		pr_err("'%s': %zu thread names in one commit is more than a reader accepts",
		       rec->path, w->nr_comms);
		return -E2BIG;
	}
	/* in time order: the threads' first names (time 0) first, the rest in short deltas */
	qsort(w->comms, w->nr_comms, sizeof(*w->comms), cmp_comm);
	if (rec_encode_comms(w->comms, w->nr_comms, &raw))
		return pr_errno(-ENOMEM, "'%s': buffering recorded data", rec->path);
	err = rec_write_chunk(rec, "INSERT INTO comm_chunk (nr_comms, encoding, data) "
				   "VALUES (?, ?, ?)", w->nr_comms, &raw, "thread names");
	bytebuf__release(&raw);
	return err;
}

int rec_read_comm_chunks(struct recording *rec, rec_comm_fn fn, void *ctx)
{
	struct rec_comm *rows = NULL;
	sqlite3_stmt *st = NULL;
	size_t cap = 0, i;
	int64_t id, n;
	int err, rc = SQLITE_DONE;

	err = rec_prepare(rec, "SELECT id, nr_comms, encoding, data FROM comm_chunk ORDER BY id",
			  "reading thread names", &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		err = rec_read_chunk_row(rec, st, "comm_chunk", REC_READ_MAX_COMMS, &id, &n);
		if (err)
			break;
		if ((uint64_t)n > rec->r.buf.len / COMM_MIN_BYTES) {
			err = rec_damaged(rec, "comm_chunk chunk %" PRId64 ": %" PRId64 " names "
					  "cannot fit in %zu bytes", id, n, rec->r.buf.len);
			break;
		}
		if (vec__grow(&rows, &cap, (size_t)n, sizeof(*rows))) {
			err = pr_errno(-ENOMEM, "'%s': reading thread names", rec->path);
			break;
		}
		/* every row checked first: a damaged chunk hands none on */
		if (rec_decode_comms(rec->r.buf.data, rec->r.buf.len, rows, (size_t)n)) {
			err = rec_damaged(rec, "comm_chunk chunk %" PRId64 ": names do not decode "
					  "to the %" PRId64 " in its header", id, n);
			break;
		}
		for (i = 0; i < (size_t)n && !err; i++)
			err = fn(ctx, &rows[i]);
	}
	if (!err && st && rc != SQLITE_DONE)
		err = rec_sql_error(rec, rc, "reading thread names");
	sqlite3_finalize(st);
	free(rows);
	return err;
}
