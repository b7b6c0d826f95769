// SPDX-License-Identifier: MIT
/*
 * record/session.c - the life of one recording session and what the
 * consumers of the ring buffer and of the side-band share: thread names,
 * mappings, and the commit that writes a chunk together with the symbol
 * data its new stacks need, the loss counters gained since the previous one
 * and each sampled CPU's tick account (expected, throttled, fired, kept).
 *
 * The pipeline stages (sampler, side-band, off-CPU reader) know nothing of
 * the session: each hands what it reads to a sink of callbacks set up
 * here, and cmd_record.c wires them and reads the sampler's counters for
 * session__commit(). The mapping table (record/mappings.c) is shared with
 * capture, so that capture never calls back into the session.
 */
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "record/budget.h"
#include "record/capture.h"
#include "record/jitmap.h"
#include "record/offcpu.h"
#include "record/rawstack.h"
#include "record/python.h"
#include "record/sampler.h"
#include "record/session.h"
#include "record/sideband.h"
#include "record/stats.h"
#include "record/unwind.h"
#include "record/uwalk.h"
#include "util/bsearch.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/path.h"
#include "util/vec.h"

/*
 * A name row into the file. The first of its thread here waits for the
 * commit (write_first_names): a sample names its process a few ms after
 * the exec, before the side-band is read past it.
 */
static int write_comm(struct session *s, const struct rec_comm *c)
{
	if (threads__named(&s->threads, c->tid))
		return recording__add_comm(s->rec, c);
	if (threads__set_named(&s->threads, c->tid))
		return pr_errno(-ENOMEM, "cannot keep thread names");
	if (vec__grow(&s->first_names, &s->alloc_first_names, s->nr_first_names + 1,
		      sizeof(*s->first_names)))
		return pr_errno(-ENOMEM, "cannot keep thread names");
	s->first_names[s->nr_first_names++] = *c;
	return 0;
}

/*
 * The threads' first names in this file since the last commit. One takes
 * time 0 when no older row of its thread can still come (session.h,
 * sideband_past_ns): the reader takes a thread's latest row at or before
 * a sample, so only the times of its later rows matter.
 */
static int write_first_names(struct session *s)
{
	size_t i;
	int err = 0;

	for (i = 0; i < s->nr_first_names && !err; i++) {
		struct rec_comm *c = &s->first_names[i];

		if (c->time_ns + SIDEBAND_MARGIN_NS < s->sideband_past_ns)
			c->time_ns = 0;
		err = recording__add_comm(s->rec, c);
	}
	s->nr_first_names = 0;
	return err;
}

/*
 * The rows held for processes without a sample, at most a 64th of the
 * memory budget: past it, only each thread's latest row is kept (the
 * others counted as folded); when the threads' latest rows alone fill it,
 * a new row is dropped and counted. 1: c is not to be held.
 */
static int bound_held_comms(struct session *s, const struct rec_comm *c)
{
	size_t max = (size_t)(mem_budget__size() / 64 / sizeof(*s->pending_comms));
	struct u64map latest = U64MAP_INIT;
	struct thread_row *r;
	struct proc_row *p;
	size_t i, kept;
	uint64_t *slot;
	bool added;

	if (s->nr_pending_comms < max)
		return 0;
	/* from the newest: a thread's first row met is its latest */
	for (i = s->nr_pending_comms, kept = s->nr_pending_comms; i-- > 0;) {
		const struct rec_comm *h = &s->pending_comms[i];

		if (u64map__upsert(&latest, h->tid, 0, &slot, &added)) {
			u64map__release(&latest);
			return pr_errno(-ENOMEM, "cannot keep thread names");
		}
		if (added) {
			s->pending_comms[--kept] = *h;
			continue;
		}
		s->nr_comms_folded++;
		p = threads__proc(&s->threads, h->tgid);
		if (p && p->held)
			p->held--;
	}
	u64map__release(&latest);
	memmove(s->pending_comms, s->pending_comms + kept,
		(s->nr_pending_comms - kept) * sizeof(*s->pending_comms));
	s->nr_pending_comms -= kept;
	if (s->nr_pending_comms < max)
		return 0;
	if (!s->nr_comms_dropped_full++)
		pr_warn("thread names of processes not sampled yet fill their share of the memory "
			"budget (%zu rows): later ones are dropped and counted (`eprof info`)", max);
	/* the thread's next name is held, even if the same: this row is gone */
	r = threads__thread(&s->threads, c->tid);
	if (r && r->has_comm) {
		memset(r->comm, 0xff, REC_COMM_LEN);
		r->comm_kept = false;
	}
	return 1;
}

/*
 * Comm rows of a process are written once it has a sample (the sampler
 * notes the process before the sample's own comm, which writes the held
 * rows first), held until then, and dropped with its mappings if it ends
 * without one (forget_exited).
 */
static int write_or_hold_comm(struct session *s, const struct rec_comm *c)
{
	struct proc_row *p = threads__proc(&s->threads, c->tgid);
	int err;

	if (p && p->sampled)
		return write_comm(s, c);
	err = bound_held_comms(s, c);
	if (err)
		return err < 0 ? err : 0;
	if (vec__grow(&s->pending_comms, &s->alloc_pending_comms, s->nr_pending_comms + 1,
		      sizeof(*s->pending_comms)))
		return pr_errno(-ENOMEM, "cannot keep thread names");
	err = threads__proc_add(&s->threads, c->tgid, &p);
	if (err == -ENOSPC)
		return write_comm(s, c);	/* no row to count it held by: written now */
	if (err)
		return pr_errno(err, "cannot keep thread names");
	p->held++;
	s->pending_comms[s->nr_pending_comms++] = *c;
	return 0;
}

/* Process tgid has its first sample: the rows held for it go first. */
static int write_held_comms(struct session *s, uint32_t tgid)
{
	struct proc_row *p = threads__proc(&s->threads, tgid);
	size_t i, kept = 0;
	int err = 0;

	if (!p || !p->held || !p->sampled)
		return 0;
	p->held = 0;	/* write_comm adds no row: p stays valid */
	for (i = 0; i < s->nr_pending_comms; i++) {
		const struct rec_comm *c = &s->pending_comms[i];

		if (c->tgid != tgid)
			s->pending_comms[kept++] = *c;
		else if (!err)
			err = write_comm(s, c);
	}
	s->nr_pending_comms = kept;
	return err;
}

/* The rows folded in this commit: each thread's latest name, once. */
static int write_late_comms(struct session *s)
{
	size_t i;
	int err = 0;

	for (i = 0; i < s->nr_late_comms && !err; i++)
		err = write_or_hold_comm(s, &s->late_comms[i]);
	s->nr_late_comms = 0;
	s->comm_epoch++;	/* every thread's count of rows starts again */
	return err;
}

