// SPDX-License-Identifier: MIT
/*
 * format/recording.c - creating and opening recordings: the SQLite
 * connection, the identity and version checks and metadata reads (the SQL
 * helpers every file uses are sql.c's).
 *
 * The file is one SQLite database in rollback-journal mode (not WAL), so a
 * recording is a single file that can be copied as is. It is created 0600:
 * it holds the command lines and mapped paths of every process recorded,
 * which /proc shows only to their owners (the owner may chmod it). A reader opens it
 * read-only and checks, before trusting anything, that it is SQLite at all,
 * that it carries eprof's application_id, that its user_version is one this
 * code knows, and that every table it will read has the columns it will
 * read (by preparing the reader's own SELECTs). A recorder killed in the
 * middle of a commit leaves a hot journal behind that a read-only
 * connection cannot roll back; the reader then opens the file read-write
 * once so that SQLite restores the last complete commit.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/internal.h"
#include "util/log.h"

static int exec_sql(struct recording *rec, const char *sql, const char *what)
{
	int rc = sqlite3_exec(rec->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : rec_sql_error(rec, rc, what);
}

static struct recording *recording_new(const char *path)
{
	struct recording *rec = calloc(1, sizeof(*rec));

	if (!rec)
		return NULL;
	rec->path = strdup(path);
	if (!rec->path) {
		free(rec);
		return NULL;
	}
	return rec;
}

void recording__close(struct recording *rec)
{
	if (!rec)
		return;
	/* leaving PERSIST removes the journal the recording no longer needs */
	if (rec->writable && rec->db)
		sqlite3_exec(rec->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
	writer__release(&rec->w);
	reader__release(&rec->r);
	sqlite3_close_v2(rec->db);
	free(rec->path);
	free(rec);
}

void recording__discard(struct recording *rec)
{
	char name[4200];

	if (!rec)
		return;
	sqlite3_close_v2(rec->db);
	rec->db = NULL;
	if (unlink(rec->path) && errno != ENOENT)
		pr_warn("cannot remove '%s': %s", rec->path, strerror(errno));
	if ((size_t)snprintf(name, sizeof(name), "%s-journal", rec->path) < sizeof(name))
		unlink(name);
	if (rec->moved_old &&
	    (size_t)snprintf(name, sizeof(name), "%s.old", rec->path) < sizeof(name)) {
		if (rename(name, rec->path))
			pr_warn("cannot put '%s' back as '%s': %s", name, rec->path,
				strerror(errno));
		else
			pr_notice("put the previous recording back as '%s'", rec->path);
	}
	recording__close(rec);
}

const char *recording__path(const struct recording *rec)
{
	return rec->path;
}

bool recording__is_finished(const struct recording *rec)
{
	return rec->finished;
}

int recording__version(const struct recording *rec)
{
	return rec->version;
}

/*
 * Makes room for a new recording at path: an existing file is kept as
 * path.old (as perf keeps perf.data.old), so a mistaken -o loses nothing,
 * and stderr says so; an older path.old is replaced, and stderr says that
 * too. Journals a previous SQLite user left next to it are removed.
 */
