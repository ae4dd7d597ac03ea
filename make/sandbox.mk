# Sandboxed grading (issue 7): student kernels run under bubblewrap as an unprivileged user.
#   make sandbox-deps     install Debian's bubblewrap and create the `attention-sandbox` user
#                         (root only; quick no-op when both exist)
#   make sandbox-check    print which protections student kernels get on this machine
#   make test-sandbox     run only the sandbox, trusted-checking and tamper tests (attack suite included)
# Without bubblewrap's walls grading refuses to start (unless the course sets
# c.SandboxedKernelManager.sandbox = "off"); `make sandbox-check` says what is off.
SANDBOX_USER ?= attention-sandbox
APT_SANDBOX_OPTS := -y -q --no-install-recommends -o DPkg::Lock::Timeout=600

.PHONY: sandbox-deps sandbox-check test-sandbox

SYSTEM_DEPS += sandbox-deps

sandbox-deps: ## Teachers: Install bubblewrap + the attention-sandbox user for sandboxed grading (skips when present)
	@if command -v bwrap >/dev/null; then \
	  echo "sandbox-deps: bwrap present"; \
	elif [ "$$(id -u)" != 0 ]; then \
	  echo "sandbox-deps: not root: install bubblewrap yourself (sudo apt-get install bubblewrap)"; \
	else \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install $(APT_SANDBOX_OPTS) bubblewrap \
	    || { apt-get update -q -o DPkg::Lock::Timeout=600 \
	         && apt-get install $(APT_SANDBOX_OPTS) bubblewrap; }; \
	fi
	@if [ "$$(id -u)" = 0 ] && ! id -u $(SANDBOX_USER) >/dev/null 2>&1; then \
	  useradd --system --no-create-home --user-group --shell /usr/sbin/nologin $(SANDBOX_USER) \
	    && echo "sandbox-deps: created user $(SANDBOX_USER)"; \
	fi

sandbox-check: setup-grader ## Teachers: Show which sandbox protections student kernels get on this machine
	$(BIN)/python -c "from attention_grader.sandbox.protections import format_protections; print(format_protections())"

test-sandbox: setup-grader setup-test sandbox-deps ## Maintainers: Run only the sandbox, trusted-checking and tamper tests (the attack suite)
	$(PYTEST) tests/attention_grader/sandbox/test_sandbox.py tests/attention_grader/executor/test_tamper.py tests/test_attacks.py tests/attention_grader/checking/test_trusted.py tests/attention_grader/channel/test_answer_channel.py tests/attention_grader/channel/test_answer_decoding.py tests/attention_grader/executor/test_execute.py $(PYTEST_ARGS)
