// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_pprof.c - the pprof emitter, checked by independent readers.
 *
 * The gzip layer (zlib) is checked by the gzip program (`gzip -dc`),
 * which verifies the CRC and length itself. The
 * protobuf is decoded by a small reader written here from profile.proto's
 * field numbers, not from the writer's code. When `go` is installed,
 * `go tool pprof -top` reads the profile too and its flat and cum columns
 * must match what the test added; without go that check is skipped with a
 * note on stdout.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "format/recording.h"
#include "report/output/pprof.h"
#include "report/pipeline.h"
#include "tests/unit/harness.h"

#define PERIOD_NS	1000000ull	/* 1 ms: 1000 Hz */
#define TIME_NS		1700000000123456789ull
#define DURATION_NS	5000000000ull

/* ---- helpers: files and the gzip program ------------------------------- */

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int err = 0;

	if (!f)
		return -errno;
	if (len && fwrite(data, 1, len, f) != len)
		err = -EIO;
	if (fclose(f))
		err = -EIO;
	return err;
}

/* Runs cmd and collects its stdout; returns its exit status (-1 if it could not run). */
static int run_capture(const char *cmd, unsigned char **out, size_t *out_len)
{
	unsigned char *buf = NULL, *p;
	size_t len = 0, cap = 0, n;
	FILE *f = popen(cmd, "r");
	int status;

	*out = NULL;
	*out_len = 0;
	if (!f)
		return -1;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			p = realloc(buf, cap);
			if (!p)
				break;
			buf = p;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	status = pclose(f);
	if (buf)
		buf[len] = 0;	/* text output can be used as a string */
	*out = buf;
	*out_len = len;
	return status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Writes a profile to a file in the test directory; returns its path, in a
 * static buffer of its own (path_in's is reused by the next call).
 */
static const char *write_profile(struct pprof_builder *b, const char *name)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s", path_in(name));
	f = fopen(path, "wb");

	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK_OK(pprof__write(b, f));
	CHECK(fclose(f) == 0);
	return path;
}

/* The decompressed contents of a gzip file, by the gzip program; NULL on failure. */
static unsigned char *gunzip(const char *path, size_t *len)
{
	unsigned char *buf;
	char cmd[600];
	int rc;

	snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", path);
	rc = run_capture(cmd, &buf, len);
	CHECK_EQ_U64(rc, 0);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- gzip ---------------------------------------------------------------- */

static void fill_pattern(unsigned char *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (unsigned char)(seed >> 16);
	}
}

static void gzip_round_trips_through_gzip_program(void)
{
	/* empty, small, around zlib's 64 KiB output chunk, and larger */
	static const size_t sizes[] = { 0, 1, 100, 65534, 65535, 65536, 2 * 65535 + 7, 300000 };
	unsigned char *data = malloc(300000), *got;
	const char *path = path_in("data.gz");
	size_t i, got_len;
	FILE *f;

	CHECK(data != NULL);
	if (!data)
		return;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		fill_pattern(data, sizes[i], (uint32_t)i + 1);
		f = fopen(path, "wb");
		CHECK(f != NULL);
		if (!f)
			break;
		CHECK_OK(pprof__gzip_write(data, sizes[i], f));
		CHECK(fclose(f) == 0);
		got = gunzip(path, &got_len);
		CHECK_EQ_U64(got_len, sizes[i]);
		CHECK(got && got_len == sizes[i] && !memcmp(got, data, sizes[i]));
		free(got);
	}
	free(data);
}

/* gzip must refuse a damaged member, so the round trip above really checks CRC and ISIZE. */
static void gzip_program_rejects_a_damaged_member(void)
{
	unsigned char data[1000], *gz = NULL, *out;
	const char *path = path_in("bad.gz");
	char cmd[600];
	size_t gz_len = 0, out_len;
	FILE *f = open_memstream((char **)&gz, &gz_len);

	CHECK(f != NULL);
	if (!f)
		return;
	fill_pattern(data, sizeof(data), 7);
	CHECK_OK(pprof__gzip_write(data, sizeof(data), f));
	CHECK(fclose(f) == 0);
	CHECK(gz_len > 10 + 8 + 100);	/* pseudo-random bytes hardly compress */
	if (gz_len <= 10 + 8 + 100)
		goto out;
	gz[gz_len / 2] ^= 0x40;		/* one bit of the compressed data */
	CHECK_OK(write_file(path, gz, gz_len));
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s' 2>/dev/null", path);
	CHECK(run_capture(cmd, &out, &out_len) != 0);
	free(out);
out:
	free(gz);
}

static void gzip_write_errors_are_reported(void)
{
	FILE *f = fopen("/dev/null", "r");	/* writes to a read-only stream fail */

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ_U64(pprof__gzip_write("x", 1, f), (uint64_t)-EIO);
	fclose(f);
}

/* ---- a protobuf reader for the fields the test checks ------------------ */

