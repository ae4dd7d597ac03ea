# PostgreSQL gradebook (issue 19): Debian's postgresql server for the tests, which start a
# throwaway cluster on a Unix socket in a temporary folder (tests/support/pg_cluster.py); psycopg (the
# Python driver) is pinned in requirements.txt.
#   make postgres-deps   install Debian's postgresql (root only; quick no-op when initdb exists)
APT_POSTGRES_OPTS := -y -q --no-install-recommends -o DPkg::Lock::Timeout=600

.PHONY: postgres-deps

SYSTEM_DEPS += postgres-deps

postgres-deps: ## Maintainers: Install Debian's postgresql for the PostgreSQL gradebook test (skips when present)
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  echo "postgres-deps: postgresql present"; \
	elif [ "$$(id -u)" != 0 ]; then \
	  echo "postgres-deps: not root: install postgresql yourself (sudo apt-get install postgresql)"; \
	else \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install $(APT_POSTGRES_OPTS) postgresql \
	    || { apt-get update -q -o DPkg::Lock::Timeout=600 \
	         && apt-get install $(APT_POSTGRES_OPTS) postgresql; }; \
	fi
