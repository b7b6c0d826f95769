# SPDX-License-Identifier: MIT
# tests/browser/lib.sh - for e2e scripts that drive the HTML report in
# chromium (sourced after tests/e2e/lib.sh). puppeteer-core comes from the npm
# registry at the version tests/browser/package-lock.json pins: .ci/deps.sh
# --tests installs it into tests/browser/node_modules; failing that it is
# installed once into the build tree.
BROWSER_DIR=$(cd "$E2E_DIR/../browser" && pwd)

# require_browser: skips without chromium or node; fails when puppeteer-core
# (and speedscope, the viewer t1104 loads exports into) can be neither found
# nor installed (a missing test tool must not pass).
require_browser() {
	command -v chromium >/dev/null 2>&1 || skip "needs chromium (Debian package chromium)"
	command -v node >/dev/null 2>&1 || skip "needs node (Debian packages nodejs, npm)"
	if [ -d "$BROWSER_DIR/node_modules/puppeteer-core" ] && [ -d "$BROWSER_DIR/node_modules/speedscope" ]; then
		BROWSER_NODE_PATH="$BROWSER_DIR/node_modules"
		return 0
	fi
	local dir
	dir=$(cd "$WORKLOADS/.." && pwd)/browser
	if [ ! -d "$dir/node_modules/puppeteer-core" ] || [ ! -d "$dir/node_modules/speedscope" ] ||
	   ! cmp -s "$BROWSER_DIR/package-lock.json" "$dir/package-lock.json"; then
		command -v npm >/dev/null 2>&1 || fail "no puppeteer-core and no npm: run .ci/deps.sh --tests"
		mkdir -p "$dir" && cp "$BROWSER_DIR/package.json" "$BROWSER_DIR/package-lock.json" "$dir/" ||
			fail "cannot prepare $dir"
		(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
			fail "cannot install puppeteer-core and speedscope into $dir: run .ci/deps.sh --tests"
	fi
	BROWSER_NODE_PATH="$dir/node_modules"
}

# speedscope PROFILE.json [SCREENSHOT]: tests/browser/speedscope.js, speedscope's
# own page from the npm package; fails on any page error.
speedscope() {
	NODE_PATH="$BROWSER_NODE_PATH" timeout 180 node "$BROWSER_DIR/speedscope.js" \
		"$BROWSER_NODE_PATH/speedscope/dist/release/index.html" "$@"
}

# drive PAGE COMMAND...: tests/browser/drive.js; fails on any page error.
drive() {
	NODE_PATH="$BROWSER_NODE_PATH" timeout 180 node "$BROWSER_DIR/drive.js" "$@"
}

# artifacts NAME: a directory in the build tree (tests/artifacts/NAME) that
# keeps what a test shows (screenshots) after it ends; its path on stdout.
artifacts() {
	local dir
	dir=$(cd "$WORKLOADS/.." && pwd)/artifacts/$1
	mkdir -p "$dir" || fail "cannot create $dir"
	printf '%s\n' "$dir"
}
