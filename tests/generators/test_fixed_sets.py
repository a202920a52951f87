"""The shipped fixed sets load, match their papers' inventories and build valid recipes."""

from __future__ import annotations

from pathlib import Path

import pytest

from sane.edits import TRANSFORMS
from sane.errors import InputError
from sane.generators import available_generators, fixed_set_names, get_generator, load_fixed_set
from sane.records import (
    Capability,
    OutputContract,
    PairRelation,
    Recipe,
    RunConfig,
    ScorerSpec,
)
from sane.relations import mirror

# (capabilities, recipes, recipes written by code) per shipped set, from the papers.
INVENTORY = {
    "jrh": (5, 8, 4),  # label flip; blank lines, spaces, tabs; paraphrase; long/short; repeat
    "behavioral": (12, 14, 0),  # Table 1: 12 assumptions, 14 transformations
    "scoring-rules": (2, 12, 3),  # Tables 1 and 2: 6 degradation + 6 manipulation
    "pairwise": (5, 8, 8),  # padding x2, praise and note, blank lines and spaces, copy, repeat
}


def _spec(higher_is_better: bool) -> ScorerSpec:
    return ScorerSpec(
        name="s",
        criterion="c",
        fields={"text": "the text"},
        scored_field="text",
        output=OutputContract(min=0, max=1, higher_is_better=higher_is_better),
    )


def test_every_shipped_set_is_listed() -> None:
    assert fixed_set_names() == sorted(INVENTORY)
    listed = available_generators()
    assert listed[0] == "derived"
    assert {f"fixed:{n}" for n in INVENTORY} <= set(listed)


@pytest.mark.parametrize("name", sorted(INVENTORY))
async def test_set_builds_schema_valid_records(name: str) -> None:
    generator = get_generator(f"fixed:{name}")
    config = RunConfig(model="m", oracle_models=["m"], generator=f"fixed:{name}")
    spec = _spec(True)
    capabilities = await generator.capabilities(None, spec, [], config)  # type: ignore[arg-type]
    recipes: list[Recipe] = []
    for capability in capabilities:
        found, rejected = await generator.recipes(None, spec, capability, config)  # type: ignore[arg-type]
        assert rejected == []
        assert {r.capability_id for r in found} == {capability.id}
        recipes += found
    n_caps, n_recipes, n_code = INVENTORY[name]
    assert len(capabilities) == n_caps and len(recipes) == n_recipes
    assert sum(r.transform is not None for r in recipes) == n_code
    assert len({r.id for r in recipes}) == n_recipes
    for record in [*capabilities, *recipes]:
        # A round trip through the shared schema, as the suite store does it.
        type(record).model_validate_json(record.model_dump_json())
    assert all(isinstance(c, Capability) for c in capabilities)
    assert all(r.generator == f"fixed:{name}" for r in recipes)
    assert all(r.transform is None or r.transform in TRANSFORMS for r in recipes)


async def test_relations_are_mirrored_for_lower_is_better() -> None:
    generator = get_generator("fixed:scoring-rules")
    config = RunConfig(model="m", oracle_models=["m"], generator="fixed:scoring-rules")
    kinds = {}
    for higher in (True, False):
        spec = _spec(higher)
        (capability, *_) = await generator.capabilities(None, spec, [], config)  # type: ignore[arg-type]
        recipes, _ = await generator.recipes(None, spec, capability, config)  # type: ignore[arg-type]
        kinds[higher] = {r.relation.kind for r in recipes}
    assert kinds == {True: {"decrease"}, False: {"increase"}}


def test_mirror_pairs_and_invariant() -> None:
    assert mirror(PairRelation(kind="no_increase")).kind == "no_decrease"
    assert mirror(PairRelation(kind="invariant")).kind == "invariant"


def test_unknown_names_are_bad_input() -> None:
    with pytest.raises(InputError, match="unknown fixed set 'nope'"):
        get_generator("fixed:nope")
    with pytest.raises(InputError, match="unknown generator"):
        get_generator("handmade")
    with pytest.raises(InputError, match="fixed:NAME"):
        get_generator("fixed")


def test_a_set_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(
        "name: mine\ntitle: Mine\nsource: here\ncapabilities:\n"
        "  - key: fmt\n    name: Format\n    description: d\n    requirement: robustness\n"
        "    recipes:\n      - key: spaces\n        name: spaces\n        instruction: i\n"
        "        relation: {kind: invariant}\n        rationale: r\n        transform: extra_spaces\n",
        encoding="utf-8",
    )
    fixed = load_fixed_set(str(path))
    assert [c.id for c in fixed.capability_records()] == ["cap-fmt"]


@pytest.mark.parametrize(
    ("recipe_yaml", "message"),
    [
        ("relation: {kind: invariant}\n        transform: nope", "unknown transform"),
        ("relation: {kind: sideways}", "kind"),
        ("relation: {kind: invariant, perturbed: other}", "not in variant_roles"),
    ],
)
def test_bad_recipe_files_name_the_problem(tmp_path: Path, recipe_yaml: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "name: bad\ntitle: Bad\nsource: here\ncapabilities:\n"
        "  - key: fmt\n    name: Format\n    description: d\n    requirement: robustness\n"
        "    recipes:\n      - key: r\n        name: r\n        instruction: i\n"
        f"        rationale: r\n        {recipe_yaml}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=message) as raised:
        load_fixed_set(str(path))
    assert raised.value.file == str(path)
