"""What every statistics module shares: the strict record base and the undefined interval."""

from __future__ import annotations

import importlib
import math
from typing import Any

from pydantic import BaseModel, ConfigDict

NAN_CI: tuple[float, float] = (math.nan, math.nan)


class StatsModel(BaseModel):
    """Statistics records refuse unknown fields, like every record crossing a boundary."""

    model_config = ConfigDict(extra="forbid")


def finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


class _OnFirstUse:
    """A module imported when one of its attributes is first used: numpy and scipy.stats
    take a few tenths of a second of CPU to import, and reading a stored report (`sane
    report`, `sane check`) needs neither."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(importlib.import_module(self._name), attribute)


np: Any = _OnFirstUse("numpy")
sp: Any = _OnFirstUse("scipy.stats")
