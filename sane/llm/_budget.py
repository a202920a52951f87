"""Spending limits on uncached provider calls.

The check happens before a call is made, so a run stops cleanly at the limit
and a rerun replays the completed calls from the cache for free.
"""

from __future__ import annotations

from sane.errors import BudgetExceeded


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
