// SPDX-License-Identifier: MIT
/*
 * report/output/pprof.c - the pprof emitter: gzip(profile.proto).
 *
 * The subset of protobuf that profile.proto needs is small (varints, and
 * length-delimited fields for strings, nested messages and packed repeated
 * integers), so it is written here rather than through a protobuf library.
 * The builder interns every string, function, mapping, location and sample
 * in util/hashmap indexes as stacks are added; the writer then
 * encodes the message in first-seen order (so the output is deterministic)
 * and zlib compresses it into one gzip member, as pprof's own writer does,
 * a megabyte of message at a time.
 *
 * A mapping says it has functions only when every location in it has one:
 * pprof symbolizes the locations of the other mappings itself (from the
 * binary or its build-id), which is what an unresolved frame needs.
 *
 * Field numbers follow perftools.profiles.Profile (google/pprof,
 * proto/profile.proto); ids of functions, locations and mappings are their
 * 1-based position in the output, and string 0 is "" as the format demands.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/output/pprof.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* Profile */
#define PB_PROFILE_SAMPLE_TYPE		1
#define PB_PROFILE_SAMPLE		2
#define PB_PROFILE_MAPPING		3
#define PB_PROFILE_LOCATION		4
#define PB_PROFILE_FUNCTION		5
#define PB_PROFILE_STRING_TABLE		6
#define PB_PROFILE_TIME_NANOS		9
#define PB_PROFILE_DURATION_NANOS	10
#define PB_PROFILE_PERIOD_TYPE		11
#define PB_PROFILE_PERIOD		12
/* ValueType */
#define PB_VALUETYPE_TYPE		1
#define PB_VALUETYPE_UNIT		2
/* Sample */
#define PB_SAMPLE_LOCATION_ID		1
#define PB_SAMPLE_VALUE			2
#define PB_SAMPLE_LABEL			3
/* Label */
#define PB_LABEL_KEY			1
#define PB_LABEL_STR			2
#define PB_LABEL_NUM			3
#define PB_LABEL_NUM_UNIT		4
/* Mapping */
#define PB_MAPPING_ID			1
#define PB_MAPPING_MEMORY_START		2
#define PB_MAPPING_MEMORY_LIMIT		3
#define PB_MAPPING_FILE_OFFSET		4
#define PB_MAPPING_FILENAME		5
#define PB_MAPPING_BUILD_ID		6
#define PB_MAPPING_HAS_FUNCTIONS	7
/* Location */
#define PB_LOCATION_ID			1
#define PB_LOCATION_MAPPING_ID		2
#define PB_LOCATION_ADDRESS		3
#define PB_LOCATION_LINE		4
#define PB_LOCATION_IS_FOLDED		5
/* Line */
#define PB_LINE_FUNCTION_ID		1
#define PB_LINE_LINE			2
/* Function */
#define PB_FUNCTION_ID			1
#define PB_FUNCTION_NAME		2
#define PB_FUNCTION_SYSTEM_NAME		3
#define PB_FUNCTION_FILENAME		4
#define PB_FUNCTION_START_LINE		5

#define PB_WIRE_VARINT	0
#define PB_WIRE_LEN	2

#define KERNEL_MAPPING_NAME	"[kernel.kallsyms]"
#define MAX_ENTRIES		(UINT32_MAX - 1)	/* ids are uint32, 0 is "none" */

struct function {
	uint32_t name, system_name, file, binary;	/* string ids */
	uint32_t start_line;				/* 0: unknown */
};

struct mapping {
	uint32_t file, build_id;	/* string ids */
	uint64_t start, end, offset;
	bool unresolved;		/* some location in it has no function */
};

struct location {
	uint32_t mapping;	/* mapping id, 0: none */
	uint32_t function;	/* function id, 0: unknown */
	uint32_t line;
	uint64_t address;
};

struct sample {
	size_t locs;		/* first location id in builder->loc_ids */
	uint32_t nr_locs;
	bool has_labels;
	uint32_t pid, tid, cpu;
	uint32_t comm;		/* string id, 0: none */
	uint32_t cgroup;	/* string id, 0: none */
	uint64_t count;
	uint64_t off_ns;	/* off-CPU nanoseconds (pprof__add_off_cpu) */
};

/* Strings the writer itself needs, interned by pprof__new() so pprof__write() changes nothing. */
struct fixed_strs {
	uint32_t samples, count, cpu, nanoseconds, comm, pid, tid, id, off_cpu;
};

