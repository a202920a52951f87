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


class LLMSettings(BaseModel):
    """How the client reaches models, caches their answers and limits its spending."""

    model_config = ConfigDict(extra="forbid")

    cache_path: Path | None = None
    concurrency: int = Field(default=8, ge=1)
    repair_retries: int = Field(default=2, ge=0)
    provider_retries: int = Field(default=3, ge=0)
    backoff_s: float = Field(default=0.5, ge=0.0)
    timeout_s: float = Field(default=120.0, gt=0.0)
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

    def resolved_cache_path(self) -> Path:
        return self.cache_path if self.cache_path is not None else default_cache_path()
