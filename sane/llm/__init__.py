"""The LLM access layer: one client for every model call, cached in SQLite.

`LLMClient.text` and `LLMClient.structured` reach any litellm model string,
`scripted[/name]` (deterministic answers from a rules file, for tests) and
`local/<name>` (embedded offline models), with content-addressed caching,
retries with backoff, a concurrency limit, budgets and a CallRecord per call.

The names below load their module on first use: the client pulls in litellm and its
routes, which commands that make no call (help, report, check) should not pay for.
"""

import os

from sane._lazy import exports

# litellm fetches a price list from the internet when it is imported; the product runs
# offline, so the bundled list is forced before any submodule imports litellm.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

_EXPORTS = {
    "FREE_PROVIDERS": "sane.llm._budget",
    "LLMClient": "sane.llm._client",
    "LLMSettings": "sane.llm._settings",
    "check_api_base": "sane.llm._models",
    "count_tokens": "sane.llm._price_list",
    "check_model": "sane.llm._models",
    "check_script": "sane.llm._models",
    "model_problem": "sane.llm._models",
    "price": "sane.llm._budget",
    "require_prices": "sane.llm._budget",
    "ensure_litellm_ready": "sane.llm._litellm",
    "with_instruction": "sane.llm._structured",
    "ranked": "sane.llm._slots",
    "Rank": "sane.llm._slots",
    "SUITE_CAP": "sane.llm._transcripts",
    "Transcript": "sane.llm._transcripts",
    "capture_transcripts": "sane.llm._transcripts",
    "timed_call": "sane.llm._call_clock",
}
__all__ = [
    "FREE_PROVIDERS",
    "SUITE_CAP",
    "LLMClient",
    "LLMSettings",
    "Rank",
    "Transcript",
    "capture_transcripts",
    "check_api_base",
    "check_model",
    "check_script",
    "count_tokens",
    "ensure_litellm_ready",
    "model_problem",
    "price",
    "ranked",
    "require_prices",
    "timed_call",
    "with_instruction",
]


__getattr__ = exports(__name__, _EXPORTS)
