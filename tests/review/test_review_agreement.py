"""Cohen's kappa against hand-computed values, agreement per decision type, and the
effect of human labels on validated-family counts."""

from __future__ import annotations

import math

import pytest

from sane.records import Question
from sane.review import agreement, cohen_kappa, render_agreement

Y, N, U = "yes", "no", "unresolved"


def test_kappa_hand_computed() -> None:
    # panel yes/human yes 4, yes/no 2, no/yes 1, no/no 3:
    # p_o = 7/10; p_e = 0.6*0.5 + 0.4*0.5 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    panel = ["y"] * 6 + ["n"] * 4
    human = ["y", "y", "y", "y", "n", "n", "y", "n", "n", "n"]
    assert cohen_kappa(panel, human) == pytest.approx(0.4)
    # three labels: p_o = 4/6, p_e = (2*2 + 2*1 + 2*3)/36 = 1/3, kappa = (2/3 - 1/3)/(2/3) = 0.5
    assert cohen_kappa(list("aabbcc"), list("abbccc")) == pytest.approx(0.5)


def test_kappa_edge_cases() -> None:
    assert cohen_kappa(["y", "n", "y"], ["y", "n", "y"]) == pytest.approx(1.0)
    assert cohen_kappa(["y", "n"], ["n", "y"]) == pytest.approx(-1.0)
    assert cohen_kappa(["y"] * 4, ["y"] * 4) is None  # chance agreement is 1: undefined
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError):
        cohen_kappa(["y"], ["y", "n"])


def test_agreement_per_question_and_substituted_families(kit) -> None:
    # tau = 3 of 4. r1 validated by the panel (4 joint-valid); r2 has 2 (cases 2, 3 not
    # applicable); r3 is misaligned-unresolved.
    snapshot = kit.make_snapshot(
        [
            kit.Plan("r1", Y, [(Y, Y)] * 4),
            kit.Plan("r2", Y, [(Y, Y), (Y, Y), (Y, N), (Y, N)]),
            kit.Plan("r3", U, []),
        ]
    )
    labels = {
        Question.alignment: {"r1": True, "r3": True},  # panel yes/yes, unresolved/yes
        Question.realization: {"r1/0": False, "r1/1": False, "r2/0": True},
        Question.applicability: {"r2/2": True, "r2/0": True},
    }
    result = agreement(snapshot, labels)

    alignment = result.questions["alignment"]
    assert alignment.labelled == 2 and alignment.panel_unresolved == 1
    assert alignment.accuracy == pytest.approx(0.5)  # unresolved counts as "no"
    assert alignment.false_reject_rate == pytest.approx(1.0)
    # panel [yes, no] vs human [yes, yes]: p_o = 1/2, p_e = 1/2 * 1 + 1/2 * 0 -> kappa 0
    assert alignment.kappa == pytest.approx(0.0)

    realization = result.questions["realization"]
    assert realization.accuracy == pytest.approx(1 / 3)
    assert realization.false_accept_rate == pytest.approx(2 / 3)
    assert realization.confusion == {"yes": {"yes": 1, "no": 2}, "no": {"yes": 0, "no": 0}}

    applicability = result.questions["applicability"]
    assert applicability.confusion == {"yes": {"yes": 1, "no": 0}, "no": {"yes": 1, "no": 0}}
    assert applicability.accuracy_ci is not None

    # r1 loses two realized cases (2 < 3); r2 gains its case 2 (3 >= 3)
    families = result.families
    assert (families.panel_validated, families.substituted_validated) == (1, 1)
    assert families.lost == ["r1"] and families.gained == ["r2"]
    markdown = render_agreement(result)
    assert "| realization | 3 | 33.3% |" in markdown and "No longer validated" in markdown


def test_expected_validated_families_from_error_rates(kit) -> None:
    # one family, 3 cases, tau = 2. Realization labels: case 0 yes, case 1 no, both where
    # the panel said yes -> P(valid | panel yes) = 1/2. Cases are valid with probability
    # [1, 0, 1/2] (labels where given), so P(>= 2 valid) = 1/2 = expected count, sd 1/2.
    snapshot = kit.make_snapshot([kit.Plan("r", Y, [(Y, Y)] * 3)], cases_per_recipe=3)
    result = agreement(snapshot, {Question.realization: {"r/0": True, "r/1": False}})
    assert result.families.tau == 2
    assert result.families.expected_validated == pytest.approx(0.5)
    assert result.families.expected_sd == pytest.approx(0.5)
    assert result.families.substituted_validated == 1  # cases 0 and 2 still count
    assert any("realization: no labelled panel 'no'" in note for note in result.notes)


def test_without_disagreement_the_expectation_is_the_panel_count(kit) -> None:
    snapshot = kit.make_snapshot([kit.Plan("a", Y, [(Y, Y)] * 4), kit.Plan("b", Y, [(Y, N)] * 4)])
    labels = {Question.applicability: {"a/0": True, "b/0": False}}
    result = agreement(snapshot, labels)
    assert result.questions["applicability"].accuracy == 1.0
    assert result.questions["applicability"].kappa == pytest.approx(1.0)
    assert result.families.expected_validated == pytest.approx(1.0)
    assert math.isclose(result.families.expected_sd, 0.0, abs_tol=1e-12)
