/* SPDX-License-Identifier: MIT */
/*
 * report/output/fold.h - folded stacks, the input of flamegraph.pl.
 *
 * One line per distinct folded stack: "comm;outer;...;inner COUNT", user
 * frames outermost first, then kernel frames outermost first, each of them
 * suffixed "_[k]". Lines are merged when equal and sorted bytewise.
 */
#ifndef EPROF_REPORT_OUT_FOLD_H
#define EPROF_REPORT_OUT_FOLD_H

#include <stdbool.h>
#include <stdio.h>

struct stack_agg;
struct sym_table;
struct strbuf;
struct sym_frame;
struct sym_stack;

/*
 * The one rule for a name in folded text (fold, SVG, diff, graph): ';'
 * (the frame separator) becomes ':' and control bytes (a '\n' would end
 * the line) become '?'. Appends s so changed to sb.
 */
void fold__add_name(struct strbuf *sb, const char *s);

/*
 * Appends the folded name of frame f: its name by fold__add_name() ("[unknown]"
 * when it has none), then "_[k]" for a kernel frame.
 */
void fold__add_frame_name(struct strbuf *sb, const struct sym_frame *f);

/*
 * Writes agg, whose entries' stacks are in stacks (a NULL one is left
 * out), to out; us: the counts are ns, written in microseconds rounded per
 * entry. Returns 0, -ENOMEM, or -EIO when out reports an error. Prints
 * nothing.
 */
int fold__write(const struct stack_agg *agg, const struct sym_table *stacks, bool us,
		FILE *out);

/*
 * Appends the folded form of one stack, without a count, to sb: comm, then
 * the frames. Characters that would break the format (';', control bytes)
 * are replaced. A stack without frames folds as "comm;[unknown]".
 */
void fold__append_stack(struct strbuf *sb, const char *comm, const struct sym_stack *st);

#endif
