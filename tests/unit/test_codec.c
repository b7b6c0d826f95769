// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_codec.c - the byte-level codecs of format/: varints and
 * their edge cases, strings, zstd frames that lie, the sample columns, the
 * id set, and the file-offset to ELF-address translation of binaries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "format/codec.h"
#include "format/recording.h"
#include "tests/unit/harness.h"

static void varint_edges(void)
{
	static const uint64_t values[] = { 0, 1, 127, 128, 16383, 16384, UINT32_MAX,
					   1ull << 63, UINT64_MAX - 1, UINT64_MAX };
	static const size_t sizes[] = { 1, 1, 1, 2, 2, 3, 5, 10, 10, 10 };
	uint8_t buf[CODEC_VARINT_MAX];
	struct cursor c;
	uint64_t v;
	size_t i, n, cut;

	for (i = 0; i < ARRAY_SIZE(values); i++) {
		n = codec__put_varint(buf, values[i]);
		CHECK_EQ_U64(n, sizes[i]);
		cursor__init(&c, buf, n);
		CHECK_OK(cursor__varint(&c, &v));
		CHECK_EQ_U64(v, values[i]);
		CHECK_EQ_U64(cursor__left(&c), 0);
		for (cut = 0; cut < n; cut++) {		/* every truncation fails */
			cursor__init(&c, buf, cut);
			CHECK(cursor__varint(&c, &v) == -EBADMSG);
		}
	}
}

static void varint_overflow(void)
{
	uint8_t eleven[11], ten[10];
	struct cursor c;
	uint64_t v;

	memset(eleven, 0x80, sizeof(eleven));
	eleven[10] = 0x01;
	cursor__init(&c, eleven, sizeof(eleven));
	CHECK(cursor__varint(&c, &v) == -EBADMSG);

	memset(ten, 0xff, sizeof(ten));		/* 10th byte 2: bit 64 */
	ten[9] = 0x02;
	cursor__init(&c, ten, sizeof(ten));
	CHECK(cursor__varint(&c, &v) == -EBADMSG);
	ten[9] = 0x01;				/* UINT64_MAX itself */
	cursor__init(&c, ten, sizeof(ten));
	CHECK_OK(cursor__varint(&c, &v));
	CHECK_EQ_U64(v, UINT64_MAX);

	cursor__init(&c, ten, sizeof(ten));
	CHECK(cursor__varint_max(&c, UINT64_MAX - 1, &v) == -EBADMSG);
}

static void zigzag_edges(void)
{
	static const int64_t values[] = { 0, -1, 1, -2, INT64_MAX, INT64_MIN, INT32_MIN };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(values); i++)
		CHECK(codec__unzigzag(codec__zigzag(values[i])) == values[i]);
	CHECK_EQ_U64(codec__zigzag(-1), 1);
	CHECK_EQ_U64(codec__zigzag(1), 2);
	CHECK_EQ_U64(codec__zigzag(INT64_MIN), UINT64_MAX);
}

static void strings(void)
{
	struct bytebuf b = { 0 };
	struct cursor c;
	const char *s;
	uint8_t bad[8];

	CHECK_OK(bytebuf__put_string(&b, "hello"));
	CHECK_OK(bytebuf__put_string(&b, NULL));
	cursor__init(&c, b.data, b.len);
	CHECK_OK(cursor__string(&c, 16, &s));
	CHECK_STR(s, "hello");
	CHECK_OK(cursor__string(&c, 16, &s));
	CHECK_STR(s, "");
	CHECK_EQ_U64(cursor__left(&c), 0);

	cursor__init(&c, b.data, b.len);
	CHECK(cursor__string(&c, 4, &s) == -EBADMSG);		/* longer than max */
	cursor__init(&c, b.data, 6);
	CHECK(cursor__string(&c, 16, &s) == -EBADMSG);		/* NUL cut off */

	bad[0] = 3;						/* NUL inside */
	memcpy(bad + 1, "a\0b", 4);
	cursor__init(&c, bad, 5);
	CHECK(cursor__string(&c, 16, &s) == -EBADMSG);
	bad[0] = 3;						/* no terminating NUL */
	memcpy(bad + 1, "abcd", 4);
	cursor__init(&c, bad, 5);
	CHECK(cursor__string(&c, 16, &s) == -EBADMSG);
	bad[0] = 100;						/* length past the end */
	cursor__init(&c, bad, 5);
	CHECK(cursor__string(&c, 1000, &s) == -EBADMSG);
	bytebuf__release(&b);
}

/* Offset of the Frame_Content_Size field in a zstd frame, and its width. */
static size_t fcs_field(const uint8_t *f, size_t *width)
{
	uint8_t d = f[4];
	static const size_t fcs_sizes[] = { 0, 2, 4, 8 };
	static const size_t dict_sizes[] = { 0, 1, 2, 4 };
	bool single = d & 0x20;

	*width = fcs_sizes[d >> 6] ? fcs_sizes[d >> 6] : single;
	return 5 + (single ? 0 : 1) + dict_sizes[d & 3];
}

