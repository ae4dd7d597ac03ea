# Lessons (issue 4): the five lesson notebooks plus the start page, in notebooks/.
#   make html          execute every lesson and export it to static HTML in build/html/
#   make bench-lessons per lesson: execution time and the kernel's peak memory (also in `make bench`)
# In the HTML every widget shows its default state as a still image: the lessons are executed
# without saving widget state, so nbconvert falls back to the PNG each widget puts in its display
# data (QueryExplorer, QueryRotation, HardSoftSlider) instead of a view that needs a live kernel.
LESSONS_HTML_DIR ?= build/html
LESSON_NOTEBOOKS := $(sort $(wildcard notebooks/[0-9][0-9]_*.ipynb))

.PHONY: html bench-lessons

html: setup ## Export the lessons to static HTML in build/html/ (widgets as still figures)
	$(BIN)/jupyter nbconvert --to html --execute \
	  --ExecutePreprocessor.kernel_name=python3 \
	  --ExecutePreprocessor.timeout=180 \
	  --ExecutePreprocessor.store_widget_state=False \
	  --output-dir $(LESSONS_HTML_DIR) $(LESSON_NOTEBOOKS)
	@echo "Open $(LESSONS_HTML_DIR)/00_start_here.html"

bench-lessons: setup ## Per lesson: execution time and the kernel's peak memory (targets 15 s, 250 MB)
	$(BIN)/python -m benchmarks bench_lessons
