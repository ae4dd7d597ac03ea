# A class's data: only an explicit, confirmed reset removes it, and only after archiving it.
#   make reset-course CONFIRM=yes   archive the class's data to backups/, then remove it
COURSE_DATA := submitted autograded feedback quarantine exchange reports release gradebook.db grades.csv
BACKUP_DIR  ?= backups
CONFIRM     ?=

.PHONY: reset-course

reset-course: ## Teacher: archive the class's data to backups/<date>.tar.gz, then remove it (CONFIRM=yes)
	@present="$$(for f in $(COURSE_DATA); do [ -e "$$f" ] && echo "$$f"; done)"; \
	if [ -z "$$present" ]; then echo "reset-course: no class data here; nothing to do"; exit 0; fi; \
	if [ "$(CONFIRM)" != "yes" ]; then \
	  echo "reset-course removes the class's data: $$(echo $$present | tr '\n' ' ')"; \
	  echo "It archives them first. To go ahead: make reset-course CONFIRM=yes"; exit 2; \
	fi; \
	mkdir -p $(BACKUP_DIR); \
	archive="$(BACKUP_DIR)/course-$$(date -u +%Y%m%dT%H%M%SZ).tar.gz"; \
	tar -czf "$$archive" $$present || { echo "reset-course: archiving failed; nothing removed"; exit 1; }; \
	tar -tzf "$$archive" >/dev/null || { echo "reset-course: the archive does not read back; nothing removed"; exit 1; }; \
	rm -rf $$present; \
	echo "reset-course: archived to $$archive, then removed: $$(echo $$present | tr '\n' ' ')"
