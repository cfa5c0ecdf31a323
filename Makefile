# A fresh clone needs only `make run` (serve the API) or `make test` (run the test suite).

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
WORKERS ?= 2

.DEFAULT_GOAL := help
.PHONY: help install run test lint format migrate worker beat db-stop clean

help:
	@echo "make run      serve the API on http://$(HOST):$(PORT) with a Celery worker and beat"
	@echo "              (embedded PostgreSQL and Valkey unless DATABASE_URL / REDIS_URL)"
	@echo "make test     lint, check migrations and the OpenAPI schema, run the test suite"
	@echo "make worker   run one more Celery worker"
	@echo "make beat     run Celery beat alone"
	@echo "make db-stop  stop the embedded PostgreSQL and Valkey"

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

migrate: install
	$(PY) manage.py migrate --noinput

# These share one embedded Valkey (cache, rate limit, Celery broker) unless REDIS_URL is set.
run worker beat: export MEMORY_EMBEDDED_REDIS ?= 1

run: migrate
	$(PY) manage.py bootstrap_local --host $(HOST) --port $(PORT)
	exec $(PY) manage.py run_local --host $(HOST) --port $(PORT) --workers $(WORKERS)

test: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) manage.py spectacular --validate --fail-on-warn --file /dev/null
	$(VENV)/bin/pytest

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

worker: install
	$(VENV)/bin/celery -A config worker --loglevel INFO

beat: install
	$(VENV)/bin/celery -A config beat --loglevel INFO

db-stop:
	@test -x $(PY) && $(PY) manage.py embedded stop || true

clean: db-stop
	rm -rf $(VENV) .data staticfiles .pytest_cache .ruff_cache *.egg-info
