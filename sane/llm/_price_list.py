"""litellm's bundled price list and default tokenizer, read without importing litellm.

Why this exists: `sane generate --dry-run` prices a plan before any call, and importing
litellm for that costs about 3 CPU-seconds, more than the whole estimate. litellm reads
these same files: sane sets `LITELLM_LOCAL_MODEL_COST_MAP` (sane/__init__.py), so litellm's
price map *is* the JSON file it ships, and its default token counter is tiktoken with the
encoding files it ships: an OpenAI model's own encoding, `cl100k_base` for the others. Reading them directly gives litellm's prices
and, within a few tokens per prompt, its counts (tests/llm/test_price_list.py compares them).

Where litellm would do something this module does not (a model the file lacks, a model
litellm counts with its own HuggingFace tokenizer, litellm not installed), the functions
return None and the caller asks litellm itself: slower, never different.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

PRICE_FILE = "model_prices_and_context_window_backup.json"
TOKENIZER_DIR = "litellm_core_utils/tokenizers"
DEFAULT_ENCODING = "cl100k_base"
OPENAI_PROVIDERS = frozenset({"openai", "azure", "text-completion-openai"})
_VERSIONED_OPENAI = re.compile(r"(?:gpt-(?:[5-9]|[1-9]\d+)|o[1-9]\d*)(?:[.-]|$)")
# litellm's message arithmetic (token_counter): a fixed overhead per message, and the
# reply's priming at the end
TOKENS_PER_MESSAGE = 3
REPLY_PRIMING = 3
# models litellm counts with a HuggingFace tokenizer instead of tiktoken
# (litellm.utils.huggingface_tokenizer_kind): left to litellm
_OWN_TOKENIZER = re.compile(r"deepseek|llama-2|llama-3|replicate|command-r|claude", re.IGNORECASE)


@cache
def _litellm_dir() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


@cache
def _prices() -> dict[str, Any]:
    folder = _litellm_dir()
    if folder is None or not (folder / PRICE_FILE).is_file():
        return {}
    return json.loads((folder / PRICE_FILE).read_text(encoding="utf-8"))


def _entry(model: str) -> dict[str, Any] | None:
    prices = _prices()
    if model in prices:
        return prices[model]
    provider, _, name = model.partition("/")
    entry = prices.get(name) if name else None
    if entry is not None and entry.get("litellm_provider") == provider:
        return entry
    return None


def rates(model: str) -> tuple[float, float] | None:
    """USD per prompt token and per completion token, or None where the file has no
    plain per-token price for ``model`` (ask litellm). A model priced in tiers by prompt
    length (`input_cost_per_token_above_200k_tokens`) is left to litellm too."""
    entry = _entry(model)
    if entry is None or any("_above_" in key for key in entry):
        return None
    try:
        return float(entry["input_cost_per_token"]), float(entry["output_cost_per_token"])
    except (KeyError, TypeError, ValueError):
        return None


def _encoding_name(model: str) -> str:
    """litellm's choice for a chat model (token_counter.openai_tokenizer_encoding_name): an
    OpenAI model's own encoding (o200k_base where tiktoken does not know it yet), and
    cl100k_base, litellm's default, for every other model."""
    from tiktoken.model import encoding_name_for_model

    name = model.rsplit("/", 1)[-1]
    try:
        known = encoding_name_for_model(name)
    except KeyError:
        known = None
    entry = _entry(model) or _prices().get(name) or {}
    is_openai = (
        entry.get("litellm_provider") in OPENAI_PROVIDERS
        or known is not None
        or _VERSIONED_OPENAI.match(name) is not None
    )
    if not is_openai:
        return DEFAULT_ENCODING
    if "gpt-4o" in name:
        return "o200k_base"
    return known or "o200k_base"


@cache
def _encoding(name: str) -> Any | None:
    folder = _litellm_dir()
    if folder is None or not (folder / TOKENIZER_DIR).is_dir():
        return None
    # litellm sets this itself on import, the same way: its bundled encodings, offline
    custom = os.getenv("CUSTOM_TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = custom or str(folder / TOKENIZER_DIR)
    import tiktoken

    return tiktoken.get_encoding(name)


def count_tokens(model: str, messages: list[dict[str, str]]) -> int | None:
    """The prompt tokens of plain-text ``messages`` as litellm's default counter makes
    them, or None where litellm would use another tokenizer (ask litellm)."""
    if _OWN_TOKENIZER.search(model):
        return None
    encoding = _encoding(_encoding_name(model))
    if encoding is None:
        return None
    text_tokens = sum(
        TOKENS_PER_MESSAGE
        + sum(len(encoding.encode(str(v), disallowed_special=())) for v in message.values())
        for message in messages
    )
    return text_tokens + REPLY_PRIMING
