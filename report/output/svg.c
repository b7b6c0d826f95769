// SPDX-License-Identifier: MIT
/*
 * report/output/svg.c - writes a frame tree as an interactive SVG flame graph.
 *
 * The document is complete without its script: every drawn frame is a
 * <g class="f"> holding a <title> ("name (N samples, P%)"), a <rect> and a
 * label already cut to fit, so viewers that do not run scripts still show the
 * graph and the names can be found with grep. The embedded script (plain JS,
 * in CDATA; report/output/svg/flame.js, with its style in flame.css, compiled in
 * at build time) adds zoom, search and the details line. To do that without
 * re-deriving the layout it reads three attributes per frame: data-s, the
 * frame's first sample on the x axis (samples are laid out left to right
 * once, and every frame covers the samples of its stacks at every depth),
 * data-n its sample count, data-d its row (0 is the "all" row).
 *
 * Two walks over the tree: the first finds the height, the number of frames
 * too narrow to draw and, for differential graphs, the largest change (colour
 * intensity is relative to it); the second writes the frames. Neither goes
 * below a frame too narrow to draw, so the cost follows what is drawn, not
 * the size of the tree.
 */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <string.h>

#include "report/output/change.h"
#include "report/output/svg.h"
#include "util/hash.h"

#define DEFAULT_WIDTH	1200
#define DEFAULT_MIN_PX	0.1
#define XPAD		10.0
#define FRAME_H		16	/* row pitch; the rect is one pixel less */
#define FONT_SIZE	12
#define CHAR_W		(FONT_SIZE * 0.59)	/* estimated average Verdana advance */
#define TITLE_H		36
#define SUBTITLE_H	18
#define BOTTOM_H	40
#define LEGEND_H	20	/* a diff's colour legend, above the details line */

struct svg_ctx {
	FILE *out;
	const struct svg_opts *opts;
	unsigned width;
	double min_px;
	double plot_w;		/* width of the frames area */
	uint64_t total, total2;
	/* filled by the measuring walk */
	size_t max_depth;
	bool any_drawn;
	size_t nr_omitted;
	double max_delta;
	/* layout */
	size_t rows;		/* the "all" row plus one per drawn depth */
	unsigned top, height;
};

/* libm-free helpers: the writer needs nothing more than these */
static double absd(double x)
{
	return x < 0 ? -x : x;
}

/* Decodes one UTF-8 sequence; returns its length, and *cp = 0xfffd when it is invalid. */
static size_t utf8_next(const unsigned char *s, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		len = 2;
		c &= 0x1f;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3;
		c &= 0x0f;
		min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) {	/* also stops at the NUL */
			*cp = 0xfffd;
			return 1;
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
		*cp = 0xfffd;	/* overlong, beyond Unicode, or a surrogate */
		return 1;
	}
	*cp = c;
	return len;
}

/* Code points in s, counting each invalid byte as one. */
static size_t utf8_count(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	uint32_t cp;

	while (*p) {
		p += utf8_next(p, &cp);
		n++;
	}
	return n;
}

/*
 * Writes at most max code points of s as XML character data: the five
 * special characters as entities, characters XML 1.0 forbids (controls,
 * U+FFFE/U+FFFF) as '?', invalid UTF-8 as U+FFFD.
 */
static void put_escaped_n(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len, n;
	uint32_t cp;

	for (n = 0; *p && n < max; n++, p += len) {
		len = utf8_next(p, &cp);
		switch (cp) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		case 0xfffe:
		case 0xffff:
			fputc('?', out);
			break;
		case 0xfffd:
			fputs("\xef\xbf\xbd", out);
			break;
		default:
			if (cp < 0x20)
				fputc('?', out);
			else
				fwrite(p, 1, len, out);
		}
	}
}

static void put_escaped(FILE *out, const char *s)
{
	put_escaped_n(out, s, SIZE_MAX);
}

/* The label of a frame w px wide: the name, cut with ".." to fit, or nothing. */
static void put_label(FILE *out, const char *name, double w)
{
	double fit = (w - 6) / CHAR_W;
	size_t max, n;

	if (fit < 3)
		return;
	max = fit > 1e6 ? 1000000 : (size_t)fit;	/* truncation is floor() here */
	n = utf8_count(name);
	if (n <= max) {
		put_escaped(out, name);
		return;
	}
	put_escaped_n(out, name, max - 2);
	fputs("..", out);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !memcmp(s + ls - lx, suffix, lx);
}