static int remove_old(const char *path, bool *moved)
{
	static const char *const suffixes[] = { "-journal", "-wal", "-shm" };
	char name[4200];
	struct stat st;
	bool older;
	size_t i;

	if ((size_t)snprintf(name, sizeof(name), "%s.old", path) >= sizeof(name))
		return pr_errno(-ENAMETOOLONG, "cannot create '%s'", path);
	if (!lstat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return pr_errno(-EISDIR, "cannot create '%s'", path);
		/* never move a device, FIFO or socket aside (-o /dev/null as root) */
		if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
			pr_err("cannot create '%s': it exists and is not a regular file "
			       "(choose another -o)", path);
			return -EEXIST;
		}
		older = !lstat(name, &st);
		if (older && S_ISDIR(st.st_mode)) {
			pr_err("cannot create '%s': '%s' is a directory (move it away or choose "
			       "another -o)", path, name);
			return -EISDIR;
		}
		if (rename(path, name))
			return pr_errno(-errno, "cannot create '%s': cannot keep the old file as '%s'",
					path, name);
		*moved = true;
		/* one generation is kept, as perf keeps one perf.data.old: said, never silent */
		if (older)
			pr_notice("kept the previous recording as '%s' (replacing the older '%s')",
				  name, name);
		else
			pr_notice("kept the previous recording as '%s'", name);
	}
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if ((size_t)snprintf(name, sizeof(name), "%s%s", path, suffixes[i]) >= sizeof(name))
			return pr_errno(-ENAMETOOLONG, "cannot create '%s'", path);
		if (lstat(name, &st) || !S_ISREG(st.st_mode))
			continue;	/* only a journal SQLite left is ours to remove */
		if (unlink(name) && errno != ENOENT && errno != EROFS)
			return pr_errno(-errno, "cannot create '%s': cannot remove '%s'", path, name);
	}
	return 0;
}

/*
 * The rollback journal has a name anyone can guess (FILE-journal). In a
 * world-writable sticky directory such as /tmp, another user could plant a
 * symlink there whenever SQLite deletes the journal (after every commit in
 * the default DELETE mode): SQLite opens journals O_NOFOLLOW, so nothing is
 * clobbered, but the next commit fails and a root recording stops. So the
 * journal is created here, 0600, and kept for the whole recording
 * (journal_mode=PERSIST zeroes its header after each commit instead of
 * deleting it): a file of ours in a sticky directory cannot be removed or
 * replaced by anyone else. Crash safety is the rollback journal's as
 * before. Whatever sits at that name now is stale or planted: it goes,
 * and if someone keeps putting it back, the recording does not start.
 */
static int create_journal(const char *path)
{
	char name[4200];
	int i, fd;

	if ((size_t)snprintf(name, sizeof(name), "%s-journal", path) >= sizeof(name))
		return pr_errno(-ENAMETOOLONG, "cannot create '%s'", path);
	for (i = 0; i < 100; i++) {
		fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			return pr_errno(-errno, "cannot create the journal '%s'", name);
		if (unlink(name) && errno != ENOENT)
			return pr_errno(-errno, "cannot create the journal '%s': cannot remove what "
					"is there", name);
	}
	pr_err("cannot create the journal '%s': another user keeps putting a file there "
	       "(record into a directory only you can write)", name);
	return -EEXIST;
}

/*
 * In a directory anyone may write that is not sticky, anyone may also
 * rename or delete the recording and its journal while it is written, or
 * put a FIFO where the journal goes (SQLite would block on it): nothing
 * eprof could do there keeps a recording safe, so it says so up front.
 */
static int check_directory(const char *path)
{
	char dir[4200];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st))
		return 0;	/* creating the file will say what is wrong */
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		pr_err("cannot create '%s': its directory '%s' is writable by every user and not "
		       "sticky, so anyone could replace the recording (choose another directory, or "
		       "chmod +t it)", path, dir);
		return -EPERM;
	}
	return 0;
}

