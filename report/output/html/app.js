/* SPDX-License-Identifier: MIT */
/*
 * report/output/html/app.js - the HTML report's page (report/output/html.c writes the
 * data it reads). Plain JS, no library, nothing fetched.
 *
 * Every view is a sum over the same rows (time bucket, CPU, stack, count):
 * a selection is a time range and a set of CPUs; the rows it keeps are
 * summed into the nodes of the one tree of stacks, and its flame graph,
 * top tables and search all read those sums. A second selection
 * (shift-drag) is compared with the first: frame widths follow the
 * second, colours the change of share (red grew, blue shrank), and the top
 * tables carry the noise estimate of `eprof report --diff --top`. With
 * off-CPU data the rows also have a state, and a switch weighs them as
 * on-CPU samples, off-CPU time or wall time.
 */
'use strict';
/*
 * The data: a JSON object (what the page says) and two sets of
 * arrays (output/html.c html_bin), each one zlib stream in base64 (in
 * pieces, output/html.c bin__write) that the
 * browser's DecompressionStream inflates, of arrays in byte planes (the
 * low byte of every number, then the next...): what the first view needs,
 * and the rows, which are inflated while it is drawn. A page opened on a
 * view from its URL, or on a diff, waits for both.
 */
(function () {
	var t0Script = performance.now(), D = JSON.parse(document.getElementById('eprof-data').textContent);
	var t0Load = performance.now();
	function fail(e) {
		var p = document.createElement('p');
		p.textContent = 'This page cannot show its data (' + e.message + '): write it again with eprof report --html.';
		document.body.insertBefore(p, document.body.firstChild);
		throw e;
	}
	/*
	 * the arrays in the elements of class cls (pieces of one stream, each
	 * base64 of its own), as layout says they are: a promise of
	 * { NAME: { u8, off, n, w } }
	 */
	function inflate(cls, layout, total) {
		var parts = Array.prototype.map.call(document.getElementsByClassName(cls), function (e) {
			var text = e.textContent, bytes, k;
			if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
			text = atob(text);
			bytes = new Uint8Array(text.length);
			for (k = 0; k < text.length; k++) bytes[k] = text.charCodeAt(k);
			return bytes;
		});
		/*
		 * the pieces written straight into the inflater (through a Blob's
		 * stream the first view's arrays took twice as long here); a
		 * damaged stream fails the read, which says so
		 */
		var ds = new DecompressionStream('deflate'), wr = ds.writable.getWriter(), ignore = function () {};
		parts.forEach(function (p) { wr.write(p).catch(ignore); });
		wr.close().catch(ignore);
		return new Response(ds.readable).arrayBuffer().then(function (buf) {
			var u8 = new Uint8Array(buf), off = 0, A = {};
			if (u8.length !== total) throw new Error('damaged arrays: ' + u8.length + ' bytes');
			Object.keys(layout).forEach(function (name) {
				var n = layout[name][0], w = layout[name][1];
				if (!(n >= 0 && w >= 1 && w <= 7 && off + n * w <= u8.length)) throw new Error('damaged array ' + name);
				A[name] = { u8: u8, off: off, n: n, w: w };
				off += n * w;
			});
			return A;
		});
	}
	/* the rows come after this script in the page: they are read once it is all parsed (pieces may be missing before) */
	var rows = null;
	function inflateRows() {
		if (!rows)
			rows = new Promise(function (ok) {
				if (document.readyState !== 'loading') ok();
				else document.addEventListener('DOMContentLoaded', function () { ok(); });
			}).then(function () { return inflate('eprof-rows', D.rows, D.rows_bytes); });
		return rows;
	}
	try {
		var both = location.hash.length > 1 || D.diff;
		Promise.all([inflate('eprof-arrays', D.arrays, D.arrays_bytes), both ? inflateRows() : null]).then(function (a) {
			eprofPage(D, a[0], a[1], inflateRows, t0Load, t0Script);
		}).catch(function (e) { setTimeout(function () { fail(e); }, 0); });
	} catch (e) {
		fail(e);
	}
}());
/*
 * Array a in the narrowest typed array its numbers fit: bytes are a view of
 * the inflated data (no copy: fresh memory is what a page pays most for),
 * else Uint16, Uint32, or Float64 (numbers below 2^53).
 */
