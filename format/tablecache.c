// SPDX-License-Identifier: MIT
/*
 * format/tablecache.c - the on-disk unwind table cache (tablecache.h).
 *
 * An entry's bytes, in the host's byte order (the cache never leaves the
 * machine that wrote it):
 *   magic "EPRFTAB1", u32 version, u32 row_size, u32 rules,
 *   u64 dev, ino, ctime_ns, size, u32 build_id_len, 20 bytes build_id,
 *   u64 nr_rows, u64 frame_len,
 *   then one zstd frame (content size and checksum) of nr_rows rows.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/codec.h"
#include "format/tablecache.h"

#define MAGIC			"EPRFTAB1"
#define VERSION			2u	/* 2: the rows' rules version */
#define HEADER_SIZE		(8 + 4 + 4 + 4 + 4 * 8 + 4 + 20 + 8 + 8)
#define ENTRY_SUFFIX		".tab"
#define TMP_PREFIX		".tmp-"
/* entries listed when trimming the directory: more are left alone */
#define MAX_LISTED		65536

struct table_cache {
	int dirfd;
	uint64_t max_bytes;
};

static atomic_uint tmp_counter;

/*
 * Opens name under at as a directory no one but root can change, creating
 * it (0700) when create is set. Sticky directories (/tmp) may lead to it,
 * but not be it.
 */