int recording__create(const char *path, struct recording **out)
{
	struct recording *rec;
	char pragmas[160];
	int rc, err, fd, v;

	rec = recording_new(path);
	if (!rec)
		return pr_errno(-ENOMEM, "cannot create '%s'", path);
	rec->writable = true;
	err = check_directory(path);
	if (!err)
		err = remove_old(path, &rec->moved_old);
	if (err)
		goto out;
	/* Create the file ourselves: the OS's reason (no such directory, read-only
	 * file system, permission) says more than SQLite's "unable to open". */
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = pr_errno(-errno, "cannot create '%s'", path);
		goto out;
	}
	close(fd);
	rc = sqlite3_open_v2(path, &rec->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		err = rec_sql_error(rec, rc, "cannot create the recording");
		goto out;
	}
	sqlite3_extended_result_codes(rec->db, 1);
	sqlite3_busy_timeout(rec->db, 5000);
	/*
	 * A rollback journal keeps the recording one self-contained file;
	 * synchronous=NORMAL is enough for a killed recorder (the kernel still
	 * has every write), only a power cut could cost the last commit. The
	 * schema is written without a journal: SQLite deletes any journal next
	 * to a database of zero pages (ours too), and a recorder killed before
	 * the schema is written has recorded nothing. Pages are SQLite's
	 * smallest: every table's last page and every BLOB's last overflow
	 * page is half empty on average (schema/README.md).
	 */
	err = exec_sql(rec, "PRAGMA page_size = 512; PRAGMA journal_mode = OFF;"
			    "PRAGMA synchronous = NORMAL;", "setting up the database");
	if (err)
		goto out;
	snprintf(pragmas, sizeof(pragmas), "PRAGMA application_id = %d; PRAGMA user_version = %d;",
		 REC_APPLICATION_ID, REC_SCHEMA_VERSION);
	err = exec_sql(rec, "BEGIN IMMEDIATE", "writing the schema");
	for (v = 0; !err && v < REC_SCHEMA_VERSION; v++)
		err = exec_sql(rec, eprof_schema_sql[v], "writing the schema");
	if (!err)
		err = exec_sql(rec, pragmas, "writing the schema");
	if (!err)
		err = exec_sql(rec, "COMMIT", "writing the schema");
	if (!err)
		err = create_journal(path);
	if (!err)
		err = exec_sql(rec, "PRAGMA journal_mode = PERSIST", "setting up the journal");
	if (err)
		goto out;
	rec->has_debuginfo = true;
	rec->has_binary_chunks = true;	/* a writer reads its own symbols back (JIT maps) */
	rec->version = REC_SCHEMA_VERSION;
	rec->w.cctx = ZSTD_createCCtx();
	if (!rec->w.cctx)
		err = pr_errno(-ENOMEM, "cannot create '%s'", path);
out:
	if (err) {
		recording__close(rec);
		return err;
	}
	*out = rec;
	return 0;
}

