"""The rule for an end user's id (`user_id`), defined once for the column, the API fields,
the tool schemas and the MCP server."""

from __future__ import annotations

import uuid

# An end user's id as the agent keeps it: any 1-128 printable characters ("alice",
# "tg:12345", a UUID). The one definition: the column, the API fields and the tool schemas.
USER_ID_MAX_LENGTH = 128
# Printable: no control character (C0, DEL, C1), which would hide in logs and the admin.
USER_ID_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]+$"
# The same rule as a JSON schema (tool parameters, path parameters).
USER_ID_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": USER_ID_MAX_LENGTH,
    "pattern": USER_ID_PATTERN,
}


def user_id_normal(value: str) -> str:
    """A user id as stored: a UUID in its one canonical form (as when the column was a UUID,
    so "ABC..." and "abc..." stay one user), any other id exactly as given."""
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return value
