/* SPDX-License-Identifier: MIT */
/*
 * report/output/svg/flame.js - zoom, search and details for the flame graph,
 * embedded in every SVG report/output/svg.c writes (inside <script>, as
 * CDATA, after a line that defines EPROF = { total, xpad, plotW, charW }).
 * These leading comments stay out of the SVG: report/CMakeLists.txt strips
 * them.
 *
 * Frames are found through their data-s/-n/-d attributes (see output/svg.c):
 * zooming recomputes x and width from them, so no state hides in the DOM.
 * Plain ES5, so that any SVG viewer that runs scripts runs it.
 */
"use strict";
(function () {
	var details = document.getElementById("details");
	var matched = document.getElementById("matched");
	var unzoomBtn = document.getElementById("unzoom");
	var searchBtn = document.getElementById("search");
	var nodes = document.querySelectorAll("g.f");
	var frames = [], zoomed = null, searching = false, i;

	for (i = 0; i < nodes.length; i++) {
		var g = nodes[i], info = g.querySelector("title").textContent;
		var rect = g.querySelector("rect");
		g.eprofIndex = i;
		frames.push({ g: g, rect: rect, text: g.querySelector("text"), info: info,
			name: info.replace(/ \([^()]*\)$/, ""), fill: rect.getAttribute("fill"),
			s: Number(g.getAttribute("data-s")), n: Number(g.getAttribute("data-n")),
			d: Number(g.getAttribute("data-d")) });
	}

	function label(f, w) {
		var max = Math.floor((w - 6) / EPROF.charW);
		if (max < 3)
			return "";
		if (f.name.length <= max)
			return f.name;
		return f.name.substring(0, max - 2) + "..";
	}

	function place(f, x, w) {
		f.g.classList.remove("hide");
		f.rect.setAttribute("x", x.toFixed(2));
		f.rect.setAttribute("width", w.toFixed(2));
		f.text.setAttribute("x", (x + 3).toFixed(2));
		f.text.textContent = label(f, w);
	}

	function unzoom() {
		zoomed = null;
		frames.forEach(function (f) {
			f.g.classList.remove("dim");
			place(f, EPROF.xpad + f.s / EPROF.total * EPROF.plotW,
			      f.n / EPROF.total * EPROF.plotW);
		});
		unzoomBtn.classList.add("hidden");
	}

	/* z fills the width; its ancestors span it, dimmed; frames outside it hide. */
	function zoom(z) {
		zoomed = z;
		frames.forEach(function (f) {
			if (f.d < z.d && f.s <= z.s && f.s + f.n >= z.s + z.n) {
				f.g.classList.add("dim");
				place(f, EPROF.xpad, EPROF.plotW);
			} else if (f.d >= z.d && f.s >= z.s && f.s + f.n <= z.s + z.n) {
				f.g.classList.remove("dim");
				place(f, EPROF.xpad + (f.s - z.s) / z.n * EPROF.plotW, f.n / z.n * EPROF.plotW);
			} else {
				f.g.classList.add("hide");
			}
		});
		unzoomBtn.classList.remove("hidden");
	}

	function resetSearch() {
		frames.forEach(function (f) { f.rect.setAttribute("fill", f.fill); });
		matched.textContent = "";
		searchBtn.textContent = "Search";
		searching = false;
	}

	/* Matched counts every sample once: nested matches cover nested x ranges. */
	function search(re) {
		var spans = [], sum = 0, end = 0;

		frames.forEach(function (f) {
			if (re.test(f.name)) {
				f.rect.setAttribute("fill", "rgb(230,0,230)");
				spans.push([f.s, f.s + f.n]);
			} else {
				f.rect.setAttribute("fill", f.fill);
			}
		});
		spans.sort(function (a, b) { return a[0] - b[0]; });
		spans.forEach(function (sp) {
			if (sp[1] <= end)
				return;
			sum += sp[1] - Math.max(sp[0], end);
			end = sp[1];
		});
		matched.textContent = "Matched: " +
			(EPROF.total ? 100 * sum / EPROF.total : 0).toFixed(1) + "%";
		searchBtn.textContent = "Reset Search";
		searching = true;
	}

	function askSearch() {
		var term = prompt("Search frames (regular expression):", ""), re;

		if (term === null || term === "")
			return;
		try {
			re = new RegExp(term);
		} catch (e) {
			alert("Not a valid regular expression: " + e.message);
			return;
		}
		search(re);
	}

	function frameOf(e) {
		var g = e.target.closest ? e.target.closest("g.f") : null;
		return g ? frames[g.eprofIndex] : null;
	}

	document.documentElement.addEventListener("click", function (e) {
		var f = frameOf(e);

		if (!f)
			return;
		if (f.d === 0)
			unzoom();
		else
			zoom(f);
	});
	document.documentElement.addEventListener("mouseover", function (e) {
		var f = frameOf(e);

		if (f)
			details.textContent = f.info;
	});
	document.documentElement.addEventListener("mouseout", function (e) {
		if (frameOf(e))
			details.textContent = " ";
	});
	unzoomBtn.addEventListener("click", unzoom);
	searchBtn.addEventListener("click", function () {
		if (searching)
			resetSearch();
		else
			askSearch();
	});
	window.addEventListener("keydown", function (e) {
		var find = (e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F");

		if (find || e.key === "F3") {
			e.preventDefault();
			askSearch();
		} else if (e.key === "Escape") {
			if (searching)
				resetSearch();
			else if (zoomed)
				unzoom();
		}
	});
})();
