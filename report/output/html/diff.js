/* SPDX-License-Identifier: MIT */
/*
 * report/output/html/diff.js - the HTML report's diff mode, loaded before
 * app.js (report/output/html.c embeds both), which calls it at a few hook
 * points. Plain JS, no library, nothing fetched.
 *
 * A diff compares two selections (shift-drag, or the two recordings of
 * `eprof report --diff BASE NEW --html`, which html.c lays side by side on
 * the page's time axis: BASE first, NEW after a gap, each a selection).
 * Frame widths follow the second; a frame is coloured only where its
 * change of share passes the noise test of `eprof report --diff --top`
 * (report/output/change.h): red grew, blue shrank, deeper for a larger
 * change; a change within the noise is left pale. A legend says so.
 */
'use strict';
var EPROF_DIFF = (function () {
	var SIG_Z = 3, PALE = [245, 245, 245];

	/* share c1/n1 -> c2/n2: the change, its standard error and z (as change.h) */
	function change(c1, n1, c2, n2) {
		var p1 = n1 ? c1 / n1 : 0, p2 = n2 ? c2 / n2 : 0, d = p2 - p1;
		var se = Math.sqrt((n1 ? p1 * (1 - p1) / n1 : 0) + (n2 ? p2 * (1 - p2) / n2 : 0));
		if (se === 0 && d !== 0) {
			/* 0% or 100% on both sides: Agresti-Caffo */
			var a1 = (c1 + 1) / (n1 + 2), a2 = (c2 + 1) / (n2 + 2);
			se = Math.sqrt(a1 * (1 - a1) / (n1 + 2) + a2 * (1 - a2) / (n2 + 2));
		}
		return { p1: p1, p2: p2, d: d, se: se, z: se > 0 ? d / se : 0 };
	}
	/* with times (ns), a whole ms counts as a sample, as --diff --top with --off-cpu or --wall */
	function significant(c1, n1, c2, n2, time) {
		if (time) {
			c1 = Math.floor(c1 / 1e6); n1 = Math.floor(n1 / 1e6);
			c2 = Math.floor(c2 / 1e6); n2 = Math.floor(n2 / 1e6);
		}
		return Math.abs(change(c1, n1, c2, n2).z) >= SIG_Z;
	}
	/* [r, g, b] of a frame: base c1 of n1, new c2 of n2; maxDelta: the largest significant change */
	function colour(c1, n1, c2, n2, time, maxDelta) {
		var d = (n2 ? c2 / n2 : 0) - (n1 ? c1 / n1 : 0);
		if (!maxDelta || Math.abs(d) < 1e-12 || !significant(c1, n1, c2, n2, time)) return PALE;
		var v = Math.round(235 - 195 * Math.min(1, Math.abs(d) / maxDelta));
		return d > 0 ? [255, v, v] : [v, v, 255];
	}

	function span(parent, cls, text) {
		var e = document.createElement('span');
		if (cls) e.className = cls;
		e.textContent = text;
		parent.appendChild(e);
		return e;
	}
	/* the colours' meaning, after the selection line */
	function legend(parent) {
		var box = span(parent, 'diff-legend', '');
		box.setAttribute('role', 'note');
		box.id = 'diff-legend';
		[[[255, 40, 40], 'share grew'], [[40, 40, 255], 'share shrank'],
		 [PALE, 'within the noise (|z| < ' + SIG_Z + '): not coloured']].forEach(function (it) {
			var sw = span(box, 'swatch', '');
			sw.style.cssText = 'display:inline-block;width:14px;height:10px;margin:0 4px 0 10px;' +
				'border:1px solid #666;background:rgb(' + it[0].join(',') + ')';
			span(box, null, it[1]);
		});
		span(box, 'hint', ' Coloured where |z| >= ' + SIG_Z + ', the noise test of eprof report --diff --top; ' +
			'deeper: a larger change.');
		return box;
	}
	/*
	 * --diff BASE NEW: the two recordings as the first and second
	 * selections (times from the page's origin), or null.
	 */
	function sides(D, origin) {
		if (!D.diff) return null;
		function one(s, what) {
			return { t0: s.from_ns - origin, t1: s.to_ns - origin, cpus: null, what: what };
		}
		return { a: one(D.diff.base, 'base'), b: one(D.diff['new'], 'new') };
	}
	/* what the selection line says of the recordings, when they are --diff's */
	function describe(D) {
		if (!D.diff) return '';
		return 'base ' + D.diff.base.path + ', new ' + D.diff['new'].path + ' (laid one after the other)';
	}
	return { SIG_Z: SIG_Z, change: change, significant: significant, colour: colour, legend: legend,
		 sides: sides, describe: describe };
}());
