// SPDX-License-Identifier: MIT
/*
 * report/outfile.c - the file a view writes. `report -i F --pprof F` used
 * to truncate the recording it was about to read, and a view that failed
 * halfway (a damaged value found while writing the page) left a file that
 * looked finished. So an output that is an input is refused before any
 * reading, and a regular output is written under a temporary name in its
 * own directory (same file system: rename is atomic) and renamed over the
 * name asked for only once the view has succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/outfile.h"
#include "util/log.h"

int outfile__check(const char *path, const char *const *inputs, size_t nr)
{
	struct stat out, in;
	bool exists;
	size_t i;

	if (!path)
		return 0;
	exists = !stat(path, &out);
	for (i = 0; i < nr; i++) {
		if (!inputs[i])
			continue;
		if (!strcmp(path, inputs[i]) ||
		    (exists && !stat(inputs[i], &in) && in.st_dev == out.st_dev &&
		     in.st_ino == out.st_ino)) {
			pr_err("cannot write to '%s': it is the recording '%s' this report reads "
			       "(choose another output file)", path, inputs[i]);
			return -EINVAL;
		}
	}
	return 0;
}

int outfile__open(struct outfile *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	mode_t mode = 0666, mask;
	struct stat st;
	size_t dir;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "w");
		return o->f ? 0 : pr_errno(-errno, "cannot create '%s'", path);
	}
	if (!stat(path, &st))
		mode = st.st_mode & 07777;	/* a file replaced keeps its mode */
	else {
		mask = umask(0);
		umask(mask);
		mode &= ~mask;
	}
	dir = slash ? (size_t)(slash - path) + 1 : 0;
	o->tmp = malloc(dir + strlen(slash ? slash + 1 : path) + 16);
	if (!o->tmp)
		return pr_errno(-ENOMEM, "cannot create '%s'", path);
	sprintf(o->tmp, "%.*s.%s.XXXXXX", (int)dir, path, slash ? slash + 1 : path);
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		/* no room for a second name (a directory one cannot write): the name itself */
		o->f = fopen(path, "w");
		return o->f ? 0 : pr_errno(-errno, "cannot create '%s'", path);
	}
	if (fchmod(fd, mode) || !(o->f = fdopen(fd, "w"))) {
		int err = -errno;

		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return pr_errno(err, "cannot create '%s'", path);
	}
	return 0;
}

int outfile__commit(struct outfile *o)
{
	int err = 0;

	errno = 0;
	if (fclose(o->f))
		err = pr_errno(errno ? -errno : -EIO, "cannot write '%s'", o->path);
	o->f = NULL;
	if (!err && o->tmp && rename(o->tmp, o->path))
		err = pr_errno(-errno, "cannot write '%s'", o->path);
	if (err && o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	return err;
}

void outfile__abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}
