/* SPDX-License-Identifier: MIT */
/*
 * util/json.h - the one JSON string writer of eprof (info --json, the HTML
 * page's data, speedscope, every --json view). Its output is always valid
 * JSON in valid UTF-8, whatever bytes the name held: a name comes from a
 * binary, a process or a recording, any of which may be hostile.
 */
#ifndef EPROF_UTIL_JSON_H
#define EPROF_UTIL_JSON_H

#include <stddef.h>
#include <stdio.h>

/*
 * Writes s as a quoted JSON string: '"' and '\' escaped, control bytes
 * and DEL as \n, \r, \t or \u00XX, '<', '>' and '&' as \u003c, \u003e,
 * \u0026 (so the text is safe inside an HTML <script>), well-formed UTF-8
 * as it is, and every byte of an ill-formed sequence (a stray
 * continuation byte, a truncated or overlong sequence, a surrogate, past
 * U+10FFFF) as U+FFFD. NULL is written as null.
 */
void json_put_str(FILE *out, const char *s);

/*
 * The length of the well-formed UTF-8 sequence at s (at most n bytes
 * available), or 0 when the bytes there are not one (RFC 3629).
 */
size_t utf8_seq_len(const unsigned char *s, size_t n);

#endif
