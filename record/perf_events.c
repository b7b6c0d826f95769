// SPDX-License-Identifier: MIT
/*
 * record/perf_events.c - online CPUs and perf_event_open() for the sampler
 * and the side-band.
 *
 * The sampler clock is the software CPU clock in frequency mode, as `perf
 * record -F` uses when no hardware PMU is available (and in VMs): it ticks
 * on every CPU whatever runs there, idle included. Side-band events are
 * dummy software events that only carry mmap/comm/task records.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/perf_events.h"
#include "util/log.h"
#include "util/parse.h"

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

int cpu_clock__open(uint32_t cpu, uint64_t freq)
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
	fd = syscall(__NR_perf_event_open, &attr, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		return fd;
	err = -errno;
	if (err == -EACCES || err == -EPERM)
		return pr_errno(err, "cannot open the CPU clock event on CPU %u "
			       "(run as root, or grant CAP_BPF and CAP_PERFMON)", cpu);
	if (err == -EINVAL)
		return pr_errno(err, "cannot open the CPU clock event on CPU %u at %llu Hz "
			       "(see /proc/sys/kernel/perf_event_max_sample_rate)",
			       cpu, (unsigned long long)freq);
	return pr_errno(err, "cannot open the CPU clock event on CPU %u", cpu);
}

void sideband_attr__init(struct perf_event_attr *attr, int with_build_id)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr->sample_id_all = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->build_id = with_build_id ? 1 : 0;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->watermark = 1;
	attr->wakeup_watermark = 64 * 1024;	/* user space polls every 100 ms regardless */
}
