// SPDX-License-Identifier: MIT
/*
 * report/cmd_info.c - `eprof info [FILE] [--json]`: what a recording holds.
 *
 * The facts are gathered once into struct info, then printed by one of two
 * printers, text or JSON, so the two cannot drift apart (bpftool's rule:
 * every printer has a JSON twin). Metadata values are text in the file;
 * the ones that are numbers are printed as JSON numbers when they parse.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/report.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/status.h"

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
};

#define NR_META (sizeof(meta_fields) / sizeof(meta_fields[0]))

struct info_binary {
	char build_id[2 * REC_BUILD_ID_MAX + 1];	/* hex, "" when none */
	char *path;
	char *source;
	size_t nr_symbols;
	size_t nr_segments;
};

struct info {
	const char *path;
	bool finished;
	char *meta[NR_META];		/* NULL when absent */
	uint64_t samples;
	uint64_t lost_samples;
	uint64_t lost_ustacks;
	uint64_t lost_kstacks;
	uint64_t truncated_stacks;
	uint64_t lost_sideband;
	uint64_t processes;		/* distinct tgids with samples */
	struct info_binary *bins;
	size_t nr_bins;
	size_t alloc_bins;
	/* distinct tgids: open addressing, value + 1 (0 = empty) */
	uint64_t *tgids;
	size_t tgids_cap;
};

static void info__release(struct info *in)
{
	size_t i;

	for (i = 0; i < NR_META; i++)
		free(in->meta[i]);
	for (i = 0; i < in->nr_bins; i++) {
		free(in->bins[i].path);
		free(in->bins[i].source);
	}
	free(in->bins);
	free(in->tgids);
}

static int on_loss(void *ctx, const struct rec_loss *l)
{
	struct info *in = ctx;

	in->lost_samples += l->lost_samples;
	in->lost_ustacks += l->lost_ustacks;
	in->lost_kstacks += l->lost_kstacks;
	in->truncated_stacks += l->truncated_stacks;
	in->lost_sideband += l->lost_sideband;
	return 0;
}

static int add_tgid(struct info *in, uint32_t tgid)
{
	size_t j, i;

	if (in->processes * 2 >= in->tgids_cap) {
		size_t cap = in->tgids_cap ? in->tgids_cap * 2 : 256;
		uint64_t *t = calloc(cap, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (i = 0; i < in->tgids_cap; i++) {
			if (!in->tgids[i])
				continue;
			for (j = (in->tgids[i] * 0x9e3779b97f4a7c15ull) >> 40 & (cap - 1); t[j];
			     j = (j + 1) & (cap - 1))
				;
			t[j] = in->tgids[i];
		}
		free(in->tgids);
		in->tgids = t;
		in->tgids_cap = cap;
	}
	for (j = (((uint64_t)tgid + 1) * 0x9e3779b97f4a7c15ull) >> 40 & (in->tgids_cap - 1);
	     in->tgids[j]; j = (j + 1) & (in->tgids_cap - 1))
		if (in->tgids[j] == (uint64_t)tgid + 1)
			return 0;
	in->tgids[j] = (uint64_t)tgid + 1;
	in->processes++;
	return 0;
}

struct walk_ctx {
	struct info *in;
	int err;			/* ours, unprinted */
};

static int on_sample(void *ctx, const struct rec_sample *s)
{
	struct walk_ctx *w = ctx;

	return w->err = add_tgid(w->in, s->tgid);
}

static int on_binary(void *ctx, const struct rec_binary *b)
{
	struct walk_ctx *w = ctx;
	struct info *in = w->in;
	struct info_binary *ib;
	uint32_t i, len;

	if (in->nr_bins == in->alloc_bins) {
		size_t n = in->alloc_bins ? in->alloc_bins * 2 : 16;

		ib = reallocarray(in->bins, n, sizeof(*ib));
		if (!ib)
			return w->err = -ENOMEM;
		in->bins = ib;
		in->alloc_bins = n;
	}
	ib = &in->bins[in->nr_bins];
	memset(ib, 0, sizeof(*ib));
	len = b->build_id_len > REC_BUILD_ID_MAX ? REC_BUILD_ID_MAX : b->build_id_len;
	for (i = 0; i < len; i++)
		snprintf(ib->build_id + 2 * i, 3, "%02x", b->build_id[i]);
	ib->path = strdup(b->path ? b->path : "");
	ib->source = strdup(b->source ? b->source : "");
	ib->nr_symbols = b->nr_symbols;
	ib->nr_segments = b->nr_segments;
	in->nr_bins++;
	if (!ib->path || !ib->source)
		return w->err = -ENOMEM;
	return 0;
}

static int info__gather(struct info *in, struct recording *rec)
{
	struct walk_ctx w = { in, 0 };
	size_t i;
	int err;

	in->path = recording__path(rec);
	in->finished = recording__is_finished(rec);
	for (i = 0; i < NR_META; i++) {
		err = recording__get_meta(rec, meta_fields[i].key, &in->meta[i]);
		if (err == -ENOENT)
			continue;
		if (err)
			return err;
	}
	err = recording__sample_count(rec, &in->samples);
	if (!err)
		err = recording__for_each_loss(rec, on_loss, in);
	if (!err)
		err = recording__for_each_sample(rec, on_sample, &w);
	if (!err)
		err = recording__for_each_binary(rec, on_binary, &w);
	if (err && w.err)
		return pr_errno(err, "cannot describe '%s'", in->path);
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

static void print_text(const struct info *in, FILE *f)
{
	uint64_t d;
	size_t i;

	fprintf(f, "%-22s %s\n", "file", in->path);
	fprintf(f, "%-22s %d\n", "format version", REC_SCHEMA_VERSION);
	fprintf(f, "%-22s %s\n", "finished", in->finished ? "yes" : "no (read up to its last chunk)");
	for (i = 0; i < NR_META; i++)
		fprintf(f, "%-22s %s\n", meta_fields[i].label, in->meta[i] ? in->meta[i] : "-");
	if (duration_ns(in, &d))
		fprintf(f, "%-22s %" PRIu64 ".%03" PRIu64 " s\n", "duration", d / 1000000000,
			d / 1000000 % 1000);
	else
		fprintf(f, "%-22s -\n", "duration");
	fprintf(f, "%-22s %" PRIu64 "\n", "samples", in->samples);
	fprintf(f, "%-22s %" PRIu64 "\n", "lost samples", in->lost_samples);
	fprintf(f, "%-22s %" PRIu64 " (user %" PRIu64 ", kernel %" PRIu64 ")\n", "dropped stacks",
		in->lost_ustacks + in->lost_kstacks, in->lost_ustacks, in->lost_kstacks);
	fprintf(f, "%-22s %" PRIu64 "\n", "truncated stacks", in->truncated_stacks);
	fprintf(f, "%-22s %" PRIu64 "\n", "lost side-band events", in->lost_sideband);
	fprintf(f, "%-22s %" PRIu64 "\n", "processes sampled", in->processes);
	fprintf(f, "\nbinaries: %zu\n", in->nr_bins);
	if (!in->nr_bins)
		return;
	fprintf(f, "%-40s %8s  %-10s %s\n", "BUILD-ID", "SYMBOLS", "SOURCE", "PATH");
	for (i = 0; i < in->nr_bins; i++) {
		const struct info_binary *b = &in->bins[i];

		fprintf(f, "%-40s %8zu  %-10s %s\n", b->build_id[0] ? b->build_id : "-",
			b->nr_symbols, b->source[0] ? b->source : "-", b->path);
	}
}

/* --- JSON ----------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
	const unsigned char *p;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);	/* UTF-8 passes through; other bytes as is */
		}
	}
	fputc('"', f);
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
		json_str(f, v);
	}
}

