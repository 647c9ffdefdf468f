# dynamodb-admin in headless Chromium for e2e/browser_test.go: Debian's
# chromium, node and npm, and the pinned node modules of e2e/browser
# (dynamodb-admin, playwright-core) installed from its package-lock.json.
# The web console's tests (e2e/console_test.go) drive the same chromium
# from Go with chromedp, and fail without it in CI.
browser_need=()
[[ -x /usr/bin/chromium ]] || browser_need+=(chromium)
command -v node >/dev/null 2>&1 || browser_need+=(nodejs)
command -v npm >/dev/null 2>&1 || browser_need+=(npm)
if ((${#browser_need[@]})); then
	apt_install "${browser_need[@]}" || note_failure "install ${browser_need[*]} (dynamodb-admin browser test)"
fi
if command -v npm >/dev/null 2>&1; then
	if [[ ! -f e2e/browser/node_modules/dynamodb-admin/package.json || ! -f e2e/browser/node_modules/playwright-core/package.json ]]; then
		(cd e2e/browser && npm ci --no-audit --no-fund --loglevel=error) ||
			note_failure "npm ci in e2e/browser (dynamodb-admin browser test)"
	fi
	/usr/bin/chromium --version 2>/dev/null || true
fi
