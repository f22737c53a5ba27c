"""The compactd HTTP client: one method per route, standard library only.

Request and response types come from ``_schema.py``, which is generated from the
service's openapi.yaml. Every method checks its route against ``OPERATIONS`` (the
spec's routes and parameters), so a method cannot drift from the spec unnoticed.
"""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Mapping, Optional, TypeVar, Union, cast

from ._schema import (
    OPERATIONS,
    AppendMessagesRequestInput,
    AppendMessagesResponse,
    ArchivedMessage,
    ArchiveSearch,
    Checkpoint,
    CheckpointPage,
    CompactRequestInput,
    CompactResponse,
    DisplayRequestInput,
    DisplayResponse,
    FormatsResponse,
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
    BreakerReset,
    SessionSummary,
    StrategiesResponse,
    SummaryRefresh,
    SummaryVersion,
    SummaryVersionPage,
)
from ._transport import (
    ApiResponse,
    CompactdError,
    RetryInfo,
    RetryPolicy,
    _error_body,
    _headers,
    _may_retry,
    _parse,
    _query_value,
    retry_after_seconds,
)
from .recall import format_read, format_search, is_recall_tool, read_query, recall_input

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
    def estimate(self, request: EstimateRequestInput, *, perMessage: Optional[bool] = None) -> EstimateResponse:
        """Tokens of a conversation, the model's limits, the threshold and ``shouldCompact``; ``perMessage=False`` leaves the per-message list out."""
        query = {"perMessage": None if perMessage is None else ("true" if perMessage else "false")}
        return cast(EstimateResponse, self._call("POST /estimate", query=query, body=request).data)

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

    @route("POST /sessions/{id}/breaker/reset")
    def reset_breaker(self, session_id: str) -> BreakerReset:
        """Closes the session's compaction circuit breaker and clears its history."""
        return cast(BreakerReset, self._call("POST /sessions/{id}/breaker/reset", path={"id": session_id}).data)

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

    # -- the archive: what compaction dropped, and the recall tools -----------------

    @route("GET /sessions/{id}/search")
    def search(self, session_id: str, q: str, *, limit: Optional[int] = None) -> ArchiveSearch:
        """The archived messages of the session that match ``q``, best first: ref, tool, snippet."""
        return cast(ArchiveSearch, self._call("GET /sessions/{id}/search", path={"id": session_id}, query={"q": q, "limit": limit}).data)

    @route("GET /sessions/{id}/archive/{ref}")
    def read(
        self,
        session_id: str,
        ref: str,
        *,
        format: Optional[str] = None,
        lines: Optional[str] = None,
        grep: Optional[str] = None,
        context: Optional[int] = None,
    ) -> ArchivedMessage:
        """One archived message: whole (``messages``, in ``format``), or the numbered lines
        ``lines="120-180"`` or ``grep=`` select (``text``)."""
        query = {"format": format, "lines": lines, "grep": grep, "context": context}
        return cast(ArchivedMessage, self._call("GET /sessions/{id}/archive/{ref}", path={"id": session_id, "ref": ref}, query=query).data)

    def answer_recall(self, session_id: str, name: str, args: Union[str, Mapping[str, Any], None], *, max_chars: int = 20_000) -> Optional[str]:
        """The text of a recall tool's result (``recall_tools_openai()``,
        ``recall_tools_anthropic()``): the hits of ``search_context``, or what
        ``read_context`` reads. ``args`` is the call's arguments, an object or OpenAI's JSON
        string. None when ``name`` is not a recall tool, so a loop hands every other call to
        its own tools. A mistake of the model's (no query, an unknown ref, a line past the
        end) is answered as text it can act on; other failures raise. A whole message
        longer than ``max_chars`` is cut at a line, saying which lines to read next."""
        if not is_recall_tool(name):
            return None
        inp = recall_input(name, args)
        if isinstance(inp, str):
            return inp
        try:
            if inp.tool == "search_context":
                return format_search(inp.query, self.search(session_id, inp.query, limit=inp.limit))
            return format_read(self.read(session_id, inp.ref, **read_query(inp)), lines=inp.lines, grep=inp.grep, max_chars=max_chars)
        except CompactdError as err:
            if err.status in (400, 404):
                return f"{name} failed: {err.message}"
            raise

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