/* 1: c is past its thread's (r's) bound for this commit, kept as its latest name. */
static int fold_comm(struct session *s, struct thread_row *r, const struct rec_comm *c)
{
	if (r->epoch != s->comm_epoch) {
		r->epoch = s->comm_epoch;
		r->nr_rows = r->late = 0;
	}
	if (++r->nr_rows <= SESSION_COMMS_PER_COMMIT)
		return 0;
	if (!r->late) {
		if (s->nr_late_comms >= UINT32_MAX - 1 ||
		    vec__grow(&s->late_comms, &s->alloc_late_comms, s->nr_late_comms + 1,
			      sizeof(*s->late_comms)))
			return pr_errno(-ENOMEM, "cannot keep thread names");
		r->late = (uint32_t)++s->nr_late_comms;
	} else {
		s->nr_comms_folded++;	/* the row it replaces is never written */
	}
	s->late_comms[r->late - 1] = *c;
	return 1;
}

bool session__thread_named(const struct session *s, uint32_t tid)
{
	const struct thread_row *r = threads__thread(&s->threads, tid);

	return r && r->has_comm;
}

int session__note_comm(struct session *s, uint64_t time_ns, uint32_t tgid, uint32_t tid,
		       const char *comm)
{
	struct thread_row *r;
	struct rec_comm c;
	int err;

	err = write_held_comms(s, tgid);
	if (err)
		return err;
	/* zero-filled: the comparison below and the stored row see all 16 bytes */
	memset(&c, 0, sizeof(c));
	memcpy(c.comm, comm, strnlen(comm, sizeof(c.comm) - 1));
	c.time_ns = time_ns;
	c.tgid = tgid;
	c.tid = tid;
	err = threads__thread_add(&s->threads, tid, tgid, &r);
	if (err == -ENOSPC)
		return write_or_hold_comm(s, &c);	/* no row to compare with (said once) */
	if (err)
		return pr_errno(err, "cannot keep thread names");
	thread_row__alive_at(r, time_ns);
	if (r->has_comm && !memcmp(r->comm, c.comm, sizeof(c.comm)))
		return 0;
	memcpy(r->comm, c.comm, sizeof(c.comm));
	r->has_comm = r->comm_kept = true;
	err = fold_comm(s, r, &c);
	if (err)
		return err < 0 ? err : 0;
	return write_or_hold_comm(s, &c);
}

/*
 * Process pid ended at time_ns (side-band exit). Its mappings and pending
 * comm rows are forgotten at the second commit from now, when every sample
 * it took has been read and captured (forget_exited).
 */
static int note_exit(struct session *s, uint32_t pid, uint64_t time_ns)
{
	struct exit_note *e;
	uint64_t *slot;
	bool added;

	if (s->nr_exits >= UINT32_MAX - 1 ||
	    vec__grow(&s->exits, &s->alloc_exits, s->nr_exits + 1, sizeof(*s->exits)) ||
	    u64map__upsert(&s->exit_pids, pid, 0, &slot, &added))
		return pr_errno(-ENOMEM, "cannot keep process exits");
	e = &s->exits[s->nr_exits];
	e->pid = pid;
	e->prev = (uint32_t)*slot;
	e->time_ns = time_ns;
	e->commit = s->nr_commits;
	*slot = ++s->nr_exits;
	return 0;
}

/*
 * A new process took pid at fork_ns: an exit noted before then was its
 * previous owner's, not its own. Its own exit may be noted already: forks
 * are applied once every buffer was read past them (sideband.c), exits at
 * once, so a short-lived child's exit often comes first. Cancelling that
 * one kept every process of a fork storm in memory to the end of the file.
 */
static void cancel_exit(struct session *s, uint32_t pid, uint64_t fork_ns)
{
	const uint64_t *head = u64map__find(&s->exit_pids, pid);
	size_t i, kept = 0;
	uint64_t p;

	if (!head)
		return;		/* neither in exits nor in ended */
	/* each note's prev is below it: the walk ends, even over a stale chain */
	for (p = *head; p && p <= s->nr_exits;) {
		struct exit_note *e = &s->exits[p - 1];

		if (e->pid == pid && e->time_ns < fork_ns)
			e->pid = 0;
		p = e->prev < p ? e->prev : 0;
	}
	for (i = kept = 0; i < s->nr_ended; i++)
		if (s->ended[i] != pid)
			s->ended[kept++] = s->ended[i];
	s->nr_ended = kept;
}

/* exit_pids and the chains again from exits and ended, after they were compacted. */
static int index_exit_pids(struct session *s)
{
	uint64_t *slot;
	bool added;
	size_t i;

	u64map__release(&s->exit_pids);
	for (i = 0; i < s->nr_exits + s->nr_ended; i++) {
		if (u64map__upsert(&s->exit_pids, i < s->nr_exits ? s->exits[i].pid
				   : s->ended[i - s->nr_exits], 0, &slot, &added))
			return pr_errno(-ENOMEM, "cannot keep process exits");
		if (i < s->nr_exits) {
			s->exits[i].prev = (uint32_t)*slot;
			*slot = i + 1;
		}
	}
	return 0;
}

/*
 * Forgets the mappings and held comm rows of processes that ended, two
 * commits after their exit: by then the sampler has read every sample they
 * took (they were queued before the exit record), so none will come, and
 * the capture step of this commit has stored the symbols of all of them.
 * A process with a pair that still waits for a mapping keeps its mappings
 * to the end of the file. (Keeping every sampled process's mappings to the
 * end of the file made a long -a recording beside a fork storm grow to
 * 500 MB within one 150 s file.)
 */
/*
 * The exits noted two commits ago or more leave exits: into gone, or into
 * ended while a pair of theirs still waits for a mapping (forgotten at the
 * next file). Cancelled notes go. -ENOMEM (printed).
 */
static int take_exited(struct session *s, struct u64map *gone)
{
	size_t i, kept = 0;
	uint64_t *slot;
	bool added;

	for (i = 0; i < s->nr_exits; i++) {
		const struct exit_note *e = &s->exits[i];

		if (!e->pid)
			continue;	/* cancelled: its pid's next owner lives on */
		if (e->commit + 2 > s->nr_commits) {
			s->exits[kept++] = *e;
			continue;
		}
		const struct proc_row *p = threads__proc(&s->threads, e->pid);

		if (p && p->sampled && capture__retrying(s->capture, e->pid)) {
			if (vec__grow(&s->ended, &s->alloc_ended, s->nr_ended + 1,
				      sizeof(*s->ended)))
				return pr_errno(-ENOMEM, "cannot forget ended processes");
			s->ended[s->nr_ended++] = e->pid;
		} else if (u64map__upsert(gone, e->pid, 0, &slot, &added)) {
			return pr_errno(-ENOMEM, "cannot forget ended processes");
		}
	}
	s->nr_exits = kept;
	return index_exit_pids(s);
}