struct pprof_builder {
	uint64_t period_ns, time_ns, duration_ns;
	struct fixed_strs fs;
	uint32_t cgroup_key;		/* "cgroup", interned with the first cgroup label; 0: none */
	bool has_off_cpu;		/* a third sample type: off_cpu nanoseconds */

	char **strs;
	size_t nr_strs, alloc_strs;
	struct hashmap str_index;

	struct function *funcs;
	size_t nr_funcs, alloc_funcs;
	struct hashmap func_index;

	struct mapping *maps;
	size_t nr_maps, alloc_maps;
	struct hashmap map_index;

	struct location *locs;
	size_t nr_locs, alloc_locs;
	struct hashmap loc_index;

	struct sample *samples;
	size_t nr_samples, alloc_samples;
	struct hashmap sample_index;

	uint32_t *loc_ids;	/* every sample's location ids, leaf first */
	size_t nr_loc_ids, alloc_loc_ids;

	uint32_t kernel_map;	/* the kernel mapping's id, 0: none yet */
	uint32_t main_map;	/* the mapping written as id 1, 0: first-seen order */

	/*
	 * pprof__send_samples(): the start of the message (sample types and
	 * the samples sent), compressed into sent_gz; NULL: none sent.
	 */
	struct gz *sent_gz;
	struct strbuf sent;
};

/* ---- small helpers ---------------------------------------------------- */

struct gz;
static void gz_close(struct gz *g);

#define GROW(arr, alloc, need) vec__grow(&(arr), &(alloc), (need), sizeof(*(arr)))

/* ---- interning ---------------------------------------------------------- */

static bool str_eq(uint32_t pos, const void *key, const void *ctx)
{
	const struct pprof_builder *b = ctx;

	return !strcmp(b->strs[pos], key);
}

/* The string table id of s; NULL and "" are id 0. */
static int intern_str(struct pprof_builder *b, const char *s, uint32_t *id)
{
	uint32_t *pos;
	uint64_t hash;
	char *copy;
	int err;

	if (!s || !*s) {
		*id = 0;
		return 0;
	}
	hash = hash_str(s);
	pos = hashmap__find(&b->str_index, hash, str_eq, s, b);
	if (pos) {
		*id = (uint32_t)*pos;
		return 0;
	}
	if (b->nr_strs >= MAX_ENTRIES)
		return -ENOMEM;
	err = GROW(b->strs, b->alloc_strs, b->nr_strs + 1);
	if (err)
		return err;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	err = hashmap__add(&b->str_index, hash, (uint32_t)b->nr_strs);
	if (err) {
		free(copy);
		return err;
	}
	b->strs[b->nr_strs] = copy;
	*id = (uint32_t)b->nr_strs++;
	return 0;
}

/*
 * The 1-based id of the entry equal to key (elem bytes) among the *nr of
 * *arr that ix indexes: the one there, else a copy of key appended.
 */
static int intern_entry(struct pprof_builder *b, struct hashmap *ix, uint64_t hash,
			hashmap_eq_fn eq, const void *key, void *arr, size_t *nr, size_t *alloc,
			size_t elem, uint32_t *id)
{
	uint32_t *pos = hashmap__find(ix, hash, eq, key, b);
	char **a = arr;
	int err;

	if (pos) {
		*id = (uint32_t)*pos + 1;
		return 0;
	}
	if (*nr >= MAX_ENTRIES)
		return -ENOMEM;
	err = vec__grow(arr, alloc, *nr + 1, elem);
	if (!err)
		err = hashmap__add(ix, hash, (uint32_t)*nr);
	if (err)
		return err;
	memcpy(*a + *nr * elem, key, elem);
	*id = (uint32_t)++*nr;
	return 0;
}

static bool func_eq(uint32_t pos, const void *key, const void *ctx)
{
	const struct pprof_builder *b = ctx;
	const struct function *a = &b->funcs[pos], *k = key;

	return a->name == k->name && a->system_name == k->system_name && a->file == k->file &&
	       a->binary == k->binary && a->start_line == k->start_line;
}

/* The 1-based id of the function (name, system name, file, binary, first line). */
static int intern_func(struct pprof_builder *b, const struct function *f, uint32_t *id)
{
	uint64_t hash = hash_mix(hash_mix(hash_mix(hash_u64(f->name), f->system_name), f->file),
				 f->binary ^ (uint64_t)f->start_line << 32);

	return intern_entry(b, &b->func_index, hash, func_eq, f, &b->funcs, &b->nr_funcs, &b->alloc_funcs,
			    sizeof(*b->funcs), id);
}

