"""The compactd HTTP client: one method per route, standard library only.

Request and response types come from ``_schema.py``, which is generated from the
service's openapi.yaml. Every method checks its route against ``OPERATIONS`` (the
spec's routes and parameters), so a method cannot drift from the spec unnoticed.
"""

from __future__ import annotations

import email.utils
import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, TypeVar, cast

from ._schema import (
    OPERATIONS,
    AppendMessagesRequestInput,
    AppendMessagesResponse,
    Checkpoint,
    CheckpointPage,
    CompactRequestInput,
    CompactResponse,
    DisplayRequestInput,
    DisplayResponse,
    FormatsResponse,
    ErrorIssuesItem,
    EstimateRequestInput,
    EstimateResponse,
    HealthzResponse,
    ImportRequestInput,
    ImportResponse,
    PutSessionSummaryResponse,
    PutSummaryRequestInput,
    ReadyzResponse,
    Session,
    SessionContext,
    SessionContinuation,
    SessionList,
    SessionMessagePage,
    SessionSettingsRequestInput,
    SessionStats,
    SessionSummary,
    StrategiesResponse,
    SummaryRefresh,
    SummaryVersion,
    SummaryVersionPage,
)

__all__ = ["ApiResponse", "Client", "CompactdError", "RetryInfo", "RetryPolicy", "retry_after_seconds"]

F = TypeVar("F", bound=Callable[..., Any])


def route(key: str) -> Callable[[F], F]:
    """Marks a method as the client's call of one route of OPERATIONS ("METHOD /path")."""
    if key not in OPERATIONS:
        raise LookupError(f"{key} is not a route of openapi.yaml")

    def mark(fn: F) -> F:
        fn.__compactd_route__ = key  # type: ignore[attr-defined]
        return fn

    return mark


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