/* One integer PRAGMA. rc is the SQLite result, for the caller to judge. */
static int pragma_int(struct recording *rec, const char *name, int64_t *out)
{
	char sql[64];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof(sql), "PRAGMA %s", name);
	rc = sqlite3_prepare_v2(rec->db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			*out = sqlite3_column_int64(st, 0);
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * A recorder killed inside a commit left a hot journal that only a
 * read-write connection can roll back. Let SQLite do it once, then go on
 * read-only: the file is then exactly its last complete commit.
 */
static int roll_back_hot_journal(struct recording *rec)
{
	sqlite3 *db = NULL;
	int rc;

	rc = sqlite3_open_v2(rec->path, &db, SQLITE_OPEN_READWRITE, rec_safe_vfs());
	if (rc == SQLITE_OK) {
		rec_harden(NULL, db, 0);
		sqlite3_busy_timeout(db, 5000);
		rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
	}
	sqlite3_close_v2(db);
	if (rc != SQLITE_OK) {
		pr_err("'%s' was interrupted inside a write and its journal cannot be rolled back: %s "
		       "(make the file and its directory writable and try again)",
		       rec->path, sqlite3_errstr(rc));
		return (rc & 0xff) == SQLITE_NOMEM ? -ENOMEM : -EIO;
	}
	pr_warn("'%s': rolled back the write the recorder was interrupted in", rec->path);
	return 0;
}

static int check_identity(struct recording *rec)
{
	int64_t app = 0, ver = 0;
	int rc, err;

	rc = pragma_int(rec, "application_id", &app);
	if (rc == SQLITE_READONLY_ROLLBACK) {
		err = roll_back_hot_journal(rec);
		if (err)
			return err;
		rc = pragma_int(rec, "application_id", &app);
	}
	if ((rc & 0xff) == SQLITE_NOTADB || (rc == SQLITE_OK && app != REC_APPLICATION_ID)) {
		pr_err("'%s' is not an eprof recording", rec->path);
		return -EINVAL;
	}
	if (rc != SQLITE_OK)
		return rec_sql_error(rec, rc, "reading the file header");
	rc = pragma_int(rec, "user_version", &ver);
	if (rc != SQLITE_OK)
		return rec_sql_error(rec, rc, "reading the file header");
	if (ver > REC_SCHEMA_VERSION) {
		pr_err("'%s' uses recording format v%lld; this eprof reads up to v%d (upgrade eprof)",
		       rec->path, (long long)ver, REC_SCHEMA_VERSION);
		return -EPROTONOSUPPORT;
	}
	if (ver < 1)
		return rec_damaged(rec, "no recording format version (user_version %lld)",
				   (long long)ver);
	rec->version = (int)ver;
	return 0;
}

/*
 * The columns reader.c reads, table by table, with the version that added
 * the table: every file of that version or later has it (a table added by
 * a new version is one row here, schema/README.md).
 */
static const struct table_check {
	int version;
	const char *table, *sql;
} table_checks[] = {
	{ 1, "meta", "SELECT key, value FROM meta" },
	{ 1, "sample_chunk", "SELECT id, first_time, last_time, nr_samples, encoding, data "
			     "FROM sample_chunk" },
	{ 1, "stack_chunk", "SELECT id, first_id, last_id, nr_stacks, encoding, data "
			    "FROM stack_chunk" },
	{ 1, "comm", "SELECT rowid, time, tgid, tid, comm FROM comm" },
	{ 1, "mapping", "SELECT rowid, time, tgid, start_addr, end_addr, pgoff, path, build_id "
			"FROM mapping" },
	{ 1, "binary", "SELECT id, build_id, path, source, encoding, data FROM binary" },
	{ 1, "ksym_chunk", "SELECT id, nr_syms, encoding, data FROM ksym_chunk" },
	{ 1, "loss", "SELECT rowid, time, cpu, lost_samples, lost_ustacks, lost_kstacks, "
		     "truncated_stacks, lost_sideband FROM loss" },
	{ 2, "ticks", "SELECT rowid, time, cpu, period_ns, enabled_ns, throttled_ns, throttles, "
		      "fired, kept FROM ticks" },
};

/*
 * The debuginfo table came after the first v1 files: a file without it
 * simply has no embedded DWARF, but one that has it must have its columns.
 */
static int check_debuginfo_table(struct recording *rec)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = rec_has_table(rec, "debuginfo", &rec->has_debuginfo);
	if (rc || !rec->has_debuginfo)
		return rc;
	rc = rec_prepare_table(rec, "debuginfo", "SELECT build_id, path, encoding, size, data FROM "
			       "debuginfo", "reading the schema", &st);
	sqlite3_finalize(st);
	return rc;
}

/* The off-CPU tables: v2 files written before they existed lack all three. */
static const char *const offcpu_checks[][2] = {
	{ "offcpu", "SELECT rowid, time, duration, tgid, tid, cpu, state, stack_id FROM offcpu" },
	{ "offcpu_sum", "SELECT rowid, time, tgid, tid, state, cpu, stack_id, count, total_ns "
			"FROM offcpu_sum" },
	{ "offcpu_loss", "SELECT rowid, time, cpu, lost, lost_ns, untracked, lost_stacks "
			 "FROM offcpu_loss" },
};

/* The mapping tables: v2 files written before them have mapping rows only. */
static const char *const mapping_checks[][2] = {
	{ "mapping_chunk", "SELECT id, nr_mappings, encoding, data FROM mapping_chunk" },
	{ "mapped_file", "SELECT id, path, build_id FROM mapped_file" },
};

