// SPDX-License-Identifier: MIT
/*
 * report/output/samples.c - --samples: every sample, in time order, in the
 * layout of `perf script` (its default fields for a cpu-clock recording):
 *
 *	app  1234/1235 [001]     2.345678:   10101010 cpu-clock:
 *		ffffffff81234567 do_syscall_64 ([kernel.kallsyms])
 *		    55d0c0de1234 main (/usr/bin/app)
 *	(blank line)
 *
 * that is comm, pid/tid, [cpu], seconds from the recording's start with
 * microseconds, the sampling period in ns, the event; then one frame a
 * line, innermost first: address, function, binary. Tools that read
 * perf script's text (stackcollapse-perf.pl, speedscope, the Firefox
 * profiler) read this. With several -i each recording follows the last,
 * after a "# FILE" line, which those tools skip.
 *
 * The samples are not held: they are streamed from the recording a second
 * time (stack_agg__walk(), with the filters that built the aggregate), and
 * each takes its symbolized stack from its aggregate entry, so memory
 * follows distinct stacks. The recorder sorts each chunk by time, but the
 * next chunk may reach back a little (the ring buffer delivers samples in
 * reservation order; the reader allows 10 ms); a min-heap of the last
 * REORDER_WINDOW samples puts them back in order, which holds at any rate
 * below 6.5 million samples a second.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/symbolize/symbolize.h"
#include "report/view.h"

#define REORDER_WINDOW	65536

struct pending {
	uint64_t time_ns;
	uint64_t seq;			/* arrival order: equal times stay in it */
	uint32_t tgid, tid, cpu;
	const struct agg_entry *e;
};

struct samples_ctx {
	const struct report_src *src;
	FILE *out;
	uint64_t period_ns;
	struct pending *heap;
	size_t nr;
	uint64_t seq;
};

static bool before(const struct pending *a, const struct pending *b)
{
	return a->time_ns != b->time_ns ? a->time_ns < b->time_ns : a->seq < b->seq;
}

static void swap(struct pending *a, struct pending *b)
{
	struct pending t = *a;

	*a = *b;
	*b = t;
}

static void heap_push(struct samples_ctx *c, const struct pending *p)
{
	size_t i = c->nr++, up;

	c->heap[i] = *p;
	for (; i > 0 && before(&c->heap[i], &c->heap[up = (i - 1) / 2]); i = up)
		swap(&c->heap[i], &c->heap[up]);
}

/* Removes the earliest sample into *p. */
static void heap_pop(struct samples_ctx *c, struct pending *p)
{
	size_t i = 0, l, m;

	*p = c->heap[0];
	c->heap[0] = c->heap[--c->nr];
	for (;;) {
		l = 2 * i + 1;
		m = i;
		if (l < c->nr && before(&c->heap[l], &c->heap[m]))
			m = l;
		if (l + 1 < c->nr && before(&c->heap[l + 1], &c->heap[m]))
			m = l + 1;
		if (m == i)
			break;
		swap(&c->heap[i], &c->heap[m]);
		i = m;
	}
}

/* Writes a name with control bytes as '?': each frame must stay on its line. */
static void put_name(FILE *out, const char *s)
{
	size_t n;

	/* a run at a time (the NUL ends one too): names rarely hold anything to replace */
	for (;;) {
		for (n = 0; (unsigned char)s[n] >= 0x20 && s[n] != 0x7f; n++)
			;
		fwrite(s, 1, n, out);
		if (!s[n])
			return;
		fputc('?', out);
		s += n + 1;
	}
}

/* "\t%16" PRIx64 " " without printf, which is most of the cost of a frame line */
static void put_addr(FILE *out, uint64_t addr)
{
	char buf[18];			/* a tab, 16 columns, a space */
	size_t i = sizeof(buf) - 1;

	buf[i] = ' ';
	do {
		buf[--i] = "0123456789abcdef"[addr & 0xf];
		addr >>= 4;
	} while (addr);
	while (i > 1)
		buf[--i] = ' ';
	buf[0] = '\t';
	fwrite(buf, 1, sizeof(buf), out);
}

static void put_frame(FILE *out, const struct sym_frame *f)
{
	bool kernel = f->flags & SYM_FRAME_KERNEL;
	bool known = f->dso && f->dso[0];

	put_addr(out, f->addr);
	put_name(out, f->name && f->name[0] ? f->name : "[unknown]");
	/* perf's names: "[kernel.kallsyms]", a module as "[name]", "[unknown]" */
	fputs(kernel || !known ? " ([" : " (", out);
	put_name(out, known ? f->dso : kernel ? "kernel.kallsyms" : "unknown");
	fputs(kernel || !known ? "])\n" : ")\n", out);
}

static void put_sample(const struct samples_ctx *c, const struct pending *p)
{
	const struct report_src *s = c->src;
	const struct sym_stack *st = report_src__stack(s, p->e);
	uint64_t rel = p->time_ns > s->start_ns ? p->time_ns - s->start_ns : 0;
	const char *comm = stack_agg__comm(&s->agg, p->e->comm_id);
	uint32_t i, n = st ? st->nr_kernel + st->nr_user : 0;

	put_name(c->out, comm[0] ? comm : "[unknown]");
	fprintf(c->out, " %5" PRIu32 "/%-5" PRIu32 " [%03" PRIu32 "] %5" PRIu64 ".%06" PRIu64
		": %10" PRIu64 " cpu-clock:\n", p->tgid, p->tid, p->cpu, rel / 1000000000u,
		rel % 1000000000u / 1000u, c->period_ns);
	for (i = 0; i < n; i++)
		put_frame(c->out, sym_stack__frame(st, i));
	if (!n)
		fprintf(c->out, "\t%16x [unknown] ([unknown])\n", 0);
	fputc('\n', c->out);
}

static int on_sample(void *ctx, const struct rec_sample *s, const struct agg_entry *e)
{
	struct samples_ctx *c = ctx;
	struct pending p = { s->time_ns, c->seq++, s->tgid, s->tid, s->cpu, e };
	struct pending first;

	if (!report_src__stack(c->src, e))
		return 0;	/* cut away whole */
	if (c->nr == REORDER_WINDOW) {
		heap_pop(c, &first);
		put_sample(c, &first);
	}
	heap_push(c, &p);
	return ferror(c->out) ? -EIO : 0;
}

int view_samples__write(const struct report_ctx *rc, FILE *out)
{
	struct samples_ctx c = { .out = out };
	struct pending p;
	size_t i;
	int err = 0;

	c.heap = calloc(REORDER_WINDOW, sizeof(*c.heap));
	if (!c.heap)
		return -ENOMEM;
	for (i = 0; i < rc->nr_srcs && !err; i++) {
		struct report_src *s = &rc->srcs[i];

		c.src = s;
		c.period_ns = s->freq_hz ? 1000000000u / s->freq_hz : 0;
		if (rc->nr_srcs > 1)
			fprintf(out, "# %s\n", s->path);
		err = stack_agg__walk(&s->agg, s->rec, &s->cfg, on_sample, &c);
		while (c.nr) {
			heap_pop(&c, &p);
			if (!err)
				put_sample(&c, &p);
		}
	}
	free(c.heap);
	return err ? err : view__check_stream(out);
}
