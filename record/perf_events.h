/* SPDX-License-Identifier: MIT */
/*
 * record/perf_events.h - the CPUs to sample and the perf events record/
 * opens on them.
 */
#ifndef EPROF_RECORD_PERF_EVENTS_H
#define EPROF_RECORD_PERF_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_attr;

/* Online CPUs from /sys/devices/system/cpu/online; *out is malloc'd. Prints on failure. */
int cpus__online(uint32_t **out, size_t *nr);

/*
 * The sampling clock of one CPU and its own account of itself. In frequency
 * mode the kernel turns the software CPU clock into a fixed-period hrtimer
 * (cpu_clock__period_ns), so "expected ticks" is simply enabled time over
 * period. What it does not fire is either throttled (the kernel stops the
 * event after too many interrupts without a scheduler tick; it logs
 * PERF_RECORD_THROTTLE/UNTHROTTLE into the event's ring buffer, which we map
 * for that alone: the BPF program suppresses sample output) or skipped by a
 * late timer (hrtimer_forward_now() jumps over periods that passed while the
 * CPU could not take the interrupt).
 */
struct cpu_clock {
	int fd;			/* ours; the BPF link owns a second fd of the same event */
	uint32_t cpu;
	void *ring;		/* metadata page + data pages, NULL when the map failed */
	size_t ring_len;
	uint64_t enabled_ns;	/* time_enabled at the previous account */
	uint64_t counted_ns;	/* the clock's count then (fallback without the ring) */
	uint64_t throttled_since;	/* CLOCK_MONOTONIC of an open THROTTLE */
	bool throttled;
};

/* What one CPU's clock did between two cpu_clock__account() calls. */
struct clock_account {
	uint64_t enabled_ns;	/* the event was enabled */
	uint64_t throttled_ns;	/* of which throttled by the kernel */
	uint64_t throttles;	/* THROTTLE records */
	uint64_t lost_records;	/* throttle records the kernel could not write */
};

/* The period the kernel gives the CPU clock for freq Hz (kernel/events/core.c). */
uint64_t cpu_clock__period_ns(uint64_t freq);

/*
 * Opens the software CPU clock on cpu, sampling at freq Hz for every task,
 * disabled (attaching the BPF program enables it), and maps its throttle
 * records. *attach_fd is a second fd of the event for the BPF link to own;
 * cc keeps its own. Returns 0 or a negative errno, and prints the reason.
 */
int cpu_clock__open(struct cpu_clock *cc, uint32_t cpu, uint64_t freq, int *attach_fd);

/*
 * Clocks opened after this run only while tasks of the cgroup v2 directory
 * cgroup_fd (record/cgroup.c) run: perf's cgroup mode. -1 (the default):
 * every task. The fd must stay open until the clocks are open.
 */
void cpu_clock__set_cgroup(int cgroup_fd);

/*
 * Reads what the clock did since the previous call into *out, now being
 * the current CLOCK_MONOTONIC time (a throttle still open is counted up to
 * now). Works after the event was disabled. Prints on failure.
 */
int cpu_clock__account(struct cpu_clock *cc, uint64_t now, struct clock_account *out);

/* Accepts a zeroed or closed cc. */
void cpu_clock__close(struct cpu_clock *cc);

/*
 * The side-band event attributes: mmap2 (device and inode, never the
 * build-id), comm, task, CLOCK_MONOTONIC times.
 */
void sideband_attr__init(struct perf_event_attr *attr);

/*
 * Makes attr (from sideband_attr__init) write no records of its own: an
 * event that only carries a buffer, into which other events' records are
 * directed (PERF_EVENT_IOC_SET_OUTPUT wants the same clock).
 */
void sideband_attr__carrier(struct perf_event_attr *attr);

#endif
