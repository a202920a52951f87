"""The LLM access layer: one client for every model call, cached in SQLite.

`LLMClient.text` and `LLMClient.structured` reach any litellm model string,
`scripted[/name]` (deterministic answers from a rules file, for tests) and
`local/<name>` (embedded offline models), with content-addressed caching,
retries with backoff, a concurrency limit, budgets and a CallRecord per call.
"""

from sane.llm._client import LLMClient
from sane.llm._settings import LLMSettings

__all__ = ["LLMClient", "LLMSettings"]
