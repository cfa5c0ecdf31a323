FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    MEMORY_DATA_DIR=/app/.data \
    DJANGO_STATIC_ROOT=/app/staticfiles

WORKDIR /app
COPY pyproject.toml README.md ./
COPY memory_platform ./memory_platform
# The wiring's old name (re-exports), for start commands written before the rename.
COPY config ./config
COPY core ./core
COPY tenants ./tenants
COPY integrations ./integrations
COPY memories ./memories
COPY extraction ./extraction
COPY recall ./recall
COPY agents ./agents
COPY templates ./templates
COPY manage.py ./
RUN pip install --no-cache-dir -e . \
    && useradd --create-home --uid 1000 app \
    && mkdir -p /app/.data /app/staticfiles && chown -R app /app
USER app

EXPOSE 8000
# The same command `make run` serves with; compose overrides it for the worker and beat.
CMD ["gunicorn", "memory_platform.wsgi", "--config", "python:memory_platform.gunicorn_conf", "--bind", "0.0.0.0:8000", "--workers", "2"]
