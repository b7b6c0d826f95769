/* SPDX-License-Identifier: MIT */
/*
 * report/output/html/app.js - the HTML report's page (report/output/html.c writes the
 * data it reads). Plain JS, no library, nothing fetched.
 *
 * Every view is a sum over the same rows (time bucket, CPU, stack, samples):
 * a selection is a time range and a set of CPUs; its flame graph and top
 * tables come from the samples per stack of the rows it keeps. A second
 * selection (shift-drag) is compared with the first: frame widths follow
 * the second, colours the change of share (red grew, blue shrank), and the
 * top tables carry the noise estimate of `eprof report --diff --top`.
 */
'use strict';
(function () {
	var D = JSON.parse(document.getElementById('eprof-data').textContent);
	var t0Load = performance.now();
	var CELL_NS = 20e6, ROWS = 50, SIG_Z = 3;
	var names = D.names, stacks = D.stacks, nStacks = stacks.length;
	var N = D.t.length, slotNs = D.slot_ns, labelDepth = D.label_depth;
	var rowSlot = new Float64Array(N), rowCpu = new Int32Array(N), rowStk = new Int32Array(D.k);
	var rowN = new Float64Array(N), stride = D.cpu_stride;
	var i, s = 0, maxCpu = -1, maxSlot = 0;
	for (i = 0; i < N; i++) {
		var cn = D.cn[i];	/* cpu + stride * (samples - 1) */
		s += D.t[i];
		rowSlot[i] = s;
		rowCpu[i] = cn % stride;
		rowN[i] = (cn - rowCpu[i]) / stride + 1;
		if (rowCpu[i] > maxCpu) maxCpu = rowCpu[i];
	}
	if (N) maxSlot = rowSlot[N - 1];
	D.t = D.cn = D.k = null;	/* the typed copies are what stays */

	/* times on the page count from origin (the whole second before the first sample), labels from the start */
	var origin = D.origin_ns || 0, dur = (maxSlot + 1) * slotNs;
	D.sources.forEach(function (src) { if (src.duration_ns - origin > dur) dur = src.duration_ns - origin; });
	var nSec = Math.max(1, Math.ceil(dur / 1e9));
	var nCpu = maxCpu + 1;
	D.sources.forEach(function (src) { if (src.cpus > nCpu) nCpu = src.cpus; });

	/* the rows of the CPU strips: one per CPU, then one per NUMA node when there are several */
	var strips = [], nodeIds = [];
	for (i = 0; i < nCpu; i++) strips.push({ label: 'cpu ' + i, cpus: [i] });
	D.nodes.forEach(function (n) { if (n >= 0 && nodeIds.indexOf(n) < 0) nodeIds.push(n); });
	nodeIds.sort(function (a, b) { return a - b; });
	if (nodeIds.length > 1)
		nodeIds.forEach(function (n) {
			var cpus = [];
			D.nodes.forEach(function (m, c) { if (m === n) cpus.push(c); });
			strips.push({ label: 'node ' + n, cpus: cpus });
		});

	/* --- the page ------------------------------------------------------------ */
	function el(tag, attrs, parent, text) {
		var e = document.createElement(tag);
		if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
		if (text !== undefined) e.textContent = text;
		if (parent) parent.appendChild(e);
		return e;
	}
	function fmtPct(x) { return (100 * x).toFixed(2) + '%'; }
	function fmtSec(ns) { return (ns / 1e9).toFixed(3) + ' s'; }
	function secLabel(sec) { return Math.round(sec + origin / 1e9) + 's'; }
	function fmtInt(x) { return String(Math.round(x)).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }

	var body = document.body;
	var hdr = el('header', { id: 'hdr' }, body);
	el('h1', null, hdr, D.title || 'eprof report');
	D.sources.forEach(function (src) {
		var bits = [];
		if (src.command) bits.push(src.command);
		if (src.host) bits.push('on ' + src.host);
		if (src.kernel) bits.push('kernel ' + src.kernel + (src.arch ? ' ' + src.arch : ''));
		if (src.cpus) bits.push(src.cpus + ' CPUs');
		bits.push(fmtSec(src.duration_ns));
		if (src.freq_hz) bits.push(src.freq_hz + ' Hz');
		bits.push(fmtInt(src.samples) + ' samples');
		if (D.sources.length > 1) bits.unshift(src.path + ':');
		el('div', { 'class': 'meta' }, hdr, bits.join(', '));
	});
	var q = D.quality, qbits = [];
	/* as report__print_summary(): under -a every tick is a sample, else missed ticks were anyone's */
	var gone = q.ticks ? q.ticks.throttled + q.ticks.missed : 0;
	var everyTick = q.ticks && q.ticks.kept === q.ticks.fired, lost = q.lost_samples + (everyTick ? gone : 0);
	qbits.push(fmtInt(lost) + ' samples lost' + (everyTick ? ' (' + fmtInt(q.ticks.throttled) +
		' throttled, ' + fmtInt(q.ticks.missed) + ' missed by a late timer, ' + fmtInt(q.lost_samples) +
		' ring buffer full)' : gone ? ' (ring buffer full; the clock also lost ' + fmtInt(gone) +
		' ticks of any task)' : ''));
	qbits.push(fmtInt(q.lost_stacks) + ' stacks not captured');
	qbits.push(fmtInt(q.truncated_stacks) + ' stacks truncated');
	if (q.unwind)
		qbits.push(fmtInt(q.unwind.fallback) + ' of ' + fmtInt(q.unwind.walks) +
			' user stacks unwound with a frame-pointer fallback, ' + fmtInt(q.unwind.truncated) +
			' cut at the depth limit');
	qbits.push(q.frames ? (Math.floor(1000 * q.resolved / q.frames) / 10).toFixed(1) +
		'% of frames named' : 'no frames');
	if (q.filtered) qbits.push(fmtInt(q.filtered) + ' samples left out by the filters');
	var qual = el('div', { 'class': 'quality', id: 'quality' }, hdr, 'Quality: ' + qbits.join(', '));
	if (lost || q.truncated_stacks || (q.frames && q.resolved < 0.9 * q.frames))
		qual.className += ' warn';

	el('h2', null, body, 'Heat map: seconds across, 20 ms steps down');
	el('div', { 'class': 'hint' }, body, 'Drag to select a time range; shift-drag for a ' +
		'second range to compare with the first; double-click to select everything.');
	var heatWrap = el('div', { 'class': 'scroll' }, body);
	var heat = el('canvas', { id: 'heat' }, heatWrap);
	el('h2', null, body, 'CPUs' + (nodeIds.length > 1 ? ' and NUMA nodes' : ''));
	el('div', { 'class': 'hint' }, body, 'Click a strip for its CPU over the whole ' +
		'recording, drag along it for a time range on that CPU (shift: second selection).');
	var cpuWrap = el('div', { 'class': 'scroll' }, body);
	var cpuCv = el('canvas', { id: 'cpus' }, cpuWrap);

	var bar = el('div', { id: 'bar' }, body);
	var modeBtn = el('button', { id: 'mode' }, bar, 'Icicle');
	var unzoomBtn = el('button', { id: 'unzoom' }, bar, 'Reset zoom');
	var clearBtn = el('button', { id: 'clear' }, bar, 'Select all');
	el('span', null, bar, ' Search: ');
	var search = el('input', { id: 'search', type: 'search', placeholder: 'regex' }, bar);
	var matched = el('span', { id: 'matched' }, bar);
	var selInfo = el('span', { id: 'sel' }, bar);
	var flameWrap = el('div', { id: 'flamewrap' }, body);
	var flame = el('canvas', { id: 'flame' }, flameWrap);
	var details = el('div', { id: 'details' }, body, ' ');
	var tables = el('div', { id: 'tables' }, body);

	/* --- state ------------------------------------------------------------------ */
	var ALL = { t0: 0, t1: Infinity, cpus: null, what: 'everything' };
	var sel = { a: ALL, b: null };
	var icicle = false, zoomPath = [], searchRe = null;
	var timing = { firstView: 0, lastRedraw: 0 };

	/* samples per stack of one selection */
	function selCounts(se) {
		var out = new Float64Array(nStacks), tot = 0, i, a = 0, b = N, ok;
		var lo = se.t0 / slotNs, hi = se.t1 / slotNs;
		/* rows are sorted by time: from the first row at or after lo to the first at or after hi */
		while (a < b) {
			var mid = (a + b) >> 1;
			if (rowSlot[mid] < lo) a = mid + 1; else b = mid;
		}
		var from = a;
		b = N;
		while (a < b) {
			var m2 = (a + b) >> 1;
			if (rowSlot[m2] < hi) a = m2 + 1; else b = m2;
		}
		if (se.cpus) {
			ok = new Uint8Array(Math.max(nCpu, 1));
			se.cpus.forEach(function (c) { ok[c] = 1; });
			for (i = from; i < a; i++)
				if (ok[rowCpu[i]]) { out[rowStk[i]] += rowN[i]; tot += rowN[i]; }
		} else {
			for (i = from; i < a; i++) { out[rowStk[i]] += rowN[i]; tot += rowN[i]; }
		}
		return { c: out, total: tot };
	}

	/* --- heat map ------------------------------------------------------------ */
	var HX = 46, HY = 18, CH = 6;
	var CW = Math.max(2, Math.min(16, Math.floor(1100 / nSec)));
	var heatCells = new Float64Array(nSec * ROWS), heatMax = 0;
	for (i = 0; i < N; i++) {
		var cell = Math.floor(rowSlot[i] * slotNs / CELL_NS);
		if (cell < heatCells.length) heatCells[cell] += rowN[i];
	}
	for (i = 0; i < heatCells.length; i++) if (heatCells[i] > heatMax) heatMax = heatCells[i];
	heat.width = HX + nSec * CW + 4;
	heat.height = HY + ROWS * CH + 2;

	function heatColour(v, max) {
		if (!v) return '#f4f4f4';
		var t = Math.sqrt(v / max);
		var r = Math.round(255 - 40 * t), g = Math.round(235 - 200 * t), b = Math.round(200 - 180 * t);
		return 'rgb(' + r + ',' + g + ',' + b + ')';
	}
	/* the cells, drawn once; a redraw copies them and shades the selections */
	var heatBase = document.createElement('canvas');
	heatBase.width = heat.width;
	heatBase.height = heat.height;
	(function () {
		var g = heatBase.getContext('2d'), sec, row, cache = {};
		g.fillStyle = '#555';
		g.font = '10px sans-serif';
		for (row = 0; row < ROWS; row += 10)
			g.fillText(row * 20 + ' ms', 2, HY + row * CH + 8);
		var step = Math.max(1, Math.ceil(40 / CW));
		for (sec = 0; sec < nSec; sec += step)
			g.fillText(secLabel(sec), HX + sec * CW, 12);
		for (sec = 0; sec < nSec; sec++)
			for (row = 0; row < ROWS; row++) {
				var v = heatCells[sec * ROWS + row];
				var lvl = v ? Math.max(1, Math.round(64 * v / heatMax)) : 0;
				g.fillStyle = cache[lvl] || (cache[lvl] = heatColour(lvl / 64, 1));
				g.fillRect(HX + sec * CW, HY + row * CH, CW - (CW > 3 ? 1 : 0), CH - 1);
			}
	}());
	/* a time range as one run of cells per second it touches */
	function shadeHeat(g, se, colour) {
		if (!se || se === ALL || se.cpus || se.t1 === Infinity) return;
		g.fillStyle = colour;
		for (var sec = Math.floor(se.t0 / 1e9); sec < nSec && sec * 1e9 < se.t1; sec++) {
			var r0 = Math.max(0, Math.floor((se.t0 - sec * 1e9) / CELL_NS));
			var r1 = Math.min(ROWS, Math.ceil((se.t1 - sec * 1e9) / CELL_NS));
			if (r1 > r0) g.fillRect(HX + sec * CW, HY + r0 * CH, CW - (CW > 3 ? 1 : 0), (r1 - r0) * CH - 1);
		}
	}
	function drawHeat() {
		var g = heat.getContext('2d');
		g.clearRect(0, 0, heat.width, heat.height);
		g.drawImage(heatBase, 0, 0);
		shadeHeat(g, sel.a, 'rgba(0,100,220,0.4)');
		shadeHeat(g, sel.b, 'rgba(230,120,0,0.45)');
	}
	function heatCellAt(ev) {
		var r = heat.getBoundingClientRect();
		var sec = Math.floor((ev.clientX - r.left - HX) / CW);
		var row = Math.floor((ev.clientY - r.top - HY) / CH);
		sec = Math.max(0, Math.min(nSec - 1, sec));
		row = Math.max(0, Math.min(ROWS - 1, row));
		return (sec * ROWS + row) * CELL_NS;
	}

	/* --- CPU strips -------------------------------------------------------- */
	var SX = 64, SW = 1000, SH = 14;
	var stripBins = strips.map(function () { return new Float64Array(SW); }), stripMax = 0;
	var cpuStrips = [];	/* cpu -> strip indexes holding it */
	strips.forEach(function (st, k) {
		st.cpus.forEach(function (c) { (cpuStrips[c] = cpuStrips[c] || []).push(k); });
	});
	for (i = 0; i < N; i++) {
		var px = Math.min(SW - 1, Math.floor(rowSlot[i] * slotNs / dur * SW));
		(cpuStrips[rowCpu[i]] || []).forEach(function (k) { stripBins[k][px] += rowN[i]; });
	}
	stripBins.forEach(function (b) { for (var j = 0; j < SW; j++) if (b[j] > stripMax) stripMax = b[j]; });
	cpuCv.width = SX + SW + 4;
	cpuCv.height = strips.length * SH + 14;

	function sameCpus(a, b) { return a && b && a.join(',') === b.join(','); }
	var stripBase = document.createElement('canvas');
	stripBase.width = cpuCv.width;
	stripBase.height = cpuCv.height;
	(function () {
		var g = stripBase.getContext('2d'), cache = {};
		g.font = '10px sans-serif';
		strips.forEach(function (st, k) {
			var y = k * SH, b = stripBins[k], x;
			g.fillStyle = '#333';
			g.fillText(st.label, 2, y + 10);
			for (x = 0; x < SW; x++) {
				var lvl = b[x] ? Math.max(1, Math.round(64 * b[x] / stripMax)) : 0;
				g.fillStyle = cache[lvl] || (cache[lvl] = heatColour(lvl / 64, 1));
				g.fillRect(SX + x, y, 1, SH - 2);
			}
		});
		g.fillStyle = '#555';
		var step = Math.max(1, Math.ceil(nSec / 10));
		for (var sec = 0; sec <= nSec; sec += step)
			g.fillText(secLabel(sec), SX + sec * 1e9 / dur * SW, strips.length * SH + 11);
	}());
	function drawStrips() {
		var g = cpuCv.getContext('2d');
		g.clearRect(0, 0, cpuCv.width, cpuCv.height);
		g.drawImage(stripBase, 0, 0);
		strips.forEach(function (st, k) {
			[['a', 'rgba(0,100,220,0.35)'], ['b', 'rgba(230,120,0,0.4)']].forEach(function (p) {
				var se = sel[p[0]];
				if (!se || se === ALL || (se.cpus && !sameCpus(se.cpus, st.cpus))) return;
				var x0 = se.t0 / dur * SW, x1 = Math.min(se.t1, dur) / dur * SW;
				g.fillStyle = p[1];
				g.fillRect(SX + x0, k * SH, Math.max(1, x1 - x0), SH - 2);
			});
		});
	}
	function stripAt(ev) {
		var r = cpuCv.getBoundingClientRect();
		var k = Math.max(0, Math.min(strips.length - 1, Math.floor((ev.clientY - r.top) / SH)));
		var x = Math.max(0, Math.min(SW, ev.clientX - r.left - SX));
		return { k: k, x: x };
	}

	/* --- selecting ------------------------------------------------------------ */
	var drag = null;
	function describe(se) {
		if (se === ALL) return 'everything';
		var w = se.t1 === Infinity ? 'whole recording' : fmtSec(se.t0 + origin) + ' - ' + fmtSec(se.t1 + origin);
		return w + (se.cpus ? ' on ' + se.what : '');
	}
	function setSel(which, se) {
		sel[which] = se;
		zoomPath = [];
		redraw();
	}
	heat.addEventListener('mousedown', function (ev) {
		drag = { on: 'heat', from: heatCellAt(ev), b: ev.shiftKey };
		ev.preventDefault();
	});
	cpuCv.addEventListener('mousedown', function (ev) {
		var p = stripAt(ev);
		drag = { on: 'cpu', k: p.k, x: p.x, b: ev.shiftKey };
		ev.preventDefault();
	});
	window.addEventListener('mouseup', function (ev) {
		var d = drag, se;
		drag = null;
		if (!d) return;
		if (d.on === 'heat') {
			var to = heatCellAt(ev);
			se = { t0: Math.min(d.from, to), t1: Math.max(d.from, to) + CELL_NS, cpus: null };
		} else {
			var p = stripAt(ev), x0 = Math.min(d.x, p.x), x1 = Math.max(d.x, p.x);
			se = { cpus: strips[d.k].cpus, what: strips[d.k].label, t0: 0, t1: Infinity };
			if (x1 - x0 >= 3) {
				se.t0 = x0 / SW * dur;
				se.t1 = x1 / SW * dur;
			}
		}
		setSel(d.b ? 'b' : 'a', se);
	});
	heat.addEventListener('dblclick', function () { sel.b = null; setSel('a', ALL); });
	clearBtn.addEventListener('click', function () { sel.b = null; setSel('a', ALL); });
	modeBtn.addEventListener('click', function () {
		icicle = !icicle;
		modeBtn.textContent = icicle ? 'Flame' : 'Icicle';
		drawFlame();
	});
	unzoomBtn.addEventListener('click', function () { zoomPath = []; redraw(); });
	search.addEventListener('input', function () {
		var v = search.value;
		searchRe = null;
		if (v) {
			try { searchRe = new RegExp(v); } catch (e) {
				searchRe = new RegExp(v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
			}
		}
		drawFlame();
	});

	/* --- the flame graph -------------------------------------------------------- */
	var cur = null;	/* what the last redraw computed */
	function Node(name, parent) {
		this.name = name; this.v = 0; this.v2 = 0; this.ch = null; this.parent = parent;
	}
	/* the tree of counts c (widths) and c2 (the baseline; may be null) */
	function buildTree(c, c2) {
		var root = new Node(-1, null), k, j, depth = 0;
		for (k = 0; k < nStacks; k++) {
			var v = c[k], v2 = c2 ? c2[k] : 0;
			if (!v && !v2) continue;
			var st = stacks[k], n = root;
			n.v += v; n.v2 += v2;
			for (j = 0; j < st.length; j++) {
				if (!n.ch) n.ch = new Map();
				var m = n.ch.get(st[j]);
				if (!m) { m = new Node(st[j], n); n.ch.set(st[j], m); }
				m.v += v; m.v2 += v2;
				n = m;
			}
			if (st.length > depth) depth = st.length;
		}
		root.depth = depth;
		return root;
	}
	function sortedKids(n) {
		if (!n.ch) return [];
		if (!n.sorted) {
			n.sorted = Array.from(n.ch.values()).sort(function (a, b) {
				return names[a.name] < names[b.name] ? -1 : names[a.name] > names[b.name] ? 1 : 0;
			});
		}
		return n.sorted;
	}
	function zoomNode() {
		var n = cur.tree, j;
		for (j = 0; j < zoomPath.length && n; j++) n = n.ch ? n.ch.get(zoomPath[j]) : null;
		return n || cur.tree;
	}
	/* does stack k go through the zoomed frame? */
	function underZoom(k) {
		var st = stacks[k], j;
		if (st.length < zoomPath.length) return false;
		for (j = 0; j < zoomPath.length; j++) if (st[j] !== zoomPath[j]) return false;
		return true;
	}
	function hash(str) {
		var h = 2166136261, j;
		for (j = 0; j < str.length; j++) { h ^= str.charCodeAt(j); h = Math.imul(h, 16777619); }
		return ((h >>> 0) % 1000) / 1000;
	}
	function frameColour(n, depth) {
		var nm = names[n.name], v;
		if (searchRe && searchRe.test(nm)) return 'rgb(230,0,230)';
		if (cur.diff) {
			var d = share(n.v, cur.total) - share(n.v2, cur.total2), t;
			if (!cur.maxDelta || Math.abs(d) < 1e-12) return 'rgb(245,245,245)';
			t = Math.min(1, Math.abs(d) / cur.maxDelta);
			v = Math.round(235 - 195 * t);
			return d > 0 ? 'rgb(255,' + v + ',' + v + ')' : 'rgb(' + v + ',' + v + ',255)';
		}
		v = hash(nm);
		if (depth < labelDepth) return 'rgb(' + (150 + 30 * v | 0) + ',' + (165 + 30 * v | 0) + ',' + (195 + 30 * v | 0) + ')';
		if (/\[unknown\]|\+0x/.test(nm)) { var gr = 170 + 40 * v | 0; return 'rgb(' + gr + ',' + gr + ',' + gr + ')'; }
		if (/_\[k\]$/.test(nm)) return 'rgb(' + (240 + 15 * v | 0) + ',' + (160 + 40 * v | 0) + ',' + (110 + 25 * v | 0) + ')';
		if (/_\[j\]$/.test(nm)) return 'rgb(' + (50 + 70 * v | 0) + ',' + (180 + 60 * v | 0) + ',90)';
		return 'rgb(' + (205 + 50 * v | 0) + ',' + (230 * hash(nm + '.') | 0) + ',' + (55 * hash(nm + ',') | 0) + ')';
	}
	function share(v, tot) { return tot ? v / tot : 0; }

	var FH = 16, rects = [];
	function drawFlame() {
		var W = Math.max(600, Math.min(document.documentElement.clientWidth - 44, 1800));
		var z = zoomNode(), scale = z.v ? W / z.v : 0, minW = 0.3, mt = 0, rows = 0, chain = [], n;
		for (n = z; n; n = n.parent) chain.unshift(n);
		/* the height of what is drawn: frames narrower than minW are not */
		(function deepest(n, depth) {
			if (n.v * scale < minW) return;
			if (depth + 1 > rows) rows = depth + 1;
			if (n.ch) n.ch.forEach(function (m) { deepest(m, depth + 1); });
		}(z, chain.length - 1));
		rows = Math.max(rows, chain.length);
		flame.width = W;
		flame.height = rows * FH + 4;
		var g = flame.getContext('2d');
		g.font = '11px sans-serif';
		g.textBaseline = 'middle';
		rects = [];
		function y(depth) { return icicle ? depth * FH : (rows - 1 - depth) * FH; }
		function box(n, depth, x, w) {
			var fill = depth === 0 ? 'rgb(200,200,205)' : frameColour(n, depth - 1);
			g.fillStyle = fill;
			g.fillRect(x, y(depth), Math.max(w - 0.5, 0.5), FH - 1);
			rects.push({ x: x, y: y(depth), w: w, n: n, depth: depth, fill: fill });
			if (w > 20) {
				var label = depth === 0 ? 'all' : names[n.name], fit = Math.floor((w - 6) / 6.2);
				if (label.length > fit) label = fit > 2 ? label.slice(0, fit - 2) + '..' : '';
				g.fillStyle = '#000';
				g.fillText(label, x + 3, y(depth) + FH / 2);
			}
		}
		/* the zoomed frame's ancestors span the whole width */
		chain.forEach(function (a, depth) { if (a !== z) box(a, depth, 0, W); });
		function walk(n, depth, x) {
			var w = n.v * scale;
			if (w < minW) return;
			box(n, depth, x, w);
			sortedKids(n).forEach(function (m) { walk(m, depth + 1, x); x += m.v * scale; });
		}
		walk(z, chain.length - 1, 0);
		/* the matched share: samples whose stack has a frame that matches, within the zoom */
		if (searchRe) {
			var re = searchRe, hit = new Uint8Array(names.length), k, j;
			for (k = 0; k < names.length; k++) hit[k] = re.test(names[k]) ? 1 : 0;
			for (k = 0; k < nStacks; k++) {
				if (!cur.c[k] || !underZoom(k)) continue;
				for (j = 0; j < stacks[k].length; j++)
					if (hit[stacks[k][j]]) { mt += cur.c[k]; break; }
			}
			var share0 = z.v ? mt / z.v : 0;
			matched.textContent = 'Matched: ' + fmtPct(share0) + ' (' + fmtInt(mt) + ' of ' + fmtInt(z.v) + ')';
			matched.setAttribute('data-share', String(share0));
		} else {
			matched.textContent = '';
			matched.removeAttribute('data-share');
		}
		/* a tall flame graph scrolls in its box: show the root first */
		flameWrap.scrollTop = icicle ? 0 : flameWrap.scrollHeight;
	}
	function frameAt(ev) {
		var r = flame.getBoundingClientRect(), x = ev.clientX - r.left, yy = ev.clientY - r.top, j;
		for (j = rects.length - 1; j >= 0; j--) {
			var b = rects[j];
			if (x >= b.x && x < b.x + b.w && yy >= b.y && yy < b.y + FH) return b;
		}
		return null;
	}
	function pathOf(n) {
		var p = [];
		for (; n && n.parent; n = n.parent) p.unshift(n.name);
		return p;
	}
	flame.addEventListener('mousemove', function (ev) {
		var b = frameAt(ev);
		if (!b) { details.textContent = ' '; return; }
		var n = b.n, nm = b.depth === 0 ? 'all' : names[n.name];
		var txt = nm + ': ' + fmtInt(n.v) + ' samples, ' + fmtPct(share(n.v, cur.total));
		if (cur.diff)
			txt += '; first selection ' + fmtInt(n.v2) + ', ' + fmtPct(share(n.v2, cur.total2)) +
				'; change ' + (share(n.v, cur.total) - share(n.v2, cur.total2) >= 0 ? '+' : '') +
				fmtPct(share(n.v, cur.total) - share(n.v2, cur.total2));
		details.textContent = txt;
	});
	flame.addEventListener('click', function (ev) {
		var b = frameAt(ev);
		if (!b) return;
		zoomPath = pathOf(b.n);
		drawFlame();
		drawTables();
	});

	/* --- top tables ------------------------------------------------------------- */
	/* self (leaf) and total (anywhere on the stack, once) per name, within the zoom */
	function funcCounts(c) {
		var self = new Float64Array(names.length), total = new Float64Array(names.length);
		var mark = new Int32Array(names.length).fill(-1), k, j, tot = 0;
		for (k = 0; k < nStacks; k++) {
			var v = c[k];
			if (!v || !underZoom(k)) continue;
			var st = stacks[k];
			tot += v;
			self[st[st.length - 1]] += v;
			for (j = labelDepth; j < st.length; j++)
				if (mark[st[j]] !== k) { mark[st[j]] = k; total[st[j]] += v; }
		}
		return { self: self, total: total, n: tot };
	}
	function table(title, id, head, rows) {
		var box = el('div', null, tables), t;
		el('h2', null, box, title);
		t = el('table', { id: id }, box);
		var tr = el('tr', null, t);
		head.forEach(function (h, j) { el('th', j === head.length - 1 ? { 'class': 'fn' } : null, tr, h); });
		rows.forEach(function (r) {
			var row = el('tr', r.cls ? { 'class': r.cls, 'data-fn': r.fn } : { 'data-fn': r.fn }, t);
			r.cells.forEach(function (c, j) { el('td', j === r.cells.length - 1 ? { 'class': 'fn' } : null, row, c); });
		});
	}
	var TOP = 25;
	function ranked(arr) {
		var ids = [], k;
		for (k = 0; k < arr.length; k++) if (arr[k]) ids.push(k);
		return ids.sort(function (a, b) { return arr[b] - arr[a] || a - b; });
	}
	function drawTables() {
		tables.textContent = '';
		if (!cur.diff) {
			var f = funcCounts(cur.c);
			['self', 'total'].forEach(function (by) {
				var other = by === 'self' ? 'total' : 'self';
				table('Top by ' + by + (zoomPath.length ? ' (zoomed)' : ''), 'top-' + by,
					[by + ' %', by, other + ' %', 'function'],
					ranked(f[by]).slice(0, TOP).map(function (k) {
						return { fn: names[k], cells: [fmtPct(share(f[by][k], f.n)), fmtInt(f[by][k]),
							fmtPct(share(f[other][k], f.n)), names[k]] };
					}));
			});
			return;
		}
		/* first selection = base (1), second = new (2), as --diff BASE NEW */
		var f1 = funcCounts(cur.c2), f2 = funcCounts(cur.c);
		['total', 'self'].forEach(function (by) {
			var ch = [], k;
			for (k = 0; k < names.length; k++) {
				var c1 = f1[by][k], c2 = f2[by][k];
				if (!c1 && !c2) continue;
				var p1 = share(c1, f1.n), p2 = share(c2, f2.n), d = p2 - p1;
				var se = Math.sqrt((f1.n ? p1 * (1 - p1) / f1.n : 0) + (f2.n ? p2 * (1 - p2) / f2.n : 0));
				if (se === 0 && d !== 0) {
					/* 0% or 100% on both sides: as out_top.c, Agresti-Caffo */
					var a1 = ((c1 || 0) + 1) / (f1.n + 2), a2 = ((c2 || 0) + 1) / (f2.n + 2);
					se = Math.sqrt(a1 * (1 - a1) / (f1.n + 2) + a2 * (1 - a2) / (f2.n + 2));
				}
				ch.push({ k: k, p1: p1, p2: p2, d: d, se: se, z: se > 0 ? d / se : 0 });
			}
			ch.sort(function (a, b) { return Math.abs(b.d) - Math.abs(a.d) || a.k - b.k; });
			table('Largest changes of ' + by + ' share', 'diff-' + by,
				['first', 'second', 'change', 'stderr', 'z', 'sig', 'function'],
				ch.slice(0, TOP).map(function (c) {
					var sig = Math.abs(c.z) >= SIG_Z;
					return { fn: names[c.k], cls: !sig ? 'noise' : c.d > 0 ? 'grew' : 'shrank',
						cells: [fmtPct(c.p1), fmtPct(c.p2), (c.d >= 0 ? '+' : '') + fmtPct(c.d),
							fmtPct(c.se), isFinite(c.z) ? c.z.toFixed(2) : (c.z > 0 ? '+' : '-') + 'inf',
							sig ? 'yes' : 'no', names[c.k]] };
				}));
		});
	}

	/* --- everything ------------------------------------------------------------- */
	function redraw() {
		var t = performance.now();
		var a = selCounts(sel.a), b = sel.b ? selCounts(sel.b) : null;
		cur = b ? { diff: true, c: b.c, total: b.total, c2: a.c, total2: a.total } :
			{ diff: false, c: a.c, total: a.total, c2: null, total2: 0 };
		cur.tree = buildTree(cur.c, cur.c2);
		if (cur.diff) {
			var maxD = 0;
			(function md(n) {
				var d = Math.abs(share(n.v, cur.total) - share(n.v2, cur.total2));
				if (n.v && d > maxD) maxD = d;
				if (n.ch) n.ch.forEach(md);
			})(cur.tree);
			cur.maxDelta = maxD;
		}
		selInfo.textContent = '';
		el('span', { 'class': 'a' }, selInfo, 'Selection: ');
		el('span', null, selInfo, describe(sel.a) + ', ' + fmtInt(a.total) + ' samples');
		if (b) {
			el('span', { 'class': 'b' }, selInfo, '  compared with: ');
			el('span', null, selInfo, describe(sel.b) + ', ' + fmtInt(b.total) +
				' samples (widths: second; red grew, blue shrank)');
		}
		var t1 = performance.now();
		drawHeat();
		var t2 = performance.now();
		drawStrips();
		var t3 = performance.now();
		drawFlame();
		var t4 = performance.now();
		drawTables();
		var t5 = performance.now();
		timing.parts = { counts: t1 - t, heat: t2 - t1, strips: t3 - t2, flame: t4 - t3, tables: t5 - t4 };
		timing.lastRedraw = performance.now() - t;
	}

	/* for scripted tests and benchmarks: where things are on the screen, and what is drawn */
	window.eprofUI = {
		timing: timing,
		heatPoint: function (ns) {	/* ns from the recording's start */
			var r = heat.getBoundingClientRect(), cell = Math.floor((ns - origin) / CELL_NS);
			return { x: r.left + HX + Math.floor(cell / ROWS) * CW + CW / 2,
				 y: r.top + HY + (cell % ROWS) * CH + CH / 2 };
		},
		stripPoint: function (label, ns) {
			var r = cpuCv.getBoundingClientRect(), k;
			for (k = 0; k < strips.length && strips[k].label !== label; k++);
			return { x: r.left + SX + Math.min(SW - 1, (ns - origin) / dur * SW), y: r.top + k * SH + SH / 2 };
		},
		frames: function () {
			var r = flame.getBoundingClientRect();
			return rects.map(function (b) {
				return { name: b.depth === 0 ? 'all' : names[b.n.name], x: r.left + b.x, y: r.top + b.y,
					 w: b.w, h: FH - 1, fill: b.fill, v: b.n.v, v2: b.n.v2 };
			});
		},
		endNs: origin + dur
	};
	redraw();
	timing.firstView = performance.now();
	timing.parse = t0Load;
}());