static int open_dir(int at, const char *name, bool create, bool last)
{
	struct stat st;
	int fd;

	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(at, name, 0700) && errno != EEXIST)
			return -errno;
		fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return errno == ENOTDIR || errno == ELOOP ? -ENOTDIR : -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	if (st.st_uid != 0 || ((st.st_mode & 022) && (last || !(st.st_mode & S_ISVTX)))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int table_cache__open(const char *dir, uint64_t max_bytes, struct table_cache **out)
{
	char *copy, *comp, *save = NULL, *next;
	struct table_cache *c;
	int fd, nfd;

	*out = NULL;
	if (!dir || dir[0] != '/')
		return -EINVAL;
	copy = strdup(dir);
	if (!copy)
		return -ENOMEM;
	fd = open_dir(AT_FDCWD, "/", false, false);
	for (comp = strtok_r(copy, "/", &save); comp && fd >= 0; comp = next) {
		next = strtok_r(NULL, "/", &save);
		if (!strcmp(comp, "..") || !strcmp(comp, ".")) {
			close(fd);
			fd = -EINVAL;
			break;
		}
		nfd = open_dir(fd, comp, true, !next);
		close(fd);
		fd = nfd;
	}
	free(copy);
	if (fd < 0)
		return fd;
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	c->dirfd = fd;
	c->max_bytes = max_bytes ? max_bytes : TABLE_CACHE_MAX_BYTES;
	*out = c;
	return 0;
}

void table_cache__close(struct table_cache *c)
{
	if (!c)
		return;
	close(c->dirfd);
	free(c);
}

/* The entry's file name: the build-id in hex, then the file's identity. */
static void entry_name(const struct table_cache_key *k, char *buf, size_t len)
{
	char id[2 * sizeof(k->build_id) + 1] = "none";
	uint32_t i, n = k->build_id_len <= sizeof(k->build_id) ? k->build_id_len : 0;

	for (i = 0; i < n; i++)
		snprintf(id + 2 * i, 3, "%02x", k->build_id[i]);
	snprintf(buf, len, "%s-%llx-%llx-%llx-%llx" ENTRY_SUFFIX, id,
		 (unsigned long long)k->dev, (unsigned long long)k->ino,
		 (unsigned long long)k->ctime_ns, (unsigned long long)k->size);
}

static void put_u32(uint8_t **p, uint32_t v)
{
	memcpy(*p, &v, 4);
	*p += 4;
}

static void put_u64(uint8_t **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

static uint32_t get_u32(const uint8_t **p)
{
	uint32_t v;

	memcpy(&v, *p, 4);
	*p += 4;
	return v;
}

static uint64_t get_u64(const uint8_t **p)
{
	uint64_t v;

	memcpy(&v, *p, 8);
	*p += 8;
	return v;
}

static void write_header(uint8_t *h, const struct table_cache_key *k, uint32_t row_size,
			 uint64_t nr, uint64_t frame_len)
{
	uint8_t *p = h;

	memcpy(p, MAGIC, 8);
	p += 8;
	put_u32(&p, VERSION);
	put_u32(&p, row_size);
	put_u32(&p, k->rules);
	put_u64(&p, k->dev);
	put_u64(&p, k->ino);
	put_u64(&p, k->ctime_ns);
	put_u64(&p, k->size);
	put_u32(&p, k->build_id_len);
	memcpy(p, k->build_id, 20);
	p += 20;
	put_u64(&p, nr);
	put_u64(&p, frame_len);
}

/* 0 when the header h is key's, for rows of row_size; *nr and *frame_len out. */
static int check_header(const uint8_t *h, const struct table_cache_key *k, size_t row_size,
			uint64_t *nr, uint64_t *frame_len)
{
	const uint8_t *p = h + 8;
	struct table_cache_key got = { 0 };

	if (memcmp(h, MAGIC, 8) || get_u32(&p) != VERSION || get_u32(&p) != row_size ||
	    get_u32(&p) != k->rules)
		return -EBADMSG;
	got.dev = get_u64(&p);
	got.ino = get_u64(&p);
	got.ctime_ns = get_u64(&p);
	got.size = get_u64(&p);
	got.build_id_len = get_u32(&p);
	memcpy(got.build_id, p, 20);
	p += 20;
	*nr = get_u64(&p);
	*frame_len = get_u64(&p);
	if (got.dev != k->dev || got.ino != k->ino || got.ctime_ns != k->ctime_ns ||
	    got.size != k->size || got.build_id_len != k->build_id_len ||
	    got.build_id_len > sizeof(got.build_id) ||
	    memcmp(got.build_id, k->build_id, got.build_id_len))
		return -EBADMSG;
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = read(fd, (char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EBADMSG;
		done += (size_t)n;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* The rows of the entry open at fd, checked against key. */
static int read_entry(int fd, const struct table_cache_key *key, size_t row_size,
		      size_t max_rows, void **rows, size_t *nr)
{
	uint8_t h[HEADER_SIZE];
	struct bytebuf out = { 0 };
	uint64_t n, frame_len;
	struct stat st;
	void *frame;
	int err;

	if (fstat(fd, &st))
		return -errno;
	/* root's own 0600 file, of a size a table can have */
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077) ||
	    st.st_size <= HEADER_SIZE || (uint64_t)st.st_size > HEADER_SIZE + 2 * max_rows * row_size + 4096)
		return -EBADMSG;
	err = read_all(fd, h, sizeof(h));
	if (err)
		return err == -EBADMSG ? err : -EBADMSG;
	err = check_header(h, key, row_size, &n, &frame_len);
	if (err)
		return err;
	if (!n || n > max_rows || frame_len != (uint64_t)st.st_size - HEADER_SIZE)
		return -EBADMSG;
	frame = malloc(frame_len);
	if (!frame)
		return -ENOMEM;
	err = read_all(fd, frame, frame_len);
	if (!err)
		err = codec__zstd_decompress(NULL, frame, frame_len, n * row_size, &out);
	free(frame);
	if (!err && out.len != n * row_size)
		err = -EBADMSG;
	if (err) {
		bytebuf__release(&out);
		return err == -ENOMEM ? err : -EBADMSG;
	}
	*rows = out.data;
	*nr = n;
	return 0;
}

bool table_cache__has(struct table_cache *c, const struct table_cache_key *key)
{
	struct stat st;
	char name[160];

	entry_name(key, name, sizeof(name));
	return !fstatat(c->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) &&
	       st.st_uid == 0;
}

int table_cache__get(struct table_cache *c, const struct table_cache_key *key, size_t row_size,
		     size_t max_rows, void **rows, size_t *nr)
{
	char name[160];
	int fd, err;

	*rows = NULL;
	*nr = 0;
	if (!c || !row_size || !max_rows)
		return -ENOENT;
	entry_name(key, name, sizeof(name));
	fd = openat(c->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -EBADMSG;
	err = read_entry(fd, key, row_size, max_rows, rows, nr);
	if (!err)
		futimens(fd, NULL);	/* used now: trimmed last */
	close(fd);
	if (err == -EBADMSG)
		unlinkat(c->dirfd, name, 0);
	return err;
}

struct listed {
	char *name;
	uint64_t bytes;
	struct timespec used;
};

static int by_use(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Removes the least recently used entries until the rest fit the bound. */
static void trim(struct table_cache *c)
{
	struct listed *v = NULL, *grown;
	size_t nr = 0, alloc = 0, i;
	uint64_t total = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	fd = openat(c->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) && nr < MAX_LISTED) {
		size_t len = strlen(de->d_name);

		if (len <= strlen(ENTRY_SUFFIX) ||
		    strcmp(de->d_name + len - strlen(ENTRY_SUFFIX), ENTRY_SUFFIX) ||
		    fstatat(c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			grown = realloc(v, alloc * sizeof(*v));
			if (!grown)
				break;
			v = grown;
		}
		v[nr].name = strdup(de->d_name);
		if (!v[nr].name)
			break;
		v[nr].bytes = (uint64_t)st.st_size;
		v[nr].used = st.st_mtim;
		total += v[nr].bytes;
		nr++;
	}
	closedir(d);
	if (total > c->max_bytes) {
		qsort(v, nr, sizeof(*v), by_use);
		for (i = 0; i < nr && total > c->max_bytes; i++)
			if (!unlinkat(c->dirfd, v[i].name, 0) || errno == ENOENT)
				total -= v[i].bytes;
	}
	for (i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
}

int table_cache__put(struct table_cache *c, const struct table_cache_key *key,
		     const void *rows, size_t nr, size_t row_size)
{
	char name[160], tmp[64];
	uint8_t h[HEADER_SIZE];
	void *frame = NULL;
	size_t frame_len = 0;
	int fd, err;

	if (!c || !nr || !row_size || key->build_id_len > sizeof(key->build_id) ||
	    HEADER_SIZE + (uint64_t)nr * row_size > c->max_bytes)
		return -EINVAL;
	err = codec__zstd_compress(NULL, 3, rows, nr * row_size, &frame, &frame_len);
	if (err)
		return err;
	write_header(h, key, (uint32_t)row_size, nr, frame_len);
	entry_name(key, name, sizeof(name));
	snprintf(tmp, sizeof(tmp), TMP_PREFIX "%d-%u", (int)getpid(),
		 atomic_fetch_add(&tmp_counter, 1));
	fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(frame);
		return -errno;
	}
	err = fchmod(fd, 0600) ? -errno : 0;
	err = err ?: write_all(fd, h, sizeof(h));
	err = err ?: write_all(fd, frame, frame_len);
	if (close(fd) && !err)
		err = -errno;
	free(frame);
	if (!err && renameat(c->dirfd, tmp, c->dirfd, name))
		err = -errno;
	if (err) {
		unlinkat(c->dirfd, tmp, 0);
		return err;
	}
	trim(c);
	return 0;
}
