// SPDX-License-Identifier: MIT
/*
 * record/sideband.c - where the targets' code is mapped, and what their
 * threads are called.
 *
 * A dummy software event per CPU delivers PERF_RECORD_MMAP2, COMM and task
 * records for every process; the
 * mappings of target processes that can execute code are kept. The events
 * are enabled before the sampler, so even a process that lives for a few
 * milliseconds has its mappings recorded before its first sample. Their
 * times use CLOCK_MONOTONIC, the clock of the samples.
 *
 * Build-ids are read from the files themselves, never asked of the kernel
 * (attr.build_id would change the mmap records every other perf user
 * receives): through /proc/PID/map_files (the very file mapped, even if it
 * was replaced or deleted since), else /proc/PID/root/PATH, else PATH.
 * Files are read once, keyed by device and inode; a file the mmap record's
 * device and inode name was read before is not opened again.
 *
 * Processes that existed before the recording are read from /proc/PID/maps
 * and /proc/PID/task/TID/comm, with time 0 ("from the start"); the maps
 * with a time limit per process (record/procread.h).
 *
 * What it learns goes to the sink its caller gave (record/session.c keeps
 * the mappings, names and exits); it decides nothing about what is stored.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "record/budget.h"
#include "record/overlap.h"
#include "record/perf_events.h"
#include "record/procread.h"
#include "record/sideband.h"
#include "util/hashmap.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/path.h"
#include "util/vec.h"

/*
 * The first size of the side-band buffers, in pages per CPU. Under -a they
 * take every process's records: 1 MiB a CPU, halved while all of them
 * would pass 32 MiB, never under 64 pages. With -- CMD and -p only the
 * targets' records reach them: 64 pages a CPU (256 KiB with 4 KiB pages).
 */
#define FIRST_PAGES_ALL		256
#define FIRST_TOTAL_ALL		8192
#define FIRST_PAGES_MIN		64
/*
 * On a loss the buffers are replaced by ones GROWTH times larger, up to
 * MAX_PAGES a CPU (16 MiB with 4 KiB pages), each within the memory budget
 * (record/budget.h).
 */
#define GROWTH			4
#define MAX_PAGES		4096
/*
 * A record copied into both the old and the new buffers is stamped by
 * each event on its own, a little apart, and the window's ends are read
 * from user space: the window is widened by this much on both sides.
 */
#define OVERLAP_MARGIN_NS	1000000ull

/*
 * Pages per CPU of the first side-band buffers: from the CPUs and the mode
 * (follow: -- CMD or -p), or for tests EPROF_SIDEBAND_PAGES (a power of
 * two, 1 to 1024; anything else is ignored), so that a test can force
 * records to be lost (t0403) and the buffers to grow (t0405).
 */
static size_t first_pages(size_t nr_cpus, bool follow)
{
	const char *env = getenv("EPROF_SIDEBAND_PAGES");
	size_t pages = follow ? FIRST_PAGES_MIN : FIRST_PAGES_ALL;
	unsigned long n;
	char *end;

	while (pages > FIRST_PAGES_MIN && pages * nr_cpus > FIRST_TOTAL_ALL)
		pages /= 2;
	if (!env || !*env)
		return pages;
	errno = 0;
	n = strtoul(env, &end, 10);
	if (errno || *end || !n || n > 1024 || (n & (n - 1)))
		return pages;
	return n;
}
/*
 * One process's maps, with -a: read in well under a millisecond when the
 * lock is free. A process whose lock is held is most often in the middle
 * of an exec (which holds it for writing): its new mappings come as
 * side-band records anyway. At most 16 reads wait so (procread.c).
 */
#define SCAN_TIMEOUT_ALL_NS	20000000ull
#define SCAN_TIMEOUT_PID_NS	1000000000ull	/* with -p */

struct build_id_entry {
	uint64_t dev;
	uint64_t ino;
	uint32_t len;
	uint8_t id[REC_BUILD_ID_MAX];
};

/* A fork seen in the current batch of side-band records. */
struct fork_event {
	uint64_t time_ns;
	uint32_t ppid;
	uint32_t pid;
};

struct sideband {
	struct sideband_sink sink;
	int err;			/* the first error the sink returned in a consume */
	struct perf_buffer *pb;
	struct fork_event *forks;	/* applied after each batch, in time order */
	size_t nr_forks, alloc_forks;
	struct hashmap bid_index;	/* hash(dev, ino) -> index into bids */
	struct build_id_entry *bids;
	size_t nr_bids, alloc_bids;
	uint8_t vdso_id[REC_BUILD_ID_MAX];
	uint32_t vdso_id_len;
	uint64_t read_past_ns;		/* sideband__read_past() */
	int *task_fds;			/* -- CMD, -p: the targets' events, per task and CPU */
	size_t nr_task_fds, alloc_task_fds;
	int epfd;			/* sideband__epoll_fd(): holds the current buffers' */
	uint32_t *cpus;			/* buffer i is CPU cpus[i]'s */
	size_t nr_cpus;
	size_t pages;			/* per CPU, of the current buffers */
	size_t grown;			/* times they were replaced by larger ones */
	uint64_t lost_now;		/* records lost from the current buffers */
	uint64_t taken;			/* bytes of the memory budget they hold */
	int map_fd;			/* theirs once grown (the caller's at first: -1) */
	struct perf_buffer *old_pb;	/* replaced: read once more, then freed */
	int old_map_fd;
	uint64_t old_taken;
	bool draining;			/* old_pb is being read */
	bool grow_stopped;		/* at the largest size, or over the budget */
	size_t copies;			/* records of the new buffers the old ones had */
	struct overlap ov;		/* records the old and new buffers both have */
};

