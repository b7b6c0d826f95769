// SPDX-License-Identifier: MIT
/*
 * record/unwind.c - unwind tables for the BPF walker (bpf/unwind.bpf.h).
 *
 * The walker keys tables by the file it finds behind a PC: device, inode
 * and ctime (struct unw_key), which is what it can read from a VMA. A
 * table is built once per file (elf/cfi.c does the parsing) into a BPF
 * array of exactly its size, and that one array is inserted into
 * `unw_tables` under every key of that file, so a libc mapped by a
 * thousand processes costs one table. A file is its device, inode, ctime
 * and size as fstat(2) gives them, never its build-id: a build-id is a note
 * anyone can write, and a user's binary carrying the build-id of root's
 * must not lend root's program its table.
 *
 * Work arrives two ways and is only ever done from the record loop, a
 * bounded amount per turn, never from a ring-buffer or side-band callback:
 *   - mappings of the targets (side-band mmap records, the /proc scan of
 *     -p) are queued, so a command's own binaries get tables as they are
 *     mapped, typically before main() runs far;
 *   - the walker reports file mappings it met without a table in
 *     `unw_missing`, with the key it computed itself: that covers -a, where
 *     nothing is built until it is sampled, and any file whose key user
 *     space would compute differently.
 * Until a table is in, the walker takes frame-pointer steps and counts
 * them. A file without CFI gets the shared empty table, so it is asked
 * for only once.
 *
 * Building a large binary's table takes long (cc1: about a second), so
 * builds run on builder threads: the loop hands one a duplicated file
 * descriptor, goes on draining the ring buffer, and inserts the finished
 * table at a later turn (an eventfd wakes it). A thread touches nothing
 * but its job. Jobs wait smallest file first, and there are two threads,
 * so one huge binary (a browser, a compiler) does not hold up the others. The command's own binaries, and -p's processes, are queued
 * before sampling starts, and record waits (a bounded time) for them.
 *
 * Memory: each table is charged the kernel's size (an array element is
 * rounded up to 8 bytes). Over the budget, the least recently mapped
 * table is dropped; its files fall back to frame pointers until a walker
 * miss brings it back.
 *
 * Partial tables: a binary whose table would take more than a
 * PARTIAL_SHARE of the budget (libLLVM, a browser, libtorch on a small
 * machine) is never built whole: its map holds only the windows of code
 * walks meet (UNW_WINDOW_SHIFT of file offsets each), UNW_CFA_ABSENT rows
 * elsewhere, which the walker reports in `unw_absent` and treats as "no
 * table yet" (a raw stack copy). The windows asked for are built in
 * batches on the builder threads (elf/cfi.h's range build, which holds
 * the CFI section and the batch's rows, never the whole table) and
 * appended to the binary's map, window by window (bpf/unwind.h's partial
 * layout: a slot per window, written last), so a batch costs the rows it
 * adds; a map without room moves to one half as large again. A raw
 * stack that meets a window not built yet asks for it and waits. The
 * decision takes no whole build: a CFI section over the share (a table
 * has more bytes than its section) or a whole build over its bound goes
 * by windows. A big program thus costs what it runs, not what it maps.
 */
#include <errno.h>
#include <bpf/bpf.h>
#include <fcntl.h>
#include <malloc.h>
#include <linux/types.h>
#include <pthread.h>
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "events.h"
#include "elf/cfi.h"
#include "elf/elf_file.h"
#include "format/tablecache.h"
#include "record/budget.h"
#include "record/stacks.h"
#include "record/unwind.h"
#include "record/unwind_windows.h"
#include "util/bsearch.h"
#include "util/clock.h"
#include "util/hashmap.h"
#include "util/log.h"
#include "util/vec.h"

#define MISSES_PER_TURN	64	/* walker misses read per loop turn */
#define MAX_OPEN_TRIES	3	/* then a file is treated as having no CFI */
#define MAX_ROWS	(1u << 23)	/* the walker's binary search covers this many */
#define NR_BUILDERS	2
#define PARTIAL_SHARE	8	/* a table over budget / this loads by windows */
#define PARTIAL_HELD	(256ull << 20)	/* partial tables' sources held here at most */
#define WIN_INIT_ROWS	4096	/* a partial table's first room for rows; it grows by half */
#define WINDOWS_KEEP_DIV 4	/* symbols leave this part of the memory budget to windows */
#define WINDOWS_PER_TURN 256	/* unw_absent entries read per loop turn */
#define BATCH_RANGES	64	/* ranges of windows one batch builds at most */
#define MAX_SOURCE_TRIES 8	/* batches whose CFI would not fit their reserve, then left out */
#define BIN_MAPPINGS	4	/* a binary's newest mappings, to open it again by */
/*
 * A binary's windows that found the memory budget short wait, and are
 * built again once it has room: a batch BATCH_GAP_NS later, the gap
 * doubling with each batch in a row that is short, to this at most.
 */
#define WAIT_MAX_NS	1000000000ull
#define BATCH_RESERVE	(16ull << 20)	/* a batch's share of the memory budget, its source read */
/*
 * Between two batches of a binary, at least: raw stacks are tried again
 * as often (rawstack.c), and a map that grew is written again whole.
 */
#define BATCH_GAP_NS	20000000ull
/*
 * Jobs waiting or building at most: each holds a descriptor of its file,
 * so thousands of distinct binaries mapped at once wait in the queue (or
 * in the walker's misses) instead of in open files.
 */
#define MAX_JOBS_OUT	32
/*
 * The most of the memory budget (record/budget.h) one build reserves: its
 * bound (cfi_table__build_max). The largest real builds need far less
 * (libLLVM-14: about 80 MiB), nor a quarter of the budget, so that two
 * builds leave room for symbols; with less free, a build takes what is free
 * once no other build holds a reservation, and a binary whose table does
 * not fit in it is unwound with frame pointers.
 */
#define BUILD_RESERVE_MAX	(256ull << 20)

enum file_state {
	FILE_NEW,
	FILE_PENDING,		/* its binary's table is being built */
	FILE_LOADED,		/* its key maps to its binary's table */
	FILE_EMPTY,		/* its key maps to the empty table: no CFI */
};

/* Where a process maps a file: /proc/TGID/map_files/START-END opens it. */
struct unw_mapping {
	uint32_t tgid;
	uint64_t start, end;
};

/* A file as fstat(2) tells it from every other. */
struct file_ident {
	uint64_t dev, ino, ctime_ns, size;
};

/* One binary: one file. */
struct unw_binary {
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint32_t build_id_len;
	struct file_ident self;
	char *path;
	int fd;				/* its table (inner map), -1 when none */
	int err;			/* why it has none: 0, or cfi_table__build()'s */
	bool building;			/* a job for the builder thread is out */
	bool pinned;			/* never evicted: the vDSO's, built once at open */
	size_t nr_rows;
	uint64_t bytes;
	uint64_t charged;		/* of bytes, taken from the memory budget */
	uint64_t last_used;
	uint64_t build_ns;
	const struct unw_row *rows;	/* its table mapped read-only (rows[0]: the count), or NULL */
	size_t rows_len;
	/*
	 * A partial table: its windows' states, and in its map (bpf/unwind.h,
	 * mapped writable at rows) nr_slots slots and nr_data rows of room for
	 * nr_rows - nr_slots.
	 */
	struct unw_windows *win;
	uint32_t nr_slots;
	size_t nr_data;
	struct cfi_source *src;		/* its CFI, indexed (elf/cfi.h): a batch's own while out */
	uint64_t held;			/* of u->full_bytes: src */
	uint32_t win_gen;		/* which win a batch was for (evictions make new ones) */
	bool win_out;
	bool win_failed;		/* its CFI cannot be read: no more batches */
	bool win_nofile;		/* no mapping of it opened: batches wait for a new one */
	uint8_t win_tries;		/* batches whose CFI was over their reserve, in a row */
	size_t win_batch;		/* windows a batch takes at most (0: all asked for) */
	uint8_t win_waits;		/* batches short of memory in a row */
	uint64_t win_next;		/* its next batch not before (BATCH_GAP_NS, WAIT_MAX_NS) */
	uint64_t win_need;		/* the memory budget its last short batch lacked */
	bool win_listed;		/* in want_bins */
	/* its newest mappings, newest first, to open it again for a batch */
	struct unw_mapping maps[BIN_MAPPINGS];
	size_t nr_maps;
};

/* One file key seen. */
struct unw_file {
	struct unw_key key;
	enum file_state state;
	unsigned int tries;
	bool not_elf;			/* a mapped file that is not code (a header, data) */
	size_t bin;			/* index + 1 into bins, 0: not known */
};

struct unw_work {
	uint32_t tgid;
	uint64_t start, end;
	char *path;
};

/* A table built by the builder thread, from fd, for bins[bin]. */
struct unw_job {
	size_t bin;
	uint64_t size;			/* of the file: smaller ones go first */
	int fd;				/* a duplicate, closed by the builder */
	int err;			/* the result: 0 and map_fd, or -errno */
	int map_fd;
	size_t nr_rows;
	uint64_t bytes, build_ns;
	uint64_t charged;		/* of the memory budget, handed to the binary */
	const char *source;
	bool partial;			/* a big table: loaded by windows */
	uint32_t nr_slots;		/* its windows */
	/* a batch of a partial table's windows: the ranges, the file to open, the rows */
	struct cfi_range *ranges;
	size_t nr_ranges;
	uint32_t win_gen;
	struct cfi_source *src;		/* the binary's, or opened by the batch */
	uint64_t src_charged;		/* of charged: a source the batch opened */
	bool short_reserve;		/* it got less of the memory budget than it asked */
	bool no_file;			/* no mapping of the file opened it, the same file */
	uint64_t need;			/* the memory budget it lacked (short_reserve, -EAGAIN) */
	char *path;
	struct unw_mapping maps[BIN_MAPPINGS];
	size_t nr_maps;
	struct file_ident ident;
	struct unw_row *full;
	size_t nr_full;
	struct table_cache *cache;	/* NULL: none */
	struct table_cache_key key;	/* the file's, for the cache */
	bool from_cache, stored;
	bool built;			/* its entry was not in the cache when queued */
	struct unw_job *next;
};