/* Three numbers in [0, 1] from the name alone, so equal names get equal colours. */
static void name_hash(const char *name, double v[3])
{
	uint64_t h = hash_str(name);

	v[0] = (double)(h & 0xffff) / 0xffff;
	v[1] = (double)((h >> 16) & 0xffff) / 0xffff;
	v[2] = (double)((h >> 32) & 0xffff) / 0xffff;
}

struct rgb {
	int r, g, b;
};

/* Category colours; row 0 is "all", row 1 the root-level frames (comms). */
static struct rgb frame_colour(const char *name, size_t row)
{
	double v[3];

	if (row == 0)
		return (struct rgb){ 200, 200, 205 };
	name_hash(name, v);
	if (row == 1)		/* a blue-grey neutral */
		return (struct rgb){ 150 + (int)(30 * v[0]), 165 + (int)(30 * v[0]),
				     195 + (int)(30 * v[0]) };
	if (strstr(name, "[unknown") || strstr(name, "+0x")) {	/* also "[unknown: why]" */
		int g = 170 + (int)(40 * v[0]);

		return (struct rgb){ g, g, g };
	}
	if (ends_with(name, "_[k]"))	/* a pale orange, lighter than the user "hot" */
		return (struct rgb){ 240 + (int)(15 * v[0]), 160 + (int)(40 * v[1]),
				     100 + (int)(35 * v[2]) };
	if (ends_with(name, "_[j]"))	/* green */
		return (struct rgb){ 50 + (int)(70 * v[0]), 180 + (int)(60 * v[1]),
				     50 + (int)(70 * v[2]) };
	/* flamegraph.pl's "hot": red through yellow */
	return (struct rgb){ 205 + (int)(50 * v[0]), (int)(230 * v[1]), (int)(55 * v[2]) };
}

/* Change of a frame's share, new minus baseline, in fractions of each total. */
static double share_delta(const struct svg_ctx *c, uint64_t n, uint64_t n2)
{
	double now = c->total ? (double)n / (double)c->total : 0;
	double before = c->total2 ? (double)n2 / (double)c->total2 : 0;

	return now - before;
}

/*
 * The noise test of --diff --top on a frame's share (its path's samples of
 * each total; with times, a ms counts as a sample): a frame is coloured
 * only where the change passes it.
 */
static bool significant(const struct svg_ctx *c, uint64_t n, uint64_t n2)
{
	uint64_t unit = c->opts->time_ns ? 1000000 : 1;
	struct share_change sc = share_change(n2 / unit, c->total2 / unit, n / unit, c->total / unit);

	return share_change__significant(&sc);
}

/*
 * Red for growth, blue for shrinkage, intensity relative to the largest
 * significant change; near white for a change within the noise.
 */
static struct rgb diff_colour(const struct svg_ctx *c, uint64_t n, uint64_t n2)
{
	double d = share_delta(c, n, n2), t;
	int v;

	if (c->max_delta <= 0 || absd(d) < 1e-12 || !significant(c, n, n2))
		return (struct rgb){ 245, 245, 245 };
	t = absd(d) / c->max_delta;
	if (t > 1)
		t = 1;
	v = 235 - (int)(195 * t + 0.5);
	return d > 0 ? (struct rgb){ 255, v, v } : (struct rgb){ v, v, 255 };
}

static double px_of(const struct svg_ctx *c, uint64_t n)
{
	return c->total ? (double)n / (double)c->total * c->plot_w : 0;
}

static bool is_drawn(const struct svg_ctx *c, const struct flame_frame *f)
{
	if (!f->total)		/* no new samples (baseline only, or empty) */
		return false;
	return c->min_px < 0 || px_of(c, f->total) >= c->min_px;
}

static int measure(const struct flame_frame *f, void *arg)
{
	struct svg_ctx *c = arg;
	double d;

	/* a frame's descendants are no wider than it: skip them too */
	if (!is_drawn(c, f)) {
		if (f->total)
			c->nr_omitted++;
		return FLAME_WALK_SKIP;
	}
	c->any_drawn = true;
	if (f->depth > c->max_depth)
		c->max_depth = f->depth;
	d = absd(share_delta(c, f->total, f->total2));
	if (d > c->max_delta && c->opts->diff && significant(c, f->total, f->total2))
		c->max_delta = d;
	return 0;
}

