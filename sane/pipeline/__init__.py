"""The pipeline: the two LangGraph graphs (workflow.py) and the stages they wire together,
by job (generate.py: the generate stages; resume.py: what an interrupted run left; execution.py:
targets on the validated cases and the stored report; inflation.py: the score-inflation
search; deciding.py: asking the panel, for both paths), the run context (_runtime.py), the
order of waiting calls (call_order.py), the run's configuration (run_config.py) and the
dry-run estimate (estimate.py, estimate_time.py).

What a run decided lives in the store: every stage asks it what is done, so a rerun resumes.
The names below load their module on first use (LangGraph loads only with the graphs).
"""

from sane._lazy import exports

_EXPORTS = {
    "Progress": "sane.pipeline._runtime",
    "RunContext": "sane.pipeline._runtime",
    "no_progress": "sane.pipeline._runtime",
}
__all__ = ["Progress", "RunContext", "no_progress"]

__getattr__ = exports(__name__, _EXPORTS)
