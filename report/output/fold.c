// SPDX-License-Identifier: MIT
/*
 * report/output/fold.c - the folded-stack emitter (flamegraph.pl's input).
 *
 * Different keys of the aggregate (threads of one name, processes running
 * the same program) fold to the same text, so lines are merged and their
 * counts summed before anything is written; the output is sorted bytewise
 * so that it is the same from run to run and golden files compare exactly.
 * ';' separates frames and '\n' lines, so neither may appear inside a name.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate/aggregate.h"
#include "report/aggregate/strtab.h"
#include "report/output/fold.h"
#include "report/symbolize/symbolize.h"
#include "util/hashmap.h"
#include "util/strbuf.h"

void fold__add_name(struct strbuf *sb, const char *s)
{
	static const char bad[] = ";\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e"
				  "\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c"
				  "\x1d\x1e\x1f\x7f";
	size_t n;

	/* a run at a time: most names have nothing to replace */
	while (*s) {
		n = strcspn(s, bad);
		strbuf_add(sb, s, n);
		s += n;
		if (!*s)
			break;
		strbuf_addch(sb, *s == ';' ? ':' : '?');
		s++;
	}
}

void fold__add_frame_name(struct strbuf *sb, const struct sym_frame *f)
{
	fold__add_name(sb, f->name && f->name[0] ? f->name : "[unknown]");
	if (f->flags & SYM_FRAME_KERNEL)
		strbuf_add(sb, "_[k]", 4);
}

static void add_frame(struct strbuf *sb, const struct sym_frame *f)
{
	strbuf_addch(sb, ';');
	fold__add_frame_name(sb, f);
}

/* ";outer;...;inner" of a stack: the part of a line after the comm. */
static void append_frames(struct strbuf *sb, const struct sym_stack *st)
{
	uint32_t i;

	if (!st || st->nr_kernel + st->nr_user == 0) {
		strbuf_addstr(sb, ";[unknown]");
		return;
	}
	/* user frames: outermost (last) first */
	for (i = st->nr_user; i-- > 0;)
		add_frame(sb, sym_stack__frame(st, st->nr_kernel + i));
	/* then the kernel, from its entry point down to the sampled instruction */
	for (i = st->nr_kernel; i-- > 0;)
		add_frame(sb, sym_stack__frame(st, i));
}

static void append_comm(struct strbuf *sb, const char *comm)
{
	fold__add_name(sb, comm[0] ? comm : "[unknown]");
}

void fold__append_stack(struct strbuf *sb, const char *comm, const struct sym_stack *st)
{
	append_comm(sb, comm);
	append_frames(sb, st);
}

/*
 * Lines are counted as pairs (comm text, frames text), both interned in one
 * table: a sanitized comm has no ';' and the frames text starts with one, so
 * distinct pairs are distinct lines. The frames text is built once per
 * distinct symbolized stack, not once per aggregate entry.
 */
struct fold_line {
	uint32_t comm;			/* text ids */
	uint32_t frames;
	uint64_t count;
};

struct fold_ctx {
	struct strtab texts;
	struct strbuf sb;
	uint32_t *comm_text;		/* agg comm id -> text id + 1 (0: not yet) */
	struct u64map stacks;		/* symbolized stack (its address) -> text id */
	struct u64map lines;		/* comm << 32 | frames (text ids) -> count */
};

static int intern_sb(struct fold_ctx *fc, uint32_t *id)
{
	if (fc->sb.oom)
		return -ENOMEM;
	return strtab__intern_len(&fc->texts, fc->sb.buf, fc->sb.len, id);
}

static int comm_text(struct fold_ctx *fc, const struct stack_agg *agg, uint32_t comm_id,
		     uint32_t *id)
{
	int err;

	if (fc->comm_text[comm_id]) {
		*id = fc->comm_text[comm_id] - 1;
		return 0;
	}
	strbuf_reset(&fc->sb);
	append_comm(&fc->sb, stack_agg__comm(agg, comm_id));
	err = intern_sb(fc, id);
	if (!err)
		fc->comm_text[comm_id] = *id + 1;
	return err;
}

