// SPDX-License-Identifier: MIT
/*
 * format/mapping.c - mappings stored as v2 writes them: each mapped file
 * (path and build-id) once in mapped_file, the mappings themselves in
 * columnar, zstd-compressed mapping_chunk rows that refer to it by id.
 *
 * A busy machine maps the same few binaries thousands of times (every
 * fork of a shell copies its parent's libc, ld.so and vDSO), so a row per
 * mapping with its path and build-id spelled out made most of a recording
 * (issue 14: 3.7 of 3.9 MB). Here a mapping costs a few bytes: the file id,
 * the process, the time and the addresses as deltas from the previous row
 * of the chunk, each column after the other so that zstd sees runs of
 * alike values.
 *
 * The writer interns files as mappings are added (a hash table of the
 * files seen in the whole recording, which stays small: one entry per
 * distinct file) and writes the files not yet committed before the chunk
 * that first refers to them, in the same transaction. The reader loads the
 * file table once per walk and checks every id a chunk uses against it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/internal.h"
#include "util/bsearch.h"
#include "util/cmp.h"
#include "util/log.h"
#include "util/vec.h"

/* Mappings per chunk a reader accepts (a commit's worth is far less). */
#define REC_READ_MAX_MAPPINGS	(1u << 22)
/* Distinct mapped files a reader accepts. */
#define REC_READ_MAX_FILES	(1u << 22)
/* Columns of a mapping chunk: file, tgid, time, start, length, pgoff. */
#define MAP_COLUMNS		6

/* A file table key: what makes two mapped files one. */
struct file_key {
	const char *path;
	const uint8_t *id;
	uint32_t len;
};

static bool file_eq(uint32_t i, const void *key, const void *ctx)
{
	const struct mapped_file *f = &((const struct file_table *)ctx)->files[i];
	const struct file_key *k = key;

	return f->build_id_len == k->len && !memcmp(f->build_id, k->id, k->len) &&
	       !strcmp(f->path, k->path);
}

int file_table__intern(struct file_table *t, const char *path, const uint8_t *id,
		       uint32_t len, uint32_t *out)
{
	/* the length between the two: path "ab" + id "c" is not "a" + "bc" */
	uint64_t h = hash_mix(hash_mix(hash_str(path), len), hash_bytes(id, len));
	struct file_key k = { path, id, len };
	struct mapped_file *f;
	uint32_t *found;

	found = hashmap__find(&t->index, h, file_eq, &k, t);
	if (found) {
		*out = *found + 1;
		return 0;
	}
	if (t->nr >= UINT32_MAX - 1 ||
	    vec__grow(&t->files, &t->cap, t->nr + 1, sizeof(*t->files)))
		return -ENOMEM;
	f = &t->files[t->nr];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	f->build_id_len = len;
	memcpy(f->build_id, id, len);
	if (hashmap__add(&t->index, h, (uint32_t)t->nr)) {
		free(f->path);
		return -ENOMEM;
	}
	*out = (uint32_t)++t->nr;
	return 0;
}

void file_table__release(struct file_table *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->files[i].path);
	free(t->files);
	hashmap__release(&t->index);
	memset(t, 0, sizeof(*t));
}

static int put_column(struct bytebuf *raw, const struct pending_mapping *m, size_t n, int col)
{
	uint64_t prev = 0, v;
	size_t i;

	for (i = 0; i < n; i++) {
		switch (col) {
		case 0:
			v = codec__zigzag((int64_t)((uint64_t)m[i].file - prev));
			prev = m[i].file;
			break;
		case 1:
			v = codec__zigzag((int64_t)((uint64_t)m[i].tgid - prev));
			prev = m[i].tgid;
			break;
		case 2:
			v = codec__zigzag((int64_t)(m[i].time_ns - prev));
			prev = m[i].time_ns;
			break;
		case 3:
			v = codec__zigzag((int64_t)(m[i].start - prev));
			prev = m[i].start;
			break;
		case 4:
			v = m[i].end - m[i].start;
			break;
		default:
			v = m[i].pgoff;
			break;
		}
		if (bytebuf__put_varint(raw, v))
			return -ENOMEM;
	}
	return 0;
}

