// SPDX-License-Identifier: MIT
/*
 * tests/browser/firefox_check.js - checks a file written by `eprof report
 * --firefox` against Firefox Profiler's processed profile format as its
 * source documents it (src/types/profile.ts and src/types/markers.ts at
 * preprocessedProfileVersion 70; docs-developer/CHANGELOG-formats.md), the
 * way the profiler's own code reads it: every required field with its
 * type, every table's columns as long as its length, every index in range
 * (strings, funcs, frames, stacks with parents first, resources, libs,
 * categories and subcategories, marker schemas), sample times in order.
 * The profiler itself is not on the npm registry, so this stands in for
 * its importer. Then it prints what the profiler would show:
 *
 *   thread NAME TID SAMPLES MARKERS   each track, in the file's order
 *   top FUNC SELF                     the selected track's call tree,
 *                                     inverted: the function with the
 *                                     most self samples (ties: by name)
 *   marker TID NAME MS START END STACK   each marker: its duration, times,
 *                                     its cause's stack (root first, ';')
 *   range TID FUNC FIRST LAST COUNT   for each FUNC given: the times of
 *                                     the first and last sample with FUNC
 *                                     on its stack, per track
 *
 * usage: node firefox_check.js PROFILE.json [FUNC...]
 * Any departure from the format is printed on stderr and fails (exit 1).
 */
'use strict';
const fs = require('fs');

const VERSION = 70;
const errors = [];
function fail(msg) {
	if (errors.length < 20) errors.push(msg);
}
const isInt = (v) => Number.isInteger(v);
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
const isStr = (v) => typeof v === 'string';

/* obj.key must satisfy pred */
function need(obj, where, key, pred, what) {
	if (!obj || typeof obj !== 'object' || !(key in obj)) {
		fail(`${where}.${key} is missing`);
		return false;
	}
	if (!pred(obj[key])) {
		fail(`${where}.${key} is not ${what}: ${JSON.stringify(obj[key]).slice(0, 80)}`);
		return false;
	}
	return true;
}

/* A table: each column an array of `length` values, each value passing its check. */
function table(t, where, columns) {
	if (!t || typeof t !== 'object') {
		fail(`${where} is missing`);
		return 0;
	}
	if (!need(t, where, 'length', (v) => isInt(v) && v >= 0, 'a count')) return 0;
	for (const [col, check] of Object.entries(columns)) {
		if (!need(t, where, col, Array.isArray, 'an array')) continue;
		if (t[col].length !== t.length) fail(`${where}.${col} has ${t[col].length} rows, length says ${t.length}`);
		t[col].forEach((v, i) => {
			const why = check(v, i);
			if (why) fail(`${where}.${col}[${i}] = ${JSON.stringify(v)}: ${why}`);
		});
	}
	return t.length;
}

const index = (n, nullable) => (v) =>
	v === null ? (nullable ? '' : 'null where an index is needed') :
	!isInt(v) || v < 0 || v >= n() ? `not an index below ${n()}` : '';
const orMinus1 = (n) => (v) => v === -1 ? '' : index(n, false)(v);
const nullOr = (pred, what) => (v) => v === null || pred(v) ? '' : `not null or ${what}`;
const bool = (v) => typeof v === 'boolean' ? '' : 'not a boolean';

