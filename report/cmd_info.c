// SPDX-License-Identifier: MIT
/*
 * report/cmd_info.c - `eprof info [FILE] [--json]`: what a recording holds.
 *
 * The facts are gathered once into struct info, then printed by one of two
 * printers, text or JSON, so the two cannot drift apart (bpftool's rule:
 * every printer has a JSON twin). Metadata values are text in the file;
 * the ones that are numbers are printed as JSON numbers when they parse.
 *
 * The per-binary rows come from symbolizing every sampled stack exactly as
 * `eprof report` would (same local lookup order, same --debug-dir), so they
 * say how each binary will be symbolized here and how many of its sampled
 * frames will stay unresolved.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/aggregate/aggregate.h"
#include "report/report.h"
#include "report/symbolize/symbolize.h"
#include "util/escape.h"
#include "util/json.h"
#include "util/hashmap.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/status.h"
#include "util/strbuf.h"
#include "util/vec.h"

enum meta_kind { META_TEXT, META_NUMBER };

struct meta_field {
	const char *key;		/* REC_META_* */
	const char *label;		/* text output */
	enum meta_kind kind;
};

static const struct meta_field meta_fields[] = {
	{ REC_META_EPROF_VERSION, "eprof version", META_TEXT },
	{ REC_META_HOSTNAME, "host", META_TEXT },
	{ REC_META_KERNEL, "kernel", META_TEXT },
	{ REC_META_ARCH, "arch", META_TEXT },
	{ REC_META_NR_CPUS, "CPUs", META_NUMBER },
	{ REC_META_NUMA_MAP, "NUMA map (cpu:node)", META_TEXT },
	{ REC_META_FREQ_HZ, "frequency (Hz)", META_NUMBER },
	{ REC_META_EVENT, "event", META_TEXT },
	{ REC_META_CLOCK, "clock", META_TEXT },
	{ REC_META_START_NS, "start (ns)", META_NUMBER },
	{ REC_META_END_NS, "end (ns)", META_NUMBER },
	{ REC_META_START_REALTIME, "start (epoch s)", META_NUMBER },
	{ REC_META_COMMAND, "command", META_TEXT },
	{ REC_META_TARGET, "target", META_TEXT },
	{ REC_META_CALL_GRAPH, "call graph", META_TEXT },
	{ REC_META_UNWIND_BUDGET, "unwind budget (bytes)", META_NUMBER },
	{ REC_META_MEM_CEILING, "memory ceiling (bytes)", META_NUMBER },
	{ REC_META_MEM_BASE, "memory base (bytes)", META_NUMBER },
	{ REC_META_PEAK_RSS, "peak memory (bytes)", META_NUMBER },
	{ REC_META_RAW_BUDGET, "raw stack budget (B/s)", META_NUMBER },
	{ REC_META_RAW_SAMPLES, "raw stack samples", META_NUMBER },
	{ REC_META_RAW_BYTES, "raw stack bytes", META_NUMBER },
	{ REC_META_RAW_OVER, "raw stack over budget", META_NUMBER },
	{ REC_META_RAW_FINISHED, "raw stacks finished", META_NUMBER },
	{ REC_META_RAW_COMPLETE, "raw stacks complete", META_NUMBER },
	{ REC_META_RAW_GIVEN_UP, "raw stacks given up", META_NUMBER },
	{ REC_META_RAW_GAVE_WAY, "raw stacks given up for windows (memory budget)", META_NUMBER },
	{ REC_META_RAW_NOT_HELD, "raw stacks not held (memory budget)", META_NUMBER },
	{ REC_META_RAW_HELD_BACK, "commits that kept samples back for waiting copies", META_NUMBER },
	{ REC_META_PY_WALKS, "Python: samples walked", META_NUMBER },
	{ REC_META_PY_SAMPLES, "Python: samples with Python frames", META_NUMBER },
	{ REC_META_PY_NO_THREAD, "Python: samples of non-Python threads", META_NUMBER },
	{ REC_META_PY_UNREADABLE, "Python: walks stopped, frame unreadable", META_NUMBER },
	{ REC_META_PY_DEPTH, "Python: walks stopped, depth limit", META_NUMBER },
	{ REC_META_PY_COPY, "Python: not walked, stack copy", META_NUMBER },
	{ REC_META_PY_UNKNOWN, "Python: not walked, unknown version", META_NUMBER },
	{ REC_META_PY_VERSIONS, "Python: unknown version (native frames only)", META_TEXT },
	{ REC_META_PY_CODES, "Python: code objects stored", META_NUMBER },
	{ REC_META_PY_CODE_BAD, "Python: code objects unreadable", META_NUMBER },
	{ REC_META_PY_UNNAMED, "Python: frames unnamed (code object unreadable or over budget)", META_NUMBER },
	{ REC_META_PY_UNPLACED, "Python: frames dropped (no eval-loop frame for them)", META_NUMBER },
	{ REC_META_PY_OUTER, "Python: frames put outermost (native walk cut before their eval loop)", META_NUMBER },
	{ REC_META_TABLE_CACHE, "unwind table cache", META_TEXT },
	{ REC_META_TABLE_CACHE_HITS, "tables from the cache", META_NUMBER },
	{ REC_META_TABLE_CACHE_STORED, "tables stored in it", META_NUMBER },
	{ REC_META_UNWIND_PARTIAL, "tables loaded by windows (big binaries)", META_NUMBER },
	{ REC_META_UNWIND_WINDOWS, "windows of code loaded into them", META_NUMBER },
	{ REC_META_UNWIND_WINDOWS_OUT, "windows left out (over the budget)", META_NUMBER },
	{ REC_META_UNWIND_WINDOWS_WAITED, "batches of windows that waited for memory", META_NUMBER },
	{ REC_META_UNWIND_WINDOWS_UNBUILT, "windows not loaded by the end (memory, file gone)", META_NUMBER },
	{ REC_META_UNWIND_REFUSED, "tables refused (over the budget or bounds)", META_NUMBER },
	{ REC_META_UNWIND_FB_REFUSED, "frame-pointer steps in refused tables", META_NUMBER },
	{ REC_META_UNWIND_STOP_REFUSED, "walks stopped in refused tables", META_NUMBER },
	{ REC_META_SIDEBAND_REREAD, "read again after loss", META_NUMBER },
	{ REC_META_SIDEBAND_KIB, "side-band buffer per CPU (KiB)", META_NUMBER },
	{ REC_META_SIDEBAND_GROWN, "side-band buffer grown after losses", META_NUMBER },
	{ REC_META_COMMS_FOLDED, "name rows folded (renames)", META_NUMBER },
	{ REC_META_COMMS_DROPPED, "name rows dropped (memory budget)", META_NUMBER },
	{ REC_META_STACKS_FORGETS, "stack table forgotten (memory budget)", META_NUMBER },
	{ REC_META_STACKS_FORGOTTEN, "stacks forgotten (stored again when met again)", META_NUMBER },
	{ REC_META_STACKS_REFUSED, "stacks refused (memory budget): recorded empty", META_NUMBER },
	{ REC_META_MAPS_REFUSED, "mappings not kept (memory budget)", META_NUMBER },
};

