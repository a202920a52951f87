"""The llm_judge target: rubric rendering, parsing and the sandbox."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from sane.errors import InputError
from sane.records import Case, PairRelation, Recipe, Requirement, ScorerSpec, Verdict
from sane.scorers import build_target, run_case
from sane.scorers.base import BuildContext
from sane.target_kind import target_config

RECORD = {"source": "The cat sat on the mat.", "summary": "A cat sat."}


@dataclass
class FakeLLM:
    """Replies from a fixed list and remembers every call."""

    replies: list[str]
    calls: list[dict] = field(default_factory=list)

    async def text(
        self, model, messages, *, task, sample_index=0, temperature=None, max_tokens=None
    ) -> str:
        self.calls.append(
            {
                "model": model,
                "messages": messages,
                "task": task,
                "sample_index": sample_index,
                "temperature": temperature,
            }
        )
        return self.replies[len(self.calls) - 1]

    def serial_key(self, model: str) -> str | None:
        return None


def judge(spec: ScorerSpec, base: Path, llm: FakeLLM, prompt: str | None = None, **extra):
    context = BuildContext(spec=spec, base_dir=base, llm=llm)
    config = target_config(
        name="gpt", kind="llm_judge", model="openai/gpt-4o-mini", prompt=prompt, **extra
    )
    return build_target(config, context)


async def test_default_rubric_and_score_line(spec: ScorerSpec, tmp_path: Path) -> None:
    llm = FakeLLM(["Reasoning...\nScore: 4"])
    target = judge(spec, tmp_path, llm, temperature=0.7)
    assert await target.score(RECORD, repeat=2) == 4.0
    (call,) = llm.calls
    assert call["model"] == "openai/gpt-4o-mini" and call["task"] == "judge:gpt"
    assert call["sample_index"] == 2 and call["temperature"] == 0.7
    prompt = call["messages"][-1]["content"]
    assert spec.criterion in prompt and RECORD["source"] in prompt and RECORD["summary"] in prompt
    assert "from 1 to 5" in prompt
    assert target.deterministic is False and target.contract == spec.output


async def test_json_reply(spec: ScorerSpec, tmp_path: Path) -> None:
    target = judge(spec, tmp_path, FakeLLM(['{"score": 2, "reason": "unsupported claim"}']))
    assert await target.score(RECORD) == 2.0


async def test_prose_reply_is_an_error_record(spec: ScorerSpec, tmp_path: Path) -> None:
    target = judge(spec, tmp_path, FakeLLM(["I think it's good", "I think it's good"]))
    recipe = Recipe(
        id="r",
        capability_id="c",
        requirement=Requirement.robustness,
        name="ws",
        instruction="add spaces",
        variant_roles=["original", "perturbed"],
        relation=PairRelation(kind="invariant"),
        rationale="format is irrelevant",
    )
    case = Case(
        id="k",
        recipe_id="r",
        index=0,
        example_index=0,
        example=RECORD,
        variants={"original": "A cat sat.", "perturbed": "A  cat  sat."},
    )
    record = await run_case(target, spec, recipe, case, 0.05, timeout_s=5.0)
    assert record.verdict == Verdict.error
    assert "unparseable judge output" in (record.error or "")


async def test_user_template_gets_data_not_code(spec: ScorerSpec, tmp_path: Path) -> None:
    (tmp_path / "rubric.j2").write_text(
        "Rate {{ scored_field }} for: {{ criterion }}\n"
        "{{ fields.summary }}\nRange {{ output.min }}-{{ output.max }}"
    )
    llm = FakeLLM(["5"])
    target = judge(spec, tmp_path, llm, prompt="rubric.j2")
    record = dict(RECORD, summary="{{ 7 * 7 }} {% if true %}x{% endif %}")
    assert await target.score(record) == 5.0
    prompt = llm.calls[0]["messages"][-1]["content"]
    assert "{{ 7 * 7 }}" in prompt and "49" not in prompt
    assert prompt.startswith("Rate summary for: Every claim") and prompt.endswith("Range 1-5")


@pytest.mark.parametrize(
    "template",
    [
        "{{ fields.__class__.__mro__ }}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ criterion.__class__.__base__.__subclasses__() }}",
        "{{ fields.items.__globals__ }}",
        "{{ cycler.__init__.__globals__.os }}",
    ],
)
async def test_sandbox_blocks_introspection(
    spec: ScorerSpec, tmp_path: Path, template: str
) -> None:
    (tmp_path / "evil.j2").write_text(template)
    llm = FakeLLM(["5"])
    target = judge(spec, tmp_path, llm, prompt="evil.j2")
    record = await run_case(
        target,
        spec,
        Recipe(
            id="r",
            capability_id="c",
            requirement=Requirement.repeatability,
            name="n",
            instruction="i",
            variant_roles=["original", "perturbed"],
            relation=PairRelation(kind="invariant"),
            rationale="r",
        ),
        Case(
            id="k",
            recipe_id="r",
            index=0,
            example_index=0,
            example=RECORD,
            variants={"original": "a", "perturbed": "b"},
        ),
        0.05,
        timeout_s=5.0,
    )
    assert record.verdict == Verdict.error
    assert "rubric template failed" in (record.error or "")
    assert llm.calls == []


def test_bad_prompt_and_config_are_input_errors(spec: ScorerSpec, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read rubric") as info:
        judge(spec, tmp_path, FakeLLM([]), prompt="missing.j2")
    assert info.value.field == "targets.gpt.prompt"
    (tmp_path / "broken.j2").write_text("{% if %}")
    with pytest.raises(InputError, match="invalid jinja2 template"):
        judge(spec, tmp_path, FakeLLM([]), prompt="broken.j2")
    with pytest.raises(InputError) as info:
        build_target(
            target_config(name="gpt", kind="llm_judge"),
            BuildContext(spec=spec, base_dir=tmp_path, llm=FakeLLM([])),
        )
    assert info.value.field == "targets.gpt.model"
    with pytest.raises(InputError, match="LLM client"):
        build_target(
            target_config(name="gpt", kind="llm_judge", model="m"),
            BuildContext(spec=spec, base_dir=tmp_path),
        )


def test_a_misspelt_rubric_field_is_refused_at_load_before_any_call(workdir: Path) -> None:
    """`{{ fields.summry }}`: the rubric renders on the first example when the spec is loaded,
    so the typo is bad input naming the prompt, before a single paid call (the scripted
    model here would answer none: its rules file is empty)."""
    import yaml

    import sane
    from sane.llm import LLMSettings

    (workdir / "judge.j2").write_text("Source: {{ fields.source }}\nSummary: {{ fields.summry }}\n")
    spec = yaml.safe_load((workdir / "tiny_spec.yaml").read_text())
    spec["targets"] = [{"name": "judge", "kind": "llm_judge", "model": "scripted",
                        "prompt": "judge.j2"}]  # fmt: skip
    (workdir / "tiny_spec.yaml").write_text(yaml.safe_dump(spec))
    (workdir / "empty.yaml").write_text("rules: []\n")
    settings = LLMSettings(cache_path=workdir / "cache.db", script_path=workdir / "empty.yaml")
    with pytest.raises(InputError, match=r"summry.*fields\.summary") as info:
        sane.generate(workdir / "tiny_spec.yaml", suite=workdir / "suite.db", model="scripted",
                      llm=settings)  # fmt: skip
    assert info.value.field == "targets.judge.prompt"
    assert not (workdir / "suite.db").exists() and not (workdir / "cache.db").exists()
