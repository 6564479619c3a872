# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint format migrate demo bench fuzz clean

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

migrate: $(STAMP)
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	$(BIN)/python manage.py load_demo

# An engine process only when the remote engine is configured (the embedded default hosts sessions in-process).
PROCESSES = web worker beat $(if $(findstring RemoteEngine,$(MESSAGING_ENGINE)),engine)

## run: install, migrate, load demo data, then start web + worker + beat (+ engine) (Ctrl-C stops all)
run: demo
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/honcho start -f Procfile $(PROCESSES)

## test: install and run the whole suite
test: $(STAMP)
	# Connections opened by live-server threads would outlive the run and block dropping the test database.
	DB_CONN_MAX_AGE=$${DB_CONN_MAX_AGE:-0} $(BIN)/python -m pytest $(PYTEST_ARGS)

## fuzz: schemathesis over every operation of the OpenAPI document, against a live server on the
## configured DATABASE_URL/REDIS_URL, for PONTE_FUZZ_SECONDS (100); non-zero on any failure
fuzz: $(STAMP)
	$(BIN)/python scripts/fuzz.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python manage.py makemigrations --check --dry-run

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP)
	for script in bench/*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
