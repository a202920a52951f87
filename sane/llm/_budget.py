"""Spending limits on uncached provider calls.

The check happens before a call is made, so a run stops cleanly at the limit
and a rerun replays the completed calls from the cache for free.
"""

from __future__ import annotations

from functools import lru_cache

from sane.errors import BudgetExceeded, InputError
from sane.llm._price_list import rates
from sane.llm._settings import LLMSettings

FREE_PROVIDERS = frozenset({"scripted", "local"})


def price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for these tokens; 0 for the free local/scripted routes; None if unknown."""
    if model.split("/", 1)[0] in FREE_PROVIDERS:
        return 0.0
    per_token = rates(model)  # litellm's own price file, read without importing litellm
    if per_token is not None:
        return per_token[0] * prompt_tokens + per_token[1] * completion_tokens
    if not _priced(model):
        return None
    import litellm

    try:
        cost_in, cost_out = litellm.cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # noqa: BLE001 - litellm has no price for this model
        return None
    return float(cost_in + cost_out)


@lru_cache(maxsize=512)
def _priced(model: str) -> bool:
    """Whether litellm has a price for `model`, asked once per model: asking costs about
    0.2 ms a call for a model it does not know (a self-hosted one), on every call."""
    import litellm

    from sane.llm._litellm import ensure_litellm_ready

    ensure_litellm_ready()
    try:
        litellm.cost_per_token(model=model, prompt_tokens=1, completion_tokens=1)
    except Exception:  # noqa: BLE001 - litellm has no price for this model
        return False
    return True


def require_prices(models: list[str], settings: LLMSettings | None, field: str) -> None:
    """A cost budget is refused up front when a model has no known price: its calls would
    cost nothing on the meter and the budget would never stop the run."""
    if settings is None or settings.max_cost is None:
        return
    from sane.llm._router import deployment_models

    for model in dict.fromkeys(models):
        priced = (
            deployment_models(settings.router_path, model.split("/", 1)[1])
            if model.startswith("router/") and settings.router_path is not None
            else [model]
        )
        unknown = [m for m in priced if price(m, 1, 1) is None]
        if unknown or not priced:
            raise InputError(
                None,
                "--max-cost",
                f"litellm knows no price for {', '.join(unknown) or model} ({field}), so a "
                "cost budget cannot be enforced; use --max-calls instead",
            )


class Budget:
    """Counts uncached calls and their cost against optional limits."""

    def __init__(self, max_calls: int | None, max_cost: float | None) -> None:
        self.max_calls = max_calls
        self.max_cost = max_cost
        self.calls = 0
        self.cost = 0.0

    def reserve(self) -> None:
        """Claim one uncached call, or raise BudgetExceeded if it would pass a limit."""
        if self.max_calls is not None and self.calls >= self.max_calls:
            raise BudgetExceeded(
                f"call budget reached: {self.calls} uncached calls of max {self.max_calls}"
            )
        if self.max_cost is not None and self.cost >= self.max_cost:
            raise BudgetExceeded(
                f"cost budget reached: ${self.cost:.4f} spent of max ${self.max_cost:.4f}"
            )
        self.calls += 1

    def charge(self, cost: float) -> None:
        self.cost += cost
