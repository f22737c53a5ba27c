"""The recall tools: what compaction dropped from a conversation with a ``sessionId`` is
in compactd's archive, and a model gets it back through two tools that compactd answers.

    search_context {query, limit?}       GET /sessions/{id}/search
    read_context   {ref, lines?, grep?}  GET /sessions/{id}/archive/{ref}

Here: their definitions for OpenAI Chat (``recall_tools_openai``) and Anthropic Messages
(``recall_tools_anthropic``), the arguments of a call checked (``recall_input``) and the
text of a result (``format_search``, ``format_read``). ``Client.answer_recall`` puts them
together; the TypeScript client's ``recall.ts`` says the same in the same words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Union

from ._schema import ArchivedMessage, ArchiveSearch

__all__ = [
    "RECALL_TOOL_NAMES",
    "RecallInput",
    "format_read",
    "format_search",
    "is_recall_tool",
    "recall_input",
    "recall_tools_anthropic",
    "recall_tools_openai",
]

RECALL_TOOL_NAMES = ("search_context", "read_context")

#: Lines of context ``read_context`` shows around each ``grep`` match.
GREP_CONTEXT = 2

_TOOLS: Dict[str, Dict[str, Any]] = {
    "search_context": {
        "description": (
            "Search what compaction dropped from this conversation: earlier tool outputs, messages and tool calls, kept in an archive. "
            "Use it when the summary or a [ref …] marker points to something whose exact text you need. "
            "Returns the best matches, each with its ref and a snippet; read_context(ref) reads one."
        ),
        "properties": {
            "query": {"type": "string", "description": "What to look for: file names, identifiers, error messages, or a short question."},
            "limit": {"type": "integer", "description": "How many matches to return (default 5).", "minimum": 1, "maximum": 50},
        },
        "required": ["query"],
    },
    "read_context": {
        "description": (
            "Read one archived message back by its ref (from a [ref …] marker, the summary or a search_context match): "
            "its whole text, or only some of its lines, numbered."
        ),
        "properties": {
            "ref": {"type": "string", "description": "The 8-character reference, e.g. 7hq2k9xa."},
            "lines": {"type": "string", "description": 'Only these lines, 1-based and inclusive: "120-180", or "120" for one.'},
            "grep": {
                "type": "string",
                "description": f"Only the lines containing this text (case-insensitive, not a pattern), numbered, with {GREP_CONTEXT} lines around each.",
            },
        },
        "required": ["ref"],
    },
}


def _schema(name: str) -> Dict[str, Any]:
    spec = _TOOLS[name]
    return {"type": "object", "properties": json.loads(json.dumps(spec["properties"])), "required": list(spec["required"]), "additionalProperties": False}


def recall_tools_openai() -> List[Dict[str, Any]]:
    """The recall tools for OpenAI Chat Completions' ``tools``."""
    return [{"type": "function", "function": {"name": n, "description": _TOOLS[n]["description"], "parameters": _schema(n)}} for n in RECALL_TOOL_NAMES]


def recall_tools_anthropic() -> List[Dict[str, Any]]:
    """The recall tools for Anthropic Messages' ``tools``."""
    return [{"name": n, "description": _TOOLS[n]["description"], "input_schema": _schema(n)} for n in RECALL_TOOL_NAMES]


def is_recall_tool(name: str) -> bool:
    return name in RECALL_TOOL_NAMES


@dataclass(frozen=True)
class RecallInput:
    """A recall tool call's arguments, checked."""

    tool: str
    query: str = ""
    limit: Optional[int] = None
    ref: str = ""
    lines: Optional[str] = None
    grep: Optional[str] = None


def recall_input(name: str, args: Union[str, Mapping[str, Any], None]) -> Union[RecallInput, str]:
    """A call's arguments (an object, or the JSON string OpenAI sends), checked; a string
    is the text to answer the model with instead."""
    value: Any = args
    if isinstance(args, str):
        try:
            value = json.loads(args) if args.strip() else {}
        except ValueError:
            return f"{name} failed: the arguments are not JSON: {args[:200]}"
    a: Mapping[str, Any] = value if isinstance(value, Mapping) else {}

    def text(key: str) -> Optional[str]:
        v = a.get(key)
        if isinstance(v, str) and v.strip():
            return v.strip()
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return str(v)
        return None

    if name == "search_context":
        query = text("query")
        if query is None:
            return 'search_context failed: give a query, e.g. {"query": "the error of the last test run"}.'
        limit: Optional[int] = None
        if a.get("limit") is not None:
            try:
                limit = min(50, max(1, round(float(a["limit"]))))
            except (TypeError, ValueError, OverflowError):
                limit = None
        return RecallInput(tool=name, query=query, limit=limit)
    ref = text("ref")
    if ref is not None:
        ref = re.sub(r"^\[?ref\s+|\]$", "", ref, flags=re.I)
    if not ref:
        return 'read_context failed: give the ref of an archived message, e.g. {"ref": "7hq2k9xa"}.'
    lines = text("lines")
    if lines is not None:
        lines = re.sub(r"[–—:]", "-", re.sub(r"\s+", "", lines), count=1)
    return RecallInput(tool=name, ref=ref, lines=lines, grep=text("grep"))


