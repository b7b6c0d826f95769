// SPDX-License-Identifier: MIT
/*
 * report/symbolize/python.c - Python frames named from the recording's
 * python_code table: "qualname (file.py:line)_[py]".
 *
 * A Python frame is a user frame word with the top three bits set
 * (bpf/events.h, PY_FRAME_TAG): the key the recorder gave the code object
 * of the code unit it ran. The line is computed here from the code
 * object's location table (CPython 3.11's co_linetable format, which
 * Objects/locations.md describes), every byte of which came from the
 * recorded process and is read with bounds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbolize/internal.h"
#include "util/hash.h"
#include "util/vec.h"

#define PY_TAG_BITS	(7ull << 61)
#define PY_CODE_SHIFT	16
#define PY_CODE_MASK	((1ull << 44) - 1)
#define PY_INSTR_MASK	0xffffull

bool sym_is_python_frame(uint64_t w)
{
	return (w & PY_TAG_BITS) == PY_TAG_BITS;
}

/* An unsigned varint of the location table: 6 bits a byte, 0x40 continues. */
static bool lt_varint(const uint8_t *t, size_t len, size_t *at, uint64_t *out)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	for (;;) {
		if (*at >= len || shift > 60)
			return false;
		v |= (uint64_t)(t[*at] & 0x3f) << shift;
		shift += 6;
		if (!(t[(*at)++] & 0x40))
			break;
	}
	*out = v;
	return true;
}

static bool lt_svarint(const uint8_t *t, size_t len, size_t *at, int64_t *out)
{
	uint64_t v;

	if (!lt_varint(t, len, at, &v))
		return false;
	*out = v & 1 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
	return true;
}

long py_line_of(const uint8_t *t, size_t len, uint32_t first_line, uint32_t instr)
{
	int64_t line = first_line, delta;
	uint64_t addr = 0, skip;
	size_t at = 0;
	unsigned int code, units;

	while (at < len) {
		if (!(t[at] & 0x80))
			return -1;	/* not an entry's first byte: damaged */
		code = t[at] >> 3 & 15;
		units = (t[at] & 7) + 1u;
		at++;
		delta = 0;
		if (code == 14) {
			if (!lt_svarint(t, len, &at, &delta) || !lt_varint(t, len, &at, &skip) ||
			    !lt_varint(t, len, &at, &skip) || !lt_varint(t, len, &at, &skip))
				return -1;
		} else if (code == 13) {
			if (!lt_svarint(t, len, &at, &delta))
				return -1;
		} else if (code >= 10 && code <= 12) {
			delta = code - 10;
			at += 2;
		} else if (code < 10) {
			at += 1;
		}
		if (at > len)
			return -1;
		line += delta;
		if (line < -(1ll << 40) || line > (1ll << 40))
			return -1;
		if (instr < addr + units)
			return code == 15 || line <= 0 ? -1 : (long)line;
		addr += units;
	}
	return -1;
}

static bool py_eq(uint32_t i, const void *key, const void *ctx)
{
	const struct py_code *c = &((const struct symbolizer *)ctx)->py[i];
	const struct py_code *k = key;

	return c->tgid == k->tgid && c->key == k->key;
}

static uint64_t py_hash(uint32_t tgid, uint64_t key)
{
	return hash_mix(tgid, key);
}

int symbolizer__add_py_code(struct symbolizer *sym, const struct rec_py_code *c)
{
	struct py_code *p;
	const char *base = strrchr(c->filename, '/');
	int err;

	if (vec__grow(&sym->py, &sym->alloc_py, sym->nr_py + 1, sizeof(*sym->py)))
		return -ENOMEM;
	p = &sym->py[sym->nr_py];
	memset(p, 0, sizeof(*p));
	p->tgid = c->tgid;
	p->key = c->key;
	p->first_line = c->first_line;
	p->qualname = strtab__dup(&sym->names, c->qualname);
	p->file = strtab__dup(&sym->names, base ? base + 1 : c->filename);
	p->path = strtab__dup(&sym->names, c->filename);
	if (!p->qualname || !p->file || !p->path)
		return -ENOMEM;
	if (c->linetable_len) {
		p->table = malloc(c->linetable_len);
		if (!p->table)
			return -ENOMEM;
		memcpy(p->table, c->linetable, c->linetable_len);
		p->table_len = c->linetable_len;
	}
	err = hashmap__add(&sym->py_index, py_hash(c->tgid, c->key), (uint32_t)sym->nr_py);
	if (err) {
		free(p->table);
		return err;
	}
	sym->nr_py++;
	return 0;
}

void symbolizer__release_py(struct symbolizer *sym)
{
	size_t i;

	for (i = 0; i < sym->nr_py; i++)
		free(sym->py[i].table);
	free(sym->py);
	hashmap__release(&sym->py_index);
}

int symbolizer__py_frame(struct symbolizer *sym, uint32_t tgid, uint64_t w, struct sym_frame *f)
{
	struct py_code key = { .tgid = tgid, .key = w >> PY_CODE_SHIFT & PY_CODE_MASK };
	const uint32_t *i = hashmap__find(&sym->py_index, py_hash(key.tgid, key.key), py_eq, &key,
					  sym);
	const struct py_code *c = i ? &sym->py[*i] : NULL;
	long line;

	f->addr = w;
	f->dso = NULL;
	f->system_name = NULL;
	f->func = NULL;
	f->src_file = NULL;
	f->src_line = f->func_line = 0;
	f->obj = 0;
	f->flags = SYM_FRAME_PYTHON;
	f->source = SYM_SRC_UNRESOLVED;
	if (!c) {
		f->name = "[unknown]_[py]";
		return 0;
	}
	line = py_line_of(c->table, c->table_len, c->first_line, (uint32_t)(w & PY_INSTR_MASK));
	if (line < 0)
		line = c->first_line;
	f->name = symbolizer__intern_fmt(sym, "%s (%s:%ld)_[py]", c->qualname, c->file, line);
	f->dso = c->file;
	f->func = c->qualname;
	f->src_file = c->path;
	f->src_line = line <= UINT32_MAX ? (uint32_t)line : 0;
	f->func_line = c->first_line;
	f->flags |= SYM_FRAME_RESOLVED;
	f->source = SYM_SRC_PYTHON;
	return f->name ? 0 : -ENOMEM;
}
