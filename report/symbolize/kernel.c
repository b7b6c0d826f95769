// SPDX-License-Identifier: MIT
/*
 * report/symbolize/kernel.c - kernel addresses to the kernel symbols the
 * recording stores (kallsyms, modules included).
 *
 * The recorder adds kernel symbols chunk by chunk, so the same symbol may
 * come more than once; repeats are dropped once they are sorted. A symbol
 * covers [addr, end); where symbols nest, the search looks back a little
 * for one that encloses the address.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbolize/internal.h"
#include "util/bsearch.h"
#include "util/vec.h"

int symbolizer__add_ksym(struct symbolizer *sym, const struct rec_ksym *k)
{
	struct ksym *p;

	if (sym->prepared)
		return -EBUSY;
	if (vec__grow(&sym->ksyms, &sym->alloc_ksyms, sym->nr_ksyms + 1, sizeof(*sym->ksyms)))
		return -ENOMEM;
	p = &sym->ksyms[sym->nr_ksyms];
	p->addr = k->addr;
	p->end = k->end;
	p->name = strtab__dup(&sym->names, k->name ? k->name : "[unknown]");
	p->module = k->module && k->module[0] ? strtab__dup(&sym->names, k->module) : NULL;
	if (!p->name || (k->module && k->module[0] && !p->module))
		return -ENOMEM;
	sym->nr_ksyms++;
	return 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return CMP(x->addr, y->addr);
	if (x->end != y->end)
		return CMP(y->end, x->end);
	return strcmp(x->name, y->name);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The same for sorted kernel symbols: the recorder adds them chunk by chunk. */
static size_t unique_ksyms(struct ksym *k, size_t n)
{
	size_t i, out = 0;

	for (i = 0; i < n; i++)
		if (!out || k[out - 1].addr != k[i].addr || k[out - 1].end != k[i].end ||
		    !same_str(k[out - 1].name, k[i].name) ||
		    !same_str(k[out - 1].module, k[i].module))
			k[out++] = k[i];
	return out;
}

static bool ksym_at_or_below(const void *elem, const void *key)
{
	return ((const struct ksym *)elem)->addr <= *(const uint64_t *)key;
}

static const struct ksym *find_ksym(const struct symbolizer *sym, uint64_t v)
{
	const struct ksym *k = sym->ksyms;
	size_t i, steps;

	i = bsearch_lower_bound(&v, k, sym->nr_ksyms, sizeof(*k), ksym_at_or_below);
	for (steps = 0; i-- > 0 && steps < 16; steps++) {
		if (v < k[i].end || v == k[i].addr) {
			while (i > 0 && k[i - 1].addr == k[i].addr)
				i--;
			return &k[i];
		}
	}
	return NULL;
}

int symbolizer__kernel_frame(struct symbolizer *sym, uint64_t addr, bool is_return,
			     struct sym_frame *f)
{
	const struct ksym *k = find_ksym(sym, is_return && addr ? addr - 1 : addr);
	int err;

	f->addr = addr;
	f->flags = SYM_FRAME_KERNEL;
	f->obj = OBJ_KERNEL + 1;
	f->system_name = NULL;
	f->func = NULL;
	f->src_file = NULL;
	f->src_line = f->func_line = 0;
	if (k) {
		/* Rust in the kernel has v0-mangled names; C names pass unchanged */
		err = symbolizer__shown_name(sym, k->name, &f->name, &f->system_name);
		if (err)
			return err;
		f->dso = k->module;
		f->flags |= SYM_FRAME_RESOLVED;
	} else {
		f->name = "[unknown]";
		f->dso = NULL;
		sym->objs[OBJ_KERNEL].pub.why = "not in the kernel symbols";
	}
	return 0;
}

void symbolizer__index_ksyms(struct symbolizer *sym)
{
	sort(sym->ksyms, sym->nr_ksyms, sizeof(*sym->ksyms), cmp_ksym);
	sym->nr_ksyms = unique_ksyms(sym->ksyms, sym->nr_ksyms);
}
