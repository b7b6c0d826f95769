// SPDX-License-Identifier: MIT
/*
 * report/symbolize/demangle.c - libiberty's demangler behind a cache.
 *
 * libiberty's cplus_demangle(DMGL_AUTO) tries Rust first (a legacy Rust
 * name is also a valid C++ name, whose last component would be the hash)
 * and then the C++ ABI. We make the same two calls through their callback
 * forms so that the output goes into a buffer of bounded size: the names
 * come from a recording, and a crafted one must not make a report allocate
 * without limit. The options are c++filt's (and `perf report -v`'s):
 * parameters and cv-qualifiers (DMGL_PARAMS | DMGL_ANSI), so overloads stay
 * apart; the Rust legacy hash is dropped, as perf and rustfilt drop it.
 *
 * Names that cannot be mangled (every C name) are sent away by a look at
 * their first two bytes, so a C program pays one strtab lookup per name.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "report/aggregate/strtab.h"
#include "report/symbolize/demangle.h"
#include "util/vec.h"

/*
 * Longer inputs stay mangled: real C++ names rarely pass a few KiB, and the
 * demangler's time grows with its input. The output cap bounds memory.
 */
#define DEMANGLE_MAX_IN		(16 * 1024)
#define DEMANGLE_MAX_OUT	(64 * 1024)
#define PLT_SUFFIX		"@plt"

struct out_buf {
	char *s;
	size_t len;
	bool too_long;
};

static void append(const char *s, size_t len, void *opaque)
{
	struct out_buf *b = opaque;

	if (b->too_long || !b->s || !len)	/* libiberty may pass (NULL, 0) */
		return;
	if (len > DEMANGLE_MAX_OUT - b->len) {
		b->too_long = true;
		return;
	}
	memcpy(b->s + b->len, s, len);
	b->len += len;
}

/* Demangles name into b->s (Rust first, then C++); true when libiberty took it. */
static bool demangle_into(const char *name, bool short_names, struct out_buf *b)
{
	/* short: no parameter list, no return type (c++filt -p, perf's choice) */
	const int opts = short_names ? DMGL_ANSI | DMGL_RET_DROP : DMGL_PARAMS | DMGL_ANSI;

	if (name[0] == '_' && (name[1] == 'R' || name[1] == 'Z') &&
	    rust_demangle_callback(name, opts, append, b) && !b->too_long)
		return true;
	b->len = 0;
	b->too_long = false;
	return name[0] == '_' && name[1] == 'Z' &&
	       cplus_demangle_v3_callback(name, opts, append, b) && !b->too_long;
}

char *demangle__name(const char *name)
{
	return demangle__name_opts(name, false);
}

char *demangle__name_opts(const char *name, bool short_names)
{
	size_t len = strnlen(name, DEMANGLE_MAX_IN + 1), plt = strlen(PLT_SUFFIX);
	struct out_buf b = { 0 };
	char *bare = NULL, *out = NULL;

	if (len > DEMANGLE_MAX_IN || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	if (len > plt && !strcmp(name + len - plt, PLT_SUFFIX)) {
		bare = strndup(name, len - plt);	/* "_Z3fooi@plt" -> "_Z3fooi" */
		if (!bare)
			return NULL;
	} else {
		plt = 0;
	}
	b.s = malloc(DEMANGLE_MAX_OUT + strlen(PLT_SUFFIX) + 1);
	if (b.s && demangle_into(bare ? bare : name, short_names, &b) && b.len) {
		memcpy(b.s + b.len, PLT_SUFFIX, plt);
		b.s[b.len + plt] = '\0';
		out = realloc(b.s, b.len + plt + 1);	/* shrink from the cap */
		if (out)
			b.s = NULL;
	}
	free(b.s);
	free(bare);
	return out;
}

void demangler__init(struct demangler *d, struct strtab *names)
{
	memset(d, 0, sizeof(*d));
	d->names = names;
}

void demangler__release(struct demangler *d)
{
	if (!d)
		return;
	free(d->map);
	d->map = NULL;
	d->alloc = 0;
}

/* Makes d->map cover id. */
static int map_reserve(struct demangler *d, uint32_t id)
{
	return vec__grow_zero(&d->map, &d->alloc, (size_t)id + 1, sizeof(*d->map));
}

int demangler__get(struct demangler *d, const char *name, const char **out)
{
	uint32_t id, dm;
	char *s;
	int err;

	err = strtab__intern(d->names, name, &id);
	if (!err)
		err = map_reserve(d, id);
	if (err)
		return err;
	if (!d->map[id]) {
		dm = id;
		s = demangle__name_opts(name, d->short_names);
		if (s) {
			err = strtab__intern(d->names, s, &dm);
			free(s);
			if (err)
				return err;
		}
		/* dm may be a new id past alloc, but only id indexes the map */
		d->map[id] = dm + 1;
	}
	*out = strtab__str(d->names, d->map[id] - 1);
	return d->map[id] - 1 != id;
}
