/* SPDX-License-Identifier: MIT */
/*
 * report/aggregate/strtab.h - interned strings with small integer ids.
 *
 * A report meets the same few strings (comms, symbol names, module and
 * binary paths) again and again; each is stored once, in an arena, so the
 * pointers stay valid until strtab__release() and equal strings compare
 * equal by id or by pointer.
 */
#ifndef EPROF_REPORT_STRTAB_H
#define EPROF_REPORT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

struct strtab_chunk;

struct strtab {
	const char **strs;		/* id -> string */
	uint32_t nr;
	size_t alloc;
	struct hashmap index;		/* hash of a string -> its id */
	struct strtab_chunk *chunks;	/* arena, newest first */
};

#define STRTAB_INIT { NULL, 0, 0, HASHMAP_INIT, NULL }

void strtab__init(struct strtab *t);
/* Frees every string; pointers handed out become invalid. Accepts NULL. */
void strtab__release(struct strtab *t);

/*
 * Interns s[0 .. len) (len bytes, no NUL needed) and sets *id. Returns 0 or
 * -ENOMEM. The stored copy is NUL-terminated.
 */
int strtab__intern_len(struct strtab *t, const char *s, size_t len, uint32_t *id);
int strtab__intern(struct strtab *t, const char *s, uint32_t *id);

/* The interned copy of s (valid until strtab__release), or NULL on ENOMEM. */
const char *strtab__dup(struct strtab *t, const char *s);

/* The string with id (id < t->nr). */
static inline const char *strtab__str(const struct strtab *t, uint32_t id)
{
	return t->strs[id];
}

#endif
