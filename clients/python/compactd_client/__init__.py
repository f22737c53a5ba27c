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

What compaction drops is archived under its ``sessionId``: ``search`` and ``read`` reach
it, and the recall tools give it back to a model in a loop:

    tools = [*my_tools, *recall_tools_openai()]
    ...
    out = compactd.answer_recall(session_id, call.function.name, call.function.arguments)
    if out is not None:
        messages.append({"role": "tool", "tool_call_id": call.id, "content": out})
"""

from . import _schema as types
from ._schema import OPERATIONS, Operation
from .client import ApiResponse, Client, CompactdError, RetryInfo, RetryPolicy, retry_after_seconds
from .recall import RECALL_TOOL_NAMES, recall_tools_anthropic, recall_tools_openai

__all__ = [
    "ApiResponse",
    "Client",
    "CompactdError",
    "OPERATIONS",
    "Operation",
    "RECALL_TOOL_NAMES",
    "RetryInfo",
    "RetryPolicy",
    "recall_tools_anthropic",
    "recall_tools_openai",
    "retry_after_seconds",
    "types",
]
__version__ = "0.1.0"
