"""The review page of `sane view` (/review): the panel's questions for a person, one at a time.

The page is one self-contained HTML document like the report: its questions are embedded
as JSON and built with ``textContent`` (a case text never becomes markup), and a
Content-Security-Policy allows only its own script (by hash) and requests to its own
origin. Every answer is a POST to ``ANSWER_PATH`` carrying the server's CSRF token in a
header; the server (sane.view) refuses any write without it, so a page from another
origin, which can neither read the token nor send the header without the server's
consent, cannot write.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from sane.panel import controls
from sane.records import SuiteSnapshot
from sane.reporting import diff_variants
from sane.review._questions import ReviewQuestion

ANSWER_PATH = "/review/answer"
TOKEN_HEADER = "X-Sane-Token"


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("sane.review", "templates"),
        undefined=StrictUndefined,
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _row(question: ReviewQuestion) -> dict[str, Any]:
    """One question for the page's script: the texts, and for a case the word diff of each
    changed text against the original (what realization is judged on)."""
    reference = question.original_role if question.original_role in question.variants else None
    diffs = diff_variants(question.variants, reference) if question.variants else {}
    return {
        "id": question.id,
        "q": question.question.value,
        "mode": question.mode,
        "ask": question.ask,
        "instruction": question.instruction,
        "claim": question.claim,
        "original": question.original_role,
        "changed": question.changed_role,
        "example": question.example,
        "variants": [[role, [list(s) for s in segs]] for role, segs in diffs.items()],
        "answer": question.answer,
    }


def review_status(snapshot: SuiteSnapshot, questions: list[ReviewQuestion]) -> dict[str, Any]:
    """What the page shows after each answer: validated families now and by the panel
    alone, and the person's record on the planted controls (the page shows it once every
    control is answered, so it cannot tell which questions were controls)."""
    from sane.reporting import build_report  # the statistics load on the first answer

    report = build_report(snapshot)
    review = report.review
    planted = [q for q in questions if controls.is_control(q.subject_id)]
    return {
        "validated": report.validity.validated_families,
        "validated_by_panel": review.validated_by_panel
        if review
        else report.validity.validated_families,
        "questions": len(questions),
        "answered": sum(q.answer is not None for q in questions),
        "controls_total": len(planted),
        "controls_answered": review.controls_answered if review else 0,
        "controls_right": review.controls_right if review else 0,
        "summary": review.summary if review else None,
    }


def render_review_page(
    snapshot: SuiteSnapshot, questions: list[ReviewQuestion], token: str, status: dict[str, Any]
) -> str:
    """The page; ``status`` is what the page shows before the first answer (the counts)."""
    data = {
        "questions": [_row(q) for q in questions],
        "token": token,
        "header": TOKEN_HEADER,
        "answerUrl": ANSWER_PATH,
        "status": status,
    }
    env = _environment()
    script = env.loader.get_source(env, "_review.js.j2")[0]  # type: ignore[union-attr]
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (
        "default-src 'none'; style-src 'unsafe-inline'; connect-src 'self'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    return env.get_template("review.html.j2").render(
        spec=snapshot.spec,
        csp=csp,
        data_json=Markup(htmlsafe_json_dumps(data, separators=(",", ":"))),
        script=Markup(script),
    )