static bool map_eq(uint32_t pos, const void *key, const void *ctx)
{
	const struct pprof_builder *b = ctx;
	const struct mapping *a = &b->maps[pos], *k = key;

	return a->file == k->file && a->build_id == k->build_id && a->offset == k->offset &&
	       a->end - a->start == k->end - k->start;
}

/*
 * The 1-based id of the mapping (file, build_id, offset, size): one binary
 * mapped alike by many processes, wherever each put it, is one mapping,
 * at the first one's addresses (as pprof's own merge does).
 */
static int intern_map(struct pprof_builder *b, const struct mapping *m, uint32_t *id)
{
	uint64_t hash = hash_mix(hash_mix(hash_mix(hash_u64(m->file), m->build_id), m->offset),
				 m->end - m->start);

	return intern_entry(b, &b->map_index, hash, map_eq, m, &b->maps, &b->nr_maps, &b->alloc_maps,
			    sizeof(*b->maps), id);
}

static bool loc_eq(uint32_t pos, const void *key, const void *ctx)
{
	const struct pprof_builder *b = ctx;
	const struct location *a = &b->locs[pos], *k = key;

	return a->mapping == k->mapping && a->function == k->function && a->line == k->line &&
	       a->address == k->address;
}

static int intern_loc(struct pprof_builder *b, const struct location *l, uint32_t *id)
{
	uint64_t hash = hash_mix(hash_mix(hash_mix(hash_u64(l->mapping), l->function), l->line), l->address);

	return intern_entry(b, &b->loc_index, hash, loc_eq, l, &b->locs, &b->nr_locs, &b->alloc_locs,
			    sizeof(*b->locs), id);
}

/*
 * The one kernel mapping, whose range grows to hold every kernel address
 * added: the recordings merged need not agree on where the kernel is.
 */
static int intern_kernel_map(struct pprof_builder *b, uint64_t addr, uint32_t *id)
{
	struct mapping *m;
	uint32_t file;
	int err;

	if (!b->kernel_map) {
		err = intern_str(b, KERNEL_MAPPING_NAME, &file);
		if (err)
			return err;
		if (b->nr_maps >= MAX_ENTRIES)
			return -ENOMEM;
		err = GROW(b->maps, b->alloc_maps, b->nr_maps + 1);
		if (err)
			return err;
		b->maps[b->nr_maps] = (struct mapping){ .file = file, .start = addr, .end = addr };
		b->kernel_map = (uint32_t)++b->nr_maps;
	}
	m = &b->maps[b->kernel_map - 1];
	if (addr < m->start)
		m->start = addr;
	if (addr >= m->end)
		m->end = addr == UINT64_MAX ? addr : addr + 1;
	*id = b->kernel_map;
	return 0;
}

/* The mapping id of frame f (0: none), interning its strings. */
static int intern_frame_map(struct pprof_builder *b, const struct pprof_frame *fr, uint32_t *id)
{
	struct mapping map = { 0 };
	int err;

	*id = 0;
	if (fr->kernel)
		return intern_kernel_map(b, fr->address, id);
	err = intern_str(b, fr->binary, &map.file);
	if (err || !map.file)
		return err;
	map.start = fr->map_start;
	map.end = fr->map_end;
	map.offset = fr->map_offset;
	err = intern_str(b, fr->build_id, &map.build_id);
	return err ? err : intern_map(b, &map, id);
}

/* The location id of one frame, interning its strings, mapping and function. */
static int intern_frame(struct pprof_builder *b, const struct pprof_frame *fr, uint32_t *id)
{
	struct location loc = { .address = fr->address, .line = fr->line };
	struct function fn = { 0 };
	int err;

	err = intern_frame_map(b, fr, &loc.mapping);
	if (err)
		return err;
	if (loc.mapping && !fr->kernel)	/* the same file offset in the mapping kept */
		loc.address = fr->address - fr->map_start + b->maps[loc.mapping - 1].start;
	if (fr->function) {
		fn.binary = loc.mapping ? b->maps[loc.mapping - 1].file : 0;
		fn.start_line = fr->start_line;
		err = intern_str(b, fr->function, &fn.name);
		if (!err)
			err = intern_str(b, fr->system_name ? fr->system_name : fr->function,
					 &fn.system_name);
		if (!err)
			err = intern_str(b, fr->file, &fn.file);
		if (!err)
			err = intern_func(b, &fn, &loc.function);
		if (err)
			return err;
	} else {
		loc.line = 0;	/* a line without a function means nothing in pprof */
		if (loc.mapping)
			b->maps[loc.mapping - 1].unresolved = true;
	}
	return intern_loc(b, &loc, id);
}

