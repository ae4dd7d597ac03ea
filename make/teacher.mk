# Teacher workflow (issue 6): release -> collect -> grade -> feedback -> grades -> report.
# Each target calls one step of `python -m attention_grader` (autograder/attention_grader/).
#   make release A=intro_attention DUE="2026-12-07 17:00 Asia/Kolkata"
#   make grade A=intro_attention JOBS=2 [FORCE=1] [GRADE_ARGS="--cell-timeout 20"]
#   make gain PRE=inventory_pre POST=inventory_post   (after grading both tests)
# Grading runs the pipeline nbgrader_config.py installs (attention_grader.pipeline.configure),
# the same as `nbgrader autograde` and the formgrader: student code in a sandboxed kernel, hidden
# tests in the grader's own process. Where no sandbox can be had, grading says what is off.
# COURSE=<dir> works on another course folder; the exchange is nbgrader_config.py's
# (ATTENTION_LAB_EXCHANGE=/srv/nbgrader/exchange on a JupyterHub).
A          ?=
JOBS       ?= 2
DUE        ?=
FORCE      ?=
PARTIAL    ?=
FORMAT     ?= csv
GRADE_ARGS ?=
PRE        ?= inventory_pre
POST       ?= inventory_post
COURSE     ?= $(CURDIR)
GRADER     := $(BIN)/python -m attention_grader --course "$(COURSE)"

.PHONY: release collect grade feedback grades report gain _need-assignment

_need-assignment:
	@test -n "$(A)" || { echo "Say which assignment: make $(MAKECMDGOALS) A=<name> (one of: $$(ls $(COURSE)/source | tr '\n' ' '))"; exit 2; }

release: _need-assignment setup-grader ## Teacher: generate + release assignment A to the exchange (DUE="...")
	$(GRADER) release "$(A)" $(if $(DUE),--due "$(DUE)")

collect: _need-assignment setup-grader ## Teacher: collect the submissions of A from the exchange
	$(GRADER) collect "$(A)"

grade: _need-assignment setup-grader ## Teacher: autograde A in parallel (JOBS=2; FORCE=1 regrades)
	$(GRADER) grade "$(A)" --jobs $(JOBS) $(if $(FORCE),--force) $(GRADE_ARGS)

feedback: _need-assignment setup-grader ## Teacher: generate + release feedback for A (refused while written answers are ungraded; PARTIAL=1 releases, saying "not graded yet")
	$(GRADER) feedback "$(A)" $(if $(PARTIAL),--partial)

grades: setup-grader ## Teacher: write grades.csv (one row per student and assignment); FORMAT=canvas: grades-canvas.csv for Canvas
	$(GRADER) grades --format "$(FORMAT)"


report: _need-assignment setup-grader ## Teacher: class report for A under reports/A/ (HTML + PNG)
	$(GRADER) report "$(A)"

gain: setup-grader ## Teacher: learning gain PRE -> POST under reports/gain/ (HTML + PNG + gain.csv)
	$(GRADER) gain "$(PRE)" "$(POST)"