struct unwinder {
	int tables_fd, missing_fd, bins_fd, absent_fd;
	int empty_fd;			/* the table of files without CFI: no rows */
	struct unw_binary *bins;
	size_t nr_bins, alloc_bins;
	struct hashmap bin_index;	/* hash of the file's identity -> index into bins */
	struct unw_file *files;
	size_t nr_files, alloc_files;
	struct hashmap file_index;	/* hash of the file key -> index into files */
	struct unw_work *queue;
	size_t q_head, q_nr, q_alloc;
	uint64_t budget, used, clock;
	uint64_t full_bytes;		/* partial tables' sources, held here */
	size_t *want_bins;		/* partial binaries with windows asked for */
	size_t nr_want_bins, alloc_want_bins;
	struct unwind_totals st;

	/* the builder thread: todo and done lists under lock */
	pthread_t threads[NR_BUILDERS];
	size_t nr_threads;
	bool stopping;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct unw_job *todo, *done;
	size_t jobs_out;
	size_t builds_out;		/* of jobs_out, those with no entry in the cache */
	size_t reserving;		/* builds holding a share of the memory budget */
	int done_fd;			/* eventfd: a job is done (the loop waits on it) */
	struct table_cache *cache;	/* tables kept between recordings, or NULL */
};

static bool key_eq(const struct unw_key *a, const struct unw_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->ctime_ns == b->ctime_ns;
}

static uint64_t key_hash(const struct unw_key *k)
{
	return hash_mix(hash_mix(hash_u64(k->ctime_ns), k->dev), k->ino);
}

static bool file_eq(uint32_t i, const void *key, const void *ctx)
{
	return key_eq(&((const struct unwinder *)ctx)->files[i].key, key);
}

static bool bin_eq(uint32_t i, const void *key, const void *ctx)
{
	const struct unw_binary *b = &((const struct unwinder *)ctx)->bins[i];

	return !memcmp(&b->self, key, sizeof(b->self));
}

static uint64_t ident_hash(const struct file_ident *id)
{
	return hash_mix(hash_mix(hash_mix(hash_u64(id->ctime_ns), id->dev), id->ino), id->size);
}

/*
 * The key the walker computes for the file open at fd (see unw_vma_cb),
 * and the file's identity.
 */
static int key_of_fd(int fd, struct unw_key *k, struct file_ident *id)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	memset(k, 0, sizeof(*k));
	k->dev = (uint32_t)(major(st.st_dev) << 20 | minor(st.st_dev));
	k->ino = st.st_ino;
	k->ctime_ns = (uint64_t)st.st_ctim.tv_sec * 1000000000ull + (uint64_t)st.st_ctim.tv_nsec;
	memset(id, 0, sizeof(*id));
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->ctime_ns = k->ctime_ns;
	id->size = (uint64_t)st.st_size;
	return 0;
}

static struct unw_file *file_for(struct unwinder *u, const struct unw_key *k)
{
	uint64_t h = key_hash(k);
	struct unw_file *f;
	uint32_t *slot;

	slot = hashmap__find(&u->file_index, h, file_eq, k, u);
	if (slot)
		return &u->files[*slot];
	if (vec__grow(&u->files, &u->alloc_files, u->nr_files + 1, sizeof(*u->files)) ||
	    hashmap__add(&u->file_index, h, (uint32_t)u->nr_files))
		return NULL;
	f = &u->files[u->nr_files++];
	memset(f, 0, sizeof(*f));
	f->key = *k;
	return f;
}

static struct unw_binary *binary_for(struct unwinder *u, const uint8_t *id, uint32_t len,
				     const struct file_ident *ident, const char *path)
{
	uint64_t h = ident_hash(ident);
	struct unw_binary *b;
	uint32_t *slot;
	char *copy;

	slot = hashmap__find(&u->bin_index, h, bin_eq, ident, u);
	if (slot)
		return &u->bins[*slot];
	copy = strdup(path);
	if (!copy || vec__grow(&u->bins, &u->alloc_bins, u->nr_bins + 1, sizeof(*u->bins)) ||
	    hashmap__add(&u->bin_index, h, (uint32_t)u->nr_bins)) {
		free(copy);
		return NULL;
	}
	b = &u->bins[u->nr_bins++];
	memset(b, 0, sizeof(*b));
	b->path = copy;
	memcpy(b->build_id, id, len);
	b->build_id_len = len;
	b->self = *ident;
	b->fd = -1;
	return b;
}

static int set_table(struct unwinder *u, const struct unw_key *k, int inner_fd)
{
	__u32 v = (__u32)inner_fd;

	if (bpf_map_update_elem(u->tables_fd, k, &v, BPF_ANY))
		return -errno;
	pr_debug("unwind key %x:%llu:%llu -> table fd %d", k->dev, (unsigned long long)k->ino,
		 (unsigned long long)k->ctime_ns, inner_fd);
	return 0;
}

/*
 * Maps b's table for unwinder__row(), writable for a partial table (its
 * windows are written there); without the mapping its rows are not found.
 */
static void map_rows(struct unw_binary *b)
{
	size_t len = (b->nr_rows + 1) * sizeof(struct unw_row);
	void *p;

	len = (len + 4095) & ~(size_t)4095;
	p = mmap(NULL, len, PROT_READ | (b->win ? PROT_WRITE : 0), MAP_SHARED, b->fd, 0);
	if (p == MAP_FAILED) {
		pr_debug("cannot map the unwind table of '%s': %s", b->path, strerror(errno));
		return;
	}
	b->rows = p;
	b->rows_len = len;
}

/* Closes b's table (the kernel frees it once no key refers to it). */
static void drop_table(struct unw_binary *b)
{
	if (b->rows)
		munmap((void *)b->rows, b->rows_len);
	b->rows = NULL;
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	unw_windows__free(b->win);
	b->win = NULL;
	cfi_source__close(b->src);
	b->src = NULL;
	b->win_gen++;			/* a batch out is dropped when it comes back */
	b->win_out = b->win_failed = b->win_nofile = false;
	b->win_tries = b->win_waits = 0;
	b->win_batch = 0;
	b->win_next = b->win_need = 0;
	b->nr_data = 0;
	mem_budget__give(b->charged);
	b->charged = 0;
}

/* The bytes of b's source held here (its rows are in its map). */
static uint64_t win_bytes(const struct unw_binary *b)
{
	return cfi_source__bytes(b->src);
}

/* Counts what b holds now in u->full_bytes. */
static void account_held(struct unwinder *u, struct unw_binary *b)
{
	uint64_t now = win_bytes(b);

	u->full_bytes = u->full_bytes - b->held + now;
	b->held = now;
}

/* Drops least recently used tables until used + need fits the budget. */
static void make_room(struct unwinder *u, uint64_t need, const struct unw_binary *keep)
{
	while (u->used + need > u->budget) {
		struct unw_binary *lru = NULL;
		size_t i, idx;

		for (i = 0; i < u->nr_bins; i++) {
			struct unw_binary *b = &u->bins[i];

			if (b->fd >= 0 && b != keep && !b->pinned &&
			    (!lru || b->last_used < lru->last_used))
				lru = b;
		}
		if (!lru)
			return;
		idx = (size_t)(lru - u->bins) + 1;
		for (i = 0; i < u->nr_files; i++) {
			struct unw_file *f = &u->files[i];

			if (f->bin == idx && f->state == FILE_LOADED) {
				bpf_map_delete_elem(u->tables_fd, &f->key);
				f->state = FILE_NEW;
			}
		}
		pr_debug("unwind table of '%s' evicted (%llu KiB)", lru->path,
			 (unsigned long long)(lru->bytes >> 10));
		u->full_bytes -= lru->held;
		lru->held = 0;
		drop_table(lru);
		u->used -= lru->bytes;
		u->st.evicted++;
	}
}

/*
 * Writes rows as elements 1.. of the array map_fd, a bounded batch at a
 * time straight from the builder's table: no second copy of a table that
 * can be tens of MB.
 */
static int load_rows(int map_fd, const struct unw_row *rows, size_t nr)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	enum { BATCH = 8192 };
	__u32 keys[BATCH], count, i;
	size_t done;

	for (done = 0; done < nr; done += count) {
		count = nr - done < BATCH ? (__u32)(nr - done) : BATCH;
		for (i = 0; i < count; i++)
			keys[i] = (__u32)(done + i + 1);
		if (bpf_map_update_batch(map_fd, keys, &rows[done], &count, &bopts))
			return errno ? -errno : -EIO;
		if (!count)
			return -EIO;
	}
	return 0;
}

/*
 * Writes the header row and the rows into the new table through its
 * memory (the map is mappable, and no walker sees it yet): a memcpy, where
 * a batch update costs about half a microsecond a row (cc1's 479k rows:
 * 240 ms). -EOPNOTSUPP when the map cannot be mapped.
 */
static int copy_rows(int map_fd, const struct unw_row *head, const struct unw_row *rows,
		     size_t nr)
{
	size_t len = ((nr + 1) * sizeof(*rows) + 4095) & ~(size_t)4095;
	struct unw_row *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		return -EOPNOTSUPP;
	p[0] = *head;
	memcpy(p + 1, rows, nr * sizeof(*rows));
	munmap(p, len);
	return 0;
}

/*
 * The table kept on disk for j's file, checked as a built one is: rows in
 * increasing order, the last one ending the table. 0 or -ENOENT.
 */
static int cached_table(struct unw_job *j, uint64_t reserve, struct cfi_table *t)
{
	struct unw_row *rows;
	void *data;
	size_t nr, i, max = reserve / sizeof(*rows);

	if (max > MAX_ROWS - 1)
		max = MAX_ROWS - 1;
	if (!j->cache || !max ||
	    table_cache__get(j->cache, &j->key, sizeof(*rows), max, &data, &nr))
		return -ENOENT;
	rows = data;
	for (i = 1; i < nr && rows[i - 1].off < rows[i].off; i++)
		;
	if (i < nr || rows[nr - 1].cfa_type != UNW_CFA_NONE) {
		free(data);
		return -ENOENT;
	}
	memset(t, 0, sizeof(*t));
	t->rows = rows;
	t->nr_rows = nr;
	t->source = "the table cache";
	return 0;
}

