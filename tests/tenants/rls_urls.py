"""Probes of the walls: views that make a deliberately unscoped query (`Memory.objects.all()`)
and answer what it saw; an API view behind the key's tenant, an admin page behind the
operator's."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, JsonResponse
from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.models import Memory


def _captions() -> list[str]:
    return sorted(Memory.objects.all().values_list("caption", flat=True))


class UnscopedApi(APIView):
    def get(self, request: Request) -> Response:
        return Response({"captions": _captions()})


@staff_member_required
def unscoped_admin_page(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"captions": _captions()})


urlpatterns = [
    path("probe/unscoped", UnscopedApi.as_view()),
    path("admin/probe/unscoped", unscoped_admin_page),
    path("admin/", admin.site.urls),
]
