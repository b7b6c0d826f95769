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

int rec_decode_comms(const uint8_t *data, size_t len, void *rows, size_t n)
{
	struct rec_comm *out = rows;
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

/* What rec_read_comm_chunks() hands each chunk's names to. */
struct comm_walk {
	rec_comm_fn fn;
	void *ctx;
};

static int each_comm(void *ctx, const void *row)
{
	const struct comm_walk *w = ctx;

	return w->fn(w->ctx, row);
}

int rec_read_comm_chunks(struct recording *rec, rec_comm_fn fn, void *ctx)
{
	static const struct rec_chunk_table table = {
		.sql = "SELECT id, nr_comms, encoding, data FROM comm_chunk ORDER BY id",
		.table = "comm_chunk",
		.unit = "names",
		.reading = "reading thread names",
		.max_rows = REC_READ_MAX_COMMS,
		.min_bytes = COMM_MIN_BYTES,
		.row_size = sizeof(struct rec_comm),
		.decode = rec_decode_comms,
		.each = each_comm,
	};
	struct comm_walk w = { .fn = fn, .ctx = ctx };

	return rec_read_chunks(rec, &table, &w);
}
