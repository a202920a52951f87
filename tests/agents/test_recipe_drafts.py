"""Recipe drafts: role mistakes with one reading are repaired (and recorded), others refused."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from sane.agents._drafts import RecipeDraft


def _draft(roles: list[str], relation: dict, operator: str | None = None) -> RecipeDraft:
    return RecipeDraft(
        operator=operator, name="n", instruction="i", variant_roles=roles, relation=relation
    )


def test_an_undeclared_edit_name_is_read_as_the_one_unused_role():
    draft = _draft(["original", "perturbed"], {"kind": "decrease", "perturbed": "with_claim"})
    assert (draft.relation.original, draft.relation.perturbed) == ("original", "perturbed")
    assert draft.repairs and draft.repairs[0].startswith("roles_repaired:")


def test_the_original_is_declared_by_code():
    draft = _draft(["perturbed"], {"kind": "increase"})
    assert draft.variant_roles == ["original", "perturbed"]
    assert len(draft.repairs) == 1


def test_a_consistent_draft_is_left_alone():
    draft = _draft(["original", "perturbed"], {"kind": "invariant"})
    assert draft.repairs == [] and draft.variant_roles == ["original", "perturbed"]


def test_two_undeclared_roles_have_no_single_reading_and_are_refused():
    with pytest.raises(ValidationError, match="not in variant_roles"):
        _draft(["a", "b"], {"kind": "invariant", "original": "x", "perturbed": "y"})


def test_an_operator_draft_is_not_refused_for_roles_the_operator_replaces():
    draft = _draft(["x"], {"kind": "decrease", "original": "p", "perturbed": "q"}, "change_number")
    assert draft.operator == "change_number"


@pytest.mark.parametrize(
    ("name", "instruction", "expected"),
    [
        ("change_number_1", "Alter a figure.", "change_number"),  # the operator's name as its name
        ("edit", "write the whole text in LOWER case", "lowercase"),  # its instruction, copied
        ("remove_first_number", "Remove the first number.", None),  # free-form: no such operator
    ],
)
def test_an_operator_copied_without_being_named_is_recognised(name, instruction, expected):
    from sane.agents.recipes import _edit

    draft = RecipeDraft(
        name=name,
        instruction=instruction,
        variant_roles=["original", "perturbed"],
        relation={"kind": "decrease"},
    )
    assert _edit(draft).get("transform") == expected