static double row_y(const struct svg_ctx *c, size_t row)
{
	if (c->opts->icicle)
		return c->top + (double)row * FRAME_H;
	return c->top + (double)(c->rows - 1 - row) * FRAME_H;
}

/* "123 samples", or a time when the counts are ns. */
static void put_count(const struct svg_ctx *c, uint64_t n)
{
	if (!c->opts->time_ns)
		fprintf(c->out, "%" PRIu64 " samples", n);
	else if (n >= 1000000000ull)
		fprintf(c->out, "%.3f s", (double)n / 1e9);
	else
		fprintf(c->out, "%.3f ms", (double)n / 1e6);
}

static void put_info(const struct svg_ctx *c, const char *name, uint64_t n, uint64_t n2)
{
	double pct = c->total ? 100.0 * (double)n / (double)c->total : 0;
	double pct2 = c->total2 ? 100.0 * (double)n2 / (double)c->total2 : 0;

	put_escaped(c->out, name);
	fputs(" (", c->out);
	put_count(c, n);
	fprintf(c->out, ", %.2f%%", pct);
	if (c->opts->diff) {
		fputs("; base ", c->out);
		put_count(c, n2);
		fprintf(c->out, ", %.2f%%; change %+.2f%%", pct2, pct - pct2);
	}
	fputc(')', c->out);
}

static void put_frame(struct svg_ctx *c, const char *name, size_t row, uint64_t start, uint64_t n,
		      uint64_t n2)
{
	double x = XPAD + px_of(c, start), w = px_of(c, n), y = row_y(c, row);
	struct rgb col = c->opts->diff ? diff_colour(c, n, n2) : frame_colour(name, row);

	fprintf(c->out, "<g class=\"f\" data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64 "\" "
		"data-d=\"%zu\"><title>", start, n, row);
	put_info(c, name, n, n2);
	fprintf(c->out, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		"fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, FRAME_H - 1, col.r, col.g, col.b, x + 3, y + FRAME_H - 4.5);
	put_label(c->out, name, w);
	fputs("</text></g>\n", c->out);
}

static int emit(const struct flame_frame *f, void *arg)
{
	struct svg_ctx *c = arg;

	if (!is_drawn(c, f))
		return FLAME_WALK_SKIP;
	put_frame(c, f->name, f->depth + 1, f->start, f->total, f->total2);
	return ferror(c->out) ? -EIO : 0;
}

/* report/output/svg/flame.css and flame.js, embedded by report/CMakeLists.txt */
extern const char eprof_svg_flame_css[];
extern const char eprof_svg_flame_js[];

static void put_header(struct svg_ctx *c, const char *title)
{
	FILE *out = c->out;
	unsigned w = c->width, h = c->height;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\">\n", w, h, w, h);
	fputs("<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/>"
	      "<stop stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient></defs>\n", out);
	fputs("<style type=\"text/css\"><![CDATA[\n", out);
	fputs(eprof_svg_flame_css, out);
	fputs("]]></style>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" "
		"fill=\"url(#background)\"/>\n", w, h);
	fprintf(out, "<text id=\"title\" x=\"%.1f\" y=\"24\">", w / 2.0);
	put_escaped(out, title);
	fputs("</text>\n", out);
	if (c->opts->subtitle) {
		fprintf(out, "<text id=\"subtitle\" x=\"%.1f\" y=\"%d\">", w / 2.0,
			24 + SUBTITLE_H);
		put_escaped(out, c->opts->subtitle);
		fputs("</text>\n", out);
	}
	fprintf(out, "<text id=\"unzoom\" class=\"btn hidden\" x=\"%.1f\" y=\"24\">"
		"Reset Zoom</text>\n", XPAD);
	fprintf(out, "<text id=\"search\" class=\"btn\" x=\"%.1f\" y=\"24\">Search</text>\n",
		w - XPAD - 100);
	fprintf(out, "<text id=\"details\" x=\"%.1f\" y=\"%u\"> </text>\n", XPAD, h - 22);
	fprintf(out, "<text id=\"matched\" x=\"%.1f\" y=\"%u\"></text>\n", w - XPAD, h - 22);
}

