# Teacher workflow: release -> collect -> grade -> feedback -> grades -> report -> gain,
# in the order a term uses them (`make help` lists the targets in file order), then the reset.
# Each target calls one step of `python -m attention_grader` (autograder/attention_grader/).
#   make release A=intro_attention DUE="2026-12-07 17:00 Asia/Kolkata"
#   make grade A=intro_attention JOBS=2 [FORCE=1] [GRADE_ARGS="--cell-timeout 20"]
#   make gain PRE=inventory_pre POST=inventory_post   (after grading both tests)
# Grading runs the pipeline nbgrader_config.py installs (attention_grader.pipeline.configure),
# the same as `nbgrader autograde` and the formgrader: student code in a sandboxed kernel, hidden
# tests in the grader's own process. Where no sandbox can be had, grading says what is off.
# Every limit (cell and notebook time, output, sandbox, intake caps) is nbgrader_config.py's,
# read as nbgrader reads it (/etc/jupyter's and ~/.jupyter's file, the course's, the command
# line: attention_grader.config.config_door). GRADE_ARGS="--Intake.max_cells=500" sets one for
# one run, as `nbgrader autograde --Intake.max_cells=500` does; --cell-timeout 20 is short for
# --Execute.timeout=20.
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

.PHONY: release collect grade feedback formgrader grades report gain student-dist reset-course _need-assignment

_need-assignment:
	@test -n "$(A)" || { echo "Say which assignment: make $(MAKECMDGOALS) A=<name> (one of: $$(ls $(COURSE)/source | tr '\n' ' '))"; exit 2; }

release: _need-assignment setup-grader ## Teachers: Generate + release assignment A to the exchange (DUE="...")
	$(GRADER) release "$(A)" $(if $(DUE),--due "$(DUE)")

collect: _need-assignment setup-grader ## Teachers: Collect the submissions of A from the exchange
	$(GRADER) collect "$(A)"

grade: _need-assignment setup-grader ## Teachers: Autograde A in parallel (JOBS=2; FORCE=1 regrades)
	$(GRADER) grade "$(A)" --jobs $(JOBS) $(if $(FORCE),--force) $(GRADE_ARGS)

formgrader: setup-grader ## Teachers: JupyterLab on the course with Nbgrader -> Formgrader, to grade written answers (make lab is the students')
	$(BIN)/jupyter lab --notebook-dir="$(COURSE)" $(ROOT_ARGS) $(LAB_ARGS)

feedback: _need-assignment setup-grader ## Teachers: Generate + release feedback for A (refused while written answers are ungraded; PARTIAL=1 releases, saying "not graded yet")
	$(GRADER) feedback "$(A)" $(if $(PARTIAL),--partial)

grades: setup-grader ## Teachers: Write grades.csv (one row per student and assignment); FORMAT=canvas: grades-canvas.csv for Canvas
	$(GRADER) grades --format "$(FORMAT)"

report: _need-assignment setup-grader ## Teachers: Class report for A under reports/A/ (HTML + PNG)
	$(GRADER) report "$(A)"

gain: setup-grader ## Teachers: Learning gain PRE -> POST under reports/gain/ (HTML + PNG + gain.csv)
	$(GRADER) gain "$(PRE)" "$(POST)"

# What students clone or download: lessons, library and every assignment released, never source/
# (attention_grader.steps.student_dist checks every file for a solution or a hidden test).
STUDENT_DIST ?= build/student-dist
student-dist: setup-grader ## Teachers: Build the students' copy of the course (no source/, no solutions, no hidden tests) in build/student-dist/
	$(BIN)/python -m attention_grader.steps.student_dist --course . --out "$(STUDENT_DIST)"

# A class's data: only an explicit, confirmed reset removes it, and only after archiving it.
#   make reset-course CONFIRM=yes   archive the class's data to backups/, then remove it
COURSE_DATA := submitted autograded feedback quarantine exchange reports release gradebook.db grades.csv \
               grades-canvas.csv roster.csv submission_history
BACKUP_DIR  ?= backups
CONFIRM     ?=
# What a reset never touches; it says so.
KEPT        := notebooks/, source/ and $(WORK_DIR)/ (lesson copies and fetched assignments: a student's own work)

reset-course: ## Teachers: Archive the class's data to backups/<date>.tar.gz, then remove it (CONFIRM=yes)
	@present="$$(for f in $(COURSE_DATA); do [ -e "$$f" ] && echo "$$f"; done)"; \
	if [ -z "$$present" ]; then echo "reset-course: no class data here; nothing to do"; exit 0; fi; \
	users="$$($(PYTHON) make/course_in_use.py .)"; in_use=$$?; \
	if [ $$in_use != 0 ]; then \
	  if [ $$in_use = 1 ]; then echo "reset-course: a Jupyter server (make lab, the formgrader) is using this course:"; \
	  else echo "reset-course: could not check whether a Jupyter server uses this course ($(PYTHON) make/course_in_use.py failed)."; fi; \
	  echo "$$users"; \
	  echo "Stop it first (Ctrl-C twice in its terminal, or kill <pid>), then run this again:"; \
	  echo "a server left running keeps the removed gradebook and shows 404 for every submission."; \
	  echo "Nothing was removed."; exit 2; \
	fi; \
	if [ "$(CONFIRM)" != "yes" ]; then \
	  echo "reset-course removes the class's data: $$(echo $$present | tr '\n' ' ')"; \
	  echo "It archives them first, and keeps $(KEPT). To go ahead: make reset-course CONFIRM=yes"; exit 2; \
	fi; \
	mkdir -p $(BACKUP_DIR); \
	archive="$(BACKUP_DIR)/course-$$(date -u +%Y%m%dT%H%M%SZ).tar.gz"; \
	tar -czf "$$archive" $$present || { echo "reset-course: archiving failed; nothing removed"; exit 1; }; \
	tar -tzf "$$archive" >/dev/null || { echo "reset-course: the archive does not read back; nothing removed"; exit 1; }; \
	rm -rf $$present; \
	echo "reset-course: archived to $$archive, then removed: $$(echo $$present | tr '\n' ' ')"; \
	echo "reset-course: kept $(KEPT)"
