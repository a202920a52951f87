"""A target's model loads before its first call is timed (`warm()`), so a load longer than
`--timeout` is no error: MiniLM and BERTScore had 91 errors under load from it."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field

from sane.records import OutputContract
from sane.scorers.execute import score_variants

LOAD_S = 0.5


@dataclass
class SlowToLoad:
    """Loads its model on first use, as the embedded metrics do, unless warmed first."""

    name: str = "minilm-like"
    contract: OutputContract = field(default_factory=lambda: OutputContract(min=0, max=1))
    fields: tuple[str, ...] = ("text",)
    deterministic: bool = True
    loads: int = 0

    lock: threading.Lock = field(default_factory=threading.Lock)

    def _load(self) -> None:
        with self.lock:  # once per process, as sane.local's loaders
            if not self.loads:
                time.sleep(LOAD_S)
                self.loads += 1

    async def warm(self) -> None:
        await asyncio.to_thread(self._load)

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        await asyncio.to_thread(self._load)
        return 0.5


async def test_a_targets_loading_is_not_counted_against_its_timeout() -> None:
    target = SlowToLoad()
    records = {f"r{i}": {"text": f"t{i}"} for i in range(3)}
    scores = await score_variants(target, records, repeats=1, timeout_s=0.2)
    assert scores == {role: [0.5] for role in records} and target.loads == 1
