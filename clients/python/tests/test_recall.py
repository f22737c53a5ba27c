"""The recall tools of the Python client against a real compactd (tests/service.py starts
one): a conversation compacted with a sessionId, what it dropped found with ``search``,
read back with ``read`` and answered as tool results by ``answer_recall``; the tool
definitions, the same as the TypeScript client's."""

from __future__ import annotations

import json
import re
import unittest
from typing import Any, Dict, List, Optional

from compactd_client import RECALL_TOOL_NAMES, Client, CompactdError, RetryPolicy, recall_tools_anthropic, recall_tools_openai
from compactd_client.recall import format_read, format_search, recall_input

from .service import Service

service: Optional[Service] = None
SESSION = "recall-py"
#: The one line that says what is wrong; it is in the output of src/cart/part2.ts only.
FACT = "export const total = (cart: Cart) => cart.items.slice(0, -1).reduce((sum, item) => sum + item.price * item.quantity, 0)"
WORDS = "the scheduler reads each card and writes the review log while the parser checks every token".split()


def setUpModule() -> None:
    global service
    service = Service({"WORKERS": "0"})
    unittest.addModuleCleanup(service.stop)
    service.start()
    messages: List[Dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Find why the checkout total is off by one."},
    ]
    for i in range(12):
        lines = [FACT if i == 2 and n == 40 else f"// src/cart/part{i}.ts:{n + 1} " + " ".join(WORDS[(i * 7 + n + k) % len(WORDS)] for k in range(10)) for n in range(60)]
        call = {"id": f"call_{i}", "type": "function", "function": {"name": "read_file", "arguments": json.dumps({"path": f"src/cart/part{i}.ts"})}}
        messages += [{"role": "assistant", "content": None, "tool_calls": [call]}, {"role": "tool", "tool_call_id": f"call_{i}", "content": "\n".join(lines)}]
    result = client().compact({"model": "gpt-4o", "messages": messages, "targetTokens": 3000, "sessionId": SESSION})
    assert result["archive"]["status"] == "archived", result.get("archive")
    assert "slice(0, -1)" not in json.dumps(result["messages"]), "the compacted messages no longer hold the fact"


def client() -> Client:
    assert service is not None
    return Client(service.url)


class ToolsTest(unittest.TestCase):
    def test_the_definitions_for_openai_and_anthropic(self) -> None:
        openai, anthropic = recall_tools_openai(), recall_tools_anthropic()
        self.assertEqual([t["function"]["name"] for t in openai], list(RECALL_TOOL_NAMES))
        self.assertEqual([t["name"] for t in anthropic], ["search_context", "read_context"])
        self.assertEqual(openai[0]["function"]["parameters"]["required"], ["query"])
        self.assertEqual(list(openai[1]["function"]["parameters"]["properties"]), ["ref", "lines", "grep"])
        self.assertEqual(anthropic[1]["input_schema"], openai[1]["function"]["parameters"])
        recall_tools_openai()[0]["function"]["parameters"]["required"].append("limit")
        self.assertEqual(recall_tools_openai()[0]["function"]["parameters"]["required"], ["query"], "a fresh copy each call")

    def test_arguments_are_checked(self) -> None:
        self.assertEqual(recall_input("search_context", {"query": "x", "limit": 500}).limit, 50)  # type: ignore[union-attr]
        self.assertEqual(recall_input("read_context", '{"ref": "[ref abcdefgh]", "lines": "10 – 20"}').lines, "10-20")  # type: ignore[union-attr]
        self.assertRegex(str(recall_input("search_context", "{")), r"^search_context failed: the arguments are not JSON")


