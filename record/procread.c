// SPDX-License-Identifier: MIT
/*
 * record/procread.c - /proc/PID/maps read by a helper thread, waited for
 * with a time limit (why: procread.h).
 *
 * One worker thread at a time serves the reads. When the caller stops
 * waiting, the worker is abandoned: it owns its state from then on, frees
 * it when its read returns, and a new worker serves the next reads. At most
 * MAX_STUCK workers are left so; past that every read times out at once.
 * A stuck worker sleeps in the kernel in a wait that a fatal signal ends,
 * so the recorder's exit is not held up by it. Workers run at the caller's
 * real-time priority when it has one (a thread created by a task with
 * SCHED_RESET_ON_FORK would not inherit it): a worker that gets the lock
 * is done at once, and one that is killed at exit goes at once.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "record/procread.h"
#include "record/rt_thread.h"
#include "util/log.h"
#include "util/vec.h"

#define MAX_STUCK	16

struct worker {
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* job posted, job done, quit */
	bool has_job, done, quit, abandoned;
	uint32_t pid;
	int err;
	struct proc_maps res;
};

struct proc_reader {
	struct worker *w;		/* NULL until the first read, or after an abandon */
	size_t stuck;
	size_t timeouts;
};

void proc_maps__release(struct proc_maps *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->v[i].path);
		if (m->v[i].fd >= 0)
			close(m->v[i].fd);
	}
	free(m->v);
	m->v = NULL;
	m->nr = 0;
}

static int maps_push(struct proc_maps *m, size_t *alloc, const struct proc_map *pm)
{
	if (vec__grow(&m->v, alloc, m->nr + 1, sizeof(*m->v)))
		return -ENOMEM;
	m->v[m->nr++] = *pm;
	return 0;
}

/*
 * The files of one process's mappings met so far: those held open, and a
 * second PROC_MAPS_MAX_FDS past them, known by build-id.
 */
struct seen_files {
	struct { unsigned long long ino; char dev[32]; size_t idx; } open[PROC_MAPS_MAX_FDS];
	struct { unsigned long long ino; char dev[32]; uint8_t id[20]; uint32_t id_len; }
		past[PROC_MAPS_MAX_FDS];
	size_t nr_open, nr_past;
};

/*
 * How mapping pm (of file name, inode ino on dev; the idx-th kept) reaches
 * its file: as an earlier mapping of it (pm->same), by the build-id read
 * now (pm->build_id), or by a descriptor held open (pm->fd).
 */
static void reach_file(struct seen_files *sf, uint32_t pid, const char *name,
		       unsigned long long ino, const char *dev, size_t idx, struct proc_map *pm)
{
	size_t i;

	pm->fd = -1;
	pm->same = 0;
	for (i = 0; i < sf->nr_open && name[0] == '/'; i++)
		if (sf->open[i].ino == ino && !strcmp(sf->open[i].dev, dev))
			pm->same = sf->open[i].idx + 1;
	pm->id_len = 0;
	for (i = 0; i < sf->nr_past && name[0] == '/' && !pm->same; i++)
		if (sf->past[i].ino == ino && !strcmp(sf->past[i].dev, dev)) {
			pm->id_len = sf->past[i].id_len;
			memcpy(pm->build_id, sf->past[i].id, pm->id_len);
			pm->same = SIZE_MAX;	/* no fd stands for it: its id is here */
		}
	if (pm->same == SIZE_MAX) {
		pm->same = 0;
	} else if (name[0] == '/' && !pm->same && sf->nr_open < PROC_MAPS_MAX_FDS) {
		pm->fd = mapped_file__open(pid, pm->start, pm->end, name);
		if (pm->fd >= 0) {
			sf->open[sf->nr_open].ino = ino;
			memcpy(sf->open[sf->nr_open].dev, dev, sizeof(sf->open[0].dev));
			sf->open[sf->nr_open++].idx = idx;
		}
	} else if (name[0] == '/' && !pm->same && sf->nr_past < PROC_MAPS_MAX_FDS) {
		/* no descriptor more held: the build-id now, the file closed */
		int fd = mapped_file__open(pid, pm->start, pm->end, name);

		if (fd >= 0) {
			if (elf_file__read_build_id(fd, pm->build_id, &pm->id_len) ||
			    pm->id_len > sizeof(pm->build_id))
				pm->id_len = 0;
			close(fd);
			sf->past[sf->nr_past].ino = ino;
			memcpy(sf->past[sf->nr_past].dev, dev, sizeof(sf->past[0].dev));
			sf->past[sf->nr_past].id_len = pm->id_len;
			memcpy(sf->past[sf->nr_past++].id, pm->build_id, pm->id_len);
		}
	}
}

