// SPDX-License-Identifier: MIT
/*
 * format/codec.c - varints, zstd framing, the sample-chunk columns and an
 * id set; see codec.h.
 *
 * The sample codec is the hot path of both recording and reporting, so it
 * works on flat arrays with a precomputed worst-case output size and never
 * allocates. Decoding checks each value against the width of its field as
 * it goes: a damaged chunk is rejected, never half-trusted.
 */
#include <stdlib.h>
#include <string.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "format/codec.h"
#include "util/vec.h"

int cursor__varint_max(struct cursor *c, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (cursor__varint(c, &v) || v > max)
		return -EBADMSG;
	*out = v;
	return 0;
}

int cursor__string(struct cursor *c, size_t max, const char **out)
{
	uint64_t len;

	if (cursor__varint(c, &len) || len > max || len >= cursor__left(c))
		return -EBADMSG;
	if (c->p[len] != '\0' || memchr(c->p, '\0', len))
		return -EBADMSG;
	*out = (const char *)c->p;
	c->p += len + 1;
	return 0;
}

int codec__read_columns(const uint8_t *data, size_t len, size_t n, int ncols,
			int (*put)(void *rows, size_t i, int col, uint64_t v, uint64_t *prev),
			void *rows)
{
	struct cursor c;
	uint64_t prev, v;
	size_t i;
	int col;

	cursor__init(&c, data, len);
	for (col = 0; col < ncols; col++) {
		prev = 0;
		for (i = 0; i < n; i++) {
			if (cursor__varint(&c, &v) || put(rows, i, col, v, &prev))
				return -EBADMSG;
		}
	}
	return cursor__left(&c) ? -EBADMSG : 0;
}

int bytebuf__reserve(struct bytebuf *b, size_t extra)
{
	void *p = b->data;
	int err;

	if (extra > SIZE_MAX - b->len)
		return -ENOMEM;
	err = vec__grow(&p, &b->cap, b->len + extra, 1);
	b->data = p;
	return err;
}

int bytebuf__put_varint(struct bytebuf *b, uint64_t v)
{
	int err = bytebuf__reserve(b, CODEC_VARINT_MAX);

	if (err)
		return err;
	b->len += codec__put_varint(b->data + b->len, v);
	return 0;
}

