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
	@echo "make run      serve the API on http://$(HOST):$(PORT) (embedded PostgreSQL unless DATABASE_URL)"
	@echo "make test     lint, check migrations and run the test suite"
	@echo "make worker   run a Celery worker (needs REDIS_URL)"
	@echo "make beat     run Celery beat (needs REDIS_URL)"
	@echo "make db-stop  stop the embedded PostgreSQL"

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

migrate: install
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py bootstrap_local --host $(HOST) --port $(PORT)
	exec $(VENV)/bin/gunicorn memory_platform.wsgi --config python:memory_platform.gunicorn_conf \
		--bind $(HOST):$(PORT) --workers $(WORKERS) --access-logfile - --graceful-timeout 10

test: install
	$(VENV)/bin/ruff check .
	$(PY) manage.py makemigrations --check --dry-run
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
	@test -x $(PY) && $(PY) -c "from pathlib import Path; \
		from memory_platform.embedded import stop_embedded_postgres; \
		print('stopped' if stop_embedded_postgres(Path('.data/pg')) else 'not running')" || true

clean: db-stop
	rm -rf $(VENV) .data staticfiles .pytest_cache .ruff_cache *.egg-info