#define NR_META (sizeof(meta_fields) / sizeof(meta_fields[0]))

struct info_binary {
	char build_id[2 * REC_BUILD_ID_MAX + 1];	/* hex, "" when none */
	const char *path;		/* strings owned by the symbolizer */
	const char *embedded;
	const char *local;
	bool embedded_dwarf;		/* the recording holds its DWARF */
	const char *why;
	uint64_t frames;
	uint64_t unresolved;
};

/* A row of the unwind table (format v2), its path owned. */
struct info_unwind {
	char build_id[2 * REC_BUILD_ID_MAX + 1];
	struct rec_unwind u;
};

struct info_jit_cut {
	struct rec_jit_cut c;
	char *path;			/* owned: c.path points here */
};

/* One CPU: what its clock should have fired and what became of it. */
struct info_cpu {
	uint64_t taken;			/* samples in the file */
	uint64_t ringbuf_full;		/* loss rows */
	struct rec_ticks ticks;		/* its tick rows, summed */
};

#define INFO_MAX_CPUS	65536

struct info {
	const char *path;
	int version;			/* the file's own format version */
	bool has_unwind;		/* the recording has a totals row */
	struct rec_unwind unw;		/* totals (path not kept) */
	struct info_unwind *unw_bins;
	size_t nr_unw_bins, alloc_unw_bins;
	bool finished;
	char *meta[NR_META];		/* NULL when absent */
	uint64_t samples;
	uint64_t lost_samples;
	uint64_t lost_ustacks;
	uint64_t lost_kstacks;
	uint64_t truncated_stacks;
	uint64_t lost_sideband;
	uint64_t processes;		/* distinct tgids with samples */
	bool has_ticks;			/* format v2: the clock's account is there */
	struct info_cpu *cpus;		/* indexed by CPU number */
	size_t nr_cpus;
	struct tick_breakdown tb;	/* all CPUs */
	int cpu_err;			/* a per-CPU callback's own error, unprinted */
	struct info_binary *bins;
	size_t nr_bins;
	size_t stored_binaries;		/* distinct binaries (one may span several rows) */
	char **bin_keys;		/* build-id in hex, or "path:" + path, per row */
	size_t nr_bin_keys, alloc_bin_keys;
	size_t stored_symbols;
	size_t stored_fdes;		/* function ranges of stripped code (".eh_frame" rows) */
	uint64_t frames;
	uint64_t unresolved;
	struct symbolizer *sym;
	struct info_jit_cut *cuts;	/* JIT maps the recorder cut (v2) */
	size_t nr_cuts;
	struct hashmap tgids;		/* distinct tgids: a set (values are the keys) */
	/* record --off-cpu (v2): shown only for recordings that have it */
	bool has_offcpu;
	uint64_t offcpu_thresh_ns;
	uint64_t oc_intervals, oc_summed;	/* kept one by one, summed */
	uint64_t oc_state_ns[REC_OFFCPU_STATES];
	struct rec_offcpu_loss oc_loss;	/* summed */
	/* which cgroup threads ran in (v2): shown only for recordings that have it */
	bool has_cgroups;
	uint64_t cgroups_named, cgroup_rows;
};

static void info__release(struct info *in)
{
	size_t i;

	for (i = 0; i < NR_META; i++)
		free(in->meta[i]);
	free(in->bins);
	for (i = 0; i < in->nr_bin_keys; i++)
		free(in->bin_keys[i]);
	free(in->bin_keys);
	symbolizer__free(in->sym);
	hashmap__release(&in->tgids);
	for (i = 0; i < in->nr_unw_bins; i++)
		free((char *)in->unw_bins[i].u.path);
	free(in->unw_bins);
	for (i = 0; i < in->nr_cuts; i++)
		free(in->cuts[i].path);
	free(in->cuts);
	free(in->cpus);
}

static int on_unwind(void *ctx, const struct rec_unwind *u)
{
	struct info *in = ctx;
	struct info_unwind *b;
	uint32_t k;

	if (!u->path[0]) {
		in->has_unwind = true;
		in->unw = *u;
		in->unw.path = "";
		return 0;
	}
	if (vec__grow(&in->unw_bins, &in->alloc_unw_bins, in->nr_unw_bins + 1,
		      sizeof(*in->unw_bins)))
		return pr_errno(-ENOMEM, "cannot describe '%s'", in->path);
	b = &in->unw_bins[in->nr_unw_bins];
	memset(b, 0, sizeof(*b));
	b->u = *u;
	b->u.path = strdup(u->path);
	if (!b->u.path)
		return pr_errno(-ENOMEM, "cannot describe '%s'", in->path);
	for (k = 0; k < u->build_id_len && k < REC_BUILD_ID_MAX; k++)
		snprintf(b->build_id + 2 * k, 3, "%02x", u->build_id[k]);
	in->nr_unw_bins++;
	return 0;
}

static int on_jit_cut(void *ctx, const struct rec_jit_cut *c)
{
	struct info *in = ctx;
	struct info_jit_cut *n;

	n = reallocarray(in->cuts, in->nr_cuts + 1, sizeof(*n));
	if (!n)
		return pr_errno(-ENOMEM, "cannot describe '%s'", in->path);
	in->cuts = n;
	n = &in->cuts[in->nr_cuts];
	n->c = *c;
	n->path = strdup(c->path);
	if (!n->path)
		return pr_errno(-ENOMEM, "cannot describe '%s'", in->path);
	n->c.path = n->path;
	in->nr_cuts++;
	return 0;
}

/*
 * Points *out at the slot of cpu, growing the table: 0, or -EBADMSG (cpu out
 * of range) or -ENOMEM, kept in in->cpu_err for the message.
 */
