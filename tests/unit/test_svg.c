// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_svg.c - the frame tree (report/aggregate/flame.c) and the SVG flame
 * graph writer (report/output/svg.c), written into open_memstream() buffers and
 * read back with plain string searches; xmllint checks well-formedness when
 * it is installed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/aggregate/flame.h"
#include "report/output/svg.h"
#include "tests/unit/harness.h"

#define MAX_SEEN 64

/* What a walk saw, in order. */
struct seen {
	size_t nr;
	struct flame_frame f[MAX_SEEN];
	char name[MAX_SEEN][64];
};

static int record_frame(const struct flame_frame *f, void *arg)
{
	struct seen *s = arg;

	if (s->nr == MAX_SEEN)
		return -ENOSPC;
	s->f[s->nr] = *f;
	snprintf(s->name[s->nr], sizeof(s->name[0]), "%s", f->name);
	s->f[s->nr].name = s->name[s->nr];
	s->nr++;
	return 0;
}

static const struct flame_frame *find(const struct seen *s, const char *name, size_t depth)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (s->f[i].depth == depth && !strcmp(s->f[i].name, name))
			return &s->f[i];
	}
	return NULL;
}

#define ADD(t, c, c2, ...)                                                              \
	do {                                                                            \
		const char *const fr_[] = { __VA_ARGS__ };                             \
		CHECK_OK(flame_tree__add(t, fr_, ARRAY_SIZE(fr_), c, c2));             \
	} while (0)

