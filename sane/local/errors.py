"""The one error of the embedded-model layer.

A missing or corrupted model must stop the run with a message that says which
package to (re)install, instead of loading whatever bytes happen to be there.
"""

from __future__ import annotations

from sane.errors import SaneError


class ModelUnavailable(SaneError):
    """An embedded model whose files are absent or fail their size / SHA-256 check."""

    def __init__(self, name: str, problem: str, fix: str) -> None:
        self.name = name
        self.problem = problem
        self.fix = fix
        super().__init__(f"local model '{name}': {problem}. Fix: {fix}")
