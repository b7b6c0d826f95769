// SPDX-License-Identifier: MIT
/*
 * report/view.c - helpers every report view shares: the NUMA map, the
 * root-first frame names of an entry (what fold and SVG draw) and the
 * function table (what top, per-CPU, timeline and diff count).
 *
 * A function's "total" is the number of samples whose stack holds it at
 * least once: recursion must not count a sample twice, so the distinct
 * functions of a stack are found with a stamp per function rather than a
 * set per stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/output/fold.h"
#include "report/symbolize/symbolize.h"
#include "report/view.h"
#include "util/vec.h"

int view__parse_numa_map(const char *map, int32_t **cpu_node, size_t *nr)
{
	const char *p = map;
	int32_t *v = NULL, *nv;
	size_t n = 0, i;
	unsigned long cpu, node;
	char *end;

	*cpu_node = NULL;
	*nr = 0;
	while (*p) {
		if (*p < '0' || *p > '9')
			goto bad;
		cpu = strtoul(p, &end, 10);
		if (*end != ':' || cpu > 65535)
			goto bad;
		p = end + 1;
		if (*p < '0' || *p > '9')
			goto bad;
		node = strtoul(p, &end, 10);
		if ((*end && *end != ',') || node > 65535)
			goto bad;
		p = *end ? end + 1 : end;
		if (cpu >= n) {
			nv = reallocarray(v, cpu + 1, sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			for (i = n; i <= cpu; i++)
				v[i] = -1;
			n = cpu + 1;
		}
		v[cpu] = (int32_t)node;
	}
	*cpu_node = v;
	*nr = n;
	return 0;
bad:
	free(v);
	return -EINVAL;
}

/* --- names ------------------------------------------------------------------ */

void view__by_label(struct strbuf *sb, enum report_by by, const struct report_src *s,
		    const struct agg_entry *e)
{
	switch (by) {
	case REPORT_BY_PID:
		strbuf_addf(sb, "pid %" PRIu32, e->tgid);
		break;
	case REPORT_BY_TID:
		strbuf_addf(sb, "tid %" PRIu32, e->tid);
		break;
	case REPORT_BY_CGROUP:
		fold__add_name(sb, stack_agg__cgroup(&s->agg, e->cgroup));
		break;
	case REPORT_BY_FILE:
		fold__add_name(sb, s->path);
		break;
	default: {
		const char *c = stack_agg__comm(&s->agg, e->comm_id);

		fold__add_name(sb, c[0] ? c : "[unknown]");
		break;
	}
	}
}

/* Ends the name being built in v->sb: records its offset. */
static int push(struct view_names *v, size_t off)
{
	if (v->nr == v->alloc) {
		size_t a = v->alloc, b = v->alloc;

		/* one size for both: vec__grow's follows from (alloc, need) */
		if (vec__grow(&v->offs, &a, v->nr + 1, sizeof(*v->offs)) ||
		    vec__grow(&v->names, &b, v->nr + 1, sizeof(*v->names)))
			return -ENOMEM;
		v->alloc = a;
	}
	v->offs[v->nr++] = off;
	strbuf_addch(&v->sb, '\0');
	return 0;
}

static int push_frame(struct view_names *v, const struct sym_frame *f)
{
	size_t off = v->sb.len;

	fold__add_frame_name(&v->sb, f);
	return push(v, off);
}

int view_names__build(struct view_names *v, const struct report_ctx *rc,
		      const struct report_src *s, const struct agg_entry *e)
{
	const struct sym_stack *st = report_src__stack(s, e);
	size_t off, i;
	int err;

	strbuf_reset(&v->sb);
	v->nr = 0;
	if (report_by__level(rc->opts->by)) {
		view__by_label(&v->sb, rc->opts->by, s, e);
		err = push(v, 0);
		if (err)
			return err;
	}
	off = v->sb.len;
	view__by_label(&v->sb, REPORT_BY_COMM, s, e);
	err = push(v, off);
	if (!st || st->nr_kernel + st->nr_user == 0) {
		off = v->sb.len;
		strbuf_addstr(&v->sb, "[unknown]");
		if (!err)
			err = push(v, off);
	} else {
		for (i = st->nr_user; !err && i-- > 0;)
			err = push_frame(v, sym_stack__frame(st, st->nr_kernel + i));
		for (i = st->nr_kernel; !err && i-- > 0;)
			err = push_frame(v, sym_stack__frame(st, i));
	}
	if (err)
		return err;
	if (v->sb.oom)
		return -ENOMEM;
	for (i = 0; i < v->nr; i++)
		v->names[i] = v->sb.buf + v->offs[i];
	return 0;
}

void view_names__release(struct view_names *v)
{
	strbuf_release(&v->sb);
	free(v->offs);
	free(v->names);
	v->offs = NULL;
	v->names = NULL;
	v->nr = v->alloc = 0;
}

/* --- functions ------------------------------------------------------------- */

void func_tab__init(struct func_tab *ft)
{
	memset(ft, 0, sizeof(*ft));
	ft->sb = (struct strbuf)STRBUF_INIT;
	strtab__init(&ft->keys);
	strtab__init(&ft->strs);
}

