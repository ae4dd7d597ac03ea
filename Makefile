# Attention Lab. `make help` lists the targets. Every variable below can be overridden:
#   make lab LAB_ARGS="--no-browser --port=8890"     make test PYTEST_ARGS="-k softmax"
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON      ?= python3
VENV        ?= .venv
BIN         := $(VENV)/bin
PIP_INSTALL ?= $(BIN)/python -m pip install --disable-pip-version-check -q
LAB_ARGS    ?=
# Jupyter refuses to start as root unless told; containers and CI machines often are root.
ROOT_ARGS   := $(if $(filter 0,$(shell id -u)),--allow-root,)
PYTEST_ARGS ?=
# `make test` and `make test-fast` run the tests in this many pytest-xdist workers (0: in this
# process, e.g. for pdb). Each module runs whole on one worker, and the hub's and the browser's
# modules on the same one (tests/support/worker_groups.py). One more worker than cores: the
# hub's tests mostly wait on servers starting and stopping, and on 2 cores the third worker
# fills that time (measured in the CHANGELOG, Thirteenth landing).
PYTEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n < 8 ? n + 1 : 8 )))
PYTEST_XDIST := -n $(PYTEST_WORKERS) --dist loadgroup
# Every install takes its versions from one lock of exact transitive pins (`make lock` compiles
# it from requirements.txt and pyproject.toml) and installs only what its audience needs:
# `make setup` the students' packages (pyproject's dependencies), and the targets that need more
# add an extra (setup-grader, setup-hub, setup-test, setup-postgres).
LOCK        := requirements-lock.txt
INSTALL     := $(PIP_INSTALL) -c $(LOCK) -e
# The stamps record what is installed: `make setup` re-installs only when the lock,
# requirements.txt, pyproject.toml or this Makefile change (or the venv is missing).
STAMP       := $(VENV)/.attention-lab-installed
EXTRAS      := grader hub test postgres
EXTRA_STAMP := $(VENV)/.attention-lab-extra-
comma       := ,
space       := $(subst ,, )
# `make lock` runs uv (this version, installed into build/uv) against PyPI.
UV_VERSION  ?= 0.13.8
UV          := build/uv/bin/uv
# jsonschema imports rfc3987-syntax when it is installed (jupyter-events asks for the
# format-nongpl extra), and that builds a lark grammar at import time: 2.7 s added to every
# Jupyter, nbgrader and nbclient process (python-jsonschema/jsonschema#1392, #1521). Without it
# jsonschema only skips checking the "iri" string format, which nothing here uses.
SLOW_IMPORTS := rfc3987-syntax lark
# Tools that nbgrader and Jupyter start by name (alembic, jupyter-*) must come from the venv.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: help setup setup-all $(addprefix setup-,$(EXTRAS)) lock system-deps lab test test-fast lint bench clean FORCE

# `make help`: every target with a `## <audience>: <what it does>` comment, grouped by audience in
# HELP_GROUPS' order and, within a group, in the order the files define them (this Makefile, then
# make/*.mk by name): make/teacher.mk lists a term's steps in the order they are used.
HELP_GROUPS := Students|Teachers|Hub admins|Maintainers

help: ## Maintainers: List the targets, by audience, in the order they are used
	@awk -v groups='$(HELP_GROUPS)' 'BEGIN { FS = ":.*## "; n = split(groups, order, "|") } \
	  /^[a-zA-Z_-]+:.*## / && !seen[$$1]++ { \
	    who = $$2; sub(/: .*/, "", who); what = substr($$2, length(who) + 3); \
	    lines[who] = lines[who] sprintf("  make %-15s %s\n", $$1, what) } \
	  END { for (i = 1; i <= n; i++) if (order[i] in lines) { \
	          printf "%s\n%s", order[i], lines[order[i]]; delete lines[order[i]] } \
	        for (who in lines) printf "%s (not one of HELP_GROUPS)\n%s", who, lines[who] }' \
	  $(MAKEFILE_LIST)

# The Pythons the course supports: pyproject.toml's requires-python says the same (a test checks).
SUPPORTED_PYTHONS := 3.11 3.12 3.13
# PYTHON=... on the command line: make/venv.sh rebuilds .venv if it was made by another version.
PYTHON_GIVEN := $(if $(filter command line,$(origin PYTHON)),yes,no)