/* A diff's colours: what red, blue and pale mean, with the deepest of each. */
static void put_legend(struct svg_ctx *c)
{
	static const struct { struct rgb col; const char *text; } items[] = {
		{ { 255, 40, 40 }, "share grew (|z| >= 3)" },
		{ { 40, 40, 255 }, "share shrank (|z| >= 3)" },
		{ { 245, 245, 245 }, "change within the noise (|z| &lt; 3): not coloured" },
	};
	double x = XPAD, y = c->height - BOTTOM_H - LEGEND_H + 4;
	size_t i;

	fputs("<g id=\"legend\">", c->out);
	for (i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		fprintf(c->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" "
			"fill=\"rgb(%d,%d,%d)\" stroke=\"#888\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>",
			x, y, items[i].col.r, items[i].col.g, items[i].col.b, x + 18, y + 10,
			items[i].text);
		x += 18 + CHAR_W * (double)strlen(items[i].text) + 24;
	}
	fputs("<text x=\"", c->out);
	fprintf(c->out, "%.1f\" y=\"%.1f\">(deeper: a larger change)</text></g>\n", x, y + 10);
}

static void put_footer(struct svg_ctx *c)
{
	FILE *out = c->out;

	if (c->opts->diff)
		put_legend(c);

	fprintf(out, "<text id=\"note\" x=\"%.1f\" y=\"%u\">", XPAD, c->height - 6);
	if (c->opts->diff) {
		fprintf(out, "Widths: new %s. Red: share grew, blue: share shrank against the "
			"baseline (", c->opts->time_ns ? "time" : "samples");
		put_count(c, c->total2);
		fputs("), where |z| >= 3; pale: within the noise. ", out);
	}
	if (c->nr_omitted)
		fprintf(out, "%zu frame%s narrower than %.2g px not drawn, with their callees "
			"(their samples count in their parents).", c->nr_omitted,
			c->nr_omitted == 1 ? "" : "s", c->min_px);
	fputs("</text>\n", out);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"var EPROF = { total: %" PRIu64 ", xpad: %.1f, plotW: %.2f, charW: %.3f };\n",
		c->total, XPAD, c->plot_w, CHAR_W);
	fputs(eprof_svg_flame_js, out);
	fputs("]]></script>\n</svg>\n", out);
}

static int write_doc(const struct flame_tree *t, const struct svg_opts *opts, FILE *out)
{
	static const struct svg_opts defaults;
	struct svg_ctx c = { .out = out, .opts = opts ? opts : &defaults };
	const char *title;
	int err;

	opts = c.opts;
	c.width = opts->width ? opts->width : DEFAULT_WIDTH;
	if (c.width < 200)
		c.width = 200;
	c.min_px = opts->min_width_px ? opts->min_width_px : DEFAULT_MIN_PX;
	c.plot_w = c.width - 2 * XPAD;
	c.total = flame_tree__total(t);
	c.total2 = opts->total2 ? opts->total2 : flame_tree__total2(t);
	title = opts->title ? opts->title :
		opts->diff ? "Differential Flame Graph" :
		opts->icicle ? "Icicle Graph" : "Flame Graph";

	if (c.total) {		/* the "all" frame is measured like the others */
		if (opts->diff && significant(&c, c.total, flame_tree__total2(t)))
			c.max_delta = absd(share_delta(&c, c.total, flame_tree__total2(t)));
		err = flame_tree__walk(t, measure, &c);
		if (err)
			return err;
	}
	c.rows = c.any_drawn ? c.max_depth + 2 : 1;
	c.top = TITLE_H + (opts->subtitle ? SUBTITLE_H : 0);
	c.height = c.top + (unsigned)(c.rows * FRAME_H) + BOTTOM_H + (opts->diff ? LEGEND_H : 0);

	put_header(&c, title);
	if (c.total) {
		put_frame(&c, "all", 0, 0, c.total, flame_tree__total2(t));
		err = flame_tree__walk(t, emit, &c);
		if (err)
			return err;
	} else {
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">No samples</text>\n", XPAD,
			row_y(&c, 0) + FRAME_H - 4.5);
	}
	put_footer(&c);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

int svg__write(const struct flame_tree *t, const struct svg_opts *opts, FILE *out)
{
	locale_t c_numeric = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old;
	int err;

	/* SVG and JS want "12.5" whatever the caller's locale: "12,5" breaks both */
	if (!c_numeric)
		return -ENOMEM;
	old = uselocale(c_numeric);
	err = write_doc(t, opts, out);
	uselocale(old);
	freelocale(c_numeric);
	return err;
}