def _label(m: Mapping[str, Any]) -> str:
    """``read_file result (checkpoint 2)``: what a hit or a read is, in a few words. A
    message with a tool name is a call (assistant) or results (a ``tool`` message; in
    Anthropic's format, a ``user`` message of tool_result blocks)."""
    role, tool = m["role"], m.get("toolName")
    what = role if not tool else f"assistant, calling {tool}" if role == "assistant" else f"{tool} result"
    where = "a session message" if m.get("checkpointNum") is None else f"checkpoint {m['checkpointNum']}"
    return f"{what} ({where})"


def format_search(query: str, result: ArchiveSearch) -> str:
    """A search's hits as a tool result: one line per hit, ref first."""
    hits = result["hits"]
    if not hits:
        terms = f" (searched for: {', '.join(result['terms'])})" if result["terms"] else ""
        return f"No archived message matches {json.dumps(query, ensure_ascii=False)}{terms}. Try other words: a file name, an identifier, an error message."
    n = len(hits)
    head = f"{n} archived message{'' if n == 1 else 's'} match{'es' if n == 1 else ''} {json.dumps(query, ensure_ascii=False)}, best first; read_context(ref) reads one:"
    return "\n".join([head, *(f"[ref {h['ref']}] {_label(h)}: {' '.join(h['snippet'].split())}" for h in hits)])


def format_read(result: ArchivedMessage, lines: Optional[str] = None, grep: Optional[str] = None, max_chars: int = 20_000) -> str:
    """A read as a tool result: a line saying what it is, then the text (numbered lines for
    ``lines``/``grep``)."""
    total = result["totalLines"]
    head = f"[ref {result['ref']}] {_label(result)}, {total} line{'' if total == 1 else 's'}"
    if "text" in result:
        which = ", ".join(
            part
            for part in (
                f"lines {lines}" if lines is not None else "",
                f"{result.get('matchedLines', 0)} matching {json.dumps(grep, ensure_ascii=False)}" if grep is not None else "",
            )
            if part
        )
        cut = "\n[cut at 64 KB: ask for a narrower lines range]" if result["truncated"] else ""
        return f"{head}{'; ' + which if which else ''}:\n{result['text'] or '(no line matches)'}{cut}"
    messages: List[Dict[str, Any]] = list(result.get("messages") or [])

    def prefix(m: Mapping[str, Any]) -> str:
        if len(messages) <= 1:
            return ""
        return f"{m['role']} {m['tool_call_id']}: " if m.get("role") == "tool" and m.get("tool_call_id") else f"{m.get('role')}: "

    text = "\n".join(prefix(m) + _text_of(m) for m in messages)
    return f"{head}:\n{_cut_at(text, max_chars)}"


def _text_of(m: Mapping[str, Any]) -> str:
    """An OpenAI Chat message as text: its content, then its tool calls as ``→ name(args)``."""
    parts: List[str] = []
    content = m.get("content")
    if isinstance(content, str):
        parts.append(content)
    elif isinstance(content, list):
        for p in content:
            parts.append(p["text"] if isinstance(p, dict) and isinstance(p.get("text"), str) else f"[{p.get('type', 'part') if isinstance(p, dict) else 'part'}]")
    for call in m.get("tool_calls") or []:
        fn = call.get("function") or {}
        parts.append(f"→ {fn.get('name', '?')}({fn.get('arguments', '')})")
    return "\n".join(parts)


def _cut_at(text: str, max_chars: int) -> str:
    """``text`` up to ``max_chars`` characters, cut at a line, with which lines to read next."""
    if len(text) <= max_chars:
        return text
    lines = text.split("\n")
    shown = size = 0
    while shown < len(lines) and size + len(lines[shown]) + 1 <= max_chars:
        size += len(lines[shown]) + 1
        shown += 1
    if shown == 0:
        return f"{text[:max_chars]}\n[cut at {max_chars} of {len(text)} characters, in line 1; grep finds the part you need]"
    return f"{chr(10).join(lines[:shown])}\n[cut: lines 1-{shown} of {len(lines)} shown; read_context with lines=\"{shown + 1}-{min(len(lines), shown * 2)}\" or grep reads more]"


def read_query(inp: RecallInput) -> Dict[str, Any]:
    """The query of ``read_context``'s request: the lines asked for, or the whole message in OpenAI's format."""
    if inp.lines is None and inp.grep is None:
        return {"format": "openai"}
    return {"lines": inp.lines, "grep": inp.grep, "context": GREP_CONTEXT if inp.grep is not None else None}