/* Writes the tree into a malloc'ed string (caller frees); NULL when svg__write failed. */
static char *render(const struct flame_tree *t, const struct svg_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return NULL;
	err = svg__write(t, o, f);
	fclose(f);
	CHECK_EQ_U64(err, 0);
	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The <g> of the frame whose title starts with "name (", or NULL. */
static const char *frame_of(const char *svg, const char *escaped_name)
{
	char key[256];

	snprintf(key, sizeof(key), "<title>%s (", escaped_name);
	return strstr(svg, key);
}

/* attr="..." of the frame's <rect>, copied into buf; false when absent. */
static bool rect_attr(const char *svg, const char *name, const char *attr, char *buf, size_t sz)
{
	const char *g = frame_of(svg, name), *r, *end, *a;
	char key[64];
	size_t n;

	if (!g)
		return false;
	r = strstr(g, "<rect ");
	end = r ? strchr(r, '>') : NULL;
	if (!end)
		return false;
	snprintf(key, sizeof(key), " %s=\"", attr);
	a = strstr(r, key);
	if (!a || a > end)
		return false;
	a += strlen(key);
	n = strcspn(a, "\"");
	if (n >= sz)
		return false;
	memcpy(buf, a, n);
	buf[n] = '\0';
	return true;
}

static double rect_num(const char *svg, const char *name, const char *attr)
{
	char buf[64];

	return rect_attr(svg, name, attr, buf, sizeof(buf)) ? strtod(buf, NULL) : -1;
}

static bool rect_fill(const char *svg, const char *name, int *r, int *g, int *b)
{
	char buf[64];

	return rect_attr(svg, name, "fill", buf, sizeof(buf)) &&
	       sscanf(buf, "rgb(%d,%d,%d)", r, g, b) == 3;
}

static int skip_main(const struct flame_frame *f, void *arg)
{
	size_t *nr = arg;

	(*nr)++;
	return strcmp(f->name, "main") ? 0 : FLAME_WALK_SKIP;
}

static void counts_propagate(void)
{
	struct flame_tree *t = flame_tree__new();
	const struct flame_frame *f, *c;
	struct seen s = { 0 };
	uint64_t kids;
	size_t i, j;

	CHECK(t);
	if (!t)
		return;
	ADD(t, 3, 0, "app", "main", "work", "compute");
	ADD(t, 2, 0, "app", "main", "work");
	ADD(t, 5, 0, "app", "main", "io", "read_[k]");
	ADD(t, 1, 0, "app", "main", "work", "compute");	/* same stack again: counts add */
	ADD(t, 4, 0, "db", "main");
	CHECK_OK(flame_tree__add(t, NULL, 0, 1, 0));		/* empty stack: the root only */
	CHECK_EQ_U64(flame_tree__total(t), 16);
	CHECK_EQ_U64(flame_tree__nr_frames(t), 8);
	CHECK_OK(flame_tree__walk(t, record_frame, &s));
	CHECK_EQ_U64(s.nr, 8);

	f = find(&s, "work", 2);
	CHECK(f && f->total == 6 && f->self == 2);
	f = find(&s, "compute", 3);
	CHECK(f && f->total == 4 && f->self == 4);
	f = find(&s, "main", 1);
	CHECK(f && f->total == 11 && f->self == 0);
	f = find(&s, "app", 0);
	CHECK(f && f->total == 11);
	f = find(&s, "db", 0);
	CHECK(f && f->total == 4 && f->start == 11);	/* after app's 11 samples */

	/* everywhere: total = self + the children's totals; children sit inside the parent */
	for (i = 0; i < s.nr; i++) {
		f = &s.f[i];
		kids = 0;
		for (j = i + 1; j < s.nr && s.f[j].depth > f->depth; j++) {
			c = &s.f[j];
			if (c->depth != f->depth + 1)
				continue;
			kids += c->total;
			CHECK(c->start >= f->start && c->start + c->total <= f->start + f->total);
		}
		CHECK_EQ_U64(f->total, f->self + kids);
	}
	/* FLAME_WALK_SKIP leaves out what is below: app, main, db, main */
	i = 0;
	CHECK_OK(flame_tree__walk(t, skip_main, &i));
	CHECK_EQ_U64(i, 4);
	flame_tree__free(t);
}

static void children_sorted(void)
{
	struct flame_tree *t = flame_tree__new();
	struct seen s = { 0 };
	const char *names[] = { "zeta", "alpha", "mid", "Beta", "alpha2", "_x" };
	char *svg;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		ADD(t, i + 1, 0, "comm", names[i]);
	ADD(t, 1, 0, "comm", "mid");
	CHECK_OK(flame_tree__walk(t, record_frame, &s));
	CHECK_EQ_U64(s.nr, 7);
	for (i = 2; i < s.nr; i++)
		CHECK(strcmp(s.f[i - 1].name, s.f[i].name) < 0);
	CHECK_STR(s.f[1].name, "Beta");	/* strcmp order, as sort(1) in the C locale */
	CHECK_STR(s.f[6].name, "zeta");
	for (i = 2; i < s.nr; i++)
		CHECK_EQ_U64(s.f[i].start, s.f[i - 1].start + s.f[i - 1].total);

	/* the SVG lists them in the same order, left to right */
	svg = render(t, NULL);
	CHECK(svg);
	if (svg) {
		CHECK(frame_of(svg, "Beta") < frame_of(svg, "_x"));
		CHECK(frame_of(svg, "_x") < frame_of(svg, "alpha"));
		CHECK(frame_of(svg, "alpha2") < frame_of(svg, "zeta"));
		CHECK(rect_num(svg, "alpha", "x") < rect_num(svg, "zeta", "x"));
	}
	free(svg);
	flame_tree__free(t);
}

static int check_triples(const struct flame_frame *f, void *arg)
{
	size_t *bad = arg;

	if ((f->depth == 1 && f->total != 3) || (f->depth == 2 && f->self != 3))
		(*bad)++;
	return 0;
}

/* Past a few children the lookup changes method (scan, then table): no duplicates either way. */
static void one_node_per_name(void)
{
	struct flame_tree *t = flame_tree__new();
	size_t i, round, bad = 0;
	char name[16];

	for (round = 0; round < 3; round++) {
		for (i = 0; i < 40; i++) {
			const char *fr[3] = { "comm", name, "leaf" };

			snprintf(name, sizeof(name), "fn%02zu", (i * 7) % 40);
			CHECK_OK(flame_tree__add(t, fr, 3, 1, 0));
		}
	}
	CHECK_EQ_U64(flame_tree__nr_frames(t), 1 + 40 + 40);
	CHECK_EQ_U64(flame_tree__total(t), 120);
	CHECK_OK(flame_tree__walk(t, check_triples, &bad));	/* each fnNN 3, each leaf 3 */
	CHECK_EQ_U64(bad, 0);
	flame_tree__free(t);
}

static void names_are_escaped(void)
{
	struct flame_tree *t = flame_tree__new();
	struct svg_opts o = { .title = "cmd <a&b>", .subtitle = "host \"h\" 'q'" };
	char *svg;

	ADD(t, 10, 0, "comm", "operator<<(std::ostream&, T const&)", "say\"hi'", "a>b");
	ADD(t, 10, 0, "comm", "bad\x01utf\xff\xfe-8");
	svg = render(t, &o);
	CHECK(svg);
	if (!svg)
		goto out;
	CHECK(frame_of(svg, "operator&lt;&lt;(std::ostream&amp;, T const&amp;)"));
	CHECK(frame_of(svg, "say&quot;hi&apos;"));
	CHECK(frame_of(svg, "a&gt;b"));
	CHECK(frame_of(svg, "bad?utf\xef\xbf\xbd\xef\xbf\xbd-8"));
	CHECK(strstr(svg, ">cmd &lt;a&amp;b&gt;</text>"));
	CHECK(strstr(svg, ">host &quot;h&quot; &apos;q&apos;</text>"));
	CHECK(!strstr(svg, "operator<<"));
	CHECK(!strstr(svg, "say\"hi"));
	CHECK(!strstr(svg, "\xff"));
	CHECK(!strstr(svg, "\x01"));
out:
	free(svg);
	flame_tree__free(t);
}

static void narrow_frames_are_omitted_but_counted(void)
{
	struct flame_tree *t = flame_tree__new();
	struct svg_opts o = { 0 };
	char *svg;

	/* 1 sample of 100001 is 0.012 px of 1180: below the default 0.1 px */
	ADD(t, 100000, 0, "comm", "main", "big");
	ADD(t, 1, 0, "comm", "main", "tiny", "tinier");
	svg = render(t, NULL);
	CHECK(svg);
	if (svg) {
		CHECK(frame_of(svg, "big"));
		CHECK(!strstr(svg, "tiny"));
		CHECK(strstr(svg, "<title>main (100001 samples, 100.00%)</title>"));
		CHECK(strstr(svg, ">1 frame narrower than 0.1 px not drawn, with their callees"));
	}
	free(svg);

	/* a negative minimum draws everything */
	o.min_width_px = -1;
	svg = render(t, &o);
	CHECK(svg);
	if (svg) {
		CHECK(frame_of(svg, "tinier"));
		CHECK(!strstr(svg, "not drawn"));
	}
	free(svg);
	flame_tree__free(t);
}

static void icicle_flips_y(void)
{
	struct flame_tree *t = flame_tree__new();
	struct svg_opts o = { 0 };
	double all_y, leaf_y, comm_y;
	char *svg;

	ADD(t, 5, 0, "comm", "main", "leaf");
	svg = render(t, &o);
	CHECK(svg);
	if (svg) {
		all_y = rect_num(svg, "all", "y");
		comm_y = rect_num(svg, "comm", "y");
		leaf_y = rect_num(svg, "leaf", "y");
		CHECK(all_y > comm_y && comm_y > leaf_y);	/* flame: root at the bottom */
		CHECK(strstr(svg, ">Flame Graph</text>"));
	}
	free(svg);
	o.icicle = true;
	svg = render(t, &o);
	CHECK(svg);
	if (svg) {
		all_y = rect_num(svg, "all", "y");
		comm_y = rect_num(svg, "comm", "y");
		leaf_y = rect_num(svg, "leaf", "y");
		CHECK(all_y >= 0 && all_y < comm_y && comm_y < leaf_y);	/* root on top */
		CHECK(strstr(svg, ">Icicle Graph</text>"));
	}
	free(svg);
	flame_tree__free(t);
}

static void diff_colours_follow_share_changes(void)
{
	struct flame_tree *t = flame_tree__new();
	struct svg_opts o = { .diff = true };
	int r, g, b;
	char *svg;

	/* new counts first, baseline second: grew 25% -> 50%, shrank 50% -> 25%, same 25% */
	ADD(t, 50, 25, "comm", "grew");
	ADD(t, 25, 50, "comm", "shrank");
	ADD(t, 25, 25, "comm", "same");
	svg = render(t, &o);
	CHECK(svg);
	if (!svg)
		goto out;
	CHECK(rect_fill(svg, "grew", &r, &g, &b));
	CHECK(r == 255 && g < 100 && b < 100);
	CHECK(rect_fill(svg, "shrank", &r, &g, &b));
	CHECK(b == 255 && r < 100 && g < 100);
	CHECK(rect_fill(svg, "same", &r, &g, &b));
	CHECK(r > 235 && g > 235 && b > 235);
	/* widths follow the new counts */
	CHECK(rect_num(svg, "grew", "width") > 1.9 * rect_num(svg, "shrank", "width"));
	CHECK(strstr(svg, "<title>grew (50 samples, 50.00%; base 25 samples, 25.00%; "
			  "change +25.00%)</title>"));
	free(svg);

	/* a change within the noise (|z| < 3, as --diff --top) stays pale */
	flame_tree__free(t);
	t = flame_tree__new();
	ADD(t, 520, 480, "comm", "noise");	/* 52% -> 48% of 1000: z ~ 1.8 */
	ADD(t, 480, 520, "comm", "other");
	o.total2 = 0;
	svg = render(t, &o);
	CHECK(svg);
	if (!svg)
		goto out;
	CHECK(rect_fill(svg, "noise", &r, &g, &b));
	CHECK(r == 245 && g == 245 && b == 245);
	CHECK(strstr(svg, "<g id=\"legend\">"));
	CHECK(strstr(svg, "within the noise"));
	free(svg);
	flame_tree__free(t);
	t = flame_tree__new();
	ADD(t, 50, 25, "comm", "grew");
	ADD(t, 25, 50, "comm", "shrank");
	ADD(t, 25, 25, "comm", "same");

	/* opts->total2 overrides the tree's baseline total: now every share grew */
	o.total2 = 1000;
	svg = render(t, &o);
	CHECK(svg);
	if (svg) {
		CHECK(rect_fill(svg, "shrank", &r, &g, &b));
		CHECK(r == 255 && g < 255);
	}
out:
	free(svg);
	flame_tree__free(t);
}

static void category_colours(void)
{
	struct flame_tree *t = flame_tree__new();
	int r, g, b, r2, g2, b2;
	char *svg;

	ADD(t, 10, 0, "comm", "user_fn", "sys_read_[k]");
	ADD(t, 10, 0, "comm", "java_jit_[j]", "[unknown]");
	ADD(t, 10, 0, "comm", "libc.so.6+0x1234", "user_fn");
	svg = render(t, NULL);
	CHECK(svg);
	if (!svg)
		goto out;
	CHECK(rect_fill(svg, "comm", &r, &g, &b));
	CHECK(b > r && b > g);				/* blue-grey neutral */
	CHECK(rect_fill(svg, "sys_read_[k]", &r, &g, &b));
	CHECK(r >= 240 && g >= 160 && b >= 100 && r > g && g > b);	/* pale orange */
	CHECK(rect_fill(svg, "java_jit_[j]", &r, &g, &b));
	CHECK(g > r && g > b);				/* green */
	CHECK(rect_fill(svg, "[unknown]", &r, &g, &b));
	CHECK(r == g && g == b);			/* grey */
	CHECK(rect_fill(svg, "libc.so.6+0x1234", &r, &g, &b));
	CHECK(r == g && g == b);
	CHECK(rect_fill(svg, "user_fn", &r, &g, &b));
	CHECK(r >= 205 && b <= 55);			/* hot */
	/* the second user_fn (under libc.so.6+0x1234) has the same colour */
	{
		const char *second = strstr(frame_of(svg, "user_fn") + 1, "<title>user_fn (");
		char buf[64];

		CHECK(second);
		if (second) {
			CHECK(rect_attr(second, "user_fn", "fill", buf, sizeof(buf)));
			CHECK(sscanf(buf, "rgb(%d,%d,%d)", &r2, &g2, &b2) == 3);
			CHECK(r == r2 && g == g2 && b == b2);
		}
	}
out:
	free(svg);
	flame_tree__free(t);
}

/* A deterministic xorshift generator, so failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void big_random_tree(void)
{
	enum { NR_STACKS = 100000, NR_NAMES = 5000, NR_COMMS = 20 };
	static char names[NR_NAMES][24];
	struct flame_tree *t = flame_tree__new();
	const char *frames[40];
	uint64_t total = 0, c;
	double t0, t1, t2;
	size_t i, j, depth, len = 0;
	char *buf = NULL;
	FILE *f;

	for (i = 0; i < NR_NAMES; i++) {
		if (i < NR_COMMS)
			snprintf(names[i], sizeof(names[i]), "comm%zu", i);
		else
			snprintf(names[i], sizeof(names[i]), "fn_%zu%s", i,
				 i % 7 == 0 ? "_[k]" : "");
	}
	t0 = now_s();
	for (i = 0; i < NR_STACKS; i++) {
		depth = 25 + rng() % 11;
		frames[0] = names[rng() % NR_COMMS];
		/* a shared-ish prefix, then random frames: like real stacks */
		for (j = 1; j < depth; j++)
			frames[j] = names[NR_COMMS + (j < 4 ? rng() % 8 :
							  rng() % (NR_NAMES - NR_COMMS))];
		c = 1 + rng() % 100;
		total += c;
		CHECK_OK(flame_tree__add(t, frames, depth, c, 0));
	}
	t1 = now_s();
	f = open_memstream(&buf, &len);
	CHECK(f);
	if (f) {
		CHECK_OK(svg__write(t, NULL, f));
		fclose(f);
	}
	t2 = now_s();
	CHECK_EQ_U64(flame_tree__total(t), total);
	CHECK(flame_tree__nr_frames(t) > NR_STACKS);
	CHECK(buf && strstr(buf, "</svg>\n"));
	printf("  # %d random stacks (%zu distinct frames): build %.3f s, svg %.3f s "
	       "(%zu bytes), total %.3f s\n", NR_STACKS, flame_tree__nr_frames(t), t1 - t0,
	       t2 - t1, len, t2 - t0);
	free(buf);
	flame_tree__free(t);
}