/* The kernel's bytes for a table of nr rows (an array rounds elements up to 8). */
static uint64_t table_bytes(size_t nr)
{
	return (uint64_t)(nr + 1) * ((sizeof(struct unw_row) + 7) & ~7ul) + 4096;
}

/* A new inner map holding rows (after the count row) into *map_fd. */
static int new_table(const struct unw_row *rows, size_t nr, int *map_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, mopts, .map_flags = UNW_TABLE_MAP_FLAGS);
	struct unw_row head = { 0 };
	__u32 zero = 0, n = (__u32)nr + 1;
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "eprof_unw", sizeof(__u32),
			    sizeof(struct unw_row), n, &mopts);
	if (fd < 0)
		return -errno;
	head.off = n - 1;	/* row 0: how many rows follow (unw_find_row) */
	err = copy_rows(fd, &head, rows, nr);
	if (err == -EOPNOTSUPP) {
		err = bpf_map_update_elem(fd, &zero, &head, BPF_ANY) ? -errno : 0;
		if (!err)
			err = load_rows(fd, rows, nr);
	}
	if (err) {
		close(fd);
		return err;
	}
	*map_fd = fd;
	return 0;
}

/*
 * A new partial table (bpf/unwind.h) for nr_slots windows, with room for
 * cap rows, into *map_fd: no window in. Its row 0 is written through its
 * memory; -EOPNOTSUPP when it cannot be mapped (its windows could not be
 * written).
 */
static int new_windowed(uint32_t nr_slots, size_t cap, int *map_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, mopts, .map_flags = UNW_TABLE_MAP_FLAGS);
	struct unw_row head = { .off = nr_slots, .cfa_type = UNW_CFA_WINDOWED };
	struct unw_row *p;
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "eprof_unw_win", sizeof(__u32),
			    sizeof(struct unw_row), (__u32)(1 + nr_slots + cap), &mopts);
	if (fd < 0)
		return -errno;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return -EOPNOTSUPP;
	}
	p[0] = head;
	munmap(p, 4096);
	*map_fd = fd;
	return 0;
}

/* The windows of a file of size bytes, as a partial table's slots. */
static uint32_t slots_of(uint64_t size)
{
	uint64_t n = (size + (1u << UNW_WINDOW_SHIFT) - 1) >> UNW_WINDOW_SHIFT;

	return n < 1 ? 1 : n > UNW_NR_WINDOWS ? UNW_NR_WINDOWS : (uint32_t)n;
}

/*
 * Whether the file open at fd goes by windows without a whole build: its
 * CFI section is over the share (a table takes more bytes than its
 * section: libc 1.9, cc1 1.8, libLLVM-14 3.5 times).
 */
static bool too_big_to_build(int fd, uint64_t share)
{
	uint64_t size;

	return !cfi_section__size(fd, &size) && size > share;
}

/*
 * Whether the file open at fd has a CFI section over what even a range
 * build reads (CFI_MAX_SECTION_RANGES: a sparse 2 GB .eh_frame): refused
 * at once, with the warning, rather than by windows that never load.
 */
static bool over_range_bound(int fd)
{
	return too_big_to_build(fd, CFI_MAX_SECTION_RANGES);
}

/*
 * The whole table of the file open at fd (the table cache's, else built
 * within reserve bytes: the rows alone for the cache's), or of the ELF
 * image in memory when fd is -1. *partial when a file's is too big for
 * the share: it goes by windows (nothing in t).
 */
static int whole_table(int fd, const void *image, size_t size, uint64_t share, uint64_t reserve,
		       struct unw_job *j, struct cfi_table *t, bool *partial)
{
	int err;

	*partial = false;
	if (fd >= 0 && !cached_table(j, reserve, t)) {
		j->from_cache = true;
	} else if (fd >= 0 && too_big_to_build(fd, share)) {
		if (over_range_bound(fd))
			return -E2BIG;
		*partial = true;
		return 0;
	} else {
		err = fd >= 0 ? cfi_table__build_max(fd, reserve, t) :
				cfi_table__build_image(image, size, t);
		/* over the bounds or the reserve: its windows may fit */
		if (err == -E2BIG && fd >= 0) {
			if (over_range_bound(fd))
				return -E2BIG;
			*partial = true;
			return 0;
		}
		if (!err && (!t->nr_rows || t->nr_rows >= MAX_ROWS))
			err = -ENOENT;
		if (err)
			return err;
		/* kept for the next recording; a failure only costs the next one a build */
		if (fd >= 0 && j->cache &&
		    !table_cache__put(j->cache, &j->key, t->rows, t->nr_rows, sizeof(*t->rows)))
			j->stored = true;
	}
	if (fd >= 0 && table_bytes(t->nr_rows) > share) {
		cfi_table__release(t);
		*partial = true;
	}
	return 0;
}

/*
 * Builds the table of the file open at fd, or of the ELF image in memory
 * when fd is -1, into a new inner map (j->map_fd): the whole table, or
 * for a big file's (fd only) one ABSENT row (j->partial: its windows are
 * built as walks meet them). From a file it holds at most reserve bytes
 * of the memory budget while building, and the rows and the map must fit
 * in it. Touches nothing shared: the builder thread runs it.
 */
static int make_table(int fd, const void *image, size_t size, uint64_t budget, uint64_t reserve,
		      struct unw_job *j)
{
	struct cfi_table t = { 0 };
	uint64_t t0 = now_ns();
	struct stat st;
	bool partial;
	int err;

	err = whole_table(fd, image, size, budget / PARTIAL_SHARE, reserve, j, &t, &partial);
	if (err)
		goto out;
	if (partial) {
		j->nr_slots = slots_of(fstat(fd, &st) ? 0 : (uint64_t)st.st_size);
		err = new_windowed(j->nr_slots, WIN_INIT_ROWS, &j->map_fd);
		j->partial = !err;
		j->nr_rows = j->nr_slots + WIN_INIT_ROWS;
		t.source = "windows";
	} else {
		/* the rows are still held while the map is filled */
		err = table_bytes(t.nr_rows) > budget ||
		      (fd >= 0 && table_bytes(t.nr_rows) + t.nr_rows * sizeof(*t.rows) > reserve) ?
		      -E2BIG : new_table(t.rows, t.nr_rows, &j->map_fd);
		j->nr_rows = t.nr_rows;
	}
	if (err)
		goto out;
	j->bytes = table_bytes(j->nr_rows);
	j->source = t.source;
	j->build_ns = now_ns() - t0;
out:
	cfi_table__release(&t);
	/*
	 * A big binary's table is tens of MB of heap for a moment (cc1, a
	 * browser); give it back now, or the recorder's RSS keeps the peak of
	 * every build for the rest of a long recording.
	 */
	malloc_trim(0);
	return err;
}

/*
 * Opens a binary's file again through the newest of maps[0 .. nr) that
 * still opens the file ident names (dev, inode, ctime and size: never by
 * path or build-id alone). A negative errno when none does.
 */
static int open_by_mappings(const struct unw_mapping *maps, size_t nr, const char *path,
			    const struct file_ident *ident)
{
	struct file_ident id;
	struct unw_key k;
	size_t i;
	int fd = -ENOENT;

	for (i = 0; i < nr; i++) {
		fd = mapped_file__open(maps[i].tgid, maps[i].start, maps[i].end, path);
		if (fd < 0)
			continue;
		if (!key_of_fd(fd, &k, &id) && !memcmp(&id, ident, sizeof(id)))
			return fd;
		close(fd);		/* another file by now */
		fd = -ESTALE;
	}
	return fd;
}

/*
 * Opens j's file again (no descriptor is kept per binary) through the
 * newest of its mappings that still opens the same file, by its identity
 * (never its path or build-id alone: the first process that mapped it may
 * be gone, its path another file), and reads its CFI into j->src, within
 * reserve bytes. j->no_file when none did.
 */
static int open_source(struct unw_job *j, uint64_t reserve)
{
	int fd = open_by_mappings(j->maps, j->nr_maps, j->path, &j->ident), err;

	if (fd < 0) {
		j->no_file = true;
		return fd;
	}
	err = cfi_source__open(fd, reserve, &j->src);
	close(fd);
	if (!err)
		j->src_charged = cfi_source__bytes(j->src);
	return err;
}

/*
 * Builds a batch of a partial table's windows (j->ranges) into j->full,
 * from its file opened again (no descriptor is kept per binary) and
 * checked to be the same file. Holds at most reserve bytes. The builder
 * thread runs it.
 */
static int build_windows(struct unw_job *j, uint64_t reserve)
{
	struct cfi_table t = { 0 };
	uint64_t t0 = now_ns(), src;
	int err = j->src ? 0 : open_source(j, reserve);

	src = j->src_charged;
	if (!err)
		err = cfi_source__build(j->src, j->ranges, j->nr_ranges,
					reserve > src ? reserve - src : 1, &t);
	if (!err) {
		j->full = t.rows;
		j->nr_full = t.nr_rows;
		t.rows = NULL;
	}
	j->build_ns = now_ns() - t0;
	cfi_table__release(&t);
	malloc_trim(0);
	return err;
}

