// SPDX-License-Identifier: MIT
/*
 * bench/html-ab.js - two or more HTML reports of the same recording (say,
 * one written by main's eprof and one by a branch's) loaded in turn in
 * Debian's chromium, REPS times each, interleaved so that a shared
 * machine's load falls on both alike; prints the medians of the page's own
 * timing (window.eprofUI.timing): the first view (flame graph drawn, from
 * navigation start), painted, everything drawn, the redraw after a 2 s
 * range dragged on the heat map (and its flame graph part), and after a
 * click on the strip of CPU 1. Measured, not asserted.
 *
 *     NODE_PATH=tests/browser/node_modules REPS=5 node bench/html-ab.js old.html new.html
 */
'use strict';
const puppeteer = require('puppeteer-core');
const path = require('path');

const settle = () => new Promise((ok) => setTimeout(ok, 300));

async function once(browser, file) {
	const page = await browser.newPage();
	await page.setViewport({ width: 1300, height: 1000 });
	await page.goto('file://' + path.resolve(file), { waitUntil: 'load', timeout: 120000 });
	await page.waitForFunction('window.eprofUI && window.eprofUI.timing.complete > 0', { timeout: 120000 });
	const p = await page.evaluate(() => window.eprofUI.heatPoint(1e9));
	const q = await page.evaluate(() => window.eprofUI.heatPoint(3e9 - 1));
	await page.mouse.move(p.x, p.y);
	await page.mouse.down();
	await page.mouse.move(q.x, q.y, { steps: 4 });
	await page.mouse.up();
	await settle();
	const t1 = await page.evaluate(() => JSON.parse(JSON.stringify(window.eprofUI.timing)));
	const s = await page.evaluate(() => window.eprofUI.stripPoint('cpu 1', 0));
	await page.mouse.click(s.x + 1, s.y);
	await settle();
	const t2 = await page.evaluate(() => JSON.parse(JSON.stringify(window.eprofUI.timing)));
	await page.close();
	return [t1.firstView, t1.painted, t1.complete, t1.lastRedraw, t1.parts.flame, t2.lastRedraw];
}

async function main() {
	const pages = process.argv.slice(2), reps = Number(process.env.REPS || 5), res = new Map();
	if (!pages.length) throw new Error('usage: node bench/html-ab.js PAGE.html...');
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
		       '--disable-component-update', '--disable-sync', '--no-first-run'],
	});
	try {
		for (let r = 0; r < reps; r++)
			for (const f of pages) {
				if (!res.has(f)) res.set(f, []);
				res.get(f).push(await once(browser, f));
			}
	} finally {
		await browser.close();
	}
	const med = (a) => Math.round(a.slice().sort((x, y) => x - y)[(a.length - 1) >> 1]);
	for (const [f, v] of res) {
		const col = (k) => med(v.map((x) => x[k]));
		console.log(`${f}: first view ${col(0)} ms (runs ${v.map((x) => Math.round(x[0])).join(' ')}), ` +
			`painted ${col(1)}, everything ${col(2)}; 2 s range redraw ${col(3)} (flame ${col(4)}), ` +
			`CPU 1 redraw ${col(5)} ms`);
	}
}

main().catch((e) => { console.error('html-ab.js: ' + e.message); process.exit(1); });