/* The MMAP2 record up to the file name (include/uapi/linux/perf_event.h). */
struct mmap2_head {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size;
			uint8_t reserved1;
			uint16_t reserved2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
};

_Static_assert(sizeof(struct mmap2_head) == 72, "PERF_RECORD_MMAP2 layout");

/* sample_id_all with PERF_SAMPLE_TID | PERF_SAMPLE_TIME: pid, tid, time at the end. */
#define SAMPLE_ID_SIZE	16

static bool is_target(const struct sideband *sb, uint32_t pid)
{
	return !sb->sink.is_target || sb->sink.is_target(sb->sink.ctx, pid);
}

struct file_id {
	uint64_t dev, ino;
};

static bool bid_eq(uint32_t i, const void *key, const void *ctx)
{
	const struct build_id_entry *e = &((const struct sideband *)ctx)->bids[i];
	const struct file_id *k = key;

	return e->dev == k->dev && e->ino == k->ino;
}

static uint64_t file_id_hash(const struct file_id *k)
{
	return hash_mix(hash_u64(k->dev), k->ino);
}

/* The build-id read before from the file k; false when not read yet. */
static bool cached_build_id(struct sideband *sb, const struct file_id *k, uint8_t *id,
			    uint32_t *len)
{
	uint32_t *slot = hashmap__find(&sb->bid_index, file_id_hash(k), bid_eq, k, sb);

	if (!slot)
		return false;
	*len = sb->bids[*slot].len;
	memcpy(id, sb->bids[*slot].id, *len);
	return true;
}

/* Remembers that file k has build-id id (len 0: none); not kept without memory. */
static void cache_build_id(struct sideband *sb, const struct file_id *k, const uint8_t *id,
			   uint32_t len)
{
	struct build_id_entry *e;

	if (vec__grow(&sb->bids, &sb->alloc_bids, sb->nr_bids + 1, sizeof(*sb->bids)))
		return;
	e = &sb->bids[sb->nr_bids];
	memset(e, 0, sizeof(*e));
	e->dev = k->dev;
	e->ino = k->ino;
	e->len = len;
	memcpy(e->id, id, len);
	if (!hashmap__add(&sb->bid_index, file_id_hash(k), (uint32_t)sb->nr_bids))
		sb->nr_bids++;
}

/*
 * Build-id of the file mapped at [start, end) in pid; *len 0 when unknown.
 * known (NULL: none) is the file's identity as the mmap record gave it:
 * a file met before is not opened again.
 */
static void file_build_id(struct sideband *sb, uint32_t pid, uint64_t start, uint64_t end,
			  const char *path, int given_fd, const struct file_id *known,
			  uint8_t *id, uint32_t *len)
{
	struct file_id k;
	struct stat st;
	int fd = given_fd;

	*len = 0;
	if (known && cached_build_id(sb, known, id, len))
		return;
	if (fd == -1)		/* -2: the caller tried already */
		fd = mapped_file__open(pid, start, end, path);
	if (fd < 0)
		return;
	if (fstat(fd, &st))
		goto out;
	k.dev = st.st_dev;
	k.ino = st.st_ino;
	if (!cached_build_id(sb, &k, id, len)) {
		if (elf_file__read_build_id(fd, id, len))
			*len = 0;
		cache_build_id(sb, &k, id, *len);
	}
out:
	if (fd != given_fd)
		close(fd);	/* ours: the caller keeps given_fd */
}

/* id (id_len > 0): the build-id read already (procread.c), else from the file */
static int add_mapping(struct sideband *sb, uint64_t time, uint32_t pid, uint64_t start,
		       uint64_t end, uint64_t pgoff, const char *path, const struct file_id *known,
		       int fd, const uint8_t *id, uint32_t id_len)
{
	struct rec_mapping m;

	memset(&m, 0, sizeof(m));
	m.time_ns = time;
	m.tgid = pid;
	m.start = start;
	m.end = end;
	m.pgoff = pgoff;
	m.path = path;
	if (!strcmp(path, "[vdso]")) {
		m.build_id_len = sb->vdso_id_len;
		memcpy(m.build_id, sb->vdso_id, sb->vdso_id_len);
	} else if (id_len && id_len <= sizeof(m.build_id)) {
		m.build_id_len = id_len;
		memcpy(m.build_id, id, id_len);
	} else if (is_file_path(path)) {
		file_build_id(sb, pid, start, end, path, fd, known, m.build_id, &m.build_id_len);
	}
	return sb->sink.mapping(sb->sink.ctx, &m);
}