struct pb {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t pb_varint(struct pb *r)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (r->p < r->end && shift < 64) {
		unsigned char c = *r->p++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	r->bad = true;
	return 0;
}

/* One field: its number, and either its varint value or its bytes in *sub. */
static bool pb_next(struct pb *r, unsigned int *field, uint64_t *v, struct pb *sub)
{
	uint64_t key, len;

	if (r->bad || r->p >= r->end)
		return false;
	key = pb_varint(r);
	*field = (unsigned int)(key >> 3);
	switch (key & 7) {
	case 0:
		*v = pb_varint(r);
		sub->p = sub->end = NULL;
		break;
	case 2:
		len = pb_varint(r);
		if (len > (uint64_t)(r->end - r->p)) {
			r->bad = true;
			return false;
		}
		sub->p = r->p;
		sub->end = r->p + len;
		sub->bad = false;
		r->p += len;
		*v = 0;
		break;
	default:		/* the writer uses no other wire type */
		r->bad = true;
		return false;
	}
	return !r->bad;
}

#define MAX_DEC 64

struct dec_label {
	uint64_t key, str, num, unit;	/* string ids but num */
};

struct dec_sample {
	size_t nr_locs;
	uint64_t locs[16];
	size_t nr_values;
	uint64_t values[4];
	struct dec_label labels[8];
	unsigned int nr_labels;
};

struct decoded {
	bool bad;
	const char *strs[MAX_DEC * 4];
	size_t str_len[MAX_DEC * 4];
	size_t nr_strs;
	uint64_t sample_type[4][2];
	size_t nr_sample_types;
	struct dec_sample samples[MAX_DEC];
	size_t nr_samples;
	uint64_t map_file[MAX_DEC], map_build_id[MAX_DEC], map_start[MAX_DEC];
	uint64_t map_limit[MAX_DEC], map_offset[MAX_DEC];
	bool map_has_functions[MAX_DEC];
	size_t nr_maps;
	uint64_t loc_mapping[MAX_DEC], loc_function[MAX_DEC];
	uint64_t loc_line[MAX_DEC], loc_address[MAX_DEC];
	unsigned int loc_lines[MAX_DEC];
	bool loc_folded[MAX_DEC];
	size_t nr_locs;
	uint64_t func_name[MAX_DEC], func_system_name[MAX_DEC], func_file[MAX_DEC];
	uint64_t func_start_line[MAX_DEC];
	size_t nr_funcs;
	uint64_t time_ns, duration_ns, period, period_type[2];
	uint64_t value_sum[2];
	bool ids_in_order;
};

static void dec_value_type(struct pb *m, uint64_t out[2])
{
	unsigned int f;
	uint64_t v;
	struct pb sub;

	out[0] = out[1] = 0;
	while (pb_next(m, &f, &v, &sub)) {
		if (f == 1 || f == 2)
			out[f - 1] = v;
	}
}

/* A packed repeated varint field, or a single unpacked element. */
static size_t dec_packed(struct pb *sub, uint64_t v, uint64_t *arr, size_t nr, size_t max)
{
	if (!sub->p) {
		if (nr < max)
			arr[nr] = v;
		return nr + 1;
	}
	while (sub->p < sub->end && !sub->bad) {
		v = pb_varint(sub);
		if (nr < max)
			arr[nr] = v;
		nr++;
	}
	return nr;
}

static void dec_sample(struct pb *m, struct dec_sample *s)
{
	struct pb sub, lab;
	unsigned int f, lf;
	uint64_t v, lv;
	struct dec_label l;

	memset(s, 0, sizeof(*s));
	while (pb_next(m, &f, &v, &sub)) {
		if (f == 1) {
			s->nr_locs = dec_packed(&sub, v, s->locs, s->nr_locs, ARRAY_SIZE(s->locs));
		} else if (f == 2) {
			s->nr_values = dec_packed(&sub, v, s->values, s->nr_values,
						  ARRAY_SIZE(s->values));
		} else if (f == 3 && sub.p) {
			memset(&l, 0, sizeof(l));
			while (pb_next(&sub, &lf, &lv, &lab)) {
				if (lf == 1)
					l.key = lv;
				else if (lf == 2)
					l.str = lv;
				else if (lf == 3)
					l.num = lv;
				else if (lf == 4)
					l.unit = lv;
			}
			if (s->nr_labels < ARRAY_SIZE(s->labels))
				s->labels[s->nr_labels] = l;
			s->nr_labels++;
		}
	}
}

static void decode(const unsigned char *buf, size_t len, struct decoded *d)
{
	struct pb r = { buf, buf + len, false }, sub, inner;
	unsigned int f, mf;
	uint64_t v, mv, id;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->ids_in_order = true;
	while (pb_next(&r, &f, &v, &sub)) {
		switch (f) {
		case 1:
			if (d->nr_sample_types < 4)
				dec_value_type(&sub, d->sample_type[d->nr_sample_types]);
			d->nr_sample_types++;
			break;
		case 2:
			if (d->nr_samples < MAX_DEC)
				dec_sample(&sub, &d->samples[d->nr_samples]);
			d->nr_samples++;
			break;
		case 3:
			i = d->nr_maps++;
			if (i >= MAX_DEC)
				break;
			while (pb_next(&sub, &mf, &mv, &inner)) {
				if (mf == 1 && mv != i + 1)
					d->ids_in_order = false;
				if (mf == 2)
					d->map_start[i] = mv;
				if (mf == 3)
					d->map_limit[i] = mv;
				if (mf == 4)
					d->map_offset[i] = mv;
				if (mf == 5)
					d->map_file[i] = mv;
				if (mf == 6)
					d->map_build_id[i] = mv;
				if (mf == 7)
					d->map_has_functions[i] = mv;
			}
			break;
		case 4:
			i = d->nr_locs++;
			if (i >= MAX_DEC)
				break;
			while (pb_next(&sub, &mf, &mv, &inner)) {
				if (mf == 1 && mv != i + 1)
					d->ids_in_order = false;
				if (mf == 2)
					d->loc_mapping[i] = mv;
				if (mf == 3)
					d->loc_address[i] = mv;
				if (mf == 5)
					d->loc_folded[i] = mv;
				if (mf == 4 && inner.p) {
					unsigned int lf;
					uint64_t lv;
					struct pb none;

					d->loc_lines[i]++;
					while (pb_next(&inner, &lf, &lv, &none)) {
						if (lf == 1)
							d->loc_function[i] = lv;
						if (lf == 2)
							d->loc_line[i] = lv;
					}
				}
			}
			break;
		case 5:
			i = d->nr_funcs++;
			if (i >= MAX_DEC)
				break;
			while (pb_next(&sub, &mf, &mv, &inner)) {
				if (mf == 1 && mv != i + 1)
					d->ids_in_order = false;
				if (mf == 2)
					d->func_name[i] = mv;
				if (mf == 3)
					d->func_system_name[i] = mv;
				if (mf == 4)
					d->func_file[i] = mv;
				if (mf == 5)
					d->func_start_line[i] = mv;
			}
			break;
		case 6:
			if (d->nr_strs < ARRAY_SIZE(d->strs)) {
				d->strs[d->nr_strs] = (const char *)sub.p;
				d->str_len[d->nr_strs] = (size_t)(sub.end - sub.p);
			}
			d->nr_strs++;
			break;
		case 9:
			d->time_ns = v;
			break;
		case 10:
			d->duration_ns = v;
			break;
		case 11:
			dec_value_type(&sub, d->period_type);
			break;
		case 12:
			d->period = v;
			break;
		default:
			break;
		}
	}
	d->bad = r.bad || r.p != r.end || d->nr_strs > ARRAY_SIZE(d->strs) ||
		 d->nr_samples > MAX_DEC || d->nr_maps > MAX_DEC || d->nr_locs > MAX_DEC ||
		 d->nr_funcs > MAX_DEC;
	for (i = 0; i < d->nr_samples && i < MAX_DEC; i++) {
		d->value_sum[0] += d->samples[i].values[0];
		d->value_sum[1] += d->samples[i].values[1];
		for (id = 0; id < d->samples[i].nr_locs; id++) {
			if (!d->samples[i].locs[id] || d->samples[i].locs[id] > d->nr_locs)
				d->bad = true;	/* a dangling location id */
		}
	}
	for (i = 0; i < d->nr_locs && i < MAX_DEC; i++) {
		if (d->loc_mapping[i] > d->nr_maps || d->loc_function[i] > d->nr_funcs)
			d->bad = true;
	}
}

/* Does string id equal s? */
static bool dec_str_is(const struct decoded *d, uint64_t id, const char *s)
{
	return id < d->nr_strs && id < ARRAY_SIZE(d->strs) && d->str_len[id] == strlen(s) &&
	       !memcmp(d->strs[id], s, strlen(s));
}

/* The label with key name in sample s, or NULL. */
static const struct dec_label *dec_label(const struct decoded *d, const struct dec_sample *s,
					 const char *name)
{
	unsigned int i;

	for (i = 0; i < s->nr_labels && i < ARRAY_SIZE(s->labels); i++) {
		if (dec_str_is(d, s->labels[i].key, name))
			return &s->labels[i];
	}
	return NULL;
}

/* Decompresses (with gzip) and decodes; returns the raw buffer for the caller to free. */
static unsigned char *load_profile(struct pprof_builder *b, const char *name,
				   struct decoded *d)
{
	const char *path = write_profile(b, name);
	unsigned char *raw;
	size_t len = 0;