static int forget_exited(struct session *s)
{
	struct u64map gone = U64MAP_INIT;
	size_t i, kept = 0, sorted;
	uint64_t *slot;
	bool added;
	int err;

	err = take_exited(s, &gone);
	if (err || !gone.nr)
		goto out;	/* the threads that ended are forgotten still */
	u64map__for_each(&gone, i)
		pyrec__forget(s->python, (uint32_t)gone.keys[i]);
	/* first, as it may fail: the rows a later owner of the pid must not be taken for */
	for (i = 0; i < s->maps.nr; i++) {
		const struct mapping *k = &s->maps.v[i];

		if (k->written && u64map__find(&gone, k->tgid) &&
		    u64map__upsert(&s->maps.forgot_written, k->tgid, 0, &slot, &added)) {
			err = pr_errno(-ENOMEM, "cannot forget ended processes");
			goto out;
		}
	}
	for (i = kept = sorted = 0; i < s->maps.nr; i++) {
		struct mapping *k = &s->maps.v[i];

		if (!u64map__find(&gone, k->tgid)) {
			sorted += i < s->maps.nr_sorted;	/* the order stays */
			s->maps.v[kept++] = *k;
			continue;
		}
		s->nr_maps_dropped++;
	}
	if (kept != s->maps.nr)
		s->maps.dirty = true;
	s->maps.nr = kept;
	s->maps.nr_sorted = sorted;
	mapping_table__fit(&s->maps);
	s->maps_layout++;	/* positions moved: the tail index is rebuilt */
	/* the rows of their threads go below (threads__sweep): a later name is written */
	for (i = kept = 0; i < s->nr_pending_comms; i++) {
		const struct rec_comm *c = &s->pending_comms[i];

		if (!u64map__find(&gone, c->tgid)) {
			s->pending_comms[kept++] = *c;
			continue;
		}
		s->nr_comms_dropped++;
	}
	s->nr_pending_comms = kept;
out:
	if (!err)
		threads__sweep(&s->threads, s->nr_commits, &gone);
	u64map__release(&gone);
	return err;
}

/*
 * The processes that ended with samples in the previous file have none to
 * come: their mappings go, with their rows (threads.h), and the exec times
 * of processes without a mapping left (their exits perhaps lost).
 */
static int forget_ended(struct session *s)
{
	struct u64map gone = U64MAP_INIT, live = U64MAP_INIT;
	size_t i, kept = 0;
	uint64_t *slot;
	bool added;
	int err = 0;

	for (i = 0; i < s->nr_ended && !err; i++)
		err = u64map__upsert(&gone, s->ended[i], 0, &slot, &added);
	s->nr_ended = 0;
	for (i = 0; i < s->maps.nr; i++) {
		struct mapping *k = &s->maps.v[i];

		if (u64map__find(&gone, k->tgid))
			continue;
		s->maps.v[kept++] = *k;
		if (!err)
			err = u64map__upsert(&live, k->tgid, 0, &slot, &added);
	}
	if (kept != s->maps.nr)
		s->maps.dirty = true;
	s->maps.nr = kept;
	mapping_table__fit(&s->maps);
	s->maps_layout++;
	if (!err)
		err = mapping_table__repool(&s->maps);	/* the paths of the mappings gone go too */
	if (err)
		goto out;	/* the exec times stay: not knowing the live ones */
	threads__forget_exec(&s->threads, &live);
	threads__sweep(&s->threads, s->nr_commits, &gone);
out:
	u64map__release(&gone);
	u64map__release(&live);
	return err ? pr_errno(err, "cannot forget ended processes") : 0;
}

int session__start_file(struct session *s, const char *path)
{
	size_t i;

	recording__close(s->rec);
	s->rec = NULL;
	capture__free(s->capture);
	jitmaps__free(s->jitmaps);
	s->capture = capture__new();
	s->jitmaps = jitmaps__new(&s->threads);
	if (!s->capture || !s->jitmaps)
		return pr_errno(-ENOMEM, "cannot start the next file");
	stack_table__clear(&s->stacks);
	threads__start_file(&s->threads);
	s->nr_procs = 0;
	u64map__release(&s->repaired);
	s->sideband_pages_noted = 0;
	s->comm_bounds_noted = false;
	s->nr_first_names = 0;	/* written by the commit that ended the file before */
	cgroup_log__start_file(&s->cgroups);
	for (i = 0; i < s->maps.nr; i++)
		s->maps.v[i].written = false;
	u64map__release(&s->maps.forgot_written);	/* their rows are in the file before */
	s->maps.refused_noted = 0;	/* the new file's meta says it again */
	return forget_ended(s) ?: recording__create(path, &s->rec);
}

void session__release_kept(struct session *s)
{
	uint64_t written = s->maps.nr_written, refused = s->maps.nr_refused;

	u64map__release(&s->tail_heads);
	free(s->tail_prev);
	s->tail_prev = NULL;
	s->tail_alloc = s->tail_from = s->tail_upto = 0;
	mapping_table__index_bytes(&s->maps, 0);
	s->maps_layout++;

	mapping_table__release(&s->maps);
	s->maps.nr_written = written;	/* for the summary */
	s->maps.nr_refused = refused;
	vec__free(&s->pending_comms, &s->nr_pending_comms, &s->alloc_pending_comms);
	vec__free(&s->first_names, &s->nr_first_names, &s->alloc_first_names);
	vec__free(&s->exits, &s->nr_exits, &s->alloc_exits);
	vec__free(&s->ended, &s->nr_ended, &s->alloc_ended);
	u64map__release(&s->exit_pids);
	if (s->threads.thr.peak || s->threads.proc.peak)	/* -v; t0719 reads it */
		pr_info("thread table: at most %zu threads and %zu processes at once, %llu thread "
			"rows forgotten, %llu rows not kept (their share of the budget full)",
			s->threads.thr.peak, s->threads.proc.peak,
			(unsigned long long)s->threads.nr_removed,
			(unsigned long long)s->threads.nr_refused);
	threads__release(&s->threads);
	vec__free(&s->late_comms, &s->nr_late_comms, &s->alloc_late_comms);
}

/*
 * Brings the tail index (session.h) up to the mappings added since it was
 * last brought up: each mapping is indexed once, unless a sort or a
 * compaction moved them (then the tail is indexed again from the start).
 * Its bytes are taken from the memory budget with the mapping table's
 * (mapping_table__index_bytes), never refused: refused and replaced by a
 * scan of the tail, it left t0818's recorder far behind a user's 240,000
 * mappings. -ENOMEM (printed).
 */
static int index_tail(struct session *s)
{
	struct mapping_table *t = &s->maps;
	uint64_t *slot;
	bool added;
	size_t p;

	if (s->tail_from != t->nr_sorted || s->tail_layout != s->maps_layout ||
	    s->tail_upto > t->nr || s->tail_upto < t->nr_sorted) {
		u64map__release(&s->tail_heads);
		s->tail_from = s->tail_upto = t->nr_sorted;
		s->tail_layout = s->maps_layout;
	}
	if (t->nr > UINT32_MAX - 1 ||
	    vec__grow(&s->tail_prev, &s->tail_alloc, t->nr, sizeof(*s->tail_prev)))
		return pr_errno(-ENOMEM, "cannot keep mappings");
	for (p = s->tail_upto; p < t->nr; p++) {
		if (u64map__upsert(&s->tail_heads, t->v[p].tgid, 0, &slot, &added))
			return pr_errno(-ENOMEM, "cannot keep mappings");
		s->tail_prev[p] = (uint32_t)*slot;	/* 0: none before it */
		*slot = p + 1;
	}
	s->tail_upto = t->nr;
	mapping_table__index_bytes(t, (uint64_t)s->tail_alloc * sizeof(*s->tail_prev) +
				      u64map__bytes_for(&s->tail_heads, s->tail_heads.nr));
	return 0;
}

