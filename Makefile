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
	@echo "make test     lint, type-check, check migrations and the OpenAPI schema, check that"
	@echo "              a wheel installs and serves, run the test suite"
	@echo "make worker   run one more Celery worker"
	@echo "make beat     run Celery beat alone"
	@echo "make db-stop  stop the embedded PostgreSQL and Valkey"

# The service with its dev tools, and the Python client (clients/python) that the README's
# agent examples import. Quiet, so that `make run` shows what it serves, not what pip did; a
# change to this recipe (the Makefile) installs again, so an older .venv gets the client too.
$(VENV)/.installed: pyproject.toml clients/python/pyproject.toml Makefile
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing the dependencies into $(VENV)..."
	@$(PY) -m pip install --quiet --upgrade pip
	@$(PY) -m pip install --quiet -e '.[dev]' -e ./clients/python
	@touch $@

install: $(VENV)/.installed

migrate: install
	@$(PY) manage.py migrate --noinput -v 0

# These share one embedded Valkey (cache, rate limit, Celery broker) unless REDIS_URL is set.
run worker beat: export MEMORY_EMBEDDED_REDIS ?= 1

# --bootstrap: the admin login and API key of `bootstrap_local`, printed last, once it answers.
run: migrate
	@exec $(PY) manage.py run_local --host $(HOST) --port $(PORT) --workers $(WORKERS) --bootstrap

test: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m mypy
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) manage.py spectacular --validate --fail-on-warn --file /dev/null
	$(PY) -m testing.wheel_check
	$(VENV)/bin/pytest

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

worker: install
	$(VENV)/bin/celery -A memory_platform worker --loglevel INFO

beat: install
	$(VENV)/bin/celery -A memory_platform beat --loglevel INFO

db-stop:
	@test -x $(PY) && $(PY) manage.py embedded stop || true

clean: db-stop
	rm -rf $(VENV) .data staticfiles .pytest_cache .ruff_cache .mypy_cache *.egg-info
