"""Paths of the erasure API, at the root (no trailing slashes)."""

from django.urls import path

from memories.apis_erasure import AgentSessionEraseApi, EndUserEraseApi

urlpatterns = [
    # `path`: a user id may hold a slash ("team/alice"): any printable character is allowed.
    path("users/<path:user_id>", EndUserEraseApi.as_view(), name="users-erase"),
    # `path`: a session id may hold a slash, as POST /memories/extract accepts it.
    path("sessions/<path:session_id>", AgentSessionEraseApi.as_view(), name="sessions-erase"),
]