/* Adds a copy of kept mapping i for pid, when ppid had it at fork_ns (since: its exec). */
static int inherit_one(struct session *s, size_t i, uint32_t pid, uint64_t fork_ns, uint64_t since)
{
	const struct mapping *k = &s->maps.v[i];
	struct rec_mapping m;

	if (k->time_ns > fork_ns || k->time_ns < since)
		return 0;
	mapping__to_rec(k, &m);	/* keeps the parent's time: its order of mappings */
	m.tgid = pid;
	return mapping_table__add(&s->maps, &m);	/* may move s->maps.v */
}

static bool mapping_below(const void *elem, const void *key)
{
	return ((const struct mapping *)elem)->tgid < *(const uint32_t *)key;
}

/* find_kept's choice: the latest of tgid's mappings at or before time_ns, else the earliest after. */
static void vma_candidate(struct mapping *m, uint64_t pc, uint64_t time_ns,
			  struct mapping **best, struct mapping **any)
{
	if (pc < m->start || pc >= m->end || !m->path)
		return;
	if (m->time_ns <= time_ns) {
		if (!*best || m->time_ns >= (*best)->time_ns)
			*best = m;
	} else if (!*any || m->time_ns < (*any)->time_ns) {
		*any = m;
	}
}

/*
 * The latest of tgid's kept mappings holding addr stamped at or before
 * time_ns, else the earliest after it; NULL when none holds it. Sorted
 * mappings are searched, the tail through its index by process (a scan of
 * the tail per call was 61% of the recorder's CPU in a 16-CPU fork storm,
 * finishing 8,500 stack copies).
 */
static struct mapping *find_kept(struct session *s, uint32_t tgid, uint64_t addr,
				 uint64_t time_ns)
{
	struct mapping_table *t = &s->maps;
	struct mapping *best = NULL, *any = NULL;
	size_t sorted = t->nr_sorted < t->nr ? t->nr_sorted : t->nr, i;
	const uint64_t *head;
	uint64_t p;

	i = bsearch_lower_bound(&tgid, t->v, sorted, sizeof(*t->v), mapping_below);
	for (; i < sorted && t->v[i].tgid == tgid && t->v[i].start <= addr; i++)
		vma_candidate(&t->v[i], addr, time_ns, &best, &any);
	if (!index_tail(s)) {
		head = u64map__find(&s->tail_heads, tgid);
		for (p = head ? *head : 0; p; p = s->tail_prev[p - 1])
			vma_candidate(&t->v[p - 1], addr, time_ns, &best, &any);
	} else {
		for (i = sorted; i < t->nr; i++)	/* no memory for the index: a scan */
			if (t->v[i].tgid == tgid)
				vma_candidate(&t->v[i], addr, time_ns, &best, &any);
	}
	return best ? best : any;
}

/*
 * Gives process pid, forked from ppid at fork_ns, a copy of the mappings ppid
 * had then (with their times), since a fork produces no mmap records.
 */
static int inherit_mappings(struct session *s, uint32_t ppid, uint32_t pid, uint64_t fork_ns)
{
	size_t i, n = s->maps.nr, nr_tail = 0;
	size_t sorted = s->maps.nr_sorted < n ? s->maps.nr_sorted : n;
	uint32_t tail[256], *more = NULL, *list = tail;
	uint64_t *head, p;
	int err;

	const struct proc_row *parent = threads__proc(&s->threads, ppid);
	uint64_t since = parent && parent->exec_ns <= fork_ns ? parent->exec_ns : 0;

	cancel_exit(s, pid, fork_ns);
	/*
	 * A forked child shares its parent's mappings without mmap records:
	 * those the parent had at fork time, less those its last exec replaced
	 * (a deep make -> sh -> gcc tree would otherwise copy every ancestor's).
	 * The parent's are found by bisection in the part capture sorted by
	 * pid, and through the tail index among those added since: the work
	 * per fork is the parent's mappings, whatever the number kept (a scan
	 * of the tail per fork was 38% of the recorder in a fork loop).
	 */
	err = index_tail(s);
	if (err)
		return err;
	/* the child's copies go after n: not seen again */
	i = bsearch_lower_bound(&ppid, s->maps.v, sorted, sizeof(*s->maps.v), mapping_below);
	for (; i < sorted && s->maps.v[i].tgid == ppid && !err; i++)
		err = inherit_one(s, i, pid, fork_ns, since);
	/* the parent's tail mappings, newest first in the index: copied oldest first */
	head = u64map__find(&s->tail_heads, ppid);
	for (p = head ? *head : 0; p && !err; p = s->tail_prev[p - 1]) {
		if (nr_tail == sizeof(tail) / sizeof(tail[0]) && list == tail) {
			more = malloc(s->maps.nr * sizeof(*more));
			if (!more)
				return pr_errno(-ENOMEM, "cannot keep mappings");
			memcpy(more, tail, sizeof(tail));
			list = more;
		}
		list[nr_tail++] = (uint32_t)(p - 1);
	}
	while (nr_tail && !err) {
		i = list[--nr_tail];
		if (i < n)
			err = inherit_one(s, i, pid, fork_ns, since);
	}
	free(more);
	return err;
}

/* Loss rows for what the counters cur gained since the last ones. */
static int add_loss_rows(struct session *s, uint64_t time, const uint64_t *cur)
{
	struct rec_loss l;
	uint64_t d[EV_STAT_MAX];
	int cpu, err;
	size_t k;

	memset(s->stats_total, 0, EV_STAT_MAX * sizeof(*s->stats_total));
	for (cpu = 0; cpu < s->nr_possible_cpus; cpu++)
		for (k = 0; k < EV_STAT_MAX; k++)
			s->stats_total[k] += cur[(size_t)cpu * EV_STAT_MAX + k];
	for (cpu = 0; cpu < s->nr_possible_cpus; cpu++) {
		stats__delta(cur, s->stats_prev, cpu, d);
		memset(&l, 0, sizeof(l));
		l.time_ns = time;
		l.cpu = (uint32_t)cpu;
		l.lost_samples = d[EV_STAT_RINGBUF_FULL];
		l.lost_ustacks = d[EV_STAT_USTACK_FAIL];
		l.lost_kstacks = d[EV_STAT_KSTACK_FAIL];
		l.truncated_stacks = d[EV_STAT_USTACK_TRUNC] + d[EV_STAT_KSTACK_TRUNC];
		l.lost_sideband = s->lost_sideband[cpu];
		if (!l.lost_samples && !l.lost_ustacks && !l.lost_kstacks && !l.truncated_stacks &&
		    !l.lost_sideband)
			continue;
		err = recording__add_loss(s->rec, &l);
		if (err)
			return err;
		s->total_lost += l.lost_samples;
		s->total_ustack_fail += l.lost_ustacks;
		s->total_kstack_fail += l.lost_kstacks;
		s->total_truncated += l.truncated_stacks;
		s->lost_sideband[cpu] = 0;
	}
	return 0;
}

