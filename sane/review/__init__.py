"""Human review of the oracle panel: export decisions for labelling, import the labels,
and measure the panel's agreement with the humans (the SANE paper's missing piece).

- :func:`review_items` / :func:`sample_items` pick the decisions to label;
  :func:`write_items` writes them as CSV or JSONL with an empty ``human_label`` column
  (with ``show_panel``, the panel's votes and their prompts and answers too).
- :func:`read_labels` reads a labelled file; :func:`save_labels` / :func:`load_labels`
  keep the labels in the suite file (table ``human_labels``).
- :func:`apply_labels` puts the labels in place of the panel's decisions (`sane review
  apply`): families are counted again and the report lists the overrides.
- :func:`review_questions` / :func:`answer_question`: the panel's own questions put to a
  person on `sane view`'s review page (blind where the panel is), each answer a label
  applied at once.
- :func:`agreement` reports accuracy and Cohen's kappa per decision type and the
  estimated effect on the validated-family count.
"""

from sane.review._apply import ApplyResult, apply_labels
from sane.review._files import read_labels, write_items
from sane.review._items import (
    PanelCall,
    ReviewItem,
    control_subjects,
    panel_call_keys,
    planted_controls,
    review_items,
    sample_items,
)
from sane.review._labels import HumanLabel, load_labels, save_labels
from sane.review._page import ANSWER_PATH, TOKEN_HEADER, render_review_page, review_status
from sane.review._panel_agreement import (
    Agreement,
    AgreementReport,
    FamilyEffect,
    agreement,
    cohen_kappa,
    render_agreement,
)
from sane.review._questions import (
    ReviewQuestion,
    answer_question,
    page_answers,
    review_questions,
)

__all__ = [
    "ANSWER_PATH",
    "TOKEN_HEADER",
    "Agreement",
    "AgreementReport",
    "ApplyResult",
    "FamilyEffect",
    "HumanLabel",
    "PanelCall",
    "ReviewItem",
    "ReviewQuestion",
    "agreement",
    "answer_question",
    "apply_labels",
    "cohen_kappa",
    "control_subjects",
    "load_labels",
    "page_answers",
    "panel_call_keys",
    "planted_controls",
    "read_labels",
    "render_agreement",
    "render_review_page",
    "review_items",
    "review_questions",
    "review_status",
    "sample_items",
    "save_labels",
    "write_items",
]
