// SPDX-License-Identifier: MIT
/*
 * format/safe_vfs.c - the SQLite VFS readers open recordings through: the
 * default one, except for the journal next to the file.
 *
 * SQLite looks for FILE-journal whenever it reads FILE, and opens it by
 * name, blocking: a FIFO planted there (anyone can, in /tmp) hangs `eprof
 * report` and `info`, and a symlink there makes SQLite believe in a hot
 * journal it cannot open, so the file cannot be read at all. Here a journal
 * (or WAL) that is not a regular file does not exist, and a journal is
 * opened by this file's own code: O_NONBLOCK | O_NOFOLLOW, checked with
 * fstat to be a regular file, then read and written with pread/pwrite.
 * A journal owned by someone other than the recording's owner does not
 * exist either: SQLite would "roll back" whatever pages another user wrote
 * in it into the recording. A
 * journal is never locked (SQLite locks the database file only), so its
 * methods are the few plain file operations below.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/internal.h"

#define SAFE_VFS_NAME	"eprof-safe"

struct jfile {
	sqlite3_file base;
	int fd;
};

static sqlite3_vfs *real_vfs;

static bool is_side_file(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	return (n > 8 && !strcmp(name + n - 8, "-journal")) || (n > 4 && !strcmp(name + n - 4, "-wal"));
}

/* Whether st (a side file of name) has the owner of the database it belongs to. */
static bool owned_like_db(const char *name, const struct stat *st)
{
	char db[4200];
	const char *dash = strrchr(name, '-');
	struct stat dst;

	if (!dash || (size_t)(dash - name) >= sizeof(db))
		return false;
	memcpy(db, name, (size_t)(dash - name));
	db[dash - name] = '\0';
	return !stat(db, &dst) && dst.st_uid == st->st_uid;
}

static int j_close(sqlite3_file *f)
{
	struct jfile *j = (struct jfile *)f;

	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	return SQLITE_OK;
}

static int j_read(sqlite3_file *f, void *buf, int amt, sqlite3_int64 off)
{
	struct jfile *j = (struct jfile *)f;
	size_t done = 0;
	ssize_t r;

	while (done < (size_t)amt) {
		r = pread(j->fd, (char *)buf + done, (size_t)amt - done, (off_t)(off + (sqlite3_int64)done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return SQLITE_IOERR_READ;
		if (!r)
			break;
		done += (size_t)r;
	}
	if (done < (size_t)amt) {
		memset((char *)buf + done, 0, (size_t)amt - done);	/* SQLite requires it */
		return SQLITE_IOERR_SHORT_READ;
	}
	return SQLITE_OK;
}

static int j_write(sqlite3_file *f, const void *buf, int amt, sqlite3_int64 off)
{
	struct jfile *j = (struct jfile *)f;
	size_t done = 0;
	ssize_t r;

	while (done < (size_t)amt) {
		r = pwrite(j->fd, (const char *)buf + done, (size_t)amt - done,
			   (off_t)(off + (sqlite3_int64)done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return errno == ENOSPC ? SQLITE_FULL : SQLITE_IOERR_WRITE;
		done += (size_t)r;
	}
	return SQLITE_OK;
}

static int j_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return ftruncate(((struct jfile *)f)->fd, (off_t)size) ? SQLITE_IOERR_TRUNCATE : SQLITE_OK;
}

static int j_sync(sqlite3_file *f, int flags)
{
	(void)flags;
	return fsync(((struct jfile *)f)->fd) ? SQLITE_IOERR_FSYNC : SQLITE_OK;
}

static int j_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
	struct stat st;

	if (fstat(((struct jfile *)f)->fd, &st))
		return SQLITE_IOERR_FSTAT;
	*size = st.st_size;
	return SQLITE_OK;
}

static int j_lock(sqlite3_file *f, int level)
{
	(void)f;
	(void)level;
	return SQLITE_OK;
}

static int j_check_reserved_lock(sqlite3_file *f, int *out)
{
	(void)f;
	*out = 0;
	return SQLITE_OK;
}

static int j_file_control(sqlite3_file *f, int op, void *arg)
{
	(void)f;
	(void)op;
	(void)arg;
	return SQLITE_NOTFOUND;
}

static int j_sector_size(sqlite3_file *f)
{
	(void)f;
	return 4096;	/* the unix VFS's default */
}

static int j_device_characteristics(sqlite3_file *f)
{
	(void)f;
	return 0;
}

static const sqlite3_io_methods jfile_methods = {
	.iVersion = 1,
	.xClose = j_close,
	.xRead = j_read,
	.xWrite = j_write,
	.xTruncate = j_truncate,
	.xSync = j_sync,
	.xFileSize = j_file_size,
	.xLock = j_lock,
	.xUnlock = j_lock,
	.xCheckReservedLock = j_check_reserved_lock,
	.xFileControl = j_file_control,
	.xSectorSize = j_sector_size,
	.xDeviceCharacteristics = j_device_characteristics,
};

static int safe_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
	struct jfile *j = (struct jfile *)f;
	int oflags = O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC;
	struct stat st;
	int fd;

	(void)vfs;
	if (!(flags & (SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL | SQLITE_OPEN_SUPER_JOURNAL)) ||
	    !name)
		return real_vfs->xOpen(real_vfs, name, f, flags, out_flags);
	f->pMethods = NULL;
	oflags |= flags & SQLITE_OPEN_READWRITE ? O_RDWR : O_RDONLY;
	if (flags & SQLITE_OPEN_CREATE)
		oflags |= O_CREAT;
	fd = open(name, oflags, 0600);
	if (fd < 0)
		return SQLITE_CANTOPEN;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (!(flags & SQLITE_OPEN_SUPER_JOURNAL) && !owned_like_db(name, &st))) {
		close(fd);
		return SQLITE_CANTOPEN;
	}
	j->fd = fd;
	f->pMethods = &jfile_methods;
	if (out_flags)
		*out_flags = flags;
	return SQLITE_OK;
}