/* The tick rows of the sampled CPUs since the last commit, also summed per CPU. */
static int add_tick_rows(struct session *s, const struct rec_ticks *rows, size_t nr)
{
	size_t i;
	int err;

	if (!nr)
		return 0;
	if (!s->tick_sum) {
		s->tick_sum = calloc((size_t)s->nr_possible_cpus, sizeof(*s->tick_sum));
		if (!s->tick_sum)
			return pr_errno(-ENOMEM, "cannot count the clock's ticks");
	}
	for (i = 0; i < nr; i++) {
		if (rows[i].cpu >= (uint32_t)s->nr_possible_cpus)
			continue;	/* never, from the sampler: tick_sum has one per possible CPU */
		err = recording__add_ticks(s->rec, &rows[i]);
		if (err)
			return err;
		rec_ticks__add(&s->tick_sum[rows[i].cpu], &rows[i]);
	}
	return 0;
}

int session__ticks(const struct session *s, struct tick_breakdown *out)
{
	int cpu;

	memset(out, 0, sizeof(*out));
	if (!s->tick_sum)
		return 0;
	for (cpu = 0; cpu < s->nr_possible_cpus; cpu++)
		if (s->tick_sum[cpu].period_ns)
			rec_ticks__explain(&s->tick_sum[cpu], out);
	return 1;
}

static int take_held_sample(void *ctx, const struct ev_sample *e);

bool session__raw_waiting(struct session *s)
{
	return rawstack__waiting(s->rawstack);
}

/*
 * A side-band loss may have cost mappings: for a few seconds after one,
 * the processes whose samples fell in no known mapping are read again
 * from /proc (at most REPAIR_MAX at a time, each once), so their pairs
 * find a mapping at the next step instead of [unknown]. The mappings are
 * stamped from the start of the loss window (the commit before the loss,
 * 0 before the first commit), where the lost records were: stamped at the
 * rescan, they came after every sample of a process that ran between the
 * loss and the first commit after it (t0405: 197 of 200 xz samples
 * [unknown] when that commit was the last).
 *
 * The window opens when the loss is read, and the pairs noted since the
 * last commit are looked at as they come (session__repair), not at the
 * next commit alone: a process whose mmap records were the lost ones and
 * that ended before that commit, up to two seconds on, was read again
 * once its /proc/PID/maps was empty (t0405: an xz of 0.7 s started in
 * the loss, 212 of its 216 samples [unknown]).
 */
#define REPAIR_MAX	64
#define REPAIR_NS	(5 * 1000000000ull)

/*
 * A loss since the last look keeps the window open, and the first one
 * after a commit opens it again: every process may be read once more. Not
 * at every loss: under a storm they come at every read, and each would
 * read the same processes again.
 */
static void repair_window(struct session *s, uint64_t now)
{
	if (s->total_lost_sideband == s->repair_lost)
		return;
	s->repair_lost = s->total_lost_sideband;
	s->repair_until_ns = now + REPAIR_NS;
	if (s->repair_opened && s->repair_commit == s->nr_commits)
		return;
	s->repair_opened = true;
	s->repair_commit = s->nr_commits;
	s->repair_since_ns = s->last_commit_ns;
	s->repair_checked = 0;		/* the pairs noted before the loss was read too */
	s->repair_retry = true;		/* and those the last step could not place */
	u64map__release(&s->repaired);
}

static bool repair_open(const struct session *s, uint64_t now)
{
	return s->sideband && now <= s->repair_until_ns;
}

/* Adds tgid to pids (*nr of them) unless it was read again in this window or is there. */
static void repair_add(const struct session *s, uint32_t tgid, uint32_t *pids, size_t *nr)
{
	size_t i;

	if (u64map__find(&s->repaired, tgid))
		return;
	for (i = 0; i < *nr; i++)
		if (pids[i] == tgid)
			return;
	pids[(*nr)++] = tgid;
}

/* Reads pids again from /proc, each once a window. 0 or -errno (printed). */
static int repair_pids(struct session *s, const uint32_t *pids, size_t nr)
{
	char buf[32];
	uint64_t *slot;
	bool added;
	size_t i;
	int err;

	if (!nr)
		return 0;
	for (i = 0; i < nr; i++)
		if (u64map__upsert(&s->repaired, pids[i], 1, &slot, &added))
			return pr_errno(-ENOMEM, "cannot repair a side-band loss");
	err = sideband__rescan(s->sideband, pids, nr, s->repair_since_ns);
	if (err)
		return err;
	s->nr_rescanned += nr;
	pr_debug("side-band loss: %zu process%s read again from /proc", nr, nr == 1 ? "" : "es");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->nr_rescanned);
	return recording__set_meta(s->rec, REC_META_SIDEBAND_REREAD, buf);
}

/* At a commit, after capture's step: the processes of the pairs it could not place. */
static int repair_loss(struct session *s)
{
	uint32_t pids[REPAIR_MAX], tgids[REPAIR_MAX];
	uint64_t now = now_ns();
	size_t i, nr, kept = 0;

	repair_window(s, now);
	s->repair_checked = 0;		/* the step took the pairs noted */
	s->repair_retry = false;	/* and these are looked at now */
	if (!repair_open(s, now))
		return 0;
	nr = capture__retry_tgids(s->capture, tgids, REPAIR_MAX);
	for (i = 0; i < nr; i++)
		repair_add(s, tgids[i], pids, &kept);
	return repair_pids(s, pids, kept);
}

/* Whether a user address of pair (tgid << 32 | stack id) is in no kept mapping. */
static bool pair_unmapped(struct session *s, uint64_t pair)
{
	const struct stack_entry *e = stack_table__get(&s->stacks, (uint32_t)pair);
	uint32_t tgid = (uint32_t)(pair >> 32), j;
	uint64_t a;

	for (j = 0; e && j < e->nr_user; j++) {
		a = e->frames[e->nr_kernel + j];
		/* a return address: its call is the byte before (report names that) */
		if (a && !find_kept(s, tgid, j ? a - 1 : a, 0))
			return true;
	}
	return false;
}

int session__repair(struct session *s)
{
	uint32_t pids[REPAIR_MAX], tgids[REPAIR_MAX];
	uint64_t now = now_ns();
	const uint64_t *pairs;
	size_t i, nr, kept = 0;

	repair_window(s, now);
	if (!repair_open(s, now))
		return 0;
	if (s->repair_retry) {
		s->repair_retry = false;
		nr = capture__retry_tgids(s->capture, tgids, REPAIR_MAX);
		for (i = 0; i < nr; i++)
			repair_add(s, tgids[i], pids, &kept);
	}
	pairs = capture__noted_pairs(s->capture, &nr);
	if (s->repair_checked > nr)
		s->repair_checked = 0;
	for (i = s->repair_checked; i < nr && kept < REPAIR_MAX; i++) {
		uint32_t tgid = (uint32_t)(pairs[i] >> 32);

		if (!u64map__find(&s->repaired, tgid) && pair_unmapped(s, pairs[i]))
			repair_add(s, tgid, pids, &kept);
	}
	s->repair_checked = i;
	return repair_pids(s, pids, kept);
}

/*
 * The side-band buffers' size per CPU and how often they grew, in the
 * file's meta when it changed (or the file is new).
 */
