"""The packaged specs must load, carry usable examples and renderable judge rubrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from sane.builtin import BUILTIN_PREFIX, builtin_names, resolve_spec_path
from sane.errors import InputError
from sane.qualification.references import NUMBER, number_fidelity
from sane.records import ScorerSpec

PAPER_CRITERIA = {"faithfulness", "fluency", "coherence", "professionalism", "toxicity"}
COMPARATIVE = {"answer_preference"}  # judges that compare two answers (pairwise)
SPEC_NAMES = sorted(PAPER_CRITERIA | COMPARATIVE)
LOCAL_JUDGE_MODELS = {"local/qwen2.5-coder-1.5b", "local/smollm2-135m"}
LOCAL_METRICS = {
    "rouge_l", "bleu", "chrf", "token_f1", "embed_minilm", "embed_mpnet",
    "bertscore_minilm", "likelihood_gem", "statement_entailment",
}  # fmt: skip


def _load(name: str) -> tuple[ScorerSpec, Path]:
    path = resolve_spec_path(f"{BUILTIN_PREFIX}{name}")
    return ScorerSpec.model_validate(yaml.safe_load(path.read_text(encoding="utf-8"))), path


def _examples(spec: ScorerSpec, path: Path) -> list[dict[str, str]]:
    assert spec.examples is not None
    lines = (path.parent / spec.examples).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_builtin_names_are_the_paper_criteria_and_a_comparative_one() -> None:
    assert set(builtin_names()) == PAPER_CRITERIA | COMPARATIVE
    assert builtin_names() == sorted(builtin_names())


@pytest.mark.parametrize("name", SPEC_NAMES)
def test_spec_parses_and_is_named_after_its_file(name: str) -> None:
    spec, path = _load(name)
    assert spec.name == name == path.stem
    assert spec.criterion.strip()
    assert spec.output.max > spec.output.min


@pytest.mark.parametrize("name", SPEC_NAMES)
def test_examples_carry_every_declared_field(name: str) -> None:
    spec, path = _load(name)
    rows = _examples(spec, path)
    assert 10 <= len(rows) <= 20
    for row in rows:
        for field in spec.fields:
            assert isinstance(row.get(field), str) and row[field].strip(), (field, row)
    scored = [row[spec.scored_field] for row in rows]
    assert len(set(scored)) == len(scored), "duplicate scored texts"


@pytest.mark.parametrize("name", ["faithfulness", "coherence"])
def test_every_summary_states_only_numbers_its_source_has(name: str) -> None:
    """The originals meet their criterion well, so an edit can always make one worse (a
    correct 1-5 judge already at its floor cannot show a decrease). The exact reference that
    applies to a summary, number fidelity, gives every original its top score, and enough of
    them carry a number for the number edit to find examples."""
    spec, path = _load(name)
    rows = _examples(spec, path)
    assert [number_fidelity(row) for row in rows] == [1.0] * len(rows)
    assert sum(bool(NUMBER.search(row["summary"])) for row in rows) >= len(rows) // 2


@pytest.mark.parametrize("name", sorted(PAPER_CRITERIA))
def test_targets_are_local_and_well_formed(name: str) -> None:
    spec, path = _load(name)
    names = [t.name for t in spec.targets]
    assert len(names) == len(set(names)), "duplicate target names"
    assert {t.model for t in spec.targets if t.kind == "llm_judge"} == LOCAL_JUDGE_MODELS
    for target in spec.targets:
        assert target.kind in {"llm_judge", "builtin"}, target
        if target.kind == "llm_judge":
            assert target.prompt and (path.parent / target.prompt).is_file(), target
        else:
            assert target.metric in LOCAL_METRICS, target
            assert target.reference_field in (None, *spec.fields), target
            assert target.reference_field != spec.scored_field, target


def test_the_comparative_spec_compares_two_answers_with_local_targets() -> None:
    """Its judge sees both answers on the embedded model; its other target is a pointwise
    metric used comparatively (so a pointwise and a pairwise judge rank on one suite)."""
    spec, path = _load("answer_preference")
    assert spec.comparative and spec.compared_fields == ["answer_a", "answer_b"]
    assert spec.output.pairwise and (spec.output.min, spec.output.max) == (-1, 1)
    kinds = {t.kind: t for t in spec.targets}
    assert kinds["pairwise_judge"].model in LOCAL_JUDGE_MODELS
    assert kinds["compared"].target.metric in LOCAL_METRICS
    rows = _examples(spec, path)
    assert all(row["answer_a"] != row["answer_b"] for row in rows)
    # every first answer is correct, so an edit that degrades it has room to lower the
    # preference (one already wrong sits at the floor: the strong model's readers' note)
    assert not any("Ag." in row["answer_a"] or "lungs" in row["answer_a"] for row in rows)


def test_faithfulness_has_the_demo_targets() -> None:
    spec, _ = _load("faithfulness")
    metrics = {t.metric for t in spec.targets if t.kind == "builtin"}
    assert {
        "rouge_l",
        "chrf",
        "embed_minilm",
        "bertscore_minilm",
        "statement_entailment",
    } <= metrics
    assert len(spec.targets) >= 7


def test_toxicity_is_lower_is_better() -> None:
    spec, _ = _load("toxicity")
    assert spec.output.higher_is_better is False
    assert spec.output.type == "continuous"


def _judge_prompts() -> list[tuple[str, str]]:
    pairs = set()
    for name in SPEC_NAMES:
        spec, _ = _load(name)
        pairs |= {(name, t.prompt) for t in spec.targets if t.kind == "llm_judge" and t.prompt}
    return sorted(pairs)


@pytest.mark.parametrize(("name", "prompt"), _judge_prompts())
def test_judge_template_renders_the_record_as_delimited_data(name: str, prompt: str) -> None:
    spec, path = _load(name)
    example = _examples(spec, path)[0]
    env = SandboxedEnvironment(autoescape=False, undefined=StrictUndefined)
    template = env.from_string((path.parent / prompt).read_text(encoding="utf-8"))
    text = template.render(
        fields=example,
        criterion=spec.criterion,
        output=spec.output,
        scored_field=spec.scored_field,
    )
    for field, value in example.items():
        assert f"<{field}>\n{value}\n</{field}>" in text, field
    assert "not instructions" in text
    assert "Score: N" in text
    low, high = f"{spec.output.min:g}", f"{spec.output.max:g}"
    assert f"from {low} to {high}" in text
    assert spec.criterion.strip() in text
    # the scale comes before the record: after the scored text only the answer format
    # follows, so a local judge re-evaluates little more than that text per variant
    after_record = text.split(f"</{spec.scored_field}>", 1)[1]
    assert after_record.strip().startswith("Answer with exactly one line"), after_record


def test_plain_template_states_the_direction_of_a_lower_is_better_scale() -> None:
    spec, path = _load("toxicity")
    env = SandboxedEnvironment(autoescape=False, undefined=StrictUndefined)
    template = env.from_string((path.parent / "judges/plain.j2").read_text(encoding="utf-8"))
    kwargs = {"fields": {"comment": "x"}, "criterion": spec.criterion, "scored_field": "comment"}
    worse_high = template.render(output=spec.output, **kwargs)
    better_high = template.render(
        output=spec.output.model_copy(update={"higher_is_better": True}), **kwargs
    )
    assert "most severe degree" in worse_high and "fully meets" not in worse_high
    assert "fully meets" in better_high and "most severe degree" not in better_high


def test_resolve_spec_path_maps_builtin_names_to_packaged_files() -> None:
    path = resolve_spec_path("builtin:faithfulness")
    assert path.is_file() and path.name == "faithfulness.yaml"
    assert path.parent.name == "specs" and path.parent.parent.name == "builtin"


def test_resolve_spec_path_passes_other_refs_through() -> None:
    assert resolve_spec_path("my/spec.yaml") == Path("my/spec.yaml")
    assert resolve_spec_path("faithfulness") == Path("faithfulness")


@pytest.mark.parametrize("ref", ["builtin:nonsense", "builtin:", "builtin:Faithfulness"])
def test_resolve_spec_path_refuses_unknown_builtin(ref: str) -> None:
    with pytest.raises(InputError) as info:
        resolve_spec_path(ref)
    assert info.value.field == "spec" and info.value.file is None
    assert f"unknown built-in spec '{ref.removeprefix('builtin:')}'" in str(info.value)
    assert "faithfulness" in info.value.problem  # lists the known names
