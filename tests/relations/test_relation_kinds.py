"""Every relation kind is complete: one row per kind says what it must provide, and the test
walks the registry so a kind added without its row, or with a part missing, fails here."""

from __future__ import annotations

from typing import get_args

import pytest

from sane.relations import KINDS, Relation, catalogue, check_relation, formula, mirror, predicts
from sane.relations import Verdict as V
from sane.requirements import Requirement as R

# kind -> (example relation, normalised scores that satisfy it, scores that violate it,
#          has a change, has a paired test, has a blind-panel direction)
ROWS = {
    "decrease": ({"kind": "decrease"}, {"original": [0.8], "perturbed": [0.2]},
                 {"original": [0.5], "perturbed": [0.5]}, True, True, True),
    "increase": ({"kind": "increase"}, {"original": [0.2], "perturbed": [0.8]},
                 {"original": [0.5], "perturbed": [0.5]}, True, True, True),
    "no_increase": ({"kind": "no_increase"}, {"original": [0.5], "perturbed": [0.5]},
                    {"original": [0.2], "perturbed": [0.8]}, True, True, True),
    "no_decrease": ({"kind": "no_decrease"}, {"original": [0.5], "perturbed": [0.5]},
                    {"original": [0.8], "perturbed": [0.2]}, True, True, True),
    "invariant": ({"kind": "invariant"}, {"original": [0.5], "perturbed": [0.52]},
                  {"original": [0.2], "perturbed": [0.8]}, True, True, True),
    "repeatable": ({"kind": "repeatable", "repeats": 3}, {"original": [0.5, 0.5, 0.51]},
                   {"original": [0.1, 0.9, 0.5]}, False, False, False),
    "combined": ({"kind": "combined"},
                 {"original": [0.9], "edit_a": [0.6], "edit_b": [0.6], "edit_ab": [0.4]},
                 {"original": [0.9], "edit_a": [0.6], "edit_b": [0.6], "edit_ab": [0.8]},
                 True, False, False),
    "ordered": ({"kind": "ordered", "series": ["a", "b", "c"]},
                {"a": [0.1], "b": [0.5], "c": [0.9]}, {"a": [0.9], "b": [0.5], "c": [0.1]},
                True, False, False),
    "spans": ({"kind": "spans", "series": ["a", "b"], "min_fraction": 0.5},
              {"a": [0.1], "b": [0.9]}, {"a": [0.4], "b": [0.5]}, True, False, False),
    "at_level": ({"kind": "at_level", "low": 0.0, "high": 0.3}, {"original": [0.2]},
                 {"original": [0.9]}, False, False, False),
}  # fmt: skip


# kind -> (home requirement, every requirement it can test, predicts a score change,
#          contradicted by its mirror, number of role pairs that must differ in ROWS' example)
FILING = {
    "decrease": (R.monotonicity, {R.monotonicity}, True, True, 1),
    "increase": (R.monotonicity, {R.monotonicity}, True, True, 1),
    "no_increase": (R.monotonicity, {R.monotonicity, R.robustness}, False, False, 1),
    "no_decrease": (R.monotonicity, {R.monotonicity, R.robustness}, False, False, 1),
    "invariant": (R.robustness, {R.robustness}, False, False, 1),
    "repeatable": (R.repeatability, {R.repeatability}, False, False, 0),
    "combined": (R.subadditivity, {R.subadditivity}, True, False, 5),
    "ordered": (R.calibration, {R.dynamic_range, R.calibration}, True, True, 3),
    "spans": (R.dynamic_range, {R.dynamic_range}, True, False, 1),
    "at_level": (R.calibration, {R.calibration}, False, True, 0),
}


def _relation(data: dict):
    from pydantic import TypeAdapter

    return TypeAdapter(Relation).validate_python(data)


def test_every_registered_kind_has_a_row_and_every_row_a_kind() -> None:
    assert set(KINDS) == set(ROWS) == set(FILING) == set(READING) == set(DISCRIMINATES)
    literal_kinds = {
        kind
        for record in get_args(get_args(Relation)[0])
        for kind in get_args(record.model_fields["kind"].annotation)
    }
    assert literal_kinds == set(KINDS)  # the union reads every kind's record


@pytest.mark.parametrize("name", sorted(ROWS))
def test_each_kind_is_complete(name: str) -> None:
    data, holds, breaks, has_change, has_paired, has_direction = ROWS[name]
    kind, relation = KINDS[name], _relation(data)
    assert kind.name == name and isinstance(relation, kind.record)
    assert set(relation.roles()) == set(holds) == set(breaks)
    assert check_relation(relation, holds, 0.05, True).verdict is V.passed
    assert check_relation(relation, breaks, 0.05, True).verdict is V.fault
    missing = {role: scores for role, scores in holds.items() if role != relation.roles()[0]}
    assert check_relation(relation, missing, 0.05, True).verdict is V.error
    # the mirror is the same kind family, reads the same roles, and undoes itself
    flipped = mirror(relation)
    assert set(flipped.roles()) == set(relation.roles())
    back = mirror(flipped).model_dump()
    for field, value in relation.model_dump().items():
        assert back[field] == (pytest.approx(value) if isinstance(value, float) else value)
    assert (kind.change is not None) == has_change
    if has_change:
        start, end = kind.change(relation)
        assert {start, end} <= set(relation.roles()) and start != end
    assert (kind.paired is not None) == has_paired
    assert (kind.directions is not None) == has_direction
    # words for the reports, the panel and the recipe agent
    text = formula(relation.model_dump(mode="json"))
    assert text != name and "{" not in text
    assert any(role in predicts(relation) for role in relation.roles())
    assert any(f'"kind": "{name}"' in line for line in catalogue())


