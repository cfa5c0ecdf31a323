"""A Python client of the memory platform: MemoryClient (sync) and AsyncMemoryClient (asyncio)."""

from ._async import AsyncMemoryClient
from ._client import MemoryClient
from ._core import VERSION as __version__
from ._errors import (
    APIConnectionError,
    AuthenticationError,
    MemoryPlatformError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ValidationError,
)
from ._models import (
    Context,
    ContextMemory,
    ErasureReceipt,
    Extraction,
    FullMemories,
    FullMemory,
    Health,
    Job,
    ListedMemory,
    MemoryPage,
    Message,
    QueuedJob,
    RelevantMemories,
    RelevantMemory,
    SavedMemory,
)
from ._retry import RetryPolicy

__all__ = [
    "APIConnectionError",
    "AsyncMemoryClient",
    "AuthenticationError",
    "Context",
    "ContextMemory",
    "ErasureReceipt",
    "Extraction",
    "FullMemories",
    "FullMemory",
    "Health",
    "Job",
    "ListedMemory",
    "MemoryClient",
    "MemoryPage",
    "MemoryPlatformError",
    "Message",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "QueuedJob",
    "RateLimitError",
    "RelevantMemories",
    "RelevantMemory",
    "RetryPolicy",
    "SavedMemory",
    "ServerError",
    "ValidationError",
    "__version__",
]