struct name_check {
	char **titles;		/* names in the SVG's <title>s, sorted */
	size_t nr_titles;
	uint64_t total;
	size_t drawn, missing;
};

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Collects the frame names of every <title>; the names of this test need no
 * unescaping. One pass by hand: strstr() in a loop is quadratic under ASan,
 * whose interceptor measures the whole haystack on every call.
 */
static void collect_titles(const char *svg, struct name_check *nc)
{
	const size_t tl = strlen("<title>");
	const char *p, *end;
	size_t n = 0;

	for (p = svg; *p; p++)
		n += *p == '<' && !strncmp(p, "<title>", tl);
	nc->titles = calloc(n ? n : 1, sizeof(*nc->titles));
	if (!nc->titles)
		return;
	for (p = svg; *p; p++) {
		if (*p != '<' || strncmp(p, "<title>", tl))
			continue;
		p += tl;
		for (end = p; *end && *end != '<' && strncmp(end, " (", 2); end++)
			;
		if (nc->nr_titles < n && *end == ' ')
			nc->titles[nc->nr_titles++] = strndup(p, (size_t)(end - p));
	}
	qsort(nc->titles, nc->nr_titles, sizeof(*nc->titles), by_str);
}

static int check_name(const struct flame_frame *f, void *arg)
{
	struct name_check *nc = arg;

	if ((double)f->total / (double)nc->total * 1180.0 < 0.1)
		return 0;
	nc->drawn++;
	if (!bsearch(&f->name, nc->titles, nc->nr_titles, sizeof(*nc->titles), by_str)) {
		fprintf(stderr, "  missing frame '%s'\n", f->name);
		nc->missing++;
	}
	return 0;
}