/* The blocking part: touches nothing but its arguments. */
static int read_maps(uint32_t pid, struct proc_maps *out)
{
	unsigned long long start, end, off, ino;
	char path[64], line[4096 + 256], perms[8], dev[32];
	struct seen_files sf;
	size_t alloc = 0;
	struct proc_map pm;
	int err = 0, pos;
	FILE *f;

	memset(out, 0, sizeof(*out));
	sf.nr_open = 0;
	sf.nr_past = 0;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;	/* gone already: nothing to record */
	while (fgets(line, sizeof(line), f)) {
		char *name = NULL, *nl;

		if (sscanf(line, "%llx-%llx %7s %llx %31s %llu %n", &start, &end, perms, &off, dev,
			   &ino, &pos) < 6 || perms[2] != 'x')
			continue;
		name = line + pos;
		nl = strchr(name, '\n');
		if (nl)
			*nl = '\0';
		if (!(name[0] == '/' && name[1] != '/') && strcmp(name, "[vdso]"))
			continue;
		pm.start = start;
		pm.end = end;
		pm.pgoff = off;
		pm.path = strdup(name);
		reach_file(&sf, pid, name, ino, dev, out->nr, &pm);
		if (!pm.path || maps_push(out, &alloc, &pm)) {
			free(pm.path);
			if (pm.fd >= 0)
				close(pm.fd);
			err = -ENOMEM;
			break;
		}
	}
	fclose(f);
	if (err)
		proc_maps__release(out);
	return err;
}

static void worker__free(struct worker *w)
{
	proc_maps__release(&w->res);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct proc_maps res;
	bool orphan;
	int err;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->has_job && !w->quit)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->quit)
			break;
		pthread_mutex_unlock(&w->lock);
		err = read_maps(w->pid, &res);
		pthread_mutex_lock(&w->lock);
		if (w->abandoned) {
			proc_maps__release(&res);
			break;
		}
		w->res = res;
		w->err = err;
		w->has_job = false;
		w->done = true;
		pthread_cond_broadcast(&w->cond);
	}
	orphan = w->abandoned;
	pthread_mutex_unlock(&w->lock);
	if (orphan)
		worker__free(w);	/* the reader forgot it: nobody else will */
	return NULL;
}

static struct worker *worker__start(void)
{
	pthread_condattr_t ca;
	pthread_attr_t attr;
	pthread_t th;
	struct worker *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = rt_thread__create(&th, &attr, worker_main, w);
	pthread_attr_destroy(&attr);
	if (err) {
		worker__free(w);
		return NULL;
	}
	return w;
}

int proc_reader__new(struct proc_reader **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : pr_errno(-ENOMEM, "cannot read /proc");
}

static struct timespec deadline_after(uint64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns += (uint64_t)ts.tv_nsec;
	ts.tv_sec += (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	return ts;
}

int proc_reader__maps(struct proc_reader *r, uint32_t pid, uint64_t timeout_ns,
		      struct proc_maps *out)
{
	struct timespec until = deadline_after(timeout_ns);
	struct worker *w;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (r->stuck >= MAX_STUCK) {
		r->timeouts++;
		return -ETIMEDOUT;
	}
	if (!r->w) {
		r->w = worker__start();
		if (!r->w)
			return pr_errno(-ENOMEM, "cannot start a thread to read /proc");
	}
	w = r->w;
	pthread_mutex_lock(&w->lock);
	w->pid = pid;
	w->done = false;
	w->has_job = true;
	pthread_cond_broadcast(&w->cond);
	while (!w->done && !err)
		err = pthread_cond_timedwait(&w->cond, &w->lock, &until);
	if (w->done) {
		*out = w->res;
		memset(&w->res, 0, sizeof(w->res));
		err = w->err;
		w->done = false;
	} else {
		w->abandoned = true;	/* worker_main frees w when its read returns */
		r->w = NULL;
		r->stuck++;
		r->timeouts++;
		err = -ETIMEDOUT;
	}
	pthread_mutex_unlock(&w->lock);
	if (err == -ENOMEM)
		pr_errno(err, "cannot read the mappings of process %u", pid);
	return err;
}

size_t proc_reader__timeouts(const struct proc_reader *r)
{
	return r ? r->timeouts : 0;
}

void proc_reader__free(struct proc_reader *r)
{
	struct worker *w;

	if (!r)
		return;
	w = r->w;
	if (w) {
		/* idle: it quits at once; it is detached, so it frees itself */
		pthread_mutex_lock(&w->lock);
		w->quit = true;
		w->abandoned = true;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);
	}
	free(r);
}
