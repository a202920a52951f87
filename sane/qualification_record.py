"""An oracle model's qualification as stored with a suite and shown first in its reports.

Light on purpose: the suite snapshot and the report read it; the questions and their asking
live in sane.qualification.qualify.
"""

from __future__ import annotations

from pydantic import Field

from sane._record import Record

MIN_ANSWERED = 0.9  # a model that answered fewer of its calls than this does not qualify


class Figure(Record):
    """A share with its 95% Wilson interval."""

    count: int
    of: int
    rate: float | None
    ci: tuple[float | None, float | None]

    def __str__(self) -> str:
        if self.rate is None:
            return "-"
        return f"{self.rate:.2f} [{self.ci[0]:.2f}, {self.ci[1]:.2f}] ({self.count}/{self.of})"


class Miss(Record):
    """A question the model got wrong, as a user reads it to see whose the miss is: the
    model's, or the question's (a question whose keyed answer its prompt does not settle)."""

    subject: str
    question: str  # alignment, or direction (the blind question, or on a case's texts)
    asked: str  # what the question showed, in one line
    keyed: str
    answered: str
    rationale: str = ""


class Qualification(Record):
    """One oracle model's qualification, stored with the suites made with it."""

    model: str
    simulated: bool  # a sim/ oracle: the figures describe a simulation, not a model
    quick: bool
    calls: int
    answered: int
    accuracy: Figure
    order_consistency: Figure
    false_accept: Figure
    thresholds: dict[str, float | None]  # per panel: the accuracy the sweep found it needs
    failing: dict[str, float | None] = Field(default_factory=dict)  # ...and where it failed
    thresholds_source: str
    qualifies: dict[str, bool] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)  # the first few, for the reader
    misses: list[Miss] = Field(default_factory=list)  # every wrong answer, in asking order
    # set when this is a recorded result (sane.qualification.recorded): the date it was measured
    recorded: str | None = None

    def verdict(self, panel: str) -> str:
        """One line: whether the model qualifies for `panel`, and why."""
        kind = "simulated oracle" if self.simulated else "oracle"
        if self.recorded is not None:
            kind = f"{kind} (RECORDED result of {self.recorded}, not asked again)"
        threshold = self.thresholds.get(panel)
        if self.qualifies.get(panel):
            return f"{kind} {self.model} qualifies for panel {panel} (accuracy {self.accuracy})"
        if self.calls and self.answered < MIN_ANSWERED * self.calls:
            why = f"only {self.answered} of {self.calls} calls answered"
        elif panel not in self.thresholds:
            why = f"the validity sweep never measured panel {panel}, so no accuracy is known"
        elif threshold is None:
            why = f"no accuracy in the sweep met the targets for panel {panel}"
        elif self.accuracy.rate is None or self.accuracy.rate < threshold:
            why = f"accuracy {self.accuracy} is below the {threshold:g} panel {panel} needs"
        else:
            floor = self.failing.get(panel) or threshold
            why = (
                f"accuracy {self.accuracy} is not shown to be above {floor:g}, where panel "
                f"{panel} failed its targets"
            )
        return f"{kind} {self.model} does NOT qualify for panel {panel}: {why}"


class QualificationStatus(Record):
    """What a suite's report says first about its oracle: qualified for the suite's panel
    only when every oracle model of the panel is."""

    panel: str
    qualified: bool
    summary: str
    models: list[Qualification] = Field(default_factory=list)

    @classmethod
    def of(
        cls, panel: str, oracle_models: list[str], found: list[Qualification]
    ) -> QualificationStatus:
        by_model = {q.model: q for q in found}
        missing = [m for m in oracle_models if m not in by_model]
        if missing:
            summary = (
                f"Oracle NOT qualified for panel {panel}: {', '.join(missing)} "
                "was never qualified (qualification skipped); the suite's verdicts rest on an "
                "oracle of unmeasured skill"
            )
            return cls(panel=panel, qualified=False, summary=summary, models=found)
        models = [by_model[m] for m in oracle_models]
        qualified = all(q.qualifies.get(panel, False) for q in models)
        verdicts = "; ".join(q.verdict(panel) for q in models)
        head = "Oracle qualified" if qualified else "Oracle NOT qualified"
        if any(q.simulated for q in models):
            head += " (SIMULATED oracle: this measures the method, not a model)"
        return cls(panel=panel, qualified=qualified, summary=f"{head}: {verdicts}", models=models)