static int safe_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	struct stat st;

	(void)vfs;
	if (is_side_file(name) && flags == SQLITE_ACCESS_EXISTS) {
		*out = !lstat(name, &st) && S_ISREG(st.st_mode) && owned_like_db(name, &st);
		return SQLITE_OK;
	}
	return real_vfs->xAccess(real_vfs, name, flags, out);
}

/* The remaining methods are the default VFS's, called with it. */
static int safe_delete(sqlite3_vfs *v, const char *n, int s)
{
	(void)v;
	return real_vfs->xDelete(real_vfs, n, s);
}

static int safe_full_pathname(sqlite3_vfs *v, const char *n, int len, char *out)
{
	(void)v;
	return real_vfs->xFullPathname(real_vfs, n, len, out);
}

static int safe_randomness(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	return real_vfs->xRandomness(real_vfs, n, out);
}

static int safe_sleep(sqlite3_vfs *v, int us)
{
	(void)v;
	return real_vfs->xSleep(real_vfs, us);
}

static int safe_current_time(sqlite3_vfs *v, double *out)
{
	(void)v;
	return real_vfs->xCurrentTime(real_vfs, out);
}

static int safe_get_last_error(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	return real_vfs->xGetLastError(real_vfs, n, out);
}

static int safe_current_time_int64(sqlite3_vfs *v, sqlite3_int64 *out)
{
	(void)v;
	return real_vfs->xCurrentTimeInt64(real_vfs, out);
}

/* The sizes come from the default VFS when it is registered. */
static sqlite3_vfs safe_vfs = {
	.iVersion = 2,
	.zName = SAFE_VFS_NAME,
	.xOpen = safe_open,
	.xDelete = safe_delete,
	.xAccess = safe_access,
	.xFullPathname = safe_full_pathname,
	.xRandomness = safe_randomness,
	.xSleep = safe_sleep,
	.xCurrentTime = safe_current_time,
	.xGetLastError = safe_get_last_error,
	.xCurrentTimeInt64 = safe_current_time_int64,
};

const char *rec_safe_vfs(void)
{
	static bool registered;

	if (registered)
		return SAFE_VFS_NAME;
	real_vfs = sqlite3_vfs_find(NULL);
	if (!real_vfs || real_vfs->iVersion < 2)
		return NULL;		/* cannot happen with the unix VFS: use the default */
	safe_vfs.szOsFile = real_vfs->szOsFile > (int)sizeof(struct jfile) ? real_vfs->szOsFile
									  : (int)sizeof(struct jfile);
	safe_vfs.mxPathname = real_vfs->mxPathname;
	if (sqlite3_vfs_register(&safe_vfs, 0) != SQLITE_OK)
		return NULL;
	registered = true;
	return SAFE_VFS_NAME;
}