static uint64_t record_time(const struct perf_event_header *h)
{
	uint64_t t;

	memcpy(&t, (const char *)h + h->size - sizeof(t), sizeof(t));
	return t;
}

static int on_mmap2(struct sideband *sb, const struct perf_event_header *h)
{
	struct mmap2_head m;
	struct file_id id;
	const char *name = (const char *)h + sizeof(m);
	size_t max_name;

	if (h->size < sizeof(m) + SAMPLE_ID_SIZE + 1)
		return 0;
	memcpy(&m, h, sizeof(m));
	max_name = h->size - sizeof(m) - SAMPLE_ID_SIZE;
	if (strnlen(name, max_name) == max_name)
		return 0;			/* not terminated: malformed */
	if (!(m.prot & PROT_EXEC) || m.len == 0)
		return 0;
	if (!is_target(sb, m.pid))
		return 0;
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)	/* someone else's attr.build_id */
		return add_mapping(sb, record_time(h), m.pid, m.addr, m.addr + m.len, m.pgoff, name,
				   NULL, -1, NULL, 0);
	id.dev = makedev(m.maj, m.min);
	id.ino = m.ino;
	return add_mapping(sb, record_time(h), m.pid, m.addr, m.addr + m.len, m.pgoff, name,
			   &id, -1, NULL, 0);
}

static int on_comm(struct sideband *sb, const struct perf_event_header *h)
{
	const char *comm = (const char *)h + sizeof(*h) + 8;
	uint32_t ids[2];
	char buf[REC_COMM_LEN];
	size_t max;

	if (h->size < sizeof(*h) + 8 + SAMPLE_ID_SIZE + 1)
		return 0;
	memcpy(ids, (const char *)h + sizeof(*h), sizeof(ids));
	if (!is_target(sb, ids[0]))
		return 0;
	max = h->size - sizeof(*h) - 8 - SAMPLE_ID_SIZE;
	if (max > sizeof(buf) - 1)
		max = sizeof(buf) - 1;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, comm, strnlen(comm, max));
	return sb->sink.comm(sb->sink.ctx, record_time(h), ids[0], ids[1], buf,
			     h->misc & PERF_RECORD_MISC_COMM_EXEC);
}

/*
 * PERF_RECORD_FORK: a new process (not a thread) inherits its parent's
 * mappings. The records of each CPU come in their own buffer, so the
 * parent's last mmaps may be read after its fork: forks are kept and
 * applied once the whole batch is in (sideband__end_batch).
 */
static int on_fork(struct sideband *sb, const struct perf_event_header *h)
{
	uint32_t ids[4];	/* pid, ppid, tid, ptid */
	struct fork_event *f;

	if (h->size < sizeof(*h) + sizeof(ids) + 8 + SAMPLE_ID_SIZE)
		return 0;
	memcpy(ids, (const char *)h + sizeof(*h), sizeof(ids));
	if (ids[0] == ids[1] || !is_target(sb, ids[0]))
		return 0;
	if (vec__grow(&sb->forks, &sb->alloc_forks, sb->nr_forks + 1, sizeof(*sb->forks)))
		return pr_errno(-ENOMEM, "cannot keep fork events");
	f = &sb->forks[sb->nr_forks++];
	f->time_ns = record_time(h);
	f->ppid = ids[1];
	f->pid = ids[0];
	return 0;
}

