"""Settings of the LLM access layer.

One pydantic model so the CLI, the workflow and tests configure caching,
retries, concurrency and budgets the same way, and so the settings can be
shown or stored without the API key leaking (it is excluded from dumps).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, field_validator


def default_cache_path() -> Path:
    """The per-user cache file used when no `cache_path` is given: in sane's one user cache
    folder, which `SANE_CACHE_DIR` moves with the model files and built wheels (a run meant
    to start fresh there must not replay answers from the old folder)."""
    root = os.environ.get("SANE_CACHE_DIR")
    return (Path(root) if root else Path(platformdirs.user_cache_dir()) / "sane") / "llm-cache.db"


SERVER_TIMEOUT_S = 120.0
# An embedded model's long calls (a recipe list: about 1,000 tokens) take minutes on a loaded
# 2-core machine: at 120 s, `generate` failed there ("capability derivation failed ...
# TimeoutError"). The model's loading is not counted (sane.llm._client warms it first).
EMBEDDED_TIMEOUT_S = 900.0


class LLMSettings(BaseModel):
    """How the client reaches models, caches their answers and limits its spending."""

    model_config = ConfigDict(extra="forbid")

    cache_path: Path | None = None
    concurrency: int = Field(default=8, ge=1)
    repair_retries: int = Field(default=2, ge=0)
    provider_retries: int = Field(default=3, ge=0)
    backoff_s: float = Field(default=0.5, ge=0.0)
    # seconds one call may take once sent; None: the route's default (call_timeout_s)
    timeout_s: float | None = Field(default=None, gt=0.0)
    api_base: str | None = None
    api_key: str | None = Field(default=None, exclude=True, repr=False)
    script_path: Path | None = None
    max_calls: int | None = Field(default=None, ge=0)
    max_cost: float | None = Field(default=None, ge=0.0)
    router_path: Path | None = None  # litellm Router file for router/<model_name> models
    rate_limits: dict[str, float] = Field(default_factory=dict)  # provider -> requests/minute

    @field_validator("rate_limits")
    @classmethod
    def _positive_limits(cls, value: dict[str, float]) -> dict[str, float]:
        bad = [name for name, rpm in value.items() if not rpm > 0]
        if bad:
            raise ValueError(f"rate limit of {bad[0]!r} must be a positive requests/minute")
        return value

    def call_timeout_s(self, one_at_a_time: bool) -> float:
        """The timeout of one call: `timeout_s` where set (`--llm-timeout`), else
        SERVER_TIMEOUT_S for a server and EMBEDDED_TIMEOUT_S for a model answering one call
        at a time in this process, on CPUs a run shares with its other work."""
        if self.timeout_s is not None:
            return self.timeout_s
        return EMBEDDED_TIMEOUT_S if one_at_a_time else SERVER_TIMEOUT_S

    def resolved_cache_path(self) -> Path:
        return self.cache_path if self.cache_path is not None else default_cache_path()