int bytebuf__put(struct bytebuf *b, const void *data, size_t len)
{
	int err = bytebuf__reserve(b, len);

	if (err)
		return err;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

int bytebuf__put_string(struct bytebuf *b, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	int err;

	err = bytebuf__put_varint(b, len);
	if (!err)
		err = bytebuf__put(b, s ? s : "", len + 1);
	return err;
}

void bytebuf__release(struct bytebuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int codec__zstd_compress(struct ZSTD_CCtx_s *cctx, int level, const void *src, size_t len,
			 void **out, size_t *out_len)
{
	return codec__zstd_compress_prefixed(cctx, level, NULL, 0, src, len, out, out_len);
}

int codec__zstd_compress_prefixed(struct ZSTD_CCtx_s *cctx, int level, const void *prefix,
				  size_t prefix_len, const void *src, size_t len, void **out,
				  size_t *out_len)
{
	ZSTD_CCtx *own = NULL;
	size_t bound = ZSTD_compressBound(len), got;
	void *dst;

	if (ZSTD_isError(bound))
		return -EIO;
	dst = malloc(bound ? bound : 1);
	if (!dst)
		return -ENOMEM;
	if (!cctx) {
		own = ZSTD_createCCtx();
		if (!own) {
			free(dst);
			return -ENOMEM;
		}
		cctx = own;
	}
	/*
	 * The frame records its content size (readers require it) and a
	 * checksum, so that damage inside a BLOB is reported, not decoded.
	 */
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
	got = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	if (!ZSTD_isError(got))
		got = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	if (!ZSTD_isError(got) && prefix && prefix_len)
		got = ZSTD_CCtx_refPrefix(cctx, prefix, prefix_len);
	if (!ZSTD_isError(got))
		got = ZSTD_compress2(cctx, dst, bound, src, len);
	ZSTD_freeCCtx(own);
	if (ZSTD_isError(got)) {
		free(dst);
		return ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
	}
	*out = dst;
	*out_len = got;
	return 0;
}

int codec__zstd_decompress(struct ZSTD_DCtx_s *dctx, const void *src, size_t len, size_t cap,
			   struct bytebuf *dst)
{
	return codec__zstd_decompress_prefixed(dctx, NULL, 0, src, len, cap, dst);
}

int codec__zstd_decompress_prefixed(struct ZSTD_DCtx_s *dctx, const void *prefix,
				    size_t prefix_len, const void *src, size_t len, size_t cap,
				    struct bytebuf *dst)
{
	unsigned long long want;
	const uint8_t *b = src;
	size_t got;
	int err;

	if (!src || !len)
		return -EBADMSG;
	/*
	 * Exactly one frame, with the checksum every writer of every version
	 * has put there (bit 2 of its header descriptor, RFC 8878 3.1.1.1.1):
	 * damage inside a BLOB is then reported, never decoded.
	 */
	if (len < 5 || (b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24) != ZSTD_MAGICNUMBER ||
	    !(b[4] & 0x04) || ZSTD_findFrameCompressedSize(src, len) != len)
		return -EBADMSG;
	want = ZSTD_getFrameContentSize(src, len);
	if (want == ZSTD_CONTENTSIZE_ERROR || want == ZSTD_CONTENTSIZE_UNKNOWN || want == 0 ||
	    want > cap)
		return -EBADMSG;
	dst->len = 0;
	err = bytebuf__reserve(dst, (size_t)want);
	if (err)
		return err;
	if (prefix && prefix_len) {
		if (!dctx)
			return -EINVAL;
		/* a prefix serves one frame; a failed frame must not leave it for the next */
		ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
		got = ZSTD_DCtx_refPrefix(dctx, prefix, prefix_len);
		if (ZSTD_isError(got))
			return -ENOMEM;
		got = ZSTD_decompressDCtx(dctx, dst->data, (size_t)want, src, len);
		ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
	} else if (dctx)
		got = ZSTD_decompressDCtx(dctx, dst->data, (size_t)want, src, len);
	else
		got = ZSTD_decompress(dst->data, (size_t)want, src, len);
	if (ZSTD_isError(got))
		return ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation ? -ENOMEM : -EBADMSG;
	if (got != want)
		return -EBADMSG;
	dst->len = got;
	return 0;
}

/*
 * Sample chunk columns (layout in schema/README.md). The cpu column comes
 * first, because the other four are predicted from the previous sample on
 * the same CPU: a CPU-bound thread stays on its CPU, so its tgid and tid
 * deltas are 0, and its samples follow the sampling period, so the time is
 * coded as the difference from "previous time on this CPU + P", where P is
 * the chunk's median per-CPU interval. That leaves only the timer jitter,
 * about 20% smaller after zstd than deltas from the previous sample.
 */
static inline size_t cpu_slot(uint32_t cpu)
{
	return cpu & (CODEC_CPU_SLOTS - 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median interval between successive samples of one CPU slot (0 if none). */
static int median_interval(const struct rec_sample *s, size_t n, uint64_t *out)
{
	uint64_t *last = calloc(CODEC_CPU_SLOTS, sizeof(*last));
	uint64_t *d = malloc((n ? n : 1) * sizeof(*d));
	bool *seen = calloc(CODEC_CPU_SLOTS, sizeof(*seen));
	size_t i, k = 0;
	int err = 0;

	if (!last || !d || !seen) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t c = cpu_slot(s[i].cpu);

		if (seen[c])
			d[k++] = s[i].time_ns - last[c];
		seen[c] = true;
		last[c] = s[i].time_ns;
	}
	qsort(d, k, sizeof(*d), cmp_u64);
	*out = k ? d[k / 2] : 0;
out:
	free(last);
	free(d);
	free(seen);
	return err;
}

int codec__encode_samples(const struct rec_sample *s, size_t n, uint64_t first_time,
			  uint8_t *out, size_t *out_len)
{
	struct slot {
		uint64_t time;
		uint32_t tgid, tid, stack_id;
	} *slots;
	uint8_t *p = out;
	uint64_t period;
	uint32_t prev_cpu = 0;
	size_t i;
	int err;

	err = median_interval(s, n, &period);
	if (err)
		return err;
	slots = calloc(CODEC_CPU_SLOTS, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < CODEC_CPU_SLOTS; i++)
		slots[i].time = first_time - period;	/* wraps back in the decoder */
	p += codec__put_varint(p, period);
	for (i = 0; i < n; i++) {
		p += codec__put_varint(p, codec__zigzag((int64_t)s[i].cpu - (int64_t)prev_cpu));
		prev_cpu = s[i].cpu;
	}
	for (i = 0; i < n; i++) {
		struct slot *c = &slots[cpu_slot(s[i].cpu)];

		p += codec__put_varint(p, codec__zigzag((int64_t)(s[i].time_ns - c->time - period)));
		c->time = s[i].time_ns;
	}
#define PUT_COLUMN(field)                                                                  \
	do {                                                                               \
		for (i = 0; i < n; i++) {                                                  \
			struct slot *c = &slots[cpu_slot(s[i].cpu)];                       \
                                                                                           \
			p += codec__put_varint(p, codec__zigzag((int64_t)s[i].field -      \
								(int64_t)c->field));       \
			c->field = s[i].field;                                             \
		}                                                                          \
	} while (0)
	PUT_COLUMN(tgid);
	PUT_COLUMN(tid);
	PUT_COLUMN(stack_id);
#undef PUT_COLUMN
	free(slots);
	*out_len = (size_t)(p - out);
	return 0;
}

/* One varint zigzag delta added to a u32 that must stay within 0..UINT32_MAX. */
static inline int add_u32_delta(struct cursor *c, uint32_t *v)
{
	uint64_t z;
	int64_t x;

	if (cursor__varint(c, &z) || z > (1ull << 34))
		return -EBADMSG;
	x = (int64_t)*v + codec__unzigzag(z);
	if (x < 0 || x > UINT32_MAX)
		return -EBADMSG;
	*v = (uint32_t)x;
	return 0;
}

int codec__decode_samples(const uint8_t *data, size_t len, uint64_t first_time,
			  struct rec_sample *out, size_t n)
{
	struct {
		uint64_t time;
		uint32_t tgid, tid, stack_id;
	} slots[CODEC_CPU_SLOTS];
	struct cursor c;
	uint64_t period, prev_time = first_time, z, pred;
	uint32_t cpu = 0;
	int64_t d;
	size_t i;

	cursor__init(&c, data, len);
	if (n > len / 5 || cursor__varint(&c, &period))
		return -EBADMSG;
	memset(slots, 0, sizeof(slots));
	for (i = 0; i < CODEC_CPU_SLOTS; i++)
		slots[i].time = first_time - period;
	for (i = 0; i < n; i++) {
		if (add_u32_delta(&c, &cpu))
			return -EBADMSG;
		out[i].cpu = cpu;
	}
	for (i = 0; i < n; i++) {
		/* modular arithmetic, as the encoder's; the result must keep time order */
		if (cursor__varint(&c, &z))
			return -EBADMSG;
		d = codec__unzigzag(z);
		pred = slots[cpu_slot(out[i].cpu)].time + period;
		out[i].time_ns = pred + (uint64_t)d;
		if (out[i].time_ns < prev_time)
			return -EBADMSG;
		slots[cpu_slot(out[i].cpu)].time = out[i].time_ns;
		prev_time = out[i].time_ns;
	}
	for (i = 0; i < n; i++)
		if (add_u32_delta(&c, &slots[cpu_slot(out[i].cpu)].tgid))
			return -EBADMSG;
		else
			out[i].tgid = slots[cpu_slot(out[i].cpu)].tgid;
	for (i = 0; i < n; i++)
		if (add_u32_delta(&c, &slots[cpu_slot(out[i].cpu)].tid))
			return -EBADMSG;
		else
			out[i].tid = slots[cpu_slot(out[i].cpu)].tid;
	for (i = 0; i < n; i++)
		if (add_u32_delta(&c, &slots[cpu_slot(out[i].cpu)].stack_id))
			return -EBADMSG;
		else
			out[i].stack_id = slots[cpu_slot(out[i].cpu)].stack_id;
	return cursor__left(&c) ? -EBADMSG : 0;
}

int idset__add(struct idset *s, uint32_t id)
{
	uint32_t *slot;
	bool added;
	int err;

	err = hashmap__upsert(&s->ids, hash_u64(id), hashmap_eq_u32, &id, NULL, id, &slot, &added);
	return err ? err : added;
}

void idset__release(struct idset *s)
{
	hashmap__release(&s->ids);
}
