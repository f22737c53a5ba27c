"""The Python client against a real compactd (tests/service.py starts one): every route,
typed errors, the API key, and retries that honour Retry-After."""

from __future__ import annotations

import http.server
import json
import inspect
import threading
import time
import typing
import unittest
from typing import Any, Dict, List, Optional

from compactd_client import OPERATIONS, Client, CompactdError, RetryInfo, RetryPolicy, retry_after_seconds, types

from .service import Service

service: Optional[Service] = None


def setUpModule() -> None:
    global service
    service = Service({"WORKER_POLL_MS": "100"})
    # Registered first: it runs even when the start fails (tearDownModule would not).
    unittest.addModuleCleanup(service.stop)
    service.start()


def client(**kwargs: Any) -> Client:
    assert service is not None
    return Client(service.url, **kwargs)


def agent_conversation(calls: int, chars: int) -> List[Dict[str, Any]]:
    """A coding agent's conversation (OpenAI format): a task, then tool calls with long results."""
    words = "the scheduler reads each card and writes the review log while the parser checks every token".split()
    messages: List[Dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the failing test in src/db.ts"},
    ]
    for i in range(calls):
        text = " ".join(words[(i * 7 + k) % len(words)] for k in range(chars // 6))
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": f"call_{i}", "type": "function", "function": {"name": "read_file", "arguments": f'{{"path": "src/file{i}.ts"}}'}}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": text})
    messages.append({"role": "assistant", "content": "The pool is closed twice; I removed the afterEach call."})
    messages.append({"role": "user", "content": "Good. Also make close() idempotent."})
    return messages


