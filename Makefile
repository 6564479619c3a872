# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: help run keys test test-fast lint format migrate demo bench fuzz backup-check messages clean
# A bare `make` explains itself rather than installing.
.DEFAULT_GOAL := help

## help: list the targets and what each does (this text)
help:
	@awk '/^## / { block = block substr($$0, 4) "\n"; next } /^#/ { next } \
	     /^[a-z-]+:/ { name = $$0; sub(/:.*/, "", name); \
	                   if (index(block, name ": ") == 1) { \
	                     gsub(/\n/, "\n                     ", block); \
	                     printf "  make %-14s%s\n", name, substr(block, length(name) + 3) } } \
	     { block = "" }' $(MAKEFILE_LIST)

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "Installing Ponte's dependencies into $(VENV) (2 to 3 minutes the first time)..."
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --progress-bar on -r requirements-dev.txt
	touch $(STAMP)

## migrate: install, then bring the database's tables up to date (first checks the database answers:
## an unreachable one is named in one paragraph, with what to do)
migrate: $(STAMP)
	@$(BIN)/python manage.py preflight $(if $(filter run,$(MAKECMDGOALS)),--port)
	$(BIN)/python manage.py migrate --noinput

## demo: migrate, then load the demo data (account demo, its keys, sessions and webhook)
demo: migrate
	$(BIN)/python manage.py load_demo

# An engine process only when the remote engine is configured (the embedded default hosts sessions in-process).
PROCESSES = web worker beat $(if $(findstring RemoteEngine,$(MESSAGING_ENGINE)),engine)

## run: install, migrate, load demo data, then start web + worker + beat (+ engine) (Ctrl-C stops all).
## Refuses to start when PONTE_PORT (default 8000) is taken. Once this run's own web process answers
## (its PONTE_RUN_TOKEN in /healthz), the demo keys and URLs are printed last, with what is degraded.
#  The demo webhook posts to Ponte's own /demo/webhook, so this run alone allows 127.0.0.1/32 as a
#  webhook target. Honcho prefixes each line with its clock, so the app's lines drop theirs
#  (PONTE_LOG_CLOCK=off). Ctrl-C is how a run ends: honcho stops every process and exits 130, which the
#  recipe (its shell handles INT rather than dying of it) turns into 0, so make reports no error; other
#  statuses stand. When honcho ends another way, the banner's wait ends with it.
run: demo
	trap true INT; \
	export PONTE_RUN_TOKEN="$$($(BIN)/python -c 'import secrets; print(secrets.token_hex(8))')"; \
	export PONTE_LOG_CLOCK="$${PONTE_LOG_CLOCK-off}"; \
	$(BIN)/python manage.py demo_keys --wait 120 & banner=$$!; \
	PONTE_WEBHOOK_ALLOW_NETWORKS="$${PONTE_WEBHOOK_ALLOW_NETWORKS-127.0.0.1/32}" \
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/honcho start -f Procfile $(PROCESSES); \
	status=$$?; kill $$banner 2>/dev/null; if [ $$status -eq 130 ]; then exit 0; fi; exit $$status

## keys: revoke the demo keys and print fresh ones
keys: demo
	$(BIN)/python manage.py demo_keys --fresh

## test: install and run the whole suite
test: $(STAMP)
	# Connections opened by live-server threads would outlive the run and block dropping the test database.
	DB_CONN_MAX_AGE=$${DB_CONN_MAX_AGE:-0} $(BIN)/python -m pytest $(PYTEST_ARGS)

## test-fast: the quick loop: the suite without the live tier (no live server, browser, Celery worker,
## engine or web process, nginx, node, child Python, nor waits on purpose: tests/tiers.py marks those
## `live`), in one pytest-xdist worker per core, each with its own var dir and SQLite test database; it
## keeps the compiled test modules (__pycache__, ignored by git) even where PYTHONDONTWRITEBYTECODE is
## set, which halves the collection of the next run. The whole suite stays `make test`, serial.
test-fast: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -m "not live" -n auto $(PYTEST_ARGS)

## fuzz: schemathesis over every operation of the OpenAPI document, against a live server on the
## configured DATABASE_URL/REDIS_URL, for PONTE_FUZZ_SECONDS (100); non-zero on any failure
fuzz: $(STAMP)
	$(BIN)/python scripts/fuzz.py

## messages: update locale/pt_BR/LC_MESSAGES/django.po from the sources (new texts get an empty
## msgstr to fill in) and compile django.mo; needs GNU gettext (apt-get install gettext). Commit both
## files: a fresh clone runs without gettext (docs/operations.md, "Languages")
messages: $(STAMP)
	$(BIN)/python manage.py makemessages --locale pt_BR --no-location \
		--ignore 'tests/*' --ignore 'clients/*' --ignore 'bench/*' --ignore 'scripts/*' \
		--ignore 'docs/*' --ignore 'var/*' --ignore 'staticfiles/*'
	$(BIN)/python manage.py compilemessages --locale pt_BR

## backup-check: dump a populated database, restore it into a fresh one and prove it works (API key,
## webhook signature, dead-letter resend, session credentials); on DATABASE_URL's PostgreSQL (pg_dump,
## pg_restore) or, without it, SQLite files; prints PASS or FAIL, non-zero on failure (docs/operations.md)
backup-check: $(STAMP)
	$(BIN)/python scripts/backup_check.py

## lint: ruff (check and format), the import contract and the migrations check
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/python manage.py makemigrations --check --dry-run

## format: let ruff fix and format the code
format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## bench: run every bench/ script (speed figures as ratios)
bench: $(STAMP)
	for script in bench/*.py; do $(BIN)/python $$script || exit 1; done

## clean: remove .venv, var/ (databases, demo keys, broker files) and the tool caches
clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
