"""The python target imports `module:function` and calls it with the record."""

from __future__ import annotations

import pytest

from sane.errors import InputError
from sane.records import OutputContract
from sane.scorers import build_target
from sane.scorers.base import BuildContext
from sane.target_kind import target_config


def length_score(record: dict[str, str]) -> float:
    return min(5.0, 1.0 + len(record["summary"].split()))


async def async_length_score(record: dict[str, str]) -> float:
    return length_score(record)


def ref(name: str) -> str:
    return f"{__name__}:{name}"


async def test_sync_function_scores_the_record(context: BuildContext) -> None:
    config = target_config(name="mine", kind="python", ref=ref("length_score"))
    target = build_target(config, context)
    assert await target.score({"source": "s", "summary": "two words"}) == 3.0
    assert target.contract == context.spec.output
    assert target.deterministic is False


async def test_async_function_and_own_contract(context: BuildContext) -> None:
    contract = OutputContract(min=0, max=10, higher_is_better=False)
    config = target_config(
        name="mine",
        kind="python",
        ref=ref("async_length_score"),
        output=contract,
        deterministic=True,
    )
    target = build_target(config, context)
    assert await target.score({"source": "s", "summary": "one"}) == 2.0
    assert target.contract == contract
    assert target.deterministic is True


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        (None, "needs ref"),
        ("no_colon_here", "not of the form"),
        ("sane_no_such_module_xyz:f", "cannot import module"),
        (f"{__name__}:missing_function", "has no attribute"),
        (f"{__name__}:__doc__", "not callable"),
    ],
)
def test_bad_ref_is_input_error_naming_the_field(
    context: BuildContext, given: str | None, problem: str
) -> None:
    with pytest.raises(InputError, match=problem) as info:
        build_target(target_config(name="mine", kind="python", ref=given), context)
    assert info.value.field == "targets.mine.ref"


def test_deterministic_flag_must_be_boolean(context: BuildContext, tmp_path) -> None:
    import yaml

    from sane.inputs import load_spec

    target = {"name": "m", "kind": "python", "ref": ref("length_score"), "deterministic": "yes"}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(context.spec.model_dump(mode="json") | {"targets": [target]}))
    with pytest.raises(
        InputError, match=r"targets\.m\.deterministic: Input should be a valid boolean"
    ):
        load_spec(path)


def test_a_module_beside_the_spec_is_found_and_a_missing_one_gets_a_hint(tmp_path) -> None:
    """The README's layout: `my_scorers.py` next to `spec.yaml`, neither on the Python path.
    The spec's folder is searched (after the path) for the import and for the code hash."""
    import sys

    import yaml

    from sane.inputs import load_spec
    from sane.scorers.suite_targets import freeze_targets

    module = "beside_the_spec_scorers"
    spec = {
        "name": "mine", "criterion": "How faithful the summary is.",
        "fields": {"source": "the document", "summary": "the text being scored"},
        "scored_field": "summary", "output": {"type": "ordinal", "min": 1, "max": 5},
        "targets": [{"name": "mine", "kind": "python", "ref": f"{module}:score"}],
    }  # fmt: skip
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    (tmp_path / f"{module}.py").write_text("def score(record):\n    return 3.0\n")
    loaded, path = load_spec(tmp_path / "spec.yaml")
    folder = str(tmp_path.resolve())
    try:
        (frozen,) = freeze_targets(loaded, path.parent, str(path))
        assert frozen.code_sha256 is not None  # hashed from the file beside the spec
        sys.modules.pop(module)
        (tmp_path / f"{module}.py").unlink()
        with pytest.raises(InputError, match=f"put {module}.py beside the spec") as info:
            freeze_targets(loaded, path.parent, str(path))
        assert folder in str(info.value)  # where it looked
    finally:
        sys.path.remove(folder)
        sys.modules.pop(module, None)