$(STAMP): $(LOCK) requirements.txt pyproject.toml Makefile $(if $(filter yes,$(PYTHON_GIVEN)),FORCE)
	@bash make/venv.sh $(VENV) $(PYTHON) $(PYTHON_GIVEN) $(SUPPORTED_PYTHONS)
	@echo "Installing the course's packages into $(VENV) (2-3 minutes the first time; later runs skip it)..."
	$(INSTALL) .
	$(BIN)/python -m pip uninstall --disable-pip-version-check -q -y $(SLOW_IMPORTS)
	@touch $@

# One extra on top of the students' set-up; each install may bring the slow imports back.
$(EXTRA_STAMP)%: $(LOCK) requirements.txt pyproject.toml Makefile | $(STAMP)
	@echo "Adding the $* tools to $(VENV) (a minute or two the first time; later runs skip it)..."
	$(INSTALL) '.[$*]'
	$(BIN)/python -m pip uninstall --disable-pip-version-check -q -y $(SLOW_IMPORTS)
	@touch $@

# Every extra at once, for the maintainers' targets (test, test-fast, lint): one pip run, not one
# per extra (each run resolves the lock again and rebuilds the editable package). It stamps each.
$(EXTRA_STAMP)all: $(LOCK) requirements.txt pyproject.toml Makefile | $(STAMP)
	@echo "Adding every extra ($(EXTRAS)) to $(VENV) (a minute or two the first time; later runs skip it)..."
	$(INSTALL) '.[$(subst $(space),$(comma),$(EXTRAS))]'
	$(BIN)/python -m pip uninstall --disable-pip-version-check -q -y $(SLOW_IMPORTS)
	@touch $(addprefix $(EXTRA_STAMP),$(EXTRAS)) $@

# JupyterLab and Notebook 7 read default settings from the environment's overrides.json: the
# course's (jupyter-settings/) frees the arrow keys for widget sliders in Notebook 7.
OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json
$(OVERRIDES): jupyter-settings/overrides.json | $(STAMP)
	install -D -m 644 $< $@

# The course's Jupyter server loads attention_lab.nodelay: kernel websockets send with
# TCP_NODELAY, so a widget's picture is not held back ~40 ms by Nagle's algorithm.
NODELAY_CONF := $(VENV)/etc/jupyter/jupyter_server_config.d/attention_lab.json
$(NODELAY_CONF): jupyter-settings/jupyter_server_config.d/attention_lab.json | $(STAMP)
	install -D -m 644 $< $@
setup: $(NODELAY_CONF)

# The course's Jupyter server loads attention_grader.pages.csp: the formgrader's submission pages get
# a Content-Security-Policy (a student's script cannot call the formgrader API as the teacher).
SERVER_CONF := $(VENV)/etc/jupyter/jupyter_server_config.d/attention_grader.json
$(SERVER_CONF): jupyter-settings/jupyter_server_config.d/attention_grader.json | $(STAMP)
	install -D -m 644 $< $@

# The course's JupyterLab plugins, plain JavaScript with no build step: the student clock (due
# dates and lateness in nbgrader's Assignment List, attention_grader.term.student_clock) and
# outputs that wrap between words.
UI_EXT := $(VENV)/share/jupyter/labextensions/@attention-lab/course-ui
UI_SRC := jupyter-settings/labextensions/course-ui
$(UI_EXT)/static/remoteEntry.js: $(UI_SRC)/static/remoteEntry.js $(UI_SRC)/package.json | $(STAMP)
	rm -rf $(UI_EXT)
	install -D -m 644 $(UI_SRC)/package.json $(UI_EXT)/package.json
	install -D -m 644 $< $@

setup: $(STAMP) $(OVERRIDES) $(SERVER_CONF) $(UI_EXT)/static/remoteEntry.js ## Students: Create .venv with what students need, from the lock (idempotent)

