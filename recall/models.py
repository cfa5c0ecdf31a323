"""Recall keeps no tables of its own: it reads memories and caches per-user indexes."""
