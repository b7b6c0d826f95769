// SPDX-License-Identifier: MIT
/*
 * record/cgroup.c - finding the cgroup `record --cgroup` names.
 *
 * The sampler's clocks are opened in perf's cgroup mode: the kernel runs
 * the clock on a CPU only while a task of that cgroup (or of a cgroup below
 * it) runs there, so other tasks cost no tick and no BPF run at all, and
 * the tick account (expected, fired, kept) counts the cgroup's time only.
 * The alternative, a BPF check of bpf_get_current_cgroup_id() on every
 * tick of every task, would pay for the ticks it drops. cgroup v2 only:
 * that is where perf_event is on a current system (and v1's perf_event
 * hierarchy is rarely mounted).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "record/cgroup.h"
#include "util/log.h"

#define CGROUP2_MAGIC	0x63677270	/* CGROUP2_SUPER_MAGIC, linux/magic.h */

/* The mount point of the cgroup2 file system into buf; -ENOENT when none. */
static int cgroup2_mount(char *buf, size_t size)
{
	char line[4096 + 512], mnt[4096 + 1], *dash;
	int err = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS ... - FSTYPE SOURCE SUPEROPTS */
		dash = strstr(line, " - ");
		if (!dash || strncmp(dash, " - cgroup2 ", 11))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4096s", mnt) == 1 &&
		    strlen(mnt) < size && !strchr(mnt, '\\')) {	/* no octal escapes */
			strcpy(buf, mnt);
			err = 0;
		}
	}
	fclose(f);
	return err;
}

int cgroup__open(const char *path)
{
	char full[PATH_MAX], mnt[PATH_MAX];
	struct statfs sfs;
	int fd, err;

	if (path[0] == '/') {
		if (strlen(path) >= sizeof(full))
			return pr_errno(-ENAMETOOLONG, "cannot use cgroup '%.64s...'", path);
		strcpy(full, path);
	} else {
		err = cgroup2_mount(mnt, sizeof(mnt));
		if (err)
			return pr_errno(err, "cannot find the cgroup v2 file system for cgroup '%s' "
				       "(give its full path)", path);
		if ((size_t)snprintf(full, sizeof(full), "%s/%s", mnt, path) >= sizeof(full))
			return pr_errno(-ENAMETOOLONG, "cannot use cgroup '%s'", path);
	}
	fd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return pr_errno(-errno, "cannot open cgroup '%s' (give a directory of the cgroup "
			       "v2 file system, e.g. /sys/fs/cgroup/system.slice)", full);
	if (fstatfs(fd, &sfs) || sfs.f_type != CGROUP2_MAGIC) {
		close(fd);
		pr_err("'%s' is not a cgroup v2 directory (give one under the cgroup2 mount, "
		       "e.g. /sys/fs/cgroup/system.slice)", full);
		return -ENOTDIR;
	}
	return fd;
}