def exchange(i: int) -> List[Dict[str, Any]]:
    """One exchange: a request, a failing test run, an edit, and the closing message."""
    file = f"src/module{i}.ts"
    return [
        {"role": "user", "content": f"Fix the failing test for {file} (task {i})"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": f"call_{i}", "type": "function", "function": {"name": "bash", "arguments": f'{{"command": "npm test -- {file}"}}'}}]},
        {"role": "tool", "tool_call_id": f"call_{i}", "content": f"FAIL {file}\nError: expected 4 to equal 5 in {file}"},
        {"role": "assistant", "content": f"Fixed {file}: the off-by-one in the total."},
    ]


class RoutesTest(unittest.TestCase):
    def test_every_route_of_the_spec_has_a_method_with_the_spec_types(self) -> None:
        methods = {fn.__compactd_route__: fn for _, fn in inspect.getmembers(Client, inspect.isfunction) if hasattr(fn, "__compactd_route__")}
        self.assertEqual(sorted(methods), sorted(OPERATIONS), "one method per route of openapi.yaml")
        for key, op in OPERATIONS.items():
            fn = methods[key]
            hints = typing.get_type_hints(fn, vars(types))
            success = [name for status, name in op.responses.items() if 200 <= status < 300]
            returned = hints["return"]
            returned_name = "None" if returned is type(None) else getattr(returned, "__name__", str(returned))
            if success[0] != "None":
                self.assertEqual(returned_name, success[0], f"{key} returns {success[0]}")
            params = inspect.signature(fn).parameters
            if op.request:
                self.assertIn(op.request, [getattr(h, "__name__", "") for h in hints.values()], f"{key} takes a {op.request}")
            for name in op.query_params:
                self.assertIn(name, params, f"{key}: query parameter {name}")
            for name in op.header_params:
                self.assertIn(name.replace("-", "_"), params, f"{key}: header {name}")

    def test_health_and_metrics(self) -> None:
        compactd = client()
        self.assertEqual(compactd.healthz(), {"status": "ok"})
        self.assertEqual(compactd.readyz()["status"], "ready")
        self.assertIn("compactd_http_request_duration_seconds", compactd.metrics())

    def test_estimate_compact_checkpoints_stats(self) -> None:
        compactd = client()
        messages = agent_conversation(10, 2500)
        estimate = compactd.estimate({"model": "gpt-4o", "messages": messages})
        self.assertEqual(estimate["format"], "openai")
        self.assertEqual(len(estimate["perMessage"]), len(messages))
        self.assertGreater(estimate["totalTokens"], 3000)

        result = compactd.compact({"model": "gpt-4o", "messages": messages, "targetTokens": 2500, "sessionId": "py-compact"})
        self.assertTrue(result["compacted"])
        self.assertLessEqual(result["event"]["tokensAfter"], 2500)
        self.assertEqual(result["checkpoint"], {"sessionId": "py-compact", "checkpointNum": 1})
        # Every tool call keeps its result.
        calls = {c["id"] for m in result["messages"] for c in (m.get("tool_calls") or [])}
        results = {m["tool_call_id"] for m in result["messages"] if m["role"] == "tool"}
        self.assertEqual(calls, results)

        page = compactd.list_checkpoints("py-compact", limit=10)
        self.assertEqual([c["checkpointNum"] for c in page["items"]], [1])
        self.assertEqual(compactd.get_checkpoint("py-compact", 1)["checkpointNum"], 1)
        self.assertEqual(compactd.get_stats("py-compact")["checkpoints"], 1)

    def test_import_an_agent_log(self) -> None:
        stamp = "2026-11-22T08:00:00.000Z"
        lines = [
            {"type": "session", "version": 3, "id": "pi-1", "timestamp": stamp, "cwd": "/home/dev/blog"},
            {"type": "message", "id": "e1", "parentId": None, "timestamp": stamp, "message": {"role": "user", "content": [{"type": "text", "text": "Add an RSS feed."}]}},
            {"type": "message", "id": "e2", "parentId": "e1", "timestamp": stamp, "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "tc_1", "name": "bash", "arguments": {"command": "ls src/routes"}}]}},
            {"type": "message", "id": "e3", "parentId": "e2", "timestamp": stamp, "message": {"role": "toolResult", "toolCallId": "tc_1", "toolName": "bash", "content": [{"type": "text", "text": "index.ts"}], "isError": False}},
            {"type": "message", "id": "e4", "parentId": "e3", "timestamp": stamp, "message": {"role": "assistant", "content": [{"type": "text", "text": "Adding src/routes/rss.ts."}]}},
        ]
        imported = client().import_log({"log": "\n".join(json.dumps(line) for line in lines) + "\n", "format": "openai"})
        self.assertEqual((imported["source"], imported["detected"], imported["format"]), ("pi", True, "openai"))
        self.assertEqual([m["role"] for m in imported["messages"]], ["user", "assistant", "tool", "assistant"])
        self.assertEqual(imported["messages"][2]["tool_call_id"], imported["messages"][1]["tool_calls"][0]["id"])

    def test_session_lifecycle(self) -> None:
        compactd = client()
        sid = "py-session"
        session = compactd.put_session(sid, {"windowMessages": 4, "batchSize": 1, "system": "You are a coding agent."})
        self.assertEqual(session["id"], sid)
        first = compactd.append_messages(sid, {"messages": exchange(1)}, idempotency_key="append-1")
        self.assertEqual(first["messageCount"], 4)
        again = compactd.append_messages(sid, {"messages": exchange(1)}, idempotency_key="append-1")
        self.assertEqual(again, first, "the same Idempotency-Key appends nothing twice")
        compactd.append_messages(sid, {"messages": exchange(2)})
        self.assertEqual(compactd.get_session(sid)["messageCount"], 8)
        stored = compactd.list_messages(sid, limit=50)
        self.assertEqual(len(stored["items"]), 8)
        self.assertEqual(len(compactd.list_messages(sid, status="window")["items"]), 4)
        self.assertIn(sid, [s["id"] for s in compactd.list_sessions(q="py-sess")["items"]])

        refresh = compactd.refresh_summary(sid)
        self.assertEqual(refresh["priority"], "high")
        # The background worker folds the evicted exchange in (and runs the refresh): wait
        # until nothing is queued any more, so no update races the edit below.
        deadline = time.monotonic() + 60
        summary = compactd.get_summary(sid)
        while (summary["version"] < 1 or summary["update"] is not None or summary["stale"]) and time.monotonic() < deadline:
            time.sleep(0.2)
            summary = compactd.get_summary(sid)
        self.assertGreaterEqual(summary["version"], 1, "the background worker wrote the summary")
        self.assertIsNone(summary["update"], "and has nothing queued")
        self.assertIn("src/module1.ts", summary["text"])

        edited = compactd.put_summary(sid, {"baseVersion": summary["version"], "content": summary["content"] + "\n- Decided to keep one pg.Pool per process\n"})
        self.assertEqual(edited["source"], "manual")
        with self.assertRaises(CompactdError) as conflict:
            compactd.put_summary(sid, {"baseVersion": summary["version"], "content": "stale"})
        self.assertEqual((conflict.exception.status, conflict.exception.error), (409, "version_conflict"))
        self.assertEqual(conflict.exception.body["currentVersion"], edited["version"])

        versions = compactd.list_summary_versions(sid, limit=5)
        self.assertEqual(versions["items"][0]["version"], edited["version"])
        self.assertIn("pg.Pool", compactd.get_summary_version(sid, edited["version"])["content"])

        context = compactd.get_context(sid, budget=4000, format="anthropic")
        self.assertEqual(context["format"], "anthropic")
        self.assertLessEqual(context["tokens"], 4000)
        self.assertTrue(compactd.get_continuation(sid)["prompt"].startswith("[Previous Session Context]"))

        self.assertIsNone(compactd.delete_session(sid))
        with self.assertRaises(CompactdError) as gone:
            compactd.get_session(sid)
        self.assertEqual(gone.exception.status, 404)


class ErrorsTest(unittest.TestCase):
    def test_errors_are_raised_typed(self) -> None:
        compactd = client()
        with self.assertRaises(CompactdError) as both:
            compactd.compact({"messages": [], "keepRecent": 2, "keepRecentTokens": 100})
        err = both.exception
        self.assertEqual((err.status, err.error), (400, "validation_error"))
        self.assertEqual(err.issues, [{"path": "body.keepRecentTokens", "message": "mutually exclusive with keepRecent"}])
        self.assertTrue(err.request_id)

        with self.assertRaises(CompactdError) as tiny:
            compactd.compact({"model": "gpt-4o", "messages": agent_conversation(6, 2000), "targetTokens": 20})
        self.assertEqual((tiny.exception.status, tiny.exception.error), (422, "budget_unreachable"))
        self.assertIn("cannot fit 20 tokens", tiny.exception.message)
        self.assertIsInstance(tiny.exception.body["minimumTokens"], int, "the route's extra fields stay on body")

        with self.assertRaises(CompactdError) as unknown:
            compactd.estimate({"messages": [], "summarizer": "x"})  # type: ignore[typeddict-unknown-key]
        self.assertEqual([i["path"] for i in unknown.exception.issues], ["body.summarizer"])

    def test_an_unexpected_body_still_has_the_api_shape(self) -> None:
        """What a gateway in between may send (an HTML page) is raised in the API's shape."""

        class Gateway(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = b"<html><h1>502 Bad Gateway</h1></html>"
                self.send_response(502)
                self.send_header("content-type", "text/html")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Gateway)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with self.assertRaises(CompactdError) as bad:
                Client(f"http://127.0.0.1:{server.server_address[1]}").readyz()
            self.assertEqual((bad.exception.status, bad.exception.error), (502, "unexpected_response"))
            self.assertIn("502 Bad Gateway", bad.exception.message)
        finally:
            server.shutdown()
            server.server_close()

    def test_retry_after_is_seconds_or_an_http_date(self) -> None:
        now = 1795521600.0  # Tue, 24 Nov 2026 12:00:00 GMT
        self.assertEqual(retry_after_seconds("5", now), 5.0)
        self.assertEqual(retry_after_seconds("0.5", now), 0.5)
        self.assertEqual(retry_after_seconds("Tue, 24 Nov 2026 12:00:07 GMT", now), 7.0)
        self.assertEqual(retry_after_seconds("Tue, 24 Nov 2026 11:00:00 GMT", now), 0.0)
        self.assertIsNone(retry_after_seconds("soon", now))
        self.assertIsNone(retry_after_seconds(None, now))


HELLO: types.EstimateRequestInput = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hello"}]}


class KeyAndRateLimitTest(unittest.TestCase):
    """A second compactd with an API key and a rate limit of 2 requests a second per key."""

    keyed: Service
    key: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.keyed = Service({"RATE_LIMIT_MAX": "2", "RATE_LIMIT_WINDOW_MS": "1000", "WORKERS": "0"})
        # Registered first: it runs even when the rest of setUpClass fails (tearDownClass would not).
        cls.addClassCleanup(cls.keyed.stop)
        cls.keyed.start()
        # Through the running service's admin socket, as `npm run key:create` does.
        cls.key = cls.keyed.run_cli(["src/cli/key-create.ts", "--tenant", "acme"]).strip()

    def setUp(self) -> None:
        time.sleep(1.1)  # a fresh rate-limit window

    def test_the_key_is_sent_and_without_it_a_401_is_raised(self) -> None:
        with self.assertRaises(CompactdError) as anonymous:
            Client(self.keyed.url).get_session("s")
        self.assertEqual((anonymous.exception.status, anonymous.exception.error), (401, "unauthorized"))
        self.assertEqual(Client(self.keyed.url, api_key=self.key).put_session("s", {})["id"], "s")

    def test_429_waits_the_retry_after_then_succeeds(self) -> None:
        retries: List[RetryInfo] = []
        compactd = Client(self.keyed.url, api_key=self.key, retry=RetryPolicy(retries=3, on_retry=retries.append))
        # Past 2 requests in the window: the next one is a 429, retried after its Retry-After.
        for _ in range(10):
            started = time.monotonic()
            answer = compactd.estimate(HELLO)
            waited = time.monotonic() - started
            self.assertGreater(answer["totalTokens"], 0, "every request (the retried one with its body) succeeds")
            if retries:
                break
        self.assertEqual(len(retries), 1, "one retry")
        retry = retries[0]
        self.assertEqual((retry.attempt, retry.status, retry.method), (1, 429, "POST"))
        self.assertEqual(retry.retry_after, 1.0, "the server's Retry-After")
        self.assertEqual(retry.delay, retry.retry_after, "is what the client waits")
        self.assertGreaterEqual(waited, retry.delay)

    def test_429_without_retries_is_raised_with_its_retry_after(self) -> None:
        compactd = Client(self.keyed.url, api_key=self.key, retry=RetryPolicy(retries=0))
        err = self.first_429(compactd)
        self.assertEqual((err.status, err.error, err.retry_after), (429, "rate_limited", 1.0))
        self.assertEqual(err.body["retryAfterSeconds"], 1)
        self.assertIn("Retry-After", err.message)

    def test_a_retry_after_over_max_delay_is_not_waited_for(self) -> None:
        retries: List[RetryInfo] = []
        compactd = Client(self.keyed.url, api_key=self.key, retry=RetryPolicy(max_delay=0.5, on_retry=retries.append))
        self.assertEqual(self.first_429(compactd).status, 429)
        self.assertEqual(retries, [], "raised without a retry")

    def first_429(self, compactd: Client) -> CompactdError:
        for _ in range(10):
            try:
                compactd.estimate(HELLO)
            except CompactdError as err:
                return err
        self.fail("no 429 after 10 requests at a limit of 2 a second")


if __name__ == "__main__":
    unittest.main()
