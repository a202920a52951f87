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


# The Python packages of the `local` extra that run the embedded models.
RUNTIMES = {"llama_cpp": "llama-cpp-python", "sentence_transformers": "sentence-transformers"}


def missing_runtime(module: str) -> str | None:
    """Why the embedded models of `module` cannot run here (None: they can). An API-only
    install (`pip install .`) has neither runtime; saying so up front beats a failed stage."""
    import importlib.util

    try:
        if importlib.util.find_spec(module) is not None:
            return None
    except ImportError:  # an import hook that hides the package: absent all the same
        pass
    return (
        f"the embedded models need {RUNTIMES[module]} (the `local` extra): run "
        "`bash scripts/setup.sh`, or install `sane[local]` with the portable build in "
        "docs/embedded-runtime.md"
    )
