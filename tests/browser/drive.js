// SPDX-License-Identifier: MIT
/*
 * tests/browser/drive.js - drives the HTML report (`eprof report --html`) in
 * Debian's chromium through puppeteer-core, with the mouse and keyboard as a
 * user would, and prints what the page then shows, one fact a line, for the
 * e2e scripts (tests/e2e/t1101-*) to check.
 *
 * usage: node drive.js PAGE.html COMMAND...
 *   heat T0 T1        drag on the heat map from second T0 to T1 (T1 "end": the last)
 *   heat2 T0 T1       the same with shift held (the second selection)
 *   strip LABEL       click the strip "cpu N" / "node N"
 *   strip2 LABEL      the same with shift held
 *   all               press "Select all" (one selection of everything, no diff)
 *   view on|off|wall  press the switch to on-CPU, off-CPU or wall time
 *   views             print "views" and the switch's views, the current one with a '*'
 *   search TEXT       type TEXT in the search box (instead of what it held)
 *   top               print "top-self FUNCTION SHARE" / "top-total ..." rows
 *   diff              print "diff-total FUNCTION CLASS CHANGE Z" rows
 *   matched           print "matched SHARE MATCHED TOTAL"
 *   legend            print "legend" and the diff legend's text ("none" without one)
 *   frame NAME        print "frame NAME R G B" (the pixel drawn at its centre)
 *   names             print "name NAME" for each distinct frame drawn
 *   texts             print "text NAME WIDTH LABEL" for each frame drawn with a label
 *   click NAME        click the widest frame NAME in the flame graph (zoom)
 *   hover NAME        move over the widest frame NAME; print "hover" and the tooltip's lines
 *   icicle            press the flame/icicle switch; print "root-at top|bottom"
 *   timing            print "timing load_ms .. first_view_ms .. redraw_ms .. paint_ms ..
 *                     search_ms .. hover_ms .. PARTS painted_ms .. complete_ms .." (first
 *                     view: the flame graph drawn, from navigation start; painted: the
 *                     frame that shows it; complete: heat map, strips, lanes and tables
 *                     drawn too; redraw: the script's work after the last selection;
 *                     paint: from its mouse-up to the frame that shows it; search,
 *                     hover: the last keystroke's and mouse move's handling)
 *   cell T            print "cell T R G B HATCHED BUSY IDLE" for the heat map's cell at
 *                     second T: the colour of most of its pixels, whether some are
 *                     the hatch's grey, and what the page says it holds
 *   cellhover T       move over that cell; print "cellhover" and the readout's lines
 *   idle              press the switch that shows or hides the idle task
 *   viewport W H      resize the window (the page is loaded at 1300 x 1000)
 *   key KEY           press KEY (a puppeteer key name: Slash, Escape, ArrowUp, Equal, Minus...)
 *   type TEXT         type TEXT where the focus is
 *   state             print "state" and the view as JSON (zoom, cursor, search, folds, hash, title)
 *   inview            print "inview N": labelled frames of the flame graph inside the window
 *   reload, back      reload the page (it restores its view from the URL) / go Back
 *   sandwich NAME     click NAME's row in the top-by-total table; print "caller NAME SHARE"
 *                     and "callee NAME SHARE" rows of its sandwich, and "sandwich" its title;
 *                     "gcaller"/"gcallee NAME SHARE" the first level of its two graphs,
 *                     "gdepth callers|callees N" the deepest level each draws
 *   sort TABLE K      click the head of column K (from 0) of the table with that id; print
 *                     "sorted TABLE" and the functions in the order then shown
 *   allrows           press the button that shows every function (or the top ones again)
 *   wheel F DY        turn the wheel by DY over the flame graph's root, at F (0..1) of its width
 *   pan DX            drag the flame graph's root row DX pixels sideways
 *   lanes             print "lane TID COMM RUN RNB BLK" (ns) and the pixels of its lane by
 *                     colour: "PX_RUN PX_RNB PX_BLK PX_NONE", then its blocked ns by reason (JSON)
 *   lanehover K F     move over lane K (from 0) at F (0..1) of its width; print "lanehover"
 *                     and the tooltip's lines
 *   modules           print "module FUNCTION MODULE" for each row of the top-by-total table
 *   fncells           print "fncell FUNCTION TEXT TOOLTIP" for each row of the top-by-total
 *                     table: the function's cell as it reads, and its tooltip (lines joined
 *                     by " | ")
 *   depths NAME       print "depth NAME D W NESTED" for each drawn frame NAME: its depth, width,
 *                     and 1 when a frame below it (its caller, theirs...) is NAME too
 *   invert, leftheavy press "Invert call stack" / "Left-heavy"
 *   roots             print "root NAME SHARE" for the frames on the root (depth 1), left to right
 *   heavy             print "heavy N M": of N sets of sibling frames, M are ordered widest first
 *   transform K NAME  right-click the widest frame NAME, pick the transform K (merge, focus, rec)
 *   labels            print "label FILL LABEL CONTRAST" for each distinct fill of a labelled
 *                     frame, its label's colour and their WCAG contrast ratio
 *   dpr N             the window's devicePixelRatio N (the page is loaded again)
 *   canvases          print "canvas ID WIDTH CSS_WIDTH ROLE TABINDEX LABEL" for each canvas
 *                     that is not decoration
 *   contrast          print "contrast CHECKED" and "lowcontrast TEXT RATIO" for each piece of
 *                     text whose colour on its background is under WCAG AA's 4.5:1
 *   focus ID          focus the element with that id (as Tab would)
 *   readout           print "readout" and what the live region says
 *   screenshot FILE   a PNG of what the window shows (1300 x 1000)
 * Any console error or uncaught exception fails the run (exit 1).
 */
