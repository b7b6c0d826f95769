// SPDX-License-Identifier: MIT
/*
 * util/escape.c - terminal-safe strings (util/escape.h).
 */
#include <stdint.h>
#include <string.h>

#include "util/escape.h"

/* Bytes of the printable UTF-8 character at s (n left), 0 when it must be escaped. */
static size_t printable_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f && s[0] != '\\';
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, past Unicode, and the C1 controls */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

/* The escaped form of the character at s[i] (n left): its bytes in piece, *used input bytes. */
static size_t piece_of(const unsigned char *s, size_t n, char esc[5], const char **piece,
		       size_t *used)
{
	size_t len = printable_len(s, n);

	if (len) {
		*piece = (const char *)s;
		*used = len;
		return len;
	}
	*piece = esc;
	*used = 1;
	esc[0] = '\\';
	if (s[0] == '\\') {
		esc[1] = '\\';
		return 2;
	}
	esc[1] = (char)('0' + (s[0] >> 6));
	esc[2] = (char)('0' + ((s[0] >> 3) & 7));
	esc[3] = (char)('0' + (s[0] & 7));
	return 4;
}

size_t escape_terminal(char *out, size_t cap, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t need = 0, written = 0, i = 0, k, used;
	const char *piece;
	char esc[5];

	while (i < n) {
		k = piece_of(p + i, n - i, esc, &piece, &used);
		if (written == need && cap && need + k < cap) {
			memcpy(out + written, piece, k);
			written += k;
		}
		need += k;
		i += used;
	}
	if (cap)
		out[written] = '\0';
	return need;
}

void escape_fwrite(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k, used;
	const char *piece;
	char esc[5];

	while (i < n) {
		k = piece_of(p + i, n - i, esc, &piece, &used);
		fwrite(piece, 1, k, f);
		i += used;
	}
}