static int note_sideband_size(struct session *s)
{
	size_t pages, grown;
	char buf[32];
	int err;

	sideband__size(s->sideband, &pages, &grown);
	if (!pages || pages == s->sideband_pages_noted)
		return 0;
	snprintf(buf, sizeof(buf), "%llu",
		 (unsigned long long)pages * (unsigned long long)sysconf(_SC_PAGESIZE) / 1024);
	err = recording__set_meta(s->rec, REC_META_SIDEBAND_KIB, buf);
	snprintf(buf, sizeof(buf), "%zu", grown);
	err = err ?: recording__set_meta(s->rec, REC_META_SIDEBAND_GROWN, buf);
	if (!err)
		s->sideband_pages_noted = pages;
	return err;
}

/*
 * What the memory budget refused the stack and mapping tables
 * (record/stacks.h, record/mappings.h), in the file's meta when it changed.
 */
static int note_memory_bounds(struct session *s)
{
	struct stack_table *t = &s->stacks;
	char buf[32];
	int err;

	if (!memcmp(&t->file, &t->noted, sizeof(t->file)) &&
	    s->maps.nr_refused == s->maps.refused_noted)
		return 0;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t->file.forgets);
	err = recording__set_meta(s->rec, REC_META_STACKS_FORGETS, buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t->file.forgotten);
	err = err ?: recording__set_meta(s->rec, REC_META_STACKS_FORGOTTEN, buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t->file.refused);
	err = err ?: recording__set_meta(s->rec, REC_META_STACKS_REFUSED, buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->maps.nr_refused);
	err = err ?: recording__set_meta(s->rec, REC_META_MAPS_REFUSED, buf);
	if (!err) {
		t->noted = t->file;
		s->maps.refused_noted = s->maps.nr_refused;
	}
	return err;
}

/*
 * The name rows folded (a thread renamed past SESSION_COMMS_PER_COMMIT in
 * a commit, or held past their share of the budget) and dropped (held
 * rows over it), in the file's meta when they changed (or the file is new).
 */
static int note_comm_bounds(struct session *s)
{
	char buf[32];
	int err;

	if (s->comm_bounds_noted && s->nr_comms_folded == s->comms_folded_noted &&
	    s->nr_comms_dropped_full == s->comms_dropped_noted)
		return 0;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->nr_comms_folded);
	err = recording__set_meta(s->rec, REC_META_COMMS_FOLDED, buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->nr_comms_dropped_full);
	err = err ?: recording__set_meta(s->rec, REC_META_COMMS_DROPPED, buf);
	if (!err) {
		s->comm_bounds_noted = true;
		s->comms_folded_noted = s->nr_comms_folded;
		s->comms_dropped_noted = s->nr_comms_dropped_full;
	}
	return err;
}

int session__commit(struct session *s, const struct session_counters *c)
{
	uint64_t t = c ? c->time_ns : now_ns();
	struct capture_source src;
	int err;

	/* samples finished from their stack copies first: they belong to this chunk */
	err = rawstack__flush(s->rawstack, s->raw_final, take_held_sample, s);
	if (err)
		return err;
	session__capture_source(s, &src);
	err = write_late_comms(s);
	if (!err)
		err = write_first_names(s);
	if (!err)
		err = note_comm_bounds(s);
	if (!err)
		err = capture__step(s->capture, &src);
	/* capture read the pairs noted: the stacks may go (record/stacks.h) */
	if (!err && stack_table__forget_due(&s->stacks))
		stack_table__forget(&s->stacks);
	if (!err)
		err = note_memory_bounds(s);
	if (!err)
		err = repair_loss(s);
	if (!err)
		err = note_sideband_size(s);
	if (!err)
		err = forget_exited(s);
	if (!err && c)
		err = add_loss_rows(s, t, c->stats);
	if (!err && c)
		err = add_tick_rows(s, c->ticks, c->nr_ticks);
	if (!err)	/* the samples after a copy still waiting wait with it */
		err = recording__commit_before(s->rec, rawstack__held_since(s->rawstack));
	if (!err)
		err = jitmaps__after_commit(s->jitmaps, s->rec);
	if (err)
		return err;
	s->last_commit_ns = t;
	s->nr_commits++;
	return 0;
}

/* --- what the pipeline stages hand in ---------------------------------- */

/*
 * A stack used by tgid at time_ns (a sample's or an off-CPU interval's):
 * interned by content, written when new, its (process, stack) pair noted
 * for capture, the process marked as used. 0 or -errno (printed).
 */
static int use_stack(struct session *s, const uint64_t *frames, uint32_t nk, uint32_t nu,
		     uint32_t tgid, uint64_t time_ns, uint32_t *id)
{
	struct stack_use u;
	struct rec_stack st;
	int err;

	/* its user frames need the symbols of tgid's mappings at that time: the pair */
	err = stack_table__use(&s->stacks, frames, nk, nu, tgid, time_ns, &u);
	if (err)
		return pr_errno(err, "cannot keep a new stack");
	if (u.refused && s->stacks.total.refused == 1)
		pr_warn("the memory budget is full: stacks are recorded empty until the stack table "
			"is forgotten at the next commit (raise --mem-limit)");
	*id = u.id;
	if (u.added) {
		st.id = u.id;
		st.nr_kernel = u.refused ? 0 : nk;	/* the budget refused: the empty stack */
		st.nr_user = u.refused ? 0 : nu;
		st.frames = frames;
		err = recording__add_stack(s->rec, &st);
		if (err)
			return err;
	}
	if (u.pair_added)
		err = capture__note_pair(s->capture, (uint64_t)tgid << 32 | u.id);
	if (err)
		return pr_errno(err, "cannot keep the stacks seen");
	return session__note_sampled(s, tgid);
}

int session__note_sampled(struct session *s, uint32_t tgid)
{
	struct proc_row *p;
	int err = threads__proc_add(&s->threads, tgid, &p);

	/* without a row (said once) its names are written at once: write_or_hold_comm */
	if (err == -ENOSPC)
		return 0;
	if (err)
		return pr_errno(err, "cannot keep the stacks seen");
	if (!p->sampled)
		s->nr_procs++;
	p->sampled = true;
	return 0;
}

/*
 * A sample of a process that may run Python: an interpreter is looked for
 * when it arrives (a sample held for its tables too, so that the next ones
 * are walked), once. 0 or -ENOMEM.
 */
static int note_python(struct session *s, const struct ev_sample *e)
{
	if (!s->python && s->sampler && !s->opts->no_python &&
	    pyrec__new(sampler__py_map_fd(s->sampler), &s->python))
		return -ENOMEM;
	if (s->python && e->tgid) {
		const struct proc_row *p = threads__proc(&s->threads, e->tgid);

		pyrec__seen(s->python, e->tgid, e->comm, p ? p->exec_ns : 0, e->time_ns);
	}
	return 0;
}

int session__look_python(struct session *s)
{
	const struct record_opts *o = s->opts;
	bool pids = o->mode == TARGET_PIDS;

	if (o->no_python || !s->sampler || o->cgroup || (!pids && o->mode != TARGET_ALL))
		return 0;
	if (!s->python && pyrec__new(sampler__py_map_fd(s->sampler), &s->python))
		return -ENOMEM;
	pyrec__look_running(s->python, pids ? o->pids : NULL, pids ? o->nr_pids : 0);
	return 0;
}