static void every_wide_frame_is_in_the_output(void)
{
	struct flame_tree *t = flame_tree__new();
	struct name_check nc = { 0 };
	const char *frames[12];
	char names[300][16];
	size_t i, j, depth;
	char *svg;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		snprintf(names[i], sizeof(names[i]), "f%zu%s", i, i % 5 ? "" : "_[k]");
	for (i = 0; i < 3000; i++) {
		depth = 1 + rng() % 12;
		for (j = 0; j < depth; j++)
			frames[j] = names[rng() % ARRAY_SIZE(names)];
		CHECK_OK(flame_tree__add(t, frames, depth, 1 + rng() % 1000, 0));
	}
	svg = render(t, NULL);
	CHECK(svg);
	if (svg) {
		collect_titles(svg, &nc);
		nc.total = flame_tree__total(t);
		CHECK_OK(flame_tree__walk(t, check_name, &nc));
		CHECK(nc.drawn > 100);
		CHECK_EQ_U64(nc.missing, 0);
		/* and nothing else: every <title> but "all" is a drawn frame */
		CHECK_EQ_U64(nc.nr_titles, nc.drawn + 1);
		printf("  # %zu of %zu frames drawn\n", nc.drawn, flame_tree__nr_frames(t));
	}
	for (i = 0; i < nc.nr_titles; i++)
		free(nc.titles[i]);
	free(nc.titles);
	free(svg);
	flame_tree__free(t);
}

