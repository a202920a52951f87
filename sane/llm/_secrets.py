"""Which strings must never be stored: every configured secret.

litellm reads provider keys from the environment (OPENAI_API_KEY, ...), a
router file may hold keys of its own, an `--api-base` URL may carry
`user:password@`, and some providers echo what they were sent in their error
messages and even in their answers. Every error text the LLM layer stores or raises, and
every reply text before it is cached or returned, passes through `redact`, so none of these
reaches the suite database, the cache, a report or a log line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import yaml

from sane.llm._settings import LLMSettings

SECRET_NAME = re.compile(r"(API_?KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD)$", re.IGNORECASE)
MIN_SECRET_CHARS = 8  # shorter values ("1", "true") are settings, not secrets
MASK = "***"


SECRET_PARAM = re.compile(r"key|secret|token|password", re.IGNORECASE)


def url_credentials(url: str | None) -> list[str]:
    """The `user:password` (and each part) of a URL, if it carries any."""
    if not url:
        return []
    parts = urlsplit(url)
    found = [p for p in (parts.username, parts.password) if p]
    if parts.username and parts.password:
        found.append(f"{parts.username}:{parts.password}")
    return [unquote(p) for p in found] + found


def router_secrets(path: Path | None) -> list[str]:
    """Secret-named parameters and URL credentials of every deployment in a router file."""
    if path is None:
        return []
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return []
    values: list[str] = []
    for deployment in data.get("model_list") or []:
        params = (deployment or {}).get("litellm_params") or {}
        for name, value in params.items():
            if not isinstance(value, str):
                continue
            value = _from_environment(value)
            if SECRET_PARAM.search(name):
                values.append(value)
            elif name == "api_base":
                values.extend(url_credentials(value))
    return values


ENV_REFERENCE = "os.environ/"  # litellm's way for a router file to name a variable


def _from_environment(value: str) -> str:
    """The value litellm will send for `os.environ/NAME`: the variable's, which is a secret
    whatever the variable is called (only secret-looking names are masked otherwise)."""
    if value.startswith(ENV_REFERENCE):
        return os.environ.get(value.removeprefix(ENV_REFERENCE), value)
    return value


def secrets(settings: LLMSettings | None = None) -> list[str]:
    """Secret values to redact: the settings' key, API-base credentials and router secrets,
    and every secret-named environment variable."""
    values = [value for name, value in os.environ.items() if SECRET_NAME.search(name)]
    if settings is not None:
        values += [settings.api_key] if settings.api_key else []
        values += url_credentials(settings.api_base)
        values += router_secrets(settings.router_path)
    # Longest first, so a key that contains another is masked whole.
    return sorted({v for v in values if len(v) >= MIN_SECRET_CHARS}, key=len, reverse=True)


def redact(text: str, settings: LLMSettings | None = None) -> str:
    for value in secrets(settings):
        text = text.replace(value, MASK)
    return text