/* The thread names' chunks: v2 files written before them have comm rows only. */
static const char *const comm_checks[][2] = {
	{ "comm_chunk", "SELECT id, nr_comms, encoding, data FROM comm_chunk" },
};

/* The binaries by file id: v2 files written before them have binary rows only. */
static const char *const binary_checks[][2] = {
	{ "binary_chunk", "SELECT id, file, source, encoding, data FROM binary_chunk" },
};

/* The cgroup tables: v2 files written before them have no cgroup data. */
static const char *const cgroup_checks[][2] = {
	{ "thread_cgroup_chunk", "SELECT id, nr_rows, encoding, data FROM thread_cgroup_chunk" },
	{ "cgroup", "SELECT id, path FROM cgroup" },
};

/*
 * A group of v2 tables added after the first v2 files: absent as a whole
 * (*has false) when its first table is, else every table must have the
 * columns the reader reads.
 */
static int check_optional_tables(struct recording *rec, const char *const (*checks)[2],
				 size_t nr, bool *has)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc;

	*has = false;
	if (rec->version < 2)
		return 0;
	rc = rec_has_table(rec, checks[0][0], has);
	if (rc)
		return rc;
	for (i = 0; *has && i < nr; i++) {
		rc = rec_prepare_table(rec, checks[i][0], checks[i][1], "reading the schema", &st);
		sqlite3_finalize(st);
		if (rc)
			return rc;
	}
	return 0;
}

static int check_tables(struct recording *rec)
{
	const struct table_check *chk;
	sqlite3_stmt *st;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(table_checks) / sizeof(table_checks[0]); i++) {
		chk = &table_checks[i];
		if (chk->version > rec->version)
			continue;
		rc = rec_prepare_table(rec, chk->table, chk->sql, "reading the schema", &st);
		sqlite3_finalize(st);
		if (rc)
			return rc;
	}
	rc = check_debuginfo_table(rec);
	rc = rc ?: check_optional_tables(rec, offcpu_checks,
					 sizeof(offcpu_checks) / sizeof(*offcpu_checks),
					 &rec->has_offcpu_tables);
	rc = rc ?: check_optional_tables(rec, mapping_checks,
					 sizeof(mapping_checks) / sizeof(*mapping_checks),
					 &rec->has_mapping_chunks);
	rc = rc ?: check_optional_tables(rec, comm_checks,
					 sizeof(comm_checks) / sizeof(*comm_checks),
					 &rec->has_comm_chunks);
	rc = rc ?: check_optional_tables(rec, binary_checks,
					 sizeof(binary_checks) / sizeof(*binary_checks),
					 &rec->has_binary_chunks);
	return rc ?: check_optional_tables(rec, cgroup_checks,
					   sizeof(cgroup_checks) / sizeof(*cgroup_checks),
					   &rec->has_cgroup_tables);
}

/*
 * A numeric metadata value: absent (0, *has false), or decimal digits that
 * fit in 64 bits and lie in [min, max]; anything else is damage.
 */
static int meta_number(struct recording *rec, const char *key, uint64_t min, uint64_t max,
		       bool *has, uint64_t *out)
{
	unsigned long long v;
	char *text = NULL, *end;
	int err;

	*has = false;
	err = recording__get_meta(rec, key, &text);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || *end || errno || v < min || v > max)
		err = rec_damaged(rec, "meta %s: \"%.32s\" is not a number from %llu to %llu",
				  key, text, (unsigned long long)min, (unsigned long long)max);
	free(text);
	if (err)
		return err;
	*has = true;
	*out = v;
	return 0;
}

/*
 * numa_map: "cpu:node" pairs separated by commas (recording.h), each CPU
 * below nr_cpus (when known), nodes below 65536.
 */