static void print_json(const struct info *in, FILE *f)
{
	uint64_t d;
	size_t i;

	fputs("{\"file\":", f);
	json_str(f, in->path);
	fprintf(f, ",\"format_version\":%d,\"finished\":%s", REC_SCHEMA_VERSION,
		in->finished ? "true" : "false");
	for (i = 0; i < NR_META; i++) {
		fputs(",", f);
		json_str(f, meta_fields[i].key);
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
		in->samples, in->lost_samples, in->lost_ustacks + in->lost_kstacks, in->lost_ustacks,
		in->lost_kstacks, in->truncated_stacks, in->lost_sideband, in->processes);
	fputs(",\"binaries\":[", f);
	for (i = 0; i < in->nr_bins; i++) {
		const struct info_binary *b = &in->bins[i];

		fputs(i ? ",{\"build_id\":" : "{\"build_id\":", f);
		json_str(f, b->build_id[0] ? b->build_id : NULL);
		fputs(",\"path\":", f);
		json_str(f, b->path);
		fputs(",\"source\":", f);
		json_str(f, b->source);
		fprintf(f, ",\"symbols\":%zu,\"segments\":%zu}", b->nr_symbols, b->nr_segments);
	}
	fputs("]}\n", f);
}

/* --- the command ---------------------------------------------------------- */

static void print_info_usage(FILE *f)
{
	fprintf(f, "usage: eprof info [FILE] [--json]\n\n"
		   "   FILE       the recording (default: eprof.data)\n"
		   "   --json     one JSON object instead of text\n"
		   "   -h, --help this text\n");
}

enum { OPT_JSON = 0x100 };

static const struct option info_options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_info(int argc, char **argv)
{
	struct recording *rec = NULL;
	struct info in = { 0 };
	const char *path = "eprof.data";
	bool json = false;
	int opt, err, status = EXIT_FAIL;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", info_options, NULL)) != -1) {
		switch (opt) {
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			print_info_usage(stdout);
			return EXIT_OK;
		default:
			if (optopt > 0 && optopt < 0x80)
				pr_err("unknown option '-%c' (see 'eprof info --help')", optopt);
			else
				pr_err("unknown option '%s' (see 'eprof info --help')",
				       argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc) {
		pr_err("unexpected argument '%s' (see 'eprof info --help')", argv[optind]);
		return EXIT_USAGE;
	}

	err = recording__open(path, &rec);
	if (err)
		goto out;
	err = info__gather(&in, rec);
	if (err)
		goto out;
	if (json)
		print_json(&in, stdout);
	else
		print_text(&in, stdout);
	status = EXIT_OK;
out:
	info__release(&in);
	recording__close(rec);
	return status;
}
