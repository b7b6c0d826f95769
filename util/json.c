// SPDX-License-Identifier: MIT
/*
 * util/json.c - JSON strings in valid UTF-8 (json.h).
 */
#include <string.h>

#include "util/json.h"

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int lo = 0x80, hi = 0xbf;

	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;		/* a continuation byte, 0xc0/0xc1 (overlong), past 0xf4 */
	if (n < len)
		return 0;
	/* the second byte's range rules out overlongs, surrogates and > U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

void json_put_str(FILE *out, const char *s)
{
	const unsigned char *p;
	size_t left, len;

	if (!s) {
		fputs("null", out);
		return;
	}
	p = (const unsigned char *)s;
	left = strlen(s);
	fputc('"', out);
	while (left) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '<':
		case '>':
		case '&':
		case 0x7f:
			fprintf(out, "\\u%04x", *p);
			break;
		default:
			if (*p < 0x20) {
				fprintf(out, "\\u%04x", *p);
				break;
			}
			len = utf8_seq_len(p, left);
			if (!len) {
				fputs("\\ufffd", out);	/* one ill-formed byte */
				break;
			}
			fwrite(p, 1, len, out);
			p += len;
			left -= len;
			continue;
		}
		p++;
		left--;
	}
	fputc('"', out);
}
