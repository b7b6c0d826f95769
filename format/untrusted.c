// SPDX-License-Identifier: MIT
/*
 * format/untrusted.c - a recording is a database someone else may have
 * written: opened the way SQLite's "defense against dark arts" says, and
 * its schema checked against the one eprof wrote before any query runs.
 *
 * A file whose meta table was renamed and replaced by a view (a recursive
 * CTE that never ends), or that carries triggers, extra tables or columns
 * of another type, is not a recording of ours: the reader's own SELECTs
 * would run the attacker's SQL. So the connection is put in defensive mode
 * with trusted_schema off, views and triggers disabled, tight limits, and
 * a progress handler that stops any statement once the connection has done
 * more work than the file's size can justify; and every object in
 * sqlite_master must be one that schema/ creates for the file's version,
 * with the same definition (comments and white space aside, since files
 * written before a comment changed still read).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/internal.h"
#include "util/log.h"

/* The progress handler runs every this many virtual machine steps. */
#define SQL_STEP_TICK		10000
/*
 * SQL work a connection may do: a fixed allowance plus so much per byte
 * of file. The reader's queries scan each table a few times and sort one
 * small column once; a million off-CPU rows (about 20 bytes each) cost
 * some 10^8 steps. A file whose SQL goes beyond is damaged or hostile.
 */
#define SQL_STEPS_BASE		2000000000ull
#define SQL_STEPS_PER_BYTE	512ull

static int progress(void *arg)
{
	struct recording *rec = arg;

	rec->sql_used += SQL_STEP_TICK;
	if (rec->sql_used <= rec->sql_budget)
		return 0;
	rec->sql_over = true;
	return 1;
}

/*
 * Largest BLOB or string a recording holds: a compressed debuginfo file of
 * REC_DEBUGINFO_MAX bytes, plus what zstd adds to incompressible data.
 */
#define SQL_MAX_LENGTH		(REC_DEBUGINFO_MAX + (REC_DEBUGINFO_MAX >> 6) + 65536)

void rec_harden(struct recording *rec, sqlite3 *db, uint64_t file_size)
{
	static const int limits[][2] = {
		{ SQLITE_LIMIT_LENGTH, SQL_MAX_LENGTH },
		{ SQLITE_LIMIT_SQL_LENGTH, 65536 },	/* every CREATE of schema/ is shorter */
		{ SQLITE_LIMIT_COLUMN, 64 },
		{ SQLITE_LIMIT_EXPR_DEPTH, 64 },
		{ SQLITE_LIMIT_COMPOUND_SELECT, 4 },
		{ SQLITE_LIMIT_VDBE_OP, 25000 },
		{ SQLITE_LIMIT_FUNCTION_ARG, 8 },
		{ SQLITE_LIMIT_ATTACHED, 0 },
		{ SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 64 },
		{ SQLITE_LIMIT_VARIABLE_NUMBER, 16 },
		{ SQLITE_LIMIT_TRIGGER_DEPTH, 1 },
		{ SQLITE_LIMIT_WORKER_THREADS, 0 },
	};
	size_t i;

	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
#endif
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		sqlite3_limit(db, limits[i][0], limits[i][1]);
	if (rec) {
		rec->sql_used = 0;
		rec->sql_over = false;
		rec->sql_budget = file_size > (UINT64_MAX - SQL_STEPS_BASE) / SQL_STEPS_PER_BYTE ?
				  UINT64_MAX : SQL_STEPS_BASE + file_size * SQL_STEPS_PER_BYTE;
		sqlite3_progress_handler(db, SQL_STEP_TICK, progress, rec);
	}
}

/*
 * sql without comments, with each run of white space one blank and none at
 * either end, quoted text kept as it is. out has room for strlen(sql) + 1.
 */
static void normalize_sql(const char *sql, char *out)
{
	const char *p = sql;
	char *o = out, quote;
	bool blank = false;

	while (*p) {
		if (p[0] == '-' && p[1] == '-') {
			while (*p && *p != '\n')
				p++;
			blank = true;
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			p += 2;
			while (*p && !(p[0] == '*' && p[1] == '/'))
				p++;
			p += *p ? 2 : 0;
			blank = true;
			continue;
		}
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' ||
		    *p == '\v') {
			p++;
			blank = true;
			continue;
		}
		if (blank && o != out)
			*o++ = ' ';
		blank = false;
		if (*p == '\'' || *p == '"' || *p == '`' || *p == '[') {
			quote = *p == '[' ? ']' : *p;
			*o++ = *p++;
			while (*p && *p != quote)
				*o++ = *p++;
			if (*p)
				*o++ = *p++;
			continue;
		}
		*o++ = *p++;
	}
	*o = '\0';
}