static void zstd_frames(void)
{
	uint8_t src[1000], huge[32] = { 0x28, 0xb5, 0x2f, 0xfd, 0xe0 };
	struct bytebuf out = { 0 };
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	ZSTD_outBuffer ob;
	ZSTD_inBuffer ib;
	uint8_t *f = NULL, stream[2048];
	size_t len, i, off, width;
	void *blob;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 % 13);
	CHECK_OK(codec__zstd_compress(NULL, 3, src, sizeof(src), &blob, &len));
	f = blob;
	CHECK_OK(codec__zstd_decompress(NULL, f, len, 1 << 20, &out));
	CHECK_EQ_U64(out.len, sizeof(src));
	CHECK(!memcmp(out.data, src, sizeof(src)));

	/* a cap below the content size refuses before allocating */
	CHECK(codec__zstd_decompress(NULL, f, len, sizeof(src) - 1, &out) == -EBADMSG);

	/* a frame that lies about its content size, both ways */
	off = fcs_field(f, &width);
	CHECK_EQ_U64(width, 2);					/* 1000 - 256, little endian */
	f[off] = (uint8_t)(500 - 256);
	f[off + 1] = 0;
	CHECK(codec__zstd_decompress(NULL, f, len, 1 << 20, &out) == -EBADMSG);
	f[off] = (uint8_t)((2000 - 256) & 0xff);
	f[off + 1] = (uint8_t)((2000 - 256) >> 8);
	CHECK(codec__zstd_decompress(NULL, f, len, 1 << 20, &out) == -EBADMSG);
	f[off] = (uint8_t)((1000 - 256) & 0xff);
	f[off + 1] = (uint8_t)((1000 - 256) >> 8);
	CHECK_OK(codec__zstd_decompress(NULL, f, len, 1 << 20, &out));

	/* the checksum catches a flipped byte in the compressed data */
	f[len - 6] ^= 0x10;
	CHECK(codec__zstd_decompress(NULL, f, len, 1 << 20, &out) == -EBADMSG);

	/* truncated frames, empty and garbage input */
	for (i = 0; i < len; i++)
		CHECK(codec__zstd_decompress(NULL, f, i, 1 << 20, &out) == -EBADMSG);
	CHECK(codec__zstd_decompress(NULL, src, sizeof(src), 1 << 20, &out) == -EBADMSG);
	free(blob);

	/* a declared size of 1 TiB is refused from the header alone */
	huge[5 + 5] = 1;					/* 8-byte FCS = 2^40 */
	CHECK(codec__zstd_decompress(NULL, huge, sizeof(huge), CODEC_MAX_DECOMPRESSED, &out) ==
	      -EBADMSG);

	/* a frame without a content size (streamed) is refused */
	ob = (ZSTD_outBuffer){ stream, sizeof(stream), 0 };
	ib = (ZSTD_inBuffer){ src, sizeof(src), 0 };
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
	CHECK(!ZSTD_isError(ZSTD_compressStream2(cctx, &ob, &ib, ZSTD_e_continue)));
	CHECK(ZSTD_compressStream2(cctx, &ob, &ib, ZSTD_e_end) == 0);
	CHECK(ZSTD_getFrameContentSize(stream, ob.pos) == ZSTD_CONTENTSIZE_UNKNOWN);
	CHECK(codec__zstd_decompress(NULL, stream, ob.pos, 1 << 20, &out) == -EBADMSG);

	/* a frame without a checksum, and two frames back to back, are refused (issue 24) */
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
	CHECK(!ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0)));
	len = ZSTD_compress2(cctx, stream, sizeof(stream), src, sizeof(src));
	CHECK(!ZSTD_isError(len));
	CHECK(codec__zstd_decompress(NULL, stream, len, 1 << 20, &out) == -EBADMSG);
	CHECK_OK(codec__zstd_compress(NULL, 3, src, sizeof(src), &blob, &len));
	CHECK(len * 2 <= sizeof(stream));
	memcpy(stream, blob, len);
	memcpy(stream + len, blob, len);
	CHECK_OK(codec__zstd_decompress(NULL, stream, len, 1 << 20, &out));
	CHECK(codec__zstd_decompress(NULL, stream, 2 * len, 1 << 20, &out) == -EBADMSG);
	free(blob);

	ZSTD_freeCCtx(cctx);
	bytebuf__release(&out);
}

