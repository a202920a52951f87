"""Qualification that shows its work: progress per call, and one seed for every suite.

Why: `sane generate` qualifies its oracle first, and on an embedded model that is hundreds of
calls taking many minutes. Reported once per model ("0/1 started", then "done") it looked
hung for 17 minutes; reported per call (cache replays included), the progress line and its
ETA move. And the qualification measures the model, not the suite: asked with the suite's
seed, a `--seed 1` suite drew other questions and other samples and paid for all of them
again, so every suite asks with `QUALIFY_SEED` and a second suite replays the first from the
LLM cache.
"""

from __future__ import annotations

from collections.abc import Callable

from sane.records import CallRecord, RunConfig

QUALIFY_SEED = 0

Progress = Callable[[str, int, int], None]


def qualification_config(config: RunConfig) -> RunConfig:
    """The panel's sampling (temperature, rationale) with the one qualification seed."""
    return config.model_copy(update={"seed": QUALIFY_SEED})


def expected_calls(model: str, quick: bool, seed: int = QUALIFY_SEED) -> int:
    """The calls a qualification of `model` asks for when every answer parses at once."""
    from sane.qualification.qualify import questions

    return sum(item.calls for item in questions(model, quick=quick, seed=seed))


class CallProgress:
    """An LLM client's `on_call`: counts the calls of the stage under way as they finish and
    reports `progress(stage, done, total)`. A schema repair is one call more than expected,
    so the count stays below the total until `finish`."""

    def __init__(self, progress: Progress | None) -> None:
        self._progress = progress
        self._stage, self._done, self._total = "", 0, 0

    def start(self, stage: str, total: int) -> None:
        self._stage, self._done, self._total = stage, 0, max(total, 1)
        self._report(0)

    def __call__(self, record: CallRecord) -> None:
        if self._stage:
            self._done += 1
            self._report(min(self._done, self._total - 1))

    def finish(self) -> None:
        self._report(self._total)
        self._stage = ""

    def _report(self, done: int) -> None:
        if self._progress is not None and self._stage:
            self._progress(self._stage, done, self._total)