static int check_numa_map(struct recording *rec)
{
	unsigned long cpu, node;
	char *map = NULL, *p, *end;
	int err;

	err = recording__get_meta(rec, REC_META_NUMA_MAP, &map);
	if (err)
		return err == -ENOENT ? 0 : err;
	for (p = map; *p; p = *end ? end + 1 : end) {
		if (*p < '0' || *p > '9')
			break;
		cpu = strtoul(p, &end, 10);
		if (*end != ':' || end[1] < '0' || end[1] > '9' || cpu >= REC_MAX_CPUS ||
		    (rec->nr_cpus && cpu >= rec->nr_cpus))
			break;
		node = strtoul(end + 1, &end, 10);
		if ((*end && (*end != ',' || !end[1])) || node > 65535)
			break;
	}
	if (*p)
		err = rec_damaged(rec, "meta %s: \"%.32s\" is not a map of its CPUs to nodes",
				  REC_META_NUMA_MAP, map);
	free(map);
	return err;
}

/*
 * The rows the recorder writes in its first commit, with eprof_version and
 * every sample: a file that has eprof_version has start_ns and nr_cpus, and
 * end_ns once finished. One without them was edited: its samples could not
 * be checked against its span or its CPUs.
 */
static int check_required_meta(struct recording *rec, bool has_cpus)
{
	char *v = NULL;
	int err;

	err = recording__get_meta(rec, REC_META_EPROF_VERSION, &v);
	free(v);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (!rec->has_start)
		return rec_damaged(rec, "meta: no %s row (every recording has one)",
				   REC_META_START_NS);
	if (!has_cpus)
		return rec_damaged(rec, "meta: no %s row (every recording has one)",
				   REC_META_NR_CPUS);
	if (rec->finished && !rec->has_end)
		return rec_damaged(rec, "meta: finished, but no %s row", REC_META_END_NS);
	return 0;
}

/*
 * The metadata every other table is checked against: the time span of the
 * recording and its CPU count. A finished recording's samples all lie in
 * [start_ns, end_ns], since the recorder reads the clock before it attaches
 * the sampler and again after it detached it.
 */
static int read_bounds(struct recording *rec)
{
	static const char *const other_numbers[] = { REC_META_FREQ_HZ, REC_META_START_REALTIME };
	uint64_t cpus = 0, v;
	bool has_cpus, has;
	size_t i;
	int err;

	err = meta_number(rec, REC_META_START_NS, 0, UINT64_MAX, &rec->has_start,
			  &rec->span_start);
	if (!err)
		err = meta_number(rec, REC_META_END_NS, 0, UINT64_MAX, &rec->has_end,
				  &rec->span_end);
	if (!err)
		err = meta_number(rec, REC_META_NR_CPUS, 1, REC_MAX_CPUS, &has_cpus, &cpus);
	for (i = 0; i < sizeof(other_numbers) / sizeof(other_numbers[0]) && !err; i++)
		err = meta_number(rec, other_numbers[i], 0, UINT64_MAX, &has, &v);
	if (err)
		return err;
	rec->nr_cpus = (uint32_t)cpus;
	err = meta_number(rec, REC_META_OFF_CPU_THRESH, 1, UINT64_MAX, &has,
			  &rec->offcpu_thresh_ns);
	if (err)
		return err;
	if (!has)
		rec->offcpu_thresh_ns = 0;
	err = meta_number(rec, REC_META_OFFCPU_SINCE, 0, UINT64_MAX, &has, &v);
	if (err)
		return err;
	rec->offcpu_since = has && v < rec->span_start ? v : rec->span_start;
	err = check_numa_map(rec);
	if (err)
		return err;
	err = check_required_meta(rec, has_cpus);
	if (err)
		return err;
	if (rec->has_start && rec->has_end && rec->span_end < rec->span_start)
		return rec_damaged(rec, "meta: the recording ends (%" PRIu64 " ns) before it starts "
				   "(%" PRIu64 " ns)", rec->span_end, rec->span_start);
	return 0;
}

