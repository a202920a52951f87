"""Which strings must never be stored: the configured API key and secrets from the environment.

litellm reads provider keys from the environment (OPENAI_API_KEY, ...), and
some providers echo the key they were sent in their error messages. Every
error text the LLM layer stores or raises passes through `redact`, so a key
never reaches the suite database, the cache, a report or a log line.
"""

from __future__ import annotations

import os
import re

SECRET_NAME = re.compile(r"(API_?KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD)$", re.IGNORECASE)
MIN_SECRET_CHARS = 8  # shorter values ("1", "true") are settings, not secrets
MASK = "***"


def secrets(extra: str | None = None) -> list[str]:
    """Secret values to redact: `extra` plus every secret-named environment variable."""
    values = [value for name, value in os.environ.items() if SECRET_NAME.search(name)]
    if extra:
        values.append(extra)
    # Longest first, so a key that contains another is masked whole.
    return sorted({v for v in values if len(v) >= MIN_SECRET_CHARS}, key=len, reverse=True)


def redact(text: str, extra: str | None = None) -> str:
    for value in secrets(extra):
        text = text.replace(value, MASK)
    return text