static int info__cpu(struct info *in, uint32_t cpu, struct info_cpu **out)
{
	struct info_cpu *c;
	size_t n;

	if (cpu >= INFO_MAX_CPUS)
		return in->cpu_err = -EBADMSG;
	if (cpu >= in->nr_cpus) {
		n = (size_t)cpu + 1;
		c = reallocarray(in->cpus, n, sizeof(*c));
		if (!c)
			return in->cpu_err = -ENOMEM;
		memset(c + in->nr_cpus, 0, (n - in->nr_cpus) * sizeof(*c));
		in->cpus = c;
		in->nr_cpus = n;
	}
	*out = &in->cpus[cpu];
	return 0;
}

static int on_offcpu(void *ctx, const struct rec_offcpu *o)
{
	struct info *in = ctx;

	in->oc_intervals++;
	in->oc_state_ns[o->state] += o->duration_ns;
	return 0;
}

static int on_offcpu_sum(void *ctx, const struct rec_offcpu_sum *o)
{
	struct info *in = ctx;

	in->oc_summed += o->count;
	in->oc_state_ns[o->state] += o->total_ns;
	return 0;
}

static int on_cgroup(void *ctx, const struct rec_cgroup *c)
{
	struct info *in = ctx;

	(void)c;
	in->cgroups_named++;
	return 0;
}

static int on_thread_cgroup(void *ctx, const struct rec_thread_cgroup *t)
{
	struct info *in = ctx;

	(void)t;
	in->cgroup_rows++;
	return 0;
}

static int on_ticks(void *ctx, const struct rec_ticks *t)
{
	struct info_cpu *c = NULL;
	int err = info__cpu(ctx, t->cpu, &c);

	if (!err)
		rec_ticks__add(&c->ticks, t);
	return err;
}

static int on_loss(void *ctx, const struct rec_loss *l)
{
	struct info *in = ctx;
	struct info_cpu *c = NULL;
	int err = info__cpu(in, l->cpu, &c);

	if (err)
		return err;
	c->ringbuf_full += l->lost_samples;
	in->lost_samples += l->lost_samples;
	in->lost_ustacks += l->lost_ustacks;
	in->lost_kstacks += l->lost_kstacks;
	in->truncated_stacks += l->truncated_stacks;
	in->lost_sideband += l->lost_sideband;
	return 0;
}

static int add_tgid(struct info *in, uint32_t tgid)
{
	uint32_t *slot;
	bool added;
	int err;

	err = hashmap__upsert(&in->tgids, hash_u64(tgid), hashmap_eq_u32, &tgid, NULL, tgid, &slot,
			      &added);
	if (!err && added)
		in->processes++;
	return err;
}

struct walk_ctx {
	struct info *in;
	int err;			/* ours, unprinted */
};

static int on_sample(void *ctx, const struct rec_sample *s)
{
	struct walk_ctx *w = ctx;
	struct info_cpu *c = NULL;
	int err = info__cpu(w->in, s->cpu, &c);

	if (err)
		return err;
	c->taken++;
	return w->err = add_tgid(w->in, s->tgid);
}