$(addprefix setup-,$(EXTRAS)): setup-%: setup $(EXTRA_STAMP)%
setup-all: setup $(EXTRA_STAMP)all ## Maintainers: Add every extra to .venv in one pip run (what make test needs)
# Most tests import attention_grader: plain `pytest` after `make setup-test` collects them all
# (tests/hub only with the hub extra, see tests/conftest.py).
setup-test: setup-grader
setup-grader: ## Teachers: Add the teacher's grading tools to .venv (the grader extra)
	@command -v bwrap >/dev/null 2>&1 && id -u attention-sandbox >/dev/null 2>&1 || echo \
	  "setup-grader: grading needs the sandbox (it refuses to grade without it): run 'make sandbox-deps' as root"
setup-hub: ## Hub admins: Add JupyterHub to .venv (the hub extra)
setup-test: ## Maintainers: Add the test and lint tools to .venv (the test extra, and the grader extra most tests import)
setup-postgres: ## Hub admins: Add psycopg 3 to .venv, for a PostgreSQL gradebook (the postgres extra)

lock: ## Maintainers: Recompile requirements-lock.txt (uv, from PyPI) after editing the pins
	@test -x $(UV) || { $(PYTHON) -m venv build/uv && build/uv/bin/python -m pip install \
	  --disable-pip-version-check -q uv==$(UV_VERSION); }
	$(UV) pip compile --universal --python-version 3.11 --all-extras \
	  --custom-compile-command "make lock" requirements.txt pyproject.toml -o $(LOCK)

# The student's own folder (git ignores it): copies of the lessons and the fetched assignments.
# jupyter-settings/laptop/nbgrader_config.py names it too.
WORK_DIR    := work

lab: setup ## Students: Start JupyterLab on your copies of the lessons in work/ (LAB_ARGS="--no-browser --port=8888")
	$(LAB_PREPARE)
	$(BIN)/jupyter lab --notebook-dir=$(WORK_DIR) $(ROOT_ARGS) $(LAB_ARGS)

# It lists its slowest steps at the end (set-up included: a shared class, the lessons): what
# to cut next when the whole run nears its 15 minutes.
# The tests start hundreds of Python processes that import the course's own packages, and each
# pytest-xdist worker rewrites every test module's asserts: where the environment sets
# PYTHONDONTWRITEBYTECODE (CI's does), each of them compiled all that again. The tests keep their
# bytecode (in __pycache__/, ignored by git; `make clean` removes it).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest
test: setup-all system-deps ## Maintainers: Run the whole test suite (PYTEST_ARGS=... to narrow it)
	$(PYTEST) $(PYTEST_XDIST) --durations=25 $(PYTEST_ARGS)

# The unit tests, for the edit-and-test loop (under 90 s): every test not marked slow, i.e. no
# notebook run, nbgrader run, browser or hub (tests/conftest.py marks the browser and hub
# folders). `make test` runs them too.
test-fast: setup-all ## Maintainers: Run the unit tests only, under 90 s (no notebooks, nbgrader, browser or hub)
	$(PYTEST) $(PYTEST_XDIST) -m "not slow" $(PYTEST_ARGS)

lint: setup-all ## Maintainers: Lint with ruff and type-check with mypy (check-only when CI=true, else ruff fixes what it safely can)
	$(BIN)/mypy
	$(BIN)/mypy --strict --follow-imports=silent attention_lab autograder/attention_grader autograder/attention_hub autograder/jupyterhub/install.py
ifeq ($(CI),true)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
else
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .
endif

bench: setup-grader setup-test ## Maintainers: Print the benchmark table (medians and ratios, measured side by side)
	$(BIN)/python -m benchmarks

# Build output only. A class's data (submitted/, autograded/, feedback/, quarantine/, exchange/,
# reports/, gradebook.db, grades*.csv, roster.csv, release/) is never removed by a tidy-up:
# only by `make reset-course CONFIRM=yes`, which first archives it (make/teacher.mk).
clean: ## Maintainers: Remove build output (keeps .venv and every file of the class; see reset-course)
	rm -rf build test-artifacts .pytest_cache .ruff_cache
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -print | xargs rm -rf

FORCE:

# Areas with their own targets (teacher workflow, browser tests, classroom hub) live in make/.
-include make/*.mk

# Each area's .mk adds the target that installs what its tests need (Debian's chromium, bubblewrap,
# configurable-http-proxy from npm) to SYSTEM_DEPS; each such target does nothing when already installed.
system-deps: $(SYSTEM_DEPS) ## Maintainers: Install the system packages the tests need (apt/npm; skips what is there)
