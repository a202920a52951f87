"""A case writer's reply: a text for every asked role, or the reason the recipe does not
apply to its example; nothing in between passes as a case."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from sane.agents import case_draft

COMBINED = case_draft(("edit_a", "edit_b", "edit_ab"))


def _texts(*roles: str) -> list[dict[str, str]]:
    return [{"role": role, "text": f"text of {role}"} for role in roles]


def test_every_asked_role_makes_a_case_and_an_unasked_one_is_dropped():
    draft = COMBINED.model_validate({"variants": _texts("original", "edit_a", "edit_b", "edit_ab")})
    assert [v.role for v in draft.variants] == ["edit_a", "edit_b", "edit_ab"]
    assert not draft.declined


def test_a_decline_keeps_its_reason_and_no_text_even_beside_texts():
    draft = COMBINED.model_validate(
        {"variants": _texts("edit_a"), "not_applicable": "the summary names no one"}
    )
    assert draft.declined and draft.variants == []
    assert draft.not_applicable == "the summary names no one"


@pytest.mark.parametrize(
    "reply",
    [
        {"variants": _texts("edit_a", "edit_b")},  # a role missing: not a case
        {"variants": []},
        {"not_applicable": "   "},  # a blank reason is no decline
        {"variants": _texts("edit_a"), "not_applicable": ""},
        {},
    ],
)
def test_a_partial_reply_is_neither_a_case_nor_a_decline(reply):
    with pytest.raises(ValidationError, match="give a text for every role"):
        COMBINED.model_validate(reply)