/* Takes a finished job's table into bins[j->bin] (or its failure). */
static void take_table(struct unwinder *u, struct unw_job *j)
{
	struct unw_binary *b = &u->bins[j->bin];

	b->building = false;
	/* the window rows of partial tables are held here, within a bound of their own */
	if (!j->err && j->partial &&
	    (u->full_bytes + sizeof(struct unw_row) > PARTIAL_HELD || !(b->win = unw_windows__new()))) {
		close(j->map_fd);
		j->map_fd = -1;
		j->err = -E2BIG;
	}
	if (j->err) {
		mem_budget__give(j->charged);
		j->charged = 0;
	}
	b->err = j->err;
	if (j->err) {
		if (j->err == -E2BIG) {
			/* its files get the empty table (attach_file): counted apart */
			u->st.refused++;
			pr_warn("the unwind table of '%s' is over eprof's bounds (elf/cfi.h) "
				"or its memory limit (%llu MiB, --mem-limit): frame pointers are "
				"used there", b->path,
				(unsigned long long)(mem_budget__ceiling() >> 20));
		} else {
			u->st.no_cfi++;
		}
		return;
	}
	make_room(u, j->bytes, b);
	b->charged = j->charged;
	b->fd = j->map_fd;
	j->charged = 0;
	j->map_fd = -1;
	b->nr_rows = j->nr_rows;
	b->bytes = j->bytes;
	b->build_ns = j->build_ns;
	map_rows(b);
	if (b->win) {
		b->nr_slots = j->nr_slots;
		b->nr_data = 0;
		b->win_failed = !b->rows;	/* its windows cannot be written */
		account_held(u, b);
		u->st.partial++;
		/* symbols leave a quarter of the budget to the windows (budget.h) */
		mem_budget__keep_for_windows(mem_budget__size() / WINDOWS_KEEP_DIV);
		pr_debug("unwind table of '%s' is big: loaded by the windows walks meet", b->path);
	}
	u->used += j->bytes;
	if (u->used > u->st.peak_bytes)
		u->st.peak_bytes = u->used;
	u->st.tables++;
	u->st.cache_hits += j->from_cache;
	u->st.cache_stored += j->stored;
	u->st.rows += j->nr_rows;
	u->st.build_ns += j->build_ns;
	pr_debug("unwind table of '%s': %zu rows from %s in %.1f ms", b->path, j->nr_rows,
		 j->source ? j->source : "?", j->build_ns / 1e6);
}

/* How many windows batch j holds. */
static size_t windows_of(const struct unw_job *j)
{
	size_t i, n = 0;

	for (i = 0; i < j->nr_ranges; i++)
		n += (size_t)((j->ranges[i].hi - j->ranges[i].lo) >> UNW_WINDOW_SHIFT);
	return n;
}

/* What a batch of windows may need beside its source: their rows, generously. */
static uint64_t batch_reserve(const struct unw_job *j)
{
	uint64_t want = (1ull << 20) + (uint64_t)windows_of(j) * (512ull << 10);

	return want < BATCH_RESERVE ? want : BATCH_RESERVE;
}

static void *builder_main(void *arg)
{
	struct unwinder *u = arg;
	struct unw_job *j;
	uint64_t want, got;

	pthread_mutex_lock(&u->lock);
	for (;;) {
		while (!u->todo && !u->stopping)
			pthread_cond_wait(&u->wake, &u->lock);
		if (u->stopping)
			break;
		j = u->todo;
		u->todo = j->next;
		/*
		 * A share of the memory budget: the most a build may need, else
		 * what is free once no other build holds a share (they give
		 * theirs back when done).
		 */
		want = BUILD_RESERVE_MAX < mem_budget__size() / 4 ? BUILD_RESERVE_MAX :
								    mem_budget__size() / 4;
		/* a batch of windows from a source read before: its rows only */
		if (j->src && want > batch_reserve(j))
			want = batch_reserve(j);
		while (!(got = mem_budget__take(want) ? want : 0) && u->reserving && !u->stopping)
			pthread_cond_wait(&u->wake, &u->lock);
		if (u->stopping) {
			mem_budget__give(got);
			j->next = u->todo;
			u->todo = j;
			break;
		}
		if (!got)
			got = mem_budget__take_upto(want);
		j->short_reserve = got < want;
		j->need = want;
		u->reserving++;
		pthread_mutex_unlock(&u->lock);
		if (j->ranges) {
			j->err = build_windows(j, got);
		} else {
			j->err = make_table(j->fd, NULL, 0, u->budget, got, j);
			close(j->fd);
			j->fd = -1;
		}
		/* the table's bytes (a batch's rows) stay taken, for the binary; the rest goes back */
		j->charged = j->ranges ? j->src_charged + j->nr_full * sizeof(*j->full) :
			     j->err ? 0 : j->bytes;
		if (j->charged > got)
			j->charged = got;
		mem_budget__give(got - j->charged);
		pthread_mutex_lock(&u->lock);
		u->reserving--;
		pthread_cond_broadcast(&u->wake);
		j->next = u->done;
		u->done = j;
		eventfd_write(u->done_fd, 1);	/* wakes the loop */
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

/* Hands j to the builder threads: smallest file first. */
static void queue_job(struct unwinder *u, struct unw_job *j)
{
	struct unw_job **tail;

	pthread_mutex_lock(&u->lock);
	for (tail = &u->todo; *tail && (*tail)->size <= j->size; tail = &(*tail)->next)
		;
	j->next = *tail;
	*tail = j;
	u->jobs_out++;
	pthread_cond_signal(&u->wake);
	pthread_mutex_unlock(&u->lock);
}

/* Builds bins[bin]'s table: in place before the thread runs, else as a job. */
static int build_table(struct unwinder *u, size_t bin, int fd)
{
	struct unw_job *j;
	struct stat st;

	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->bin = bin;
	j->map_fd = -1;
	j->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (j->fd < 0) {
		free(j);
		return -errno;
	}
	j->size = fstat(fd, &st) ? UINT64_MAX : (uint64_t)st.st_size;
	j->cache = u->cache;
	j->key.dev = u->bins[bin].self.dev;
	j->key.ino = u->bins[bin].self.ino;
	j->key.ctime_ns = u->bins[bin].self.ctime_ns;
	j->key.size = u->bins[bin].self.size;
	j->key.rules = UNW_ABI_VERSION;
	j->key.build_id_len = u->bins[bin].build_id_len;
	memcpy(j->key.build_id, u->bins[bin].build_id, u->bins[bin].build_id_len);
	j->built = !j->cache || !table_cache__has(j->cache, &j->key);
	u->builds_out += j->built;
	u->bins[bin].building = true;
	queue_job(u, j);
	return 0;
}

/* Points key at its binary's table, or at the empty one. */
static int attach_file(struct unwinder *u, struct unw_file *f)
{
	const struct unw_binary *b = &u->bins[f->bin - 1];
	int err;

	if (b->fd >= 0) {
		err = set_table(u, &f->key, b->fd);
		if (!err) {
			f->state = FILE_LOADED;
			u->st.files++;
		}
	} else {
		err = set_table(u, &f->key, u->empty_fd);
		if (!err)
			f->state = FILE_EMPTY;
	}
	if (err)
		err = pr_errno(err, "cannot load the unwind table of '%s'", b->path);
	return err;
}

/* Frees a job and what it still holds. */
static void job_free(struct unw_job *j)
{
	if (j->fd >= 0)
		close(j->fd);
	if (j->map_fd >= 0)
		close(j->map_fd);
	mem_budget__give(j->charged);
	cfi_source__close(j->src);
	free(j->full);
	free(j->ranges);
	free(j->path);
	free(j);
}

static int take_windows(struct unwinder *u, struct unw_job *j);

/* Finished jobs: their tables go in, under every file key waiting for them. */
static int collect_jobs(struct unwinder *u)
{
	struct unw_job *done, *next;
	size_t i;
	int err = 0;

	eventfd_t n;

	pthread_mutex_lock(&u->lock);
	done = u->done;
	u->done = NULL;
	pthread_mutex_unlock(&u->lock);
	if (done)
		eventfd_read(u->done_fd, &n);	/* resets it; EAGAIN: nothing to reset */
	for (; done; done = next) {
		next = done->next;
		u->jobs_out--;
		if (done->ranges) {
			if (!err)
				err = take_windows(u, done);
			job_free(done);
			continue;
		}
		take_table(u, done);
		for (i = 0; i < u->nr_files && !err; i++)
			if (u->files[i].bin == done->bin + 1 && u->files[i].state == FILE_PENDING)
				err = attach_file(u, &u->files[i]);
		u->builds_out -= done->built;
		job_free(done);
	}
	return err;
}

static void list_bin(struct unwinder *u, struct unw_binary *b);

/*
 * Keeps tgid's mapping [start, end) of b as its newest: a batch of its
 * windows opens the file through it. A binary whose batches found no
 * mapping that opens it has its windows asked for again.
 */
static void note_bin_mapping(struct unwinder *u, struct unw_binary *b, uint32_t tgid,
			     uint64_t start, uint64_t end)
{
	struct unw_mapping m = { .tgid = tgid, .start = start, .end = end };
	size_t i;

	for (i = 0; i < b->nr_maps; i++)
		if (!memcmp(&b->maps[i], &m, sizeof(m)))
			break;
	if (i == 0 && b->nr_maps)
		return;			/* the newest already */
	if (i == b->nr_maps && b->nr_maps < BIN_MAPPINGS)
		b->nr_maps++;
	if (i == b->nr_maps)
		i--;			/* the oldest goes */
	memmove(&b->maps[1], &b->maps[0], i * sizeof(m));
	b->maps[0] = m;
	if (b->win_nofile) {
		b->win_nofile = false;
		if (b->win && unw_windows__wanted(b->win))
			list_bin(u, b);
	}
}

/*
 * The file of key k again when its binary's table was evicted (make_room)
 * and the mapping that asks is gone (a stack copy finished after its
 * process exited, or at the end): through the binary's other mappings.
 * Else the copies waiting for it would spend its tries in one turn and
 * leave it without CFI for the rest of the recording.
 */
static int reopen_known(struct unwinder *u, const struct unw_key *k)
{
	const uint32_t *slot = hashmap__find(&u->file_index, key_hash(k), file_eq, k, u);
	const struct unw_binary *b;

	if (!slot || !u->files[*slot].bin || u->files[*slot].state != FILE_NEW)
		return -ENOENT;
	b = &u->bins[u->files[*slot].bin - 1];
	return open_by_mappings(b->maps, b->nr_maps, b->path, &b->self);
}

/*
 * Gives the file mapped at [start, end) in tgid a table: key is the
 * walker's when it reported the miss, else computed from the file.
 * 1: the builders are full, ask again later.
 */
static int load_file(struct unwinder *u, uint32_t tgid, uint64_t start, uint64_t end,
		     const char *path, const struct unw_key *walker_key)
{
	uint8_t id[REC_BUILD_ID_MAX];
	struct file_ident ident;
	struct unw_binary *b;
	struct unw_file *f;
	struct unw_key k, fk;
	uint32_t len = 0;
	int fd, err = 0;

	fd = mapped_file__open(tgid, start, end, path);
	if (fd < 0 && walker_key)
		fd = reopen_known(u, walker_key);
	if (fd < 0 && !walker_key) {
		u->st.unreadable++;
		return 0;
	}
	if (fd >= 0 && key_of_fd(fd, &fk, &ident))
		goto out;
	k = walker_key ? *walker_key : fk;
	f = file_for(u, &k);
	if (!f) {
		err = -ENOMEM;
		goto out;
	}
	if (f->state != FILE_NEW) {
		if (f->bin) {
			u->bins[f->bin - 1].last_used = ++u->clock;
			note_bin_mapping(u, &u->bins[f->bin - 1], tgid, start, end);
		}
		goto out;
	}
	if (fd < 0) {
		/* gone before we could read it: ask again next time, then give up */
		if (++f->tries < MAX_OPEN_TRIES)
			goto out;
		u->st.unreadable++;
		f->state = FILE_EMPTY;
		err = set_table(u, &k, u->empty_fd);
		goto out;
	}
	if (!hashmap__find(&u->bin_index, ident_hash(&ident), bin_eq, &ident, u) && u->jobs_out >= MAX_JOBS_OUT) {
		err = 1;	/* every builder has work for a while: later */
		goto out;
	}
	err = elf_file__read_build_id(fd, id, &len);
	if (err == -ENOEXEC) {
		/* mapped data, not code: no table, and no binary in the counts */
		f->not_elf = true;
		f->state = FILE_EMPTY;
		err = set_table(u, &k, u->empty_fd);
		goto out;
	}
	if (err)
		len = 0;
	err = 0;
	b = binary_for(u, id, len, &ident, path);
	if (!b) {
		err = -ENOMEM;
		goto out;
	}
	b->last_used = ++u->clock;
	/* where a batch of its windows opens it again */
	note_bin_mapping(u, b, tgid, start, end);
	f->bin = (size_t)(b - u->bins) + 1;
	if (b->fd < 0 && !b->err && !b->building) {
		err = build_table(u, f->bin - 1, fd);
		if (err) {
			err = pr_errno(err, "cannot build the unwind table of '%s'", path);
			goto out;
		}
	}
	if (u->bins[f->bin - 1].building)
		f->state = FILE_PENDING;	/* collect_jobs() attaches it */
	else
		err = attach_file(u, f);
out:
	if (fd >= 0)
		close(fd);
	return err;
}

/* The next queued mapping; 1 when the builders are full (it stays queued). */
static int work_queue(struct unwinder *u)
{
	struct unw_work *w = &u->queue[u->q_head];
	int err = load_file(u, w->tgid, w->start, w->end, w->path, NULL);

	if (err == 1)
		return 1;
	free(w->path);
	w->path = NULL;
	u->q_head++;
	return err;
}

/*
 * The vDSO has no file to open: its table is built from the recorder's own
 * image (every process on this kernel maps the same one) and loaded under
 * the key the walker gives a vDSO mapping (events.h), pinned. Without a
 * vDSO, or when its table cannot be built, its frames take frame-pointer
 * steps as before: not an error.
 */
static int load_vdso(struct unwinder *u)
{
	struct unw_key k = { .ino = UNW_VDSO_INO };
	struct file_ident ident = { .ino = UNW_VDSO_INO };
	struct elf_file *vf = NULL;
	struct unw_job j = { .map_fd = -1 };
	struct unw_binary *b;
	struct unw_file *f;
	const void *image;
	size_t size;
	int err;

	if (vdso__image(&image, &size))
		return 0;
	k.ctime_ns = size;
	ident.size = size;
	if (elf_file__open(-1, image, size, &vf))
		return 0;
	b = binary_for(u, vf->build_id, vf->build_id_len, &ident, "[vdso]");
	elf_file__close(vf);
	f = file_for(u, &k);
	if (!b || !f)
		return pr_errno(-ENOMEM, "cannot set up the stack unwinder");
	j.bin = (size_t)(b - u->bins);
	j.err = make_table(-1, image, size, u->budget, 0, &j);
	if (j.err) {
		pr_debug("no unwind table for the vDSO: %s", strerror(-j.err));
		return 0;
	}
	take_table(u, &j);
	b->pinned = true;
	f->bin = j.bin + 1;
	err = attach_file(u, f);
	return err;
}

int unwinder__open(const struct unwind_maps *maps, uint64_t budget, const char *cache_dir,
		   struct unwinder **out)
{
	LIBBPF_OPTS(bpf_map_create_opts, mopts, .map_flags = UNW_TABLE_MAP_FLAGS);
	struct unw_row header = { 0 };
	struct unwinder *u;
	__u32 zero = 0;
	size_t i;
	int err;

	u = calloc(1, sizeof(*u));
	if (!u)
		return pr_errno(-ENOMEM, "cannot set up the stack unwinder");
	/* tables hold at most half the memory budget: builds and symbols need the rest */
	u->budget = budget < mem_budget__size() / 2 ? budget : mem_budget__size() / 2;
	u->empty_fd = -1;
	if (cache_dir) {
		err = table_cache__open(cache_dir, 0, &u->cache);
		if (err)
			pr_warn("cannot keep unwind tables in '%s': %s (each recording builds its "
				"own; --table-cache DIR names a directory only root can change, "
				"--table-cache none turns this off)", cache_dir,
				err == -EPERM ? "a user other than root could change it" : strerror(-err));
	}
	u->done_fd = -1;
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->wake, NULL);
	u->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (u->done_fd < 0) {
		err = pr_errno(-errno, "cannot set up the stack unwinder");
		unwinder__close(u);
		return err;
	}
	for (i = 0; i < NR_BUILDERS; i++) {
		err = pthread_create(&u->threads[i], NULL, builder_main, u);
		if (err) {
			err = pr_errno(-err, "cannot start the unwind table builders");
			unwinder__close(u);
			return err;
		}
		u->nr_threads++;
	}
	u->tables_fd = maps->tables;
	u->missing_fd = maps->missing;
	u->absent_fd = maps->absent;
	u->bins_fd = maps->bins;
	u->empty_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "eprof_unw_none", sizeof(__u32),
				     sizeof(struct unw_row), 1, &mopts);
	if (u->empty_fd < 0 || bpf_map_update_elem(u->empty_fd, &zero, &header, BPF_ANY)) {
		err = pr_errno(-errno, "cannot set up the stack unwinder's tables");
		unwinder__close(u);
		return err;
	}
	err = load_vdso(u);
	if (err) {
		unwinder__close(u);
		return err;
	}
	*out = u;
	return 0;
}

