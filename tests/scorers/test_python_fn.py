"""The python target imports `module:function` and calls it with the record."""

from __future__ import annotations

import pytest

from sane.errors import InputError
from sane.records import OutputContract, TargetConfig
from sane.scorers import build_target
from sane.scorers.base import BuildContext


def length_score(record: dict[str, str]) -> float:
    return min(5.0, 1.0 + len(record["summary"].split()))


async def async_length_score(record: dict[str, str]) -> float:
    return length_score(record)


def ref(name: str) -> str:
    return f"{__name__}:{name}"


async def test_sync_function_scores_the_record(context: BuildContext) -> None:
    config = TargetConfig(name="mine", kind="python", ref=ref("length_score"))
    target = build_target(config, context)
    assert await target.score({"source": "s", "summary": "two words"}) == 3.0
    assert target.contract == context.spec.output
    assert target.deterministic is False


async def test_async_function_and_own_contract(context: BuildContext) -> None:
    contract = OutputContract(min=0, max=10, higher_is_better=False)
    config = TargetConfig(
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
        build_target(TargetConfig(name="mine", kind="python", ref=given), context)
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