int pprof__set_main_mapping(struct pprof_builder *b, const struct pprof_frame *f)
{
	uint32_t id = 0;
	int err;

	if (!b)
		return -EINVAL;
	err = f ? intern_frame_map(b, f, &id) : 0;
	if (!err)
		b->main_map = id;
	return err;
}

static bool sample_eq(uint32_t pos, const void *key, const void *ctx)
{
	const struct pprof_builder *b = ctx;
	const struct sample *a = &b->samples[pos], *k = key;

	return a->nr_locs == k->nr_locs && a->has_labels == k->has_labels && a->pid == k->pid &&
	       a->tid == k->tid && a->cpu == k->cpu && a->comm == k->comm &&
	       a->cgroup == k->cgroup &&
	       (!a->nr_locs || !memcmp(&b->loc_ids[a->locs], &b->loc_ids[k->locs],
				       (size_t)a->nr_locs * sizeof(*b->loc_ids)));
}

/* Interns the strings the writer uses, right after "". */
static int fixed_strings(struct pprof_builder *b, struct fixed_strs *fs)
{
	int err = 0;

	err = err ? err : intern_str(b, "samples", &fs->samples);
	err = err ? err : intern_str(b, "count", &fs->count);
	err = err ? err : intern_str(b, "cpu", &fs->cpu);
	err = err ? err : intern_str(b, "nanoseconds", &fs->nanoseconds);
	err = err ? err : intern_str(b, "off_cpu", &fs->off_cpu);
	err = err ? err : intern_str(b, "comm", &fs->comm);
	err = err ? err : intern_str(b, "pid", &fs->pid);
	err = err ? err : intern_str(b, "tid", &fs->tid);
	err = err ? err : intern_str(b, "id", &fs->id);
	return err;
}

/* ---- public: building --------------------------------------------------- */

struct pprof_builder *pprof__new(uint64_t period_ns, uint64_t time_ns, uint64_t duration_ns)
{
	struct pprof_builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->period_ns = period_ns;
	b->time_ns = time_ns;
	b->duration_ns = duration_ns;
	/* string_table[0] must be "": reserve it; intern_str maps "" and NULL to it */
	if (GROW(b->strs, b->alloc_strs, 1))
		goto fail;
	b->strs[0] = strdup("");
	if (!b->strs[0])
		goto fail;
	b->nr_strs = 1;
	if (fixed_strings(b, &b->fs))
		goto fail;
	return b;
fail:
	pprof__free(b);
	return NULL;
}

void pprof__free(struct pprof_builder *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nr_strs; i++)
		free(b->strs[i]);
	free(b->strs);
	hashmap__release(&b->str_index);
	free(b->funcs);
	hashmap__release(&b->func_index);
	free(b->maps);
	hashmap__release(&b->map_index);
	free(b->locs);
	hashmap__release(&b->loc_index);
	free(b->samples);
	hashmap__release(&b->sample_index);
	free(b->loc_ids);
	if (b->sent_gz) {
		gz_close(b->sent_gz);
		free(b->sent_gz);
	}
	strbuf_release(&b->sent);
	free(b);
}

