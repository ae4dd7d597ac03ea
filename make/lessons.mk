# Lessons (issue 4): the five lesson notebooks plus the start page, in notebooks/.
#   make html          execute every lesson and export it to static HTML in build/html/
#   make bench-lessons per lesson: execution time and the kernel's peak memory (also in `make bench`)
# The pages work offline and link to each other in course order (previous / contents / next):
# attention_grader.lesson_pages executes each lesson without saving widget state, so every
# widget shows its static HTML (its picture with alt text, and its readout table), and exports
# it with attention_grader.offline_html (maths as MathML, no CDN scripts). Figures take their
# alt text from the "*Figure ...*" caption below them.
LESSONS_HTML_DIR ?= build/html
LESSON_NOTEBOOKS := $(sort $(wildcard notebooks/[0-9][0-9]_*.ipynb))

.PHONY: html bench-lessons

html: setup-grader ## Export the lessons to static HTML in build/html/ (offline, linked in course order)
	$(BIN)/python -m attention_grader.lesson_pages --out $(LESSONS_HTML_DIR) $(LESSON_NOTEBOOKS)
	@echo "Open $(LESSONS_HTML_DIR)/index.html"

bench-lessons: setup-grader ## Per lesson: execution time and the kernel's peak memory (targets 15 s, 250 MB)
	$(BIN)/python -m benchmarks bench_lessons
