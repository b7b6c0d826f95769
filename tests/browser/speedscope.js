// SPDX-License-Identifier: MIT
/*
 * tests/browser/speedscope.js - loads a file written by `eprof report
 * --speedscope` into speedscope itself (the npm package, its release page
 * from file://, nothing fetched) in Debian's chromium through the page's
 * own file chooser, as a user would, and prints what speedscope shows:
 *
 *   profile NAME WEIGHT   each profile of its profile list (the threads)
 *   row TOTAL SELF NAME   the sandwich view's function table (key 3), as
 *                         speedscope sorts it, of the first profile
 *
 * usage: node speedscope.js SPEEDSCOPE_INDEX_HTML PROFILE.json [SCREENSHOT.png]
 * With TIMING=1 it also prints "timing first_view_ms N": from the file
 * given to speedscope's chooser to the frame that shows its first view.
 * Any console error, uncaught exception or request off the machine fails
 * the run (exit 1), and so does an import speedscope did not recognise.
 */
'use strict';
const puppeteer = require('puppeteer-core');

async function main() {
	const [index, profile, shot] = process.argv.slice(2);
	const errors = [];
	let imported = false;
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
		       '--disable-component-update', '--disable-sync', '--no-first-run'],
	});
	try {
		const page = await browser.newPage();
		await page.setViewport({ width: 1300, height: 900 });
		page.on('console', (m) => {
			if (m.type() === 'error') errors.push('console: ' + m.text());
			if (/Importing as speedscope json file/.test(m.text())) imported = true;
		});
		page.on('pageerror', (e) => errors.push('uncaught: ' + e.message));
		page.on('request', (r) => {
			if (!/^(file|data|blob):/.test(r.url())) errors.push('request: ' + r.url());
		});
		await page.goto('file://' + require('path').resolve(index), { waitUntil: 'load', timeout: 60000 });
		const input = await page.waitForSelector('input[type=file]', { timeout: 60000 });
		const t0 = Date.now();
		await input.uploadFile(require('path').resolve(profile));
		/* the sandwich view's table, once the profile is in */
		await page.waitForFunction(() => document.querySelector('canvas') && !/Drag and drop/.test(document.body.innerText),
			{ timeout: 120000 });
		/* the frame that shows it */
		await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
		if (process.env.TIMING) console.log('timing\tfirst_view_ms ' + (Date.now() - t0));
		await page.keyboard.press('3');
		await page.waitForFunction(() => [...document.querySelectorAll('th')].some((t) => /Symbol Name/.test(t.innerText)),
			{ timeout: 60000 });
		/* its rows come after its header: read too soon, the table had none (t1104 once) */
		await page.waitForFunction(() => [...document.querySelectorAll('tr')].some((tr) => {
			const td = tr.querySelectorAll('td');
			return td.length === 3 && !/^\d+$/.test(td[0].innerText.trim());
		}), { timeout: 60000 });
		const rows = await page.evaluate(() => [...document.querySelectorAll('tr')].map((tr) =>
			[...tr.querySelectorAll('td')].map((td) => td.innerText.trim())));
		rows.forEach((r) => {
			if (r.length === 3 && /^\d+$/.test(r[0])) console.log('profile\t' + r[1] + '\t' + r[2]);
			else if (r.length === 3) console.log('row\t' + r.join('\t'));
		});
		if (shot) await page.screenshot({ path: shot });
		if (!imported) errors.push('speedscope did not import the file as its own format');
	} catch (e) {
		errors.push('driver: ' + e.message);
	} finally {
		await browser.close();
	}
	errors.forEach((e) => console.error(e));
	process.exit(errors.length ? 1 : 0);
}
main();
