// SPDX-License-Identifier: MIT
/*
 * report/symbolize/names.c - the name a frame is shown with: the symbol
 * demangled (unless --no-demangle, keeping the mangled form as the system
 * name), with ":FILE:LINE" (--lines) and "@0xVADDR" (--addresses) added.
 * Every name is interned in the symbolizer's string table, so a frame's
 * name lives as long as the symbolizer and names compare by pointer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report/symbolize/internal.h"

/*
 * The name shown for the symbol name (interned): without the default
 * version a versioned definition carries ("memcpy@@GLIBC_2.14" is memcpy,
 * as perf shows it; "memcpy@GLIBC_2.2.5", an old version kept for old
 * binaries, and "puts@plt" stay as they are), then demangled unless
 * --no-demangle; *system gets name when they differ, else NULL.
 */
int symbolizer__shown_name(struct symbolizer *sym, const char *name, const char **shown,
			   const char **system)
{
	const char *at = strstr(name, "@@");
	const char *base = name;
	uint32_t id;
	int r;

	*shown = name;
	*system = NULL;
	if (at && at != name) {
		if (strtab__intern_len(&sym->names, name, (size_t)(at - name), &id))
			return -ENOMEM;
		base = strtab__str(&sym->names, id);
		*shown = base;
	}
	if (!sym->opts.no_demangle) {
		r = demangler__get(&sym->dm, base, shown);
		if (r < 0)
			return r;
	}
	if (*shown != name) {
		*system = strtab__dup(&sym->names, name);	/* interned already: a lookup */
		if (!*system)
			return -ENOMEM;
	}
	return 0;
}

/* The interned result of a printf (cut at 4 KiB), or NULL on ENOMEM. */
const char *symbolizer__intern_fmt(struct symbolizer *sym, const char *fmt, ...)
{
	char buf[4096 + 64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		buf[0] = '\0';
	return strtab__dup(&sym->names, buf);
}

static const char *base_of_file(const char *file)
{
	const char *s = file ? strrchr(file, '/') : NULL;

	return s ? s + 1 : file;
}

/*
 * The source fields of f, named name before decoration: func when f's
 * name differs from it; the file and line of df (NULL: none) when it
 * has them. 0 or -ENOMEM.
 */
int symbolizer__set_source(struct symbolizer *sym, struct sym_frame *f, const char *name,
			   const struct dbg_frame *df)
{
	f->func = NULL;
	f->src_file = NULL;
	f->src_line = f->func_line = 0;
	if (f->name != name && strcmp(f->name, name) && !(f->func = strtab__dup(&sym->names, name)))
		return -ENOMEM;
	if (!df || !df->file || !df->file[0])
		return 0;
	f->src_file = strtab__dup(&sym->names, df->file);
	f->src_line = df->line > 0 ? (uint32_t)df->line : 0;
	return f->src_file ? 0 : -ENOMEM;
}

/* name, then ":FILE:LINE" with --lines and "@0xVADDR" with the addresses. */
const char *symbolizer__decorate(struct symbolizer *sym, const char *name,
				 const struct dbg_frame *df, uint64_t vaddr, bool have_vaddr)
{
	char where[4096], at[32];

	where[0] = at[0] = '\0';
	if (sym->opts.lines && df && df->file)
		snprintf(where, sizeof(where), ":%s:%d", base_of_file(df->file), df->line);
	if (sym->opts.addresses && have_vaddr)
		snprintf(at, sizeof(at), "@0x%" PRIx64, vaddr);
	if (!where[0] && !at[0])
		return strtab__dup(&sym->names, name);
	return symbolizer__intern_fmt(sym, "%s%s%s", name, where, at);
}