	memset(d, 0, sizeof(*d));
	d->bad = true;
	if (!path)
		return NULL;
	raw = gunzip(path, &len);
	if (raw)
		decode(raw, len, d);
	CHECK(!d->bad);
	return raw;
}

/* ---- the scenario: stacks with known dedup results --------------------- */

#define APP	"/usr/bin/app"
#define LIBC	"/usr/lib/x86_64-linux-gnu/libc.so.6"
#define APP_MAP	.binary = APP, .build_id = "0123abcd", .map_start = 0x400000, \
		.map_end = 0x500000
#define LIBC_MAP .binary = LIBC, .build_id = "feedf00d", .map_start = 0x7f0000000000, \
		 .map_end = 0x7f0000200000, .map_offset = 0x28000

static const struct pprof_frame f_leaf = { "leaf", "app.c", 10, 0x401010, APP_MAP };
static const struct pprof_frame f_leaf11 = { "leaf", "app.c", 11, 0x401014, APP_MAP };
static const struct pprof_frame f_mid = { "mid", "app.c", 20, 0x401020, APP_MAP };
static const struct pprof_frame f_main = { "main", "app.c", 30, 0x401030, APP_MAP };
static const struct pprof_frame f_rec = { "recurse", "app.c", 40, 0x401040, APP_MAP };
static const struct pprof_frame f_memcpy = { "memcpy", NULL, 0, 0x7f0000001000, LIBC_MAP };
static const struct pprof_frame f_syscall = { "syscall", NULL, 0, 0x7f0000002000, LIBC_MAP };
static const struct pprof_frame f_unknown = { NULL, NULL, 0, 0x7f0000003000, LIBC_MAP };
static const struct pprof_frame f_do_syscall = {
	.function = "do_syscall_64", .address = 0xffffffff81001000ull, .kernel = true,
};
static const struct pprof_frame f_entry = {
	.function = "entry_SYSCALL_64", .address = 0xffffffff81002000ull, .kernel = true,
	.binary = "vmlinux",	/* ignored: kernel frames all go to [kernel.kallsyms] */
};

static const struct pprof_labels l_app = { 100, 100, 0, "app", NULL };
static const struct pprof_labels l_app_t2 = { 100, 101, 1, "app", "/system.slice" };
static const struct pprof_labels l_idle = { 0, 0, 1, NULL, NULL };

struct add {
	const struct pprof_frame *frames[6];	/* leaf first, NULL-terminated */
	uint64_t count;
	const struct pprof_labels *labels;
};

static const struct add scenario[] = {
	{ { &f_leaf, &f_mid, &f_main }, 100, &l_app },
	{ { &f_leaf, &f_mid, &f_main }, 50, &l_app },		/* merged with the first */
	{ { &f_leaf, &f_mid, &f_main }, 20, &l_app_t2 },	/* other labels: own sample */
	{ { &f_leaf, &f_mid, &f_main }, 10, NULL },		/* no labels: own sample */
	{ { &f_memcpy, &f_leaf, &f_mid, &f_main }, 40, &l_app },
	{ { &f_do_syscall, &f_entry, &f_syscall, &f_main }, 30, &l_app },
	{ { &f_leaf11, &f_mid, &f_main }, 15, &l_app },		/* new location, same func */
	{ { &f_rec, &f_rec, &f_rec, &f_main }, 60, &l_app },	/* recursion */
	{ { &f_unknown, &f_main }, 25, &l_app },		/* unsymbolized leaf */
	{ { &f_do_syscall }, 12, &l_idle },			/* pid 0, kernel only */
	{ { &f_do_syscall }, 8, &l_idle },			/* merged */
};

#define SCENARIO_SAMPLES	9	/* 11 adds, two merges */
/* leaf, leaf11, mid, main, rec, memcpy, syscall, unknown, do_syscall, entry */
#define SCENARIO_LOCATIONS	10
/* leaf, mid, main, recurse, memcpy, syscall, do_syscall, entry; none for unknown */
#define SCENARIO_FUNCTIONS	8
#define SCENARIO_MAPPINGS	3	/* app, libc, [kernel.kallsyms] */

static size_t add_frames(const struct add *a, struct pprof_frame *out)
{
	size_t n;

	for (n = 0; n < ARRAY_SIZE(a->frames) && a->frames[n]; n++)
		out[n] = *a->frames[n];
	return n;
}

static struct pprof_builder *build_scenario(uint64_t *total)
{
	struct pprof_builder *b = pprof__new(PERIOD_NS, TIME_NS, DURATION_NS);
	struct pprof_frame frames[6];
	size_t i, n;

	*total = 0;
	CHECK(b != NULL);
	if (!b)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(scenario); i++) {
		n = add_frames(&scenario[i], frames);
		CHECK_OK(pprof__add_sample(b, frames, n, scenario[i].count, scenario[i].labels));
		*total += scenario[i].count;
	}
	return b;
}

static size_t find_str(const struct decoded *d, const char *s)
{
	size_t i;

	for (i = 0; i < d->nr_strs && i < ARRAY_SIZE(d->strs); i++) {
		if (dec_str_is(d, i, s))
			return i;
	}
	return SIZE_MAX;
}

