"""The load and latency benches: seeding, a gunicorn server, an HTTP load client."""