int rec_encode_mappings(const struct pending_mapping *m, size_t n, struct bytebuf *raw)
{
	int col, err = 0;

	raw->len = 0;
	for (col = 0; col < MAP_COLUMNS && !err; col++)
		err = put_column(raw, m, n, col);
	return err;
}

/* Value v of column col of row i (codec__read_columns()). */
static int put_mapping(void *rows, size_t i, int col, uint64_t v, uint64_t *prev)
{
	struct pending_mapping *out = rows;

	switch (col) {
	case 0:
	case 1:
		*prev += (uint64_t)codec__unzigzag(v);
		if (*prev > UINT32_MAX)
			return -EBADMSG;
		if (col == 0)
			out[i].file = (uint32_t)*prev;
		else
			out[i].tgid = (uint32_t)*prev;
		break;
	case 2:
		*prev += (uint64_t)codec__unzigzag(v);
		out[i].time_ns = *prev;
		break;
	case 3:
		*prev += (uint64_t)codec__unzigzag(v);
		out[i].start = *prev;
		break;
	case 4:
		if (!v || v > REC_MAX_MAPPING || out[i].start + v < out[i].start)
			return -EBADMSG;
		out[i].end = out[i].start + v;
		break;
	default:
		out[i].pgoff = v;
		break;
	}
	return 0;
}

int rec_decode_mappings(const uint8_t *data, size_t len, void *rows, size_t n)
{
	return codec__read_columns(data, len, n, MAP_COLUMNS, put_mapping, rows);
}

/* --- writing -------------------------------------------------------------- */

int rec_write_files(struct recording *rec)
{
	struct file_table *t = &rec->w.files;
	sqlite3_stmt *st = NULL;
	size_t i;
	int err, rc;

	if (t->written == t->nr)
		return 0;
	err = rec_prepare(rec, "INSERT INTO mapped_file (id, path, build_id) VALUES (?, ?, ?)",
			  "writing mapped files", &st);
	for (i = t->written; !err && i < t->nr; i++) {
		const struct mapped_file *f = &t->files[i];

		sqlite3_bind_int64(st, 1, (int64_t)i + 1);
		sqlite3_bind_text(st, 2, f->path, -1, SQLITE_STATIC);
		if (f->build_id_len)
			sqlite3_bind_blob(st, 3, f->build_id, (int)f->build_id_len, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		if (rc != SQLITE_DONE)
			err = rec_sql_error(rec, rc, "writing mapped files");
	}
	sqlite3_finalize(st);
	if (!err)
		t->written = t->nr;
	return err;
}

static int cmp_row(const void *a, const void *b)
{
	const struct pending_mapping *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return CMP(x->time_ns, y->time_ns);
	if (x->tgid != y->tgid)
		return CMP(x->tgid, y->tgid);
	if (x->start != y->start)
		return CMP(x->start, y->start);
	if (x->end != y->end)
		return CMP(x->end, y->end);
	if (x->pgoff != y->pgoff)
		return CMP(x->pgoff, y->pgoff);
	return CMP(x->file, y->file);
}

int rec_write_mappings(struct recording *rec)
{
	struct writer *w = &rec->w;
	struct bytebuf raw = { 0 };
	int err;

	if (!w->nr_mappings)
		return 0;
	err = rec_write_files(rec);
	if (err)
		return err;
	/*
	 * In time order: the rows "from the file's start" (time 0) first, by
	 * process and address, then the rest with short time deltas. The
	 * commit's stacks refer to the rows in this order (written after).
	 */
	qsort(w->mappings, w->nr_mappings, sizeof(*w->mappings), cmp_row);
	if (rec_encode_mappings(w->mappings, w->nr_mappings, &raw))
		return pr_errno(-ENOMEM, "'%s': buffering recorded data", rec->path);
	err = rec_write_chunk(rec, "INSERT INTO mapping_chunk (nr_mappings, encoding, data) "
				   "VALUES (?, ?, ?)", w->nr_mappings, &raw, "mappings");
	if (!err)
		w->mapping_chunk = sqlite3_last_insert_rowid(rec->db);
	bytebuf__release(&raw);
	return err;
}

/* --- reading -------------------------------------------------------------- */

void file_list__release(struct file_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->files[i].path);
	free(l->ids);
	free(l->files);
}

