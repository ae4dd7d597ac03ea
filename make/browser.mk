# Real-browser tests (issue 8): JupyterLab driven by Playwright in Debian's headless Chromium.
# `playwright install` cannot download its own browser builds here, so the tests launch
# /usr/bin/chromium (executable_path) and this target installs it from Debian.
#   make browser-deps     install chromium (quick no-op when present)
#   make test-browser     run only the browser tests (screenshots in test-artifacts/browser/)
#   make bench-browser    slider -> image latency in Chromium, beside a naive `interact`
CHROMIUM ?= /usr/bin/chromium
# Another area's target may be running apt at the same moment: wait for dpkg's lock, don't fail.
APT_BROWSER_OPTS := -y -q --no-install-recommends -o DPkg::Lock::Timeout=600

.PHONY: browser-deps test-browser bench-browser

SYSTEM_DEPS += browser-deps

browser-deps: ## Maintainers: Install Debian's chromium for the browser tests (skips when present)
	@if [ -x $(CHROMIUM) ]; then \
	  echo "browser-deps: $(CHROMIUM) present"; \
	else \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install $(APT_BROWSER_OPTS) chromium fonts-dejavu-core \
	    || { apt-get update -q -o DPkg::Lock::Timeout=600 \
	         && apt-get install $(APT_BROWSER_OPTS) chromium fonts-dejavu-core; }; \
	fi

test-browser: setup-grader setup-test browser-deps ## Maintainers: Run only the browser tests (JupyterLab in headless Chromium)
	$(PYTEST) tests/browser $(PYTEST_ARGS)

bench-browser: setup-grader setup-test browser-deps ## Maintainers: Slider -> heatmap latency in Chromium vs a naive `interact`
	$(BIN)/python -m benchmarks bench_browser
