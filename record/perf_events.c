// SPDX-License-Identifier: MIT
/*
 * record/perf_events.c - online CPUs and perf_event_open() for the sampler
 * and the side-band.
 *
 * The sampler clock is the software CPU clock in frequency mode, as `perf
 * record -F` uses when no hardware PMU is available (and in VMs): it ticks
 * on every CPU whatever runs there, idle included. Each clock also keeps
 * its own account (enabled time, throttled time) so that a recording can
 * say how many ticks it should have had and why it did not. Side-band
 * events are dummy software events that only carry mmap/comm/task records.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/perf_events.h"
#include "util/log.h"
#include "util/parse.h"

#define CLOCK_RING_PAGES	16	/* 64 KiB: THROTTLE+UNTHROTTLE at every tick for >2 s */

int cpus__online(uint32_t **out, size_t *nr)
{
	const char *path = "/sys/devices/system/cpu/online";
	char buf[4096];
	size_t len;
	FILE *f;
	int err;

	f = fopen(path, "re");
	if (!f)
		return pr_errno(-errno, "cannot read '%s'", path);
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	err = parse_u32_list(buf, 65535, out, nr);
	if (err || !*nr) {
		pr_err("cannot parse '%s': '%s'", path, buf);
		return err ? err : -EINVAL;
	}
	return 0;
}

uint64_t cpu_clock__period_ns(uint64_t freq)
{
	uint64_t p = freq ? 1000000000ull / freq : 1000000000ull;

	return p < 10000 ? 10000 : p;	/* the kernel's floor for hrtimer events */
}

static int clock_cgroup_fd = -1;

void cpu_clock__set_cgroup(int cgroup_fd)
{
	clock_cgroup_fd = cgroup_fd;
}