static bool id_below(const void *elem, const void *key)
{
	return *(const int64_t *)elem < *(const int64_t *)key;
}

const struct mapped_file *file_list__find(const struct file_list *l, uint32_t id)
{
	int64_t key = id;
	size_t lo = bsearch_lower_bound(&key, l->ids, l->nr, sizeof(*l->ids), id_below);

	return lo < l->nr && l->ids[lo] == (int64_t)id ? &l->files[lo] : NULL;
}

int file_list__load(struct recording *rec, struct file_list *l)
{
	sqlite3_stmt *st = NULL;
	struct mapped_file *f;
	const char *path;
	int64_t id;
	int err, rc = SQLITE_DONE, n;

	err = rec_prepare(rec, "SELECT id, path, build_id FROM mapped_file ORDER BY id",
			  "reading mapped files", &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		n = sqlite3_column_type(st, 1);		/* before _text() converts it */
		path = (const char *)sqlite3_column_text(st, 1);
		if (n == SQLITE_TEXT)
			n = sqlite3_column_bytes(st, 1);
		else
			path = NULL;
		if (!path || n > REC_MAX_PATH ||
		    strlen(path) != (size_t)n || id < 1 || id > UINT32_MAX ||
		    l->nr >= REC_READ_MAX_FILES) {
			err = rec_damaged(rec, "mapped_file row %" PRId64 ": bad value", id);
			break;
		}
		if (vec__grow(&l->ids, &l->cap_ids, l->nr + 1, sizeof(*l->ids)) ||
		    vec__grow(&l->files, &l->cap_files, l->nr + 1, sizeof(*l->files))) {
			err = pr_errno(-ENOMEM, "'%s': reading mapped files", rec->path);
			break;
		}
		f = &l->files[l->nr];
		memset(f, 0, sizeof(*f));
		n = sqlite3_column_type(st, 2);
		if (n == SQLITE_BLOB) {
			n = sqlite3_column_bytes(st, 2);
			if (n < 1 || n > REC_BUILD_ID_MAX) {
				err = rec_damaged(rec, "mapped_file row %" PRId64 ": bad build-id", id);
				break;
			}
			memcpy(f->build_id, sqlite3_column_blob(st, 2), (size_t)n);
			f->build_id_len = (uint32_t)n;
		} else if (n != SQLITE_NULL) {
			err = rec_damaged(rec, "mapped_file row %" PRId64 ": bad build-id", id);
			break;
		}
		f->path = strdup(path);
		if (!f->path) {
			err = pr_errno(-ENOMEM, "'%s': reading mapped files", rec->path);
			break;
		}
		l->ids[l->nr++] = id;
	}
	if (!err && rc != SQLITE_DONE)
		err = rec_sql_error(rec, rc, "reading mapped files");
	sqlite3_finalize(st);
	return err;
}

/* What rec_read_mapping_chunks() hands each chunk's mappings to. */
struct mapping_walk {
	const struct file_list *files;
	rec_mapping_fn fn;
	void *ctx;
};

/* A chunk's mappings, every one checked before any is handed on. */
static int check_mappings(struct recording *rec, int64_t id, const void *v, size_t n, void *ctx)
{
	const struct mapping_walk *w = ctx;
	const struct pending_mapping *rows = v;
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].tgid > REC_MAX_PID || !file_list__find(w->files, rows[i].file))
			return rec_damaged(rec, "mapping_chunk chunk %" PRId64 ": mapping %zu has "
					   "pid %" PRIu32 " and file %" PRIu32 " (not in "
					   "mapped_file)", id, i, rows[i].tgid, rows[i].file);
	return 0;
}

static int each_mapping(void *ctx, const void *row)
{
	const struct mapping_walk *w = ctx;
	const struct pending_mapping *p = row;
	const struct mapped_file *f = file_list__find(w->files, p->file);
	struct rec_mapping m = {
		.time_ns = p->time_ns,
		.tgid = p->tgid,
		.start = p->start,
		.end = p->end,
		.pgoff = p->pgoff,
		.path = f->path,
		.build_id_len = f->build_id_len,
	};

	memcpy(m.build_id, f->build_id, f->build_id_len);
	return w->fn(w->ctx, &m);
}

