// SPDX-License-Identifier: MIT
/*
 * format/python.c - the python_code table (format v2): Python code objects
 * the recorder read from interpreters, named by samples' Python frames.
 *
 * A code object is read once per process, so rows are few (one per Python
 * function that ran); they are buffered and written in the writer's next
 * commit, with the samples that name them (a transaction of their own
 * each would cost a sync each: 50,000 functions, 50,000 syncs). A file
 * without the table (older v2, v1) has no Python frames and reads as before.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/internal.h"
#include "util/log.h"
#include "util/vec.h"

/* A code object waiting for its commit: one allocation, its strings and table after it. */
struct pending_py_code {
	struct rec_py_code c;
	char data[];
};

int recording__add_py_code(struct recording *rec, const struct rec_py_code *c)
{
	struct writer *w = &rec->w;
	struct pending_py_code *p;
	size_t ln, lq, lf;
	char *at;

	if (!rec->writable || rec->w.finished) {
		pr_err("'%s' is not open for writing", rec->path);
		return -EBADF;
	}
	ln = strlen(c->name);
	lq = strlen(c->qualname);
	lf = strlen(c->filename);
	if (ln > REC_PY_NAME_BYTES || lq > REC_PY_NAME_BYTES || lf > REC_PY_NAME_BYTES ||
	    c->linetable_len > REC_PY_LINETABLE_MAX) {
		pr_err("'%s': Python code object %" PRIu64 " of process %" PRIu32 ": too long",
		       rec->path, c->key, c->tgid);
		return -EINVAL;
	}
	if (vec__grow(&w->py_codes, &w->cap_py_codes, w->nr_py_codes + 1, sizeof(*w->py_codes)))
		return pr_errno(-ENOMEM, "'%s': buffering recorded data", rec->path);
	p = malloc(sizeof(*p) + ln + lq + lf + 3 + c->linetable_len);
	if (!p)
		return pr_errno(-ENOMEM, "'%s': buffering recorded data", rec->path);
	p->c = *c;
	at = p->data;
	p->c.name = memcpy(at, c->name, ln + 1);
	at += ln + 1;
	p->c.qualname = memcpy(at, c->qualname, lq + 1);
	at += lq + 1;
	p->c.filename = memcpy(at, c->filename, lf + 1);
	at += lf + 1;
	p->c.linetable = c->linetable_len ? memcpy(at, c->linetable, c->linetable_len) : NULL;
	w->py_codes[w->nr_py_codes++] = p;
	return 0;
}

void rec_clear_py_codes(struct writer *w, bool release)
{
	size_t i;

	for (i = 0; i < w->nr_py_codes; i++)
		free(w->py_codes[i]);
	w->nr_py_codes = 0;
	if (!release)
		return;
	free(w->py_codes);
	w->py_codes = NULL;
	w->cap_py_codes = 0;
}

int rec_write_py_codes(struct recording *rec)
{
	struct writer *w = &rec->w;
	const struct rec_py_code *c;
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc, err;

	if (!w->nr_py_codes)
		return 0;
	err = rec_prepare(rec, "INSERT OR REPLACE INTO python_code (tgid, code_key, addr, version, "
			       "name, qualname, filename, first_line, linetable) VALUES (?, ?, ?, ?, "
			       "?, ?, ?, ?, ?)", "writing a Python code object", &st);
	for (i = 0; !err && i < w->nr_py_codes; i++) {
		c = &w->py_codes[i]->c;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, c->tgid);
		sqlite3_bind_int64(st, 2, (int64_t)c->key);
		sqlite3_bind_int64(st, 3, (int64_t)c->addr);
		sqlite3_bind_int64(st, 4, c->version);
		sqlite3_bind_text(st, 5, c->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, c->qualname, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, c->filename, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 8, c->first_line);
		sqlite3_bind_blob(st, 9, c->linetable_len ? (const void *)c->linetable : "",
				  (int)c->linetable_len, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE)
			err = rec_sql_error(rec, rc, "writing a Python code object");
	}
	sqlite3_finalize(st);
	return err;
}

/*
 * Column i as a name: TEXT, no NUL inside, at most REC_PY_NAME_BYTES bytes
 * (what recording__add_py_code takes: a file the recorder wrote reads).
 */
static const char *col_name(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	size_t len = (size_t)sqlite3_column_bytes(st, i);

	if (sqlite3_column_type(st, i) != SQLITE_TEXT || !s || len > REC_PY_NAME_BYTES ||
	    strlen(s) != len)
		return NULL;
	return s;
}

int recording__for_each_py_code(struct recording *rec, rec_py_code_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_py_code c;
	uint64_t tgid, version, line, key;
	int rc, err;

	err = rec_prepare_later_table(rec, "python_code",
				      "SELECT tgid, addr, version, name, qualname, filename, "
				      "first_line, linetable, code_key FROM python_code "
				      "ORDER BY tgid, code_key", "reading Python code objects", &st);
	if (err || !st)
		return err;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&c, 0, sizeof(c));
		c.name = col_name(st, 3);
		c.qualname = col_name(st, 4);
		c.filename = col_name(st, 5);
		c.linetable = sqlite3_column_blob(st, 7);
		c.linetable_len = (size_t)sqlite3_column_bytes(st, 7);
		if (!rec_col_count(st, 0, UINT32_MAX, &tgid) ||
		    sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
		    !rec_col_count(st, 2, 0xffff, &version) || !c.name || !c.qualname ||
		    !c.filename || !rec_col_count(st, 6, INT32_MAX, &line) ||
		    sqlite3_column_type(st, 7) != SQLITE_BLOB ||
		    c.linetable_len > REC_PY_LINETABLE_MAX ||
		    !rec_col_count(st, 8, (1ll << 44) - 1, &key) || !key) {
			err = rec_damaged(rec, "table python_code: a row of bad values");
			break;
		}
		if (!c.linetable_len)
			c.linetable = NULL;
		c.tgid = (uint32_t)tgid;
		c.key = key;
		c.addr = (uint64_t)sqlite3_column_int64(st, 1);
		c.version = (uint32_t)version;
		c.first_line = (uint32_t)line;
		err = fn(ctx, &c);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = rec_sql_error(rec, rc, "reading Python code objects");
	sqlite3_finalize(st);
	return err;
}