int unwinder__note_mapping(struct unwinder *u, uint32_t tgid, uint64_t start, uint64_t end,
			   const char *path)
{
	struct unw_work *w;

	if (!u || path[0] != '/')
		return 0;
	if (u->q_head == u->q_nr) {
		u->q_head = 0;
		u->q_nr = 0;
	}
	if (vec__grow(&u->queue, &u->q_alloc, u->q_nr + 1, sizeof(*u->queue)))
		return pr_errno(-ENOMEM, "cannot queue unwind tables");
	w = &u->queue[u->q_nr];
	w->path = strdup(path);
	if (!w->path)
		return pr_errno(-ENOMEM, "cannot queue unwind tables");
	w->tgid = tgid;
	w->start = start;
	w->end = end;
	u->q_nr++;
	return 0;
}

/* /proc/PID/map_files/START-END names the file the walker met. */
static void miss_path(const struct unw_miss *m, char *buf, size_t len)
{
	char link[96];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%u/map_files/%llx-%llx", m->tgid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	n = readlink(link, buf, len - 1);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
}

static int work_misses(struct unwinder *u, uint64_t deadline)
{
	struct unw_key keys[MISSES_PER_TURN], k, *prev = NULL;
	struct unw_miss m;
	char path[4096];
	size_t nr = 0, i;
	int err = 0;

	while (nr < MISSES_PER_TURN && !bpf_map_get_next_key(u->missing_fd, prev, &k)) {
		keys[nr] = k;
		prev = &keys[nr++];
	}
	for (i = 0; i < nr && !err && now_ns() < deadline; i++) {
		if (bpf_map_lookup_elem(u->missing_fd, &keys[i], &m))
			continue;
		miss_path(&m, path, sizeof(path));
		err = load_file(u, m.tgid, m.start, m.end, path, &keys[i]);
		if (err == 1)
			return 0;	/* kept in the map: read again next turn */
		bpf_map_delete_elem(u->missing_fd, &keys[i]);
	}
	return err;
}

static bool row_at_or_below(const void *elem, const void *key)
{
	return ((const struct unw_row *)elem)->off <= *(const uint64_t *)key;
}

/* The index after the last of rows[0 .. nr) at or before off (0: none). */
static size_t rows_after(const struct unw_row *rows, size_t nr, uint64_t off)
{
	return bsearch_lower_bound(&off, rows, nr, sizeof(*rows), row_at_or_below);
}

/* The last of rows[0 .. nr) at or before off (unw_find_row's answer), or NULL. */
static const struct unw_row *rows_find(const struct unw_row *rows, size_t nr, uint64_t off)
{
	size_t i = rows_after(rows, nr, off);

	return i ? &rows[i - 1] : NULL;
}

/* Lists partial table b for a batch (submit_batches). */
static void list_bin(struct unwinder *u, struct unw_binary *b)
{
	if (b->win_listed)
		return;
	if (vec__grow(&u->want_bins, &u->alloc_want_bins, u->nr_want_bins + 1,
		      sizeof(*u->want_bins)))
		return;		/* asked again by the next walk that meets it */
	u->want_bins[u->nr_want_bins++] = (size_t)(b - u->bins);
	b->win_listed = true;
}

