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
 *
 * The cgroup log (cgroup_log__*) names the cgroups samples ran in. The BPF
 * side gives ids, the inode numbers of the cgroup directories; a cgroup v2
 * file system hands out a directory by its id (open_by_handle_at with a
 * kernfs file handle, as the kernel's exportfs support for cgroupfs
 * intends), and /proc/self/fd gives its path: one lookup per cgroup, with
 * no walk of the tree. A cgroup removed before the lookup stays unnamed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "format/recording.h"
#include "record/cgroup.h"
#include "util/log.h"
#include "util/vec.h"

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

/* --- the cgroup log ----------------------------------------------------------- */

#define FILEID_KERNFS	0xfe	/* include/linux/exportfs.h: a kernfs node by its 64-bit id */

void cgroup_log__init(struct cgroup_log *cl)
{
	char mnt[PATH_MAX];

	memset(cl, 0, sizeof(*cl));
	cl->mnt_fd = -1;
	if (cgroup2_mount(mnt, sizeof(mnt)))
		return;		/* cgroup v1 only: ids stay unnamed ("cgroup:ID") */
	cl->mnt = strdup(mnt);
	if (cl->mnt)
		cl->mnt_fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

void cgroup_log__release(struct cgroup_log *cl)
{
	size_t i;

	u64map__release(&cl->named);
	u64map__release(&cl->named_here);
	for (i = 0; i < cl->nr_paths; i++)
		free(cl->paths[i]);
	free(cl->paths);
	free(cl->mnt);
	if (cl->mnt && cl->mnt_fd >= 0)	/* a zeroed log holds no fd */
		close(cl->mnt_fd);
	memset(cl, 0, sizeof(*cl));
	cl->mnt_fd = -1;
}

void cgroup_log__start_file(struct cgroup_log *cl)
{
	u64map__release(&cl->named_here);
}

/* The path of cgroup id below the mount ("/": its root) into buf; -errno when gone. */
static int lookup_path(const struct cgroup_log *cl, uint64_t id, char *buf, size_t size)
{
	char raw[sizeof(struct file_handle) + sizeof(id)] __attribute__((aligned(8)));
	struct file_handle *fh = (struct file_handle *)raw;
	char link[64], full[PATH_MAX];
	static const char deleted[] = " (deleted)";
	size_t m, n;
	ssize_t got;
	int fd;

	if (cl->mnt_fd < 0)
		return -ENOENT;
	fh->handle_bytes = sizeof(id);
	fh->handle_type = FILEID_KERNFS;
	memcpy(fh->f_handle, &id, sizeof(id));
	fd = open_by_handle_at(cl->mnt_fd, fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;		/* ESTALE: removed */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	got = readlink(link, full, sizeof(full) - 1);
	close(fd);
	if (got < 0)
		return -errno;
	n = (size_t)got;
	full[n] = '\0';
	m = strlen(cl->mnt);
	if (n >= sizeof(deleted) - 1 && !strcmp(full + n - (sizeof(deleted) - 1), deleted))
		return -ENOENT;	/* removed while we looked */
	if (strncmp(full, cl->mnt, m) || (full[m] && full[m] != '/'))
		return -ENOENT;	/* outside the mount we know (another namespace) */
	if ((size_t)snprintf(buf, size, "%s", full[m] ? full + m : "/") >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* Adds the name row of cgroup id to this file, the first time it needs it. */
static int name_cgroup(struct cgroup_log *cl, struct recording *rec, uint64_t id)
{
	struct rec_cgroup c = { .id = id };
	char path[PATH_MAX];
	uint64_t *slot;
	bool added;
	int err;

	err = u64map__upsert(&cl->named_here, id, 1, &slot, &added);
	if (err || !added)
		return err;
	slot = u64map__find(&cl->named, id);
	if (!slot) {
		uint64_t idx = 0;

		if (!lookup_path(cl, id, path, sizeof(path))) {
			if (vec__grow(&cl->paths, &cl->alloc_paths, cl->nr_paths + 1,
				      sizeof(*cl->paths)))
				return -ENOMEM;
			cl->paths[cl->nr_paths] = strdup(path);
			if (!cl->paths[cl->nr_paths])
				return -ENOMEM;
			idx = ++cl->nr_paths;
		} else {
			cl->nr_vanished++;
		}
		err = u64map__upsert(&cl->named, id, idx, &slot, &added);
		if (err)
			return err;
	}
	if (!*slot || id > INT64_MAX)
		return 0;	/* vanished: reports say "cgroup:ID" */
	c.path = cl->paths[*slot - 1];
	return recording__add_cgroup(rec, &c);
}

int cgroup_log__write(struct cgroup_log *cl, struct recording *rec, uint64_t time_ns,
		      uint32_t tgid, uint32_t tid, uint64_t id)
{
	struct rec_thread_cgroup t = { .time_ns = time_ns, .tgid = tgid, .tid = tid,
				       .cgroup_id = id };
	int err = name_cgroup(cl, rec, id);

	if (err == -ENOMEM)
		return pr_errno(err, "cannot keep the cgroups' names");
	if (err)
		return err;
	cl->nr_rows++;
	return recording__add_thread_cgroup(rec, &t);
}
