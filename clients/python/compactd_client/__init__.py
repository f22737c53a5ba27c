"""compactd_client: a typed client for the compactd HTTP API, standard library only.

    from compactd_client import Client, CompactdError

    compactd = Client("http://127.0.0.1:3000")
    estimate = compactd.estimate({"model": "gpt-4o", "messages": messages})
    if estimate["shouldCompact"]:
        messages = compactd.compact({"model": "gpt-4o", "messages": messages})["messages"]

Every route of the API has a method. Request and response types (TypedDicts) are
generated from the service's openapi.yaml into ``compactd_client.types``; errors are
raised as ``CompactdError`` with the API's ``error``, ``message`` and ``issues``; 429 and
503 are retried, honouring Retry-After (``RetryPolicy``).
"""

from . import _schema as types
from ._schema import OPERATIONS, Operation
from .client import ApiResponse, Client, CompactdError, RetryInfo, RetryPolicy, retry_after_seconds

__all__ = [
    "ApiResponse",
    "Client",
    "CompactdError",
    "OPERATIONS",
    "Operation",
    "RetryInfo",
    "RetryPolicy",
    "retry_after_seconds",
    "types",
]
__version__ = "0.1.0"