/* Asks for window of partial table b (a walk or a raw stack met it). */
static void want_window(struct unwinder *u, struct unw_binary *b, uint32_t window)
{
	b->last_used = ++u->clock;	/* walks meet it: not the table to evict */
	if (!b->win_failed && unw_windows__want(b->win, window))
		list_bin(u, b);
}

/* Hands the windows b was asked for to a builder thread, one batch at a time. */
static int submit_windows(struct unwinder *u, struct unw_binary *b)
{
	struct unw_job *j = calloc(1, sizeof(*j));

	if (j)
		j->ranges = malloc(BATCH_RANGES * sizeof(*j->ranges));
	if (j && j->ranges)
		j->path = strdup(b->path);
	if (!j || !j->path) {
		if (j)
			free(j->ranges);
		free(j);
		return -ENOMEM;
	}
	j->nr_ranges = unw_windows__batch(b->win, j->ranges, BATCH_RANGES,
					  b->win_batch ? b->win_batch : SIZE_MAX);
	j->bin = (size_t)(b - u->bins);
	j->fd = j->map_fd = -1;
	j->win_gen = b->win_gen;
	j->src = b->src;		/* the batch's while it is out */
	b->src = NULL;
	memcpy(j->maps, b->maps, sizeof(j->maps));
	j->nr_maps = b->nr_maps;
	j->ident = b->self;
	j->size = 0;			/* before any whole build: samples wait for it */
	b->win_out = true;
	queue_job(u, j);
	return 0;
}

/*
 * Batches for the partial tables asked for windows, one out per binary at
 * most. One whose last batch found the memory budget short is not built
 * again before the budget has what it lacked (the builders would only
 * build rows to throw away).
 */
static int submit_batches(struct unwinder *u)
{
	uint64_t now = now_ns();
	size_t i, kept = 0;
	int err = 0;

	for (i = 0; i < u->nr_want_bins; i++) {
		struct unw_binary *b = &u->bins[u->want_bins[i]];
		bool ready = b->win && !b->win_out && !b->win_nofile && now >= b->win_next;

		if (ready && b->win_need && mem_budget__free() < b->win_need) {
			b->win_next = now + BATCH_GAP_NS;
			ready = false;
		}
		if (!err && ready && u->jobs_out < MAX_JOBS_OUT)
			err = submit_windows(u, b);
		if (b->win && unw_windows__wanted(b->win) && !b->win_nofile &&
		    (err || b->win_out || u->jobs_out >= MAX_JOBS_OUT || now < b->win_next))
			u->want_bins[kept++] = u->want_bins[i];
		else
			b->win_listed = false;
	}
	u->nr_want_bins = kept;
	return err;
}

/*
 * The rows a partial table moving to a new map for need rows gets room
 * for: half as many more, so the next batches are appended without a
 * move, but out of what the kernel's budget has free, a quarter of it at
 * most. Other big binaries' windows need room too: a table is dropped
 * (make_room) for the rows a table needs, never for room to spare.
 */
static size_t grow_cap(const struct unwinder *u, const struct unw_binary *b, size_t need,
		       size_t max)
{
	uint64_t others = u->used - b->bytes, fit, spare = need / 2 + WIN_INIT_ROWS;
	uint64_t fixed = 1 + b->nr_slots + 4096 / sizeof(struct unw_row) + need;

	fit = u->budget > others ? (u->budget - others) / sizeof(struct unw_row) : 0;
	if (spare > (fit > fixed ? fit - fixed : 0) / 4)
		spare = (fit > fixed ? fit - fixed : 0) / 4;
	return need + spare > max ? max : (size_t)(need + spare);
}

/*
 * Moves b's partial table to a new map with room for need rows (and half
 * as many more), its slots and rows copied, under every file key it
 * serves: the old one is not written again, so a walk in it meanwhile
 * reads what it read before. Within the kernel's budget (make_room, else
 * -E2BIG) and the memory budget (else -EAGAIN, j->need: what it lacked).
 */
static int grow_map(struct unwinder *u, struct unw_binary *b, size_t need, struct unw_job *j)
{
	size_t idx = (size_t)(b - u->bins) + 1, max = MAX_ROWS - 1 - b->nr_slots, cap, len, i;
	uint64_t bytes, old;
	struct unw_row *p;
	int fd = -1, err;

	if (need > max)
		return -E2BIG;
	cap = grow_cap(u, b, need, max);
	bytes = table_bytes(b->nr_slots + cap);
	make_room(u, bytes - b->bytes, b);
	if (u->used - b->bytes + bytes > u->budget)
		return -E2BIG;
	/* the new map beside the old one for a moment: all of it is taken */
	if (!mem_budget__take(bytes)) {
		cap = need;		/* the memory budget is short: no room to spare */
		bytes = table_bytes(b->nr_slots + cap);
		if (!mem_budget__take(bytes)) {
			j->need = bytes;
			return -EAGAIN;
		}
	}
	err = new_windowed(b->nr_slots, cap, &fd);
	len = ((1 + b->nr_slots + cap) * sizeof(*p) + 4095) & ~(size_t)4095;
	p = err ? MAP_FAILED : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!err && p == MAP_FAILED)
		err = -errno;
	if (!err)
		memcpy(p, b->rows, (1 + b->nr_slots + b->nr_data) * sizeof(*p));
	for (i = 0; i < u->nr_files && !err; i++)
		if (u->files[i].bin == idx && u->files[i].state == FILE_LOADED)
			err = set_table(u, &u->files[i].key, fd);
	if (err) {
		/* keys already moved keep the new map until the next: its rows are the same */
		if (p != MAP_FAILED)
			munmap(p, len);
		if (fd >= 0)
			close(fd);
		mem_budget__give(bytes);
		return err;
	}
	munmap((void *)b->rows, b->rows_len);
	close(b->fd);
	b->fd = fd;
	b->rows = p;
	b->rows_len = len;
	b->nr_rows = b->nr_slots + cap;
	old = b->bytes < b->charged ? b->bytes : b->charged;
	mem_budget__give(old);
	b->charged = b->charged - old + bytes;
	u->used = u->used - b->bytes + bytes;
	if (u->used > u->st.peak_bytes)
		u->st.peak_bytes = u->used;
	b->bytes = bytes;
	return 0;
}

/* Each window x of rg[0 .. nr) that b has out and a slot for (i: the range). */
#define for_each_window_out(b, rg, nr, x, i)						\
	for (i = 0; i < (nr); i++)							\
		for (x = (rg)[i].lo >> UNW_WINDOW_SHIFT;					\
		     x < (b)->nr_slots && x << UNW_WINDOW_SHIFT < (rg)[i].hi; x++)		\
			if (unw_windows__is_out((b)->win, (uint32_t)x))

/*
 * Appends batch j's rows to b's map, window by window, each window's slot
 * written last and in one store (bpf/unwind.h): what it costs follows the
 * rows it adds, not those b holds. A map without room is moved to a larger
 * one first (grow_map: -E2BIG leaves b as it was); when the memory budget
 * is short for that, the windows that fit the room left are loaded, and
 * -EAGAIN says the others are not (they stay out). *windows: how many
 * were loaded.
 */
static int load_windows(struct unwinder *u, struct unw_binary *b, struct unw_job *j,
			size_t *windows)
{
	struct unw_row *data;
	size_t add = 0, i, first, n;
	uint64_t x, v;
	int err = 0;

	*windows = 0;
	if (!b->rows)
		return -E2BIG;
	for_each_window_out(b, j->ranges, j->nr_ranges, x, i) {
		n = unw_window_slice(j->full, j->nr_full, (uint32_t)x, &first);
		add += n ? n : 1;
	}
	if (b->nr_data + add > b->nr_rows - b->nr_slots) {
		err = grow_map(u, b, b->nr_data + add, j);
		if (err && err != -EAGAIN)
			return err;
	}
	data = (struct unw_row *)b->rows + 1 + b->nr_slots;
	for_each_window_out(b, j->ranges, j->nr_ranges, x, i) {
		struct unw_row *r = &data[b->nr_data];
		struct cfi_range one = { x << UNW_WINDOW_SHIFT, (x + 1) << UNW_WINDOW_SHIFT };

		n = unw_window_slice(j->full, j->nr_full, (uint32_t)x, &first);
		if ((n ? n : 1) > b->nr_rows - b->nr_slots - b->nr_data)
			continue;	/* no room: it stays out */
		if (n) {
			memcpy(r, &j->full[first], n * sizeof(*r));
			if (r->off < x << UNW_WINDOW_SHIFT)
				r->off = (uint32_t)(x << UNW_WINDOW_SHIFT);
		} else {
			/* no CFI in it: frame-pointer steps, asked for no more */
			memset(r, 0, sizeof(*r));
			r->off = (uint32_t)(x << UNW_WINDOW_SHIFT);
			r->cfa_type = UNW_CFA_NONE;
			n = 1;
		}
		v = (uint64_t)(1 + b->nr_slots + b->nr_data) | (uint64_t)n << 32;
		__atomic_store_n((uint64_t *)((struct unw_row *)b->rows + 1 + x), v, __ATOMIC_RELEASE);
		b->nr_data += n;
		*windows += unw_windows__built(b->win, &one, 1);
	}
	return err;
}

/* A finished batch of windows: merged and loaded, else its windows are left out. */
/*
 * The memory budget is short (builds, symbols, stack copies hold it): j's
 * windows wait until it has what the batch lacked (n of them were loaded
 * in the room left), a batch a second at most while it stays short.
 */
static void wait_for_budget(struct unwinder *u, struct unw_binary *b, const struct unw_job *j,
			    size_t n, int err)
{
	unw_windows__retry(b->win, j->ranges, j->nr_ranges);
	u->st.windows += n;
	if (!n && b->win_waits < 16)
		b->win_waits++;
	b->win_next = now_ns() + ((BATCH_GAP_NS << b->win_waits) < WAIT_MAX_NS ?
				  (BATCH_GAP_NS << b->win_waits) : WAIT_MAX_NS);
	b->win_need = j->need;
	u->st.windows_waits++;
	pr_debug("windows of '%s' wait for the memory budget: %llu KiB free of the %llu KiB "
		 "it needs (%s)", b->path, (unsigned long long)(mem_budget__free() >> 10),
		 (unsigned long long)(j->need >> 10), strerror(-err));
}