static int add_values(struct pprof_builder *b, const struct pprof_frame *frames, size_t nr,
		      uint64_t count, uint64_t off_ns, const struct pprof_labels *labels)
{
	struct sample key = { 0 };
	uint64_t hash = hash_u64(nr);
	uint32_t *pos;
	size_t i, need;
	int err;

	if (!b || (!frames && nr) || nr > MAX_ENTRIES)
		return -EINVAL;
	if (__builtin_add_overflow(b->nr_loc_ids, nr, &need))
		return -ENOMEM;
	err = GROW(b->loc_ids, b->alloc_loc_ids, need);
	if (err)
		return err;
	/* location ids go at the end of the pool; they stay there only if the sample is new */
	key.locs = b->nr_loc_ids;
	key.nr_locs = (uint32_t)nr;
	for (i = 0; i < nr; i++) {
		err = intern_frame(b, &frames[i], &b->loc_ids[key.locs + i]);
		if (err)
			return err;
		hash = hash_mix(hash, b->loc_ids[key.locs + i]);
	}
	if (labels) {
		key.has_labels = true;
		key.pid = labels->pid;
		key.tid = labels->tid;
		key.cpu = labels->cpu;
		err = intern_str(b, labels->comm, &key.comm);
		if (err)
			return err;
		if (labels->cgroup && !b->cgroup_key)
			err = intern_str(b, "cgroup", &b->cgroup_key);
		err = err ?: intern_str(b, labels->cgroup, &key.cgroup);
		if (err)
			return err;
	}
	hash = hash_mix(hash, (uint64_t)key.has_labels << 32 | key.pid);
	hash = hash_mix(hash, (uint64_t)key.tid << 32 | key.cpu);
	hash = hash_mix(hash, (uint64_t)key.cgroup << 32 | key.comm);

	pos = hashmap__find(&b->sample_index, hash, sample_eq, &key, b);
	if (pos) {
		struct sample *s = &b->samples[*pos];
		uint64_t sum;

		if (__builtin_add_overflow(s->count, count, &sum) ||
		    s->off_ns + off_ns < s->off_ns)
			return -EOVERFLOW;	/* s->count stays as it was */
		s->count = sum;
		s->off_ns += off_ns;
		return 0;
	}
	if (b->nr_samples >= MAX_ENTRIES)
		return -ENOMEM;
	err = GROW(b->samples, b->alloc_samples, b->nr_samples + 1);
	if (!err)
		err = hashmap__add(&b->sample_index, hash, (uint32_t)b->nr_samples);
	if (err)
		return err;
	key.count = count;
	key.off_ns = off_ns;
	b->samples[b->nr_samples++] = key;
	b->nr_loc_ids += nr;
	return 0;
}

int pprof__add_sample(struct pprof_builder *b, const struct pprof_frame *frames, size_t nr,
		      uint64_t count, const struct pprof_labels *labels)
{
	return add_values(b, frames, nr, count, 0, labels);
}

void pprof__set_off_cpu(struct pprof_builder *b)
{
	b->has_off_cpu = true;
}

int pprof__add_off_cpu(struct pprof_builder *b, const struct pprof_frame *frames, size_t nr,
		       uint64_t ns, const struct pprof_labels *labels)
{
	if (b && b->sent_gz && !b->has_off_cpu)
		return -EINVAL;	/* samples went out with two values each */
	if (b)
		b->has_off_cpu = true;
	return add_values(b, frames, nr, 0, ns, labels);
}

/* ---- protobuf encoding -------------------------------------------------- */