class ArchiveTest(unittest.TestCase):
    def test_search_and_read(self) -> None:
        compactd = client()
        found = compactd.search(SESSION, "where is the cart total computed", limit=3)
        self.assertIn("total", found["terms"])
        hit = found["hits"][0]
        self.assertEqual((hit["role"], hit["toolName"], hit["checkpointNum"], hit["source"]), ("tool", "read_file", 1, "compact"))
        self.assertIn("slice(0, -1)", hit["snippet"])

        whole = compactd.read(SESSION, hit["ref"])
        self.assertEqual((whole["totalLines"], whole["format"]), (60, "openai"))
        self.assertEqual(whole["messages"][0]["tool_call_id"], "call_2")
        self.assertEqual(compactd.read(SESSION, hit["ref"], lines="41")["text"], f"41\t{FACT}")
        grep = compactd.read(SESSION, hit["ref"], grep="SLICE(0", context=1)
        self.assertEqual((grep["matchedLines"], [line.split("\t")[0] for line in grep["text"].split("\n")]), (1, ["40", "41", "42"]))
        self.assertEqual(compactd.read(SESSION, hit["ref"], format="anthropic")["messages"][0]["content"][0]["type"], "tool_result")
        with self.assertRaises(CompactdError) as missing:
            compactd.read(SESSION, "zzzzzzzz")
        self.assertEqual((missing.exception.status, missing.exception.error), (404, "not_found"))

    def test_answer_recall(self) -> None:
        compactd = client()
        self.assertIsNone(compactd.answer_recall(SESSION, "read_file", {"path": "src/cart/part2.ts"}), "not a recall tool")
        found = compactd.answer_recall(SESSION, "search_context", {"query": "cart total", "limit": 2})
        assert found is not None
        head, first = found.split("\n")[:2]
        self.assertRegex(head, r'^[12] archived messages? match(es)? "cart total", best first; read_context\(ref\) reads one:$')
        match = re.match(r"^\[ref ([0-9a-z]{8})\] read_file result \(checkpoint 1\): .*slice\(0, -1\)", first)
        assert match, first
        ref = match.group(1)
        self.assertEqual(compactd.answer_recall(SESSION, "search_context", json.dumps({"query": "cart total", "limit": 2})), found)

        grep = compactd.answer_recall(SESSION, "read_context", {"ref": ref, "grep": "slice(0"})
        assert grep is not None
        self.assertEqual(grep.split("\n")[0], f'[ref {ref}] read_file result (checkpoint 1), 60 lines; 1 matching "slice(0":')
        self.assertEqual([line.split("\t")[0] for line in grep.split("\n")[1:]], ["39", "40", "41", "42", "43"])
        lines = compactd.answer_recall(SESSION, "read_context", {"ref": f"[ref {ref.upper()}]", "lines": "41"})
        self.assertEqual(lines, f"[ref {ref}] read_file result (checkpoint 1), 60 lines; lines 41:\n41\t{FACT}")
        whole = compactd.answer_recall(SESSION, "read_context", {"ref": ref})
        assert whole is not None
        self.assertEqual((len(whole.split("\n")), whole.split("\n")[41]), (61, FACT))
        cut = compactd.answer_recall(SESSION, "read_context", {"ref": ref}, max_chars=1000)
        assert cut is not None
        self.assertRegex(cut.split("\n")[-1], r'^\[cut: lines 1-\d+ of 60 shown; read_context with lines="\d+-\d+" or grep reads more\]$')

        call = next(h for h in compactd.search(SESSION, "part7.ts", limit=5)["hits"] if h["role"] == "assistant")
        pair = compactd.answer_recall(SESSION, "read_context", {"ref": call["ref"]})
        self.assertRegex(pair or "", r'^\[ref \w{8}\] assistant, calling read_file \(checkpoint 1\), 1 line:\nassistant: → read_file\(\{"path": "src/cart/part7\.ts"\}\)\ntool call_7: // src/cart/part7\.ts:1 ')

    def test_the_models_mistakes_are_answered_as_text(self) -> None:
        compactd = client()

        def answer(name: str, args: Any) -> str:
            return compactd.answer_recall(SESSION, name, args) or ""

        self.assertRegex(answer("search_context", {}), r"^search_context failed: give a query")
        self.assertRegex(answer("search_context", {"query": "zebra quokka"}), r'^No archived message matches "zebra quokka"\. Try other words')
        self.assertRegex(answer("read_context", {"ref": "zzzzzzzz"}), r'^read_context failed: no archived message zzzzzzzz in session "recall-py"')
        self.assertRegex(answer("read_context", {"ref": "not a ref"}), r'^read_context failed: params\.ref: "not a ref" is not an archive reference')
        ref = compactd.search(SESSION, "cart total")["hits"][0]["ref"]
        self.assertRegex(answer("read_context", {"ref": ref, "lines": "900-910"}), r"^read_context failed: querystring\.lines: the message has 60 lines")
        self.assertTrue(answer("read_context", {"ref": ref, "grep": "no such text"}).endswith('; 0 matching "no such text":\n(no line matches)'))
        self.assertRegex(compactd.answer_recall("no-such-session", "search_context", {"query": "total"}) or "", r'^search_context failed: no session "no-such-session"')
        with self.assertRaises(OSError):  # compactd unreachable: urllib's URLError, not text for the model
            Client("http://127.0.0.1:9", retry=RetryPolicy(retries=0)).answer_recall(SESSION, "search_context", {"query": "total"})

    def test_format_search_of_anthropic_results(self) -> None:
        hit = {"ref": "abcdefgh", "role": "user", "toolName": "read_file", "snippet": "a\n  b", "score": 1.0, "checkpointNum": 4, "position": 3, "source": "compact"}
        self.assertTrue(format_search("q", {"hits": [hit], "terms": []}).endswith("\n[ref abcdefgh] read_file result (checkpoint 4): a b"))  # type: ignore[list-item]

    def test_format_read_of_parts_and_cuts(self) -> None:
        read: Dict[str, Any] = {"ref": "abcdefgh", "role": "tool", "toolName": "bash", "checkpointNum": 2, "position": 1, "source": "compact", "format": "openai", "totalLines": 1, "redactions": 0}
        parts = {**read, "truncated": False, "messages": [{"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "out"}, {"type": "image_url"}]}]}
        self.assertEqual(format_read(parts), "[ref abcdefgh] bash result (checkpoint 2), 1 line:\nout\n[image_url]")  # type: ignore[arg-type]
        long = {**read, "truncated": False, "messages": [{"role": "tool", "content": "x" * 50}]}
        self.assertTrue(format_read(long, max_chars=10).endswith("\nxxxxxxxxxx\n[cut at 10 of 50 characters, in line 1; grep finds the part you need]"))  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