static int take_windows(struct unwinder *u, struct unw_job *j)
{
	struct unw_binary *b = &u->bins[j->bin];
	size_t n = 0;
	int err = j->err;

	if (j->win_gen != b->win_gen || !b->win)
		return 0;		/* evicted meanwhile (job_free frees its source) */
	b->win_out = false;
	b->win_next = now_ns() + BATCH_GAP_NS;
	u->st.build_ns += j->build_ns;
	/* the source is the binary's again, and a new one's charge with it */
	b->src = j->src;
	j->src = NULL;
	if (j->src_charged > j->charged)
		j->src_charged = j->charged;
	b->charged += j->src_charged;
	j->charged -= j->src_charged;
	account_held(u, b);
	/* the batch's rows are the job's until merged: their charge goes first */
	mem_budget__give(j->charged);
	j->charged = 0;
	if (!err)
		err = load_windows(u, b, j, &n);
	if (j->no_file) {
		/*
		 * No process that mapped it maps it now (or its path is
		 * another file): the windows wait for a new mapping of it
		 * (note_bin_mapping), and are left out if none comes.
		 */
		unw_windows__retry(b->win, j->ranges, j->nr_ranges);
		b->win_nofile = true;
		pr_debug("windows of '%s' wait for a process that maps it: %s", b->path,
			 strerror(-err));
		err = 0;
	} else if (err == -EAGAIN || (err == -E2BIG && j->short_reserve)) {
		wait_for_budget(u, b, j, n, err);
		err = 0;
	} else if (err == -E2BIG && j->err && b->src && (n = windows_of(j)) > 1) {
		/*
		 * Their CFI did not fit the batch's reserve, whole as it was:
		 * the same windows again, half as many a batch (a compile at
		 * --mem-limit 128M left 53 to 78 of libLLVM's out for good).
		 */
		b->win_batch = n / 2;
		unw_windows__retry(b->win, j->ranges, j->nr_ranges);
		n = 0;
		err = 0;
	} else if (err == -E2BIG && !b->src && ++b->win_tries < MAX_SOURCE_TRIES) {
		/* its CFI did not fit a whole reserve: tried a few times more */
		unw_windows__retry(b->win, j->ranges, j->nr_ranges);
	} else if (err) {
		if (!b->src && !b->win_failed)
			pr_warn("the unwind table of '%s' cannot be read by windows (%s): frame "
				"pointers are used there", b->path, strerror(-err));
		b->win_failed = !b->src;	/* the file is gone, another or over the bounds */
		n = unw_windows__refuse(b->win, j->ranges, j->nr_ranges);
		u->st.windows_refused += n;
		pr_debug("%zu windows of '%s' left out: %s", n, b->path, strerror(-err));
	} else {
		b->win_tries = b->win_waits = 0;
		b->win_need = 0;
		if (b->win_batch)	/* split before: twice as many again */
			b->win_batch = b->win_batch < UNW_NR_WINDOWS / 2 ? b->win_batch * 2 : 0;
		u->st.windows += n;
		u->st.rows += j->nr_full;
		pr_debug("%zu windows of '%s' loaded: %zu rows in %.1f ms", n, b->path, j->nr_full,
			 j->build_ns / 1e6);
	}
	if (unw_windows__wanted(b->win) && !b->win_failed && !b->win_nofile)
		list_bin(u, b);
	return err == -ENOMEM ? pr_errno(err, "cannot load unwind rows") : 0;
}

/* The windows walks met in partial tables (unw_absent): asked for. */
static int work_windows(struct unwinder *u)
{
	struct unw_window keys[WINDOWS_PER_TURN], k, *prev = NULL;
	const uint32_t *slot;
	size_t nr = 0, i;

	while (nr < WINDOWS_PER_TURN && !bpf_map_get_next_key(u->absent_fd, prev, &k)) {
		keys[nr] = k;
		prev = &keys[nr++];
	}
	for (i = 0; i < nr; i++)
		bpf_map_delete_elem(u->absent_fd, &keys[i]);
	for (i = 0; i < nr; i++) {
		struct unw_binary *b;

		slot = hashmap__find(&u->file_index, key_hash(&keys[i].key), file_eq, &keys[i].key, u);
		if (!slot || u->files[*slot].state != FILE_LOADED)
			continue;
		b = &u->bins[u->files[*slot].bin - 1];
		if (b->win)
			want_window(u, b, keys[i].window);
	}
	return submit_batches(u);
}

int unwinder__work(struct unwinder *u, uint64_t budget_ns, bool *more)
{
	uint64_t deadline = now_ns() + budget_ns;
	int err;

	*more = false;
	if (!u)
		return 0;
	err = collect_jobs(u);
	if (!err)
		err = work_misses(u, deadline);
	if (!err)
		err = work_windows(u);
	while (!err && u->q_head < u->q_nr && now_ns() < deadline)
		err = work_queue(u);
	*more = u->q_head < u->q_nr && err != 1;
	return err == 1 ? 0 : err;
}

/* The jobs drain waits for: every one, or builds only. */
static size_t waited(const struct unwinder *u, bool builds_only)
{
	return builds_only ? u->builds_out : u->jobs_out;
}

static int drain(struct unwinder *u, uint64_t timeout_ns, bool builds_only)
{
	uint64_t deadline = now_ns() + timeout_ns, now;
	struct pollfd pfd;
	int err = 0;

	while (u && !err && (waited(u, builds_only) || u->q_head < u->q_nr) &&
	       (now = now_ns()) < deadline) {
		while (!err && u->q_head < u->q_nr)
			err = work_queue(u);
		if (err == 1)
			err = 0;	/* the builders are full: wait for one */
		if (err || !waited(u, builds_only))
			break;
		pfd.fd = u->done_fd;
		pfd.events = POLLIN;
		poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1));
		err = collect_jobs(u);
	}
	return err;
}

int unwinder__drain(struct unwinder *u, uint64_t timeout_ns)
{
	return drain(u, timeout_ns, false);
}

int unwinder__drain_builds(struct unwinder *u, uint64_t timeout_ns)
{
	return drain(u, timeout_ns, true);
}

void unwinder__prepare_path(struct unwinder *u, const char *path)
{
	char real[PATH_MAX];

	/* /lib/x86_64-linux-gnu/libc.so.6 is /usr/lib/...: one spelling, the kernel's */
	if (path && path[0] == '/' && realpath(path, real))
		path = real;
	if (u && path && path[0] == '/' && load_file(u, 0, 0, 0, path, NULL) != 0)
		pr_debug("no unwind table prepared for '%s'", path);
}

enum unwinder_row unwinder__row(struct unwinder *u, const struct unw_key *k, uint64_t off,
				struct unw_row *row)
{
	const uint32_t *slot = hashmap__find(&u->file_index, key_hash(k), file_eq, k, u);
	struct unw_binary *b;
	const struct unw_row *r;

	if (!slot)
		return UNWINDER_ROW_PENDING;
	switch (u->files[*slot].state) {
	case FILE_EMPTY:
		return UNWINDER_ROW_NO_CFI;	/* the empty table: the walker finds no row */
	case FILE_LOADED:
		break;
	default:
		return UNWINDER_ROW_PENDING;
	}
	b = &u->bins[u->files[*slot].bin - 1];
	if (b->win) {
		/* the window's rows; a window not in yet is asked for, and waited on */
		uint32_t x = (uint32_t)(off >> UNW_WINDOW_SHIFT);
		struct unw_slot slot;

		if (!b->rows || off > UINT32_MAX || x >= b->nr_slots)
			return UNWINDER_ROW_NO_CFI;
		memcpy(&slot, &b->rows[1 + x], sizeof(slot));
		if (!slot.count) {
			if (b->win_failed || unw_windows__refused(b->win, x)) {
				memset(row, 0, sizeof(*row));
				row->cfa_type = UNW_CFA_ABSENT;
				return UNWINDER_ROW_FOUND;
			}
			want_window(u, b, x);
			return UNWINDER_ROW_PENDING;
		}
		if (slot.first + (uint64_t)slot.count > 1 + b->nr_rows)
			return UNWINDER_ROW_NO_CFI;
		r = rows_find(b->rows + slot.first, slot.count, off);
	} else {
		if (!b->rows || b->rows[0].off > b->nr_rows)
			return UNWINDER_ROW_NO_TABLE;
		/* the map's rows: rows[0].off of them after the count row */
		r = rows_find(b->rows + 1, b->rows[0].off, off);
	}
	if (!r)
		return UNWINDER_ROW_NO_CFI;
	*row = *r;
	return UNWINDER_ROW_FOUND;
}

int unwinder__request(struct unwinder *u, uint32_t tgid, uint64_t start, uint64_t end,
		      const struct unw_key *k)
{
	struct unw_miss m = { .tgid = tgid, .start = start, .end = end };
	char path[4096];

	miss_path(&m, path, sizeof(path));
	return load_file(u, tgid, start, end, path, k);
}

uint64_t unwinder__mem_wanted(const struct unwinder *u)
{
	uint64_t want = 0;
	size_t i;

	for (i = 0; u && i < u->nr_bins; i++) {
		const struct unw_binary *b = &u->bins[i];

		if (b->win && b->win_need && !b->win_out && !b->win_failed &&
		    unw_windows__wanted(b->win))
			want += b->win_need;
	}
	return want;
}

int unwinder__event_fd(const struct unwinder *u)
{
	return u->done_fd;
}

void unwinder__totals(const struct unwinder *u, struct unwind_totals *t)
{
	memset(t, 0, sizeof(*t));
	if (u)
		*t = u->st;
}

static const struct unw_binary *binary_of_key(const struct unwinder *u, const struct unw_key *k,
					      bool *not_elf)
{
	const uint32_t *slot = hashmap__find(&u->file_index, key_hash(k), file_eq, k, u);
	uint64_t bin;

	*not_elf = false;
	if (!slot)
		return NULL;
	*not_elf = u->files[*slot].not_elf;
	bin = u->files[*slot].bin;
	return bin ? &u->bins[bin - 1] : NULL;
}