int rec_read_mapping_chunks(struct recording *rec, rec_mapping_fn fn, void *ctx)
{
	static const struct rec_chunk_table table = {
		.sql = "SELECT id, nr_mappings, encoding, data FROM mapping_chunk ORDER BY id",
		.table = "mapping_chunk",
		.unit = "mappings",
		.reading = "reading mappings",
		.max_rows = REC_READ_MAX_MAPPINGS,
		.min_bytes = MAP_COLUMNS,
		.row_size = sizeof(struct pending_mapping),
		.decode = rec_decode_mappings,
		.check = check_mappings,
		.each = each_mapping,
	};
	struct file_list files = { 0 };
	struct mapping_walk w = { .files = &files, .fn = fn, .ctx = ctx };
	int err;

	err = file_list__load(rec, &files);
	if (!err)
		err = rec_read_chunks(rec, &table, &w);
	file_list__release(&files);
	return err;
}

int rec_load_bases(struct recording *rec, int64_t stack_chunk, struct rec_bases *b)
{
	struct bytebuf stacks = rec->r.buf;
	struct pending_mapping *rows = NULL;
	sqlite3_stmt *st = NULL;
	struct cursor c;
	uint64_t chunk;
	size_t cap = 0, i, used;
	int64_t id, n;
	int err, rc;

	cursor__init(&c, stacks.data, stacks.len);
	if (cursor__varint(&c, &chunk) || chunk > INT64_MAX)
		return rec_damaged(rec, "stack_chunk chunk %" PRId64 ": bad mapping chunk id",
				   stack_chunk);
	used = stacks.len - cursor__left(&c);
	memmove(stacks.data, stacks.data + used, stacks.len - used);
	rec->r.buf.len -= used;
	if (b->chunk == (int64_t)chunk)
		return 0;
	b->chunk = 0;
	if (!chunk)	/* the commit wrote no mappings: no frame is coded by one */
		return 0;
	/* the mapping chunk is decompressed into a buffer of its own: r.buf holds the stacks */
	memset(&rec->r.buf, 0, sizeof(rec->r.buf));
	err = rec_prepare(rec, "SELECT id, nr_mappings, encoding, data FROM mapping_chunk "
			       "WHERE id = ?", "reading mappings", &st);
	if (err)
		goto out;
	sqlite3_bind_int64(st, 1, (int64_t)chunk);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		err = rec_damaged(rec, "stack_chunk chunk %" PRId64 ": mapping chunk %" PRIu64
				  " does not exist", stack_chunk, chunk);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		err = rec_sql_error(rec, rc, "reading mappings");
		goto out;
	}
	err = rec_read_chunk_row(rec, st, "mapping_chunk", REC_READ_MAX_MAPPINGS, &id, &n);
	if (err)
		goto out;
	if ((uint64_t)n > rec->r.buf.len / MAP_COLUMNS) {
		err = rec_damaged(rec, "mapping_chunk chunk %" PRId64 ": %" PRId64 " mappings "
				  "cannot fit in %zu bytes", id, n, rec->r.buf.len);
		goto out;
	}
	if (vec__grow(&rows, &cap, (size_t)n, sizeof(*rows)) ||
	    vec__grow(&b->starts, &b->cap, (size_t)n, sizeof(*b->starts))) {
		err = pr_errno(-ENOMEM, "'%s': reading mappings", rec->path);
		goto out;
	}
	if (rec_decode_mappings(rec->r.buf.data, rec->r.buf.len, rows, (size_t)n)) {
		err = rec_damaged(rec, "mapping_chunk chunk %" PRId64 ": mappings do not decode "
				  "to the %" PRId64 " in its header", id, n);
		goto out;
	}
	for (i = 0; i < (size_t)n; i++)
		b->starts[i] = rows[i].start;
	b->nr = (size_t)n;
	b->chunk = (int64_t)chunk;
out:
	sqlite3_finalize(st);
	free(rows);
	bytebuf__release(&rec->r.buf);
	rec->r.buf = stacks;
	rec->r.buf.len -= used;
	return err;
}