static int cpu_clock__open_fd(uint32_t cpu, uint64_t freq)
{
	struct perf_event_attr attr;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.freq = 1;
	attr.sample_freq = freq;
	attr.disabled = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.use_clockid = 1;		/* THROTTLE times on the samples' clock */
	attr.clockid = CLOCK_MONOTONIC;
	if (clock_cgroup_fd >= 0)
		fd = syscall(__NR_perf_event_open, &attr, clock_cgroup_fd, (int)cpu, -1,
			     PERF_FLAG_FD_CLOEXEC | PERF_FLAG_PID_CGROUP);
	else
		fd = syscall(__NR_perf_event_open, &attr, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		return fd;
	err = -errno;
	if (clock_cgroup_fd >= 0 && (err == -EINVAL || err == -EBADF || err == -EOPNOTSUPP))
		return pr_errno(err, "cannot open the CPU clock event on CPU %u for the cgroup "
			       "(is the kernel built with CONFIG_CGROUP_PERF?)", cpu);
	if (err == -EACCES || err == -EPERM)
		return pr_errno(err, "cannot open the CPU clock event on CPU %u "
			       "(run as root, or grant CAP_BPF and CAP_PERFMON)", cpu);
	if (err == -EINVAL)
		return pr_errno(err, "cannot open the CPU clock event on CPU %u at %llu Hz "
			       "(see /proc/sys/kernel/perf_event_max_sample_rate)",
			       cpu, (unsigned long long)freq);
	return pr_errno(err, "cannot open the CPU clock event on CPU %u", cpu);
}

int cpu_clock__open(struct cpu_clock *cc, uint32_t cpu, uint64_t freq, int *attach_fd)
{
	long page = sysconf(_SC_PAGESIZE);
	int err;

	memset(cc, 0, sizeof(*cc));
	cc->cpu = cpu;
	cc->fd = cpu_clock__open_fd(cpu, freq);
	if (cc->fd < 0)
		return cc->fd;
	*attach_fd = fcntl(cc->fd, F_DUPFD_CLOEXEC, 0);
	if (*attach_fd < 0) {
		err = pr_errno(-errno, "cannot open the CPU clock event on CPU %u", cpu);
		cpu_clock__close(cc);
		return err;
	}
	/*
	 * Throttle records only: with the BPF program attached the kernel
	 * writes no samples here. Without the map (locked-memory limits) the
	 * clock's own count still tells running from throttled time.
	 */
	cc->ring_len = (size_t)page * (1 + CLOCK_RING_PAGES);
	cc->ring = mmap(NULL, cc->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, cc->fd, 0);
	if (cc->ring == MAP_FAILED) {
		pr_warn("cannot map the throttle records of CPU %u (%s): throttling is measured "
			"from the clock's count instead", cpu, strerror(errno));
		cc->ring = NULL;
	}
	return 0;
}

/* One THROTTLE or UNTHROTTLE record: header, time, id, stream id. */
struct throttle_rec {
	struct perf_event_header hdr;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
};

static void cpu_clock__note(struct cpu_clock *cc, const struct perf_event_header *h,
			    const void *body, struct clock_account *a)
{
	const struct throttle_rec *t = body;

	if (h->type == PERF_RECORD_LOST) {
		a->lost_records++;
		return;
	}
	if (h->size < sizeof(*t))
		return;
	if (h->type == PERF_RECORD_THROTTLE && !cc->throttled) {
		cc->throttled = true;
		cc->throttled_since = t->time;
		a->throttles++;
	} else if (h->type == PERF_RECORD_UNTHROTTLE && cc->throttled) {
		cc->throttled = false;
		if (t->time > cc->throttled_since)
			a->throttled_ns += t->time - cc->throttled_since;
	}
}

/* Reads every record the kernel wrote since the last call, then frees their room. */
static void cpu_clock__drain(struct cpu_clock *cc, struct clock_account *a)
{
	struct perf_event_mmap_page *mp = cc->ring;
	const uint8_t *data = (const uint8_t *)cc->ring + mp->data_offset;
	uint64_t size = mp->data_size, head, tail;
	uint8_t rec[256];

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t off = tail % size, i;

		for (i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(off + i) % size];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;		/* damaged: skip what is left */
		for (i = 0; i < h.size && i < sizeof(rec); i++)
			rec[i] = data[(off + i) % size];
		cpu_clock__note(cc, &h, rec, a);
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
}

int cpu_clock__account(struct cpu_clock *cc, uint64_t now, struct clock_account *out)
{
	uint64_t v[3];			/* count (ns), time enabled, time running */
	ssize_t n;

	memset(out, 0, sizeof(*out));
	n = read(cc->fd, v, sizeof(v));
	if (n != (ssize_t)sizeof(v))
		return pr_errno(n < 0 ? -errno : -EIO, "cannot read the CPU clock of CPU %u",
				cc->cpu);
	out->enabled_ns = v[1] - cc->enabled_ns;
	if (cc->ring) {
		cpu_clock__drain(cc, out);
		if (cc->throttled && now > cc->throttled_since) {
			out->throttled_ns += now - cc->throttled_since;
			cc->throttled_since = now;
		}
	} else if (v[0] - cc->counted_ns < out->enabled_ns) {
		/* a throttled clock stops counting (cpu_clock_event_stop) */
		out->throttled_ns = out->enabled_ns - (v[0] - cc->counted_ns);
	}
	if (out->throttled_ns > out->enabled_ns)
		out->throttled_ns = out->enabled_ns;	/* disabled while throttled */
	cc->enabled_ns = v[1];
	cc->counted_ns = v[0];
	return 0;
}

void cpu_clock__close(struct cpu_clock *cc)
{
	if (cc->ring)
		munmap(cc->ring, cc->ring_len);
	cc->ring = NULL;
	if (cc->fd > 0)
		close(cc->fd);
	cc->fd = -1;
}

void sideband_attr__init(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr->sample_id_all = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	/*
	 * No attr.build_id: the kernel writes one mmap record for every
	 * listener and would OR PERF_RECORD_MISC_MMAP_BUILD_ID into what perf
	 * receives too (perf 6.1 then cannot read its own file). Build-ids are
	 * read from the files (record/sideband.c).
	 */
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->watermark = 1;
	attr->wakeup_watermark = 64 * 1024;	/* user space polls every 100 ms regardless */
}

void sideband_attr__carrier(struct perf_event_attr *attr)
{
	attr->mmap = 0;
	attr->mmap2 = 0;
	attr->comm = 0;
	attr->comm_exec = 0;
	attr->task = 0;
}
