# A student alone on a laptop (issue 14): one person is both the teacher and the student.
#   make setup                    also creates the local exchange (exchange/) and the folder
#                                 fetched assignments go to (work/assignments/)
#   make lab                      copies the lessons into work/ (attention_lab.lesson_copies:
#                                 a copy the student changed is never overwritten; a course
#                                 update is put beside it) and opens JupyterLab there, so that
#                                 notebooks/ stays as git has it and `git pull` never conflicts;
#                                 reads jupyter-settings/laptop/nbgrader_config.py, so that
#                                 Nbgrader -> Assignment List finds that exchange and the course
#   make check A=intro_attention  practice feedback on your working copy of an assignment (COPY=<folder>
#                                 to check another folder than where Fetch put it): per
#                                 question ✓ or the misconception it shows, never a value or a score
# nbgrader's Assignment List reads nbgrader_config.py from the server's root folder (work/)
# and from JUPYTER_CONFIG_PATH, never from the course folder: see the laptop config's docstring.
LAPTOP_CONFIG_DIR := $(CURDIR)/jupyter-settings/laptop
STUDENT_DIRS      := exchange $(WORK_DIR)/assignments
COPY              ?=

.PHONY: check

setup: | $(STUDENT_DIRS)

$(STUDENT_DIRS):
	mkdir -p $@

# Before JupyterLab starts: the student's copies of the lessons (work/, git-ignored), the
# fetched assignments of the old layout (notebooks/assignments/) moved in beside them, and
# which assignments this course's own exchange offers (none: say how to release one).
define LAB_PREPARE
$(BIN)/python -m attention_lab.lesson_copies notebooks $(WORK_DIR)
@if [ -n "$$(ls -A notebooks/assignments 2>/dev/null)" ] && [ -z "$$(ls -A $(WORK_DIR)/assignments 2>/dev/null)" ]; then \
  rmdir $(WORK_DIR)/assignments 2>/dev/null; mv notebooks/assignments $(WORK_DIR)/assignments \
  && echo "Moved your fetched assignments from notebooks/assignments/ to $(WORK_DIR)/assignments/"; fi
@if [ -z "$$ATTENTION_LAB_EXCHANGE" ]; then \
  released="$$(ls exchange/attention-lab/outbound 2>/dev/null | tr '\n' ' ')"; \
  if [ -n "$$released" ]; then echo "To fetch (Nbgrader -> Assignment List): $$released"; \
  else echo "No assignment is released in this course's exchange yet. Studying alone? Release one to"; \
       echo "yourself first, in a terminal in the course folder: make release A=inventory_pre"; \
       echo "(the students' copy of the course, from make student-dist, has every assignment released)"; fi; fi
endef

# make lab is the student's: student-lab/labconfig/page_config.json switches off nbgrader's
# teacher parts (Create Assignment, Formgrader, Course List); `make formgrader` is the teacher's.
# student-lab/jupyter_server_config.json starts JupyterLab's terminal as a non-login shell in
# work/: Jupyter runs a login shell when not started from a terminal, and a login shell's
# /etc/profile resets PATH (no nbgrader), while a launcher terminal with no folder opened in the
# server's own folder, the course (tests/test_lab_server.py).
STUDENT_LAB_DIR   := $(CURDIR)/jupyter-settings/student-lab
lab: export JUPYTER_CONFIG_PATH := $(LAPTOP_CONFIG_DIR):$(STUDENT_LAB_DIR)$(if $(JUPYTER_CONFIG_PATH),:$(JUPYTER_CONFIG_PATH))

check: _need-assignment setup-grader ## Students: Check your fetched copy of A (✓ or the misconception; not a grade)
	$(BIN)/python -m attention_grader.term.selfstudy "$(A)" --course "$(COURSE)" $(if $(COPY),--copy "$(COPY)")
