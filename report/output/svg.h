/* SPDX-License-Identifier: MIT */
/*
 * report/output/svg.h - a frame tree as a self-contained, interactive SVG flame
 * graph (click to zoom, search with a regex, details on hover), in the
 * manner of Brendan Gregg's flamegraph.pl.
 */
#ifndef EPROF_REPORT_OUT_SVG_H
#define EPROF_REPORT_OUT_SVG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/aggregate/flame.h"

struct svg_opts {
	const char *title;	/* NULL: "Flame Graph", "Icicle Graph" or a diff title */
	const char *subtitle;	/* NULL: none; e.g. command, host, duration, samples */
	bool icicle;		/* root at the top, stacks growing down */
	bool diff;		/* colour by change against the baseline counts (count2) */
	bool time_ns;		/* counts are nanoseconds (report --off-cpu, --wall) */
	uint64_t total2;	/* baseline total for shares; 0: the tree's total2 */
	unsigned width;		/* image width in px; 0: 1200; at least 200 */
	double min_width_px;	/* narrower frames are not drawn; 0: 0.1, negative: draw all */
};

/*
 * Writes the tree as one SVG document to out. Frame widths follow the new
 * counts (count of flame_tree__add()); with opts->diff each frame is red where
 * its share of the total grew against the baseline, blue where it shrank.
 * opts may be NULL for all defaults. Text is escaped and invalid UTF-8 in
 * names is replaced, so the output is well-formed XML whatever the names.
 * Returns 0, -ENOMEM, or -EIO when writing to out failed; prints nothing (the
 * caller knows the file name).
 */
int svg__write(const struct flame_tree *t, const struct svg_opts *opts, FILE *out);

#endif
