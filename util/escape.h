/* SPDX-License-Identifier: MIT */
/*
 * util/escape.h - strings from binaries, processes and recordings made
 * safe for a terminal, as `ls -b` shows file names: control characters
 * (C0, DEL, C1), bytes that are not UTF-8 and the backslash itself become
 * \ooo (\\ for the backslash), so no escape sequence of a hostile name
 * reaches the operator's terminal. Printable UTF-8 passes unchanged.
 */
#ifndef EPROF_UTIL_ESCAPE_H
#define EPROF_UTIL_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Writes s[0 .. n) to out escaped into at most cap bytes (NUL included);
 * returns the length it needed (as snprintf does): a return >= cap means
 * the output was cut, at a character boundary.
 */
size_t escape_terminal(char *out, size_t cap, const char *s, size_t n);

/* Writes s[0 .. n) escaped to f. */
void escape_fwrite(FILE *f, const char *s, size_t n);

#endif