/*
 * Thread tid (its row r, or NULL) in cgroup id from time_ns on, unless its
 * last row in this file says so; its first row in the file covers its
 * samples from the file's start.
 */
static int cgroup_row(struct session *s, struct thread_row *r, uint64_t time_ns, uint32_t tgid,
		      uint32_t tid, uint64_t id)
{
	bool first;

	if (r && r->cgroup_written == id)
		return 0;
	if (threads__cgroup_first(&s->threads, tid, &first))
		return pr_errno(-ENOMEM, "cannot keep the threads' cgroups");
	if (r)
		r->cgroup_written = id;
	return cgroup_log__write(&s->cgroups, s->rec, first ? 0 : time_ns, tgid, tid, id);
}

/*
 * A sample or interval of thread tid: when the file has no cgroup row for
 * it yet but an earlier file had (the sampler sends nothing while the
 * cgroup stays the same), one from the file's start.
 */
static int cgroup_seen(struct session *s, uint32_t tgid, uint32_t tid)
{
	struct thread_row *r = threads__thread(&s->threads, tid);

	if (!r || r->cgroup_written || !r->cgroup_heard)
		return 0;
	return cgroup_row(s, r, 0, tgid, tid, r->cgroup_heard);
}

/*
 * A valid sample: its stack is written once, then every sample refers to it
 * by id. Nothing here allocates except a new stack's copy and table growth.
 */
static int take_sample_at(struct session *s, const struct ev_sample *e, bool held)
{
	const uint64_t *frames = (const uint64_t *)e->frames;	/* __u64 and uint64_t: one size */
	struct rec_sample rs;
	uint32_t id;
	int err = 0;

	static uint64_t spliced[PYREC_MAX_FRAMES];
	uint32_t nu = e->nr_uframes;

	if (!held && note_python(s, e))
		return -ENOMEM;
	if (s->python && e->hdr.flags >> EV_SAMPLE_PY_SHIFT) {
		err = pyrec__splice(s->python, s->rec, e, held, spliced, &nu);
		if (err)
			return err;
		frames = spliced;
	}
	err = use_stack(s, frames, e->nr_kframes, nu, e->tgid, e->time_ns, &id);
	if (err)
		return err;
	/*
	 * Idle tasks share tid 0 but are "swapper/N" per CPU: one name, as perf
	 * shows it. A sample held for its tables (rawstack.c) is taken late:
	 * its name is older than what the thread is called by now (the
	 * recorder's child before its exec), so it only names a thread that
	 * has no name yet, never renames one back.
	 */
	if (!held || !session__thread_named(s, e->tid))
		err = session__note_comm(s, e->time_ns, e->tgid, e->tid,
					 e->tid ? e->comm : "swapper");
	else	/* its name rows go into the commit with it, as note_comm does */
		err = write_held_comms(s, e->tgid);
	if (!err)
		err = cgroup_seen(s, e->tgid, e->tid);
	if (err)
		return err;
	rs.time_ns = e->time_ns;
	rs.tgid = e->tgid;
	rs.tid = e->tid;
	rs.cpu = e->cpu;
	rs.stack_id = id;
	err = recording__add_sample(s->rec, &rs);
	if (err)
		return err;
	s->nr_samples++;
	return 0;
}

static int take_sample(void *ctx, const struct ev_sample *e)
{
	return take_sample_at(ctx, e, false);
}

static int take_held_sample(void *ctx, const struct ev_sample *e)
{
	return take_sample_at(ctx, e, true);
}

/*
 * rawstack's finder: the latest mapping of tgid holding pc stamped at or
 * before time_ns (else the earliest after it: find_kept), with its file's
 * key as the walker computes it.
 */
bool session__find_vma(void *ctx, uint32_t tgid, uint64_t pc, uint64_t time_ns,
		       struct uwalk_vma *out)
{
	struct session *s = ctx;
	struct mapping_table *t = &s->maps;
	struct mapping *best = find_kept(s, tgid, pc, time_ns);
	const struct mapped_file *f;

	if (!best || mapping__resolve(t, best))
		return false;
	f = mapping__file(t, best);
	if (!f)
		return false;
	memset(out, 0, sizeof(*out));
	out->start = best->start;
	out->end = best->end;
	out->pgoff = best->pgoff >> 12;
	out->key.dev = (uint32_t)(major(f->dev) << 20 | minor(f->dev));
	out->key.ino = f->ino;
	out->key.ctime_ns = f->ctime_ns;
	return true;
}

/* One with a stack copy waits for its tables (rawstack.h); the others are taken. */
static int on_sample(void *ctx, const struct ev_sample *e)
{
	struct session *s = ctx;
	struct ev_sample *h;
	int err;

	if ((e->hdr.flags & EV_SAMPLE_F_RAW) && s->rawstack) {
		err = note_python(s, e) ?: rawstack__hold(s->rawstack, e, e->hdr.size, &h);
		/* its code objects are read now, while the process lives */
		if (!err && s->python)
			err = pyrec__key(s->python, s->rec, h);
		return err;
	}
	return take_sample(s, e);
}

static int on_offcpu_stack(void *ctx, const struct ev_offcpu_stack *e)
{
	struct session *s = ctx;
	int err;

	if (!s->offcpu)
		return 0;	/* never: the switch hook is attached after the reader exists */
	err = offcpu__on_stack(s->offcpu, e);
	return err ? err : session__note_comm(s, e->time_ns, e->tgid, e->tid, e->comm);
}

static int on_offcpu(void *ctx, const struct ev_offcpu *e)
{
	struct session *s = ctx;
	int err;

	if (!s->offcpu)
		return 0;
	err = cgroup_seen(s, e->tgid, e->tid);
	return err ? err : offcpu__on_interval(s->offcpu, s->rec, e);
}

/*
 * A thread's cgroup, first seen or moved (an EV_CGROUP): a row when that
 * is news for this file.
 */
static int on_cgroup(void *ctx, const struct ev_cgroup *e)
{
	struct session *s = ctx;
	struct thread_row *r = NULL;
	int err;

	if (!e->cgroup_id)
		return 0;	/* no cgroup: nothing to say */
	err = threads__thread_add(&s->threads, e->tid, e->tgid, &r);
	if (err && err != -ENOSPC)	/* without a row (said once): every change is written */
		return pr_errno(err, "cannot keep the threads' cgroups");
	if (r)
		r->cgroup_heard = e->cgroup_id;
	return cgroup_row(s, r, e->time_ns, e->tgid, e->tid, e->cgroup_id);
}

void session__sampler_sink(struct session *s, struct sampler_sink *out)
{
	*out = (struct sampler_sink){
		.sample = on_sample, .offcpu_stack = on_offcpu_stack, .offcpu = on_offcpu,
		.cgroup = on_cgroup, .ctx = s,
	};
}

