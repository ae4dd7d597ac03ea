# Lessons (issue 4): the five lesson notebooks plus the start page, in notebooks/.
#   make html          the course's site in build/html/: the docs (README.md as index.html, docs/,
#                      CONTRIBUTING.md, ...) and every lesson, executed, under one navigation bar
#   make bench-lessons per lesson: execution time and the kernel's peak memory (also in `make bench`)
# The pages work offline and link to each other in course order (previous / contents / next):
# attention_grader.pages.lesson_pages executes each lesson without saving widget state, so every
# widget shows its static HTML (its picture with alt text, and its readout table), and exports
# it with attention_grader.pages.offline_html (maths as MathML, no CDN scripts). Figures take their
# alt text from the "*Figure ...*" caption below them. attention_grader.pages.docs_site renders the
# Markdown docs around them (its NAV is the navigation bar, in order).
LESSONS_HTML_DIR ?= build/html
LESSON_NOTEBOOKS := $(sort $(wildcard notebooks/[0-9][0-9]_*.ipynb))

.PHONY: html bench-lessons

html: setup ## Students: The docs and the lessons as one static site in build/html/ (offline)
	$(BIN)/python -m attention_grader.pages.docs_site --out $(LESSONS_HTML_DIR) $(LESSON_NOTEBOOKS)

bench-lessons: setup-grader ## Maintainers: Per lesson: execution time and the kernel's peak memory (targets 15 s, 250 MB)
	$(BIN)/python -m benchmarks bench_lessons
