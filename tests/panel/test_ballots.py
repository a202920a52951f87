"""Ballots: a direction answer becomes yes or no by code, never by the model's say-so."""

from __future__ import annotations

import pytest

from sane.panel.ballots import (
    DECOY_INSTRUCTION,
    TEXTS_EXCHANGED,
    DirectionDraft,
    VoteDraft,
    YesNoBallot,
    direction_ballot,
)
from sane.records import Decision, PairRelation
from sane.relations import mirror


@pytest.mark.parametrize(
    ("kind", "accepted"),
    [
        ("decrease", {"lower"}),
        ("increase", {"higher"}),
        ("invariant", {"same"}),
        ("no_increase", {"lower", "same"}),
        ("no_decrease", {"higher", "same"}),
    ],
)
def test_a_direction_is_accepted_only_where_the_relation_allows_it(kind: str, accepted: set[str]):
    ballot = direction_ballot(PairRelation(kind=kind))
    assert ballot is not None
    for answer in ("lower", "higher", "same"):
        expected = Decision.yes if answer in accepted else Decision.no
        assert ballot.decision(DirectionDraft(answer=answer)) is expected


@pytest.mark.parametrize("kind", ["decrease", "increase"])
def test_no_answer_accepts_both_a_directional_relation_and_its_mirror(kind: str):
    relation = PairRelation(kind=kind)
    ballots = [direction_ballot(relation), direction_ballot(mirror(relation))]
    for answer in ("lower", "higher", "same"):
        draft = DirectionDraft(answer=answer)
        assert sum(b.decision(draft) is Decision.yes for b in ballots) <= 1


def test_a_long_rationale_is_cut_not_refused():
    assert len(VoteDraft(decision="yes", rationale="x" * 500).rationale) == 160


def test_every_pair_kind_has_a_direction_and_mirrors_map_directions_onto_each_other():
    from typing import get_args

    from sane.relations import KINDS

    kinds = set(get_args(PairRelation.model_fields["kind"].annotation))
    DIRECTIONS = {name: k.directions for name, k in KINDS.items() if k.directions}
    assert set(DIRECTIONS) == kinds
    swap = {"lower": "higher", "higher": "lower", "same": "same"}
    for kind in kinds:
        flipped = mirror(PairRelation(kind=kind)).kind
        assert DIRECTIONS[flipped] == {swap[a] for a in DIRECTIONS[kind]}


@pytest.mark.parametrize("kind", ["decrease", "increase", "invariant", "no_increase"])
def test_a_constant_direction_contradicts_itself_once_the_texts_are_exchanged(kind: str):
    """The order check: the second answer is read turned round, so only "same" can agree with
    itself both ways, and only for relations that allow "same"."""
    ballot = direction_ballot(PairRelation(kind=kind))
    assert ballot is not None and ballot.contrast == TEXTS_EXCHANGED
    for answer in ("lower", "higher"):
        draft = DirectionDraft(answer=answer)
        assert ballot.combine(draft, draft)[0] is not Decision.yes
    correct = {
        "decrease": ("lower", "higher"),
        "increase": ("higher", "lower"),
        "invariant": ("same", "same"),
        "no_increase": ("lower", "higher"),
    }[kind]
    asked, exchanged = (DirectionDraft(answer=a) for a in correct)
    assert ballot.combine(asked, exchanged) == (Decision.yes, "")


def test_a_realization_counts_only_when_the_decoy_instruction_is_refused():
    ballot = YesNoBallot("realization", contrast=DECOY_INSTRUCTION)
    yes, no = VoteDraft(decision="yes"), VoteDraft(decision="no")
    assert ballot.combine(yes, no) == (Decision.yes, "")
    assert ballot.combine(no, no)[0] is Decision.no
    assert ballot.combine(no, yes)[0] is Decision.no
    decision, note = ballot.combine(yes, yes)
    assert decision is Decision.unresolved and "decoy accepted" in note