/* The off-CPU reader's stacks: 0 on failure (printed). */
static uint32_t intern_offcpu(void *ctx, const uint64_t *frames, uint32_t nk, uint32_t nu,
			      uint32_t tgid, uint64_t time_ns)
{
	uint32_t id;

	return use_stack(ctx, frames, nk, nu, tgid, time_ns, &id) ? 0 : id;
}

/*
 * A thread with an off-CPU row in a file after a switch: its name again,
 * the last one heard (its row lives while its intervals can still be
 * read: two commits past its exit, and each commit reads them first).
 */
static int name_offcpu(void *ctx, uint64_t time_ns, uint32_t tgid, uint32_t tid)
{
	struct session *s = ctx;
	const struct thread_row *r = threads__thread(&s->threads, tid);
	char comm[REC_COMM_LEN];

	if (!r || r->has_comm || !r->comm_kept)
		return 0;
	memcpy(comm, r->comm, sizeof(comm));	/* note_comm writes the row */
	return session__note_comm(s, time_ns, tgid, tid, comm);
}

void session__offcpu_config(struct session *s, int start_fd, int sums_fd,
			    struct offcpu_config *out)
{
	const struct record_opts *o = s->opts;

	*out = (struct offcpu_config){
		.start_fd = start_fd, .sums_fd = sums_fd, .nr_possible_cpus = s->nr_possible_cpus,
		.thresh_ns = o ? o->off_cpu_thresh_ns : 0,
		.intern = intern_offcpu, .ctx = s,
		.keep_for_switch = o && (o->switch_bytes || o->switch_ns), .name = name_offcpu,
	};
}

/* Kept; it reaches the recording only when a sample falls in it (capture). */
static int sb_mapping(void *ctx, const struct rec_mapping *m)
{
	struct session *s = ctx;

	/*
	 * -a builds tables on demand, for what the walker meets (record/unwind.c);
	 * -- CMD's child at its gate maps the recorder's own libraries, gone at
	 * its exec (its ticks before it are not kept): none of them waits
	 * for a table before the command starts (prepare_command)
	 */
	if (is_file_path(m->path) && s->opts && s->opts->mode != TARGET_ALL && !s->gate_scan &&
	    unwinder__note_mapping(s->unwinder, m->tgid, m->start, m->end, m->path))
		return -ENOMEM;
	return mapping_table__add(&s->maps, m);
}

static int sb_comm(void *ctx, uint64_t time_ns, uint32_t tgid, uint32_t tid, const char *comm,
		   bool exec)
{
	struct session *s = ctx;
	struct proc_row *p;
	int err;

	if (exec) {
		/* forks after this copy only what the new image maps (sb_fork) */
		err = threads__proc_add(&s->threads, tgid, &p);
		if (!err)
			p->exec_ns = time_ns;
		else if (err != -ENOSPC)	/* without a row (said once): forks copy more */
			return pr_errno(err, "cannot keep exec times");
		if (jitmaps__exec(s->jitmaps, tgid))
			return -ENOMEM;
	}
	return session__note_comm(s, time_ns, tgid, tid, comm);
}

static int sb_fork(void *ctx, uint32_t ppid, uint32_t pid, uint64_t fork_ns)
{
	struct session *s = ctx;
	struct proc_row *p = threads__proc(&s->threads, pid);
	struct thread_row *t = threads__thread(&s->threads, pid);
	int err;

	/* an exec time older than this fork was a previous owner's of the pid */
	if (p && p->exec_ns < fork_ns)
		p->exec_ns = 0;
	if (t)
		thread_row__alive_at(t, fork_ns);	/* a new thread on the tid */
	err = inherit_mappings(s, ppid, pid, fork_ns);
	return err ? err : jitmaps__new_process(s->jitmaps, pid, fork_ns);
}

/* Read its JIT map before it is gone. */
static int sb_exit(void *ctx, uint32_t pid, uint64_t time_ns)
{
	struct session *s = ctx;
	int err = note_exit(s, pid, time_ns);

	threads__thread_exit(&s->threads, pid, time_ns, s->nr_commits);
	return err ? err : jitmaps__read(s->jitmaps, pid);
}

/* A thread that is not its process's leader ended: its row goes two commits on. */
static int sb_thread_exit(void *ctx, uint32_t tgid, uint32_t tid, uint64_t time_ns)
{
	struct session *s = ctx;

	(void)tgid;
	threads__thread_exit(&s->threads, tid, time_ns, s->nr_commits);
	return 0;
}

static void sb_lost(void *ctx, int cpu, uint64_t nr)
{
	struct session *s = ctx;

	if (cpu >= 0 && cpu < s->nr_possible_cpus)
		s->lost_sideband[cpu] += nr;
	s->total_lost_sideband += nr;
}

/* Without a sampler (a side-band fed by unit tests) every process is one. */
static bool sb_is_target(void *ctx, uint32_t pid)
{
	struct session *s = ctx;

	return !s->sampler || sampler__is_target(s->sampler, pid);
}

void session__sideband_sink(struct session *s, struct sideband_sink *out)
{
	*out = (struct sideband_sink){
		.mapping = sb_mapping, .comm = sb_comm, .fork = sb_fork, .exit = sb_exit,
		.thread_exit = sb_thread_exit, .lost = sb_lost, .is_target = sb_is_target, .ctx = s,
	};
}

void session__capture_source(struct session *s, struct capture_source *out)
{
	*out = (struct capture_source){
		.rec = s->rec, .stacks = &s->stacks, .pairs = &s->stacks.pairs, .maps = &s->maps,
		.jitmaps = s->jitmaps, .debuginfo = s->opts && s->opts->debuginfo,
		.complete_ns = s->sideband_past_ns > SIDEBAND_MARGIN_NS ?
			       s->sideband_past_ns - SIDEBAND_MARGIN_NS : 0,
	};
}

/* --- life ------------------------------------------------------------------ */

int session__init(struct session *s, const struct record_opts *opts, int nr_possible_cpus)
{
	memset(s, 0, sizeof(*s));
	cgroup_log__init(&s->cgroups);
	s->opts = opts;
	s->nr_possible_cpus = nr_possible_cpus;
	s->lost_sideband = calloc((size_t)nr_possible_cpus, sizeof(*s->lost_sideband));
	s->stats_prev = calloc((size_t)nr_possible_cpus * EV_STAT_MAX, sizeof(*s->stats_prev));
	s->stats_total = calloc(EV_STAT_MAX, sizeof(*s->stats_total));
	s->jitmaps = jitmaps__new(&s->threads);
	s->capture = capture__new();
	if (!s->lost_sideband || !s->stats_prev || !s->stats_total || !s->jitmaps || !s->capture) {
		session__release(s);
		return pr_errno(-ENOMEM, "cannot set up the recording session");
	}
	return 0;
}

void session__release(struct session *s)
{
	rawstack__free(s->rawstack);
	jitmaps__free(s->jitmaps);
	pyrec__free(s->python);
	capture__free(s->capture);
	stack_table__release(&s->stacks);
	u64map__release(&s->repaired);
	session__release_kept(s);
	free(s->lost_sideband);
	free(s->stats_prev);
	free(s->stats_total);
	free(s->tick_sum);
	cgroup_log__release(&s->cgroups);
	recording__close(s->rec);
	memset(s, 0, sizeof(*s));
}
