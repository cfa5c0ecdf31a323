"""The path of the MCP endpoint, mounted at /mcp (no trailing slash)."""

from django.urls import path

from agents.mcp.http import McpApi

urlpatterns = [
    path("", McpApi.as_view(), name="mcp"),
]
