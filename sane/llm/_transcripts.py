"""Transcripts: what a model was sent and what it answered, for every judge call and vote.

Why: a parsed score says that a judge faulted, not why. The rendered prompt and the raw
reply are the evidence a person reads to tell a judge's mistake from a bad test (Inspect's
`inspect view` and promptfoo's `view` show every call). They are kept in the suite,
deduplicated by content: a transcript is named by its call's cache key (the hash of
everything that determines the answer), and its prompt by the hash of the prompt's text,
so repeats and the votes of one question share one prompt.

How a call finds the record it belongs to: whoever makes a score or a vote opens
:func:`capture_transcripts`; every successful model call made inside it (in this task or in tasks it
starts) adds its key there. The bodies go to the suite through the client's
``on_transcript`` hook. A context variable, because the judge and the panel reach the
client through several layers that should not each pass a list along.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from sane.records import Transcript

# each side of a transcript is cut to this many characters (a suite stays small; a judge
# prompt of the embedded models is a few thousand characters)
TEXT_CAP = 20_000
# prompts and replies one suite keeps at most (characters): past it a transcript is counted
# as dropped (the suite store does), and every report says so
SUITE_CAP = 64 * 1024 * 1024

_keys: ContextVar[list[str] | None] = ContextVar("sane_transcript_keys", default=None)


def _cut(text: str) -> tuple[str, bool]:
    if len(text) <= TEXT_CAP:
        return text, False
    return text[:TEXT_CAP] + f"\n[... {len(text) - TEXT_CAP} more characters not kept]", True


def render_messages(messages: list[dict[str, str]]) -> str:
    """The conversation as one text: a single user message as it is, else role headers."""
    if len(messages) == 1 and messages[0].get("role") == "user":
        return str(messages[0].get("content", ""))
    return "\n\n".join(f"[{m.get('role', '?')}]\n{m.get('content', '')}" for m in messages)


def transcript(key: str, model: str, task: str, messages: list[dict[str, str]], reply: str):
    """The call as a capped :class:`Transcript`."""
    prompt, cut_prompt = _cut(render_messages(messages))
    answer, cut_reply = _cut(reply)
    return Transcript(
        key=key, model=model, task=task, prompt=prompt, reply=answer,
        truncated=cut_prompt or cut_reply,
    )  # fmt: skip


@contextmanager
def capture_transcripts() -> Iterator[list[str]]:
    """Collect the keys of the calls made inside the block (and in tasks it starts)."""
    keys: list[str] = []
    token = _keys.set(keys)
    try:
        yield keys
    finally:
        _keys.reset(token)


def note(key: str) -> None:
    """Called by the client for each successful call."""
    keys = _keys.get()
    if keys is not None:
        keys.append(key)