void func_tab__release(struct func_tab *ft)
{
	if (!ft)
		return;
	strtab__release(&ft->keys);
	strtab__release(&ft->strs);
	free(ft->name);
	free(ft->binary);
	free(ft->mark);
	free(ft->ids);
	strbuf_release(&ft->sb);
	func_tab__init(ft);
}

static int intern_func(struct func_tab *ft, const char *name, const char *suffix, bool kernel,
		       const char *binary, uint32_t *id)
{
	struct strbuf *sb = &ft->sb;
	uint32_t nr = ft->keys.nr;
	size_t name_len;
	const char *key;
	int err;

	/* room for one more first, so a new key always gets its arrays */
	if (nr + 1 > ft->alloc) {
		size_t a = ft->alloc, b = ft->alloc, c = ft->alloc;

		/* one size for the three: vec__grow's follows from (alloc, need) */
		if (vec__grow(&ft->name, &a, (size_t)nr + 1, sizeof(*ft->name)) ||
		    vec__grow(&ft->binary, &b, (size_t)nr + 1, sizeof(*ft->binary)) ||
		    vec__grow(&ft->mark, &c, (size_t)nr + 1, sizeof(*ft->mark)))
			return -ENOMEM;
		ft->alloc = a;
	}
	/*
	 * the key is "display name" \x01 binary, \x02 after it for a kernel
	 * function: its name has no "_[k]", the binary says kernel
	 */
	strbuf_reset(sb);
	strbuf_addstr(sb, name);
	strbuf_addstr(sb, suffix);
	name_len = sb->len;
	strbuf_addch(sb, '\x01');
	strbuf_addstr(sb, binary);
	if (kernel)
		strbuf_addch(sb, '\x02');
	if (sb->oom)
		return -ENOMEM;
	err = strtab__intern_len(&ft->keys, sb->buf, sb->len, id);
	if (err || ft->keys.nr == nr)
		return err;
	key = strtab__str(&ft->keys, *id);
	ft->name[*id] = key;	/* until the display name is interned */
	ft->binary[*id] = key + name_len + 1;
	ft->mark[*id] = 0;
	err = strtab__intern_len(&ft->strs, key, name_len, &nr);
	if (!err)
		ft->name[*id] = strtab__str(&ft->strs, nr);
	if (!err && kernel) {	/* the binary without its \x02 */
		err = strtab__intern_len(&ft->strs, binary, strlen(binary), &nr);
		if (!err)
			ft->binary[*id] = strtab__str(&ft->strs, nr);
	}
	return err;
}

int func_tab__frame(struct func_tab *ft, const struct sym_frame *f, uint32_t *id)
{
	const char *bin;

	if (f->flags & SYM_FRAME_KERNEL)
		bin = f->dso ? f->dso : "[kernel.kallsyms]";
	else
		bin = f->dso && f->dso[0] ? f->dso : "[unknown]";
	/* a Python function is one row whatever line ran: its qualname, in its file */
	if ((f->flags & SYM_FRAME_PYTHON) && f->func && f->func[0])
		return intern_func(ft, f->func, "_[py]", false, bin, id);
	return intern_func(ft, f->name && f->name[0] ? f->name : "[unknown]", "",
			   (f->flags & SYM_FRAME_KERNEL) != 0, bin, id);
}

int func_tab__stack(struct func_tab *ft, const struct sym_stack *st, uint32_t *leaf)
{
	size_t nr = st ? (size_t)st->nr_kernel + st->nr_user : 0, i;
	uint32_t id;
	int err;

	ft->nr_ids = 0;
	if (++ft->stamp == 0) {		/* wrapped: forget every mark */
		memset(ft->mark, 0, ft->alloc * sizeof(*ft->mark));
		ft->stamp = 1;
	}
	if (!nr) {
		err = intern_func(ft, "[unknown]", "", false, "[unknown]", leaf);
		if (err)
			return err;
		nr = 0;
	}
	if (vec__grow(&ft->ids, &ft->alloc_ids, nr + 1, sizeof(*ft->ids)))
		return -ENOMEM;
	if (!nr) {
		ft->ids[ft->nr_ids++] = *leaf;
		return 0;
	}
	for (i = 0; i < nr; i++) {
		err = func_tab__frame(ft, sym_stack__frame(st, i), &id);
		if (err)
			return err;
		if (i == 0)
			*leaf = id;
		if (ft->mark[id] != ft->stamp) {
			ft->mark[id] = ft->stamp;
			ft->ids[ft->nr_ids++] = id;
		}
	}
	return 0;
}

int func_tab__grow_counts(const struct func_tab *ft, uint64_t **counts, size_t *alloc)
{
	return vec__grow_zero(counts, alloc, func_tab__nr(ft), sizeof(**counts));
}

void view__csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

int view__check_stream(FILE *out)
{
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

int view__write_merged(const struct view_merge_ops *ops, const struct report_ctx *rc, FILE *out)
{
	void *state = NULL;
	size_t i;
	int err;

	err = ops->start(&state, rc);
	for (i = 0; !err && i < rc->nr_srcs; i++)
		err = ops->add(state, rc, &rc->srcs[i]);
	if (!err)
		err = ops->write(state, rc, out);
	ops->free(state);
	return err;
}
