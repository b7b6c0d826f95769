// SPDX-License-Identifier: MIT
/*
 * format/python.c - the python_code table (format v2): Python code objects
 * the recorder read from interpreters, named by samples' Python frames.
 *
 * A code object is read once per process, so rows are few (one per Python
 * function that ran) and each is written at once in its own statement
 * between the writer's chunk transactions, as JIT map cuts are. A file
 * without the table (older v2, v1) has no Python frames and reads as before.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "format/internal.h"
#include "util/log.h"

int recording__add_py_code(struct recording *rec, const struct rec_py_code *c)
{
	sqlite3_stmt *st = NULL;
	int rc, err;

	if (!rec->writable || rec->w.finished) {
		pr_err("'%s' is not open for writing", rec->path);
		return -EBADF;
	}
	err = rec_prepare(rec, "INSERT OR REPLACE INTO python_code (tgid, code_key, addr, version, "
			       "name, qualname, filename, first_line, linetable) VALUES (?, ?, ?, ?, "
			       "?, ?, ?, ?, ?)", "writing a Python code object", &st);
	if (err)
		return err;
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
	sqlite3_finalize(st);
	return err;
}

/* Column i as a name: TEXT, no NUL inside, at most REC_PY_NAME_MAX bytes. */
static const char *col_name(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	size_t len = (size_t)sqlite3_column_bytes(st, i);

	if (sqlite3_column_type(st, i) != SQLITE_TEXT || !s || len > REC_PY_NAME_MAX ||
	    strlen(s) != len)
		return NULL;
	return s;
}

int recording__for_each_py_code(struct recording *rec, rec_py_code_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_py_code c;
	uint64_t tgid, version, line, key;
	bool present;
	int rc, err;

	if (rec->version < 2)
		return 0;
	err = rec_has_table(rec, "python_code", &present);
	if (err || !present)
		return err;
	rc = sqlite3_prepare_v2(rec->db, "SELECT tgid, addr, version, name, qualname, filename, "
				"first_line, linetable, code_key FROM python_code "
				"ORDER BY tgid, code_key", -1,
				&st, NULL);
	if ((rc & 0xff) == SQLITE_ERROR)
		return rec_damaged(rec, "table python_code: %s", sqlite3_errmsg(rec->db));
	if (rc != SQLITE_OK)
		return rec_sql_error(rec, rc, "reading Python code objects");
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
