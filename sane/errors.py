"""Error types that carry enough context for a one-line message.

Bad input must name the file, the field and the problem; runtime failures of a
model or a scorer must be recorded as errors rather than turned into scores.
"""

from __future__ import annotations

import unicodedata


def printable(text: str, *, newlines: bool = False) -> str:
    """`text` with each control character written as an escape (`\\x1b`): an error line names
    what the user gave, and a name or a generated text holding an escape sequence must not
    drive the terminal (clear the screen, retitle the window). `newlines=True` keeps line
    breaks, for a text that is several lines on purpose (a table cell, an estimate)."""
    if text.isprintable():
        return text
    kept = " \t\n" if newlines else " \t"
    return "".join(
        char if char in kept or unicodedata.category(char) != "Cc" else repr(char)[1:-1]
        for char in text
    )


class SaneError(Exception):
    """Base class of every error the product raises on purpose."""


class InputError(SaneError):
    """Bad user input: a file or field that cannot be used as given."""

    def __init__(self, file: str | None, field: str | None, problem: str) -> None:
        self.file = file
        self.field = field
        self.problem = problem
        where = ": ".join(printable(part) for part in (file, field) if part)
        super().__init__(f"{where}: {printable(problem)}" if where else printable(problem))


class LLMError(SaneError):
    """A model call that failed after its retries (provider error, bad output)."""

    def __init__(self, model: str, cause: str, *, authentication: bool = False) -> None:
        self.model = model
        self.cause = cause
        # the provider refused the credentials: no later call can succeed, so a run stops
        # at once instead of recording the same refusal on every vote
        self.authentication = authentication
        super().__init__(f"{model}: {cause}")


class ScorerError(SaneError):
    """A target scorer that raised, hung or returned something outside its contract."""


class BudgetExceeded(SaneError):
    """The run reached --max-calls or --max-cost; it stops cleanly and can resume."""
