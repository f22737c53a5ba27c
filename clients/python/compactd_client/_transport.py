"""The client's transport pieces: errors in the API's shape, retries and their policy,
and how responses are read. ``client.py`` imports them; ``compactd_client`` exports the
public ones."""

from __future__ import annotations

import email.utils
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional

from ._schema import ErrorIssuesItem

__all__ = ["ApiResponse", "CompactdError", "NO_RETRY", "RetryInfo", "RetryPolicy", "retry_after_seconds"]


class CompactdError(Exception):
    """A 4xx/5xx answer of compactd, with the API's error code, message and issues."""

    def __init__(self, status: int, body: Mapping[str, Any], headers: Mapping[str, str]) -> None:
        self.status: int = status
        #: The stable error code, e.g. ``validation_error``, ``budget_unreachable``, ``rate_limited``.
        self.error: str = str(body.get("error") or f"http_{status}")
        self.message: str = str(body.get("message") or f"HTTP {status}")
        #: For validation errors: each offending field's path and what is wrong with it.
        self.issues: List[ErrorIssuesItem] = list(body.get("issues") or [])
        #: The request id (``x-request-id``), for support.
        self.request_id: Optional[str] = body.get("requestId") or headers.get("x-request-id")
        #: Retry-After in seconds, when the server sent one (429, 503).
        self.retry_after: Optional[float] = retry_after_seconds(headers.get("retry-after"))
        #: The whole body: routes add fields, e.g. ``minimumTokens`` on a 422 ``budget_unreachable``.
        self.body: Dict[str, Any] = dict(body)
        self.headers: Dict[str, str] = dict(headers)
        super().__init__(f"{status} {self.error}: {self.message}")


@dataclass(frozen=True)
class RetryInfo:
    """One retry about to happen."""

    attempt: int  # 1 for the first retry
    status: int  # 429 or 503
    delay: float  # seconds the client waits
    retry_after: Optional[float]  # the server's Retry-After, when it sent one
    method: str
    url: str


@dataclass(frozen=True)
class RetryPolicy:
    """Retries on 429 and 503. The server's Retry-After is waited in full; without one,
    exponential backoff with jitter. A Retry-After over ``max_delay`` is not waited for:
    the error is raised at once."""

    retries: int = 3
    base_delay: float = 0.25
    max_delay: float = 30.0
    on_retry: Optional[Callable[[RetryInfo], None]] = None


NO_RETRY = RetryPolicy(retries=0)


@dataclass(frozen=True)
class ApiResponse:
    """A successful answer: status, headers (lower-case names) and the parsed body."""

    status: int
    headers: Dict[str, str] = field(default_factory=dict)
    data: Any = None


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After in seconds: delay-seconds or an HTTP date (RFC 9110 10.2.3); None when
    absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
        return seconds if seconds >= 0 else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _may_retry(method: str, path: str, headers: Mapping[str, str], status: int) -> bool:
    """A 429 is refused before anything happens. A 503 may come after the database
    committed an append (docs/api.md): an append is retried only with an Idempotency-Key."""
    if status == 429:
        return True
    if status != 503:
        return False
    is_append = method == "POST" and path.rstrip("/").endswith("/messages") and path.startswith("/sessions/")
    return not (is_append and "idempotency-key" not in headers)


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _headers(message: Any) -> Dict[str, str]:
    return {k.lower(): v for k, v in message.items()} if message is not None else {}


def _parse(raw: bytes, content_type: Optional[str]) -> Any:
    if not raw:
        return None
    text = raw.decode("utf-8")
    if content_type and "json" in content_type:
        return json.loads(text)
    return text


def _error_body(status: int, reason: Any, raw: bytes, content_type: Optional[str]) -> Dict[str, Any]:
    """The error body in the API's shape, whatever the server sent (a proxy's HTML page,
    the GET /summary 503 placeholder)."""
    text = raw.decode("utf-8", errors="replace")
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), str) and isinstance(body.get("message"), str):
        return body
    if isinstance(body, dict):
        return {**body, "error": f"http_{status}", "message": f"HTTP {status}: {text[:500]}"}
    return {"error": "unexpected_response", "message": f"HTTP {status} {reason or ''}: {text[:500]}".replace("  ", " ").strip()}