def test_a_directed_kind_mirrors_onto_its_opposite() -> None:
    swap = {"lower": "higher", "higher": "lower", "same": "same"}
    for name, kind in KINDS.items():
        if kind.directions is not None:
            opposite = KINDS[mirror(_relation({"kind": name})).kind]
            assert opposite.directions == {swap[d] for d in kind.directions}


def test_a_mirrored_band_is_written_as_a_recipe_writes_one() -> None:
    """1 - 0.7 is 0.30000000000000004 in floating point: a mirror control whose prompt showed
    that would stand apart from every band a recipe writes (a strong-model reader saw it)."""
    band = _relation({"kind": "at_level", "variant": "v", "low": 0.7, "high": 1.0})
    mirrored = mirror(band)
    assert (mirrored.low, mirrored.high) == (0.0, 0.3)
    assert "0000000" not in mirrored.model_dump_json()
    assert mirror(mirrored) == band


@pytest.mark.parametrize("name", sorted(FILING))
def test_each_kind_says_where_it_is_filed_and_what_makes_its_case_a_no_op(name: str) -> None:
    home, requirements, changes_score, mirror_contradicts, pairs = FILING[name]
    kind, relation = KINDS[name], _relation(ROWS[name][0])
    assert (kind.home, set(kind.requirements)) == (home, requirements)
    assert kind.home in kind.requirements
    assert (kind.changes_score, kind.mirror_contradicts) == (changes_score, mirror_contradicts)
    differ = relation.must_differ()
    assert len(differ) == pairs
    assert all(x != y and {x, y} <= set(relation.roles()) for x, y in differ)
    # a kind that predicts a change has texts that must differ
    assert not changes_score or differ
    # contradicted by its mirror: the scores that satisfy the kind break the mirror; otherwise
    # both can hold on the same scores (no_increase and no_decrease for an unchanged score)
    holds = ROWS[name][1]
    mirrored = check_relation(mirror(relation), holds, 0.05, True).verdict
    assert (mirrored is V.fault) == mirror_contradicts


def test_every_requirement_is_tested_by_some_kind() -> None:
    assert {r for kind in KINDS.values() for r in kind.requirements} == set(R)


# kind -> (the role the others are compared with, the graded series the ordering statistics
#          read, the repeats the kind itself asks for) for ROWS' example
READING = {
    "decrease": ("original", None, None),
    "increase": ("original", None, None),
    "no_increase": ("original", None, None),
    "no_decrease": ("original", None, None),
    "invariant": ("original", None, None),
    "repeatable": ("original", None, 3),
    "combined": ("original", None, None),
    "ordered": ("a", ["a", "b", "c"], None),
    "spans": ("a", None, None),
    "at_level": ("original", None, None),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_each_kind_says_its_reference_series_and_repeats(name: str) -> None:
    """What the reports, the ordering statistics and the executor read from the kind (they
    never test a relation's class)."""
    from sane.relations import reference_role

    kind, relation = KINDS[name], _relation(ROWS[name][0])
    reference, series, repeats = READING[name]
    assert reference_role(relation) == reference
    assert (kind.series(relation) if kind.series else None) == series
    assert (kind.repeats(relation) if kind.repeats else None) == repeats


# kind -> whether a scorer that never moves can fail ROWS' example (issue 51: only such cases
# count in the default ranking score). `ordered` and `combined` predict a change yet pass
# ties, so `changes_score` (the no-op guard's question) is not the answer.
DISCRIMINATES = {
    "decrease": True,
    "increase": True,
    "no_increase": False,
    "no_decrease": False,
    "invariant": False,
    "repeatable": False,
    "combined": False,
    "ordered": False,
    "spans": True,
    "at_level": True,  # a constant passes a band only where its level falls in it: by chance
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_each_kind_says_whether_a_scorer_that_never_moves_can_fail_it(name: str) -> None:
    from sane.relations import discriminates

    relation = _relation(ROWS[name][0])
    assert discriminates(relation) is DISCRIMINATES[name]
    assert discriminates(mirror(relation), higher_is_better=False) is DISCRIMINATES[name]


def test_a_band_that_covers_the_whole_range_does_not_discriminate() -> None:
    from sane.relations import discriminates

    whole = _relation({"kind": "at_level", "low": 0.0, "high": 1.0})
    assert not discriminates(whole)
    assert discriminates(_relation({"kind": "at_level", "low": 0.0, "high": 0.99}))


@pytest.mark.parametrize("name", sorted(ROWS))
def test_at_a_targets_own_level_only_a_band_depends_on_where_it_sits(name: str) -> None:
    """Asked of the scorer that never moves from one level, a kind that fails equal scores
    fails them there too, one that passes them passes them there too; a band discriminates
    only where the level (give or take the tolerance) falls outside it."""
    from sane.relations import discriminates

    relation = _relation(ROWS[name][0])
    if name != "at_level":
        for level in (0.0, 0.37, 1.0):
            assert discriminates(relation, level=level, tolerance=0.02) is DISCRIMINATES[name]
        return
    band = _relation({"kind": "at_level", "low": 0.0, "high": 0.3})
    assert not discriminates(band, level=0.1)  # sits in it: passes without moving
    assert discriminates(band, level=0.8)  # must move into it
    assert not discriminates(band, level=0.31, tolerance=0.02)  # within the tolerance
    assert discriminates(band, level=0.31, tolerance=0.0)
