/* SPDX-License-Identifier: MIT */
/*
 * report/output/change.h - the noise test of a change of share between two
 * recordings, one for every diff view (--diff --top, the --diff flame
 * graph's colours; the HTML page's diff.js does the same in JavaScript).
 *
 * A share p1 = c1/n1 that becomes p2 = c2/n2: its noise is the standard
 * error of a difference of two proportions, sqrt(p1(1-p1)/n1 + p2(1-p2)/n2),
 * and z the change over it. Sampling is close to binomial, so |z| >= 3 is
 * a change sampling error alone would make about once in 400 functions.
 */
#ifndef EPROF_REPORT_OUTPUT_CHANGE_H
#define EPROF_REPORT_OUTPUT_CHANGE_H

#include <math.h>
#include <stdint.h>

#define SHARE_SIGNIFICANT_Z	3.0

struct share_change {
	double p1, p2, delta, se, z;
};

static inline struct share_change share_change(uint64_t c1, uint64_t n1, uint64_t c2, uint64_t n2)
{
	struct share_change c;

	c.p1 = n1 ? (double)c1 / (double)n1 : 0;
	c.p2 = n2 ? (double)c2 / (double)n2 : 0;
	c.delta = c.p2 - c.p1;
	c.se = sqrt((n1 ? c.p1 * (1 - c.p1) / (double)n1 : 0) +
		    (n2 ? c.p2 * (1 - c.p2) / (double)n2 : 0));
	/*
	 * Shares of exactly 0 or 1 on both sides (a function on every stack
	 * of one recording and none of the other) give no spread: estimate
	 * it with one more sample of each kind per side (Agresti-Caffo)
	 * rather than call a total change noise.
	 */
	if (c.se == 0 && c.delta != 0) {
		double a1 = ((double)c1 + 1) / ((double)n1 + 2);
		double a2 = ((double)c2 + 1) / ((double)n2 + 2);

		c.se = sqrt(a1 * (1 - a1) / ((double)n1 + 2) + a2 * (1 - a2) / ((double)n2 + 2));
	}
	c.z = c.se > 0 ? c.delta / c.se : 0;
	return c;
}

/* Whether the change passes the test. */
static inline int share_change__significant(const struct share_change *c)
{
	return fabs(c->z) >= SHARE_SIGNIFICANT_Z;
}

#endif