static int cmp_fork(const void *a, const void *b)
{
	const struct fork_event *x = a, *y = b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/*
 * Applies the held forks older than limit_ns, oldest first, so a grandchild
 * copies what its parent has just inherited; later ones stay held.
 */
static int apply_forks_before(struct sideband *sb, uint64_t limit_ns)
{
	size_t i, kept = 0;
	int err = 0;

	if (sb->nr_forks > 1)
		qsort(sb->forks, sb->nr_forks, sizeof(*sb->forks), cmp_fork);
	for (i = 0; i < sb->nr_forks; i++) {
		const struct fork_event *f = &sb->forks[i];

		if (f->time_ns >= limit_ns || err)
			sb->forks[kept++] = *f;
		else
			err = sb->sink.fork(sb->sink.ctx, f->ppid, f->pid, f->time_ns);
	}
	sb->nr_forks = kept;
	return err;
}

static int drain_old(struct sideband *sb);

int sideband__end_batch(struct sideband *sb)
{
	int err = 0;

	/* buffers replaced by the last read: what they and the new ones hold */
	if (sb->old_pb) {
		err = drain_old(sb);
		if (!err && perf_buffer__consume(sb->pb) < 0)
			err = sb->err ? sb->err : pr_errno(-EIO, "cannot read the side-band events");
	}
	sb->read_past_ns = UINT64_MAX;
	return err ? err : apply_forks_before(sb, UINT64_MAX);
}

/*
 * PERF_RECORD_EXIT of a process (its JIT map is read before it is gone),
 * or of one of its other threads.
 */
static int on_exit_record(struct sideband *sb, const struct perf_event_header *h)
{
	uint32_t ids[4];	/* pid, ppid, tid, ptid */

	if (h->size < sizeof(*h) + sizeof(ids) + 8 + SAMPLE_ID_SIZE)
		return 0;
	memcpy(ids, (const char *)h + sizeof(*h), sizeof(ids));
	if (!is_target(sb, ids[0]))
		return 0;
	if (ids[0] != ids[2])
		return sb->sink.thread_exit ?
		       sb->sink.thread_exit(sb->sink.ctx, ids[0], ids[2], record_time(h)) : 0;
	return sb->sink.exit(sb->sink.ctx, ids[0], record_time(h));
}

int sideband__handle(struct sideband *sb, int cpu, const struct perf_event_header *h)
{
	uint64_t lost;
	int err = 0;

	switch (h->type) {
	case PERF_RECORD_MMAP2:
		err = on_mmap2(sb, h);
		break;
	case PERF_RECORD_COMM:
		err = on_comm(sb, h);
		break;
	case PERF_RECORD_FORK:
		err = on_fork(sb, h);
		break;
	case PERF_RECORD_EXIT:
		err = on_exit_record(sb, h);
		break;
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(*h) + 16) {
			memcpy(&lost, (const char *)h + sizeof(*h) + 8, sizeof(lost));
			sb->sink.lost(sb->sink.ctx, cpu, lost);
			if (!sb->draining)
				sb->lost_now += lost;
		}
		break;
	default:
		break;
	}
	return err;
}

static enum bpf_perf_event_ret on_event(void *ctx, int cpu, struct perf_event_header *h)
{
	struct sideband *sb = ctx;
	int err;

	/* a record the old buffer kept is handled anyway: at worst twice, never lost */
	if (sb->draining)
		(void)overlap__note(&sb->ov, cpu, h);
	else if (overlap__is_copy(&sb->ov, cpu, h) && ++sb->copies)
		return LIBBPF_PERF_EVENT_CONT;
	err = sideband__handle(sb, cpu, h);

	if (err) {
		if (!sb->err)
			sb->err = err;
		return LIBBPF_PERF_EVENT_ERROR;
	}
	return LIBBPF_PERF_EVENT_CONT;
}

int sideband__new(const struct sideband_sink *sink, struct sideband **out)
{
	struct sideband *sb;
	const void *vdso;
	size_t vdso_size;
	struct elf_file *vf;

	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return pr_errno(-ENOMEM, "cannot set up the side-band");
	sb->sink = *sink;
	sb->epfd = -1;
	sb->map_fd = -1;
	sb->old_map_fd = -1;
	if (!vdso__image(&vdso, &vdso_size) && !elf_file__open(-1, vdso, vdso_size, &vf)) {
		sb->vdso_id_len = vf->build_id_len;
		memcpy(sb->vdso_id, vf->build_id, vf->build_id_len);
		elf_file__close(vf);
	}
	*out = sb;
	return 0;
}

/*
 * -- CMD: the side-band follows the command alone. An event per CPU on its
 * task, inherited by every thread and child it starts, writes into the
 * buffer of that CPU (PERF_EVENT_IOC_SET_OUTPUT), whose own whole-CPU
 * event is disabled: no neighbour's records reach the buffers, however
 * many it writes. The command waits at its gate, so none of its records
 * comes before.
 */
/*
 * An inherited event per CPU on task tid, into that CPU's buffer. 0,
 * -ESRCH when the task is gone (only when gone_ok: else printed), or an
 * error (printed).
 */
static int follow_one(struct sideband *sb, uint32_t tid, const uint32_t *cpus, size_t nr,
		      bool gone_ok)
{
	struct perf_event_attr attr;
	size_t i, first = sb->nr_task_fds;

	if (vec__grow(&sb->task_fds, &sb->alloc_task_fds, sb->nr_task_fds + nr,
		      sizeof(*sb->task_fds)))
		return pr_errno(-ENOMEM, "cannot set up the side-band");
	sideband_attr__init(&attr);
	attr.inherit = 1;
	for (i = 0; i < nr; i++) {
		int cpu_fd = perf_buffer__buffer_fd(sb->pb, i);
		int fd = (int)syscall(__NR_perf_event_open, &attr, (int)tid, (int)cpus[i], -1,
				      PERF_FLAG_FD_CLOEXEC);

		if (fd < 0 && errno == ESRCH && gone_ok) {
			/* whole groups only: task_fds[k] is CPU cpus[k % nr]'s (grow()) */
			while (sb->nr_task_fds > first)
				close(sb->task_fds[--sb->nr_task_fds]);
			return -ESRCH;
		}
		if (fd < 0)
			return pr_errno(-errno, "cannot open the side-band event of task %u on "
					"CPU %u", tid, cpus[i]);
		sb->task_fds[sb->nr_task_fds++] = fd;
		if (cpu_fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, cpu_fd))
			return pr_errno(cpu_fd < 0 ? cpu_fd : -errno, "cannot direct the side-band "
					"events of task %u on CPU %u", tid, cpus[i]);
	}
	return 0;
}