static void fill_counts(struct rec_unwind *r, const struct unw_bin_stats *v)
{
	size_t i;

	for (i = 0; i < UNW_FB_MAX && i < REC_UNW_FB_MAX; i++)
		r->fallback[i] += v->fallback[i];
	for (i = 0; i < UNW_STOP_MAX && i < REC_UNW_STOP_MAX; i++) {
		r->stop[i] += v->stop[i];
		r->walks += v->stop[i];
	}
}

/* The row of the files a walk met that are not ELF (a bad return address). */
#define NOT_ELF_ROW	"[not an ELF file]"

/* One row per binary the walker counted something in, merged by build-id. */
static int store_binaries(struct unwinder *u, struct recording *rec)
{
	struct unw_key k, *prev = NULL, zero_key = { 0 };
	struct rec_unwind *rows = NULL;
	struct unw_bin_stats v;
	uint64_t refused_fb = 0, refused_stop = 0;
	size_t nr = 0, alloc = 0, i, nr_owned = 0, owned_alloc = 0;
	char other[64], **owned = NULL;	/* the paths made here, freed below */
	int err = 0;

	while (!bpf_map_get_next_key(u->bins_fd, prev, &k)) {
		const struct unw_binary *b;
		struct rec_unwind *r = NULL;
		bool not_elf;

		prev = &k;
		if (bpf_map_lookup_elem(u->bins_fd, &k, &v))
			continue;
		b = binary_of_key(u, &k, &not_elf);
		/* a refused table is the empty one: every step in it is "no CFI" */
		if (b && b->err == -E2BIG) {
			refused_fb += v.fallback[UNW_FB_NO_CFI];
			refused_stop += v.stop[UNW_STOP_NO_CFI];
		}
		/* one row per build-id, whatever path reached it; one for non-code files */
		for (i = 0; i < nr && (b || not_elf); i++)
			if (b ? rows[i].build_id_len == b->build_id_len &&
				(b->build_id_len || !strcmp(rows[i].path, b->path)) &&
				!memcmp(rows[i].build_id, b->build_id, b->build_id_len)
			      : !strcmp(rows[i].path, NOT_ELF_ROW))
				r = &rows[i];
		if (!r) {
			if (vec__grow(&rows, &alloc, nr + 1, sizeof(*rows))) {
				err = -ENOMEM;
				break;
			}
			r = &rows[nr++];
			memset(r, 0, sizeof(*r));
			if (b) {
				memcpy(r->build_id, b->build_id, b->build_id_len);
				r->build_id_len = b->build_id_len;
				r->table_rows = b->win ? b->nr_data : b->nr_rows;
				r->table_bytes = b->bytes;
				r->build_ns = b->build_ns;
				r->path = b->path;
			} else if (key_eq(&k, &zero_key)) {
				r->path = "[anonymous]";
			} else if (not_elf) {
				r->path = NOT_ELF_ROW;
			} else {
				snprintf(other, sizeof(other), "[file %u:%u inode %llu]", k.dev >> 20,
					 k.dev & 0xfffff, (unsigned long long)k.ino);
				if (vec__grow(&owned, &owned_alloc, nr_owned + 1, sizeof(*owned)) ||
				    !(r->path = owned[nr_owned] = strdup(other))) {
					nr--;
					err = -ENOMEM;
					break;
				}
				nr_owned++;
			}
		}
		fill_counts(r, &v);
	}
	if (!err && nr)
		err = recording__add_unwind(rec, rows, nr);
	else if (err)
		err = pr_errno(err, "cannot store the unwind counts");
	if (!err && u->st.refused) {
		err = recording__set_meta_u64(rec, REC_META_UNWIND_REFUSED, u->st.refused);
		err = err ?: recording__set_meta_u64(rec, REC_META_UNWIND_FB_REFUSED, refused_fb);
		err = err ?: recording__set_meta_u64(rec, REC_META_UNWIND_STOP_REFUSED, refused_stop);
	}
	for (i = 0; i < nr_owned; i++)
		free(owned[i]);
	free(owned);
	free(rows);
	return err;
}

/*
 * The windows still asked for when the recording ends: counted, and named
 * once per binary with why they were not loaded, where they waited for
 * something (memory, a process that maps the file) rather than the end.
 */
static void note_unbuilt(struct unwinder *u)
{
	size_t i, n;

	for (i = 0; i < u->nr_bins; i++) {
		const struct unw_binary *b = &u->bins[i];

		if (!b->win || !(n = unw_windows__wanted(b->win)))
			continue;
		u->st.windows_unbuilt += n;
		if (b->win_nofile)
			pr_warn("%zu windows of code in '%s' were not loaded: no process that "
				"mapped it maps it now, and its path is another file or none: "
				"frame pointers were used there", n, b->path);
		else if (b->win_waits || b->win_need)
			pr_warn("%zu windows of code in '%s' were not loaded: the memory budget "
				"stayed full (%llu MiB, --mem-limit; a larger one loads them): frame "
				"pointers were used there", n, b->path,
				(unsigned long long)(mem_budget__ceiling() >> 20));
	}
}

int unwinder__store(struct unwinder *u, struct recording *rec, const uint64_t *tot)
{
	struct rec_unwind r;
	size_t i;
	int err;

	if (!u)
		return 0;
	memset(&r, 0, sizeof(r));
	r.path = "";
	r.walks = tot[EV_STAT_UNW_STACKS];
	r.frames_table = tot[EV_STAT_UNW_FRAMES_TABLE];
	r.frames_fp = tot[EV_STAT_UNW_FRAMES_FP];
	for (i = 0; i < UNW_FB_MAX && i < REC_UNW_FB_MAX; i++)
		r.fallback[i] = tot[EV_STAT_UNW_FB + i];
	for (i = 0; i < UNW_STOP_MAX && i < REC_UNW_STOP_MAX; i++)
		r.stop[i] = tot[EV_STAT_UNW_STOP + i];
	r.table_rows = u->st.rows;
	r.table_bytes = u->st.peak_bytes;
	r.build_ns = u->st.build_ns;
	err = recording__add_unwind(rec, &r, 1);
	if (!err && u->cache) {
		char n[24];

		snprintf(n, sizeof(n), "%zu", u->st.cache_hits);
		err = recording__set_meta(rec, REC_META_TABLE_CACHE_HITS, n);
		snprintf(n, sizeof(n), "%zu", u->st.cache_stored);
		err = err ?: recording__set_meta(rec, REC_META_TABLE_CACHE_STORED, n);
	}
	if (!err && u->st.partial) {
		note_unbuilt(u);
		err = recording__set_meta_u64(rec, REC_META_UNWIND_PARTIAL, u->st.partial);
		err = err ?: recording__set_meta_u64(rec, REC_META_UNWIND_WINDOWS, u->st.windows);
		err = err ?: recording__set_meta_u64(rec, REC_META_UNWIND_WINDOWS_OUT, u->st.windows_refused);
		err = err ?: recording__set_meta_u64(rec, REC_META_UNWIND_WINDOWS_WAITED,
						     u->st.windows_waits);
		err = err ?: recording__set_meta_u64(rec, REC_META_UNWIND_WINDOWS_UNBUILT,
						     u->st.windows_unbuilt);
	}
	return err ? err : store_binaries(u, rec);
}

uint64_t unwind_budget_default(void)
{
	return machine_memory_share(128, UNWIND_BUDGET_MIN, UNWIND_BUDGET_MAX);
}

uint64_t unwinder__budget(const struct unwinder *u)
{
	return u ? u->budget : 0;
}

bool unwinder__caches(const struct unwinder *u)
{
	return u && u->cache;
}

void unwinder__close(struct unwinder *u)
{
	struct unw_job *next;
	struct sched_param sp;
	struct timespec ts;
	size_t i;
	int policy;

	if (!u)
		return;
	/*
	 * The builders run as ordinary threads (SCHED_RESET_ON_FORK), which a
	 * saturated machine lets wait seconds for a CPU: to see that they must
	 * stop, and to die at exit, they get the recorder's priority now.
	 */
	if (!pthread_getschedparam(pthread_self(), &policy, &sp) &&
	    (policy & ~SCHED_RESET_ON_FORK) == SCHED_FIFO)
		for (i = 0; i < u->nr_threads; i++)
			pthread_setschedparam(u->threads[i], SCHED_FIFO, &sp);
	pthread_mutex_lock(&u->lock);
	u->stopping = true;
	pthread_cond_broadcast(&u->wake);
	pthread_mutex_unlock(&u->lock);
	/*
	 * A builder deep in a huge binary would hold up the end of the
	 * recording: after a moment it is left to finish alone, with u.
	 */
	if (clock_gettime(CLOCK_REALTIME, &ts))
		memset(&ts, 0, sizeof(ts));
	ts.tv_nsec += 200000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	for (i = 0; i < u->nr_threads; i++) {
		if (pthread_timedjoin_np(u->threads[i], NULL, &ts)) {
			pr_debug("an unwind table builder is still busy: left to finish");
			for (; i < u->nr_threads; i++)
				pthread_detach(u->threads[i]);
			return;
		}
	}
	for (; u->todo; u->todo = next) {
		next = u->todo->next;
		job_free(u->todo);
	}
	for (; u->done; u->done = next) {
		next = u->done->next;
		job_free(u->done);
	}
	if (u->done_fd >= 0)
		close(u->done_fd);
	pthread_mutex_destroy(&u->lock);
	pthread_cond_destroy(&u->wake);
	for (i = 0; i < u->nr_bins; i++) {
		drop_table(&u->bins[i]);
		free(u->bins[i].path);
	}
	for (i = u->q_head; i < u->q_nr; i++)
		free(u->queue[i].path);
	if (u->empty_fd >= 0)
		close(u->empty_fd);
	free(u->bins);
	free(u->files);
	free(u->queue);
	free(u->want_bins);
	hashmap__release(&u->bin_index);
	hashmap__release(&u->file_index);
	table_cache__close(u->cache);
	free(u);
}