static void xml_is_well_formed(void)
{
	struct flame_tree *t = flame_tree__new();
	struct svg_opts o = { .title = "eprof <record> & \"friends\"", .subtitle = "it's",
			      .diff = true };
	const char *path = path_in("flame.svg");
	char cmd[600];
	FILE *f;
	int rc;

	if (system("command -v xmllint >/dev/null 2>&1") != 0) {
		printf("  # xmllint is not installed: well-formedness not checked "
		       "(apt-get install libxml2-utils)\n");
		flame_tree__free(t);
		return;
	}
	ADD(t, 7, 3, "bash", "main", "operator<<(a&b)", "x]]>y_[k]");
	ADD(t, 3, 9, "bash", "bad\x02\xc3\x28utf", "[unknown]");
	ADD(t, 1, 0, "python3", "\xf0\x9f\x94\xa5 fire", "'quoted'");
	f = fopen(path, "w");
	CHECK(f);
	if (!f)
		goto out;
	CHECK_OK(svg__write(t, &o, f));
	CHECK(fclose(f) == 0);
	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", path);
	rc = system(cmd);
	CHECK_EQ_U64(rc, 0);
	/* the empty tree is a valid document too */
	flame_tree__free(t);
	t = flame_tree__new();
	f = fopen(path, "w");
	CHECK(f);
	if (!f)
		goto out;
	CHECK_OK(svg__write(t, NULL, f));
	CHECK(fclose(f) == 0);
	rc = system(cmd);
	CHECK_EQ_U64(rc, 0);
out:
	flame_tree__free(t);
}