static void profile_decodes_with_deduplicated_tables(void)
{
	struct pprof_builder *b;
	struct decoded *d = calloc(1, sizeof(*d));
	unsigned char *raw = NULL;
	const struct dec_label *lab;
	uint64_t total;
	size_t i, kernel_map = SIZE_MAX;

	CHECK(d != NULL);
	if (!d)
		return;
	b = build_scenario(&total);
	if (!b)
		goto out;
	raw = load_profile(b, "scenario.pb.gz", d);
	if (d->bad)
		goto out;

	CHECK(d->nr_strs > 0 && d->str_len[0] == 0);		/* string_table[0] == "" */
	CHECK_EQ_U64(d->nr_sample_types, 2);
	CHECK(dec_str_is(d, d->sample_type[0][0], "samples"));
	CHECK(dec_str_is(d, d->sample_type[0][1], "count"));
	CHECK(dec_str_is(d, d->sample_type[1][0], "cpu"));
	CHECK(dec_str_is(d, d->sample_type[1][1], "nanoseconds"));
	CHECK(dec_str_is(d, d->period_type[0], "cpu"));
	CHECK(dec_str_is(d, d->period_type[1], "nanoseconds"));
	CHECK_EQ_U64(d->period, PERIOD_NS);
	CHECK_EQ_U64(d->time_ns, TIME_NS);
	CHECK_EQ_U64(d->duration_ns, DURATION_NS);

	CHECK_EQ_U64(d->nr_samples, SCENARIO_SAMPLES);
	CHECK_EQ_U64(d->nr_locs, SCENARIO_LOCATIONS);
	CHECK_EQ_U64(d->nr_funcs, SCENARIO_FUNCTIONS);
	CHECK_EQ_U64(d->nr_maps, SCENARIO_MAPPINGS);
	CHECK(d->ids_in_order);
	CHECK_EQ_U64(d->value_sum[0], total);
	CHECK_EQ_U64(d->value_sum[1], total * PERIOD_NS);

	/* each string once */
	for (i = 1; i < d->nr_strs; i++) {
		char s[256];

		snprintf(s, sizeof(s), "%.*s", (int)d->str_len[i], d->strs[i]);
		CHECK_EQ_U64(find_str(d, s), i);
	}
	/* first sample: three locations leaf first, 100 + 50 merged, labels */
	CHECK_EQ_U64(d->samples[0].nr_locs, 3);
	CHECK_EQ_U64(d->samples[0].nr_values, 2);
	CHECK_EQ_U64(d->samples[0].values[0], 150);
	CHECK_EQ_U64(d->samples[0].values[1], 150 * PERIOD_NS);
	CHECK(dec_str_is(d, d->func_name[d->loc_function[d->samples[0].locs[0] - 1] - 1], "leaf"));
	CHECK(dec_str_is(d, d->func_name[d->loc_function[d->samples[0].locs[2] - 1] - 1], "main"));
	CHECK_EQ_U64(d->loc_line[d->samples[0].locs[0] - 1], 10);
	CHECK_EQ_U64(d->samples[0].nr_labels, 4);
	lab = dec_label(d, &d->samples[0], "comm");
	CHECK(lab && dec_str_is(d, lab->str, "app"));
	lab = dec_label(d, &d->samples[0], "pid");
	CHECK(lab && lab->num == 100 && dec_str_is(d, lab->unit, "id"));
	lab = dec_label(d, &d->samples[0], "tid");
	CHECK(lab && lab->num == 100 && !lab->str);
	lab = dec_label(d, &d->samples[0], "cpu");
	CHECK(lab && lab->num == 0 && dec_str_is(d, lab->unit, "id"));
	lab = dec_label(d, &d->samples[1], "tid");
	CHECK(lab && lab->num == 101);
	/* a cgroup only where one was given: a string label with its path */
	CHECK(!dec_label(d, &d->samples[0], "cgroup"));
	CHECK_EQ_U64(d->samples[1].nr_labels, 5);
	lab = dec_label(d, &d->samples[1], "cgroup");
	CHECK(lab && dec_str_is(d, lab->str, "/system.slice"));
	CHECK_EQ_U64(d->samples[1].values[0], 20);
	/* the unlabelled sample has no labels; the idle one has pid 0, cpu 1, no comm */
	CHECK_EQ_U64(d->samples[2].values[0], 10);
	CHECK_EQ_U64(d->samples[2].nr_labels, 0);
	CHECK_EQ_U64(d->samples[8].values[0], 20);
	CHECK_EQ_U64(d->samples[8].nr_labels, 3);
	CHECK(!dec_label(d, &d->samples[8], "comm"));
	lab = dec_label(d, &d->samples[8], "pid");
	CHECK(lab && lab->num == 0);
	lab = dec_label(d, &d->samples[8], "cpu");
	CHECK(lab && lab->num == 1);
	/* recursion keeps the repeated location */
	CHECK_EQ_U64(d->samples[6].nr_locs, 4);
	CHECK(d->samples[6].locs[0] == d->samples[6].locs[1] &&
	      d->samples[6].locs[1] == d->samples[6].locs[2]);
	/* the unsymbolized frame: a location with its address and mapping, no line */
	i = d->samples[7].locs[0] - 1;
	CHECK_EQ_U64(d->loc_lines[i], 0);
	CHECK_EQ_U64(d->loc_address[i], 0x7f0000003000);
	CHECK(d->loc_mapping[i] && dec_str_is(d, d->map_file[d->loc_mapping[i] - 1], LIBC));

	for (i = 0; i < d->nr_locs; i++)
		CHECK(!d->loc_folded[i]);
	/* libc holds the unsymbolized frame: pprof is told to symbolize it */
	for (i = 0; i < d->nr_maps; i++) {
		CHECK_EQ_U64(d->map_has_functions[i], !dec_str_is(d, d->map_file[i], LIBC));
		if (dec_str_is(d, d->map_file[i], "[kernel.kallsyms]"))
			kernel_map = i;
	}
	CHECK(kernel_map != SIZE_MAX);
	CHECK(dec_str_is(d, d->map_file[0], APP));
	CHECK(dec_str_is(d, d->map_build_id[0], "0123abcd"));
	CHECK_EQ_U64(d->map_start[1], 0x7f0000000000);
	CHECK(find_str(d, "vmlinux") == SIZE_MAX);	/* kernel frames ignore .binary */
	/* both kernel locations point at the one kernel mapping */
	CHECK_EQ_U64(d->samples[4].nr_locs, 4);
	i = d->samples[4].locs[0] - 1;
	CHECK_EQ_U64(d->loc_mapping[i], kernel_map + 1);
	CHECK(dec_str_is(d, d->func_name[d->loc_function[i] - 1], "do_syscall_64"));
	i = d->samples[4].locs[1] - 1;
	CHECK_EQ_U64(d->loc_mapping[i], kernel_map + 1);
	i = d->samples[4].locs[2] - 1;
	CHECK(dec_str_is(d, d->map_file[d->loc_mapping[i] - 1], LIBC));
out:
	free(raw);
	pprof__free(b);
	free(d);
}

static void functions_are_keyed_by_name_file_and_binary(void)
{
	struct pprof_builder *b = pprof__new(PERIOD_NS, 0, 0);
	struct pprof_frame fr[1];
	struct decoded *d = calloc(1, sizeof(*d));
	unsigned char *raw = NULL;

	CHECK(b && d);
	if (!b || !d)
		goto out;
	fr[0] = f_leaf;
	CHECK_OK(pprof__add_sample(b, fr, 1, 1, NULL));
	fr[0].binary = "/usr/lib/libother.so";		/* same name, other binary */
	CHECK_OK(pprof__add_sample(b, fr, 1, 1, NULL));
	fr[0] = f_leaf;
	fr[0].file = "other.c";				/* same name, other file */
	CHECK_OK(pprof__add_sample(b, fr, 1, 1, NULL));
	fr[0] = f_leaf;
	fr[0].line = 99;				/* other line: same function */
	CHECK_OK(pprof__add_sample(b, fr, 1, 1, NULL));
	fr[0] = f_leaf;
	fr[0].map_start = 0x600000;			/* other start: new mapping */
	CHECK_OK(pprof__add_sample(b, fr, 1, 1, NULL));
	raw = load_profile(b, "funcs.pb.gz", d);
	if (d->bad)
		goto out;
	CHECK_EQ_U64(d->nr_funcs, 3);
	CHECK_EQ_U64(d->nr_maps, 3);
	CHECK_EQ_U64(d->nr_locs, 5);
	CHECK_EQ_U64(d->nr_samples, 5);
	CHECK_EQ_U64(d->time_ns, 0);
	CHECK_EQ_U64(d->value_sum[1], 5 * PERIOD_NS);
out:
	free(raw);
	free(d);
	pprof__free(b);
}

/*
 * Two processes map one binary alike at different addresses (ASLR, or two
 * recordings): one mapping, at the first one's addresses, and one location
 * for the same file offset; another size or offset is another mapping.
 */
static void one_binary_mapped_alike_is_one_mapping(void)
{
	struct pprof_builder *b = pprof__new(PERIOD_NS, 0, 0);
	struct decoded *d = calloc(1, sizeof(*d));
	struct pprof_frame fr[2];
	unsigned char *raw = NULL;
	const uint64_t shift = 0x10000000;

	CHECK(b && d);
	if (!b || !d)
		goto out;
	fr[0] = f_leaf;
	fr[1] = f_main;
	CHECK_OK(pprof__add_sample(b, fr, 2, 1, &l_app));
	fr[0].address += shift;
	fr[0].map_start += shift;
	fr[0].map_end += shift;
	fr[1].address += shift;
	fr[1].map_start += shift;
	fr[1].map_end += shift;
	CHECK_OK(pprof__add_sample(b, fr, 2, 2, &l_app_t2));
	fr[1] = fr[0];
	fr[1].map_end += 0x1000;			/* another size: another mapping */
	CHECK_OK(pprof__add_sample(b, fr + 1, 1, 4, &l_app));
	raw = load_profile(b, "alike.pb.gz", d);
	if (d->bad)
		goto out;
	CHECK_EQ_U64(d->nr_maps, 2);
	CHECK_EQ_U64(d->map_start[0], f_leaf.map_start);
	CHECK_EQ_U64(d->map_start[1], f_leaf.map_start + shift);
	CHECK_EQ_U64(d->nr_locs, 3);			/* leaf and main, then leaf again */
	CHECK_EQ_U64(d->loc_address[0], f_leaf.address);
	CHECK_EQ_U64(d->loc_mapping[0], 1);
	CHECK_EQ_U64(d->loc_address[2], f_leaf.address + shift);
	CHECK_EQ_U64(d->loc_mapping[2], 2);
	CHECK_EQ_U64(d->nr_samples, 3);
	CHECK_EQ_U64(d->samples[1].locs[0], d->samples[0].locs[0]);
	CHECK_EQ_U64(d->value_sum[0], 7);
out:
	free(raw);
	free(d);
	pprof__free(b);
}