static void sample_columns(void)
{
	struct rec_sample in[500], out[501];
	uint8_t *raw = malloc(ARRAY_SIZE(in) * CODEC_SAMPLE_MAX_BYTES + CODEC_VARINT_MAX + 8);
	uint64_t t = 1000000000;
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(in); i++) {
		t += (uint64_t)(i % 7) * 1000;
		in[i] = (struct rec_sample){ t, (uint32_t)(i % 3 + 100), (uint32_t)(i * 31 % 5 + 100),
					     (uint32_t)(i % 2), i % 11 ? (uint32_t)i : UINT32_MAX };
	}
	in[3].tgid = 0;
	in[4].tgid = UINT32_MAX;
	CHECK_OK(codec__encode_samples(in, ARRAY_SIZE(in), in[0].time_ns, raw, &len));
	CHECK(len <= ARRAY_SIZE(in) * CODEC_SAMPLE_MAX_BYTES + CODEC_VARINT_MAX);
	CHECK_OK(codec__decode_samples(raw, len, in[0].time_ns, out, ARRAY_SIZE(in)));
	CHECK(!memcmp(in, out, sizeof(in)));

	/* wrong counts, truncation, trailing bytes */
	CHECK(codec__decode_samples(raw, len, in[0].time_ns, out, ARRAY_SIZE(in) - 1) == -EBADMSG);
	CHECK(codec__decode_samples(raw, len, in[0].time_ns, out, ARRAY_SIZE(in) + 1) == -EBADMSG);
	for (i = 0; i < len; i += 37)
		CHECK(codec__decode_samples(raw, i, in[0].time_ns, out, ARRAY_SIZE(in)) ==
		      -EBADMSG);
	raw[len] = 0;
	CHECK(codec__decode_samples(raw, len + 1, in[0].time_ns, out, ARRAY_SIZE(in)) == -EBADMSG);

	/* a time that wraps past 2^64 */
	CHECK(codec__decode_samples(raw, len, UINT64_MAX - 10, out, ARRAY_SIZE(in)) == -EBADMSG);

	/* a tgid pushed above UINT32_MAX, and below 0; times going backwards */
	len = 0;
	len += codec__put_varint(raw + len, 0);		/* P */
	len += codec__put_varint(raw + len, 0);		/* cpu */
	len += codec__put_varint(raw + len, 0);		/* time */
	len += codec__put_varint(raw + len, codec__zigzag((int64_t)UINT32_MAX + 1));
	len += codec__put_varint(raw + len, 0);
	len += codec__put_varint(raw + len, 0);
	CHECK(codec__decode_samples(raw, len, 5, out, 1) == -EBADMSG);
	memset(raw, 0, 6);
	raw[3] = (uint8_t)codec__zigzag(-1);
	CHECK(codec__decode_samples(raw, 6, 5, out, 1) == -EBADMSG);
	raw[3] = 0;
	CHECK_OK(codec__decode_samples(raw, 6, 5, out, 1));
	CHECK_EQ_U64(out[0].time_ns, 5);
	memset(raw, 0, 11);
	raw[4] = (uint8_t)codec__zigzag(-1);		/* second time one before the first */
	CHECK(codec__decode_samples(raw, 11, 5, out, 2) == -EBADMSG);
	raw[4] = 0;
	CHECK_OK(codec__decode_samples(raw, 11, 5, out, 2));
	free(raw);
}

/* The byte layout schema/README.md documents, on a two-sample chunk. */
static void sample_layout(void)
{
	static const struct rec_sample in[] = { { 1000, 10, 11, 1, 5 }, { 1500, 10, 11, 1, 6 } };
	static const uint8_t want[] = {
		0xf4, 0x03,	/* P = 500, the median interval on one CPU */
		0x02, 0x00,	/* cpu: zigzag deltas 1, 0 */
		0x00, 0x00,	/* time: 1000 - (1000 - P) - P, 1500 - 1000 - P */
		0x14, 0x00,	/* tgid: 10 - 0, 10 - 10 (same CPU) */
		0x16, 0x00,	/* tid */
		0x0a, 0x02,	/* stack_id: 5, +1 */
	};
	uint8_t raw[2 * CODEC_SAMPLE_MAX_BYTES + CODEC_VARINT_MAX];
	struct rec_sample out[2];
	size_t len = 0;

	CHECK_OK(codec__encode_samples(in, 2, 1000, raw, &len));
	CHECK_EQ_U64(len, sizeof(want));
	CHECK(!memcmp(raw, want, sizeof(want)));
	CHECK_OK(codec__decode_samples(want, sizeof(want), 1000, out, 2));
	CHECK(!memcmp(out, in, sizeof(in)));
}

static void id_set(void)
{
	struct idset s = { 0 };
	uint32_t i;
	int fresh = 0, dups = 0;

	for (i = 0; i < 100000; i++)
		fresh += idset__add(&s, i * 3) == 1;
	CHECK(idset__add(&s, UINT32_MAX) == 1);
	CHECK(idset__add(&s, 0) == 0);
	for (i = 0; i < 100000; i++)
		dups += idset__add(&s, i * 3) == 0;
	CHECK_EQ_U64(fresh, 100000);
	CHECK_EQ_U64(dups, 100000);
	CHECK(idset__add(&s, UINT32_MAX) == 0);
	CHECK_EQ_U64(s.ids.nr, 100001);
	idset__release(&s);
}

static const struct test tests[] = {
	{ "varints round-trip at every length; truncations fail", varint_edges },
	{ "varints past 64 bits are refused", varint_overflow },
	{ "zigzag maps the extremes", zigzag_edges },
	{ "strings: bounded, terminated, NUL-free", strings },
	{ "zstd frames that lie about their size are refused", zstd_frames },
	{ "sample columns round-trip and reject damage", sample_columns },
	{ "the sample layout is the documented one", sample_layout },
	{ "the id set finds duplicates", id_set },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