/*
 * The whole-CPU events off (the targets' own events stay), or on again
 * (-p past what it can follow).
 */
static int whole_cpu_set(struct sideband *sb, const uint32_t *cpus, size_t nr, bool on)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (ioctl(perf_buffer__buffer_fd(sb->pb, i),
			  on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0))
			return pr_errno(-errno, "cannot %s the whole-CPU side-band event of CPU %u",
					on ? "enable" : "disable", cpus[i]);
	return 0;
}

static int follow_task(struct sideband *sb, uint32_t pid, const uint32_t *cpus, size_t nr)
{
	int err = follow_one(sb, pid, cpus, nr, false);

	return err ? err : whole_cpu_set(sb, cpus, nr, false);
}

/*
 * -p follows each thread with an event per CPU, as `perf record -p` does:
 * at most half the open-file limit (cmd_record.c raises it to the hard
 * limit) of such events, and never more than FOLLOW_MAX_FDS (each is a
 * perf event in the kernel). Past that, the whole-CPU events stay: every
 * process's records, filtered in user space.
 */
#define FOLLOW_MAX_FDS	65536
#define FOLLOW_PASSES	8

static size_t follow_max_fds(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur / 2 > FOLLOW_MAX_FDS)
		return FOLLOW_MAX_FDS;
	return (size_t)(rl.rlim_cur / 2);
}

/*
 * One pass over /proc/PID/task of every pid: an event on each thread not
 * yet followed. *added counts them. 0, -E2BIG past max_fds events, or an
 * error (printed).
 */
static int follow_pass(struct sideband *sb, const uint32_t *pids, size_t nr_pids,
		       const uint32_t *cpus, size_t nr, size_t max_fds, struct u64map *tids,
		       size_t *added)
{
	char path[64];
	uint64_t *slot;
	bool fresh;
	size_t p;
	int err = 0;

	for (p = 0; p < nr_pids && !err; p++) {
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%u/task", pids[p]);
		d = opendir(path);
		if (!d)
			continue;	/* gone: nothing to follow */
		while (!err && (de = readdir(d))) {
			char *end;
			unsigned long tid = strtoul(de->d_name, &end, 10);

			if (*end || !tid || tid > UINT32_MAX || de->d_name[0] == '0' ||
			    u64map__find(tids, tid))
				continue;
			if (sb->nr_task_fds + nr > max_fds) {
				err = -E2BIG;
				break;
			}
			if (u64map__upsert(tids, tid, 1, &slot, &fresh)) {
				err = pr_errno(-ENOMEM, "cannot set up the side-band");
				break;
			}
			err = follow_one(sb, (uint32_t)tid, cpus, nr, true);
			if (err == -ESRCH)
				err = 0;	/* exited: its records no longer matter */
			else if (!err)
				(*added)++;
		}
		closedir(d);
	}
	return err;
}

/*
 * -p: an inherited event on every thread of the pids, so threads and
 * children they start later are followed too. A thread started between
 * the listing and its parent's event would be missed, so the listing is
 * read again until a pass finds none new. The whole-CPU events are off
 * meanwhile: following thousands of threads takes a while, in which a
 * busy neighbour would fill the buffers; the targets' mappings made then
 * are read from /proc after (sideband__scan_proc). Past follow_max_fds()
 * events, or when passes keep finding new threads, the events opened are
 * closed and the whole-CPU events go on again (every process, as -a).
 */
static int follow_pids(struct sideband *sb, const uint32_t *pids, size_t nr_pids,
		       const uint32_t *cpus, size_t nr)
{
	struct u64map tids = U64MAP_INIT;	/* those met: followed, or gone */
	size_t added = 1, max_fds = follow_max_fds();
	int passes, err = whole_cpu_set(sb, cpus, nr, false);

	for (passes = 0; added && passes < FOLLOW_PASSES && !err; passes++) {
		added = 0;
		err = follow_pass(sb, pids, nr_pids, cpus, nr, max_fds, &tids, &added);
	}
	u64map__release(&tids);
	if (!err && !added)
		return 0;
	if (err && err != -E2BIG)
		return err;
	if (err)
		pr_warn("side-band: the targets' threads need over %zu events to be followed one by "
			"one, %zu a thread (half the open-file limit: raise 'ulimit -Hn'); it listens "
			"to every process", max_fds, nr);
	else
		pr_warn("side-band: the targets keep starting threads; it listens to every process");
	while (sb->nr_task_fds)
		close(sb->task_fds[--sb->nr_task_fds]);
	return whole_cpu_set(sb, cpus, nr, true);
}