/* Appends to a strbuf, whose out-of-memory state is sticky and checked once at the end. */
static void pb_varint(struct strbuf *sb, uint64_t v)
{
	unsigned char buf[10];
	size_t n = 0;

	while (v >= 0x80) {
		buf[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (unsigned char)v;
	strbuf_add(sb, buf, n);
}

static void pb_key(struct strbuf *sb, unsigned int field, unsigned int wire)
{
	pb_varint(sb, (uint64_t)field << 3 | wire);
}

/* A varint field; proto3 leaves zero (the default) out. */
static void pb_uint(struct strbuf *sb, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(sb, field, PB_WIRE_VARINT);
	pb_varint(sb, v);
}

static void pb_bytes(struct strbuf *sb, unsigned int field, const void *data, size_t len)
{
	pb_key(sb, field, PB_WIRE_LEN);
	pb_varint(sb, len);
	strbuf_add(sb, data, len);
}

/* Appends msg as field of sb, then empties msg for the next use. */
static void pb_message(struct strbuf *sb, unsigned int field, struct strbuf *msg)
{
	pb_bytes(sb, field, msg->buf, msg->len);
	strbuf_reset(msg);
}

static void put_value_type(struct strbuf *sb, unsigned int field, struct strbuf *msg,
			   uint32_t type, uint32_t unit)
{
	pb_uint(msg, PB_VALUETYPE_TYPE, type);
	pb_uint(msg, PB_VALUETYPE_UNIT, unit);
	pb_message(sb, field, msg);
}

/*
 * Numeric labels carry the unit "id": pprof's readers drop a label whose num
 * and num_unit are both zero, and pid 0 (the idle task) and CPU 0 are real.
 */
static void put_num_label(struct strbuf *sb, struct strbuf *msg, const struct fixed_strs *fs,
			  uint32_t key, uint64_t num)
{
	pb_uint(msg, PB_LABEL_KEY, key);
	pb_uint(msg, PB_LABEL_NUM, num);
	pb_uint(msg, PB_LABEL_NUM_UNIT, fs->id);
	pb_message(sb, PB_SAMPLE_LABEL, msg);
}

/* ---- gzip, through zlib ------------------------------------------------ */

#define GZIP_WINDOW	(15 + 16)	/* zlib: a 32 KiB window, a gzip wrapper */
#define GZIP_CHUNK	(64u << 10)

/* One gzip member written as its input comes (gz_feed), a chunk at a time. */
struct gz {
	z_stream zs;
	FILE *out;
	struct strbuf *mem;	/* instead of out: the compressed bytes kept in memory */
	int err;
};

static int gz_open(struct gz *g, FILE *out, struct strbuf *mem)
{
	memset(g, 0, sizeof(*g));
	g->out = out;
	g->mem = mem;
	/* zlib's gzip header has no name and MTIME 0, so equal input gives equal output */
	if (deflateInit2(&g->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	return 0;
}

/* Compresses data[0 .. len) into the member; finish ends it. Keeps the first error. */
static int gz_feed(struct gz *g, const void *data, size_t len, bool finish)
{
	unsigned char buf[GZIP_CHUNK];
	const unsigned char *p = data;
	size_t left = len, n;
	int rc = Z_OK, flush;

	if (g->err)
		return g->err;
	do {
		/* avail_in is 32 bits: hand the input over a piece at a time */
		n = left < UINT32_MAX ? left : UINT32_MAX;
		g->zs.next_in = (unsigned char *)p;
		g->zs.avail_in = (uInt)n;
		p += n;
		left -= n;
		flush = left || !finish ? Z_NO_FLUSH : Z_FINISH;
		do {
			g->zs.next_out = buf;
			g->zs.avail_out = sizeof(buf);
			rc = deflate(&g->zs, flush);
			if (rc == Z_STREAM_ERROR)
				return g->err = -ENOMEM;
			n = sizeof(buf) - g->zs.avail_out;
			if (n && g->mem) {
				strbuf_add(g->mem, buf, n);
				if (g->mem->oom)
					return g->err = -ENOMEM;
			} else if (n && fwrite(buf, 1, n, g->out) != n) {
				return g->err = -EIO;
			}
		} while (g->zs.avail_out == 0);
	} while (left);
	if (finish && rc != Z_STREAM_END)
		g->err = -ENOMEM;
	else if (finish && g->out && ferror(g->out))
		g->err = -EIO;
	return g->err;
}

/* A copy of from that goes on into out, from leaving off; from is unchanged. */
static int gz_copy(struct gz *g, struct gz *from, FILE *out)
{
	memset(g, 0, sizeof(*g));
	g->out = out;
	if (from->err)
		return from->err;
	if (deflateCopy(&g->zs, &from->zs) != Z_OK)
		return -ENOMEM;
	return 0;
}

static void gz_close(struct gz *g)
{
	deflateEnd(&g->zs);
}

int pprof__gzip_write(const void *data, size_t len, FILE *out)
{
	struct gz g;
	int err = gz_open(&g, out, NULL);

	if (!err)
		err = gz_feed(&g, data, len, true);
	gz_close(&g);
	return err;
}

/*
 * The encoded message goes to gzip a megabyte at a time: held whole, it
 * was the largest single buffer of a report over many files (67 MB of a
 * 24-file hour). Fields are whole when spilled; pprof's readers see one
 * message either way.
 */
#define SPILL_BYTES	(1u << 20)

static int spill(struct strbuf *out, struct gz *g)
{
	int err;

	if (out->len < SPILL_BYTES || out->oom)
		return 0;
	err = gz_feed(g, out->buf, out->len, false);
	strbuf_reset(out);
	return err;
}

static int put_samples(const struct pprof_builder *b, const struct fixed_strs *fs,
		       struct strbuf *out, struct strbuf *msg, struct strbuf *inner, struct gz *g)
{
	size_t i, j;
	int err;

	for (i = 0; i < b->nr_samples; i++) {
		const struct sample *s = &b->samples[i];
		uint64_t cpu_ns;

		if (s->count > INT64_MAX || s->off_ns > INT64_MAX ||
		    __builtin_mul_overflow(s->count, b->period_ns, &cpu_ns) || cpu_ns > INT64_MAX)
			return -EOVERFLOW;

		for (j = 0; j < s->nr_locs; j++)	/* packed repeated uint64 */
			pb_varint(inner, b->loc_ids[s->locs + j]);
		if (s->nr_locs)
			pb_message(msg, PB_SAMPLE_LOCATION_ID, inner);
		pb_varint(inner, s->count);		/* packed repeated int64, never empty */
		pb_varint(inner, cpu_ns);
		if (b->has_off_cpu)
			pb_varint(inner, s->off_ns);
		pb_message(msg, PB_SAMPLE_VALUE, inner);
		if (s->has_labels) {
			if (s->comm) {
				pb_uint(inner, PB_LABEL_KEY, fs->comm);
				pb_uint(inner, PB_LABEL_STR, s->comm);
				pb_message(msg, PB_SAMPLE_LABEL, inner);
			}
			if (s->cgroup) {
				pb_uint(inner, PB_LABEL_KEY, b->cgroup_key);
				pb_uint(inner, PB_LABEL_STR, s->cgroup);
				pb_message(msg, PB_SAMPLE_LABEL, inner);
			}
			put_num_label(msg, inner, fs, fs->pid, s->pid);
			put_num_label(msg, inner, fs, fs->tid, s->tid);
			put_num_label(msg, inner, fs, fs->cpu, s->cpu);
		}
		pb_message(out, PB_PROFILE_SAMPLE, msg);
		err = spill(out, g);
		if (err)
			return err;
	}
	return 0;
}

/* The id mapping id is written with: main_map's is 1, the others follow in first-seen order. */
static uint32_t map_id(const struct pprof_builder *b, uint32_t id)
{
	if (!b->main_map || !id || id > b->main_map)
		return id;
	return id == b->main_map ? 1 : id + 1;
}

static int put_tables(const struct pprof_builder *b, struct strbuf *out, struct strbuf *msg,
		      struct strbuf *inner, struct gz *g)
{
	size_t i, k;
	int err = 0;

	for (k = 0; k < b->nr_maps; k++) {
		const struct mapping *m;

		/* main_map first */
		i = !b->main_map ? k : !k ? b->main_map - 1 : k <= b->main_map - 1 ? k - 1 : k;
		m = &b->maps[i];

		pb_uint(msg, PB_MAPPING_ID, map_id(b, (uint32_t)i + 1));
		pb_uint(msg, PB_MAPPING_MEMORY_START, m->start);
		pb_uint(msg, PB_MAPPING_MEMORY_LIMIT, m->end);
		pb_uint(msg, PB_MAPPING_FILE_OFFSET, m->offset);
		pb_uint(msg, PB_MAPPING_FILENAME, m->file);
		pb_uint(msg, PB_MAPPING_BUILD_ID, m->build_id);
		pb_uint(msg, PB_MAPPING_HAS_FUNCTIONS, !m->unresolved);
		pb_message(out, PB_PROFILE_MAPPING, msg);
	}
	for (i = 0; !err && i < b->nr_locs; i++) {
		const struct location *l = &b->locs[i];

		pb_uint(msg, PB_LOCATION_ID, i + 1);
		pb_uint(msg, PB_LOCATION_MAPPING_ID, map_id(b, l->mapping));
		pb_uint(msg, PB_LOCATION_ADDRESS, l->address);
		if (l->function) {
			pb_uint(inner, PB_LINE_FUNCTION_ID, l->function);
			pb_uint(inner, PB_LINE_LINE, l->line);
			pb_message(msg, PB_LOCATION_LINE, inner);
		}
		pb_uint(msg, PB_LOCATION_IS_FOLDED, 0);	/* false: the default, left out */
		pb_message(out, PB_PROFILE_LOCATION, msg);
		err = spill(out, g);
	}
	for (i = 0; !err && i < b->nr_funcs; i++) {
		const struct function *f = &b->funcs[i];

		pb_uint(msg, PB_FUNCTION_ID, i + 1);
		pb_uint(msg, PB_FUNCTION_NAME, f->name);
		pb_uint(msg, PB_FUNCTION_SYSTEM_NAME, f->system_name);
		pb_uint(msg, PB_FUNCTION_FILENAME, f->file);
		pb_uint(msg, PB_FUNCTION_START_LINE, f->start_line);
		pb_message(out, PB_PROFILE_FUNCTION, msg);
		err = spill(out, g);
	}
	return err;
}

/* What the message starts with: the sample types. */
static void put_head(const struct pprof_builder *b, struct strbuf *out, struct strbuf *msg)
{
	const struct fixed_strs *fs = &b->fs;

	put_value_type(out, PB_PROFILE_SAMPLE_TYPE, msg, fs->samples, fs->count);
	put_value_type(out, PB_PROFILE_SAMPLE_TYPE, msg, fs->cpu, fs->nanoseconds);
	if (b->has_off_cpu)
		put_value_type(out, PB_PROFILE_SAMPLE_TYPE, msg, fs->off_cpu, fs->nanoseconds);
}

/* The message after what was sent (all of it when nothing was) into g. */
static int encode(const struct pprof_builder *b, struct strbuf *out, struct gz *g)
{
	struct strbuf msg = STRBUF_INIT, inner = STRBUF_INIT;
	const struct fixed_strs *fs = &b->fs;
	size_t i;
	int err;

	if (b->time_ns > INT64_MAX || b->duration_ns > INT64_MAX || b->period_ns > INT64_MAX)
		return -EOVERFLOW;
	if (!b->sent_gz)
		put_head(b, out, &msg);
	err = put_samples(b, fs, out, &msg, &inner, g);
	if (!err)
		err = put_tables(b, out, &msg, &inner, g);
	for (i = 0; !err && i < b->nr_strs; i++) {
		pb_bytes(out, PB_PROFILE_STRING_TABLE, b->strs[i], strlen(b->strs[i]));
		err = spill(out, g);
	}
	if (err)
		goto out;
	pb_uint(out, PB_PROFILE_TIME_NANOS, b->time_ns);
	pb_uint(out, PB_PROFILE_DURATION_NANOS, b->duration_ns);
	put_value_type(out, PB_PROFILE_PERIOD_TYPE, &msg, fs->cpu, fs->nanoseconds);
	pb_uint(out, PB_PROFILE_PERIOD, b->period_ns);
	if (out->oom || msg.oom || inner.oom)
		err = -ENOMEM;
out:
	strbuf_release(&inner);
	strbuf_release(&msg);
	return err;
}

/* ---- public: writing ---------------------------------------------------- */

int pprof__send_samples(struct pprof_builder *b)
{
	struct strbuf pb = STRBUF_INIT, msg = STRBUF_INIT, inner = STRBUF_INIT;
	int err;

	if (!b)
		return -EINVAL;
	if (!b->nr_samples)
		return 0;
	if (!b->sent_gz) {
		b->sent_gz = malloc(sizeof(*b->sent_gz));
		if (!b->sent_gz)
			return -ENOMEM;
		err = gz_open(b->sent_gz, NULL, &b->sent);
		if (err) {
			free(b->sent_gz);
			b->sent_gz = NULL;
			return err;
		}
		put_head(b, &pb, &msg);
	}
	err = put_samples(b, &b->fs, &pb, &msg, &inner, b->sent_gz);
	if (!err && (pb.oom || msg.oom || inner.oom))
		err = -ENOMEM;
	if (!err)
		err = gz_feed(b->sent_gz, pb.buf, pb.len, false);
	strbuf_release(&pb);
	strbuf_release(&msg);
	strbuf_release(&inner);
	if (err)
		return b->sent_gz->err = err;	/* part went out: every later write fails */
	free(b->samples);
	b->samples = NULL;
	b->nr_samples = b->alloc_samples = 0;
	hashmap__release(&b->sample_index);
	free(b->loc_ids);
	b->loc_ids = NULL;
	b->nr_loc_ids = b->alloc_loc_ids = 0;
	return 0;
}

int pprof__write(struct pprof_builder *b, FILE *out)
{
	struct strbuf pb = STRBUF_INIT;
	struct gz g;
	int err;

	if (b->sent_gz) {
		/* a copy of the stream goes on, so the builder can be written again */
		err = gz_copy(&g, b->sent_gz, out);
		if (!err && b->sent.len && fwrite(b->sent.buf, 1, b->sent.len, out) != b->sent.len)
			err = -EIO;
	} else {
		err = gz_open(&g, out, NULL);
	}
	if (!err)
		err = encode(b, &pb, &g);
	if (!err)
		err = gz_feed(&g, pb.buf, pb.len, true);
	gz_close(&g);
	strbuf_release(&pb);
	return err;
}
