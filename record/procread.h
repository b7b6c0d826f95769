/* SPDX-License-Identifier: MIT */
/*
 * record/procread.h - the executable mappings of a running process, read
 * from /proc/PID/maps on a helper thread with a time limit. Reading another
 * process's maps takes its memory-map lock; on a saturated machine the
 * holder of that lock may wait seconds (minutes were seen) for a CPU, and
 * the real-time recorder would wait with it, in a sleep no signal ends.
 * A read that does not finish in time is left to the helper thread, whose
 * result is thrown away, and the caller goes on without that process.
 */
#ifndef EPROF_RECORD_PROCREAD_H
#define EPROF_RECORD_PROCREAD_H

#include <stddef.h>
#include <stdint.h>

/* One executable mapping of a file or of the vDSO. */
struct proc_map {
	uint64_t start, end, pgoff;
	char *path;		/* as /proc shows it: a file path or "[vdso]" */
	int fd;			/* the very file mapped (/proc/PID/map_files), or -1 */
	size_t same;		/* index + 1 of an earlier mapping of the same file
				 * (device and inode), whose fd stands for this one */
	/*
	 * A file past the PROC_MAPS_MAX_FDS held open (eprof itself maps
	 * forty libraries): its build-id, read on the helper thread and the
	 * file closed at once. id_len 0: none or unknown.
	 */
	uint8_t build_id[20];
	uint32_t id_len;
};

/*
 * Files a read holds open at most: one per distinct file, never one per
 * mapping (a process can map one file thousands of times), and a few
 * dozen per read (16 stuck reads at most: procread.c), so no process can
 * exhaust the recorder's descriptors.
 */
#define PROC_MAPS_MAX_FDS	32

struct proc_maps {
	struct proc_map *v;
	size_t nr;
};

struct proc_reader;

/* 0 or -ENOMEM (after the message). */
int proc_reader__new(struct proc_reader **out);

/*
 * Fills out (the caller releases it) with pid's executable mappings, each
 * distinct file opened once (up to PROC_MAPS_MAX_FDS). Returns 0 (a process gone has no mappings), -ETIMEDOUT when
 * the read took longer than timeout_ns or too many reads are stuck already
 * (nothing is filled; counted by proc_reader__timeouts()), or
 * -ENOMEM (after the message).
 */
int proc_reader__maps(struct proc_reader *r, uint32_t pid, uint64_t timeout_ns,
		      struct proc_maps *out);

/* Reads that timed out so far. */
size_t proc_reader__timeouts(const struct proc_reader *r);

/* Accepts NULL. Reads still stuck finish alone and free what they hold. */
void proc_reader__free(struct proc_reader *r);

/* Accepts an empty or released out; closes the files. */
void proc_maps__release(struct proc_maps *m);

#endif
