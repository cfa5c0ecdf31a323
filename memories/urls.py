"""The memory API's contract paths (DESIGN.md section 5), without trailing slashes."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