/* A demangled function keeps its mangled name as system_name; others repeat the name. */
static void system_name_is_the_mangled_name(void)
{
	struct pprof_builder *b = pprof__new(PERIOD_NS, 0, 0);
	struct pprof_frame fr[2];
	struct decoded *d = calloc(1, sizeof(*d));
	unsigned char *raw = NULL;

	CHECK(b && d);
	if (!b || !d)
		goto out;
	fr[0] = f_leaf;
	fr[0].function = "ns::Worker<int>::spin(int)";
	fr[0].system_name = "_ZN2ns6WorkerIiE4spinEi";
	fr[1] = f_leaf;
	fr[1].function = "main";
	fr[1].address += 0x10;
	CHECK_OK(pprof__add_sample(b, fr, 2, 1, NULL));
	fr[0].system_name = "_ZN2ns6WorkerIiE4spinEi.cold";	/* same name, other symbol */
	CHECK_OK(pprof__add_sample(b, fr, 1, 1, NULL));
	raw = load_profile(b, "sysname.pb.gz", d);
	if (d->bad)
		goto out;
	CHECK_EQ_U64(d->nr_funcs, 3);
	if (d->nr_funcs == 3) {
		CHECK(dec_str_is(d, d->func_name[0], "ns::Worker<int>::spin(int)"));
		CHECK(dec_str_is(d, d->func_system_name[0], "_ZN2ns6WorkerIiE4spinEi"));
		CHECK(dec_str_is(d, d->func_name[1], "main"));
		CHECK(dec_str_is(d, d->func_system_name[1], "main"));
		CHECK(dec_str_is(d, d->func_system_name[2], "_ZN2ns6WorkerIiE4spinEi.cold"));
	}
out:
	free(raw);
	free(d);
	pprof__free(b);
}

/*
 * A Python frame: its function has no system name (pprof would simplify
 * "<module>", equal to it, as a C++ name), its file and first line; its
 * location no mapping, its line.
 */
static void python_frame_has_file_and_lines(void)
{
	struct pprof_builder *b = pprof__new(PERIOD_NS, 0, 0);
	struct pprof_frame fr[2] = {
		{ .function = "work_[py]", .system_name = "", .file = "/srv/app.py", .line = 12,
		  .start_line = 9 },
		{ .function = "<module>_[py]", .system_name = "", .file = "/srv/app.py", .line = 40,
		  .start_line = 1 },
	};
	struct decoded *d = calloc(1, sizeof(*d));
	unsigned char *raw = NULL;

	CHECK(b && d);
	if (!b || !d)
		goto out;
	CHECK_OK(pprof__add_sample(b, fr, 2, 3, NULL));
	fr[0].line = 11;	/* another line of the same function */
	CHECK_OK(pprof__add_sample(b, fr, 2, 1, NULL));
	raw = load_profile(b, "python.pb.gz", d);
	if (d->bad)
		goto out;
	CHECK_EQ_U64(d->nr_maps, 0);
	CHECK_EQ_U64(d->nr_funcs, 2);
	CHECK_EQ_U64(d->nr_locs, 3);
	if (d->nr_funcs == 2 && d->nr_locs == 3) {
		CHECK(dec_str_is(d, d->func_name[0], "work_[py]"));
		CHECK_EQ_U64(d->func_system_name[0], 0);
		CHECK(dec_str_is(d, d->func_file[0], "/srv/app.py"));
		CHECK_EQ_U64(d->func_start_line[0], 9);
		CHECK(dec_str_is(d, d->func_name[1], "<module>_[py]"));
		CHECK_EQ_U64(d->func_system_name[1], 0);
		CHECK_EQ_U64(d->func_start_line[1], 1);
		CHECK_EQ_U64(d->loc_mapping[0], 0);
		CHECK_EQ_U64(d->loc_function[0], 1);
		CHECK_EQ_U64(d->loc_line[0], 12);
		CHECK_EQ_U64(d->loc_line[1], 40);
		CHECK_EQ_U64(d->loc_function[2], 1);
		CHECK_EQ_U64(d->loc_line[2], 11);
	}
out:
	free(raw);
	free(d);
	pprof__free(b);
}

static void empty_profile_is_valid(void)
{
	struct pprof_builder *b = pprof__new(PERIOD_NS, TIME_NS, DURATION_NS);
	struct decoded *d = calloc(1, sizeof(*d));
	unsigned char *raw = NULL;

	CHECK(b && d);
	if (!b || !d)
		goto out;
	CHECK_OK(pprof__add_sample(b, NULL, 0, 3, NULL));	/* an empty stack is allowed */
	raw = load_profile(b, "empty.pb.gz", d);
	CHECK(!d->bad && d->nr_strs > 0 && d->str_len[0] == 0);
	CHECK_EQ_U64(d->nr_samples, 1);
	CHECK_EQ_U64(d->samples[0].nr_locs, 0);
	CHECK_EQ_U64(d->value_sum[0], 3);
	CHECK_EQ_U64(d->nr_locs, 0);
	CHECK_EQ_U64(d->nr_maps, 0);
out:
	free(raw);
	free(d);
	pprof__free(b);
}

/* A profile's bytes (gzip), written to memory; NULL on failure. */
static char *profile_bytes(struct pprof_builder *b, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK_OK(pprof__write(b, f));
	CHECK(fclose(f) == 0);
	return buf;
}

/*
 * Several recordings send their samples on as each is added: the profile
 * has the same tables and totals, a sample sent is not merged with a later
 * equal one, and the builder writes the same bytes every time.
 */
static void samples_sent_early_keep_the_profile(void)
{
	struct decoded *kept = calloc(1, sizeof(*kept)), *sent = calloc(1, sizeof(*sent));
	struct pprof_builder *a = NULL, *b = pprof__new(PERIOD_NS, TIME_NS, DURATION_NS);
	unsigned char *raw_a = NULL, *raw_b = NULL;
	struct pprof_frame frames[6];
	char *one = NULL, *two = NULL;
	size_t i, n, len1 = 0, len2 = 0;
	uint64_t total;

	CHECK(kept && sent && b);
	if (!kept || !sent || !b)
		goto out;
	for (i = 0; i < ARRAY_SIZE(scenario); i++) {
		n = add_frames(&scenario[i], frames);
		CHECK_OK(pprof__add_sample(b, frames, n, scenario[i].count, scenario[i].labels));
		if (i == 0 || i == 5)	/* scenario[1] merges with [0] when both are kept */
			CHECK_OK(pprof__send_samples(b));
	}
	CHECK_OK(pprof__send_samples(b));
	CHECK_OK(pprof__send_samples(b));	/* nothing left: changes nothing */
	a = build_scenario(&total);
	raw_a = load_profile(a, "kept.pb.gz", kept);
	raw_b = load_profile(b, "sent.pb.gz", sent);
	if (kept->bad || sent->bad)
		goto out;
	CHECK_EQ_U64(sent->nr_samples, SCENARIO_SAMPLES + 1);
	CHECK_EQ_U64(sent->value_sum[0], total);
	CHECK_EQ_U64(sent->value_sum[1], total * PERIOD_NS);
	CHECK_EQ_U64(sent->nr_sample_types, 2);
	CHECK_EQ_U64(sent->nr_strs, kept->nr_strs);
	CHECK_EQ_U64(sent->nr_locs, kept->nr_locs);
	CHECK_EQ_U64(sent->nr_funcs, kept->nr_funcs);
	CHECK_EQ_U64(sent->nr_maps, kept->nr_maps);
	CHECK(sent->ids_in_order);
	for (i = 0; i < sent->nr_maps && i < kept->nr_maps; i++) {
		CHECK_EQ_U64(sent->map_start[i], kept->map_start[i]);
		CHECK_EQ_U64(sent->map_limit[i], kept->map_limit[i]);
		CHECK_EQ_U64(sent->map_has_functions[i], kept->map_has_functions[i]);
	}
	for (i = 0; i < sent->nr_locs && i < kept->nr_locs; i++) {
		CHECK_EQ_U64(sent->loc_address[i], kept->loc_address[i]);
		CHECK_EQ_U64(sent->loc_mapping[i], kept->loc_mapping[i]);
	}
	one = profile_bytes(b, &len1);
	two = profile_bytes(b, &len2);
	CHECK(one && two && len1 == len2 && !memcmp(one, two, len1));
	/* off-CPU time needs its sample type before any sample went out */
	CHECK_EQ_U64(pprof__add_off_cpu(b, frames, n, 1000, NULL), (uint64_t)-EINVAL);
out:
	free(one);
	free(two);
	free(raw_a);
	free(raw_b);
	free(kept);
	free(sent);
	pprof__free(a);
	pprof__free(b);
}

