"""Paths of the tools API (no trailing slashes)."""

from django.urls import path

from agents.apis import ToolCallApi, ToolListApi

urlpatterns = [
    path("", ToolListApi.as_view(), name="tools-list"),
    path("/call", ToolCallApi.as_view(), name="tools-call"),
]