int recording__open(const char *path, struct recording **out)
{
	struct recording *rec;
	struct stat sb;
	char *done = NULL;
	int fd, rc, err;

	/*
	 * open(2) first: its errno says why better than SQLite can. Never
	 * blocking, and only a regular file: a FIFO or a terminal named as the
	 * recording must not hang the reader.
	 */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	err = fd < 0 ? -errno : fstat(fd, &sb) ? -errno : S_ISDIR(sb.st_mode) ? -EISDIR : 0;
	if (fd >= 0)
		close(fd);
	if (err) {
		pr_err("cannot open '%s': %s (give a recording file made by 'eprof record': -i FILE)",
		       path, strerror(-err));
		return err;
	}
	if (!S_ISREG(sb.st_mode)) {
		pr_err("cannot open '%s': not a regular file (a recording is a file; copy it to one)",
		       path);
		return -EINVAL;
	}

	rec = recording_new(path);
	if (!rec)
		return pr_errno(-ENOMEM, "cannot open '%s'", path);
	rc = sqlite3_open_v2(path, &rec->db, SQLITE_OPEN_READONLY, rec_safe_vfs());
	if (rc != SQLITE_OK) {
		err = rec_sql_error(rec, rc, "cannot open the recording");
		goto out;
	}
	sqlite3_extended_result_codes(rec->db, 1);
	sqlite3_busy_timeout(rec->db, 5000);
	rec_harden(rec, rec->db, (uint64_t)sb.st_size);
	err = check_identity(rec);
	if (err)
		goto out;
	err = rec_check_schema(rec);
	if (!err)
		err = check_tables(rec);
	if (err)
		goto out;
	rec->r.dctx = ZSTD_createDCtx();
	if (!rec->r.dctx) {
		err = pr_errno(-ENOMEM, "cannot open '%s'", path);
		goto out;
	}
	err = recording__get_meta(rec, REC_META_FINISHED, &done);
	if (!err && strcmp(done, "0") && strcmp(done, "1"))
		err = rec_damaged(rec, "meta %s: \"%.32s\" is neither 0 nor 1", REC_META_FINISHED,
				  done);
	if (!err || err == -ENOENT) {
		rec->finished = done && !strcmp(done, "1");
		err = read_bounds(rec);
	}
	free(done);
	if (!err && !rec->finished)
		pr_warn("'%s' was not finalized (its recorder was interrupted, or is still running): "
			"reading it up to its last complete chunk", path);
out:
	if (err) {
		recording__close(rec);
		return err;
	}
	*out = rec;
	return 0;
}

int recording__get_meta(struct recording *rec, const char *key, char **out)
{
	sqlite3_stmt *st = NULL;
	const unsigned char *text;
	size_t i, len;
	int rc, err;

	for (i = rec->w.nr_meta; i-- > 0;) {	/* a writer sees what it set, newest first */
		if (!strcmp(rec->w.meta[i].key, key)) {
			*out = strdup(rec->w.meta[i].value);
			return *out ? 0 : pr_errno(-ENOMEM, "'%s': reading metadata", rec->path);
		}
	}
	err = rec_prepare(rec, "SELECT value FROM meta WHERE key = ?", "reading metadata", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		err = -ENOENT;
		goto out;
	}
	if (rc != SQLITE_ROW) {
		err = rec_sql_error(rec, rc, "reading metadata");
		goto out;
	}
	text = sqlite3_column_text(st, 0);
	len = (size_t)sqlite3_column_bytes(st, 0);
	if (sqlite3_column_type(st, 0) != SQLITE_TEXT || !text || len > REC_MAX_META ||
	    strlen((const char *)text) != len) {
		err = rec_damaged(rec, "meta %s: not a valid text value", key);
		goto out;
	}
	*out = strdup((const char *)text);
	if (!*out)
		err = pr_errno(-ENOMEM, "'%s': reading metadata", rec->path);
out:
	sqlite3_finalize(st);
	return err;
}