/*
 * Mapping 1 is the one set as the program's, whenever it was set; the
 * kernel mapping spans every kernel address added.
 */
static void main_mapping_first_and_kernel_span(void)
{
	struct decoded *d = calloc(1, sizeof(*d));
	unsigned char *raw = NULL;
	struct pprof_builder *b;
	uint64_t total;
	size_t i, m;

	CHECK(d != NULL);
	b = d ? build_scenario(&total) : NULL;
	if (!b)
		goto out;
	CHECK_OK(pprof__set_main_mapping(b, &f_memcpy));
	raw = load_profile(b, "main.pb.gz", d);
	if (d->bad)
		goto out;
	CHECK_EQ_U64(d->nr_maps, SCENARIO_MAPPINGS);
	CHECK(dec_str_is(d, d->map_file[0], LIBC));
	CHECK(dec_str_is(d, d->map_file[1], APP));
	CHECK(dec_str_is(d, d->map_file[2], "[kernel.kallsyms]"));
	CHECK_EQ_U64(d->map_start[2], f_do_syscall.address);
	CHECK_EQ_U64(d->map_limit[2], f_entry.address + 1);
	for (i = 0; i < d->nr_locs; i++) {
		m = d->loc_mapping[i] - 1;
		CHECK(d->loc_mapping[i] && m < d->nr_maps && d->map_start[m] <= d->loc_address[i] &&
		      d->loc_address[i] < d->map_limit[m]);
	}
	/* NULL goes back to first-seen order */
	free(raw);
	memset(d, 0, sizeof(*d));
	CHECK_OK(pprof__set_main_mapping(b, NULL));
	raw = load_profile(b, "unset.pb.gz", d);
	if (!d->bad)
		CHECK(dec_str_is(d, d->map_file[0], APP));
out:
	free(raw);
	free(d);
	pprof__free(b);
}

static void writing_is_deterministic_and_repeatable(void)
{
	uint64_t total;
	struct pprof_builder *b = build_scenario(&total);
	char *one = NULL, *two = NULL;
	size_t one_len = 0, two_len = 0;
	FILE *f1 = open_memstream(&one, &one_len), *f2 = open_memstream(&two, &two_len);

	CHECK(b && f1 && f2);
	if (b && f1 && f2) {
		CHECK_OK(pprof__write(b, f1));
		CHECK_OK(pprof__write(b, f2));
	}
	if (f1)
		fclose(f1);
	if (f2)
		fclose(f2);
	CHECK(one_len > 0 && one_len == two_len && !memcmp(one, two, one_len));
	free(one);
	free(two);
	pprof__free(b);
}

/*
 * A message of several megabytes goes to gzip in pieces (spill): one valid
 * member, every sample in it, once, and each sample's own count.
 */
static void large_profile_is_one_member_with_every_sample(void)
{
	enum { N = 60000 };
	struct pprof_builder *b = pprof__new(10000000, 1, 2);
	struct pprof_labels lab = { 0 };
	struct pprof_frame fr[3] = { f_leaf, f_mid, f_main };
	const char *path;
	unsigned char *raw = NULL;
	struct decoded *d = calloc(1, sizeof(*d));
	size_t len = 0, i;

	CHECK(b && d);
	if (!b || !d)
		goto out;
	lab.comm = "app";
	for (i = 0; i < N; i++) {
		lab.pid = lab.tid = (uint32_t)(i + 1);	/* a sample each */
		CHECK_OK(pprof__add_sample(b, fr, 3, i % 7 + 1, &lab));
	}
	path = write_profile(b, "large.pb.gz");
	raw = path ? gunzip(path, &len) : NULL;
	CHECK(raw != NULL && len > (2u << 20));	/* spilled more than once */
	if (!raw)
		goto out;
	/* decode() keeps the first MAX_DEC samples and calls more "bad": walk it whole here */
	{
		struct pb r = { raw, raw + len, false }, sub;
		unsigned int f;
		uint64_t v;
		size_t samples = 0;

		while (pb_next(&r, &f, &v, &sub))
			samples += f == 2;
		CHECK(!r.bad && r.p == r.end);
		CHECK_EQ_U64(samples, N);
	}
	decode(raw, len, d);
	CHECK_EQ_U64(d->nr_samples, N);
	CHECK_EQ_U64(d->nr_funcs, 3);
	CHECK_EQ_U64(d->samples[0].values[0], 1);
	CHECK_EQ_U64(d->samples[6].values[0], 7);
out:
	free(raw);
	free(d);
	pprof__free(b);
}

static void bad_arguments_and_failed_writes(void)
{
	struct pprof_builder *b = pprof__new(PERIOD_NS, 0, 0);
	struct pprof_frame fr = f_leaf;
	FILE *ro = fopen("/dev/null", "r");

	CHECK(b && ro);
	if (b && ro) {
		CHECK_EQ_U64(pprof__add_sample(b, NULL, 2, 1, NULL), (uint64_t)-EINVAL);
		CHECK_EQ_U64(pprof__add_sample(NULL, &fr, 1, 1, NULL), (uint64_t)-EINVAL);
		CHECK_OK(pprof__add_sample(b, &fr, 1, UINT64_MAX, NULL));
		/* the sum no longer fits */
		CHECK_EQ_U64(pprof__add_sample(b, &fr, 1, 1, NULL), (uint64_t)-EOVERFLOW);
		/* a count that does not fit in int64 cannot be written */
		CHECK_EQ_U64(pprof__write(b, ro), (uint64_t)-EOVERFLOW);
	}
	pprof__free(b);
	b = pprof__new(PERIOD_NS, 0, 0);
	CHECK(b != NULL);
	if (b && ro) {
		CHECK_OK(pprof__add_sample(b, &fr, 1, 1, NULL));
		CHECK_EQ_U64(pprof__write(b, ro), (uint64_t)-EIO);
	}
	if (ro)
		fclose(ro);
	pprof__free(b);
	pprof__free(NULL);
}

/* ---- go tool pprof ------------------------------------------------------ */

struct expect {
	const char *name;
	uint64_t flat, cum;
	bool seen;
};