static void buffer_opts(const struct sideband *sb, struct perf_buffer_raw_opts *popts)
{
	memset(popts, 0, sizeof(*popts));
	popts->sz = sizeof(*popts);
	popts->cpu_cnt = (int)sb->nr_cpus;	/* buffer i is CPU cpus[i]'s */
	popts->cpus = (int *)sb->cpus;
	popts->map_keys = (int *)sb->cpus;
}

/* The epoll fd the caller waits on holds the current buffers' own. */
static int watch(struct sideband *sb, struct perf_buffer *pb, int op)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (epoll_ctl(sb->epfd, op, perf_buffer__epoll_fd(pb), op == EPOLL_CTL_DEL ? NULL : &ev))
		return pr_errno(-errno, "cannot wait for the side-band events");
	return 0;
}

int sideband__open(int map_fd, uint32_t task, const uint32_t *pids, size_t nr_pids,
		   const struct sideband_sink *sink, struct sideband **out)
{
	struct perf_buffer_raw_opts popts;
	struct perf_event_attr attr;
	struct sideband *sb = NULL;	/* set by sideband__new() on success */
	int err;

	err = sideband__new(sink, &sb);
	if (!err)
		err = cpus__online(&sb->cpus, &sb->nr_cpus);
	if (!err) {
		sb->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (sb->epfd < 0)
			err = pr_errno(-errno, "cannot wait for the side-band events");
	}
	if (err) {
		sideband__close(sb);
		return err;
	}
	buffer_opts(sb, &popts);
	sideband_attr__init(&attr);
	/*
	 * -- CMD: the whole-CPU events only carry the buffers the command's
	 * events write into. Were they on with records of their own until
	 * follow_task() turns them off, a neighbour mapping 10^5 pages a
	 * second would overflow the small buffers in those milliseconds, and
	 * the kernel would report that loss with the command's first record
	 * (t0402: 27 to 387 records "lost").
	 */
	if (task)
		sideband_attr__carrier(&attr);
	sb->pages = first_pages(sb->nr_cpus, task || nr_pids);
	sb->pb = perf_buffer__new_raw(map_fd, sb->pages, &attr, on_event, sb, &popts);
	if (!sb->pb)
		err = pr_errno(-errno, "cannot open the side-band perf events");
	else if (task)
		err = follow_task(sb, task, sb->cpus, sb->nr_cpus);
	else if (nr_pids)
		err = follow_pids(sb, pids, nr_pids, sb->cpus, sb->nr_cpus);
	if (!err)
		err = watch(sb, sb->pb, EPOLL_CTL_ADD);
	if (err) {
		sideband__close(sb);
		return err;
	}
	*out = sb;
	return 0;
}

int sideband__epoll_fd(struct sideband *sb)
{
	return sb->epfd;
}

void sideband__size(const struct sideband *sb, size_t *pages, size_t *grown)
{
	*pages = sb ? sb->pages : 0;
	*grown = sb ? sb->grown : 0;
}

/* The buffers stay as they are from now on; said once when records were lost. */
static void stop_growing(struct sideband *sb, const char *why)
{
	sb->grow_stopped = true;
	pr_warn("side-band: %llu records lost; the buffers stay at %zu KiB a CPU (%s); the "
		"losses are counted", (unsigned long long)sb->lost_now,
		sb->pages * (size_t)sysconf(_SC_PAGESIZE) / 1024, why);
}

/*
 * -- CMD, -p: the targets' events write into the new buffers from now on,
 * each switched at once by the kernel (a record goes to one buffer or the
 * other, never both). The new whole-CPU events carry no records of their
 * own. On failure every event goes back to the old buffers: an event left
 * on a buffer that is freed would write nowhere.
 */
static int redirect_tasks(struct sideband *sb, struct perf_buffer *to, struct perf_buffer *back)
{
	size_t i, j;

	for (i = 0; i < sb->nr_task_fds; i++) {
		if (!ioctl(sb->task_fds[i], PERF_EVENT_IOC_SET_OUTPUT,
			   perf_buffer__buffer_fd(to, i % sb->nr_cpus)))
			continue;
		for (j = 0; j < i; j++)
			ioctl(sb->task_fds[j], PERF_EVENT_IOC_SET_OUTPUT,
			      perf_buffer__buffer_fd(back, j % sb->nr_cpus));
		return -errno;
	}
	return 0;
}

/*
 * -a: the new whole-CPU events are on before the old ones go off, so no
 * record falls between; what both have is told apart by overlap.h.
 */
static int whole_cpu_switch(struct sideband *sb, uint64_t from_ns)
{
	size_t i;

	int err;

	for (i = 0; i < sb->nr_cpus; i++) {
		if (!ioctl(perf_buffer__buffer_fd(sb->pb, i), PERF_EVENT_IOC_DISABLE, 0))
			continue;
		err = -errno;
		while (i--)	/* the old buffers stay: all of them on */
			ioctl(perf_buffer__buffer_fd(sb->pb, i), PERF_EVENT_IOC_ENABLE, 0);
		return err;
	}
	overlap__begin(&sb->ov, from_ns - OVERLAP_MARGIN_NS, now_ns() + OVERLAP_MARGIN_NS);
	return 0;
}

