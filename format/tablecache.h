/* SPDX-License-Identifier: MIT */
/*
 * format/tablecache.h - unwind tables kept on disk between recordings, so a
 * second `record` of the same program starts with every table in.
 *
 * An entry is one file in a directory that only root can change (every
 * component of its path owned by root and writable by no one else, or
 * sticky), named and headed by the key of the binary it was built from:
 * its build-id and its identity as fstat(2) gives it (device, inode,
 * ctime, size). A build-id alone never picks an entry: two files that
 * claim one build-id are different files, and the ctime of a file is not
 * the user's to set. The rows follow as one zstd frame with its content
 * checksum, checked on every read. Entries are 0600, written whole to a
 * temporary name and renamed; the directory is kept under a byte bound,
 * the least recently used entries removed first.
 *
 * The rows are opaque here (row_size bytes each): record/ knows their
 * layout and checks their order.
 */
#ifndef EPROF_FORMAT_TABLECACHE_H
#define EPROF_FORMAT_TABLECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where tables are kept unless record says otherwise (README.md). */
#define TABLE_CACHE_DIR_DEFAULT	"/var/cache/eprof/tables"
/* The directory's bound, all entries together. */
#define TABLE_CACHE_MAX_BYTES	(256ull << 20)

struct table_cache_key {
	uint64_t dev, ino, ctime_ns, size;
	uint8_t build_id[20];
	uint32_t build_id_len;		/* 0: the file has none */
	uint32_t rules;			/* the rows' version (UNW_ABI_VERSION): an entry
					   built under other rules is not used */
};

struct table_cache;

/*
 * Opens (and creates, 0700, when missing) the cache directory dir. Fails
 * with -EPERM when a component of its path could be changed by a user
 * other than root, -ENOTDIR/-ELOOP on a non-directory or a symbolic
 * link, or another -errno. max_bytes 0: TABLE_CACHE_MAX_BYTES.
 */
int table_cache__open(const char *dir, uint64_t max_bytes, struct table_cache **out);

/* Accepts NULL. */
void table_cache__close(struct table_cache *c);

/*
 * The rows kept for key: a malloc'd array of *nr rows of row_size bytes
 * each (1 <= *nr <= max_rows) the caller frees. -ENOENT: no entry;
 * -EBADMSG: an entry that is damaged, of another key, or not root's 0600
 * file (it is removed); -ENOMEM. Marks the entry used.
 */
int table_cache__get(struct table_cache *c, const struct table_cache_key *key, size_t row_size,
		     size_t max_rows, void **rows, size_t *nr);

/*
 * Whether an entry for key is there: a root-owned plain file by its name,
 * its rows neither read nor checked (a get may still refuse it).
 */
bool table_cache__has(struct table_cache *c, const struct table_cache_key *key);

/*
 * Keeps nr rows for key, replacing an older entry, then removes the least
 * recently used entries past the bound. 0 or -errno; a failure leaves no
 * partial entry.
 */
int table_cache__put(struct table_cache *c, const struct table_cache_key *key,
		     const void *rows, size_t nr, size_t row_size);

#endif