/* flat and cum per named function, as pprof computes them: cum counts a function once per stack. */
static size_t expected_nodes(struct expect *ex, size_t max)
{
	size_t nr = 0, i, j, k, n;

	for (i = 0; i < ARRAY_SIZE(scenario); i++) {
		const struct add *a = &scenario[i];

		for (n = 0; n < ARRAY_SIZE(a->frames) && a->frames[n]; n++) {
			const char *name = a->frames[n]->function;
			bool earlier = false;

			if (!name)
				continue;
			for (j = 0; j < n; j++) {
				if (a->frames[j]->function && !strcmp(a->frames[j]->function, name))
					earlier = true;
			}
			for (k = 0; k < nr && strcmp(ex[k].name, name); k++)
				;
			if (k == nr) {
				if (nr == max)
					return nr;
				ex[nr++] = (struct expect){ name, 0, 0, false };
			}
			if (n == 0)
				ex[k].flat += a->count;
			if (!earlier)
				ex[k].cum += a->count;
		}
	}
	return nr;
}

/* "123", "0" or "123ns" -> number; false for anything else. */
static bool parse_value(const char *s, uint64_t *v)
{
	char *end;

	*v = strtoull(s, &end, 10);
	return end != s && (!*end || !strcmp(end, "ns"));
}

/*
 * Runs `go tool pprof -top` with the given options and checks each named
 * function's flat and cum, in units of 'scale' per added count.
 */
