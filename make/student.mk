# A student alone on a laptop (issue 14): one person is both the teacher and the student.
#   make setup                    also creates the local exchange (exchange/) and the folder
#                                 fetched assignments go to (notebooks/assignments/)
#   make lab                      reads jupyter-settings/laptop/nbgrader_config.py, so that
#                                 Nbgrader -> Assignment List finds that exchange and the course
#   make check A=intro_attention  practice feedback on your working copy of an assignment (COPY=<folder>
#                                 to check another folder than where Fetch put it): per
#                                 question ✓ or the misconception it shows, never a value or a score
# nbgrader's Assignment List reads nbgrader_config.py from the server's root folder (notebooks/)
# and from JUPYTER_CONFIG_PATH, never from the course folder: see the laptop config's docstring.
LAPTOP_CONFIG_DIR := $(CURDIR)/jupyter-settings/laptop
STUDENT_DIRS      := exchange notebooks/assignments
COPY              ?=

.PHONY: check

setup: | $(STUDENT_DIRS)

$(STUDENT_DIRS):
	mkdir -p $@

lab: export JUPYTER_CONFIG_PATH := $(LAPTOP_CONFIG_DIR)$(if $(JUPYTER_CONFIG_PATH),:$(JUPYTER_CONFIG_PATH))

check: _need-assignment setup-grader ## Students: Check your fetched copy of A (✓ or the misconception; not a grade)
	$(BIN)/python -m attention_grader.selfstudy "$(A)" --course "$(COURSE)" $(if $(COPY),--copy "$(COPY)")