static int frames_text(struct fold_ctx *fc, const struct sym_stack *st, uint32_t *id)
{
	uint64_t *text = u64map__find(&fc->stacks, (uintptr_t)st);
	bool added;
	int err;

	if (text) {
		*id = (uint32_t)*text;
		return 0;
	}
	strbuf_reset(&fc->sb);
	append_frames(&fc->sb, st);
	err = intern_sb(fc, id);
	if (!err)
		err = u64map__upsert(&fc->stacks, (uintptr_t)st, *id, &text, &added);
	return err;
}

static int add_line(struct fold_ctx *fc, uint32_t comm, uint32_t frames, uint64_t count)
{
	uint64_t *sum;
	bool added;
	int err;

	if (!count)
		return 0;
	err = u64map__upsert(&fc->lines, (uint64_t)comm << 32 | frames, 0, &sum, &added);
	if (!err)
		*sum += count;
	return err;
}

/* strcmp() of the lines comm + frames, without building them. */
static int cmp_line(const void *a, const void *b, void *texts)
{
	const struct fold_line *x = a, *y = b;
	const unsigned char *p, *q;

	if (x->comm != y->comm) {
		p = (const unsigned char *)strtab__str(texts, x->comm);
		q = (const unsigned char *)strtab__str(texts, y->comm);
		while (*p && *p == *q)
			p++, q++;
		/* where a comm ends its frames begin, with ';' */
		if (*p || *q)
			return (*p ? *p : ';') - (*q ? *q : ';');
	}
	return strcmp(strtab__str(texts, x->frames), strtab__str(texts, y->frames));
}

int fold__write(const struct stack_agg *agg, const struct sym_table *stacks, bool us,
		FILE *out)
{
	struct fold_ctx fc = { .texts = STRTAB_INIT, .sb = STRBUF_INIT, .stacks = U64MAP_INIT,
			       .lines = U64MAP_INIT };
	struct fold_line *sorted = NULL;
	uint32_t c, f;
	size_t k, n;
	int err = 0;

	fc.comm_text = calloc(agg->comms.nr ? agg->comms.nr : 1, sizeof(*fc.comm_text));
	if (!fc.comm_text) {
		err = -ENOMEM;
		goto out;
	}
	for (k = 0; k < agg->nr; k++) {
		const struct agg_entry *e = &agg->entries[k];
		uint64_t n = us ? (e->count + 500) / 1000 : e->count;

		if (!n || !stacks->stack[k])
			continue;
		err = comm_text(&fc, agg, e->comm_id, &c);
		if (!err)
			err = frames_text(&fc, stacks->stack[k], &f);
		if (!err)
			err = add_line(&fc, c, f, n);
		if (err)
			goto out;
	}

	n = fc.lines.nr;
	sorted = calloc(n ? n : 1, sizeof(*sorted));
	if (!sorted) {
		err = -ENOMEM;
		goto out;
	}
	u64map__for_each(&fc.lines, k) {
		sorted[k].comm = (uint32_t)(fc.lines.keys[k] >> 32);
		sorted[k].frames = (uint32_t)fc.lines.keys[k];
		sorted[k].count = fc.lines.vals[k];
	}
	if (n > 1)
		qsort_r(sorted, n, sizeof(*sorted), cmp_line, &fc.texts);
	errno = 0;
	for (k = 0; k < n; k++)
		fprintf(out, "%s%s %" PRIu64 "\n", strtab__str(&fc.texts, sorted[k].comm),
			strtab__str(&fc.texts, sorted[k].frames), sorted[k].count);
	if (ferror(out))
		err = errno ? -errno : -EIO;
out:
	free(sorted);
	u64map__release(&fc.lines);
	u64map__release(&fc.stacks);
	free(fc.comm_text);
	strbuf_release(&fc.sb);
	strtab__release(&fc.texts);
	return err;
}
