"""The LLM access layer: one client for every model call, cached in SQLite.

`LLMClient.text` and `LLMClient.structured` reach any litellm model string,
`scripted[/name]` (deterministic answers from a rules file, for tests) and
`local/<name>` (embedded offline models), with content-addressed caching,
retries with backoff, a concurrency limit, budgets and a CallRecord per call.
"""

import os

# litellm fetches a price list from the internet when it is imported; the product runs
# offline, so the bundled list is forced before any submodule imports litellm.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from sane.llm._client import LLMClient
from sane.llm._models import check_model, model_problem
from sane.llm._settings import LLMSettings

__all__ = ["LLMClient", "LLMSettings", "check_model", "model_problem"]