/* Whether two CREATE statements (either NULL) define the same thing. */
static int same_sql(const char *a, const char *b, bool *same)
{
	char *na, *nb;

	if (!a || !b) {
		*same = !a && !b;
		return 0;
	}
	na = malloc(strlen(a) + 1);
	nb = malloc(strlen(b) + 1);
	if (!na || !nb) {
		free(na);
		free(nb);
		return -ENOMEM;
	}
	normalize_sql(a, na);
	normalize_sql(b, nb);
	*same = !strcmp(na, nb);
	free(na);
	free(nb);
	return 0;
}

/* A name from the file, fit for one line: printable ASCII, at most 40 bytes. */
static void printable(const unsigned char *s, char *out, size_t size)
{
	size_t i;

	for (i = 0; s && s[i] && i + 1 < size; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
	out[i] = '\0';
}

/* "a view", "a trigger"...: what an object of sqlite_master is. */
static const char *kind(const unsigned char *type)
{
	static const char *const kinds[][2] = {
		{ "table", "a table" }, { "index", "an index" }, { "view", "a view" },
		{ "trigger", "a trigger" },
	};
	size_t i;

	for (i = 0; type && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!strcmp((const char *)type, kinds[i][0]))
			return kinds[i][1];
	}
	return "an object";
}

/* The schema eprof writes for version, in a private in-memory database. */
static int expected_schema(struct recording *rec, sqlite3 **out)
{
	sqlite3 *db = NULL;
	int rc, v;

	rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL);
	for (v = 0; rc == SQLITE_OK && v < rec->version; v++)
		rc = sqlite3_exec(db, eprof_schema_sql[v], NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		pr_err("'%s': cannot build the expected schema: %s", rec->path,
		       db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close_v2(db);
		return (rc & 0xff) == SQLITE_NOMEM ? -ENOMEM : -EIO;
	}
	*out = db;
	return 0;
}

/*
 * One object of the file against the expected schema: 1 when it matches,
 * 0 when it does not (printed), or an errno (printed).
 */
static int check_object(struct recording *rec, sqlite3_stmt *want, const unsigned char *type,
			const unsigned char *name, const unsigned char *tbl, const char *sql)
{
	char shown[48];
	bool same = false;
	int rc, err;

	sqlite3_reset(want);
	sqlite3_bind_text(want, 1, (const char *)name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(want);
	printable(name, shown, sizeof(shown));
	if (rc == SQLITE_DONE) {
		rec_damaged(rec, "its schema has %s '%s' that eprof never writes (a recording "
			    "holds eprof's tables only)", kind(type), shown);
		return 0;
	}
	if (rc != SQLITE_ROW) {
		pr_err("'%s': checking the schema: %s", rec->path, sqlite3_errstr(rc));
		return -EIO;
	}
	if (!type || strcmp((const char *)type, (const char *)sqlite3_column_text(want, 0)) ||
	    !tbl || strcmp((const char *)tbl, (const char *)sqlite3_column_text(want, 1))) {
		rec_damaged(rec, "its schema has '%s' as %s, not as the %s eprof writes", shown,
			    kind(type), (const char *)sqlite3_column_text(want, 0));
		return 0;
	}
	err = same_sql(sql, (const char *)sqlite3_column_text(want, 2), &same);
	if (err)
		return pr_errno(err, "'%s': checking the schema", rec->path);
	if (!same) {
		rec_damaged(rec, "its schema defines the %s '%s' otherwise than eprof does "
			    "(columns, types or constraints changed)", (const char *)type, shown);
		return 0;
	}
	return 1;
}

int rec_check_schema(struct recording *rec)
{
	sqlite3_stmt *have = NULL, *want = NULL;
	sqlite3 *expect = NULL;
	int rc, err;

	err = expected_schema(rec, &expect);
	if (err)
		return err;
	rc = sqlite3_prepare_v2(expect, "SELECT type, tbl_name, sql FROM sqlite_master WHERE "
				"name = ?", -1, &want, NULL);
	if (rc != SQLITE_OK) {
		err = pr_errno(-EIO, "'%s': checking the schema", rec->path);
		goto out;
	}
	err = rec_prepare(rec, "SELECT type, name, tbl_name, sql FROM sqlite_master",
			  "reading the schema", &have);
	while (!err) {
		rc = sqlite3_step(have);
		if (rc == SQLITE_DONE)
			break;
		if (rc != SQLITE_ROW) {
			err = rec_sql_error(rec, rc, "reading the schema");
			break;
		}
		if (sqlite3_column_type(have, 3) != SQLITE_NULL &&
		    sqlite3_column_type(have, 3) != SQLITE_TEXT) {
			err = rec_damaged(rec, "its schema holds an object without a definition");
			break;
		}
		rc = check_object(rec, want, sqlite3_column_text(have, 0),
				  sqlite3_column_text(have, 1), sqlite3_column_text(have, 2),
				  (const char *)sqlite3_column_text(have, 3));
		if (rc <= 0)
			err = rc ? rc : -EBADMSG;
	}
out:
	sqlite3_finalize(have);
	sqlite3_finalize(want);
	sqlite3_close_v2(expect);
	return err;
}
