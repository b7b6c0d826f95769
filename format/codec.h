/* SPDX-License-Identifier: MIT */
/*
 * format/codec.h - the byte-level coding of the recording's BLOBs: LEB128
 * varints, zigzag, a bounds-checked read cursor, a growable byte buffer,
 * zstd framing with a size cap, the columnar sample-chunk codec and a set of
 * 32-bit ids.
 *
 * Nothing here prints: decoders return -EBADMSG on any violation and the
 * caller (reader.c) names the file, table and chunk. Every length and count
 * read from a file is checked against the bytes that remain before it is
 * used, so a hostile BLOB can neither read out of bounds nor make a decoder
 * allocate more than CODEC_MAX_DECOMPRESSED.
 */
#ifndef EPROF_FORMAT_CODEC_H
#define EPROF_FORMAT_CODEC_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/recording.h"
#include "util/hashmap.h"

/* Largest decompressed BLOB a reader accepts (zstd frame content size). */
#define CODEC_MAX_DECOMPRESSED	(256u << 20)
/* A varint never takes more than this many bytes (64 bits / 7). */
#define CODEC_VARINT_MAX	10
/* Bytes codec__encode_samples() may write per sample, at most. */
#define CODEC_SAMPLE_MAX_BYTES	(CODEC_VARINT_MAX + 4 * 5)

/* --- varints ------------------------------------------------------------- */

static inline uint64_t codec__zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t codec__unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Writes v as LEB128 at p (room for CODEC_VARINT_MAX bytes); returns bytes written. */
static inline size_t codec__put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* A read position in an untrusted buffer: p never passes end. */
struct cursor {
	const uint8_t *p;
	const uint8_t *end;
};

static inline void cursor__init(struct cursor *c, const void *data, size_t len)
{
	c->p = data;
	c->end = c->p + len;
}

static inline size_t cursor__left(const struct cursor *c)
{
	return (size_t)(c->end - c->p);
}

/*
 * Reads one varint. -EBADMSG when the buffer ends inside it or it does not
 * fit 64 bits (an 11th byte, or a 10th byte above 1).
 */
static inline int cursor__varint(struct cursor *c, uint64_t *out)
{
	const uint8_t *p = c->p;
	uint64_t v = 0;
	unsigned int shift = 0;

	if (p < c->end && *p < 0x80) {		/* the common one-byte case */
		*out = *p;
		c->p = p + 1;
		return 0;
	}
	while (p < c->end) {
		uint8_t b = *p++;

		if (shift == 63 && b > 1)
			return -EBADMSG;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*out = v;
			c->p = p;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return -EBADMSG;
	}
	return -EBADMSG;
}

/* A varint that must be <= max. */
int cursor__varint_max(struct cursor *c, uint64_t max, uint64_t *out);

/*
 * A string coded as varint length, the bytes, then a NUL. Checks the length
 * against max and the bytes left, that no NUL is inside and that the NUL is
 * there; *out then points into the buffer (NUL-terminated, not copied).
 */
int cursor__string(struct cursor *c, size_t max, const char **out);

/*
 * The layout of the v2 chunk tables' data: ncols columns of n varints,
 * one column after the other. codec__read_columns() reads them in that
 * order and hands each value to put (row i, column col, value v) with
 * *prev, a running value that starts at 0 in each column (for the
 * delta-coded ones); put returns 0 or -EBADMSG. -EBADMSG too for a cut
 * varint or bytes left over.
 */
int codec__read_columns(const uint8_t *data, size_t len, size_t n, int ncols,
			int (*put)(void *rows, size_t i, int col, uint64_t v, uint64_t *prev),
			void *rows);

/* --- a growable byte buffer ---------------------------------------------- */

struct bytebuf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

/* Makes room for extra more bytes after len; -ENOMEM (or -EOVERFLOW). */
int bytebuf__reserve(struct bytebuf *b, size_t extra);
/* Appends; -ENOMEM. */
int bytebuf__put_varint(struct bytebuf *b, uint64_t v);
int bytebuf__put(struct bytebuf *b, const void *data, size_t len);
/* Appends a string as cursor__string() reads it; NULL is "". */
int bytebuf__put_string(struct bytebuf *b, const char *s);
void bytebuf__release(struct bytebuf *b);

/* --- zstd ----------------------------------------------------------------- */

/*
 * Compresses len bytes at src into a new malloc'd buffer (*out, *out_len;
 * the caller frees). The frame records its content size, which readers
 * require, and a checksum of the content. cctx may be NULL (a temporary
 * one is used). 0, -ENOMEM or -EIO.
 */
struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;
int codec__zstd_compress(struct ZSTD_CCtx_s *cctx, int level, const void *src, size_t len,
			 void **out, size_t *out_len);
/*
 * The same, with prefix_len bytes at prefix (NULL: none) as a prefix: the
 * frame may refer to them as if they came just before src, and decodes
 * only with the same prefix (codec__zstd_decompress_prefixed).
 */
int codec__zstd_compress_prefixed(struct ZSTD_CCtx_s *cctx, int level, const void *prefix,
				  size_t prefix_len, const void *src, size_t len, void **out,
				  size_t *out_len);

/*
 * Decompresses one zstd frame into dst (replacing its contents). The frame
 * must declare its content size, 1 <= size <= cap, before anything is
 * allocated, and must decode to exactly that size. dctx may be NULL.
 * 0, -EBADMSG (bad or lying frame) or -ENOMEM.
 */
int codec__zstd_decompress(struct ZSTD_DCtx_s *dctx, const void *src, size_t len, size_t cap,
			   struct bytebuf *dst);
/* The same for a frame compressed with a prefix (dctx must not be NULL when prefix is not). */
int codec__zstd_decompress_prefixed(struct ZSTD_DCtx_s *dctx, const void *prefix,
				    size_t prefix_len, const void *src, size_t len, size_t cap,
				    struct bytebuf *dst);

/* --- sample chunks (encoding 1, before zstd) ------------------------------- */

/* Per-CPU prediction state: CPUs c and c + CODEC_CPU_SLOTS share a slot. */
#define CODEC_CPU_SLOTS		1024

/*
 * Encodes n samples, sorted by time with s[0].time_ns == first_time: the
 * median per-CPU interval, then five columns of n varints (cpu, time, tgid,
 * tid, stack_id; layout in schema/README.md) into out, which has room for
 * n * CODEC_SAMPLE_MAX_BYTES + CODEC_VARINT_MAX bytes. Sets *out_len;
 * returns 0 or -ENOMEM.
 */
int codec__encode_samples(const struct rec_sample *s, size_t n, uint64_t first_time,
			  uint8_t *out, size_t *out_len);

/*
 * Decodes exactly n samples from len bytes into out[0..n). -EBADMSG when
 * the bytes end early, have bytes left over, a value does not fit its
 * field or the times go backwards (first_time is the lowest allowed).
 */
int codec__decode_samples(const uint8_t *data, size_t len, uint64_t first_time,
			  struct rec_sample *out, size_t n);

/* --- a set of 32-bit ids (stack ids seen) ------------------------------- */

struct idset {
	struct hashmap ids;	/* values are the ids themselves */
};

/* Adds id: 1 when it was new, 0 when already there, -ENOMEM. */
int idset__add(struct idset *s, uint32_t id);
void idset__release(struct idset *s);

#endif
