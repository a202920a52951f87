"""What every statistics module shares: the strict record base and the undefined interval."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict

NAN_CI: tuple[float, float] = (math.nan, math.nan)


class StatsModel(BaseModel):
    """Statistics records refuse unknown fields, like every record crossing a boundary."""

    model_config = ConfigDict(extra="forbid")


def finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)