'use strict';
const puppeteer = require('puppeteer-core');

/* the widest frame NAME of the flame graph, scrolled into the window: where it is now */
async function widest(page, name) {
	const find = (name) => window.eprofUI.frames().filter((f) => f.name === name).sort((a, b) => b.w - a.w)[0];
	const f = await page.evaluate(find, name);
	if (!f) throw new Error('no frame ' + name + ' in the flame graph');
	await page.evaluate((y) => window.scrollTo(0, y + window.scrollY - 300), f.y);
	return page.evaluate(find, name);
}

async function main() {
	const [page_path, ...cmds] = process.argv.slice(2);
	const errors = [];
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
		       '--disable-component-update', '--disable-sync', '--no-first-run'],
	});
	let rc = 0;
	try {
		const page = await browser.newPage();
		await page.setViewport({ width: 1300, height: 1000 });
		page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
		page.on('pageerror', (e) => errors.push('uncaught: ' + e.message));
		/* the page must not touch the network: any request other than the file itself fails the run */
		page.on('request', (r) => {
			if (!r.url().startsWith('file:')) errors.push('request: ' + r.url());
		});
		const t0 = Date.now();
		await page.goto('file://' + require('path').resolve(page_path), { waitUntil: 'load', timeout: 120000 });
		await page.waitForFunction('window.eprofUI && window.eprofUI.timing.complete > 0', { timeout: 120000 });
		const load_ms = Date.now() - t0;
		for (let i = 0; i < cmds.length; i++) {
			const cmd = cmds[i];
			if (cmd === 'heat' || cmd === 'heat2') {
				const a = Number(cmds[++i]) * 1e9, e = cmds[++i];
				const b = e === 'end' ? await page.evaluate(() => window.eprofUI.endNs) : Number(e) * 1e9;
				/* the cells holding a and the last instant before b */
				const p = await page.evaluate((a) => window.eprofUI.heatPoint(a), a);
				const q = await page.evaluate((b) => window.eprofUI.heatPoint(Math.max(0, b - 1)), b);
				if (cmd === 'heat2') await page.keyboard.down('Shift');
				await page.mouse.move(p.x, p.y);
				await page.mouse.down();
				await page.mouse.move(q.x, q.y, { steps: 4 });
				await page.mouse.up();
				if (cmd === 'heat2') await page.keyboard.up('Shift');
			} else if (cmd === 'strip' || cmd === 'strip2') {
				const label = cmds[++i];
				const p = await page.evaluate((l) => window.eprofUI.stripPoint(l, 0), label);
				if (cmd === 'strip2') await page.keyboard.down('Shift');
				await page.mouse.click(p.x + 1, p.y);
				if (cmd === 'strip2') await page.keyboard.up('Shift');
			} else if (cmd === 'view') {
				await page.click('#view-' + cmds[++i]);
			} else if (cmd === 'views') {
				const v = await page.evaluate(() => [...document.querySelectorAll('#views button')]
					.map((b) => b.dataset.view + (b.className === 'on' ? '*' : '')));
				console.log('views\t' + v.join(' '));
			} else if (cmd === 'all') {
				await page.click('#clear');
			} else if (cmd === 'search') {
				await page.click('#search', { clickCount: 3 });	/* what is there is replaced */
				await page.keyboard.type(cmds[++i]);
			} else if (cmd === 'top' || cmd === 'diff') {
				const rows = await page.evaluate((cmd) => {
					const out = [];
					document.querySelectorAll(cmd === 'top' ? '#top-self tr, #top-total tr' : '#diff-total tr, #diff-self tr')
						.forEach((tr) => {
							if (!tr.dataset.fn) return;
							const td = tr.querySelectorAll('td'), id = tr.closest('table').id;
							out.push(cmd === 'top' ? [id, tr.dataset.fn, td[0].textContent].join('\t') :
								[id, tr.dataset.fn, tr.className, td[2].textContent, td[4].textContent].join('\t'));
						});
					return out;
				}, cmd);
				rows.forEach((r) => console.log(r));
			} else if (cmd === 'legend') {
				const l = await page.evaluate(() => {
					const e = document.getElementById('diff-legend');
					return e ? e.textContent : 'none';
				});
				console.log('legend\t' + l);
			} else if (cmd === 'matched') {
				const m = await page.evaluate(() => {
					const e = document.getElementById('matched');
					return [e.dataset.share || 'none', e.textContent];
				});
				console.log('matched\t' + m[0] + '\t' + m[1]);
			} else if (cmd === 'frame') {
				const name = cmds[++i];
				const px = await page.evaluate((name) => {
					const f = window.eprofUI.frames().filter((f) => f.name === name)
						.sort((a, b) => b.w - a.w)[0];
					if (!f) return null;
					const cv = document.getElementById('flame'), r = cv.getBoundingClientRect(), s = cv.width / r.width;
					const d = cv.getContext('2d').getImageData(Math.floor((f.x - r.left + f.w / 2) * s),
						Math.floor((f.y - r.top + 2) * s), 1, 1).data;
					return [d[0], d[1], d[2]];
				}, name);
				console.log('frame\t' + name + '\t' + (px ? px.join('\t') : 'absent'));
			} else if (cmd === 'click' || cmd === 'hover') {
				const g = await widest(page, cmds[++i]);
				if (cmd === 'click') {
					await page.mouse.click(g.x + g.w / 2, g.y + g.h / 2);
					continue;
				}
				await page.mouse.move(g.x + g.w / 2, g.y + g.h / 2);
				const tip = await page.evaluate(() => {
					const t = document.getElementById('tip');
					return t.style.display === 'none' ? '' : t.textContent;
				});
				console.log('hover\t' + tip.replace(/\n/g, '\t'));
			} else if (cmd === 'icicle') {
				await page.click('#mode');
				const where = await page.evaluate(() => {
					const fr = window.eprofUI.frames(), root = fr.filter((f) => f.name === 'all')[0];
					return root.y <= Math.min(...fr.map((f) => f.y)) ? 'top' : 'bottom';
				});
				console.log('root-at\t' + where);
			} else if (cmd === 'names') {
				const all = await page.evaluate(() => [...new Set(window.eprofUI.frames().map((f) => f.name))]);
				all.forEach((n) => console.log('name\t' + n));
			} else if (cmd === 'texts') {
				const all = await page.evaluate(() => window.eprofUI.frames().filter((f) => f.text));
				all.forEach((f) => console.log('text\t' + f.name + '\t' + Math.round(f.w) + '\t' + f.text));
			} else if (cmd === 'timing') {
				/* after the next frame and a task more, when lastPaint is known */
				await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 20))));
				const t = await page.evaluate(() => window.eprofUI.timing);
				console.log('timing\tload_ms ' + load_ms + '\tfirst_view_ms ' + t.firstView.toFixed(0) +
					'\tredraw_ms ' + t.lastRedraw.toFixed(1) + '\tpaint_ms ' + t.lastPaint.toFixed(1) +
					'\tsearch_ms ' + t.lastSearch.toFixed(1) + '\thover_ms ' + t.lastHover.toFixed(1) +
					'\t' + JSON.stringify(t.parts || {}) + '\tpainted_ms ' + (t.painted || 0).toFixed(0) +
					'\tcomplete_ms ' + (t.complete || 0).toFixed(0));
			} else if (cmd === 'cell' || cmd === 'cellhover') {
				const t = Number(cmds[++i]);
				const p = await page.evaluate((ns) => window.eprofUI.heatPoint(ns), t * 1e9);
				if (cmd === 'cellhover') {
					await page.mouse.move(p.x, p.y);
					const tip = await page.evaluate(() => document.getElementById('tip').textContent);
					console.log('cellhover\t' + tip.replace(/\n/g, '\t'));
					continue;
				}
				const c = await page.evaluate((p, ns) => {
					const cv = document.getElementById('heat'), r = cv.getBoundingClientRect();
					const d = cv.getContext('2d').getImageData(Math.floor(p.x - r.left) - 2,
						Math.floor(p.y - r.top) - 2, 5, 4).data;
					const seen = new Map();
					let hatched = 0;
					for (let k = 0; k < d.length; k += 4) {
						const key = d[k] + '\t' + d[k + 1] + '\t' + d[k + 2];
						if (d[k] === 96 && d[k + 1] === 96 && d[k + 2] === 96) hatched = 1;
						seen.set(key, (seen.get(key) || 0) + 1);
					}
					const most = [...seen.entries()].sort((a, b) => b[1] - a[1])[0][0];
					const ci = window.eprofUI.heatCell(ns);
					return [most, hatched, ci.busy, ci.idle].join('\t');
				}, p, t * 1e9);
				console.log('cell\t' + t + '\t' + c);
			} else if (cmd === 'idle') {
				await page.click('#idle');
			} else if (cmd === 'viewport') {
				await page.setViewport({ width: Number(cmds[++i]), height: Number(cmds[++i]) });
			} else if (cmd === 'key') {
				await page.keyboard.press(cmds[++i]);
			} else if (cmd === 'type') {
				await page.keyboard.type(cmds[++i]);
			} else if (cmd === 'state') {
				console.log('state\t' + JSON.stringify(await page.evaluate(() => window.eprofUI.state())));
			} else if (cmd === 'inview') {
				const n = await page.evaluate(() => window.eprofUI.frames().filter((f) => f.w > 20 &&
					f.y >= 0 && f.y + f.h <= window.innerHeight && f.x >= 0 && f.x + f.w / 2 <= window.innerWidth).length);
				console.log('inview\t' + n);
			} else if (cmd === 'sandwich') {
				const name = cmds[++i];
				const row = await page.evaluateHandle((n) => [...document.querySelectorAll('#top-total tr')]
					.filter((tr) => tr.dataset.fn === n)[0], name);
				if (!row.asElement()) throw new Error('no row ' + name + ' in top-total');
				await row.asElement().click();
				const out = await page.evaluate(() => {
					const o = ['sandwich\t' + document.querySelector('#sandwich h2').textContent];
					['callers', 'callees'].forEach((id) => document.querySelectorAll('#' + id + ' tr').forEach((tr) => {
						const td = tr.querySelectorAll('td');
						if (td.length) o.push(id.slice(0, -1) + '\t' + tr.dataset.fn + '\t' + td[0].textContent);
					}));
					/* the graphs' first level: "gcaller"/"gcallee NAME SHARE", and their depth */
					['callers', 'callees'].forEach((id) => {
						const fs = [...document.querySelectorAll('#sand-' + id + ' .sf')];
						fs.filter((f) => f.dataset.depth === '1').forEach((f) =>
							o.push('g' + id.slice(0, -1) + '\t' + f.dataset.fn + '\t' + f.dataset.pct));
						o.push('gdepth\t' + id + '\t' + fs.reduce((m, f) => Math.max(m, Number(f.dataset.depth)), -1));
					});
					return o;
				});
				out.forEach((l) => console.log(l));
			} else if (cmd === 'sort') {
				const id = cmds[++i], k = Number(cmds[++i]);
				await page.click('#' + id + ' th:nth-child(' + (k + 1) + ')');
				const fns = await page.evaluate((id) => [...document.querySelectorAll('#' + id + ' tr')]
					.filter((tr) => tr.dataset.fn).map((tr) => tr.dataset.fn), id);
				console.log('sorted\t' + id + '\t' + fns.join('\t'));
			} else if (cmd === 'allrows') {
				await page.click('#allrows');
			} else if (cmd === 'wheel' || cmd === 'pan') {
				const r = await page.evaluate(() => {
					const f = window.eprofUI.frames().filter((f) => f.name === 'all')[0];
					const cv = document.getElementById('flame').getBoundingClientRect();
					return { x: cv.left, w: cv.width, y: f.y + f.h / 2 };
				});
				await page.evaluate((y) => window.scrollBy(0, y - window.innerHeight / 2), r.y);
				const y = await page.evaluate(() => {
					const f = window.eprofUI.frames().filter((f) => f.name === 'all')[0];
					return f.y + f.h / 2;
				});
				if (cmd === 'wheel') {
					await page.mouse.move(r.x + Number(cmds[++i]) * r.w, y);
					await page.mouse.wheel({ deltaY: Number(cmds[++i]) });
					await page.evaluate(() => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 20))));
				} else {
					const dx = Number(cmds[++i]), x = r.x + r.w / 2;
					await page.mouse.move(x, y);
					await page.mouse.down();
					await page.mouse.move(x + dx, y, { steps: 5 });
					await page.mouse.up();
				}
			} else if (cmd === 'reload' || cmd === 'back') {
				if (cmd === 'reload') await page.reload({ waitUntil: 'load' });
				else await page.goBack({ waitUntil: 'load' });
				await page.waitForFunction('window.eprofUI && window.eprofUI.timing.complete > 0', { timeout: 120000 });
			} else if (cmd === 'lanes') {
				const ls = await page.evaluate(() => window.eprofUI.lanes());
				ls.forEach((l) => console.log(['lane', l.tid, l.comm, l.run, l.rnb, l.blk, l.px.run, l.px.rnb,
					l.px.blk, l.px.none, JSON.stringify(l.reasons)].join('\t')));
			} else if (cmd === 'lanehover') {
				const k = Number(cmds[++i]), f = Number(cmds[++i]);
				const l = (await page.evaluate(() => window.eprofUI.lanes()))[k];
				if (!l) throw new Error('no lane ' + k);
				await page.evaluate((y) => window.scrollBy(0, y - window.innerHeight / 2), l.y);
				const p = (await page.evaluate(() => window.eprofUI.lanes()))[k];
				await page.mouse.move(p.x + f * 1000, p.y);
				const tip = await page.evaluate(() => document.getElementById('tip').textContent);
				console.log('lanehover\t' + tip.replace(/\n/g, '\t'));
			} else if (cmd === 'modules') {
				const rows = await page.evaluate(() => [...document.querySelectorAll('#top-total tr')]
					.filter((tr) => tr.dataset.fn).map((tr) => [tr.dataset.fn, tr.querySelectorAll('td')[3].textContent]));
				rows.forEach((r) => console.log('module\t' + r[0] + '\t' + r[1]));
			} else if (cmd === 'fncells') {
				const rows = await page.evaluate(() => [...document.querySelectorAll('#top-total tr')]
					.filter((tr) => tr.dataset.fn).map((tr) => [tr.dataset.fn, tr.querySelector('td.fn').textContent,
						tr.querySelector('td.fn').title.replace(/\n/g, ' | ')]));
				rows.forEach((r) => console.log('fncell\t' + r.join('\t')));
			} else if (cmd === 'depths') {
				const name = cmds[++i];
				const ds = await page.evaluate((n) => {
					const fr = window.eprofUI.frames(), by = new Map(fr.map((f) => [f.node, f]));
					return fr.filter((f) => f.name === n).map((f) => {
						let nested = 0;
						for (let p = by.get(f.parent); p; p = by.get(p.parent)) if (p.name === n) nested = 1;
						return [f.depth, f.w.toFixed(0), nested];
					});
				}, name);
				ds.forEach((d) => console.log('depth\t' + name + '\t' + d.join('\t')));
			} else if (cmd === 'invert' || cmd === 'leftheavy') {
				await page.click('#' + cmd);
			} else if (cmd === 'roots') {
				const fr = await page.evaluate(() => window.eprofUI.frames().filter((f) => f.depth === 1)
					.sort((a, b) => a.x - b.x).map((f) => [f.name, (100 * f.v / f.total).toFixed(2)]));
				fr.forEach((f) => console.log('root\t' + f[0] + '\t' + f[1]));
			} else if (cmd === 'heavy') {
				const h = await page.evaluate(() => {
					const by = new Map();
					window.eprofUI.frames().forEach((f) => { if (f.parent >= 0) (by.get(f.parent) || by.set(f.parent, []).get(f.parent)).push(f); });
					let sets = 0, ok = 0;
					by.forEach((l) => {
						if (l.length < 2) return;
						sets++;
						l.sort((a, b) => a.x - b.x);
						if (l.every((f, k) => !k || l[k - 1].v >= f.v)) ok++;
					});
					return [sets, ok];
				});
				console.log('heavy\t' + h[0] + '\t' + h[1]);
			} else if (cmd === 'transform') {
				const kind = cmds[++i], g = await widest(page, cmds[++i]);
				await page.mouse.click(g.x + g.w / 2, g.y + g.h / 2, { button: 'right' });
				await page.click('#menu button[data-tf="' + kind + '"]');
			} else if (cmd === 'labels') {
				const ls = await page.evaluate(() => {
					const lum = (css) => {
						const c = css.match(/\d+/g).map(Number).map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
						return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
					};
					const hex = (h) => 'rgb(' + [1, 3, 5].map((k) => parseInt(h.slice(k, k + 2), 16)).join(',') + ')';
					const seen = new Map();
					window.eprofUI.frames().filter((f) => f.w > 20).forEach((f) => {
						const a = lum(f.fill), b = lum(hex(f.label.length === 4 ? '#' + f.label.slice(1).split('').map((c) => c + c).join('') : f.label));
						seen.set(f.fill + '\t' + f.label, ((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)).toFixed(2));
					});
					return [...seen.entries()];
				});
				ls.forEach((l) => console.log('label\t' + l[0] + '\t' + l[1]));
			} else if (cmd === 'dpr') {
				const vp = page.viewport();
				await page.setViewport({ width: vp.width, height: vp.height, deviceScaleFactor: Number(cmds[++i]) });
				await page.reload({ waitUntil: 'load' });
				await page.waitForFunction('window.eprofUI && window.eprofUI.timing.complete > 0', { timeout: 120000 });
			} else if (cmd === 'canvases') {
				const cs = await page.evaluate(() => [...document.querySelectorAll('canvas')]
					.filter((c) => c.getAttribute('aria-hidden') !== 'true' && c.isConnected)
					.map((c) => [c.id, c.width, c.getBoundingClientRect().width, c.getAttribute('role'),
						c.getAttribute('tabindex'), c.getAttribute('aria-label') || '']));
				cs.forEach((c) => console.log('canvas\t' + c.join('\t')));
			} else if (cmd === 'contrast') {
				const out = await page.evaluate(() => {
					const lin = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); };
					const rgba = (s) => (s.match(/[\d.]+/g) || []).map(Number);
					const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
					/* the colour behind e: the nearest opaque background up the tree (white at the top) */
					const bg = (e) => {
						for (; e && e.nodeType === 1; e = e.parentElement) {
							const c = rgba(getComputedStyle(e).backgroundColor);
							if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) return c;
						}
						return [255, 255, 255];
					};
					let n = 0;
					const low = [];
					const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
					for (let t = walk.nextNode(); t; t = walk.nextNode()) {
						const e = t.parentElement;
						if (!t.textContent.trim() || !e || e.closest('script, .sr, #tip')) continue;
						const st = getComputedStyle(e);
						if (st.display === 'none' || st.visibility === 'hidden' || !e.getClientRects().length) continue;
						const a = lum(rgba(st.color)), b = lum(bg(e)), ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
						n++;
						if (ratio < 4.5) low.push([t.textContent.trim().slice(0, 40), ratio.toFixed(2)]);
					}
					return [n, low];
				});
				console.log('contrast\t' + out[0]);
				out[1].forEach((l) => console.log('lowcontrast\t' + l[0] + '\t' + l[1]));
			} else if (cmd === 'focus') {
				await page.focus('#' + cmds[++i]);
			} else if (cmd === 'readout') {
				console.log('readout\t' + (await page.evaluate(() => document.getElementById('readout').textContent)).replace(/\n/g, '\t'));
			} else if (cmd === 'screenshot') {
				await page.screenshot({ path: cmds[++i] });
			} else {
				throw new Error('unknown command ' + cmd);
			}
		}
	} catch (e) {
		errors.push('driver: ' + e.message);
	} finally {
		await browser.close();
	}
	errors.forEach((e) => { console.error(e); rc = 1; });
	process.exit(rc);
}
main();