/*
 * Records were lost: buffers GROWTH times larger replace the current ones,
 * which are read to their end at the next consume (a record being written
 * as they went off lands by then) and freed. Failing is not an error: the
 * buffers stay, the losses are counted.
 */
static int grow(struct sideband *sb)
{
	size_t pages = sb->pages * GROWTH;
	uint64_t bytes = (uint64_t)(pages + 1) * (uint64_t)sysconf(_SC_PAGESIZE) * sb->nr_cpus;
	struct perf_buffer_raw_opts popts;
	struct perf_event_attr attr;
	struct perf_buffer *pb;
	uint64_t from_ns;
	int map_fd, err;

	if (pages > MAX_PAGES) {
		stop_growing(sb, "their largest size");
		return 0;
	}
	if (!mem_budget__take(bytes)) {
		stop_growing(sb, "the memory budget, --mem-limit");
		return 0;
	}
	map_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "eprof_sideband", sizeof(int),
				sizeof(int), (uint32_t)libbpf_num_possible_cpus(), NULL);
	buffer_opts(sb, &popts);
	sideband_attr__init(&attr);
	if (sb->nr_task_fds)
		sideband_attr__carrier(&attr);
	from_ns = now_ns();
	pb = map_fd < 0 ? NULL : perf_buffer__new_raw(map_fd, pages, &attr, on_event, sb, &popts);
	err = !pb ? -errno : sb->nr_task_fds ? redirect_tasks(sb, pb, sb->pb) :
	      whole_cpu_switch(sb, from_ns);
	if (!err)
		err = watch(sb, pb, EPOLL_CTL_ADD);
	if (err) {
		perf_buffer__free(pb);
		if (map_fd >= 0)
			close(map_fd);
		mem_budget__give(bytes);
		pr_debug("side-band: cannot open larger buffers: %s", strerror(-err));
		stop_growing(sb, "larger ones could not be opened");
		return 0;
	}
	(void)watch(sb, sb->pb, EPOLL_CTL_DEL);		/* it goes on the next consume anyway */
	sb->old_pb = sb->pb;
	sb->old_map_fd = sb->map_fd;
	sb->old_taken = sb->taken;
	sb->pb = pb;
	sb->map_fd = map_fd;
	sb->taken = bytes;
	sb->pages = pages;
	sb->grown++;
	pr_debug("side-band: %llu records lost; buffers grown to %zu KiB a CPU",
		 (unsigned long long)sb->lost_now, pages * (size_t)sysconf(_SC_PAGESIZE) / 1024);
	sb->lost_now = 0;
	return 0;
}

/* The buffers replaced by grow(): read to their end, then freed. */
static int drain_old(struct sideband *sb)
{
	int err;

	if (!sb->old_pb)
		return 0;
	sb->draining = true;
	err = perf_buffer__consume(sb->old_pb);
	sb->draining = false;
	overlap__seal(&sb->ov);
	perf_buffer__free(sb->old_pb);
	sb->old_pb = NULL;
	if (sb->old_map_fd >= 0)
		close(sb->old_map_fd);
	sb->old_map_fd = -1;
	mem_budget__give(sb->old_taken);
	sb->old_taken = 0;
	if (err < 0 && sb->err)
		return sb->err;
	if (err < 0)
		return pr_errno(err, "cannot read the side-band events");
	return 0;
}

/*
 * Reads every CPU's buffer, then applies the forks all of whose earlier
 * records are surely in. A CPU's buffer read before the fork was read may
 * have missed the parent's mmaps that another CPU wrote just before the
 * fork (the recorder preempted between two buffers, as on a loaded
 * machine), so while a pass finds forks, another pass reads on: a fork
 * stamped before a pass began has everything older than it written by
 * then. A fork newer than the last pass waits for the next call.
 * Buffers that lost records are then replaced by larger ones (grow()).
 */
int sideband__consume(struct sideband *sb)
{
	uint64_t pass_ns;
	size_t before;
	int passes = 0, err;

	err = drain_old(sb);
	if (err)
		return err;
	do {
		before = sb->nr_forks;
		pass_ns = now_ns();
		err = perf_buffer__consume(sb->pb);
		if (err < 0 && sb->err)
			return sb->err;
		if (err < 0)
			return pr_errno(err, "cannot read the side-band events");
	} while (sb->nr_forks > before && ++passes < 4);
	sb->read_past_ns = pass_ns;
	if (overlap__open(&sb->ov) && pass_ns > sb->ov.to_ns + OVERLAP_MARGIN_NS) {
		pr_debug("side-band: %zu of %zu records the old buffers had in the switch came "
			 "again in the new ones, handled once", sb->copies, sb->ov.nr);
		overlap__end(&sb->ov);		/* every copy was read */
		sb->copies = 0;
	}
	err = apply_forks_before(sb, pass_ns);		/* prints its own error */
	if (!err && sb->lost_now && !sb->grow_stopped)
		err = grow(sb);
	return err;
}

