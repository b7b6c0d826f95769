// SPDX-License-Identifier: MIT
/*
 * format/jit_cut.c - the jit_map_cut table (format v2): JIT maps the
 * recorder read only up to a cut.
 *
 * A cut is rare and small, so it is written at once in its own statement
 * (autocommit) between the writer's chunk transactions rather than buffered
 * with them; INSERT OR REPLACE keeps one row per process and map, the
 * latest cut. A reader of a v1 file, or of an early v2 file without the
 * table, sees no cuts.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "format/internal.h"
#include "util/log.h"

int recording__add_jit_cut(struct recording *rec, const struct rec_jit_cut *c)
{
	sqlite3_stmt *st = NULL;
	int rc, err;

	if (!rec->writable || rec->w.finished) {
		pr_err("'%s' is not open for writing", rec->path);
		return -EBADF;
	}
	err = rec_prepare(rec, "INSERT OR REPLACE INTO jit_map_cut (tgid, path, kept_bytes, "
			       "kept_symbols, dropped_bytes, dropped_lines, dropped_lines_exact) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?)", "writing a JIT map cut", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, c->tgid);
	sqlite3_bind_text(st, 2, c->path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)c->kept_bytes);
	sqlite3_bind_int64(st, 4, (int64_t)c->kept_symbols);
	sqlite3_bind_int64(st, 5, (int64_t)c->dropped_bytes);
	sqlite3_bind_int64(st, 6, (int64_t)c->dropped_lines);
	sqlite3_bind_int(st, 7, c->dropped_lines_exact);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		err = rec_sql_error(rec, rc, "writing a JIT map cut");
	sqlite3_finalize(st);
	return err;
}

/* The cut in st's row into *c; false when a value is not one a cut can have. */
static bool cut_from_row(sqlite3_stmt *st, struct rec_jit_cut *c)
{
	uint64_t tgid, exact;
	size_t len;

	memset(c, 0, sizeof(*c));
	c->path = (const char *)sqlite3_column_text(st, 1);
	len = (size_t)sqlite3_column_bytes(st, 1);
	if (!rec_col_count(st, 0, UINT32_MAX, &tgid) ||
	    sqlite3_column_type(st, 1) != SQLITE_TEXT || !c->path || len > REC_MAX_PATH ||
	    strlen(c->path) != len || !rec_col_count(st, 2, INT64_MAX, &c->kept_bytes) ||
	    !rec_col_count(st, 3, INT64_MAX, &c->kept_symbols) ||
	    !rec_col_count(st, 4, INT64_MAX, &c->dropped_bytes) ||
	    !rec_col_count(st, 5, INT64_MAX, &c->dropped_lines) || !rec_col_count(st, 6, 1, &exact) ||
	    c->kept_symbols > c->kept_bytes || c->dropped_lines > c->dropped_bytes)
		return false;
	c->tgid = (uint32_t)tgid;
	c->dropped_lines_exact = exact;
	return true;
}

int recording__for_each_jit_cut(struct recording *rec, rec_jit_cut_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	struct rec_jit_cut c;
	int rc, err;

	err = rec_prepare_later_table(rec, "jit_map_cut",
				      "SELECT tgid, path, kept_bytes, kept_symbols, dropped_bytes, "
				      "dropped_lines, dropped_lines_exact FROM jit_map_cut "
				      "ORDER BY tgid, path", "reading JIT map cuts", &st);
	if (err || !st)
		return err;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!cut_from_row(st, &c)) {
			err = rec_damaged(rec, "table jit_map_cut: a row of bad values");
			break;
		}
		err = fn(ctx, &c);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = rec_sql_error(rec, rc, "reading JIT map cuts");
	sqlite3_finalize(st);
	return err;
}