function main() {
	const [file, ...funcs] = process.argv.slice(2);
	const p = JSON.parse(fs.readFileSync(file, 'utf8'));
	const meta = p.meta;

	/* meta (ProfileMeta) */
	need(p, 'profile', 'meta', (v) => v && typeof v === 'object', 'an object');
	need(meta, 'meta', 'preprocessedProfileVersion', (v) => v === VERSION, `${VERSION}`);
	need(meta, 'meta', 'version', isInt, 'a Gecko format version');
	need(meta, 'meta', 'interval', (v) => isNum(v) && v > 0, 'a period in ms');
	need(meta, 'meta', 'startTime', isNum, 'a time in ms');
	need(meta, 'meta', 'processType', isInt, 'a number');
	need(meta, 'meta', 'product', isStr, 'a string');
	need(meta, 'meta', 'stackwalk', (v) => v === 0 || v === 1, '0 or 1');
	need(meta, 'meta', 'markerSchema', Array.isArray, 'an array');
	need(meta, 'meta', 'categories', (v) => Array.isArray(v) && v.length > 0, 'a list of categories');
	const cats = meta.categories || [];
	const colors = ['transparent', 'purple', 'green', 'orange', 'yellow', 'lightblue', 'blue',
		'brown', 'magenta', 'red', 'lightred', 'darkgrey', 'grey'];
	cats.forEach((c, i) => {
		need(c, `meta.categories[${i}]`, 'name', isStr, 'a string');
		need(c, `meta.categories[${i}]`, 'color', (v) => colors.includes(v), 'a category colour');
		need(c, `meta.categories[${i}]`, 'subcategories', (v) => Array.isArray(v) && v.length > 0 &&
			v.every(isStr), 'a non-empty list of names');
	});
	if (!cats.some((c) => c.color === 'grey')) fail('meta.categories has no grey (default) category');
	if (meta.sampleUnits) need(meta.sampleUnits, 'meta.sampleUnits', 'time', (v) => v === 'ms' || v === 'bytes', "'ms' or 'bytes'");
	const locations = ['marker-chart', 'marker-table', 'timeline-overview', 'timeline-memory',
		'timeline-ipc', 'timeline-fileio', 'timeline-network', 'stack-chart'];
	const formats = ['url', 'file-path', 'sanitized-string', 'string', 'unique-string', 'flow-id',
		'terminating-flow-id', 'duration', 'time', 'seconds', 'milliseconds', 'microseconds',
		'nanoseconds', 'bytes', 'percentage', 'integer', 'decimal', 'hexadecimal', 'pid', 'tid', 'list'];
	const schemas = new Map();
	(meta.markerSchema || []).forEach((s, i) => {
		const w = `meta.markerSchema[${i}]`;
		need(s, w, 'name', isStr, 'a string');
		need(s, w, 'display', (v) => Array.isArray(v) && v.every((d) => locations.includes(d)), 'display locations');
		need(s, w, 'fields', Array.isArray, 'an array');
		(s.fields || []).forEach((f, j) => {
			need(f, `${w}.fields[${j}]`, 'key', isStr, 'a string');
			need(f, `${w}.fields[${j}]`, 'format', (v) => formats.includes(v) || (v && v.type === 'table'), 'a field format');
		});
		schemas.set(s.name, s);
	});
	need(p, 'profile', 'libs', Array.isArray, 'an array');
	const libs = p.libs || [];

	/* shared (RawProfileSharedData) */
	const sh = p.shared || {};
	need(p, 'profile', 'shared', (v) => v && typeof v === 'object', 'an object');
	need(sh, 'shared', 'stringArray', (v) => Array.isArray(v) && v.every(isStr), 'an array of strings');
	const strs = sh.stringArray || [];
	const nStr = () => strs.length;
	const nRes = () => (sh.resourceTable || {}).length || 0;
	const nFunc = () => (sh.funcTable || {}).length || 0;
	const nFrame = () => (sh.frameTable || {}).length || 0;
	const nStack = () => (sh.stackTable || {}).length || 0;
	const nSrc = () => (sh.sources || {}).length || 0;
	const nLoc = () => (sh.sourceLocationTable || {}).length || 0;
	const nSym = () => (sh.nativeSymbols || {}).length || 0;
	table(sh.resourceTable, 'shared.resourceTable', {
		name: index(nStr), host: index(nStr, true),
		type: (v) => isInt(v) && v >= 0 && v <= 5 ? '' : 'not a resource type',
	});
	if (sh.resourceTable && 'lib' in sh.resourceTable) fail('shared.resourceTable.lib: gone since version 70');
	table(sh.funcTable, 'shared.funcTable', {
		name: index(nStr), isJS: bool, relevantForJS: bool, resource: orMinus1(nRes),
		source: index(nSrc, true), lineNumber: nullOr(isInt, 'a line'), columnNumber: nullOr(isInt, 'a column'),
		originalLocation: index(nLoc, true),
	});
	const fr = sh.frameTable || {};
	table(fr, 'shared.frameTable', {
		address: (v) => isInt(v) && v >= -1 ? '' : 'not an address or -1',
		lib: orMinus1(() => libs.length),
		inlineDepth: (v) => isInt(v) && v >= 0 ? '' : 'not a depth',
		category: index(() => cats.length, true),
		subcategory: (v, i) => v === null ? (fr.category[i] === null ? '' : 'null with a category') :
			!isInt(v) || !cats[fr.category[i]] || v >= cats[fr.category[i]].subcategories.length ?
				'not a subcategory of its category' : '',
		func: index(nFunc), nativeSymbol: index(nSym, true), innerWindowID: nullOr(isInt, 'an id'),
		line: nullOr(isInt, 'a line'), column: nullOr(isInt, 'a column'), originalLocation: index(nLoc, true),
	});
	const st = sh.stackTable || {};
	table(st, 'shared.stackTable', {
		frame: index(nFrame),
		prefixOffset: (v, i) => isInt(v) && v >= 0 && v <= i ? '' : 'not an offset back to an earlier stack',
	});
	if (st && 'prefix' in st) fail('shared.stackTable.prefix: prefixOffset since version 66');
	table(sh.nativeSymbols, 'shared.nativeSymbols', {
		libIndex: index(() => libs.length), address: (v) => isInt(v) ? '' : 'not an address',
		name: index(nStr), functionSize: nullOr(isInt, 'a size'),
	});
	table(sh.sources, 'shared.sources', {
		id: nullOr(isStr, 'a string'), filename: index(nStr), startLine: (v) => isInt(v) ? '' : 'not a line',
		startColumn: (v) => isInt(v) ? '' : 'not a column', sourceMapURL: index(nStr, true),
		content: nullOr(isStr, 'a string'),
	});
	table(sh.sourceLocationTable, 'shared.sourceLocationTable', {
		source: index(nSrc), line: (v) => isInt(v) ? '' : 'not a line', column: (v) => isInt(v) ? '' : 'not a column',
	});

	/* the stacks as function lists, root first */
	const funcName = (f) => strs[sh.funcTable.name[f]];
	const stackFuncs = (s) => {
		const out = [];
		for (let i = s; i !== null && i >= 0 && i < nStack(); i = st.prefixOffset[i] ? i - st.prefixOffset[i] : null)
			out.unshift(fr.func[st.frame[i]]);
		return out;
	};

	/* threads (RawThread) */
	need(p, 'profile', 'threads', (v) => Array.isArray(v) && v.length > 0, 'a non-empty array');
	const threads = p.threads || [];
	const lines = [];
	threads.forEach((t, ti) => {
		const w = `threads[${ti}]`;
		need(t, w, 'processType', isStr, 'a string');
		need(t, w, 'processStartupTime', isNum, 'a time');
		need(t, w, 'processShutdownTime', (v) => v === null || isNum(v), 'null or a time');
		need(t, w, 'registerTime', isNum, 'a time');
		need(t, w, 'unregisterTime', (v) => v === null || isNum(v), 'null or a time');
		need(t, w, 'pausedRanges', Array.isArray, 'an array');
		need(t, w, 'name', isStr, 'a string');
		need(t, w, 'isMainThread', (v) => typeof v === 'boolean', 'a boolean');
		need(t, w, 'pid', isStr, 'a string (version 47)');
		need(t, w, 'tid', (v) => isInt(v) || isStr(v), 'a number or string');
		const smp = t.samples || {};
		need(smp, `${w}.samples`, 'weightType', (v) => ['samples', 'tracing-ms', 'bytes'].includes(v), 'a weight type');
		need(smp, `${w}.samples`, 'weight', (v) => v === null || Array.isArray(v), 'null or an array');
		const cols = { stack: index(nStack, true) };
		if ('time' in smp) cols.time = (v) => isNum(v) ? '' : 'not a time';
		else if ('timeDeltas' in smp) cols.timeDeltas = (v) => isNum(v) ? '' : 'not a time';
		else fail(`${w}.samples has neither time nor timeDeltas`);
		const n = table(smp, `${w}.samples`, cols);
		const times = smp.time || [];
		for (let i = 1; i < times.length; i++)
			if (times[i] < times[i - 1]) {
				fail(`${w}.samples.time goes back at ${i}: ${times[i - 1]} then ${times[i]}`);
				break;
			}
		const mk = t.markers || {};
		const m = table(mk, `${w}.markers`, {
			data: (v) => v === null || (v && typeof v === 'object') ? '' : 'not null or a payload',
			name: index(nStr), startTime: nullOr(isNum, 'a time'), endTime: nullOr(isNum, 'a time'),
			phase: (v) => [0, 1, 2, 3].includes(v) ? '' : 'not a phase',
			category: index(() => cats.length),
		});
		for (let i = 0; i < m; i++) {
			const d = mk.data[i];
			if (mk.phase[i] === 1 && !(mk.startTime[i] <= mk.endTime[i]))
				fail(`${w}.markers[${i}]: an interval that ends before it starts`);
			if (d && d.type !== undefined) {
				const s = schemas.get(d.type);
				if (!s) fail(`${w}.markers.data[${i}].type '${d.type}' has no marker schema`);
				else s.fields.forEach((f) => {
					if (f.format === 'string' && d[f.key] !== undefined && !isStr(d[f.key]))
						fail(`${w}.markers.data[${i}].${f.key} is not a string`);
				});
			}
			if (d && d.cause && index(nStack, true)(d.cause.stack))
				fail(`${w}.markers.data[${i}].cause.stack is not a stack`);
			lines.push(['marker', t.tid, strs[mk.name[i]], (mk.endTime[i] - mk.startTime[i]).toFixed(3),
				mk.startTime[i].toFixed(3), mk.endTime[i].toFixed(3),
				d && d.cause ? stackFuncs(d.cause.stack).map(funcName).join(';') : ''].join('\t'));
		}
		console.log(['thread', t.name, t.tid, n, m].join('\t'));
		for (const fn of funcs) {
			let first = null, last = null, count = 0;
			for (let i = 0; i < n; i++) {
				if (smp.stack[i] === null || !stackFuncs(smp.stack[i]).some((f) => funcName(f) === fn)) continue;
				if (first === null) first = times[i];
				last = times[i];
				count++;
			}
			if (count) lines.push(['range', t.tid, fn, first.toFixed(3), last.toFixed(3), count].join('\t'));
		}
	});
	/* the selected track's inverted tree: self samples of each leaf function */
	const sel = threads[(meta.initialSelectedThreads || [0])[0]];
	if (!errors.length && sel) {
		const self = new Map();
		sel.samples.stack.forEach((s, i) => {
			if (s === null) return;
			const name = funcName(fr.func[st.frame[s]]);
			self.set(name, (self.get(name) || 0) + (sel.samples.weight ? sel.samples.weight[i] : 1));
		});
		const top = [...self].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
		if (top) console.log(['top', top[0], top[1]].join('\t'));
	}
	lines.forEach((l) => console.log(l));
	errors.forEach((e) => console.error('firefox format: ' + e));
	process.exit(errors.length ? 1 : 0);
}
main();