uint64_t sideband__read_past(const struct sideband *sb)
{
	return sb ? sb->read_past_ns : 0;
}

/*
 * The executable mappings of a process that existed before the recording.
 * A process whose memory map stays locked past timeout_ns (its mmap_lock
 * held by a task starved of CPU) is left out: *skipped counts it.
 */
static int scan_maps(struct sideband *sb, struct proc_reader *pr, uint32_t pid,
		     uint64_t timeout_ns, uint64_t time_ns, size_t *skipped)
{
	struct proc_maps maps;
	size_t i;
	int err;

	err = proc_reader__maps(pr, pid, timeout_ns, &maps);
	if (err == -ETIMEDOUT) {
		pr_debug("the mappings of process %u were not read: its memory map stayed locked",
			 pid);
		(*skipped)++;
		return 0;
	}
	for (i = 0; i < maps.nr && !err; i++) {
		const struct proc_map *m = &maps.v[i];
		int fd = m->same ? maps.v[m->same - 1].fd : m->fd;

		/* -2: opening it might wait for the lock again: no build-id */
		err = add_mapping(sb, time_ns, pid, m->start, m->end, m->pgoff, m->path, NULL,
				  fd >= 0 ? fd : -2, m->build_id, m->id_len);
	}
	proc_maps__release(&maps);
	return err;
}

static int scan_comms(struct sideband *sb, uint32_t pid)
{
	char path[96], comm[64];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		unsigned long tid;
		char *end;
		FILE *f;
		size_t n;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = strtoul(de->d_name, &end, 10);
		if (*end)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%lu/comm", pid, tid);
		f = fopen(path, "re");
		if (!f)
			continue;
		n = fread(comm, 1, REC_COMM_LEN - 1, f);
		fclose(f);
		comm[n] = '\0';
		if (n && comm[n - 1] == '\n')
			comm[n - 1] = '\0';
		err = sb->sink.comm(sb->sink.ctx, 0, pid, (uint32_t)tid, comm, false);
		if (err)
			break;
	}
	closedir(d);
	return err;
}

int sideband__scan_proc(struct sideband *sb, const uint32_t *pids, size_t nr, bool all)
{
	/* -p names few processes and wants them; -a may meet thousands */
	uint64_t timeout = all ? SCAN_TIMEOUT_ALL_NS : SCAN_TIMEOUT_PID_NS;
	struct proc_reader *pr = NULL;
	struct dirent *de;
	size_t i, skipped = 0;
	DIR *d = NULL;
	int err;

	err = proc_reader__new(&pr);
	if (err)
		return err;
	if (!all) {
		for (i = 0; i < nr && !err; i++) {
			err = scan_maps(sb, pr, pids[i], timeout, 0, &skipped);
			if (!err)
				err = scan_comms(sb, pids[i]);
		}
		goto out;
	}
	d = opendir("/proc");
	if (!d) {
		err = pr_errno(-errno, "cannot read '/proc'");
		goto out;
	}
	while (!err && (de = readdir(d))) {
		unsigned long pid;
		char *end;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtoul(de->d_name, &end, 10);
		if (*end)
			continue;
		err = scan_maps(sb, pr, (uint32_t)pid, timeout, 0, &skipped);
		if (!err)
			err = scan_comms(sb, (uint32_t)pid);
	}
out:
	if (d)
		closedir(d);
	proc_reader__free(pr);
	if (!err && skipped)
		pr_warn("the mappings of %zu running process%s were not read: %s memory map "
			"stayed locked over %llu ms (a busy machine); their code is named from "
			"their next exec or mmap on", skipped, skipped == 1 ? "" : "es",
			skipped == 1 ? "its" : "their", (unsigned long long)(timeout / 1000000));
	return err;
}

int sideband__rescan(struct sideband *sb, const uint32_t *pids, size_t nr, uint64_t time_ns)
{
	struct proc_reader *pr = NULL;
	size_t i, skipped = 0;
	int err;

	err = proc_reader__new(&pr);
	for (i = 0; i < nr && !err; i++) {
		err = scan_maps(sb, pr, pids[i], SCAN_TIMEOUT_PID_NS, time_ns, &skipped);
		if (!err)
			err = scan_comms(sb, pids[i]);
	}
	proc_reader__free(pr);
	return err;
}

void sideband__close(struct sideband *sb)
{
	if (!sb)
		return;
	while (sb->nr_task_fds)
		close(sb->task_fds[--sb->nr_task_fds]);
	free(sb->task_fds);
	perf_buffer__free(sb->old_pb);
	perf_buffer__free(sb->pb);
	if (sb->old_map_fd >= 0)
		close(sb->old_map_fd);
	if (sb->map_fd >= 0)
		close(sb->map_fd);
	if (sb->epfd >= 0)
		close(sb->epfd);
	mem_budget__give(sb->taken + sb->old_taken);
	overlap__release(&sb->ov);
	free(sb->cpus);
	hashmap__release(&sb->bid_index);
	free(sb->bids);
	free(sb->forks);
	free(sb);
}