/* The embedded script at least parses: node --check, when node is installed. */
static void script_parses(void)
{
	static const char open_tag[] = "<script type=\"text/ecmascript\"><![CDATA[";
	struct flame_tree *t = flame_tree__new();
	const char *path = path_in("flame.js"), *js, *end;
	char cmd[600];
	char *svg;
	FILE *f;

	if (system("command -v node >/dev/null 2>&1") != 0) {
		printf("  # node is not installed: the script's syntax is not checked\n");
		flame_tree__free(t);
		return;
	}
	ADD(t, 1, 0, "comm", "main");
	svg = render(t, NULL);
	CHECK(svg);
	if (!svg)
		goto out;
	js = strstr(svg, open_tag);
	end = js ? strstr(js, "]]></script>") : NULL;
	CHECK(js && end);
	if (!end)
		goto out;
	js += strlen(open_tag);
	f = fopen(path, "w");
	CHECK(f);
	if (!f)
		goto out;
	CHECK_EQ_U64(fwrite(js, 1, (size_t)(end - js), f), (size_t)(end - js));
	CHECK(fclose(f) == 0);
	snprintf(cmd, sizeof(cmd), "node --check '%s'", path);
	CHECK_EQ_U64(system(cmd), 0);
out:
	free(svg);
	flame_tree__free(t);
}