/* Rows are appended per commit, several for one binary: keep their keys. */
static int on_binary(void *ctx, const struct rec_binary *b)
{
	struct walk_ctx *w = ctx;
	struct info *in = w->in;
	struct strbuf key = STRBUF_INIT;
	uint32_t i;

	if (vec__grow(&in->bin_keys, &in->alloc_bin_keys, in->nr_bin_keys + 1,
		      sizeof(*in->bin_keys)))
		return w->err = -ENOMEM;
	if (b->build_id_len)
		for (i = 0; i < b->build_id_len && i < REC_BUILD_ID_MAX; i++)
			strbuf_addf(&key, "%02x", b->build_id[i]);
	else
		strbuf_addf(&key, "path:%s", b->path ? b->path : "");
	if (key.oom || !(in->bin_keys[in->nr_bin_keys] = strbuf_detach(&key)))
		return w->err = -ENOMEM;
	in->nr_bin_keys++;
	if (b->source && !strcmp(b->source, ".eh_frame"))
		in->stored_fdes += b->nr_symbols;
	else
		in->stored_symbols += b->nr_symbols;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t count_distinct(char **keys, size_t n)
{
	size_t i, d = 0;

	if (!n)
		return 0;
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (i = 0; i < n; i++)
		if (!i || strcmp(keys[i - 1], keys[i]))
			d++;
	return d;
}

static int cmp_info_binary(const void *a, const void *b)
{
	const struct info_binary *x = a, *y = b;

	if (x->frames != y->frames)
		return x->frames > y->frames ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Symbolizes every sampled stack as a report would; one row per binary hit. */
static int gather_binaries(struct info *in, struct recording *rec, const struct sym_opts *so)
{
	struct sym_table stacks = { NULL, 0 };	/* only the stats are read */
	struct stack_agg agg;
	size_t i, n;
	uint32_t k, len;
	int err;

	stack_agg__init(&agg);
	in->sym = symbolizer__new();
	if (!in->sym) {
		err = pr_errno(-ENOMEM, "cannot describe '%s'", in->path);
		goto out;
	}
	err = symbolizer__set_opts(in->sym, so);
	if (!err)
		err = stack_agg__load(&agg, rec);
	if (!err)
		err = symbolizer__load(in->sym, rec);
	if (!err)
		err = symbolizer__resolve(in->sym, &agg, &stacks);
	if (err)
		goto out;
	if (symbolizer__stats(in->sym)->missing_stack_samples) {
		pr_err("'%s' is damaged: %" PRIu64 " samples refer to stacks that are not in the "
		       "recording", in->path, symbolizer__stats(in->sym)->missing_stack_samples);
		err = -EBADMSG;
		goto out;
	}
	n = symbolizer__nr_objects(in->sym);
	in->bins = calloc(n ? n : 1, sizeof(*in->bins));
	if (!in->bins) {
		err = pr_errno(-ENOMEM, "cannot describe '%s'", in->path);
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct sym_object *o = symbolizer__object(in->sym, i);
		struct info_binary *ib = &in->bins[in->nr_bins];

		if (!o->frames)
			continue;
		len = o->build_id_len > REC_BUILD_ID_MAX ? REC_BUILD_ID_MAX : o->build_id_len;
		for (k = 0; k < len; k++)
			snprintf(ib->build_id + 2 * k, 3, "%02x", o->build_id[k]);
		ib->path = o->path;
		ib->embedded = o->embedded;
		ib->local = o->local;
		ib->embedded_dwarf = o->embedded_dwarf;
		ib->why = o->unresolved ? o->why : NULL;
		ib->frames = o->frames;
		ib->unresolved = o->unresolved;
		in->frames += o->frames;
		in->unresolved += o->unresolved;
		in->nr_bins++;
	}
	if (in->nr_bins > 1)
		qsort(in->bins, in->nr_bins, sizeof(*in->bins), cmp_info_binary);
out:
	sym_table__release(&stacks);
	stack_agg__release(&agg);
	return err;
}

/*
 * "embedded .symtab", "embedded .symtab + local FILE", "local FILE",
 * "missing"; " + embedded DWARF" when the recording holds its DWARF.
 */
static void how_text(const struct info_binary *b, char *buf, size_t len)
{
	size_t n;

	if (b->embedded && b->local)
		snprintf(buf, len, "embedded %s + local %s", b->embedded, b->local);
	else if (b->embedded)
		snprintf(buf, len, "embedded %s", b->embedded);
	else if (b->local)
		snprintf(buf, len, "local %s", b->local);
	else if (b->embedded_dwarf)
		snprintf(buf, len, "embedded DWARF");
	else
		snprintf(buf, len, "missing");
	n = strlen(buf);
	if (b->embedded_dwarf && (b->embedded || b->local) && n < len)
		snprintf(buf + n, len - n, " + embedded DWARF");
}

/* Distinct nodes in "cpu:node,..." (0 when unknown). */
static unsigned int numa_nodes(const char *map)
{
	unsigned long seen[16] = { 0 };
	unsigned int cpu, node, nr = 0;
	int used;

	while (map && sscanf(map, "%u:%u%n", &cpu, &node, &used) == 2) {
		if (node < 16 * 64 && !(seen[node / 64] & (1ul << (node % 64)))) {
			seen[node / 64] |= 1ul << (node % 64);
			nr++;
		}
		map += used;
		if (*map != ',')
			break;
		map++;
	}
	return nr;
}

static int info__gather(struct info *in, struct recording *rec, const struct sym_opts *so)
{
	struct walk_ctx w = { in, 0 };
	size_t i;
	int err;

	in->path = recording__path(rec);
	in->finished = recording__is_finished(rec);
	in->version = recording__version(rec);
	for (i = 0; i < NR_META; i++) {
		err = recording__get_meta(rec, meta_fields[i].key, &in->meta[i]);
		if (err == -ENOENT)
			continue;
		if (err)
			return err;
	}
	in->has_ticks = recording__has_ticks(rec);
	err = recording__sample_count(rec, &in->samples);
	if (!err)
		err = recording__for_each_loss(rec, on_loss, in);
	if (!err)
		err = recording__for_each_unwind(rec, on_unwind, in);
	if (!err)
		err = recording__for_each_jit_cut(rec, on_jit_cut, in);
	if (!err)
		err = recording__for_each_ticks(rec, on_ticks, in);
	in->has_offcpu = recording__has_offcpu(rec);
	in->offcpu_thresh_ns = recording__offcpu_thresh_ns(rec);
	if (!err)
		err = recording__for_each_offcpu(rec, on_offcpu, in);
	if (!err)
		err = recording__for_each_offcpu_sum(rec, on_offcpu_sum, in);
	if (!err)
		err = recording__offcpu_loss_total(rec, &in->oc_loss);
	in->has_cgroups = recording__has_cgroups(rec);
	if (!err)
		err = recording__for_each_cgroup(rec, on_cgroup, in);
	if (!err)
		err = recording__for_each_thread_cgroup(rec, on_thread_cgroup, in);
	if (!err)
		err = recording__for_each_sample(rec, on_sample, &w);
	if (!err)
		err = recording__for_each_binary(rec, on_binary, &w);
	if (err && in->cpu_err == -EBADMSG) {
		pr_err("'%s' is damaged: a CPU number above %d", in->path, INFO_MAX_CPUS - 1);
		return err;
	}
	if (err && (w.err || in->cpu_err))
		return pr_errno(err, "cannot describe '%s'", in->path);
	for (i = 0; i < in->nr_cpus; i++)
		if (in->cpus[i].ticks.period_ns)
			rec_ticks__explain(&in->cpus[i].ticks, &in->tb);
	in->stored_binaries = count_distinct(in->bin_keys, in->nr_bin_keys);
	if (!err)
		err = gather_binaries(in, rec, so);
	return err;
}

/* --- text ----------------------------------------------------------------- */

static const char *meta_of(const struct info *in, const char *key)
{
	size_t i;

	for (i = 0; i < NR_META; i++)
		if (!strcmp(meta_fields[i].key, key))
			return in->meta[i];
	return NULL;
}

/* end - start in ns, when both are there and make sense. */
static bool duration_ns(const struct info *in, uint64_t *out)
{
	const char *s = meta_of(in, REC_META_START_NS), *e = meta_of(in, REC_META_END_NS);
	uint64_t a, b;

	if (!s || !e || parse_u64(s, 0, UINT64_MAX, &a) || parse_u64(e, 0, UINT64_MAX, &b) ||
	    b < a)
		return false;
	*out = b - a;
	return true;
}

static uint64_t unw_stopped(const struct rec_unwind *u)
{
	return u->stop[REC_UNW_STOP_UNREADABLE] + u->stop[REC_UNW_STOP_BAD_SP] +
	       u->stop[REC_UNW_STOP_NO_TABLE] + u->stop[REC_UNW_STOP_NO_CFI] +
	       u->stop[REC_UNW_STOP_NO_REGS];
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* A number of the metadata, 0 when absent. */
static uint64_t meta_u64(const struct info *in, const char *key)
{
	const char *v = meta_of(in, key);
	uint64_t n = 0;

	if (v && parse_u64(v, 0, UINT64_MAX, &n))
		n = 0;
	return n;
}

/*
 * The raw-stack fallback (record/rawstack.h): stacks whose walk met a
 * table not built yet, finished by the recorder from a copy of the stack.
 * The counts above are of the stacks as stored.
 */
static void print_raw_text(const struct info *in, FILE *f)
{
	if (!meta_of(in, REC_META_RAW_BUDGET))
		return;
	fprintf(f, "  %-20s %" PRIu64 " finished from stack copies (%" PRIu64 " complete), %" PRIu64
		" left as walked; %" PRIu64 " copies, %.1f MiB, budget %.1f MiB/s, %" PRIu64
		" refused by the budget\n", "no table yet",
		meta_u64(in, REC_META_RAW_FINISHED), meta_u64(in, REC_META_RAW_COMPLETE),
		meta_u64(in, REC_META_RAW_GIVEN_UP), meta_u64(in, REC_META_RAW_SAMPLES),
		meta_u64(in, REC_META_RAW_BYTES) / 1048576.0,
		meta_u64(in, REC_META_RAW_BUDGET) / 1048576.0, meta_u64(in, REC_META_RAW_OVER));
}

/* Of n "no CFI" counts, those in binaries whose table was refused (meta key). */
static uint64_t refused_of(const struct info *in, const char *key, uint64_t n)
{
	uint64_t r = meta_u64(in, key);

	return r < n ? r : n;
}

/* How user stacks were unwound (--call-graph dwarf recordings only). */
static void print_unwind_text(const struct info *in, FILE *f)
{
	const struct rec_unwind *u = &in->unw;
	uint64_t complete = u->stop[REC_UNW_STOP_END] + u->stop[REC_UNW_STOP_ZERO];
	uint64_t fb = u->fallback[0] + u->fallback[1] + u->fallback[2];
	const char *budget = meta_of(in, REC_META_UNWIND_BUDGET);
	/* a table over the budget is no missing CFI: counted apart */
	uint64_t fb_ref = refused_of(in, REC_META_UNWIND_FB_REFUSED, u->fallback[1]);
	uint64_t stop_ref = refused_of(in, REC_META_UNWIND_STOP_REFUSED,
				       u->stop[REC_UNW_STOP_NO_CFI]);
	uint64_t b = 0;
	size_t i;

	if (!in->has_unwind)
		return;
	if (budget)
		parse_u64(budget, 0, UINT64_MAX, &b);
	fprintf(f, "\nuser stacks unwound with tables: %" PRIu64 "\n", u->walks);
	fprintf(f, "  %-20s %" PRIu64 " (%.1f%%): outermost frame %" PRIu64 ", zero return address %"
		PRIu64 "\n", "complete", complete, pct(complete, u->walks),
		u->stop[REC_UNW_STOP_END], u->stop[REC_UNW_STOP_ZERO]);
	fprintf(f, "  %-20s %" PRIu64 " (%.1f%%)\n", "truncated (depth)", u->stop[REC_UNW_STOP_DEPTH],
		pct(u->stop[REC_UNW_STOP_DEPTH], u->walks));
	fprintf(f, "  %-20s %" PRIu64 " (%.1f%%): unreadable memory %" PRIu64 ", bad stack pointer %"
		PRIu64 ", no table %" PRIu64 ", no CFI %" PRIu64 ", table over the budget %" PRIu64
		", no registers %" PRIu64 "\n",
		"stopped", unw_stopped(u), pct(unw_stopped(u), u->walks),
		u->stop[REC_UNW_STOP_UNREADABLE], u->stop[REC_UNW_STOP_BAD_SP],
		u->stop[REC_UNW_STOP_NO_TABLE], u->stop[REC_UNW_STOP_NO_CFI] - stop_ref, stop_ref,
		u->stop[REC_UNW_STOP_NO_REGS]);
	fprintf(f, "  %-20s %" PRIu64 " (%.1f%%): no table yet %" PRIu64 ", no CFI %" PRIu64
		", table over the budget %" PRIu64 " (%" PRIu64 " binaries), no mapping %" PRIu64
		"\n", "frame-pointer steps", fb, pct(fb, u->walks), u->fallback[0],
		u->fallback[1] - fb_ref, fb_ref, meta_u64(in, REC_META_UNWIND_REFUSED),
		u->fallback[2]);
	fprintf(f, "  %-20s %" PRIu64 " by table, %" PRIu64 " by frame pointer\n", "frames",
		u->frames_table, u->frames_fp);
	fprintf(f, "  %-20s %" PRIu64 " rows, %.1f MiB at most of a %.0f MiB budget, built in %.1f ms\n",
		"tables", u->table_rows, u->table_bytes / 1048576.0, b / 1048576.0,
		u->build_ns / 1e6);
	print_raw_text(in, f);
	if (!in->nr_unw_bins)
		return;
	fprintf(f, "%-40s %8s %8s %9s %8s %8s %9s  %s\n", "BUILD-ID", "ENDED", "COMPLETE",
		"TRUNCATED", "STOPPED", "FP-STEP", "ROWS", "PATH");
	for (i = 0; i < in->nr_unw_bins; i++) {
		const struct rec_unwind *r = &in->unw_bins[i].u;

		fprintf(f, "%-40s %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %8" PRIu64 " %8" PRIu64
			" %9" PRIu64 "  %s\n", in->unw_bins[i].build_id[0] ? in->unw_bins[i].build_id : "-",
			r->walks, r->stop[REC_UNW_STOP_END] + r->stop[REC_UNW_STOP_ZERO],
			r->stop[REC_UNW_STOP_DEPTH], unw_stopped(r),
			r->fallback[0] + r->fallback[1] + r->fallback[2], r->table_rows, r->path);
	}
}

/* With -a every tick is a sample; with a filter, ticks of other tasks are no loss. */
static bool ticks_are_samples(const struct info *in)
{
	return in->has_ticks && in->tb.expected && in->tb.kept == in->tb.fired;
}

static uint64_t lost_total(const struct info *in)
{
	/* a tick that did not fire is no lost sample: idle CPUs stop their timer */
	return in->lost_samples + (ticks_are_samples(in) ? in->tb.throttled : 0);
}

/* Samples the BPF program kept that are neither in the file nor counted lost. */
static uint64_t unaccounted(const struct info_cpu *c)
{
	uint64_t known = c->taken + c->ringbuf_full;

	return c->ticks.kept > known ? c->ticks.kept - known : 0;
}

/* The reasons for a CPU's gap between expected ticks and samples taken. */
static void gap_text(const struct info_cpu *c, const struct tick_breakdown *b, char *buf,
		     size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	if (b->throttled)
		strbuf_addstr(&sb, "throttled, ");
	if (b->missed)
		strbuf_addstr(&sb, "late timer, ");
	if (c->ringbuf_full)
		strbuf_addstr(&sb, "ring buffer full, ");
	if (b->fired > b->kept)
		strbuf_addstr(&sb, "other tasks, ");
	if (unaccounted(c))
		strbuf_addstr(&sb, "unaccounted, ");
	if (sb.len >= 2)
		sb.buf[sb.len - 2] = '\0';
	snprintf(buf, len, "%s", sb.len ? sb.buf : "none");
	strbuf_release(&sb);
}

/* Whether the CPU of c has ticks; b their breakdown when it has. */
static bool cpu_ticks(const struct info_cpu *c, struct tick_breakdown *b)
{
	if (!c->ticks.period_ns)
		return false;
	memset(b, 0, sizeof(*b));
	rec_ticks__explain(&c->ticks, b);
	return true;
}

static void print_ticks_text(const struct info *in, FILE *f)
{
	struct tick_breakdown b;
	char gap[128];
	size_t i;

	if (!in->has_ticks) {
		fprintf(f, "\nticks: not recorded (format v1)\n");
		return;
	}
	if (!in->tb.expected) {
		fprintf(f, "\nticks: none recorded\n");
		return;
	}
	fprintf(f, "\nticks: %" PRIu64 " expected, %" PRIu64 " fired, %" PRIu64 " throttled "
		"(%" PRIu64 " times), %" PRIu64 " did not fire (idle CPUs stop their timer; else a "
		"late timer)\n", in->tb.expected,
		in->tb.fired, in->tb.throttled, in->tb.throttles, in->tb.missed);
	fprintf(f, "%-5s %10s %10s %10s %10s %10s %10s %10s  %s\n", "CPU", "EXPECTED", "TAKEN",
		"THROTTLED", "MISSED", "RINGBUF", "OTHERTASK", "UNACCOUNTD", "GAP");
	for (i = 0; i < in->nr_cpus; i++) {
		const struct info_cpu *c = &in->cpus[i];

		if (!cpu_ticks(c, &b))
			continue;
		gap_text(c, &b, gap, sizeof(gap));
		fprintf(f, "%-5zu %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
			" %10" PRIu64 " %10" PRIu64 "  %s\n", i, b.expected, c->taken, b.throttled,
			b.missed, c->ringbuf_full, b.fired - b.kept, unaccounted(c), gap);
	}
}

static void print_text(const struct info *in, FILE *f)
{
	char how[8192];
	uint64_t d;
	size_t i;

	fprintf(f, "%-22s %s\n", "file", in->path);
	fprintf(f, "%-22s %d\n", "format version", in->version);
	fprintf(f, "%-22s %s\n", "finished", in->finished ? "yes" : "no (read up to its last chunk)");
	for (i = 0; i < NR_META; i++)
		fprintf(f, "%-22s %s\n", meta_fields[i].label, in->meta[i] ? in->meta[i] : "-");
	fprintf(f, "%-22s %u\n", "NUMA nodes", numa_nodes(meta_of(in, REC_META_NUMA_MAP)));
	if (duration_ns(in, &d))
		fprintf(f, "%-22s %" PRIu64 ".%03" PRIu64 " s\n", "duration", d / 1000000000,
			d / 1000000 % 1000);
	else
		fprintf(f, "%-22s -\n", "duration");
	fprintf(f, "%-22s %" PRIu64 "\n", "samples", in->samples);
	if (ticks_are_samples(in))
		fprintf(f, "%-22s %" PRIu64 " (%" PRIu64 " throttled, %" PRIu64 " ring buffer "
			"full)\n", "lost samples", lost_total(in), in->tb.throttled, in->lost_samples);
	else if (in->has_ticks && in->lost_samples)
		fprintf(f, "%-22s %" PRIu64 " (the ring buffer was full)\n", "lost samples",
			in->lost_samples);
	else
		fprintf(f, "%-22s %" PRIu64 "\n", "lost samples", in->lost_samples);
	fprintf(f, "%-22s %" PRIu64 " (user %" PRIu64 ", kernel %" PRIu64 ")\n", "dropped stacks",
		in->lost_ustacks + in->lost_kstacks, in->lost_ustacks, in->lost_kstacks);
	fprintf(f, "%-22s %" PRIu64 "\n", "truncated stacks", in->truncated_stacks);
	fprintf(f, "%-22s %" PRIu64 "\n", "lost side-band events", in->lost_sideband);
	fprintf(f, "%-22s %" PRIu64 "\n", "processes sampled", in->processes);
	fprintf(f, "%-22s %zu binaries, %zu symbols", "symbols stored", in->stored_binaries,
		in->stored_symbols);
	if (in->stored_fdes)
		fprintf(f, ", %zu function starts of stripped code", in->stored_fdes);
	fprintf(f, "\n%-22s %" PRIu64 " of %" PRIu64 "\n", "unresolved frames", in->unresolved,
		in->frames);
	if (in->sym)
		sym_sources__print(symbolizer__stats(in->sym)->by_source, "frames named by       ",
				   f);
	print_unwind_text(in, f);
	fprintf(f, "%-22s %zu\n", "JIT maps cut", in->nr_cuts);
	for (i = 0; i < in->nr_cuts; i++) {
		const struct rec_jit_cut *c = &in->cuts[i].c;

		fprintf(f, "  %s (pid %u): kept %" PRIu64 " symbols (%" PRIu64 " bytes), dropped %s%"
			PRIu64 " lines (%" PRIu64 " bytes)\n", c->path, c->tgid, c->kept_symbols,
			c->kept_bytes, c->dropped_lines_exact ? "" : "at least ", c->dropped_lines,
			c->dropped_bytes);
	}
	if (in->has_offcpu)
		fprintf(f, "%-22s %" PRIu64 " kept with their times (>= %" PRIu64 " us), %" PRIu64
			" summed; blocked %.3f s, runnable %.3f s; %" PRIu64 " lost (%.3f s), %"
			PRIu64 " not followed, %" PRIu64 " without their stack\n", "off-CPU intervals",
			in->oc_intervals, in->offcpu_thresh_ns / 1000, in->oc_summed,
			(double)in->oc_state_ns[REC_OFFCPU_BLOCKED] / 1e9,
			(double)in->oc_state_ns[REC_OFFCPU_RUNNABLE] / 1e9, in->oc_loss.lost,
			(double)in->oc_loss.lost_ns / 1e9, in->oc_loss.untracked,
			in->oc_loss.lost_stacks);
	if (in->has_cgroups)
		fprintf(f, "%-22s %" PRIu64 " named, %" PRIu64 " thread rows\n", "cgroups",
			in->cgroups_named, in->cgroup_rows);
	print_ticks_text(in, f);
	fprintf(f, "\nbinaries: %zu\n", in->nr_bins);
	if (!in->nr_bins)
		return;
	fprintf(f, "%-40s %10s %10s  %-40s %s\n", "BUILD-ID", "FRAMES", "UNRESOLVED", "PATH",
		"SYMBOLS");
	for (i = 0; i < in->nr_bins; i++) {
		const struct info_binary *b = &in->bins[i];

		how_text(b, how, sizeof(how));
		fprintf(f, "%-40s %10" PRIu64 " %10" PRIu64 "  %-40s %s", b->build_id[0] ? b->build_id : "-",
			b->frames, b->unresolved, b->path, how);
		if (b->why)
			fprintf(f, " (unresolved: %s)", b->why);
		fputc('\n', f);
	}
}

/*
 * The text report, every string from the recording in it (paths, comms,
 * the command line, the host name, build-ids, meta values) escaped as
 * `ls -b` shows names (util/escape.h): the report is written to memory,
 * then each line is written escaped, so no string can carry an escape
 * sequence to the terminal whichever printf wrote it.
 */
static int print_text_escaped(const struct info *in, FILE *out)
{
	char *buf = NULL, *p, *nl;
	size_t len = 0;
	FILE *m;

	m = open_memstream(&buf, &len);
	if (!m)
		return -ENOMEM;
	print_text(in, m);
	if (fclose(m)) {
		free(buf);
		return -ENOMEM;
	}
	for (p = buf; p < buf + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		if (!nl)
			nl = buf + len;
		escape_fwrite(out, p, (size_t)(nl - p));
		if (nl < buf + len)
			fputc('\n', out);
	}
	free(buf);
	return 0;
}

/* --- JSON ----------------------------------------------------------------- */


static void json_unwind_counts(FILE *f, const struct rec_unwind *u)
{
	static const char *const stops[REC_UNW_STOP_MAX] = {
		"end", "zero", "depth", "unreadable", "bad_sp", "no_table", "no_cfi", "no_regs",
	};
	static const char *const fbs[REC_UNW_FB_MAX] = { "no_table", "no_cfi", "no_mapping" };
	size_t i;

	fprintf(f, "\"walks\":%" PRIu64 ",\"frames_table\":%" PRIu64 ",\"frames_fp\":%" PRIu64,
		u->walks, u->frames_table, u->frames_fp);
	fputs(",\"stopped\":{", f);
	for (i = 0; i < REC_UNW_STOP_MAX; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", stops[i], u->stop[i]);
	fputs("},\"fallback\":{", f);
	for (i = 0; i < REC_UNW_FB_MAX; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", fbs[i], u->fallback[i]);
	fprintf(f, "},\"table_rows\":%" PRIu64 ",\"table_bytes\":%" PRIu64 ",\"build_ns\":%" PRIu64,
		u->table_rows, u->table_bytes, u->build_ns);
}

static void print_unwind_json(const struct info *in, FILE *f)
{
	size_t i;

	if (!in->has_unwind) {
		fputs(",\"unwind\":null", f);
		return;
	}
	fputs(",\"unwind\":{", f);
	json_unwind_counts(f, &in->unw);
	fputs(",\"binaries\":[", f);
	for (i = 0; i < in->nr_unw_bins; i++) {
		fputs(i ? ",{\"build_id\":" : "{\"build_id\":", f);
		json_put_str(f, in->unw_bins[i].build_id[0] ? in->unw_bins[i].build_id : NULL);
		fputs(",\"path\":", f);
		json_put_str(f, in->unw_bins[i].u.path);
		fputc(',', f);
		json_unwind_counts(f, &in->unw_bins[i].u);
		fputc('}', f);
	}
	fputs("]}", f);
}

static void json_meta(FILE *f, const struct meta_field *mf, const char *v)
{
	uint64_t n;

	if (mf->kind == META_NUMBER) {
		if (v && !parse_u64(v, 0, UINT64_MAX, &n))
			fprintf(f, "%" PRIu64, n);
		else
			fputs("null", f);
	} else {
		json_put_str(f, v);
	}
}

static void print_ticks_json(const struct info *in, FILE *f)
{
	struct tick_breakdown b;
	size_t i;
	bool first = true;

	if (!in->has_ticks) {
		fputs(",\"ticks\":null", f);
		return;
	}
	fprintf(f, ",\"ticks\":{\"expected\":%" PRIu64 ",\"fired\":%" PRIu64
		",\"throttled\":%" PRIu64 ",\"throttles\":%" PRIu64 ",\"missed\":%" PRIu64
		",\"other_tasks\":%" PRIu64 ",\"cpus\":[", in->tb.expected, in->tb.fired,
		in->tb.throttled, in->tb.throttles, in->tb.missed, in->tb.fired - in->tb.kept);
	for (i = 0; i < in->nr_cpus; i++) {
		const struct info_cpu *c = &in->cpus[i];

		if (!cpu_ticks(c, &b))
			continue;
		fprintf(f, "%s{\"cpu\":%zu,\"period_ns\":%" PRIu64 ",\"expected\":%" PRIu64
			",\"taken\":%" PRIu64 ",\"throttled\":%" PRIu64 ",\"throttles\":%" PRIu64
			",\"missed\":%" PRIu64 ",\"ring_buffer_full\":%" PRIu64
			",\"other_tasks\":%" PRIu64 ",\"unaccounted\":%" PRIu64 "}",
			first ? "" : ",", i, c->ticks.period_ns, b.expected, c->taken, b.throttled,
			b.throttles, b.missed, c->ringbuf_full, b.fired - b.kept, unaccounted(c));
		first = false;
	}
	fputs("]}", f);
}

/* JSON: the JIT maps that were cut, each with what was kept and dropped. */
static void print_cuts_json(const struct info *in, FILE *f)
{
	size_t i;

	fputs(",\"jit_map_cuts\":[", f);
	for (i = 0; i < in->nr_cuts; i++) {
		const struct rec_jit_cut *c = &in->cuts[i].c;

		fprintf(f, "%s{\"tgid\":%u,\"path\":", i ? "," : "", c->tgid);
		json_put_str(f, c->path);
		fprintf(f, ",\"kept_bytes\":%" PRIu64 ",\"kept_symbols\":%" PRIu64
			",\"dropped_bytes\":%" PRIu64 ",\"dropped_lines\":%" PRIu64
			",\"dropped_lines_exact\":%s}", c->kept_bytes, c->kept_symbols,
			c->dropped_bytes, c->dropped_lines, c->dropped_lines_exact ? "true" : "false");
	}
	fputc(']', f);
}

/* JSON: each binary, where its names come from and its unresolved frames. */
static void print_binaries_json(const struct info *in, FILE *f)
{
	size_t i;

	fputs(",\"binaries\":[", f);
	for (i = 0; i < in->nr_bins; i++) {
		const struct info_binary *b = &in->bins[i];

		fputs(i ? ",{\"build_id\":" : "{\"build_id\":", f);
		json_put_str(f, b->build_id[0] ? b->build_id : NULL);
		fputs(",\"path\":", f);
		json_put_str(f, b->path);
		fputs(",\"symbolized\":", f);
		json_put_str(f, b->embedded && b->local ? "embedded+local" : b->embedded ? "embedded"
			    : b->local ? "local" : b->embedded_dwarf ? "embedded" : "missing");
		fputs(",\"embedded\":", f);
		json_put_str(f, b->embedded);
		fputs(",\"local\":", f);
		json_put_str(f, b->local);
		fprintf(f, ",\"frames\":%" PRIu64 ",\"unresolved\":%" PRIu64 ",\"unresolved_why\":",
			b->frames, b->unresolved);
		json_put_str(f, b->why);
		fprintf(f, ",\"embedded_dwarf\":%s}", b->embedded_dwarf ? "true" : "false");
	}
}

static void print_json(const struct info *in, FILE *f)
{
	uint64_t d;
	size_t i;

	fputs("{\"file\":", f);
	json_put_str(f, in->path);
	fprintf(f, ",\"format_version\":%d,\"finished\":%s", in->version,
		in->finished ? "true" : "false");
	for (i = 0; i < NR_META; i++) {
		fputs(",", f);
		json_put_str(f, meta_fields[i].key);
		fputs(":", f);
		json_meta(f, &meta_fields[i], in->meta[i]);
	}
	if (duration_ns(in, &d))
		fprintf(f, ",\"duration_ns\":%" PRIu64, d);
	else
		fputs(",\"duration_ns\":null", f);
	fprintf(f,
		",\"samples\":%" PRIu64 ",\"lost_samples\":%" PRIu64 ",\"dropped_stacks\":%" PRIu64
		",\"lost_ustacks\":%" PRIu64 ",\"lost_kstacks\":%" PRIu64
		",\"truncated_stacks\":%" PRIu64 ",\"lost_sideband\":%" PRIu64
		",\"processes\":%" PRIu64,
		in->samples, lost_total(in), in->lost_ustacks + in->lost_kstacks, in->lost_ustacks,
		in->lost_kstacks, in->truncated_stacks, in->lost_sideband, in->processes);
	fprintf(f, ",\"lost_ring_buffer_full\":%" PRIu64, in->lost_samples);
	print_ticks_json(in, f);
	fprintf(f, ",\"numa_nodes\":%u,\"stored_binaries\":%zu,\"stored_symbols\":%zu"
		",\"frames\":%" PRIu64 ",\"unresolved_frames\":%" PRIu64,
		numa_nodes(meta_of(in, REC_META_NUMA_MAP)), in->stored_binaries, in->stored_symbols,
		in->frames, in->unresolved);
	fprintf(f, ",\"stored_function_starts\":%zu,\"frames_by_source\":{", in->stored_fdes);
	for (i = 0; i < SYM_SRC_MAX; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", sym_source__key((enum sym_source)i),
			in->sym ? symbolizer__stats(in->sym)->by_source[i] : 0);
	fputc('}', f);
	print_unwind_json(in, f);
	if (in->has_offcpu)
		fprintf(f, ",\"off_cpu\":{\"thresh_ns\":%" PRIu64 ",\"intervals\":%" PRIu64
			",\"summed\":%" PRIu64 ",\"blocked_ns\":%" PRIu64 ",\"runnable_ns\":%" PRIu64
			",\"lost\":%" PRIu64 ",\"lost_ns\":%" PRIu64 ",\"untracked\":%" PRIu64
			",\"lost_stacks\":%" PRIu64 "}", in->offcpu_thresh_ns, in->oc_intervals,
			in->oc_summed, in->oc_state_ns[REC_OFFCPU_BLOCKED],
			in->oc_state_ns[REC_OFFCPU_RUNNABLE], in->oc_loss.lost, in->oc_loss.lost_ns,
			in->oc_loss.untracked, in->oc_loss.lost_stacks);
	if (in->has_cgroups)
		fprintf(f, ",\"cgroups\":{\"named\":%" PRIu64 ",\"thread_rows\":%" PRIu64 "}",
			in->cgroups_named, in->cgroup_rows);
	print_cuts_json(in, f);
	print_binaries_json(in, f);
	fputs("]}\n", f);
}

/* --- the command ---------------------------------------------------------- */

static void print_info_usage(FILE *f)
{
	fprintf(f, "usage: eprof info [FILE | -i FILE] [--json] [--debug-dir DIR]...\n\n"
		   "   FILE, -i, --input FILE  the recording (default: eprof.data); -i as report\n"
		   "                    takes it\n"
		   "   --json           one JSON object instead of text\n"
		   "   --debug-dir DIR  where report would look for debug files first\n"
		   "   -h, --help       this text\n");
}

enum { OPT_JSON = 0x100, OPT_DEBUG_DIR };

#define MAX_DEBUG_DIRS	64

static const struct option info_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_info(int argc, char **argv)
{
	struct recording *rec = NULL;
	struct info in = { 0 };
	const char *path = "eprof.data";
	static const char *debug_dirs[MAX_DEBUG_DIRS];
	struct sym_opts so = { .local = true, .debug_dirs = debug_dirs };
	bool json = false, named = false;
	int opt, err, status = EXIT_FAIL;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":hi:", info_options, NULL)) != -1) {
		switch (opt) {
		case OPT_DEBUG_DIR:
			if (!optarg[0] || so.nr_debug_dirs == MAX_DEBUG_DIRS) {
				pr_err("%s --debug-dir (see 'eprof info --help')",
				       optarg[0] ? "too many" : "an empty directory name for");
				return EXIT_USAGE;
			}
			debug_dirs[so.nr_debug_dirs++] = optarg;
			break;
		case 'i':
			/* perf's habit and report's spelling: one recording only */
			if (named) {
				pr_err("info reads one recording (see 'eprof info --help')");
				return EXIT_USAGE;
			}
			path = optarg;
			named = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			print_info_usage(stdout);
			return EXIT_OK;
		case ':':
			pr_err("option '%s' needs a value (see 'eprof info --help')",
			       argv[optind - 1]);
			return EXIT_USAGE;
		default:
			if (optopt > 0 && optopt < 0x80)
				pr_err("unknown option '-%c' (see 'eprof info --help')", optopt);
			else
				pr_err("unknown option '%s' (see 'eprof info --help')",
				       argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc && !named)
		path = argv[optind++];
	if (optind < argc) {
		pr_err("unexpected argument '%s' (see 'eprof info --help')", argv[optind]);
		return EXIT_USAGE;
	}

	err = recording__open(path, &rec);
	if (err)
		goto out;
	err = info__gather(&in, rec, &so);
	if (err)
		goto out;
	if (json)
		print_json(&in, stdout);
	else if (print_text_escaped(&in, stdout)) {
		pr_errno(-ENOMEM, "cannot describe '%s'", path);
		goto out;
	}
	status = EXIT_OK;
out:
	info__release(&in);
	recording__close(rec);
	return status;
}
