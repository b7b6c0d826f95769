/* SPDX-License-Identifier: MIT */
/*
 * report/symbolize/demangle.h - C++ and Rust symbol names as people read them.
 *
 * The demangling itself is libiberty's (the code binutils, gdb and perf
 * use), never ours: C++ names of the Itanium ABI (_Z...), Rust legacy names
 * (_ZN...17h<hash>E, shown without the ::h<hash> suffix, as perf and
 * rustfilt show them) and Rust v0 names (_R...). A report demangles each
 * distinct name once: struct demangler remembers the answer per interned
 * string.
 */
#ifndef EPROF_REPORT_DEMANGLE_H
#define EPROF_REPORT_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strtab;

/*
 * The demangled form of name (malloc'd; the caller frees it), or NULL when
 * name is not a C++ or Rust mangled name, is longer than the demangler is
 * trusted with, or memory ran out. A "@plt" suffix is kept:
 * "_Z3fooi@plt" gives "foo(int)@plt".
 */
char *demangle__name(const char *name);
/* The same; short_names drops parameter lists and return types: "ns::f". */
char *demangle__name_opts(const char *name, bool short_names);

/* Demangled names, cached by the id their mangled form has in names. */
struct demangler {
	struct strtab *names;		/* borrowed: holds both forms */
	uint32_t *map;			/* mangled id -> demangled id + 1; 0: not asked yet */
	size_t alloc;
	bool short_names;		/* demangle__name_opts(): set before the first get */
};

/* names must outlive d. */
void demangler__init(struct demangler *d, struct strtab *names);
/* Frees the cache (not the strings, which belong to names). Accepts NULL. */
void demangler__release(struct demangler *d);

/*
 * Sets *out to the interned demangled form of name and returns 1, or sets
 * it to name's interned copy and returns 0 when name is not mangled;
 * -ENOMEM.
 */
int demangler__get(struct demangler *d, const char *name, const char **out);

#endif