static void errors_are_returned(void)
{
	struct flame_tree *t = flame_tree__new();
	const char *bad[] = { "comm", NULL };
	const char *empty[] = { "comm", "" };
	const char *ok[] = { "comm", "main" };
	struct seen s = { 0 };
	FILE *full;

	CHECK_EQ_U64(flame_tree__add(t, bad, 2, 1, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(flame_tree__add(t, empty, 2, 1, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(flame_tree__add(t, NULL, 1, 1, 0), (uint64_t)-EINVAL);
	CHECK_OK(flame_tree__add(t, ok, 2, UINT64_MAX - 1, 0));
	CHECK_EQ_U64(flame_tree__add(t, ok, 2, 2, 0), (uint64_t)-EOVERFLOW);
	CHECK_EQ_U64(flame_tree__total(t), UINT64_MAX - 1);	/* unchanged by the failure */
	CHECK_OK(flame_tree__walk(t, record_frame, &s));
	CHECK_EQ_U64(s.nr, 2);
	CHECK_EQ_U64(s.f[1].total, UINT64_MAX - 1);

	full = fopen("/dev/full", "w");
	if (full) {
		CHECK_EQ_U64(svg__write(t, NULL, full), (uint64_t)-EIO);
		fclose(full);
	} else {
		printf("  # /dev/full is missing: write errors not checked\n");
	}
	flame_tree__free(t);
	flame_tree__free(NULL);
}

static void script_and_controls_are_there(void)
{
	struct flame_tree *t = flame_tree__new();
	char *svg;

	ADD(t, 1, 0, "comm", "main");
	svg = render(t, NULL);
	CHECK(svg);
	if (svg) {
		CHECK(!strncmp(svg, "<?xml ", 6));
		CHECK(strstr(svg, "<script type=\"text/ecmascript\"><![CDATA["));
		CHECK(strstr(svg, "var EPROF = { total: 1,"));
		CHECK(strstr(svg, "id=\"unzoom\""));
		CHECK(strstr(svg, "id=\"search\""));
		CHECK(strstr(svg, "id=\"details\""));
		CHECK(strstr(svg, "id=\"matched\""));
		CHECK(strstr(svg, "Matched: "));
		CHECK(strstr(svg, "ctrlKey"));
		CHECK(!strstr(svg, "http://") || !strstr(strstr(svg, "http://") + 1, "http://"));
		CHECK(strstr(svg, "<title>all (1 samples, 100.00%)</title>"));
	}
	free(svg);
	flame_tree__free(t);
}

static const struct test tests[] = {
	{ "counts propagate to parents", counts_propagate },
	{ "children are sorted by name", children_sorted },
	{ "one node per (parent, name), however many children", one_node_per_name },
	{ "names and titles are escaped", names_are_escaped },
	{ "narrow frames are omitted but counted", narrow_frames_are_omitted_but_counted },
	{ "icicle mode flips y", icicle_flips_y },
	{ "diff colours follow share changes", diff_colours_follow_share_changes },
	{ "kernel, user, jit, unknown and comm colours", category_colours },
	{ "100k random stacks build and write", big_random_tree },
	{ "every wide frame is in the output", every_wide_frame_is_in_the_output },
	{ "xmllint accepts the output", xml_is_well_formed },
	{ "the embedded script parses", script_parses },
	{ "errors are returned, not hidden", errors_are_returned },
	{ "script and controls are embedded", script_and_controls_are_there },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