function eprofArray(a) {
	if (!a) return new Uint8Array(0);
	var n = a.n, u = a.u8, o = a.off, out, k, j, b;
	if (a.w === 1) return u.subarray(o, o + n);
	if (a.w <= 4) {
		out = a.w === 2 ? new Uint16Array(n) : new Uint32Array(n);
		out.set(u.subarray(o, o + n));
		for (k = 1; k < a.w; k++)
			for (b = o + k * n, j = 0; j < n; j++) out[j] |= u[b + j] << 8 * k;
	} else {
		out = new Float64Array(n);
		out.set(u.subarray(o, o + n));
		for (k = 1; k < a.w; k++)
			for (var mul = Math.pow(256, k), b2 = o + k * n, j2 = 0; j2 < n; j2++) out[j2] += u[b2 + j2] * mul;
	}
	return out;
}
/* the n frame names of array a: UTF-8, NUL-separated (output/html.c bin__put_names) */
function eprofNames(a, n) {
	if (!a || !(n >= 0)) throw new Error('damaged names');
	if (!n) return [];
	var list = new TextDecoder().decode(a.u8.subarray(a.off, a.off + a.n)).split('\0');
	if (list.length !== n) throw new Error('damaged names: ' + list.length + ' of ' + n);
	return list;
}
function eprofPage(D, A, R, rowsLater, t0Load, t0Script) {
	var CELL_NS = 20e6, ROWS = 50, SIG_Z = 3;
	var names = eprofNames(A.names, D.nr_names), nNames = names.length, slotNs = D.slot_ns, labelDepth = D.label_depth;
	/* timing.marks: when each step of the load ended (ms from navigation start) */
	var MK = { script: t0Script, json: t0Load, arrays: performance.now() };
	function mark(k) { MK[k] = performance.now(); }
	var i, j;

	/*
	 * The tree of every stack: node 0 is the root, the others come depth
	 * first with their children in drawing order, so a node's subtree is
	 * the run [node, end[node]): its children are node + 1, then each
	 * child's end, while below the node's end. A selection sums its rows into the stacks,
	 * the stacks into the nodes they end at, then every node into its
	 * parent, last first: two passes over typed arrays, whatever the size
	 * of the selection.
	 */
	/*
	 * The tree comes as each node's depth (root first) and name: a node's
	 * parent is the last node before it one level up, and it ends where a
	 * node of its depth or less comes, so one pass with the path from the
	 * root makes par and end. Depths are small numbers in one byte plane
	 * (a view of the inflated data, no copy, below 256; 16 bits else: a
	 * stack has some hundreds of frames at most); fresh memory is what a
	 * big tree costs most (some 10 ms a MB here).
	 */
	var nNodes = D.nr_nodes, tDepth = A.tree_depth, tName = A.tree_name;
	if (nNodes < 1 || !tDepth || !tName || tDepth.n !== nNodes || tName.n !== nNodes - 1 || tDepth.w > 2 || tName.w > 4)
		throw new Error('damaged tree');
	var par = new Int32Array(nNodes), nm = new Int32Array(nNodes), depth = eprofArray(tDepth);
	var end = new Int32Array(nNodes), firstOcc = new Uint8Array(nNodes), maxDepth = 0;
	par[0] = -1;
	nm[0] = -1;
	(function () {
		var path = new Int32Array(65537), top = 0, d, k;	/* path[d]: the last node of depth d */
		/* node i's name: byte i - 1 of each plane of tName */
		var u = tName.u8, w = tName.w, m = nNodes - 1, o0 = tName.off - 1, o1 = o0 + m, o2 = o1 + m, o3 = o2 + m, x;
		if (depth[0] !== 0) throw new Error('damaged tree at its root');
		for (i = 1; i < nNodes; i++) {
			d = depth[i];
			x = u[o0 + i];
			if (w > 1) x |= u[o1 + i] << 8;
			if (w > 2) x |= u[o2 + i] << 16;
			if (w > 3) x |= u[o3 + i] << 24;
			nm[i] = x;
			if (d < 1 || d > top + 1 || x < 0 || x >= nNames) throw new Error('damaged tree at node ' + i);
			for (k = d; k <= top; k++) end[path[k]] = i;
			par[i] = path[d - 1];
			path[d] = i;
			top = d;
			if (d > maxDepth) maxDepth = d;
		}
		for (k = 0; k <= top; k++) end[path[k]] = nNodes;
	}());
	mark('tree');
	/*
	 * firstOcc: no ancestor is the same function (a recursive call counts
	 * once in "total"), for the tree T in depth-first order (its labelDepth
	 * top levels, the comm and pid, are no function).
	 */
	function markFirstOcc(T) {
		var path = new Int32Array(T.maxDepth + 1), on = new Int32Array(nNames), len = 0, d = T.depth, m = T.nm;
		for (var n = 1; n < T.n; n++) {
			while (len >= d[n]) {
				var q = path[--len];
				if (d[q] > T.labelDepth) on[fnOf[m[q]]]--;
			}
			T.firstOcc[n] = on[fnOf[m[n]]] === 0 ? 1 : 0;
			if (d[n] > T.labelDepth) on[fnOf[m[n]]]++;
			path[len++] = n;
		}
	}
	/* each name's module (D.modules), -1 for none */
	var modules = D.modules || [], nameMod = new Int32Array(nNames).fill(-1);
	(function () {
		var r = eprofArray(A.name_mod);
		for (var k = 0; k < nNames && k < r.length; k++) {
			var m = r[k] - 1;
			if (m >= modules.length) throw new Error('damaged module of name ' + k);
			nameMod[k] = m;
		}
	}());
	function modOf(k) { var m = nameMod[k]; return m < 0 ? '' : modules[m].replace(/^.*\//, ''); }
	/*
	 * Functions, as the tables, the sandwich and the transforms count them:
	 * a Python frame's name, "qualname (file.py:line)_[py]", is one function
	 * per qualname and file (its module) whatever line ran, as --top has it.
	 * fnOf[k]: the name that stands for name k's function (the first of its
	 * names; k itself for any other name); fnLabel(f): the function's text,
	 * "qualname_[py]"; fnLines.get(f): its names, when it is a Python one.
	 */
	var PY_PLACE = /^(.*?) \((.*):(\d+)\)_\[py\]$/;
	var fnOf = new Int32Array(nNames), fnLines = new Map(), fnText = new Map();
	(function () {
		var first = new Map();
		for (var k = 0; k < nNames; k++) {
			fnOf[k] = k;
			var s = names[k], m = s.charCodeAt(s.length - 1) === 93 && s.endsWith(')_[py]') && PY_PLACE.exec(s);
			if (!m) continue;
			var key = m[1] + '\0' + m[2] + '\0' + nameMod[k], f = first.get(key);
			if (f === undefined) {
				first.set(key, f = k);
				fnLines.set(k, []);
				fnText.set(k, m[1] + '_[py]');
			}
			fnLines.get(f).push(k);
			fnOf[k] = f;
		}
	}());
	function fnLabel(f) { return fnText.get(f) || names[f]; }
	/*
	 * the tree of the page's stacks; what the rows count into (the flame
	 * graph may draw another). Its firstOcc is marked when a table first
	 * needs it (needOcc), after the first view.
	 */
	var B = { par: par, nm: nm, depth: depth, end: end, firstOcc: firstOcc,
		  n: nNodes, labelDepth: labelDepth, maxDepth: maxDepth, occ: false };
	function needOcc() {
		if (!B.occ) markFirstOcc(B);
		B.occ = true;
	}
	/*
	 * The idle task's stacks (pid 0, a CPU with nothing to run): D.idle
	 * names the top node of each, and everything under it is idle. The
	 * flame graph leaves them out unless asked; the heat map and strips
	 * count them apart, to shade the busy share of each cell.
	 */
	var idleNode = new Uint8Array(nNodes), idleTops = eprofArray(A.idle);
	for (j = 0; j < idleTops.length; j++) {
		i = idleTops[j];
		if (i <= 0 || i >= nNodes || depth[i] !== 1) throw new Error('damaged idle node ' + i);
		idleNode.fill(1, i, end[i]);
	}
	var hasIdle = idleTops.length > 0, showIdle = false;
	var nStacks = D.nr_stacks, stackNode = eprofArray(A.stacks);
	if (stackNode.length !== nStacks) throw new Error('damaged stacks');
	for (i = 0; i < nStacks; i++) {
		if (stackNode[i] <= 0 || stackNode[i] >= nNodes) throw new Error('damaged stack ' + i);
	}

	/*
	 * The rows (10 ms bucket, CPU, stack's node, count), sorted by time.
	 * With off-CPU data each row also has a state (D.states: on-CPU, whose
	 * count is samples, then blocked and runnable, whose counts are ns).
	 */
	var N = D.nr_rows, stride = D.cpu_stride, nStates = D.states ? D.states.length : 1;
	/* with states, each row's thread (D.threads: [tid, pid, name]) for the per-thread lanes */
	var threads = nStates > 1 && D.threads ? D.threads : [], nThr = threads.length;
	var rowSlot = null, rowCpu, rowStk, rowN, rowState = null, rowThr = null;
	var maxCpu = N ? stride - 1 : -1, maxSlot = D.last_slot || 0;
	/*
	 * The rows are read at their first use, after the first view (drawn
	 * from D's self_S sums): a row's bucket from the steps, its stack as the
	 * node it ends at (rows count into it), the rest as they are.
	 */
	function needRows() {
		if (rowSlot) return;
		if (!R) throw new Error('the rows were read before they were inflated');
		var steps = eprofArray(R.rows_step), ranks = eprofArray(R.rows_stack), s = 0, r;
		rowCpu = eprofArray(R.rows_cpu);
		rowN = eprofArray(R.rows_count);
		rowState = nStates > 1 ? eprofArray(R.rows_state) : null;
		rowThr = rowState ? eprofArray(R.rows_thread) : null;
		if (steps.length !== N || rowCpu.length !== N || ranks.length !== N || rowN.length !== N ||
		    (rowState && (rowState.length !== N || rowThr.length !== N)))
			throw new Error('damaged rows');
		var slots = new Int32Array(N);
		rowStk = nNodes <= 65536 ? (ranks instanceof Uint16Array ? ranks : new Uint16Array(N)) :
			(ranks instanceof Uint32Array ? ranks : new Uint32Array(N));
		for (r = 0; r < N; r++) {
			s += steps[r];
			slots[r] = s;
			var k = ranks[r];
			if (k >= nStacks || rowCpu[r] >= stride || !rowN[r]) throw new Error('damaged row ' + r);
			rowStk[r] = stackNode[k];
			if (rowThr && (rowThr[r] >= nThr || rowState[r] >= nStates)) throw new Error('damaged row ' + r);
		}
		if (N && s !== maxSlot) throw new Error('damaged rows: they end at ' + s);
		rowSlot = slots;
		R = null;	/* what stays is the typed arrays */
	}

	/* times on the page count from origin (the whole second before the first sample), labels from the start */
	var origin = D.origin_ns || 0, dur = (maxSlot + 1) * slotNs;
	D.sources.forEach(function (src) { if (src.duration_ns - origin > dur) dur = src.duration_ns - origin; });
	var nSec = Math.max(1, Math.ceil(dur / 1e9));
	/* CPUs without samples get strips too, as far as a sane CPU count goes */
	var nCpu = maxCpu + 1;
	D.sources.forEach(function (src) { if (src.cpus > nCpu) nCpu = Math.min(src.cpus, Math.max(nCpu, 1024)); });

	/*
	 * What a count is: on-CPU samples (the only view without off-CPU data),
	 * off-CPU (blocked) time, or wall time: on-CPU samples times the
	 * sampling period, blocked and runnable time, as report --off-cpu and
	 * --wall weigh them. w: the weight of each state's count.
	 */
	var period = D.period_ns || 0, VIEWS = [{ id: 'on', label: 'on-CPU', time: false, w: [1, 0, 0] }];
	if (nStates > 1) {
		VIEWS.push({ id: 'off', label: 'off-CPU', time: true, w: [0, 1, 0] });
		if (period) VIEWS.push({ id: 'wall', label: 'wall', time: true, w: [period, 1, 1] });
	}
	var view = VIEWS.filter(function (vw) { return vw.id === D.view; })[0] || VIEWS[0];

	/* the rows of the CPU strips: one per CPU, then one per NUMA node when there are several */
	var strips = [], nodeIds = [];
	for (i = 0; i < nCpu; i++) strips.push({ label: 'cpu ' + i, cpus: [i] });
	D.nodes.forEach(function (n, c) { if (n >= 0 && c < nCpu && nodeIds.indexOf(n) < 0) nodeIds.push(n); });
	nodeIds.sort(function (a, b) { return a - b; });
	if (nodeIds.length > 1)
		nodeIds.forEach(function (n) {
			var cpus = [];
			D.nodes.forEach(function (m, c) { if (m === n && c < nCpu) cpus.push(c); });
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
	/*
	 * HiDPI: a canvas of w x h CSS pixels gets w x h x devicePixelRatio^2
	 * of its own, and a context that draws in CSS pixels (text and lines
	 * sharp); images of cells are drawn at CSS size and scaled up without
	 * smoothing (putScaled), so a cell stays a crisp block.
	 */
	var DPR = Math.max(1, Math.min(4, window.devicePixelRatio || 1));
	/*
	 * Sizing a canvas costs nothing until its context is asked for (ctxOf):
	 * the canvases the first view does not draw in (heat map, strips) are
	 * sized at load, for the layout, and get their pixels after it. A
	 * canvas that keeps its size is cleared and reset, not given new pixels.
	 */
	function sizeCanvas(cv, w, h) {
		var pw = Math.round(w * DPR), ph = Math.round(h * DPR), g;
		if (cv.width !== pw || cv.height !== ph) {
			cv.width = pw;
			cv.height = ph;
		} else if (cv.hasCtx) {
			g = cv.getContext('2d');
			if (g.reset) g.reset();
			else { g.setTransform(1, 0, 0, 1, 0, 0); g.clearRect(0, 0, pw, ph); }
		}
		cv.fresh = true;
		if (cv.cssW !== w || cv.cssH !== h) {
			cv.style.width = w + 'px';
			cv.style.height = h + 'px';
			cv.cssW = w;
			cv.cssH = h;
		}
	}
	/* cv's context, drawing in CSS pixels (its transform set once after each sizeCanvas) */
	function ctxOf(cv) {
		var g = cv.getContext('2d');
		cv.hasCtx = true;
		if (cv.fresh) {
			cv.fresh = false;
			g.setTransform(DPR, 0, 0, DPR, 0, 0);
			g.imageSmoothingEnabled = false;
		}
		return g;
	}
	var scratch = document.createElement('canvas');
	function putScaled(g, img, x, y) {
		if (DPR === 1) { g.putImageData(img, x, y); return; }
		scratch.width = img.width;
		scratch.height = img.height;
		scratch.getContext('2d').putImageData(img, 0, 0);
		g.drawImage(scratch, x, y);
	}
	function fmtPct(x) { return (100 * x).toFixed(2) + '%'; }
	function fmtSec(ns) { return (ns / 1e9).toFixed(3) + ' s'; }
	function secLabel(sec) { return Math.round(sec + origin / 1e9) + 's'; }
	function fmtInt(x) { return String(Math.round(x)).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
	function fmtTime(ns) {
		var a = Math.abs(ns);
		return a >= 1e9 ? (ns / 1e9).toFixed(3) + ' s' : a >= 1e6 ? (ns / 1e6).toFixed(2) + ' ms' :
			(ns / 1e3).toFixed(1) + ' us';
	}
	/* a count of the current view: samples, or time */
	function fmtVal(x) { return view.time ? fmtTime(x) : fmtInt(x); }
	function fmtAmount(x) { return view.time ? fmtTime(x) : fmtInt(x) + ' samples'; }

	var body = document.body;
	var hdr = el('header', { id: 'hdr' }, body);
	el('h1', null, hdr, D.title || 'eprof report');
	/* the window's title names what was recorded */
	(function () {
		var c = D.sources.length === 1 ? D.sources[0].command : null;
		if (c) document.title = 'eprof: ' + (c === '-a' ? 'whole system' : c.replace(/^-- /, '')) +
			(D.sources[0].host ? ' on ' + D.sources[0].host : '');
	}());
	/* what was recorded: the target as `eprof record` was given it (-- CMD, -a, -p PIDS) */
	function target(t) {
		if (!t) return null;
		if (t === '-a') return 'whole system (-a)';
		if (t.slice(0, 3) === '-- ') return t.slice(3);
		if (t.slice(0, 3) === '-p ') return 'processes ' + t.slice(3) + ' (-p)';
		return t;
	}
	D.sources.forEach(function (src) {
		var line = el('div', { 'class': 'meta' }, hdr);
		function bit(k, v) {
			if (v === null || v === undefined || v === '') return;
			if (line.childNodes.length) el('span', { 'class': 'sep' }, line, ' \u00b7 ');
			el('span', { 'class': 'k' }, line, k + ' ');
			el('span', { 'class': 'v' }, line, v);
		}
		if (D.sources.length > 1) bit('file', src.path);
		bit('recorded', target(src.command));
		bit('host', src.host);
		bit('kernel', src.kernel ? src.kernel + (src.arch ? ' ' + src.arch : '') : null);
		bit('CPUs', src.cpus ? String(src.cpus) : null);
		bit('duration', fmtSec(src.duration_ns));
		bit('rate', src.freq_hz ? src.freq_hz + ' Hz' : null);
		bit('samples', fmtInt(src.samples));
	});
	var q = D.quality, qbits = [];
	/*
	 * as report__print_summary(): under -a every tick is a sample, else
	 * throttled ticks were anyone's; ticks that did not fire are no lost
	 * samples (an idle CPU stops its timer), said apart
	 */
	var gone = q.ticks ? q.ticks.throttled : 0;
	var everyTick = q.ticks && q.ticks.kept === q.ticks.fired, lost = q.lost_samples + (everyTick ? gone : 0);
	qbits.push(fmtInt(lost) + ' samples lost' + (everyTick ? ' (' + fmtInt(q.ticks.throttled) +
		' throttled, ' + fmtInt(q.lost_samples) + ' with the ring buffer full)' :
		gone ? ' (the ring buffer); the kernel throttled ' + fmtInt(gone) + ' ticks of any task' : ''));
	if (q.ticks && q.ticks.missed)
		qbits.push(fmtInt(q.ticks.missed) + ' ticks did not fire (idle CPUs stop their timer; else a late timer)');
	qbits.push(fmtInt(q.lost_stacks) + ' stacks not captured');
	qbits.push(fmtInt(q.truncated_stacks) + ' stacks truncated');
	if (q.unwind)
		qbits.push(fmtInt(q.unwind.fallback) + ' of ' + fmtInt(q.unwind.walks) +
			' user stacks unwound with a frame-pointer fallback, ' + fmtInt(q.unwind.truncated) +
			' cut at the depth limit');
	qbits.push(q.frames ? (Math.floor(1000 * q.resolved / q.frames) / 10).toFixed(1) +
		'% of frames named' : 'no frames');
	if (q.offcpu)
		qbits.push(fmtInt(q.offcpu.intervals) + ' off-CPU intervals and sums (blocked ' +
			fmtTime(q.offcpu.blocked_ns) + ', runnable ' + fmtTime(q.offcpu.runnable_ns) + '), ' +
			fmtInt(q.offcpu.lost) + ' lost (' + fmtTime(q.offcpu.lost_ns) + '), ' +
			fmtInt(q.offcpu.untracked) + ' not followed, ' + fmtInt(q.offcpu.lost_stacks) +
			' without their stack');
	if (q.filtered) qbits.push(fmtInt(q.filtered) + ' samples left out by the filters');
	var qual = el('div', { 'class': 'quality', id: 'quality' }, hdr, 'Quality: ' + qbits.join(', '));
	if (lost || q.truncated_stacks || (q.frames && q.resolved < 0.9 * q.frames) ||
	    (q.offcpu && (q.offcpu.lost || q.offcpu.lost_stacks)))
		qual.className += ' warn';

	/* the heat map and the strips fold away (their summary stays), so the flame graph can be in view */
	var heatBox = el('details', { id: 'heatbox', open: '' }, body);
	var heatSummary = el('summary', null, heatBox);
	var heatTitle = el('h2', null, heatSummary, 'Heat map: seconds across, 20 ms steps down');
	el('div', { 'class': 'hint' }, heatBox, 'Drag to select a time range; shift-drag for a ' +
		'second range to compare with the first; double-click to select everything.');
	var heatWrap = el('div', { 'class': 'scroll' }, heatBox);
	var heat = el('canvas', { id: 'heat', role: 'img', 'aria-label': 'heat map of the recording: ' +
		'seconds across, 20 ms steps down; the readout and the tables below say what it shows' }, heatWrap);
	var cpuBox = el('details', { id: 'cpubox', open: '' }, body);
	el('h2', null, el('summary', null, cpuBox), 'CPUs' + (nodeIds.length > 1 ? ' and NUMA nodes' : ''));
	el('div', { 'class': 'hint' }, cpuBox, 'Click a strip for its CPU over the whole ' +
		'recording, drag along it for a time range on that CPU (shift: second selection).');
	var cpuWrap = el('div', { 'class': 'scroll' }, cpuBox);
	var cpuCv = el('canvas', { id: 'cpus', role: 'img', 'aria-label': 'CPU strips: each CPU over time' }, cpuWrap);
	/* with off-CPU data: a lane per thread, coloured by what it did (running, runnable, blocked in what) */
	var thrBox = null, laneCv = null, laneLegend = null, laneTable = null;
	if (nThr) {
		thrBox = el('details', { id: 'thrbox', open: '' }, body);
		el('h2', null, el('summary', null, thrBox), 'Threads: running, runnable, blocked');
		laneLegend = el('div', { id: 'lanelegend', 'class': 'hint' }, thrBox);
		laneCv = el('canvas', { id: 'lanes', role: 'img', tabindex: '0', 'aria-label': 'a lane per thread ' +
			'over time: warm where it ran, amber where it waited for a CPU, cool where it was blocked, ' +
			'one cool colour per wait reason; the threads table below holds the same' },
			el('div', { 'class': 'scroll' }, thrBox));
		laneTable = el('div', { id: 'lanetable' }, thrBox);
	}

	var bar = el('div', { id: 'bar' }, body);
	/* the switch between on-CPU, off-CPU and wall time: only when the recording has off-CPU data */
	var viewBtns = [];
	if (VIEWS.length > 1) {
		var views = el('span', { id: 'views', role: 'group', 'aria-label': 'what to count' }, bar);
		VIEWS.forEach(function (vw) {
			var btn = el('button', { id: 'view-' + vw.id, 'data-view': vw.id }, views, vw.label);
			btn.addEventListener('click', function () { setView(vw); });
			viewBtns.push(btn);
		});
	}
	var modeBtn = el('button', { id: 'mode' }, bar, 'Icicle');
	var invertBtn = el('button', { id: 'invert', 'aria-pressed': 'false', title: 'the functions that ran at the ' +
		'root, their callers above (as Firefox Profiler\'s)' }, bar, 'Invert call stack');
	var heavyBtn = el('button', { id: 'leftheavy', 'aria-pressed': 'false', title: 'the heaviest child first' },
		bar, 'Left-heavy');
	/* the idle task: out of the flame graph and tables by default, the heat map shades busyness */
	var idleBtn = hasIdle ? el('button', { id: 'idle', 'aria-pressed': 'false', title: 'the idle task (pid 0, ' +
		'a CPU with nothing to run): left out of the flame graph and tables, counted apart in the heat map' },
		bar, 'Show idle') : null;
	var unzoomBtn = el('button', { id: 'unzoom' }, bar, 'Reset zoom');
	var clearBtn = el('button', { id: 'clear' }, bar, 'Select all');
	el('span', null, bar, ' Search: ');
	var search = el('input', { id: 'search', type: 'search', placeholder: 'regex' }, bar);
	var matched = el('span', { id: 'matched' }, bar);
	var selInfo = el('span', { id: 'sel' }, bar);
	var tfBar = el('div', { id: 'transforms', 'class': 'hint' }, body);
	var flameWrap = el('div', { id: 'flamewrap' }, body);
	/* the flame graph's whole height; the canvas covers the part of it in the box's view (paintFlame) */
	var flameSpace = el('div', { id: 'flamespace' }, flameWrap);
	var flame = el('canvas', { id: 'flame' }, flameSpace);
	var details = el('div', { id: 'details' }, body, ' ');
	var tables = el('div', { id: 'tables' }, body);

	/* --- state ------------------------------------------------------------------ */
	mark('dom');
	var ALL = { t0: 0, t1: Infinity, cpus: null, what: 'everything' };
	var sel = EPROF_DIFF.sides(D, origin) || { a: ALL, b: null }, pending = null;	/* pending: a range being dragged */
	var icicle = false, zoom = 0, searchRe = null, vx0 = 0, vx1 = 1, spanZoom = 0;
	var timing = { firstView: 0, lastRedraw: 0, lastPaint: 0, lastSearch: 0, lastHover: 0 };

	/* the rows of each CPU, in time order: a CPU selection reads only its own (made at its first) */
	var cpuRowsMade = null;
	function cpuRows(c) {
		needRows();
		if (!cpuRowsMade) {
			var cnt = new Int32Array(nCpu), k, r;
			cpuRowsMade = [];
			for (r = 0; r < N; r++) cnt[rowCpu[r]]++;
			for (k = 0; k < nCpu; k++) cpuRowsMade.push(new Int32Array(cnt[k]));
			cnt.fill(0);
			for (r = 0; r < N; r++) { k = rowCpu[r]; cpuRowsMade[k][cnt[k]++] = r; }
		}
		return cpuRowsMade[c] || new Int32Array(0);
	}
	/* the first of rows (row indexes; null: all rows) whose bucket is at or after slot */
	function firstAt(rows, slot) {
		needRows();
		var a = 0, b = rows ? rows.length : N;
		while (a < b) {
			var mid = (a + b) >> 1;
			if (rowSlot[rows ? rows[mid] : mid] < slot) a = mid + 1; else b = mid;
		}
		return a;
	}
	/*
	 * One selection's samples per node: sv, of the stacks that end there
	 * (self), and v, of the stacks through it (v of the root is all). The
	 * last few are kept: a second selection leaves the first as it was, and
	 * going back to one costs nothing.
	 */
	var selCache = [];
	function selKey(se) { return view.id + (showIdle ? '+idle:' : ':') + se.t0 + ':' + se.t1 + ':' + (se.cpus ? se.cpus.join(',') : '*'); }
	/* the weight of row r in the current view (1 without states) */
	var W = new Float64Array(3);
	function weighRows() { W.set(view.w); }
	weighRows();
	/* fn(r) for each row r of selection se (a call a row: for the smaller passes) */
	function eachRow(se, fn) {
		var lo = se.t0 / slotNs, hi = se.t1 / slotNs, r, k;
		if (se.cpus)
			se.cpus.forEach(function (c) {
				var rows = cpuRows(c);
				for (k = firstAt(rows, lo), r = firstAt(rows, hi); k < r; k++) fn(rows[k]);
			});
		else
			for (r = firstAt(null, lo), k = firstAt(null, hi); r < k; r++) fn(r);
	}
	/*
	 * In time views: per node, the blocked and runnable ns of the stacks
	 * through it (2n: blocked, 2n + 1: runnable), so that frames where a
	 * thread waited take the cool colours.
	 */
	function offCounts(se) {
		var o = new Float64Array(2 * B.n), n, par = B.par;
		if (isAll(se))
			for (var s = 0; s < nStacks; s++) {
				n = stackNode[s];
				if (idleNode[n] && !showIdle) continue;
				if (W[1]) o[2 * n] += stackSelf[1][s];
				if (W[2]) o[2 * n + 1] += stackSelf[2][s];
			}
		else eachRow(se, function (r) {
			var st = rowState[r];
			if (st && W[st] && (showIdle || !idleNode[rowStk[r]])) o[2 * rowStk[r] + st - 1] += rowN[r];
		});
		for (n = B.n - 1; n > 0; n--) { o[2 * par[n]] += o[2 * n]; o[2 * par[n] + 1] += o[2 * n + 1]; }
		return o;
	}
	/*
	 * The whole recording: its sums are in D, per stack and state (self_S),
	 * no row is read; selfAll[S], per node, is made when a tooltip needs it.
	 */
	var stackSelf = [], selfAll = null;
	for (i = 0; i < nStates; i++) {
		stackSelf.push(eprofArray(A['self_' + i]));
		if (stackSelf[i].length !== nStacks) throw new Error('damaged sums');
	}
	function needSelfAll() {
		if (selfAll) return;
		selfAll = stackSelf.map(function (ss) {
			var a = new Float64Array(nNodes);
			for (var s = 0; s < nStacks; s++) a[stackNode[s]] += ss[s];
			return a;
		});
	}
	function isAll(se) { return !se.cpus && se.t0 <= 0 && se.t1 === Infinity; }
	/*
	 * A selection's counts: samples are whole numbers, exact in a float's
	 * 24 bits while the recording has fewer samples than 2^24, in half the
	 * memory (a fresh MB costs some 10 ms here); time (ns) needs a double.
	 */
	var CountArray = Float64Array;
	function selCounts(se) {
		CountArray = !view.time && D.total < 16777216 ? Float32Array : Float64Array;
		var key = selKey(se), k, r, i;
		for (k = 0; k < selCache.length; k++)
			if (selCache[k].key === key) return selCache[k].res;
		var sv = new CountArray(B.n), lo = se.t0 / slotNs, hi = se.t1 / slotNs, par = B.par;
		if (isAll(se)) {
			for (k = 0; k < nStates; k++)
				if (W[k]) for (i = 0; i < nStacks; i++) sv[stackNode[i]] += stackSelf[k][i] * W[k];
		} else if (se.cpus) {
			se.cpus.forEach(function (c) {
				var rows = cpuRows(c);
				for (var j = firstAt(rows, lo), e = firstAt(rows, hi); j < e; j++) {
					r = rows[j];
					sv[rowStk[r]] += rowState ? rowN[r] * W[rowState[r]] : rowN[r];
				}
			});
		} else {
			k = firstAt(null, hi);
			if (rowState)
				for (i = firstAt(null, lo); i < k; i++) sv[rowStk[i]] += rowN[i] * W[rowState[i]];
			else
				for (i = firstAt(null, lo); i < k; i++) sv[rowStk[i]] += rowN[i];
		}
		if (!showIdle) for (k = 0; k < idleTops.length; k++) sv.fill(0, idleTops[k], end[idleTops[k]]);
		var v = sv.slice();
		for (i = B.n - 1; i > 0; i--) v[par[i]] += v[i];
		var res = { sv: sv, v: v, total: v[0], off: view.time && nStates > 1 ? offCounts(se) : null };
		selCache.unshift({ key: key, res: res });
		if (selCache.length > 4) selCache.pop();
		return res;
	}

	/* --- heat map ------------------------------------------------------------ */
	var HX = 46, HY = 18, CH = 6;
	/*
	 * A column is a second; past some 4 hours, SPC seconds (their same
	 * offsets summed), so that the canvas stays within what a browser draws
	 * (32767 pixels across).
	 */
	var SPC = Math.ceil(nSec / 15000), nCol = Math.ceil(nSec / SPC);
	var CW = Math.max(2, Math.min(16, Math.floor(1100 / nCol)));
	sizeCanvas(heat, HX + nCol * CW + 4, HY + ROWS * CH + 2);
	/*
	 * Busyness. Under -a every CPU is sampled at the clock's rate, the idle
	 * task (pid 0) included, so a cell's shade is the busy share of the
	 * ticks that were sampled there, linear from 0 to 100%; ticks the clock
	 * should have given and did not (a late timer, a full ring buffer, a
	 * CPU whose timer slept) are not idle: a cell with more than a quarter
	 * of them is hatched. Other recordings (or filtered ones, or time
	 * views) sample some tasks only: the shade is then the cell's count
	 * against the busiest cell's, linear.
	 */
	var src0 = D.sources[0] || {}, freq = src0.freq_hz || 0;
	var wholeSystem = D.sources.length === 1 && src0.command === '-a' && freq > 0 && !D.quality.filtered;
	var recCpus = Math.max(1, src0.cpus || nCpu);
	function busyMode() { return wholeSystem && view.id === 'on' && !showIdle; }
	/* the ticks the clock owed ncpu CPUs in [t0, t1) (page times), within the recording */
	function ticksOwed(t0, t1, ncpu) {
		var a = Math.max(t0, -origin), b = Math.min(t1, (src0.duration_ns || 0) - origin);
		return b > a ? (b - a) / 1e9 * freq * ncpu : 0;
	}
	function missedIn(busy, idle, owed) { return owed >= 1 && busy + idle < 0.75 * owed; }
	/* per cell (second, 20 ms row) of some CPUs (null: all): busy and idle counts of the view */
	function heatCellsOf(cpus) {
		needRows();
		var n = nCol * ROWS, c = { busy: new Float64Array(n), idle: new Float64Array(n) };
		var per = CELL_NS / slotNs, i;
		function add(r) {
			var cell = Math.floor(rowSlot[r] / per), sec = Math.floor(cell / ROWS);
			cell = Math.floor(sec / SPC) * ROWS + cell % ROWS;
			if (cell < n) (idleNode[rowStk[r]] ? c.idle : c.busy)[cell] += rowState ? rowN[r] * W[rowState[r]] : rowN[r];
		}
		if (cpus)
			cpus.forEach(function (cp) { var rows = cpuRows(cp); for (var j = 0; j < rows.length; j++) add(rows[j]); });
		else
			for (i = 0; i < N; i++) add(i);
		return c;
	}
	/*
	 * 65 shades, linear from 0 (cream) to 1 (deep red): green and blue
	 * fall in step with the value, so the legend reads as a ruler. A cell
	 * with nothing in it is grey.
	 */
	var SHADES = [], EMPTY = [236, 236, 236], HATCH = [96, 96, 96];
	for (i = 0; i <= 64; i++) {
		var tt = i / 64;
		SHADES.push([Math.round(255 - 76 * tt), Math.round(247 - 247 * tt), Math.round(236 - 236 * tt)]);
	}
	/* the shade of a cell or strip pixel: busy share, or count against max (max 0: busyness) */
	function shadeFor(busy, idle, max) {
		var v = max ? (showIdle ? busy + idle : busy) / max : busy / (busy + idle);
		if (!(busy + idle) || (max && !(showIdle ? busy + idle : busy))) return busy + idle ? SHADES[0] : EMPTY;
		return SHADES[Math.max(0, Math.min(64, Math.round(64 * v)))];
	}
	/* the legend under the heat map's title: what a shade means */
	var legend = el('div', { id: 'legend', 'class': 'hint' }, null);
	heatBox.insertBefore(legend, heatSummary.nextSibling);
	function drawLegend(max) {
		legend.textContent = '';
		var cv = el('canvas', { width: 130, height: 10, 'aria-hidden': 'true' }, null), g = cv.getContext('2d');
		for (var x = 0; x < 130; x++) {
			var c = SHADES[Math.round(x / 129 * 64)];
			g.fillStyle = 'rgb(' + c.join(',') + ')';
			g.fillRect(x, 0, 1, 10);
		}
		el('span', null, legend, busyMode() ? 'busy share of the sampled ticks: 0% ' : 'per cell: 0 ');
		legend.appendChild(cv);
		el('span', null, legend, busyMode() ? ' 100%' : ' ' + fmtAmount(max) + ' (linear)');
		if (wholeSystem && view.id === 'on') {
			var hc = el('canvas', { width: 14, height: 10, 'aria-hidden': 'true' }, null), h = hc.getContext('2d');
			h.fillStyle = 'rgb(' + EMPTY.join(',') + ')';
			h.fillRect(0, 0, 14, 10);
			h.fillStyle = 'rgb(' + HATCH.join(',') + ')';
			for (var k = 0; k < 14 * 10; k++) if ((k % 14 + Math.floor(k / 14)) % 4 === 0) h.fillRect(k % 14, Math.floor(k / 14), 1, 1);
			el('span', null, legend, '   ');
			legend.appendChild(hc);
			el('span', null, legend, ' over a quarter of the ticks not sampled (missed, not idle)');
		}
		if (hasIdle)
			el('span', null, legend, showIdle ? '; idle shown (counted as samples)' : '; idle (pid 0) left out');
	}
	/*
	 * The cells of the heat map, drawn as pixels into a canvas that every
	 * redraw copies before shading the selections; redrawn only when the
	 * CPUs a selection looks at change.
	 */
	var heatBase = document.createElement('canvas'), heatBaseFor = '-', heatNow = null;
	sizeCanvas(heatBase, heat.cssW, heat.cssH);
	var heatCache = new Map();	/* CPUs -> cells */
	function heatCells(cpus) {
		var key = view.id + ':' + (cpus ? cpus.join(',') : '*'), cells = heatCache.get(key);
		if (!cells) {
			cells = heatCellsOf(cpus);
			if (heatCache.size > 8) heatCache.clear();
			heatCache.set(key, cells);
		}
		return cells;
	}
	/* what cell k (column * ROWS + row) of the current heat map holds */
	function cellInfo(k) {
		var c = heatNow.cells, col = Math.floor(k / ROWS), row = k % ROWS, t0 = col * SPC * 1e9 + row * CELL_NS;
		var ncpu = heatNow.cpus ? heatNow.cpus.length : recCpus, owed = 0;
		for (var s2 = 0; s2 < SPC; s2++) owed += ticksOwed(t0 + s2 * 1e9, t0 + s2 * 1e9 + CELL_NS, ncpu);
		var busy = c.busy[k], idle = c.idle[k];
		return { t0: t0, busy: busy, idle: idle, owed: owed,
			 share: busy + idle ? busy / (busy + idle) : 0, missed: wholeSystem && view.id === 'on' && missedIn(busy, idle, owed) };
	}
	function paintHeatBase(cpus, label) {
		var key = view.id + ':' + showIdle + ':' + (cpus ? cpus.join(',') : '*');
		if (key === heatBaseFor) return;
		heatBaseFor = key;
		var cells = heatCells(cpus), max = 0, row, x, y, col;
		heatNow = { cells: cells, cpus: cpus };
		if (!busyMode())
			for (i = 0; i < cells.busy.length; i++) {
				var v = showIdle ? cells.busy[i] + cells.idle[i] : cells.busy[i];
				if (v > max) max = v;
			}
		var g = ctxOf(heatBase), w = nCol * CW, h = ROWS * CH;
		g.clearRect(0, 0, heatBase.width, heatBase.height);
		g.fillStyle = '#444';
		g.font = '10px sans-serif';
		for (row = 0; row < ROWS; row += 10)
			g.fillText(row * 20 + ' ms', 2, HY + row * CH + 8);
		var step = Math.max(1, Math.ceil(40 / CW));
		for (col = 0; col < nCol; col += step)
			g.fillText(secLabel(col * SPC), HX + col * CW, 12);
		if (cpus) {
			g.fillStyle = '#06c';
			g.fillText(label, 2, 12);
		}
		var img = g.createImageData(w, h), px = img.data, gapX = CW > 3 ? 1 : 0;
		for (col = 0; col < nCol; col++)
			for (row = 0; row < ROWS; row++) {
				var k = col * ROWS + row, c = shadeFor(cells.busy[k], cells.idle[k], max);
				var hatch = wholeSystem && view.id === 'on' && cellInfo(k).missed;
				for (y = row * CH; y < row * CH + CH - 1; y++)
					for (x = col * CW; x < col * CW + CW - gapX; x++) {
						var o = (y * w + x) * 4, cc = hatch && (x + y) % 4 === 0 ? HATCH : c;
						px[o] = cc[0]; px[o + 1] = cc[1]; px[o + 2] = cc[2]; px[o + 3] = 255;
					}
			}
		putScaled(g, img, HX, HY);
		heatTitle.textContent = 'Heat map' + (cpus ? ' of ' + label : '') + (VIEWS.length > 1 ? ', ' +
			view.label + ' ' + (view.time ? 'time' : 'samples') : '') + ': ' +
			(SPC > 1 ? SPC + ' seconds' : 'seconds') + ' across, 20 ms steps down' +
			(busyMode() ? ', shaded by how busy the CPUs were' : '');
		drawLegend(max);
	}
	/*
	 * Search: the cells whose samples have a matching frame light up, the
	 * more the larger their share of the cell. hits: per cell, or null.
	 */
	var heatHits = null, heatHitsFor = '';
	function searchHits() {
		var key = String(searchRe) + ':' + heatBaseFor;
		if (!searchRe) { heatHits = null; heatHitsFor = ''; return; }
		if (key === heatHitsFor) return;
		heatHitsFor = key;
		markHits();	/* the heat map may be drawn before the flame graph */
		needRows();
		var hp = new Uint8Array(B.n), n, r, per = CELL_NS / slotNs, cpus = heatNow.cpus;
		for (n = 1; n < B.n; n++) hp[n] = hitName[B.nm[n]] | hp[B.par[n]];
		heatHits = new Float64Array(nCol * ROWS);
		function add(r) {
			if (!hp[rowStk[r]] || (idleNode[rowStk[r]] && !showIdle)) return;
			var cell = Math.floor(rowSlot[r] / per), sec = Math.floor(cell / ROWS);
			cell = Math.floor(sec / SPC) * ROWS + cell % ROWS;
			if (cell < heatHits.length) heatHits[cell] += rowState ? rowN[r] * W[rowState[r]] : rowN[r];
		}
		if (cpus)
			cpus.forEach(function (cp) { var rows = cpuRows(cp); for (var j = 0; j < rows.length; j++) add(rows[j]); });
		else
			for (r = 0; r < N; r++) add(r);
	}
	function lightHits(g) {
		if (!heatHits) return;
		var c = heatNow.cells;
		for (var k = 0; k < heatHits.length; k++) {
			if (!heatHits[k]) continue;
			var all = showIdle ? c.busy[k] + c.idle[k] : c.busy[k], sh = all ? Math.min(1, heatHits[k] / all) : 1;
			g.fillStyle = 'rgba(200,0,200,' + (0.35 + 0.6 * sh).toFixed(2) + ')';
			g.fillRect(HX + Math.floor(k / ROWS) * CW, HY + (k % ROWS) * CH, CW - (CW > 3 ? 1 : 0), CH - 1);
		}
	}
	/* a time range as one run of cells per second it touches */
	function shadeHeat(g, se, colour) {
		if (!se || se === ALL || se.t1 === Infinity) return;
		g.fillStyle = colour;
		for (var sec = Math.floor(se.t0 / 1e9); sec < nSec && sec * 1e9 < se.t1; sec++) {
			var r0 = Math.max(0, Math.floor((se.t0 - sec * 1e9) / CELL_NS));
			var r1 = Math.min(ROWS, Math.ceil((se.t1 - sec * 1e9) / CELL_NS));
			if (r1 > r0)
				g.fillRect(HX + Math.floor(sec / SPC) * CW, HY + r0 * CH, CW - (CW > 3 ? 1 : 0), (r1 - r0) * CH - 1);
		}
	}
	function drawHeat() {
		if (firstView) return;	/* drawn after the first view, with the rows */
		var g = ctxOf(heat), a = pending && !pending.b ? pending.se : sel.a;
		/* the heat map shows the CPUs of the first selection (all for a time range) */
		paintHeatBase(a.cpus, a.what);
		g.clearRect(0, 0, heat.width, heat.height);
		g.drawImage(heatBase, 0, 0, heat.cssW, heat.cssH);
		searchHits();
		lightHits(g);
		shadeHeat(g, a, 'rgba(0,100,220,0.4)');
		shadeHeat(g, pending && pending.b ? pending.se : sel.b, 'rgba(230,120,0,0.45)');
	}
	/* the start of the cell under the mouse (ns); last: in the column's last second */
	function heatCellAt(ev, last) {
		var r = heat.getBoundingClientRect();
		var col = Math.floor((ev.clientX - r.left - HX) / CW);
		var row = Math.floor((ev.clientY - r.top - HY) / CH);
		col = Math.max(0, Math.min(nCol - 1, col));
		row = Math.max(0, Math.min(ROWS - 1, row));
		var sec = Math.min(nSec - 1, col * SPC + (last ? SPC - 1 : 0));
		return (sec * ROWS + row) * CELL_NS;
	}

	/* --- CPU strips -------------------------------------------------------- */
	var SX = 64, SW = 1000, SH = 14;
	var cpuStrips = [];	/* cpu -> strip indexes holding it */
	strips.forEach(function (st, k) {
		st.cpus.forEach(function (c) { (cpuStrips[c] = cpuStrips[c] || []).push(k); });
	});
	sizeCanvas(cpuCv, SX + SW + 4, strips.length * SH + 14);

	function sameCpus(a, b) { return a && b && a.join(',') === b.join(','); }
	/* the strips of the current view, drawn once per view; a redraw copies them and shades the selections */
	var stripBase = document.createElement('canvas'), stripBaseFor = '';
	sizeCanvas(stripBase, cpuCv.cssW, cpuCv.cssH);
	function paintStripBase() {
		var key = view.id + ':' + showIdle;
		if (stripBaseFor === key) return;
		stripBaseFor = key;
		needRows();
		var busy = strips.map(function () { return new Float64Array(SW); });
		var idle = strips.map(function () { return new Float64Array(SW); }), cpuMax = 0, x;
		for (i = 0; i < N; i++) {
			var px = Math.min(SW - 1, Math.floor(rowSlot[i] * slotNs / dur * SW)), ks = cpuStrips[rowCpu[i]];
			var w = rowState ? rowN[i] * W[rowState[i]] : rowN[i], bins = idleNode[rowStk[i]] ? idle : busy;
			if (ks && w) for (j = 0; j < ks.length; j++) bins[ks[j]][px] += w;
		}
		/* outside busyness: CPUs share a scale; a node's strip has its own (it sums several CPUs) */
		var maxOf = strips.map(function (st, k) {
			var m = 0, b = busy[k], d = idle[k];
			if (busyMode()) return 0;
			for (x = 0; x < SW; x++) if (b[x] + (showIdle ? d[x] : 0) > m) m = b[x] + (showIdle ? d[x] : 0);
			if (st.cpus.length === 1 && m > cpuMax) cpuMax = m;
			return m;
		});
		var g = ctxOf(stripBase), img = g.createImageData(SW, strips.length * SH), px = img.data;
		g.clearRect(0, 0, stripBase.width, stripBase.height);
		g.font = '10px sans-serif';
		/*
		 * A pixel may be shorter than the clock's period: under -a, the
		 * busy share and the missed ticks are of blocks of pixels that
		 * span two ticks at least.
		 */
		var bw = wholeSystem && view.id === 'on' ? Math.max(1, Math.ceil(2e9 / freq / (dur / SW))) : 1;
		strips.forEach(function (st, k) {
			var max = st.cpus.length === 1 ? cpuMax : maxOf[k], y, x0;
			g.fillStyle = '#333';
			g.fillText(st.label, 2, k * SH + 10);
			for (x0 = 0; x0 < SW; x0 += bw) {
				var b = 0, d = 0, x1 = Math.min(SW, x0 + bw), t0 = x0 / SW * dur;
				for (x = x0; x < x1; x++) { b += busy[k][x]; d += idle[k][x]; }
				var c = shadeFor(b, d, max), hatch = wholeSystem && view.id === 'on' &&
					missedIn(b, d, ticksOwed(t0, x1 / SW * dur, st.cpus.length));
				for (x = x0; x < x1; x++)
					for (y = k * SH; y < k * SH + SH - 2; y++) {
						var o = (y * SW + x) * 4, cc = hatch && (x + y) % 4 === 0 ? HATCH : c;
						px[o] = cc[0]; px[o + 1] = cc[1]; px[o + 2] = cc[2]; px[o + 3] = 255;
					}
			}
		});
		putScaled(g, img, SX, 0);
		g.fillStyle = '#444';
		var step = Math.max(1, Math.ceil(nSec / 10));
		for (var sec = 0; sec <= nSec; sec += step)
			g.fillText(secLabel(sec), SX + sec * 1e9 / dur * SW, strips.length * SH + 11);
	}
	function drawStrips() {
		if (firstView) return;
		var g = ctxOf(cpuCv);
		paintStripBase();
		g.clearRect(0, 0, cpuCv.width, cpuCv.height);
		g.drawImage(stripBase, 0, 0, cpuCv.cssW, cpuCv.cssH);
		strips.forEach(function (st, k) {
			[['a', 'rgba(0,100,220,0.35)'], ['b', 'rgba(230,120,0,0.4)']].forEach(function (p) {
				var se = pending && pending.b === (p[0] === 'b') ? pending.se : sel[p[0]];
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

	/* --- per-thread lanes (off-CPU data) ------------------------------------------- */
	/*
	 * Each thread's time as it was spent: on the CPU (its samples times the
	 * period, as wall weighs them), runnable (waiting for a CPU) or blocked,
	 * the blocked time by its wait reason: the function it blocked in, the
	 * leaf of its stack (report cuts the scheduler's frames above it, so it
	 * is what the tables charge the time to); a stack without kernel
	 * frames has no known reason. A column of a lane is a run of 10 ms
	 * buckets; its colour is what took most of its time there: warm for
	 * running, amber for runnable, a cool colour for each of the wait
	 * reasons that blocked longest, lighter where the thread was not there
	 * for the whole column.
	 */
	var RUN_C = [200, 60, 20], RNB_C = [232, 160, 20], COOL = [[31, 95, 168], [42, 157, 143], [106, 76, 147],
		[58, 134, 200], [11, 122, 117], [94, 96, 206], [72, 169, 197]], COOL_REST = [120, 138, 170];
	var LX = 170, LH = 14, MAX_LANES = 200, lanes = null;
	var reasonOf = nThr ? new Int32Array(nNodes).fill(-2) : null;	/* node -> reason (a name id, -1 unknown) */
	function reason(n) {
		if (reasonOf[n] === -2) reasonOf[n] = /_\[k\]$/.test(names[B.nm[n]]) ? B.nm[n] : -1;
		return reasonOf[n];
	}
	function reasonName(r) { return r < 0 ? 'unknown' : names[r].replace(/_\[k\]$/, ''); }
	function laneWeight(r) { return rowState[r] === 0 ? rowN[r] * period : rowN[r]; }
	function buildLanes() {
		needRows();
		var per = new Array(nThr), t, r, k;
		for (t = 0; t < nThr; t++) per[t] = { t: t, run: 0, rnb: 0, blk: 0, reasons: new Map() };
		for (r = 0; r < N; r++) {
			var p = per[rowThr[r]], w = laneWeight(r);
			if (rowState[r] === 0) p.run += w;
			else if (rowState[r] === 2) p.rnb += w;
			else { p.blk += w; var rs = reason(rowStk[r]); p.reasons.set(rs, (p.reasons.get(rs) || 0) + w); }
		}
		/* the reasons that blocked longest over all threads get a colour each */
		var all = new Map();
		per.forEach(function (p) { p.reasons.forEach(function (w, rs) { all.set(rs, (all.get(rs) || 0) + w); }); });
		var ranked = [...all.entries()].filter(function (e) { return e[0] >= 0; })
			.sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; });
		var colour = new Map();
		ranked.forEach(function (e, i) { colour.set(e[0], i < COOL.length ? COOL[i] : COOL_REST); });
		colour.set(-1, COOL_REST);
		var shown = per.filter(function (p) { return p.run + p.rnb + p.blk > 0; })
			.sort(function (a, b) { return (b.run + b.rnb + b.blk) - (a.run + a.rnb + a.blk) || a.t - b.t; });
		var laneOf = new Int32Array(nThr).fill(-1), list = shown.slice(0, MAX_LANES);
		list.forEach(function (p, i) { laneOf[p.t] = i; });
		/* a column: spb buckets, so that the lanes fit SW pixels */
		var nSlots = maxSlot + 1, spb = Math.max(1, Math.ceil(nSlots / SW)), nb = Math.ceil(nSlots / spb);
		var cells = new Float64Array(list.length * nb * 3), best = new Int32Array(list.length * nb).fill(-1);
		var bestW = new Float64Array(list.length * nb), rw = new Map();
		for (r = 0; r < N; r++) {
			var l = laneOf[rowThr[r]];
			if (l < 0) continue;
			var b = Math.floor(rowSlot[r] / spb), o = l * nb + b, st = rowState[r];
			cells[o * 3 + (st === 0 ? 0 : st === 2 ? 1 : 2)] += laneWeight(r);
			if (st === 1) {
				/* the reason that blocked longest in this column */
				var key = o * (nNames + 1) + reason(rowStk[r]) + 1, sum = (rw.get(key) || 0) + rowN[r];
				rw.set(key, sum);
				if (sum > bestW[o]) { bestW[o] = sum; best[o] = reason(rowStk[r]); }
			}
		}
		lanes = { list: list, nb: nb, spb: spb, cells: cells, best: best, colour: colour, ranked: ranked,
			  more: shown.length - list.length };
		sizeCanvas(laneCv, LX + SW + 4, list.length * LH + 14);
		paintLanes();
		laneText();
	}
	function laneLabel(p) {
		var th = threads[p.t];
		return names[th[2]] + ' ' + th[0] + (th[1] !== th[0] ? ' (pid ' + th[1] + ')' : '');
	}
	/* the colour of column b of lane l, and what took most of its time */
	function laneColour(l, b) {
		var o = l * lanes.nb + b, c = lanes.cells, run = c[o * 3], rnb = c[o * 3 + 1], blk = c[o * 3 + 2];
		var all = run + rnb + blk;
		if (!all) return null;
		var base = run >= rnb && run >= blk ? RUN_C : rnb >= blk ? RNB_C : lanes.colour.get(lanes.best[o]) || COOL_REST;
		var cover = Math.min(1, all / (lanes.spb * slotNs)), f = 0.45 + 0.55 * cover;
		return [0, 1, 2].map(function (k) { return Math.round(255 - (255 - base[k]) * f); });
	}
	function paintLanes() {
		var g = ctxOf(laneCv), list = lanes.list, nb = lanes.nb, x, y, l;
		g.clearRect(0, 0, laneCv.width, laneCv.height);
		var img = g.createImageData(SW, Math.max(1, list.length * LH)), px = img.data;
		for (l = 0; l < list.length; l++)
			for (var b = 0; b < nb; b++) {
				var c = laneColour(l, b) || [243, 243, 243];
				/* bucket b spans [b, b + 1) * spb * slotNs of the time axis */
				var x0 = Math.floor(b * lanes.spb * slotNs / dur * SW), x1 = Math.min(SW, Math.floor((b + 1) * lanes.spb * slotNs / dur * SW));
				for (x = x0; x < Math.max(x1, x0 + 1); x++)
					for (y = l * LH; y < l * LH + LH - 2; y++) {
						var o = (y * SW + x) * 4;
						px[o] = c[0]; px[o + 1] = c[1]; px[o + 2] = c[2]; px[o + 3] = 255;
					}
			}
		putScaled(g, img, LX, 0);
		g.font = '10px sans-serif';
		g.fillStyle = '#333';
		list.forEach(function (p, k) {
			var lab = laneLabel(p);
			if (lab.length > 28) lab = lab.slice(0, 26) + '..';
			g.fillText(lab, 2, k * LH + 10);
		});
		g.fillStyle = '#444';
		var step = Math.max(1, Math.ceil(nSec / 10));
		for (var sec = 0; sec <= nSec; sec += step)
			g.fillText(secLabel(sec), LX + sec * 1e9 / dur * SW, list.length * LH + 11);
	}
	function swatch(parent, c, text) {
		var sp = el('span', { 'class': 'sw' }, parent);
		sp.style.background = 'rgb(' + c.join(',') + ')';
		el('span', null, parent, ' ' + text + '  ');
	}
	/* the legend and the table: what the lanes show, as text */
	function laneText() {
		laneLegend.textContent = '';
		swatch(laneLegend, RUN_C, 'running');
		swatch(laneLegend, RNB_C, 'runnable (waiting for a CPU)');
		lanes.ranked.slice(0, COOL.length).forEach(function (e) { swatch(laneLegend, lanes.colour.get(e[0]), 'blocked in ' + reasonName(e[0])); });
		swatch(laneLegend, COOL_REST, 'blocked elsewhere' + (lanes.ranked.length ? '' : ' (reason unknown)'));
		if (lanes.more) el('span', null, laneLegend, '; the ' + lanes.more + ' threads with less time are in the table only');
		laneTable.textContent = '';
		var rows = lanes.list.concat([]).map(function (p) {
			var top = [...p.reasons.entries()].sort(function (a, b) { return b[1] - a[1]; })[0];
			return { fn: laneLabel(p), vals: [p.run + p.rnb + p.blk, p.run, p.rnb, p.blk, 0],
				 cells: [fmtTime(p.run + p.rnb + p.blk), fmtTime(p.run), fmtTime(p.rnb), fmtTime(p.blk),
					 top ? reasonName(top[0]) + ' (' + fmtTime(top[1]) + ')' : '', laneLabel(p)] };
		});
		table('Threads (wall time)', 'threads', ['wall', 'running', 'runnable', 'blocked', 'longest wait', 'thread'], rows, laneTable);
	}
	/* what column b of lane l holds, read from its rows */
	function laneInfo(l, b) {
		var p = lanes.list[l], s0 = b * lanes.spb, s1 = s0 + lanes.spb, run = 0, rnb = 0, blk = new Map(), r;
		for (r = firstAt(null, s0); r < N && rowSlot[r] < s1; r++) {
			if (rowThr[r] !== p.t) continue;
			if (rowState[r] === 0) run += laneWeight(r);
			else if (rowState[r] === 2) rnb += rowN[r];
			else { var rs = reason(rowStk[r]); blk.set(rs, (blk.get(rs) || 0) + rowN[r]); }
		}
		return { t0: s0 * slotNs, t1: s1 * slotNs, run: run, rnb: rnb, blk: blk, label: laneLabel(p) };
	}
	function laneTipText(li) {
		var bt = 0, parts = [];
		[...li.blk.entries()].sort(function (a, b) { return b[1] - a[1]; }).forEach(function (e) {
			bt += e[1];
			parts.push('  ' + reasonName(e[0]) + ' ' + fmtTime(e[1]));
		});
		return li.label + '\n' + fmtSec(li.t0 + origin) + ' - ' + fmtSec(li.t1 + origin) + '\non-CPU ' + fmtTime(li.run) +
			', runnable ' + fmtTime(li.rnb) + ', blocked ' + fmtTime(bt) + (parts.length ? ':\n' + parts.join('\n') : '');
	}
	function laneAt(ev) {
		if (!lanes) return null;
		var r = laneCv.getBoundingClientRect(), l = Math.floor((ev.clientY - r.top) / LH);
		var x = ev.clientX - r.left - LX;
		if (l < 0 || l >= lanes.list.length || x < 0 || x >= SW) return null;
		return { l: l, b: Math.min(lanes.nb - 1, Math.floor(x / SW * dur / slotNs / lanes.spb)) };
	}
	if (laneCv) {
		sizeCanvas(laneCv, LX + SW + 4, Math.min(nThr, MAX_LANES) * LH + 14);	/* buildLanes() draws them */
		laneCv.addEventListener('mousemove', function (ev) {
			var a = laneAt(ev);
			if (!a) { tip.style.display = 'none'; return; }
			showTip(ev, laneTipText(laneInfo(a.l, a.b)));
		});
		laneCv.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
	}

	/* --- selecting ------------------------------------------------------------ */
	var drag = null;
	function describe(se) {
		if (se === ALL) return 'everything';
		var w = se.t1 === Infinity ? 'whole recording' : fmtSec(se.t0 + origin) + ' - ' + fmtSec(se.t1 + origin);
		return w + (se.cpus ? ' on ' + se.what : '');
	}
	/* the selection a drag from d to where ev is makes */
	function dragSel(d, ev) {
		if (d.on === 'heat') {
			var to = heatCellAt(ev), toLast = heatCellAt(ev, true);
			return { t0: Math.min(d.from, to), t1: Math.max(d.fromLast, toLast) + CELL_NS, cpus: null, what: '' };
		}
		var p = stripAt(ev), x0 = Math.min(d.x, p.x), x1 = Math.max(d.x, p.x);
		var se = { cpus: strips[d.k].cpus, what: strips[d.k].label, t0: 0, t1: Infinity };
		if (x1 - x0 >= 3) {
			se.t0 = x0 / SW * dur;
			se.t1 = x1 / SW * dur;
		}
		return se;
	}
	function setSel(which, se) {
		sel[which] = se;
		redraw();
	}
	heat.addEventListener('mousedown', function (ev) {
		if (firstView) return;	/* the rows are not in yet */
		drag = { on: 'heat', from: heatCellAt(ev), fromLast: heatCellAt(ev, true), b: ev.shiftKey };
		ev.preventDefault();
	});
	cpuCv.addEventListener('mousedown', function (ev) {
		if (firstView) return;
		var p = stripAt(ev);
		drag = { on: 'cpu', k: p.k, x: p.x, b: ev.shiftKey };
		ev.preventDefault();
	});
	/* while dragging only the heat map and the strips follow the mouse: they cost nothing */
	window.addEventListener('mousemove', function (ev) {
		if (!drag) return;
		pending = { b: drag.b, se: dragSel(drag, ev) };
		drawHeat();
		drawStrips();
	});
	window.addEventListener('mouseup', function (ev) {
		var d = drag;
		drag = null;
		pending = null;
		if (!d) return;
		var t = performance.now();
		setSel(d.b ? 'b' : 'a', dragSel(d, ev));
		painted(t);
	});
	/* the time from the user's action to the frame that shows its result */
	function painted(t) {
		requestAnimationFrame(function () {
			setTimeout(function () { timing.lastPaint = performance.now() - t; }, 0);
		});
	}
	function selectAll() {
		sel.b = null;
		zoom = 0;
		setSel('a', ALL);
	}
	heat.addEventListener('dblclick', selectAll);
	/* the readout of the cell under the mouse: its time, samples, busy share, ticks not sampled */
	function cellText(k) {
		var ci = cellInfo(k), t = ci.t0 + origin, txt = fmtSec(t) + ' - ' + fmtSec(t + CELL_NS) +
			(SPC > 1 ? ' (and the same 20 ms of ' + (SPC - 1) + ' seconds after)' : '') + '\n';
		if (hasIdle || wholeSystem)
			txt += 'busy ' + fmtAmount(ci.busy) + ', idle ' + fmtAmount(ci.idle) + (view.id === 'on' ?
				'; busy share ' + fmtPct(ci.share) : '');
		else
			txt += fmtAmount(ci.busy);
		if (wholeSystem && view.id === 'on')
			txt += '\n' + fmtInt(ci.owed) + ' ticks due, ' + fmtInt(Math.max(0, ci.owed - ci.busy - ci.idle)) +
				' not sampled' + (ci.missed ? ' (hatched: missed, not idle)' : '');
		return txt;
	}
	heat.addEventListener('mousemove', function (ev) {
		if (drag || !heatNow) return;
		var ns = heatCellAt(ev), k = Math.floor(ns / 1e9 / SPC) * ROWS + Math.floor(ns % 1e9 / CELL_NS);
		showTip(ev, cellText(k));
	});
	heat.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
	if (idleBtn)
		idleBtn.addEventListener('click', function () {
			showIdle = !showIdle;
			idleBtn.textContent = showIdle ? 'Hide idle' : 'Show idle';
			idleBtn.setAttribute('aria-pressed', String(showIdle));
			redraw();
		});
	clearBtn.addEventListener('click', selectAll);
	modeBtn.addEventListener('click', function () {
		icicle = !icicle;
		modeBtn.textContent = icicle ? 'Flame' : 'Icicle';
		drawFlame();
	});
	unzoomBtn.addEventListener('click', function () { zoom = 0; vx0 = 0; vx1 = 1; drawFlame(); drawTables(); });
	search.addEventListener('input', function () {
		var v = search.value, t = performance.now();
		searchRe = null;
		if (v) {
			try { searchRe = new RegExp(v); } catch (e) {
				searchRe = new RegExp(v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
			}
		}
		drawFlame();
		drawHeat();
		timing.lastSearch = performance.now() - t;
	});

	/* --- the flame graph -------------------------------------------------------- */
	var cur = null;	/* what the last redraw computed */
	function hash(str) {
		var h = 2166136261, k;
		for (k = 0; k < str.length; k++) { h ^= str.charCodeAt(k); h = Math.imul(h, 16777619); }
		return ((h >>> 0) % 1000) / 1000;
	}
	function share(v, tot) { return tot ? v / tot : 0; }
	/* the change of node n's share between the selections, second minus first */
	function delta(n) { return share(cur.v[n], cur.total) - share(cur.v2[n], cur.total2); }
	var hitName = null;	/* per name: does the search match it */
	function markHits() {
		hitName = null;
		if (!searchRe) return;
		hitName = new Uint8Array(nNames);
		for (var n = 0; n < nNames; n++) hitName[n] = searchRe.test(names[n]) ? 1 : 0;
	}
	function rgbOf(r, g, b) { return (r & 255) << 16 | (g & 255) << 8 | (b & 255); }
	function cssOf(c) { return 'rgb(' + (c >> 16 & 255) + ',' + (c >> 8 & 255) + ',' + (c & 255) + ')'; }
	/* a frame's colour as 0xRRGGBB: by its name's kind and hash, or by its change in a diff */
	function frameColour(n) {
		var nmv = names[nm[n]], v;
		if (hitName && hitName[nm[n]]) return rgbOf(230, 0, 230);
		if (cur.diff) {	/* diff.js: coloured only where the change passes the noise test */
			var dc = EPROF_DIFF.colour(cur.v2[n], cur.total2, cur.v[n], cur.total, view.time, cur.maxDelta);
			return rgbOf(dc[0], dc[1], dc[2]);
		}
		v = hash(nmv);
		if (depth[n] <= labelDepth) return rgbOf(150 + 30 * v, 165 + 30 * v, 195 + 30 * v);
		if (cur.off && cur.v[n]) {
			/* time views: a frame mostly blocked is cool, mostly waiting for a CPU amber */
			var b = cur.off[2 * n], r = cur.off[2 * n + 1];
			if (b > cur.v[n] / 2) return rgbOf(100 + 50 * v, 160 + 50 * hash(nmv + '.'), 225 + 30 * v);
			if (r > cur.v[n] / 2) return rgbOf(245, 195 + 35 * v, 90 + 50 * v);
		}
		if (/\[unknown\]|\+0x/.test(nmv)) { var gr = 170 + 40 * v; return rgbOf(gr, gr, gr); }
		if (/_\[k\]$/.test(nmv)) return rgbOf(240 + 15 * v, 160 + 40 * v, 110 + 25 * v);
		if (/_\[j\]$/.test(nmv)) return rgbOf(50 + 70 * v, 180 + 60 * v, 90);
		if (/_\[py\]$/.test(nmv)) return rgbOf(170 + 40 * v, 140 + 40 * v, 235 + 20 * v);	/* violet */
		return rgbOf(205 + 50 * v, 230 * hash(nmv + '.'), 55 * hash(nmv + ','));
	}
	/*
	 * WCAG's relative luminance of 0xRRGGBB, and the label colour (black or
	 * white) of the higher contrast on it: at least 4.58:1 on any fill, more
	 * than AA's 4.5:1 for text.
	 */
	function luminance(c) {
		var l = [c >> 16 & 255, c >> 8 & 255, c & 255].map(function (x) {
			x /= 255;
			return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
		});
		return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
	}
	function labelOn(c) { return luminance(c) > 0.1791 ? '#000' : '#fff'; }
	var labelCache = new Map();	/* fill -> its label's colour */
	/* name -> colour, outside the diff and search (-1: not yet), of the labelDepth top levels apart */
	var colourCache = new Int32Array(nNames).fill(-1), colourTop = new Int32Array(nNames).fill(-1);
	function fillOf(n) {
		if (n === 0) return rgbOf(200, 200, 205);
		if (cur.diff || cur.off || (hitName && hitName[nm[n]])) return frameColour(n);
		var c = depth[n] <= labelDepth ? colourTop : colourCache, k = nm[n], f = c[k];
		if (f < 0) c[k] = f = frameColour(n);
		return f;
	}

	/*
	 * The matched share: samples whose stack has a frame that matches,
	 * within the zoom. hp[n]: a frame from the root to n matches; the stacks
	 * that end at such a node are the matched ones.
	 */
	function matchedSamples(z) {
		var hp = new Uint8Array(nNodes), n, mt = 0;
		for (n = 1; n < nNodes; n++) hp[n] = hitName[nm[n]] | hp[par[n]];
		for (n = z; n < end[z]; n++) if (hp[n]) mt += cur.sv[n];
		return mt;
	}

	/* the flame graph's width follows the window's, read when it changes (reading it forces a layout) */
	var FH = 16, flameW = 0;
	/* what the last drawFlame drew: node, left edge and width of each frame (pixels) */
	var drawn = { n: new Int32Array(0), x: new Float64Array(0), w: new Float64Array(0), nr: 0, rows: 0, top: 0 };
	function measureWidth() {
		/* the window's width less a scroll bar's, read without forcing a layout of the page being built */
		flameW = Math.max(600, Math.min(window.innerWidth - 60, 1800));
	}
	measureWidth();
	window.addEventListener('resize', function () {
		var w = flameW;
		measureWidth();
		if (w !== flameW) drawFlame();
		else paintFlame();	/* the box is 75vh high */
	});
	function frameY(n) { return icicle ? depth[n] * FH : (drawn.rows - 1 - depth[n]) * FH; }
	/*
	 * Frames at least minW pixels wide, as pixels written straight into an
	 * image, then the labels of those wide enough to hold one: a narrow
	 * range of a big recording draws some 10^5 frames, too many for one
	 * fillRect each.
	 */
	function drawFlame() {
		/* within the zoomed frame, the part [vx0, vx1) of its width fills the canvas (wheel, drag) */
		if (zoom !== spanZoom) {	/* a new zoomed frame starts whole */
			spanZoom = zoom;
			vx0 = 0;
			vx1 = 1;
		}
		var W = flameW, z = zoom, v = cur.v, scale = v[z] ? W / v[z] / (vx1 - vx0) : 0, minW = 0.3, rows = 0, n, k;
		markHits();
		var cap = drawn.n.length, nr = 0;
		function add(n, x, w) {
			if (nr === cap) {
				cap = Math.max(1024, cap * 2);
				var dn = new Int32Array(cap), dx = new Float64Array(cap), dw = new Float64Array(cap);
				dn.set(drawn.n.subarray(0, nr)); dx.set(drawn.x.subarray(0, nr)); dw.set(drawn.w.subarray(0, nr));
				drawn.n = dn; drawn.x = dx; drawn.w = dw;
			}
			drawn.n[nr] = n; drawn.x[nr] = x; drawn.w[nr] = w;
			nr++;
		}
		/* the zoomed frame's ancestors span the whole width */
		for (n = par[z]; n >= 0; n = par[n]) add(n, 0, W);
		(function walk(n, x) {
			add(n, x, v[n] * scale);
			if (depth[n] + 1 > rows) rows = depth[n] + 1;
			for (var c = n + 1; c < end[n]; c = end[c]) {
				var w = v[c] * scale;
				if (w >= minW && x + w > 0 && x < W) walk(c, x);
				x += w;
			}
		}(z, -vx0 * v[z] * scale));
		drawn.nr = nr;
		drawn.rows = rows;
		/* a tall flame graph scrolls in its box, which starts at the root (app.css: column-reverse) */
		if (flameWrap.className !== (icicle ? 'icicle' : '')) {
			flameWrap.className = icicle ? 'icicle' : '';
			flameWrap.scrollTop = 0;
			flameScrolled = 0;
		}
		flameSpace.style.width = W + 'px';
		flameSpace.style.height = rows * FH + 4 + 'px';
		paintFlame();
		writeHash();
		if (hitName) {
			var mt = matchedSamples(z), share0 = v[z] ? mt / v[z] : 0;
			matched.textContent = 'Matched: ' + fmtPct(share0) + ' (' + fmtVal(mt) + ' of ' + fmtVal(v[z]) + ')';
			matched.setAttribute('data-share', String(share0));
		} else {
			matched.textContent = '';
			matched.removeAttribute('data-share');
		}
	}
	/*
	 * The frames drawn (drawn) in the part of the flame graph in view in
	 * its box (at most 75vh, app.css), from the root's end scrolled by
	 * flameScrolled: a canvas of new pixels costs more than the drawing
	 * (some 50 ms a million pixels here), so the canvas is no taller than
	 * the box and keeps its size from one selection to the next; a scroll
	 * paints it again. One fillRect a frame, a colour at a time: an
	 * ImageData was as many fresh bytes again as the canvas.
	 */
	var flameScrolled = 0, flamePaintQueued = false, flameBoxH = 0;
	/*
	 * The label of frame n drawn w pixels wide (6.2 a character): its name,
	 * cut with '..' at the end. A Python frame's, "qualname (file.py:line)_[py]",
	 * is cut at the front first, a dotted part at a time, for its last parts
	 * (the function itself) tell it from its callers of the same class:
	 * "..helper.<locals>.<listcomp> (app.py:6)_[py]"; then it loses its
	 * place, "..<listcomp>", and only then its end. A function of the
	 * tables, "qualname_[py]", has no place to lose.
	 */
	function frameText(n, w) {
		return fitName(n === 0 ? 'all' : names[nm[n]], Math.floor((w - 6) / 6.2));
	}
	/* label cut to fit characters, as frameText says */
	function fitName(label, fit) {
		var m = label.length > fit && /^(.+?)((?: \([^()]*\))?_\[py\])$/.exec(label), q, k;
		if (m) {
			for (q = m[1]; (k = q.indexOf('.')) >= 0;) {
				q = q.slice(k + 1);
				if (q.length + 2 + m[2].length <= fit && !/^<locals>\./.test(q)) return '..' + q + m[2];
			}
			label = q === m[1] ? q : '..' + q;
		}
		if (label.length > fit) label = fit > 2 ? label.slice(0, fit - 2) + '..' : '';
		return label;
	}
	function paintFlame() {
		var W = flameW, H = drawn.rows * FH + 4, viewH = Math.min(H, Math.ceil(flameBoxH || 0.75 * window.innerHeight));
		var sc = Math.min(flameScrolled, H - viewH), top = icicle ? sc : H - viewH - sc, nr = drawn.nr, n, k;
		drawn.top = top;
		flame.style.top = top + 'px';
		sizeCanvas(flame, W, viewH);
		var g = ctxOf(flame), byFill = new Map();
		/*
		 * The background stays transparent: app.css paints the canvas
		 * white. Frames under a pixel wide take a pixel each, the first of
		 * a row's frames on a pixel alone drawn (a selection of a big
		 * recording has some 10^4 of them): frames of one depth come left
		 * to right.
		 */
		var dust = new Int32Array(drawn.rows).fill(-1);
		for (k = 0; k < nr; k++) {
			n = drawn.n[k];
			var x0 = Math.max(0, Math.round(drawn.x[k])), x1 = Math.round(drawn.x[k] + drawn.w[k]), y = frameY(n) - top;
			if (x0 >= W || y + FH <= 0 || y >= viewH) continue;
			if (x1 - x0 >= 3) x1--;	/* a gap between frames wide enough to afford one */
			if (x1 <= x0) {
				if (dust[depth[n]] === x0) continue;
				dust[depth[n]] = x0;
				x1 = x0 + 1;
			}
			if (x1 > W) x1 = W;
			var c = fillOf(n), list = byFill.get(c);
			if (!list) byFill.set(c, list = []);
			list.push(x0, y, x1 - x0);
		}
		byFill.forEach(function (list, c) {
			g.fillStyle = cssOf(c);
			for (var j = 0; j < list.length; j += 3) g.fillRect(list[j], list[j + 1], list[j + 2], FH - 1);
		});
		g.font = '11px sans-serif';
		g.textBaseline = 'middle';
		g.fillStyle = '#000';
		for (k = 0; k < nr; k++) {
			/* the part of the frame inside the canvas */
			var lx = Math.max(0, drawn.x[k]), w = Math.min(W, drawn.x[k] + drawn.w[k]) - lx, ly;
			n = drawn.n[k];
			ly = frameY(n) - top;
			if (ly + FH <= 0 || ly >= viewH) continue;
			if (n === cursor) {
				g.strokeStyle = '#000';
				g.lineWidth = 2;
				g.strokeRect(lx + 1, ly + 1, Math.max(2, w - 2), FH - 3);
			}
			if (w <= 20) continue;
			var label = frameText(n, w);
			if (!label) continue;
			var fc = fillOf(n), lc = labelCache.get(fc);
			if (lc === undefined) labelCache.set(fc, lc = labelOn(fc));
			g.fillStyle = lc;
			g.fillText(label, lx + 3, ly + FH / 2);
		}
	}
	/* scrolling the box shows another part: painted in the next frame (scrollTop is negative in column-reverse) */
	flameWrap.addEventListener('scroll', function () {
		var sc = Math.abs(flameWrap.scrollTop);
		if (sc === flameScrolled) return;
		flameScrolled = sc;
		if (flamePaintQueued) return;
		flamePaintQueued = true;
		requestAnimationFrame(function () { flamePaintQueued = false; paintFlame(); });
	});
	/* the node under the mouse, or -1 */
	function frameAt(ev) {
		var r = flame.getBoundingClientRect(), x = ev.clientX - r.left, yy = ev.clientY - r.top + drawn.top, k;
		for (k = drawn.nr - 1; k >= 0; k--) {
			var n = drawn.n[k], y = frameY(n);
			if (yy >= y && yy < y + FH && x >= drawn.x[k] && x < drawn.x[k] + Math.max(drawn.w[k], 1)) return n;
		}
		return -1;
	}
	var tip = el('div', { id: 'tip' }, body);
	/*
	 * Node n's time of the first selection by state (on-CPU, blocked,
	 * runnable), as wall weighs them: its stacks are the nodes [n, end[n]).
	 */
	var splitFor = '', splitMemo = new Map();
	function splitOf(n) {
		var key = selKey(sel.a), out;
		if (key !== splitFor) { splitFor = key; splitMemo.clear(); }
		if ((out = splitMemo.get(n))) return out;
		out = [0, 0, 0];
		if (isAll(sel.a)) {
			needSelfAll();
			for (var x = n; x < end[n]; x++) {
				if (idleNode[x] && !showIdle) continue;
				out[0] += selfAll[0][x] * period;
				out[1] += selfAll[1][x];
				out[2] += selfAll[2][x];
			}
		} else eachRow(sel.a, function (r) {
			var x = rowStk[r];
			if (x < n || x >= end[n] || (idleNode[rowStk[r]] && !showIdle)) return;
			out[rowState[r]] += rowState[r] === 0 ? rowN[r] * period : rowN[r];
		});
		splitMemo.set(n, out);
		return out;
	}
	function hoverText(n) {
		var nmv = n === 0 ? 'all' : names[nm[n]], v = cur.v[n], z = cur.v[zoom];
		var txt = nmv + '\n' + fmtAmount(v) + ', ' + fmtPct(share(v, cur.total)) + ' of the selection';
		if (zoom && v <= z) txt += ', ' + fmtPct(share(v, z)) + ' of the zoomed frame';
		txt += '\nself ' + fmtVal(cur.sv[n]) + ' (' + fmtPct(share(cur.sv[n], cur.total)) + ')';
		if (view.time && nStates > 1 && !cur.diff && !cur.derived) {
			var sp = splitOf(n);
			txt += '\non-CPU ' + fmtTime(sp[0]) + ', blocked ' + fmtTime(sp[1]) + ', runnable ' + fmtTime(sp[2]);
		}
		if (cur.diff) {
			var d = delta(n);
			txt += '\nfirst selection ' + fmtVal(cur.v2[n]) + ', ' + fmtPct(share(cur.v2[n], cur.total2)) +
				'; change ' + (d >= 0 ? '+' : '') + fmtPct(d);
		}
		return txt;
	}
	flame.addEventListener('mousemove', function (ev) {
		var t = performance.now(), n = frameAt(ev);
		hovered(ev, n);
		timing.lastHover = performance.now() - t;
	});
	function hovered(ev, n) {
		if (n < 0) { details.textContent = ' '; tip.style.display = 'none'; return; }
		var txt = hoverText(n);
		details.textContent = txt.replace(/\n/g, '; ');
		showTip(ev, txt);
	}
	function showTip(ev, txt) {
		tip.textContent = txt;
		tip.style.display = 'block';
		var x = ev.pageX + 14, y = ev.pageY + 14;
		if (ev.clientX + 14 + tip.offsetWidth > document.documentElement.clientWidth)
			x = ev.pageX - 14 - tip.offsetWidth;
		tip.style.left = x + 'px';
		tip.style.top = y + 'px';
	}
	flame.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
	/*
	 * Wheel zoom and drag pan: a part [vx0, vx1) of the zoomed frame's
	 * width fills the canvas; the wheel narrows or widens it about the
	 * mouse, a drag slides it. A click without a drag zooms to a frame.
	 */
	var flameDrag = null, wheelQueued = false;
	function setSpan(a, b) {
		var w = Math.min(1, Math.max(1e-9, b - a));
		a = Math.min(1 - w, Math.max(0, a));
		vx0 = a;
		vx1 = w >= 1 ? 1 : a + w;
	}
	flame.addEventListener('wheel', function (ev) {
		if (ev.ctrlKey || !cur || !cur.v[zoom]) return;
		ev.preventDefault();
		var r = flame.getBoundingClientRect(), f = Math.max(0, Math.min(1, (ev.clientX - r.left) / flameW));
		var at = vx0 + f * (vx1 - vx0), w = (vx1 - vx0) * Math.exp((ev.deltaY || ev.deltaX) * 0.0015);
		w = Math.max(w, 1e-6);
		setSpan(at - f * w, at - f * w + w);
		if (wheelQueued) return;
		wheelQueued = true;
		requestAnimationFrame(function () { wheelQueued = false; drawFlame(); });
	}, { passive: false });
	flame.addEventListener('mousedown', function (ev) {
		flameDrag = { x: ev.clientX, a: vx0, b: vx1, moved: false };
	});
	window.addEventListener('mousemove', function (ev) {
		if (!flameDrag) return;
		var dx = ev.clientX - flameDrag.x;
		if (Math.abs(dx) < 4 && !flameDrag.moved) return;
		flameDrag.moved = true;
		var span = flameDrag.b - flameDrag.a;
		setSpan(flameDrag.a - dx / flameW * span, flameDrag.b - dx / flameW * span);
		drawFlame();
	});
	window.addEventListener('mouseup', function () {
		if (flameDrag && flameDrag.moved) flameDrag.ignoreClick = true; else flameDrag = null;
	});
	flame.addEventListener('click', function (ev) {
		var dragged = flameDrag && flameDrag.ignoreClick;
		flameDrag = null;
		if (dragged) return;
		var n = frameAt(ev);
		if (n < 0) return;
		zoom = n;
		vx0 = 0;
		vx1 = 1;
		cursor = -1;
		drawFlame();
		drawTables();
	});

	/* --- keyboard ------------------------------------------------------------- */
	/*
	 * '/' searches, Esc resets (the search, then the zoom), the arrows move
	 * a cursor between frames (towards the leaves, the root, the siblings),
	 * Enter or '+' zooms to it (or to the widest child), '-' zooms out.
	 */
	var cursor = -1;	/* the frame the arrows are on; -1: none */
	flame.setAttribute('tabindex', '0');
	flame.setAttribute('role', 'img');
	flame.setAttribute('aria-label', 'flame graph of the selection: the tables below hold what it shows; ' +
		'arrows move between frames, Enter zooms, Escape resets');
	function widestKid(n) {
		var best = -1;
		for (var c = n + 1; c < end[n]; c = end[c]) if (cur.v[c] && (best < 0 || cur.v[c] > cur.v[best])) best = c;
		return best;
	}
	function sibling(n, dir) {
		var p = par[n], prev = -1, c;
		if (p < 0) return -1;
		for (c = p + 1; c < end[p]; c = end[c]) {
			if (!cur.v[c]) continue;
			if (c === n) { if (dir < 0) return prev; }
			else if (prev === n && dir > 0) return c;
			prev = c;
		}
		return -1;
	}
	function moveCursor(to) {
		if (to < 0) return;
		cursor = to;
		details.textContent = hoverText(to).replace(/\n/g, '; ');
		drawFlame();
	}
	document.addEventListener('keydown', function (ev) {
		var inSearch = document.activeElement === search;
		if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
		if (ev.key === 'Escape') {
			if (search.value) {
				search.value = '';
				search.dispatchEvent(new Event('input'));
			} else {
				zoom = 0;
				vx0 = 0;
				vx1 = 1;
				cursor = -1;
				drawFlame();
				drawTables();
			}
			if (inSearch) search.blur();
			ev.preventDefault();
			return;
		}
		if (inSearch || (document.activeElement && document.activeElement.tagName === 'INPUT')) return;
		if (menu.contains(document.activeElement)) return;
		var c = cursor >= 0 ? cursor : zoom, deeper = icicle ? 'ArrowDown' : 'ArrowUp';
		if (ev.key === '/') {
			search.focus();
			search.select();
		} else if (ev.key === deeper) {
			moveCursor(cursor < 0 ? zoom : widestKid(c));
		} else if (ev.key === (icicle ? 'ArrowUp' : 'ArrowDown')) {
			moveCursor(cursor < 0 ? zoom : par[c]);
		} else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') {
			moveCursor(cursor < 0 ? zoom : sibling(c, ev.key === 'ArrowLeft' ? -1 : 1));
		} else if (ev.key === 'Enter' || ev.key === '+' || ev.key === '=') {
			var to = cursor >= 0 && cursor !== zoom ? cursor : widestKid(zoom);
			if (to < 0) return;
			zoom = to;
			cursor = -1;
			drawFlame();
			drawTables();
		} else if ((ev.key === 'm' || ev.key === 'F' || ev.key === 'r') && cursor > 0) {
			addTransform({ m: 'merge', F: 'focus', r: 'rec' }[ev.key], cursor);
		} else if (ev.key === '-' || ev.key === '_') {
			if (zoom <= 0) return;
			cursor = zoom;
			zoom = par[zoom];
			drawFlame();
			drawTables();
		} else {
			return;
		}
		ev.preventDefault();
	});

	/* --- the view in the URL: Back, Reload and a shared link restore it --------------- */
	/*
	 * #z=NODE&q=SEARCH&m=icicle&v=VIEW&idle=1&a=T0,T1,CPUS&b=...: node
	 * numbers are those of this page's tree, the same at every load of it.
	 */
	var restoring = false, lastHash = null;
	function selStr(se) {
		return se.t0 + ',' + (se.t1 === Infinity ? 'inf' : se.t1) + (se.cpus ? ',' + se.cpus.join('.') : '');
	}
	function selOf(str) {
		var p = str.split(','), t0 = Number(p[0]), t1 = p[1] === 'inf' ? Infinity : Number(p[1]);
		if (!(t0 >= 0) || !(t1 > t0)) return null;
		var cpus = p[2] ? p[2].split('.').map(Number).filter(function (c) { return c >= 0 && c < nCpu; }) : null;
		var what = '';
		if (cpus) strips.forEach(function (st) { if (sameCpus(st.cpus, cpus)) what = st.label; });
		return { t0: t0, t1: t1, cpus: cpus && cpus.length ? cpus : null, what: what };
	}
	function hashNow() {
		var p = [];
		if (zoom) p.push('z=' + zoom);
		if (vx0 > 0 || vx1 < 1) p.push('x=' + vx0.toPrecision(6) + ',' + vx1.toPrecision(6));
		if (search.value) p.push('q=' + encodeURIComponent(search.value));
		if (icicle) p.push('m=icicle');
		if (VIEWS.length > 1) p.push('v=' + view.id);
		if (showIdle) p.push('idle=1');
		if (inverted) p.push('inv=1');
		if (leftHeavy) p.push('lh=1');
		if (transforms.length) p.push('tf=' + transforms.map(function (t) {
			/* encoded twice: the hash's value is decoded once as a whole */
			return t.kind + ':' + encodeURIComponent(encodeURIComponent(names[t.fn]));
		}).join(','));
		if (sel.a !== ALL) p.push('a=' + selStr(sel.a));
		if (sel.b) p.push('b=' + selStr(sel.b));
		return p.length ? '#' + p.join('&') : '';
	}
	function writeHash() {
		if (restoring || !cur) return;
		var h = hashNow();
		if (h === lastHash) return;
		/* typing a search, a wheel or a drag replace the entry; every other change is a step Back can undo */
		var strip = function (x) { return x.replace(/(^#|&)[qx]=[^&]*/g, ''); };
		var onlySearch = lastHash !== null && strip(h) === strip(lastHash);
		if (lastHash === null || onlySearch)
			history.replaceState(null, '', h || location.pathname + location.search);
		else
			history.pushState(null, '', h || location.pathname + location.search);
		lastHash = h;
	}
	function readHash() {
		var st = {};
		location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
			var k = kv.indexOf('=');
			if (k > 0) st[kv.slice(0, k)] = decodeURIComponent(kv.slice(k + 1));
		});
		restoring = true;
		var vw = VIEWS.filter(function (x) { return x.id === st.v; })[0];
		if (vw) { view = vw; weighRows(); }
		showIdle = hasIdle && st.idle === '1';
		if (idleBtn) {
			idleBtn.textContent = showIdle ? 'Hide idle' : 'Show idle';
			idleBtn.setAttribute('aria-pressed', String(showIdle));
		}
		icicle = st.m === 'icicle';
		inverted = st.inv === '1';
		leftHeavy = st.lh === '1';
		toggle(invertBtn, inverted);
		toggle(heavyBtn, leftHeavy);
		transforms = [];
		(st.tf || '').split(',').forEach(function (t) {
			var c = t.indexOf(':'), kind = t.slice(0, c), fn = names.indexOf(decodeURIComponent(t.slice(c + 1)));
			if (c > 0 && TF_NAMES[kind] && fn >= 0) transforms.push({ kind: kind, fn: fnOf[fn] });
		});
		describeTransforms();
		modeBtn.textContent = icicle ? 'Flame' : 'Icicle';
		sel.a = st.a && selOf(st.a) || ALL;
		sel.b = st.b ? selOf(st.b) : null;
		search.value = st.q || '';
		searchRe = null;
		if (search.value) {
			try { searchRe = new RegExp(search.value); } catch (e) {
				searchRe = new RegExp(search.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
			}
		}
		var z = Number(st.z);
		zoom = z > 0 && z < nNodes ? z : 0;
		spanZoom = zoom;
		var x = (st.x || '').split(',').map(Number);
		vx0 = 0;
		vx1 = 1;
		if (x.length === 2 && x[0] >= 0 && x[1] > x[0] && x[1] <= 1) setSpan(x[0], x[1]);
		cursor = -1;
		viewBtns.forEach(function (btn) { btn.className = btn.getAttribute('data-view') === view.id ? 'on' : ''; });
		redraw();
		restoring = false;
		lastHash = hashNow();
	}
	window.addEventListener('popstate', readHash);

	/* --- top tables ------------------------------------------------------------- */
	/*
	 * Self (leaf) and total (anywhere on the stack, once) per function of
	 * the stacks through node z: the nodes of z's subtree, and z's ancestors
	 * for all of z's samples. Counted per name first (lineSelf, lineTotal:
	 * a Python function's lines, its total at its outermost call's line),
	 * then each name's into its function's (fnOf).
	 */
	function funcCounts(sv, v, z) {
		needOcc();
		var self = new Float64Array(nNames), total = new Float64Array(nNames), n;
		for (n = z; n < end[z]; n++) {
			if (!v[n]) continue;
			if (sv[n]) self[nm[n]] += sv[n];
			if (firstOcc[n] && depth[n] > labelDepth) total[nm[n]] += v[n];
		}
		for (n = par[z]; n > 0; n = par[n])
			if (firstOcc[n] && depth[n] > labelDepth) total[nm[n]] += v[z];
		var fc = { self: self, total: total, n: v[z], lineSelf: self, lineTotal: total };
		if (fnLines.size) {
			fc.self = self.slice();
			fc.total = total.slice();
			fnLines.forEach(function (ks, f) {
				for (var i = 1; i < ks.length; i++) {
					fc.self[f] += self[ks[i]]; fc.self[ks[i]] = 0;
					fc.total[f] += total[ks[i]]; fc.total[ks[i]] = 0;
				}
			});
		}
		return fc;
	}
	/*
	 * The lines of Python function f that ran in fc, most time first, as
	 * its cell's tooltip says them: "line 12: self 40.12%, total 40.12%"
	 * (a line's total: where its outermost call was).
	 */
	function fnLinesText(f, fc) {
		var ks = (fnLines.get(f) || []).filter(function (k) { return fc.lineSelf[k] || fc.lineTotal[k]; });
		ks.sort(function (a, b) { return fc.lineTotal[b] - fc.lineTotal[a] || fc.lineSelf[b] - fc.lineSelf[a] || a - b; });
		return ks.map(function (k) {
			return 'line ' + PY_PLACE.exec(names[k])[3] + ': self ' + fmtPct(share(fc.lineSelf[k], fc.n)) +
				', total ' + fmtPct(share(fc.lineTotal[k], fc.n));
		}).join('\n');
	}
	/*
	 * A table: a click on a column's head sorts by it (again: the other
	 * way), the function's full name is its cell's tooltip, and a click on
	 * a row of the top tables opens the function's sandwich. r.vals: the
	 * numbers to sort by, one per cell but the last.
	 */
	function table(title, id, head, rows, parent) {
		var box = el('div', null, parent || tables), t;
		el('h2', null, box, title);
		t = el('table', { id: id }, box);
		var tr = el('tr', null, t), body = el('tbody', null, t);
		head.forEach(function (h, k) {
			var th = el('th', k === head.length - 1 ? { 'class': 'fn', 'aria-sort': 'none' } :
				{ 'aria-sort': 'none', title: 'sort by ' + h }, tr, h);
			th.addEventListener('click', function () {
				var down = th.getAttribute('aria-sort') !== 'descending', list = rows.slice();
				list.sort(function (a, b) {
					var x = k < head.length - 1 ? (a.vals ? a.vals[k] : 0) : a.fn, y = k < head.length - 1 ? (b.vals ? b.vals[k] : 0) : b.fn;
					return (x < y ? -1 : x > y ? 1 : 0) * (down ? -1 : 1);
				});
				[].forEach.call(tr.children, function (h2) { h2.setAttribute('aria-sort', 'none'); });
				th.setAttribute('aria-sort', down ? 'descending' : 'ascending');
				fill(list);
			});
		});
		function fill(list) {
			body.textContent = '';
			list.forEach(function (r) {
				var row = el('tr', r.cls ? { 'class': r.cls, 'data-fn': r.fn } : { 'data-fn': r.fn }, body);
				r.cells.forEach(function (c, k) {
					if (k < r.cells.length - 1) return el('td', null, row, c);
					/* a long Python name loses its front, not the function at its end; the tooltip has its lines */
					el('td', { 'class': 'fn', title: r.lines ? c + '\n' + r.lines : c }, row,
						/_\[py\]$/.test(c) ? fitName(c, PY_CELL) : c);
				});
				if (r.id !== undefined) {
					row.className += ' pick';
					row.addEventListener('click', function () { openSandwich(r.id); });
				}
			});
		}
		fill(rows);
		return box;
	}
	var TOP = 25, allRows = false;
	var PY_CELL = 78;	/* characters of td.fn's max-width (app.css) */
	/*
	 * The TOP ids with the largest key (ties: the smaller id first) among
	 * those with a non-zero key: one pass that keeps the best so far in
	 * order, rather than sorting every function of a big recording.
	 */
	function ranked(key) {
		var top = [], k, j;
		if (allRows) {
			for (k = 0; k < key.length; k++) if (key[k]) top.push(k);
			return top.sort(function (a, b) { return key[b] - key[a] || a - b; });
		}
		for (k = 0; k < key.length; k++) {
			var v = key[k];
			if (!v || (top.length === TOP && v <= key[top[TOP - 1]])) continue;
			for (j = top.length; j > 0 && key[top[j - 1]] < v; j--);
			top.splice(j, 0, k);
			if (top.length > TOP) top.pop();
		}
		return top;
	}
	/*
	 * The sandwich of one function: its callers above (who called it, by
	 * the share of its total they account for), its callees below (what
	 * it called, the same way), over the current selection. A recursive
	 * call counts at its outermost frame only, as "total" does. Drawn as
	 * two flame graphs meeting at the function (callers inverted above it,
	 * callees below), then as two tables of the first level.
	 */
	var SAND_MIN = 0.002, SAND_ROWS = 48, SAND_MAX = 1500;	/* what a sandwich graph draws at most */
	/* a tree of the sandwich: k a name (label rows -1 - name), rep a node of the graph that has it */
	function sandNode(k, rep) { return { k: k, v: 0, rep: rep, kids: new Map() }; }
	function sandAdd(t, k, rep, x) {
		var c = t.kids.get(k);
		if (!c) t.kids.set(k, c = sandNode(k, rep));
		c.v += x;
		return c;
	}
	function sandCallees(t, n) {
		for (var c = n + 1; c < end[n]; c = end[c])
			if (cur.v[c]) sandCallees(sandAdd(t, fnOf[nm[c]], c, cur.v[c]), c);
	}
	/* t's frames, root at the top (callees) or at the bottom (callers, up): divs, widest first */
	function sandGraph(t, up, id, parent) {
		var rows = [], q = [[t, 0, 0]], nr = 0, total = t.v, d, i;
		while (q.length && nr < SAND_MAX) {
			var it = q.shift(), n = it[0], x = it[1];
			if (it[2] >= SAND_ROWS) continue;
			(rows[it[2]] = rows[it[2]] || []).push([n, x]);
			nr++;
			var kids = [];
			n.kids.forEach(function (c) { if (c.v >= total * SAND_MIN) kids.push(c); });
			kids.sort(function (a, b) { return b.v - a.v || a.k - b.k; });
			kids.forEach(function (c) { q.push([c, x, it[2] + 1]); x += c.v; });
		}
		var box = el('div', { id: id, 'class': 'sandgraph', role: 'group', 'aria-label': id === 'sand-callers' ?
			'callers of ' + fnLabel(t.k) + ', drawn upwards' : 'callees of ' + fnLabel(t.k) + ', drawn downwards' }, parent);
		box.style.height = rows.length * FH + 'px';
		for (d = 0; d < rows.length; d++)
			for (i = 0; i < rows[d].length; i++) {
				var nd = rows[d][i][0], k = nd.k < 0 ? -1 - nd.k : nd.k, name = nd.k < 0 ? '[' + names[k] + ']' : fnLabel(k);
				var fill = fillOf(nd.rep), f = el('div', { 'class': 'sf', tabindex: '0', role: 'button',
					'data-fn': name, 'data-depth': d, 'data-pct': fmtPct(share(nd.v, total)),
					title: name + ': ' + fmtAmount(nd.v) + ', ' + fmtPct(share(nd.v, total)) + ' of ' + fnLabel(t.k) }, box, name);
				f.style.left = (100 * share(rows[d][i][1], total)) + '%';
				f.style.width = (100 * share(nd.v, total)) + '%';
				f.style.top = (up ? rows.length - 1 - d : d) * FH + 'px';
				f.style.background = cssOf(fill);
				f.style.color = labelOn(fill);
				if (nd.k >= 0 && d) {
					f.addEventListener('click', openSandwich.bind(null, nd.k));
					f.addEventListener('keydown', function (k, ev) { if (ev.key === 'Enter') openSandwich(k); }.bind(null, nd.k));
				}
			}
	}
	var sandwichFn = -1, sandwich = el('div', { id: 'sandwich' }, null);
	tables.parentNode.insertBefore(sandwich, tables);
	function openSandwich(k) {
		sandwichFn = k;
		drawSandwich();
		sandwich.scrollIntoView({ block: 'nearest' });
	}
	function drawSandwich() {
		sandwich.textContent = '';
		if (sandwichFn < 0 || cur.diff) return;
		needOcc();
		var f = sandwichFn, callers = new Map(), callees = new Map(), total = 0, self = 0, n, c;
		var up = null, down = null;
		function add(m, key, x) { m.set(key, (m.get(key) || 0) + x); }
		for (n = 1; n < nNodes; n++) {
			if (fnOf[nm[n]] !== f || depth[n] <= labelDepth) continue;
			self += cur.sv[n];
			if (!firstOcc[n] || !cur.v[n]) continue;
			total += cur.v[n];
			var p = par[n], t;
			add(callers, depth[p] <= labelDepth ? '[' + names[nm[p]] + ']' : fnLabel(fnOf[nm[p]]), cur.v[n]);
			for (c = n + 1; c < end[n]; c = end[c]) if (cur.v[c]) add(callees, fnLabel(fnOf[nm[c]]), cur.v[c]);
			if (!up) { up = sandNode(f, n); down = sandNode(f, n); }
			up.v += cur.v[n];
			down.v += cur.v[n];
			for (t = up; p > 0; p = par[p]) t = sandAdd(t, depth[p] <= labelDepth ? -1 - nm[p] : fnOf[nm[p]], p, cur.v[n]);
			sandCallees(down, n);
		}
		var head = el('div', { 'class': 'sandhead' }, sandwich);
		el('h2', null, head, 'Sandwich of ' + fnLabel(f) + ': ' + fmtAmount(total) + ' (' +
			fmtPct(share(total, cur.total)) + ' of the selection), self ' + fmtVal(self));
		var close = el('button', { id: 'sandwich-close' }, head, 'Close');
		close.addEventListener('click', function () { sandwichFn = -1; drawSandwich(); });
		if (up) {
			sandGraph(up, true, 'sand-callers', sandwich);
			sandGraph(down, false, 'sand-callees', sandwich);
		}
		var row = el('div', { 'class': 'sandrows' }, sandwich);
		[['Callers of ' + fnLabel(f), 'callers', callers], ['Callees of ' + fnLabel(f), 'callees', callees]].forEach(function (t) {
			var list = [];
			t[2].forEach(function (x, name) {
				list.push({ fn: name, vals: [x, x], cells: [fmtPct(share(x, total)), fmtVal(x), name] });
			});
			list.sort(function (a, b) { return b.vals[0] - a.vals[0] || (a.fn < b.fn ? -1 : 1); });
			table(t[0], t[1], ['share', view.time ? 'time' : 'samples', 'function'], list, row);
		});
	}
	function zoomNote() { return zoom ? ' (under ' + names[nm[zoom]] + ')' : ''; }
	function drawTables() {
		tables.textContent = '';
		if (!cur.diff) {
			var f = funcCounts(cur.sv, cur.v, zoom);
			['self', 'total'].forEach(function (by) {
				var other = by === 'self' ? 'total' : 'self';
				table('Top by ' + by + zoomNote() + (VIEWS.length > 1 ? ', ' + view.label : ''), 'top-' + by,
					[by + ' %', by + (view.time ? ' time' : ''), other + ' %', 'module', 'function'],
					ranked(f[by]).map(function (k) {
						return { fn: fnLabel(k), id: k, vals: [f[by][k], f[by][k], f[other][k], modOf(k)],
							lines: fnLines.has(k) ? fnLinesText(k, f) : '',
							cells: [fmtPct(share(f[by][k], f.n)), fmtVal(f[by][k]),
							fmtPct(share(f[other][k], f.n)), modOf(k), fnLabel(k)] };
					}));
			});
			var nf = 0;
			for (var k2 = 0; k2 < nNames; k2++) if (f.total[k2] || f.self[k2]) nf++;
			var more = el('button', { id: 'allrows' }, el('div', null, tables),
				allRows ? 'Show the top ' + TOP : 'Show all ' + nf + ' functions');
			more.addEventListener('click', function () { allRows = !allRows; drawTables(); });
			if (sandwichFn >= 0) drawSandwich();
			return;
		}
		/* first selection = base (1), second = new (2), as --diff BASE NEW */
		var f1 = funcCounts(cur.sv2, cur.v2, zoom), f2 = funcCounts(cur.sv, cur.v, zoom);
		['total', 'self'].forEach(function (by) {
			var c1 = f1[by], c2 = f2[by], n1 = f1.n, n2 = f2.n, size = new Float64Array(nNames), k;
			if (view.time) {
				/* time: as `--diff --top` with --off-cpu or --wall, the noise counts a whole ms as a sample */
				c1 = c1.map(function (x) { return Math.floor(x / 1e6); });
				c2 = c2.map(function (x) { return Math.floor(x / 1e6); });
				n1 = Math.floor(n1 / 1e6);
				n2 = Math.floor(n2 / 1e6);
			}
			for (k = 0; k < nNames; k++)
				size[k] = Math.abs(share(c2[k], n2) - share(c1[k], n1)) || (c1[k] || c2[k] ? 1e-300 : 0);
			var ch = ranked(size).map(function (k) {
				var p1 = share(c1[k], n1), p2 = share(c2[k], n2), d = p2 - p1;
				var se = Math.sqrt((n1 ? p1 * (1 - p1) / n1 : 0) + (n2 ? p2 * (1 - p2) / n2 : 0));
				if (se === 0 && d !== 0) {
					/* 0% or 100% on both sides: as out_top.c, Agresti-Caffo */
					var a1 = (c1[k] + 1) / (n1 + 2), a2 = (c2[k] + 1) / (n2 + 2);
					se = Math.sqrt(a1 * (1 - a1) / (n1 + 2) + a2 * (1 - a2) / (n2 + 2));
				}
				return { k: k, p1: p1, p2: p2, d: d, se: se, z: se > 0 ? d / se : 0 };
			});
			table('Largest changes of ' + by + ' share' + zoomNote(), 'diff-' + by,
				['first', 'second', 'change', 'stderr', 'z', 'sig', 'function'],
				ch.map(function (c) {
					var sig = Math.abs(c.z) >= SIG_Z;
					return { fn: fnLabel(c.k), cls: !sig ? 'noise' : c.d > 0 ? 'grew' : 'shrank',
						cells: [fmtPct(c.p1), fmtPct(c.p2), (c.d >= 0 ? '+' : '') + fmtPct(c.d),
							fmtPct(c.se), c.z.toFixed(2), sig ? 'yes' : 'no', fnLabel(c.k)] };
				}));
		});
		el('div', { 'class': 'hint' }, tables, 'Shares of each selection\'s ' + (view.time ?
			'time (the noise counts a ms as a sample)' : 'samples') + '; stderr = ' +
			'sqrt(p1(1-p1)/n1 + p2(1-p2)/n2), z = change/stderr, sig = |z| >= ' + SIG_Z +
			' (as eprof report --diff --top).');
	}

	/* --- on-CPU, off-CPU, wall ------------------------------------------------------- */
	function setView(vw) {
		var t = performance.now();
		view = vw;
		weighRows();
		viewBtns.forEach(function (btn) {
			btn.className = btn.getAttribute('data-view') === view.id ? 'on' : '';
		});
		redraw();
		painted(t);
	}

	/* --- the canvases from the keyboard ------------------------------------------- */
	/*
	 * The heat map, the strips and the lanes take the focus (Tab) and move
	 * a cursor with the arrows; what is under it is read out in a live
	 * region (and the tooltip), and Enter selects it: the heat map's
	 * column (its seconds), a strip's CPUs, a lane's time span.
	 */
	var readout = el('div', { id: 'readout', 'class': 'sr', 'aria-live': 'polite' }, body);
	var kcur = { heat: [0, 0], cpus: [0, 0], lanes: [0, 0] };
	function say(cv, txt, x, y) {
		readout.textContent = txt;
		var r = cv.getBoundingClientRect();
		showTip({ pageX: r.left + window.scrollX + x, pageY: r.top + window.scrollY + y, clientX: r.left + x }, txt);
	}
	function canvasKeys(cv, id, nx, ny, show, pick) {
		cv.setAttribute('tabindex', '0');
		cv.addEventListener('keydown', function (ev) {
			if (firstView) return;
			var c = kcur[id], d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[ev.key];
			if (d) {
				c[0] = Math.max(0, Math.min(nx() - 1, c[0] + d[0]));
				c[1] = Math.max(0, Math.min(ny() - 1, c[1] + d[1]));
				show(c);
			} else if (ev.key === 'Enter') {
				pick(c);
			} else {
				return;
			}
			ev.preventDefault();
			ev.stopPropagation();
		});
		cv.addEventListener('focus', function () { if (!firstView) show(kcur[id]); });
		cv.addEventListener('blur', function () { tip.style.display = 'none'; });
	}
	canvasKeys(heat, 'heat', function () { return nCol; }, function () { return ROWS; }, function (c) {
		if (heatNow) say(heat, cellText(c[0] * ROWS + c[1]), HX + c[0] * CW + CW, HY + c[1] * CH + CH);
	}, function (c) {
		setSel('a', { t0: c[0] * SPC * 1e9, t1: Math.min(nSec, (c[0] + 1) * SPC) * 1e9, cpus: null, what: '' });
	});
	canvasKeys(cpuCv, 'cpus', function () { return 1; }, function () { return strips.length; }, function (c) {
		say(cpuCv, strips[c[1]].label + ': Enter selects it over the whole recording', SX, c[1] * SH + SH);
	}, function (c) {
		setSel('a', { cpus: strips[c[1]].cpus, what: strips[c[1]].label, t0: 0, t1: Infinity });
	});
	if (laneCv)
		canvasKeys(laneCv, 'lanes', function () { return lanes.nb; }, function () { return lanes.list.length; }, function (c) {
			say(laneCv, laneTipText(laneInfo(c[1], c[0])), LX + (c[0] + 1) * lanes.spb * slotNs / dur * SW, c[1] * LH + LH);
		}, function (c) {
			setSel('a', { t0: c[0] * lanes.spb * slotNs, t1: (c[0] + 1) * lanes.spb * slotNs, cpus: null, what: '' });
		});

	/* --- other trees: inverted, left-heavy, transformed --------------------------- */
	/*
	 * The flame graph can draw another tree than the page's: its stacks
	 * inverted (Firefox Profiler's "Invert call stack": the functions that
	 * ran at the root, their callers above), children ordered by weight
	 * (left-heavy, as speedscope's), and transformed as Firefox Profiler's
	 * transforms are named: "Merge function" (its frames leave every stack,
	 * their self time goes to the caller), "Focus on function" (only stacks
	 * through it, each from its outermost call) and "Collapse recursion"
	 * (what a function calls before it is called again is cut: f g f h is
	 * f h). Such a tree is built from the selection's stacks at each
	 * redraw; the tables, search and zoom then read it in place of the
	 * page's tree, while the rows keep counting into the page's (B).
	 */
	var inverted = false, leftHeavy = false, transforms = [], derivedFor = '';
	var TF_NAMES = { merge: 'Merge function', focus: 'Focus on function', rec: 'Collapse recursion' };
	function useTree(T) {
		par = T.par; nm = T.nm; depth = T.depth; end = T.end;
		firstOcc = T.firstOcc; nNodes = T.n; labelDepth = T.labelDepth;
	}
	/* a stack's names from the root, lab of them the comm (and pid) levels, transformed; null: left out */
	function transformPath(p, lab) {
		for (var t = 0; t < transforms.length; t++) {
			var f = transforms[t].fn, k, out;
			if (transforms[t].kind === 'merge') {
				p = p.filter(function (x, i) { return i < lab || fnOf[x] !== f; });
			} else if (transforms[t].kind === 'focus') {
				for (k = lab; k < p.length && fnOf[p[k]] !== f; k++);
				if (k === p.length) return null;
				p = p.slice(k);
				lab = 0;
			} else {
				out = [];
				var at = -1;
				for (k = 0; k < p.length; k++) {
					if (k >= lab && fnOf[p[k]] === f) {
						if (at >= 0) { out.length = at + 1; continue; }
						at = out.length;
					}
					out.push(p[k]);
				}
				p = out;
			}
		}
		return { p: p, lab: lab };
	}
	function deriveTree(ws, nOrder) {
		var tpar = [-1], tnm = [-1], w = ws.map(function () { return [0]; }), kids = new Map();
		var path = new Int32Array(B.maxDepth + 1), ld = B.labelDepth, n, k, x;
		for (n = 1; n < B.n; n++) {
			path[B.depth[n]] = B.nm[n];
			var any = false;
			for (k = 0; k < ws.length; k++) if (ws[k][n]) any = true;
			if (!any) continue;
			var tp = transformPath(Array.prototype.slice.call(path, 1, B.depth[n] + 1), B.labelDepth);
			if (!tp) continue;
			var p = tp.p;
			if (!tp.lab) ld = 0;
			if (inverted) { p = p.slice(tp.lab).reverse(); ld = 0; }
			var node = 0;
			for (k = 0; k < p.length; k++) {
				var key = node * nNames + p[k], c = kids.get(key);
				if (c === undefined) {
					c = tpar.length;
					kids.set(key, c);
					tpar.push(node);
					tnm.push(p[k]);
					for (x = 0; x < ws.length; x++) w[x].push(0);
				}
				node = c;
			}
			for (x = 0; x < ws.length; x++) w[x][node] += ws[x][n];
		}
		/* depth first, children by name or (inverted, left-heavy) by weight */
		var m = tpar.length, tot = new Float64Array(m), ch = [];
		for (n = 0; n < m; n++) { tot[n] = w[0][n] + (nOrder > 1 ? w[1][n] : 0); ch.push(null); }
		for (n = m - 1; n > 0; n--) tot[tpar[n]] += tot[n];
		for (n = 1; n < m; n++) (ch[tpar[n]] = ch[tpar[n]] || []).push(n);
		var byWeight = inverted || leftHeavy;
		var T = { par: new Int32Array(m), nm: new Int32Array(m), depth: new Int32Array(m), end: new Int32Array(m),
			  firstOcc: new Uint8Array(m),
			  n: m, labelDepth: ld, maxDepth: 0, sv: ws.map(function () { return new Float64Array(m); }) };
		var todo = [0], newId = new Int32Array(m), pos = 0;
		while (todo.length) {
			n = todo.pop();
			var id = pos++;
			newId[n] = id;
			T.nm[id] = tnm[n];
			T.par[id] = n ? newId[tpar[n]] : -1;
			T.depth[id] = n ? T.depth[T.par[id]] + 1 : 0;
			if (T.depth[id] > T.maxDepth) T.maxDepth = T.depth[id];
			for (x = 0; x < ws.length; x++) T.sv[x][id] = w[x][n];
			var c = ch[n];
			if (!c) continue;
			c.sort(byWeight ? function (a, b) { return tot[b] - tot[a] || tnm[a] - tnm[b]; } :
				function (a, b) { var p = names[tnm[a]], q = names[tnm[b]]; return p < q ? -1 : p > q ? 1 : 0; });
			for (k = c.length - 1; k >= 0; k--) todo.push(c[k]);
		}
		for (n = 0; n < m; n++) T.end[n] = n + 1;
		for (n = m - 1; n > 0; n--) if (T.end[n] > T.end[T.par[n]]) T.end[T.par[n]] = T.end[n];
		markFirstOcc(T);
		T.v = T.sv.map(function (sv) {
			var v = sv.slice();
			for (var i = m - 1; i > 0; i--) v[T.par[i]] += v[i];
			return v;
		});
		return T;
	}
	/* cur, of the page's tree, for the tree the flame graph draws */
	function deriveCur() {
		var key = inverted || leftHeavy || transforms.length ?
			JSON.stringify([inverted, leftHeavy, transforms, selKey(sel.a), sel.b ? selKey(sel.b) : '']) : '';
		if (key !== derivedFor && !restoring) { zoom = 0; cursor = -1; }
		derivedFor = key;
		if (!key) { useTree(B); return; }
		/* time views: the blocked and runnable time go along, so the frames keep their colours */
		var off = cur.off, ws = cur.diff ? [cur.sv, cur.sv2] : [cur.sv], n;
		if (off)
			[0, 1].forEach(function (k) {
				var own = new Float64Array(B.n);
				for (n = 0; n < B.n; n++) own[n] = off[2 * n + k];
				for (n = 1; n < B.n; n++) own[B.par[n]] -= off[2 * n + k];
				ws.push(own);
			});
		var T = deriveTree(ws, cur.diff ? 2 : 1);
		useTree(T);
		cur.derived = true;
		cur.off = null;
		cur.sv = T.sv[0]; cur.v = T.v[0]; cur.total = T.v[0][0];
		if (cur.diff) { cur.sv2 = T.sv[1]; cur.v2 = T.v[1]; cur.total2 = T.v[1][0]; }
		if (off) {
			cur.off = new Float64Array(2 * T.n);
			for (n = 0; n < T.n; n++) { cur.off[2 * n] = T.v[ws.length - 2][n]; cur.off[2 * n + 1] = T.v[ws.length - 1][n]; }
		}
	}
	function describeTransforms() {
		tfBar.textContent = '';
		if (!transforms.length) return;
		el('span', null, tfBar, 'Transforms: ' + transforms.map(function (t) {
			return TF_NAMES[t.kind] + ': ' + fnLabel(t.fn);
		}).join(' \u203a ') + ' ');
		var undo = el('button', { id: 'tf-undo' }, tfBar, 'Undo');
		undo.addEventListener('click', function () { transforms.pop(); describeTransforms(); redraw(); });
	}
	function addTransform(kind, n) {
		if (n <= 0 || depth[n] <= labelDepth) return;
		transforms.push({ kind: kind, fn: fnOf[nm[n]] });
		describeTransforms();
		hideMenu();
		redraw();
	}
	/* the right-click menu of a frame: the transforms */
	var menu = el('div', { id: 'menu', role: 'menu' }, body), menuNode = -1;
	menu.style.display = 'none';
	Object.keys(TF_NAMES).forEach(function (kind) {
		var b = el('button', { 'data-tf': kind, role: 'menuitem' }, menu, TF_NAMES[kind] + ' (' +
			{ merge: 'm', focus: 'F', rec: 'r' }[kind] + ')');
		b.addEventListener('click', function () { addTransform(kind, menuNode); });
	});
	function hideMenu() { menu.style.display = 'none'; menuNode = -1; }
	flame.addEventListener('contextmenu', function (ev) {
		var n = frameAt(ev);
		if (n <= 0 || depth[n] <= labelDepth) return;
		ev.preventDefault();
		menuNode = n;
		menu.style.display = 'block';
		menu.style.left = ev.pageX + 'px';
		menu.style.top = ev.pageY + 'px';
		menu.querySelector('button').focus();
	});
	document.addEventListener('mousedown', function (ev) { if (!menu.contains(ev.target)) hideMenu(); });
	function toggle(btn, on) { btn.setAttribute('aria-pressed', String(on)); btn.className = on ? 'on' : ''; }
	invertBtn.addEventListener('click', function () { inverted = !inverted; toggle(invertBtn, inverted); redraw(); });
	heavyBtn.addEventListener('click', function () { leftHeavy = !leftHeavy; toggle(heavyBtn, leftHeavy); redraw(); });

	/* --- everything ------------------------------------------------------------- */
	/*
	 * The first view is the flame graph alone (of everything, from D's
	 * sums); the heat map, strips, lanes and tables, which read the rows,
	 * are drawn in the task after it is painted.
	 */
	var firstView = true;
	function redraw() {
		var t = performance.now();
		var a = selCounts(sel.a), b = sel.b ? selCounts(sel.b) : null;
		cur = b ? { diff: true, sv: b.sv, v: b.v, total: b.total, sv2: a.sv, v2: a.v, total2: a.total } :
			{ diff: false, sv: a.sv, v: a.v, total: a.total, sv2: null, v2: null, total2: 0, off: a.off };
		deriveCur();
		/* a zoomed frame stays zoomed while the selection has samples in it */
		if (zoom >= nNodes || !cur.v[zoom]) zoom = 0;
		if (cur.diff) {
			var maxD = 0, n;
			for (n = 0; n < nNodes; n++) {
				if (!cur.v[n]) continue;
				var d = Math.abs(delta(n));
				if (d > maxD && EPROF_DIFF.significant(cur.v2[n], cur.total2, cur.v[n], cur.total, view.time)) maxD = d;
			}
			cur.maxDelta = maxD;
		}
		selInfo.textContent = '';
		el('span', { 'class': 'a' }, selInfo, 'Selection: ');
		el('span', null, selInfo, describe(sel.a) + ', ' + fmtAmount(a.total));
		if (b) {
			el('span', { 'class': 'b' }, selInfo, '  compared with: ');
			el('span', null, selInfo, describe(sel.b) + ', ' + fmtAmount(b.total) +
				' (widths: second; red grew, blue shrank) ' + EPROF_DIFF.describe(D));
			EPROF_DIFF.legend(selInfo);
		}
		var t1 = performance.now();
		if (!firstView) drawHeat();
		var t2 = performance.now();
		if (!firstView) drawStrips();
		var t3 = performance.now();
		drawFlame();
		var t4 = performance.now();
		if (!firstView) drawTables();
		var t5 = performance.now();
		timing.parts = { counts: t1 - t, heat: t2 - t1, strips: t3 - t2, flame: t4 - t3, tables: t5 - t4 };
		if (firstView) MK.firstParts = timing.parts;
		timing.lastRedraw = performance.now() - t;
	}

	/* for scripted tests and benchmarks: where things are on the screen, and what is drawn */
	window.eprofUI = {
		timing: timing,
		heatPoint: function (ns) {	/* ns from the recording's start */
			var r = heat.getBoundingClientRect(), cell = Math.floor((ns - origin) / CELL_NS);
			return { x: r.left + HX + Math.floor(cell / ROWS / SPC) * CW + CW / 2,
				 y: r.top + HY + (cell % ROWS) * CH + CH / 2 };
		},
		stripPoint: function (label, ns) {
			var r = cpuCv.getBoundingClientRect(), k;
			for (k = 0; k < strips.length && strips[k].label !== label; k++);
			return { x: r.left + SX + Math.min(SW - 1, (ns - origin) / dur * SW), y: r.top + k * SH + SH / 2 };
		},
		frames: function () {
			var r = flame.getBoundingClientRect(), out = [];
			for (var k = 0; k < drawn.nr; k++) {
				var n = drawn.n[k];
				out.push({ name: n === 0 ? 'all' : names[nm[n]], x: r.left + drawn.x[k], y: r.top - drawn.top + frameY(n),
					   w: drawn.w[k], h: FH - 1, fill: cssOf(fillOf(n)), label: labelOn(fillOf(n)), v: cur.v[n],
					   text: drawn.w[k] > 20 ? frameText(n, drawn.w[k]) : '',
					   node: n, parent: par[n], depth: depth[n], total: cur.total,
					   v2: cur.diff ? cur.v2[n] : 0 });
			}
			return out;
		},
		/* what the heat map's cell at ns (from the recording's start) holds */
		heatCell: function (ns) {
			var c = Math.floor((ns - origin) / CELL_NS);
			return cellInfo(Math.floor(c / ROWS / SPC) * ROWS + c % ROWS);
		},
		/* the view: zoomed frame and its part in view, cursor, search, mode, what count, the folds */
		state: function () {
			return { zoom: zoom ? names[nm[zoom]] : 'all', span: [vx0, vx1], cursor: cursor < 0 ? '' : cursor ? names[nm[cursor]] : 'all',
				 search: search.value, icicle: icicle, view: view.id, idle: showIdle,
				 sel: describe(sel.a), heatOpen: heatBox.open, cpusOpen: cpuBox.open, hash: location.hash,
				 title: document.title, focus: document.activeElement ? document.activeElement.id : '' };
		},
		/* the lanes: per thread its times, and the pixels its lane is drawn with (by kind) */
		lanes: function () {
			if (!lanes) return [];
			var r = laneCv.getBoundingClientRect(), g = ctxOf(laneCv);
			return lanes.list.map(function (p, l) {
				var d = g.getImageData(LX * DPR, Math.floor((l * LH + LH / 2) * DPR), SW * DPR, 1).data, kinds = { run: 0, rnb: 0, blk: 0, none: 0 };
				for (var k = 0; k < d.length; k += 4) {
					var c = [d[k], d[k + 1], d[k + 2]];
					if (c[0] === 243 && c[1] === 243 && c[2] === 243) kinds.none++;
					else if (c[2] > c[0]) kinds.blk++;		/* the cool colours */
					else if (c[1] > 110) kinds.rnb++;		/* amber */
					else kinds.run++;
				}
				var rs = {};
				p.reasons.forEach(function (w, k) { rs[reasonName(k)] = w; });
				return { tid: threads[p.t][0], comm: names[threads[p.t][2]], run: p.run, rnb: p.rnb, blk: p.blk,
					 reasons: rs, px: kinds, x: r.left + LX, y: r.top + l * LH + LH / 2 };
			});
		},
		endNs: origin + dur
	};
	/* the box's height first: the first view's frames are then painted once */
	fold();
	if (location.hash.length > 1) readHash(); else if (viewBtns.length) setView(view); else redraw();
	mark('redraw');
	writeHash();
	/*
	 * The flame graph in view at load: the strips, then the heat map, fold
	 * away while its top would leave fewer than some 12 rows of frames in
	 * the window (their summaries open them again).
	 */
	function fold() {
		[cpuBox, heatBox, thrBox].forEach(function (box) {
			if (!box) return;
			if (flameWrap.getBoundingClientRect().top > window.innerHeight - 200) box.open = false;
		});
		/*
		 * and the box ends at the window's bottom (at most 75vh, at least
		 * 12 rows), so that the root and the widest frames are in view
		 */
		var h = Math.max(12 * FH, Math.min(0.75 * window.innerHeight,
			window.innerHeight - flameWrap.getBoundingClientRect().top - 8));
		if (h !== flameBoxH) {
			flameBoxH = h;
			flameWrap.style.maxHeight = h + 'px';
			if (drawn.nr) paintFlame();
		}
	}
	fold();
	timing.firstView = performance.now();
	timing.parse = t0Load;
	timing.marks = MK;
	A = null;
	/* after the frame that shows it, and the rows: the rest (timing.complete: everything drawn) */
	requestAnimationFrame(function () {
		setTimeout(function () {
			timing.painted = performance.now();
			if (R || rowSlot) rest();
			else rowsLater().then(function (r) { R = r; rest(); }, function (e) { setTimeout(function () { throw e; }, 0); });
		}, 0);
	});
	function rest() {
		firstView = false;
		if (laneCv) buildLanes();
		drawHeat();
		drawStrips();
		drawTables();
		fold();
		timing.complete = performance.now();
		setTimeout(function () { cpuRows(0); }, 0);	/* the index a CPU selection reads, made ahead */
	}
}