static void check_pprof_top(const char *path, const char *opts, uint64_t scale, uint64_t total)
{
	struct expect ex[32];
	size_t nr = expected_nodes(ex, ARRAY_SIZE(ex)), i, len;
	unsigned char *text;
	char cmd[1024], *line, *save = NULL;
	bool in_table = false, saw_total = false;
	uint64_t sum_flat = 0;
	int rc;

	snprintf(cmd, sizeof(cmd), "go tool pprof -top -nodecount=100 %s '%s' 2>'%s'", opts, path,
		 path_in("pprof.stderr"));
	rc = run_capture(cmd, &text, &len);
	CHECK_EQ_U64(rc, 0);
	if (rc || !text) {
		fprintf(stderr, "  '%s' failed; see %s\n", cmd, path_in("pprof.stderr"));
		free(text);
		return;
	}
	for (line = strtok_r((char *)text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char flat[64], flatp[64], sump[64], cum[64], cump[64];
		uint64_t fv, cv, tv;
		const char *name;
		int off = 0;

		if (!in_table) {
			const char *of = strstr(line, "% of ");

			/* "Showing nodes accounting for X, 100% of TOTAL total" */
			if (!strncmp(line, "Showing nodes", 13) && of) {
				char tot[64];

				if (sscanf(of + 5, "%63s", tot) == 1 && parse_value(tot, &tv)) {
					CHECK_EQ_U64(tv, total * scale);
					saw_total = true;
				}
			}
			if (strstr(line, "flat%") && strstr(line, "cum%"))
				in_table = true;
			continue;
		}
		if (sscanf(line, "%63s %63s %63s %63s %63s %n", flat, flatp, sump, cum, cump,
			   &off) != 5 || !off) {
			fprintf(stderr, "  unexpected pprof line: %s\n", line);
			harness_failures++;
			continue;
		}
		name = line + off;
		if (!parse_value(flat, &fv) || !parse_value(cum, &cv)) {
			fprintf(stderr, "  unexpected pprof values: %s\n", line);
			harness_failures++;
			continue;
		}
		sum_flat += fv;
		for (i = 0; i < nr && strcmp(ex[i].name, name); i++)
			;
		if (i == nr)
			continue;	/* the unsymbolized node, named after its mapping */
		if (ex[i].flat * scale != fv || ex[i].cum * scale != cv) {
			fprintf(stderr, "  pprof %s: flat %" PRIu64 " cum %" PRIu64
				", expected flat %" PRIu64 " cum %" PRIu64 "\n", name, fv, cv,
				ex[i].flat * scale, ex[i].cum * scale);
			harness_failures++;
		}
		ex[i].seen = true;
	}
	for (i = 0; i < nr; i++) {
		if (!ex[i].seen) {
			fprintf(stderr, "  pprof did not list %s\n", ex[i].name);
			harness_failures++;
		}
	}
	CHECK(saw_total);
	CHECK_EQ_U64(sum_flat, total * scale);
	free(text);
}

static void go_tool_pprof_reads_the_profile(void)
{
	struct pprof_builder *b;
	unsigned char *out = NULL;
	const char *path;
	uint64_t total;
	size_t len;

	if (run_capture("command -v go >/dev/null 2>&1", &out, &len) != 0) {
		free(out);
		printf("# skip: go is not installed, profile not checked with 'go tool pprof'\n");
		return;
	}
	free(out);
	b = build_scenario(&total);
	if (!b)
		return;
	path = write_profile(b, "go.pb.gz");
	pprof__free(b);
	if (!path)
		return;
	/* cpu nanoseconds, the default (last) sample type, printed unscaled */
	check_pprof_top(path, "-nodefraction=0 -unit=ns", PERIOD_NS, total);
	/* sample counts */
	check_pprof_top(path, "-nodefraction=0 -sample_index=samples", 1, total);
	if (!harness_failures)
		printf("# 'go tool pprof -top' read the profile: flat and cum of every "
		       "function match, in cpu nanoseconds and in samples\n");
}

/* ---- --pprof from a recording ---------------------------------------------- */

#define KTEXT		0xffffffff81000000ull
#define EXE_RO		0x555555554000ull	/* /bin/app's first mapping (offset 0) */
#define EXE_CODE	0x555555556000ull	/* its code, from file offset 0x2000 */
#define LIBZ		0x7f0000000000ull	/* a library without symbols, offset 0x1000 */

/*
 * Process 50 "app" maps /bin/app (two mappings) and /lib/libz.so.1 (no
 * symbol data). Its first stack is do_syscall_64 <- work <- main, so the
 * first frame the profile meets is the kernel's; the second is an
 * unresolved libz frame <- main. Process 60 "idle-ish", with a lower
 * mapping of its own, has fewer samples.
 */
static const char *pprof_recording(void)
{
	static const struct rec_symbol syms[] = { { 0x2000, 0x100, "main" },
						  { 0x2100, 0x100, "work" } };
	static const uint64_t stack1[] = { KTEXT + 0x10, EXE_CODE + 0x110, EXE_CODE + 0x10 };
	static const uint64_t stack2[] = { LIBZ + 0x234, EXE_CODE + 0x20 };
	static const uint64_t stack3[] = { 0x400100 };
	const struct rec_mapping maps[] = {
		{ 0, 50, EXE_RO, EXE_CODE, 0, "/bin/app", { 0xab, 0xcd }, 2 },
		{ 0, 50, EXE_CODE, EXE_CODE + 0x10000, 0x2000, "/bin/app", { 0xab, 0xcd }, 2 },
		{ 0, 50, LIBZ, LIBZ + 0x10000, 0x1000, "/lib/libz.so.1", { 0x12, 0x34 }, 2 },
		{ 0, 60, 0x400000, 0x401000, 0, "/bin/other", { 0 }, 0 },
	};
	const struct rec_ksym ks = { KTEXT, KTEXT + 0x1000, "do_syscall_64", NULL };
	const struct rec_binary bin = { .build_id = { 0xab, 0xcd }, .build_id_len = 2,
					.path = "/bin/app", .source = ".symtab", .nr_symbols = 2,
					.symbols = syms };
	const struct rec_stack st1 = { 1, 1, 2, stack1 }, st2 = { 2, 0, 2, stack2 };
	const struct rec_stack st3 = { 3, 0, 1, stack3 };
	struct rec_comm c1 = { 0, 50, 50, "app" }, c2 = { 0, 60, 60, "idle-ish" };
	struct rec_sample smp = { 1000, 50, 50, 0, 1 };
	const char *path = path_in("view.eprof");
	struct recording *rec = NULL;
	size_t i;

	CHECK_OK(recording__create(path, &rec));
	if (!rec)
		return NULL;
	CHECK_OK(recording__set_meta(rec, REC_META_FREQ_HZ, "1000"));
	CHECK_OK(recording__add_ksyms(rec, &ks, 1));
	CHECK_OK(recording__add_binary(rec, &bin));
	for (i = 0; i < ARRAY_SIZE(maps); i++)
		CHECK_OK(recording__add_mapping(rec, &maps[i]));
	CHECK_OK(recording__add_comm(rec, &c1));
	CHECK_OK(recording__add_comm(rec, &c2));
	CHECK_OK(recording__add_stack(rec, &st1));
	CHECK_OK(recording__add_stack(rec, &st2));
	CHECK_OK(recording__add_stack(rec, &st3));
	for (i = 0; i < 3; i++)
		CHECK_OK(recording__add_sample(rec, &smp));
	smp.stack_id = 2;
	for (i = 0; i < 2; i++)
		CHECK_OK(recording__add_sample(rec, &smp));
	smp = (struct rec_sample){ 2000, 60, 60, 1, 3 };
	CHECK_OK(recording__add_sample(rec, &smp));
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
	return path;
}

static size_t map_named(const struct decoded *d, const char *file)
{
	size_t i;

	for (i = 0; i < d->nr_maps; i++)
		if (dec_str_is(d, d->map_file[i], file))
			return i;
	return SIZE_MAX;
}

/* Runs `go tool pprof ARGS FILE` and returns its stdout (the caller frees), or NULL. */
static char *go_pprof(const char *args, const char *file)
{
	unsigned char *out = NULL;
	char cmd[1024];
	size_t len;

	snprintf(cmd, sizeof(cmd), "HOME=${HOME:-/root} GOCACHE='%s' go tool pprof %s '%s' "
		 "2>/dev/null", path_in("gocache"), args, file);
	if (run_capture(cmd, &out, &len) != 0) {
		fprintf(stderr, "  '%s' failed\n", cmd);
		harness_failures++;
		free(out);
		return NULL;
	}
	return (char *)out;
}

static void report_pprof_maps_the_program_first(void)
{
	struct report_opts o = { .outputs = REPORT_OUT_PPROF };
	struct decoded *d = calloc(1, sizeof(*d));
	unsigned char *raw = NULL, *probe = NULL;
	char rec_path[512], file[512], *text = NULL;
	size_t len, app, libz, kern, i, unresolved = SIZE_MAX;
	bool made = pprof_recording() != NULL;

	CHECK(d && made);
	if (!d || !made)
		goto out;
	snprintf(rec_path, sizeof(rec_path), "%s", path_in("view.eprof"));
	snprintf(file, sizeof(file), "%s", path_in("view.pb.gz"));
	o.input = rec_path;
	o.output = file;
	CHECK_OK(report__run(&o, NULL, NULL));
	raw = gunzip(file, &len);
	if (!raw)
		goto out;
	decode(raw, len, d);
	CHECK(!d->bad);
	app = map_named(d, "/bin/app");
	libz = map_named(d, "/lib/libz.so.1");
	kern = map_named(d, "[kernel.kallsyms]");
	/* mapping 1 is the program, with the range its code was mapped at */
	CHECK_EQ_U64(app, 0);
	CHECK(kern != SIZE_MAX && kern != 0 && libz != SIZE_MAX);
	if (app != 0 || kern == SIZE_MAX || libz == SIZE_MAX)
		goto out;
	CHECK_EQ_U64(d->map_start[0], EXE_CODE);
	CHECK_EQ_U64(d->map_limit[0], EXE_CODE + 0x10000);
	CHECK_EQ_U64(d->map_offset[0], 0x2000);
	CHECK(dec_str_is(d, d->map_build_id[0], "abcd"));
	CHECK(d->map_has_functions[0]);
	CHECK_EQ_U64(d->map_start[libz], LIBZ);
	CHECK_EQ_U64(d->map_limit[libz], LIBZ + 0x10000);
	CHECK_EQ_U64(d->map_offset[libz], 0x1000);
	CHECK(dec_str_is(d, d->map_build_id[libz], "1234"));
	CHECK(!d->map_has_functions[libz]);
	CHECK(d->map_start[kern] <= KTEXT + 0x10 && KTEXT + 0x10 < d->map_limit[kern]);
	/* every location keeps its sampled address, inside its mapping */
	for (i = 0; i < d->nr_locs && i < MAX_DEC; i++) {
		size_t m = d->loc_mapping[i] - 1;

		CHECK(d->loc_mapping[i] && d->map_start[m] <= d->loc_address[i] &&
		      d->loc_address[i] < d->map_limit[m]);
		if (d->loc_address[i] == LIBZ + 0x234)
			unresolved = i;
	}
	/* the unresolved frame: address and mapping, no line, no made-up function */
	CHECK(unresolved != SIZE_MAX);
	if (unresolved != SIZE_MAX) {
		CHECK_EQ_U64(d->loc_mapping[unresolved], libz + 1);
		CHECK_EQ_U64(d->loc_lines[unresolved], 0);
	}
	CHECK(find_str(d, "libz.so.1+0x1234") == SIZE_MAX);
	for (i = 0; i < d->nr_strs && i < ARRAY_SIZE(d->strs); i++)
		CHECK(!memmem(d->strs[i], d->str_len[i], "+0x", 3));

	/* go tool pprof, when installed, reads the same */
	if (run_capture("command -v go >/dev/null 2>&1", &probe, &len) != 0) {
		printf("# skip: go is not installed, --pprof not checked with 'go tool pprof -raw'\n");
		goto out;
	}
	text = go_pprof("-raw -symbolize=none", file);
	/* -raw lists "Mappings" last, "1: start/limit/offset file build-id" first */
	CHECK(text && strstr(text, "\nMappings\n1: 0x555555556000/0x555555566000/0x2000 /bin/app abcd"));
	free(text);
	text = go_pprof("-top -symbolize=none -sample_index=samples", file);
	/* the profile is titled by its program */
	CHECK(text && strstr(text, "File: app\n"));
	CHECK(text && strstr(text, " work\n") && strstr(text, " do_syscall_64\n"));
out:
	free(text);
	free(probe);
	free(raw);
	free(d);
}

static const struct test tests[] = {
	{ "a large profile is one gzip member with every sample", large_profile_is_one_member_with_every_sample },
	{ "gzip members round-trip through 'gzip -dc'", gzip_round_trips_through_gzip_program },
	{ "'gzip -dc' rejects a damaged member", gzip_program_rejects_a_damaged_member },
	{ "gzip write errors give -EIO", gzip_write_errors_are_reported },
	{ "profile decodes with deduplicated tables", profile_decodes_with_deduplicated_tables },
	{ "functions are keyed by name, file and binary",
	  functions_are_keyed_by_name_file_and_binary },
	{ "system_name is the mangled name", system_name_is_the_mangled_name },
	{ "a Python frame has file and lines", python_frame_has_file_and_lines },
	{ "one binary mapped alike by two processes is one mapping",
	  one_binary_mapped_alike_is_one_mapping },
	{ "an empty profile is valid", empty_profile_is_valid },
	{ "writing is deterministic and repeatable", writing_is_deterministic_and_repeatable },
	{ "samples sent early keep the profile", samples_sent_early_keep_the_profile },
	{ "mapping 1 is the program's, the kernel mapping spans its addresses",
	  main_mapping_first_and_kernel_span },
	{ "bad arguments and failed writes", bad_arguments_and_failed_writes },
	{ "'go tool pprof -top' agrees on flat and cum", go_tool_pprof_reads_the_profile },
	{ "--pprof: the program is mapping 1, real ranges, unresolved frames bare",
	  report_pprof_maps_the_program_first },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
