# Classroom JupyterHub (issue 9): autograder/jupyterhub/ holds the deployment, tests/hub/ tests
# it against a real hub with real local users.
#   make hub-deps      configurable-http-proxy (pinned) from npm into build/node/ (no-op when present)
#   make hub-install   install the exchange + system-wide nbgrader config on THIS machine (root)
#   make hub-test      run only the hub test (needs root: it creates and removes local users)
#   make hub-load N=30 N students log in, run the explorer, move its slider and submit at once
#                      (root; prints spawn and slider p50/p95, memory per student; not in `make test`)
#                      ARMS=shipped,no_private_tmp,...: compare spawner settings side by side in one
#                      run (students take the arms in turn; arms in tests/hub/hub_load.py)
# JupyterHub itself is pinned in requirements.txt; its proxy is a node package, so it lives here.
CHP_VERSION ?= 5.3.0
NODE_PREFIX ?= build/node
CHP         := $(NODE_PREFIX)/node_modules/.bin/configurable-http-proxy
# hub-install: where the shared exchange and the system-wide config go (docs/hub-admins.md).
HUB_EXCHANGE   ?= /srv/nbgrader/exchange
HUB_CONFIG_DIR ?= /etc/jupyter
# The account owning the course folders in the exchange (`make hub-install OWNER=teacher`).
OWNER          ?=

# hub-load: students, seconds between two arrivals, slider moves per student.
N           ?= 30
ARMS        ?= shipped
STAGGER     ?= 2
MOVES       ?= 20

.PHONY: hub-deps hub-install hub-test hub-load

SYSTEM_DEPS += hub-deps

hub-deps: ## Hub admins: Install configurable-http-proxy (pinned, CHP_VERSION) from npm into build/node (skips when present)
	@if [ -x $(CHP) ] && [ "$$($(CHP) --version 2>/dev/null)" = "$(CHP_VERSION)" ]; then \
	  echo "hub-deps: configurable-http-proxy $(CHP_VERSION) present"; \
	else \
	  command -v npm >/dev/null || { echo "hub-deps: npm is missing (apt-get install npm)"; exit 1; }; \
	  npm install --prefix $(NODE_PREFIX) --no-audit --no-fund --loglevel=error \
	    configurable-http-proxy@$(CHP_VERSION); \
	fi
	@# each student's own filesystem (user_disk.py): mkfs.ext4, resize2fs, mount, losetup
	@if command -v mkfs.ext4 >/dev/null && command -v resize2fs >/dev/null && command -v losetup >/dev/null; then \
	  echo "hub-deps: e2fsprogs and mount present"; \
	else \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q e2fsprogs mount; \
	fi

hub-install: setup-grader setup-hub ## Hub admins: Create the exchange (course folders owned by OWNER) and /etc/jupyter/nbgrader_config.py (root; docs/hub-admins.md)
	@test -n "$(OWNER)" || { echo "Say who owns the course folders: make hub-install OWNER=<instructor account> (docs/hub-admins.md)"; exit 2; }
	$(BIN)/python autograder/jupyterhub/install.py system --owner "$(OWNER)" \
	  --exchange $(HUB_EXCHANGE) --config-dir $(HUB_CONFIG_DIR) --course attention-lab

hub-test: setup-grader setup-hub setup-test hub-deps ## Hub admins: Run only the classroom JupyterHub test (root: creates local users)
	$(PYTEST) tests/hub $(PYTEST_ARGS)

hub-load: setup-grader setup-hub setup-test hub-deps ## Hub admins: Load test: N students use the real hub at once (root; N=30 STAGGER=2 MOVES=20)
	HUB_LOAD_N=$(N) HUB_LOAD_STAGGER=$(STAGGER) HUB_LOAD_MOVES=$(MOVES) HUB_LOAD_ARMS=$(ARMS) \
	  $(PYTEST) tests/hub/hub_load.py -s -p no:cacheprovider $(PYTEST_ARGS)
