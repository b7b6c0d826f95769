// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_json.c - util/json.c, the one JSON string writer: its
 * escapes, and valid UTF-8 out whatever bytes go in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/harness.h"
#include "util/json.h"

/* s written by json_put_str, in buf */
static const char *put(const char *s, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	CHECK(f != NULL);
	json_put_str(f, s);
	fclose(f);
	return buf;
}

static void escapes(void)
{
	char buf[256];

	CHECK_STR(put("plain", buf, sizeof(buf)), "\"plain\"");
	CHECK_STR(put("a\"b\\c", buf, sizeof(buf)), "\"a\\\"b\\\\c\"");
	CHECK_STR(put("l1\nl2\r\t", buf, sizeof(buf)), "\"l1\\nl2\\r\\t\"");
	CHECK_STR(put("\x01\x1f\x7f", buf, sizeof(buf)), "\"\\u0001\\u001f\\u007f\"");
	CHECK_STR(put("</script><b>&", buf, sizeof(buf)),
		  "\"\\u003c/script\\u003e\\u003cb\\u003e\\u0026\"");
	CHECK_STR(put(NULL, buf, sizeof(buf)), "null");
	CHECK_STR(put("", buf, sizeof(buf)), "\"\"");
}

static void utf8(void)
{
	char buf[256];

	/* well-formed: 2, 3 and 4 bytes, as they are */
	CHECK_STR(put("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", buf, sizeof(buf)),
		  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\"");
	/* a stray continuation byte, a truncated sequence, an overlong '/' */
	CHECK_STR(put("a\x80z", buf, sizeof(buf)), "\"a\\ufffdz\"");
	CHECK_STR(put("a\xe2\x82", buf, sizeof(buf)), "\"a\\ufffd\\ufffd\"");
	CHECK_STR(put("\xc0\xaf", buf, sizeof(buf)), "\"\\ufffd\\ufffd\"");
	/* a surrogate (U+D800), past U+10FFFF, overlong 3 and 4 bytes */
	CHECK_STR(put("\xed\xa0\x80", buf, sizeof(buf)), "\"\\ufffd\\ufffd\\ufffd\"");
	CHECK_STR(put("\xf4\x90\x80\x80", buf, sizeof(buf)), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	CHECK_STR(put("\xe0\x80\xaf", buf, sizeof(buf)), "\"\\ufffd\\ufffd\\ufffd\"");
	CHECK_STR(put("\xf0\x80\x80\xaf", buf, sizeof(buf)), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	CHECK_EQ_U64(utf8_seq_len((const unsigned char *)"\xf4\x8f\xbf\xbf", 4), 4);
	CHECK_EQ_U64(utf8_seq_len((const unsigned char *)"\xf0\x9f\x94\xa5", 3), 0);
}

/* Random bytes in: valid UTF-8 out, no raw control byte, quotes balanced. */
static void random_bytes(void)
{
	char in[64], out[1024];
	unsigned int seed = 12345;
	size_t i, j, n, len;

	for (i = 0; i < 20000; i++) {
		n = (size_t)(rand_r(&seed) % 63);
		for (j = 0; j < n; j++)
			in[j] = (char)(1 + rand_r(&seed) % 255);
		in[n] = '\0';
		put(in, out, sizeof(out));
		len = strlen(out);
		CHECK(len >= 2 && out[0] == '"' && out[len - 1] == '"');
		for (j = 0; j < len; ) {
			size_t k = utf8_seq_len((const unsigned char *)out + j, len - j);

			CHECK(k > 0);
			CHECK((unsigned char)out[j] >= 0x20 && out[j] != 0x7f);
			if (out[j] == '\\')
				k = 2;	/* the escaped byte is ASCII */
			else
				CHECK(out[j] != '"' || j == 0 || j == len - 1);
			j += k ? k : 1;
		}
	}
}

static const struct test tests[] = {
	{ "quotes, backslashes, control bytes and HTML characters escaped", escapes },
	{ "well-formed UTF-8 kept, every ill-formed byte U+FFFD", utf8 },
	{ "random bytes give valid UTF-8 JSON", random_bytes },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