class Client:
    """A client for every route of compactd.

    >>> compactd = Client("http://127.0.0.1:3000", api_key=os.environ.get("COMPACTD_API_KEY"))
    >>> compactd.estimate({"model": "gpt-4o", "messages": messages})["shouldCompact"]
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: Optional[str] = None,
        retry: RetryPolicy = RetryPolicy(),
        timeout: float = 120.0,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.retry = retry
        self.timeout = timeout
        self.headers = dict(headers or {})

    # -- health ---------------------------------------------------------------------

    @route("GET /metrics")
    def metrics(self) -> str:
        """Prometheus metrics, as text."""
        return cast(str, self._call("GET /metrics").data)

    @route("GET /healthz")
    def healthz(self) -> HealthzResponse:
        return cast(HealthzResponse, self._call("GET /healthz").data)

    @route("GET /readyz")
    def readyz(self) -> ReadyzResponse:
        """Ready: the database answers and migrations are applied (else a 503 CompactdError)."""
        return cast(ReadyzResponse, self._call("GET /readyz").data)

    # -- tokens and compaction ------------------------------------------------------

    @route("POST /estimate")
    def estimate(self, request: EstimateRequestInput) -> EstimateResponse:
        """Tokens of a conversation, the model's limits, the threshold and ``shouldCompact``."""
        return cast(EstimateResponse, self._call("POST /estimate", body=request).data)

    @route("GET /strategies")
    def strategies(self) -> StrategiesResponse:
        """The compaction strategies ``strategy`` accepts, the default pipeline, and the pipelines a menu offers."""
        return cast(StrategiesResponse, self._call("GET /strategies").data)

    @route("POST /compact")
    def compact(self, request: CompactRequestInput) -> CompactResponse:
        """The conversation compacted to ``targetTokens`` (default: the threshold)."""
        return cast(CompactResponse, self._call("POST /compact", body=request).data)

    @route("POST /import")
    def import_log(self, request: ImportRequestInput) -> ImportResponse:
        """An agent's session log (Claude Code, Codex CLI, Gemini CLI, pi, SWE-agent) as
        messages, with the compactions the log records."""
        return cast(ImportResponse, self._call("POST /import", body=request).data)

    @route("POST /display")
    def display(self, request: DisplayRequestInput) -> DisplayResponse:
        """Messages of any format in one display form: role, text, tool calls and results."""
        return cast(DisplayResponse, self._call("POST /display", body=request).data)

    @route("GET /formats")
    def formats(self) -> FormatsResponse:
        """The message formats the server reads and writes (``format``), with their labels."""
        return cast(FormatsResponse, self._call("GET /formats").data)

    @route("GET /sessions/{id}/checkpoints")
    def list_checkpoints(self, session_id: str, *, cursor: Optional[str] = None, limit: Optional[int] = None) -> CheckpointPage:
        return cast(CheckpointPage, self._call("GET /sessions/{id}/checkpoints", path={"id": session_id}, query={"cursor": cursor, "limit": limit}).data)

    @route("GET /sessions/{id}/checkpoints/{num}")
    def get_checkpoint(self, session_id: str, num: int) -> Checkpoint:
        return cast(Checkpoint, self._call("GET /sessions/{id}/checkpoints/{num}", path={"id": session_id, "num": num}).data)

    @route("GET /sessions/{id}/stats")
    def get_stats(self, session_id: str) -> SessionStats:
        return cast(SessionStats, self._call("GET /sessions/{id}/stats", path={"id": session_id}).data)

    # -- sessions -------------------------------------------------------------------

    @route("GET /sessions")
    def list_sessions(
        self,
        *,
        q: Optional[str] = None,
        sort: Optional[str] = None,
        order: Optional[str] = None,
        cursor: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> SessionList:
        query = {"q": q, "sort": sort, "order": order, "cursor": cursor, "limit": limit}
        return cast(SessionList, self._call("GET /sessions", query=query).data)

    @route("PUT /sessions/{id}")
    def put_session(self, session_id: str, settings: SessionSettingsRequestInput) -> Session:
        """Creates the session or updates its settings."""
        return cast(Session, self._call("PUT /sessions/{id}", path={"id": session_id}, body=settings).data)

    @route("GET /sessions/{id}")
    def get_session(self, session_id: str) -> Session:
        return cast(Session, self._call("GET /sessions/{id}", path={"id": session_id}).data)

    @route("DELETE /sessions/{id}")
    def delete_session(self, session_id: str) -> None:
        """Deletes the session: messages, summaries, checkpoints and queued work."""
        self._call("DELETE /sessions/{id}", path={"id": session_id})

    @route("GET /sessions/{id}/messages")
    def list_messages(
        self, session_id: str, *, status: Optional[str] = None, cursor: Optional[str] = None, limit: Optional[int] = None
    ) -> SessionMessagePage:
        """The session's stored messages, oldest first; ``status="window"`` for the recent window."""
        query = {"status": status, "cursor": cursor, "limit": limit}
        return cast(SessionMessagePage, self._call("GET /sessions/{id}/messages", path={"id": session_id}, query=query).data)

    @route("POST /sessions/{id}/messages")
    def append_messages(
        self, session_id: str, request: AppendMessagesRequestInput, *, idempotency_key: Optional[str] = None
    ) -> AppendMessagesResponse:
        """Appends messages. With an ``idempotency_key`` a retry appends nothing twice; a 503
        is retried only then (the append may have been stored)."""
        headers = {"idempotency-key": idempotency_key}
        return cast(AppendMessagesResponse, self._call("POST /sessions/{id}/messages", path={"id": session_id}, body=request, headers=headers).data)

    @route("GET /sessions/{id}/summary")
    def get_summary(self, session_id: str) -> SessionSummary:
        return cast(SessionSummary, self._call("GET /sessions/{id}/summary", path={"id": session_id}).data)

    @route("PUT /sessions/{id}/summary")
    def put_summary(self, session_id: str, request: PutSummaryRequestInput) -> PutSessionSummaryResponse:
        """Replaces the summary by hand; ``baseVersion`` makes it a compare-and-set (409 on conflict)."""
        return cast(PutSessionSummaryResponse, self._call("PUT /sessions/{id}/summary", path={"id": session_id}, body=request).data)

    @route("POST /sessions/{id}/summary/refresh")
    def refresh_summary(self, session_id: str) -> SummaryRefresh:
        """Queues a summary update now, at high priority."""
        return cast(SummaryRefresh, self._call("POST /sessions/{id}/summary/refresh", path={"id": session_id}).data)

    @route("GET /sessions/{id}/summary/versions")
    def list_summary_versions(self, session_id: str, *, cursor: Optional[str] = None, limit: Optional[int] = None) -> SummaryVersionPage:
        query = {"cursor": cursor, "limit": limit}
        return cast(SummaryVersionPage, self._call("GET /sessions/{id}/summary/versions", path={"id": session_id}, query=query).data)

    @route("GET /sessions/{id}/summary/versions/{version}")
    def get_summary_version(self, session_id: str, version: int) -> SummaryVersion:
        path = {"id": session_id, "version": version}
        return cast(SummaryVersion, self._call("GET /sessions/{id}/summary/versions/{version}", path=path).data)

    @route("GET /sessions/{id}/context")
    def get_context(
        self, session_id: str, *, budget: Optional[int] = None, format: Optional[str] = None, model: Optional[str] = None
    ) -> SessionContext:
        """What to send to the model now: system, summary and recent window, within ``budget``."""
        query = {"budget": budget, "format": format, "model": model}
        return cast(SessionContext, self._call("GET /sessions/{id}/context", path={"id": session_id}, query=query).data)

    @route("GET /sessions/{id}/continuation")
    def get_continuation(self, session_id: str) -> SessionContinuation:
        return cast(SessionContinuation, self._call("GET /sessions/{id}/continuation", path={"id": session_id}).data)

    # -- transport ------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, Optional[str]]] = None,
    ) -> ApiResponse:
        """Any request (``path`` already filled in), with the client's key, retries and errors."""
        url = self.base_url + path
        pairs = [(k, _query_value(v)) for k, v in (query or {}).items() if v is not None]
        if pairs:
            url += "?" + urllib.parse.urlencode(pairs)
        sent: Dict[str, str] = {"accept": "application/json", **{k.lower(): v for k, v in self.headers.items()}}
        if self.api_key is not None:
            sent["authorization"] = f"Bearer {self.api_key}"
        for k, v in (headers or {}).items():
            if v is not None:
                sent[k.lower()] = v
        data = None
        if body is not None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            sent["content-type"] = "application/json"
        attempt = 0
        while True:
            try:
                with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=sent, method=method), timeout=self.timeout) as res:
                    return ApiResponse(res.status, _headers(res.headers), _parse(res.read(), res.headers.get("content-type")))
            except urllib.error.HTTPError as http_error:
                status, reason = http_error.code, http_error.reason
                err_headers = _headers(http_error.headers)
                raw = http_error.read()
                http_error.close()
            error = CompactdError(status, _error_body(status, reason, raw, err_headers.get("content-type")), err_headers)
            delay = self._retry_delay(attempt, method, path, sent, error)
            if delay is None:
                raise error
            attempt += 1
            if self.retry.on_retry:
                self.retry.on_retry(RetryInfo(attempt, status, delay, error.retry_after, method, url))
            time.sleep(delay)

    def _retry_delay(self, attempt: int, method: str, path: str, headers: Mapping[str, str], error: CompactdError) -> Optional[float]:
        """Seconds to wait before retrying, or None to raise."""
        if attempt >= self.retry.retries or not _may_retry(method, path, headers, error.status):
            return None
        if error.retry_after is not None:
            return error.retry_after if error.retry_after <= self.retry.max_delay else None
        backoff = min(self.retry.max_delay, self.retry.base_delay * 2**attempt)
        return backoff / 2 + random.random() * backoff / 2

    def _call(
        self,
        key: str,
        *,
        path: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, Optional[str]]] = None,
        body: Any = None,
    ) -> ApiResponse:
        """One route of OPERATIONS, its parameters checked against the spec's."""
        op = OPERATIONS[key]
        given = dict(path or {})
        if set(given) != set(op.path_params):
            raise TypeError(f"{key}: path parameters {sorted(given)} are not {sorted(op.path_params)}")
        for name, params in (("query", query), ("header", headers)):
            known = op.query_params if name == "query" else op.header_params
            unknown = set(params or {}) - set(known)
            if unknown:
                raise TypeError(f"{key}: unknown {name} parameters {sorted(unknown)}")
        if (body is not None) != (op.request is not None):
            raise TypeError(f"{key}: {'needs' if op.request else 'takes no'} body")
        url_path = op.path
        for name, value in given.items():
            url_path = url_path.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
        return self.request(op.method, url_path, query=query, body=body, headers=headers)


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
