import pytest
from django.db import OperationalError

from memories.models import Memory
from recall import checks
from recall.checks import check_embedding_model

pytestmark = pytest.mark.django_db


def test_vectors_of_the_configured_model_raise_no_warning(end_user, remember):
    remember(end_user, "User likes tea", "User likes chess")

    assert check_embedding_model() == []


def test_vectors_of_another_model_raise_a_warning_that_names_reembed(end_user, remember):
    (tea, _) = remember(end_user, "User likes tea", "User likes chess")
    Memory.objects.filter(pk=tea.pk).update(embedding_model="all-MiniLM-L6-v2-onnx-int8")

    (warning,) = check_embedding_model()

    assert warning.id == "recall.W001"
    assert "all-MiniLM-L6-v2-onnx-int8 (1)" in warning.msg
    assert "python manage.py reembed" in warning.hint


def test_an_unreachable_database_is_not_this_checks_failure(monkeypatch):
    def unreachable(**kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(checks, "stored_embedding_models", unreachable)

    assert check_embedding_model() == []
