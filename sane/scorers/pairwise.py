"""Comparative targets: judges that say which of two candidates is better.

A comparative spec (`compared_fields: [answer_a, answer_b]`, `output: {type: pairwise}`) is
scored as a preference for the first candidate: the contract's maximum says A is better, its
minimum B, its midpoint a tie. Two kinds register here:

- `pairwise_judge`: an LLM given a rubric that shows both candidates (the shipped default,
  or a jinja2 file of the user's); it replies A, B or tie (`{"verdict": ...}`, a `Verdict: A`
  line or the bare word), or a preference strength on the contract's scale.
- `compared`: any pointwise target (a metric, a pointwise judge, a python function) used
  comparatively: it scores each candidate on its own and prefers the higher, so a pointwise
  and a pairwise judge can be ranked on one pairwise suite. Scoring each side apart it
  cannot favour a position, which makes it the symmetric reference of the swap audit.

A python function needs no kind of its own: a `python` target of a comparative spec gets the
record with both candidates and returns the preference.
"""

from __future__ import annotations

import json
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from jinja2 import TemplateError
from pydantic import BaseModel, Field, model_validator

from sane.errors import InputError, ScorerError
from sane.records import OutputContract, ScorerSpec, SuiteTarget, TargetConfig
from sane.scorers._rubric_limits import render_bounded
from sane.scorers.base import BuildContext, Target, build_target
from sane.scorers.judge_parse import parse_judge_score
from sane.scorers.llm_judge import (
    JudgeConfig,
    LLMJudge,
    _contract_view,
    _freeze,
    field_tags,
    load_rubric,
    rendered_at_load,
)
from sane.target_kind import AnyTargetConfig, Frozen, TargetKind, kind_of, register_target_kind

DEFAULT_PAIRWISE_TEMPLATE = Path(__file__).parent / "templates" / "pairwise_default.j2"

Choice = Literal["A", "B", "tie"]


def _comparative(spec: ScorerSpec, name: str, kind: str) -> tuple[str, str]:
    if spec.compared_fields is None:
        raise InputError(
            "spec",
            f"targets.{name}.kind",
            f"a {kind} target needs a comparative spec (compared_fields: [first, second] and "
            "output type pairwise)",
        )
    first, second = spec.compared_fields
    return first, second


def preference(choice: str, contract: OutputContract) -> float:
    """A verdict on the contract's scale: A its maximum, B its minimum, a tie its midpoint."""
    if choice == "A":
        return contract.max
    if choice == "B":
        return contract.min
    return contract.min + contract.span / 2


_VERDICT_WORD = r"(A|B|tie|TIE|Tie)"
_VERDICT_LINE = re.compile(
    rf"^[\s*#>_-]*(?:verdict|winner|better|answer)[\s*_]*[:=][\s*_\"']*{_VERDICT_WORD}\b[\s*_\"'.]*$",
    re.IGNORECASE | re.MULTILINE,
)
_BARE_VERDICT = re.compile(rf"^\s*[\"'*]*{_VERDICT_WORD}[\"'*.]*\s*$")
_CANDIDATE = re.compile(r"^\s*[\"'*]*candidate[ _]([ab])\b[\"'*.]*\s*$", re.IGNORECASE)
# A verdict named anywhere, mid-line too (`{"verdict": "A"} Verdict: B`): never read as the
# answer (prose says "the answer: a ..."), only to refuse a reply that names two.
# A reply that opens as the asked JSON object, its verdict first, whose rest does not parse
# (an unescaped quote in the reason, a cut at the token limit): the embedded judge wrote 5
# such of 12 replies in reply: text mode, each a clear verdict (bench_pairwise.py)
_OPENING_VERDICT = re.compile(
    r"^\s*\{\s*\"verdict\"\s*:\s*\"(?i:candidate[ _])?(A|B|[Tt]ie|TIE)\"\s*[,}]"
)
_VERDICT_ANYWHERE = re.compile(
    r"\b(?i:verdict|winner)[\"'*_]*\s*[:=]\s*[\"'*_]*(?:candidate[ _])?(A|B|[Tt]ie|TIE)\b"
)


def _choice(word: str) -> Choice:
    return "tie" if word.lower() == "tie" else ("A" if word.upper() == "A" else "B")


def parse_verdict(reply: str, contract: OutputContract) -> float:
    """The preference a pairwise judge's reply gives, or a ScorerError: a JSON object with
    "verdict" (A, B, tie) or "score" (a strength on the scale), a `Verdict: A` line, the bare
    word, or a score as a pointwise judge gives one. Two different verdicts in one reply are
    refused, never picked between."""
    text = reply.strip()
    found: set[Choice] = set()
    for candidate in (text, *(m.group(0) for m in re.finditer(r"\{.*?\}", text, re.DOTALL))):
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and isinstance(data.get("verdict"), str):
            word = re.sub(r"(?i)^candidate[ _]", "", data["verdict"].strip().strip("."))
            if re.fullmatch(_VERDICT_WORD, word, re.IGNORECASE):
                found.add(_choice(word))
    found |= {_choice(m.group(1)) for m in _VERDICT_LINE.finditer(text)}
    opening = _OPENING_VERDICT.match(text)
    if opening and not found:
        found.add(_choice(opening.group(1)))
    bare = _BARE_VERDICT.match(text) or _CANDIDATE.match(text)
    if bare:
        found.add(_choice(bare.group(1)))
    if found:
        found |= {_choice(m.group(1)) for m in _VERDICT_ANYWHERE.finditer(text)}
    if len(found) > 1:
        raise ScorerError(f"unparseable pairwise verdict: names {sorted(found)} in {text[:120]!r}")
    if found:
        return preference(found.pop(), contract)
    try:
        return parse_judge_score(reply)
    except ScorerError as exc:
        raise ScorerError(
            f"unparseable pairwise verdict: no A, B or tie and no score in {text[:120]!r}"
        ) from exc


class PairwiseReply(BaseModel):
    """The JSON a `reply: json` pairwise judge must give: a verdict, one of three words (a
    local model's grammar enforces the enum, so a small model cannot answer "C")."""

    verdict: Choice


def pairwise_reply_schema() -> type[BaseModel]:
    return PairwiseReply


class PairwiseJudgeConfig(JudgeConfig):
    """A `pairwise_judge` target: a `model` given a rubric that shows both candidates
    (`prompt`, a jinja2 file beside the spec; the shipped default without one)."""

    kind: Literal["pairwise_judge"] = "pairwise_judge"  # type: ignore[assignment]


@dataclass
class PairwiseJudge(LLMJudge):
    """A rubric-prompted model that says which candidate is better."""

    first: str = ""
    second: str = ""

    def render(self, record: dict[str, str]) -> str:
        tags = field_tags((*self.spec.fields, "candidate_a", "candidate_b"))
        safe = {name: tags.sub(r"&lt;\1", str(text)) for name, text in record.items()}
        variables = {
            "fields": safe,
            "context": {k: v for k, v in safe.items() if k not in (self.first, self.second)},
            "candidate_a": safe.get(self.first, ""),
            "candidate_b": safe.get(self.second, ""),
            "compared_fields": [self.first, self.second],
            "descriptions": dict(self.spec.fields),
            "criterion": self.spec.criterion,
            "output": _contract_view(self.contract),
            "scored_field": self.spec.scored_field,
        }
        try:
            return render_bounded(self.rubric, variables)
        except TemplateError as exc:
            raise ScorerError(f"judge {self.name}: rubric template failed: {exc}") from exc

    def reply_schema(self) -> type[BaseModel]:
        return pairwise_reply_schema()

    def read_answer(self, answer: Any) -> float:
        return preference(answer.verdict, self.contract)

    def read_reply(self, reply: str) -> float:
        return parse_verdict(reply, self.contract)


def build_pairwise_judge(config: PairwiseJudgeConfig, context: BuildContext) -> Target:
    first, second = _comparative(context.spec, config.name, "pairwise_judge")
    if not config.model:
        raise InputError("spec", f"targets.{config.name}.model", "a pairwise_judge needs a model")
    if context.llm is None:
        raise InputError(None, f"targets.{config.name}", "a pairwise_judge needs an LLM client")
    judge = PairwiseJudge(
        name=config.name,
        model=config.model,
        rubric=load_rubric(config, context, DEFAULT_PAIRWISE_TEMPLATE),
        spec=context.spec,
        contract=config.output or context.spec.output,
        llm=context.llm,
        temperature=config.temperature,
        reply=config.reply,
        first=first,
        second=second,
    )
    return rendered_at_load(judge, config, context, DEFAULT_PAIRWISE_TEMPLATE)


PAIRWISE_JUDGE = register_target_kind(
    TargetKind(
        name="pairwise_judge",
        config=PairwiseJudgeConfig,
        build=build_pairwise_judge,
        freeze=_freeze,
        judge=True,
        scores="pairwise",
    )
)


# ------------------------------------------------------------------ compared


class ComparedConfig(TargetConfig):
    """A `compared` target: the pointwise target `target` (any kind but a comparative one,
    named after this one) scores each candidate on its own; the preference is the difference
    of the two scores as a share of its range, a tie where they differ by at most `margin`
    (in the pointwise target's own units: `margin: 1` on a 1-5 judge ties 4 and 3)."""

    kind: Literal["compared"] = "compared"
    target: AnyTargetConfig
    margin: float = Field(default=0.0, ge=0.0)

    SETTINGS: ClassVar[frozenset[str]] = TargetConfig.SETTINGS | {"target", "margin"}

    @model_validator(mode="before")
    @classmethod
    def _inner_named(cls, data: Any) -> Any:
        """The wrapped target is named after this one (a spec need not name it twice)."""
        if isinstance(data, dict) and isinstance(data.get("target"), dict):
            data = {**data, "target": {"name": data.get("name"), **data["target"]}}
        return data

    def hashed(self) -> dict[str, Any]:
        """Its own keys, and the wrapped target's definition whole (its kind included, which
        a dump leaving defaults out would drop)."""
        return super().hashed() | {"target": self.inner().hashed()}

    def inner(self) -> TargetConfig:
        """The pointwise target, under this target's name (its rubric is stored by it)."""
        return self.target.model_copy(update={"name": self.name})

    def models(self) -> list[str]:
        return self.target.models()


def _pointwise_view(spec: ScorerSpec, inner: TargetConfig) -> ScorerSpec:
    """The spec as a pointwise target of it sees it: the first candidate is the scored field,
    the second is not there at all (a judge's rubric shows every field it is given: one that
    saw the other candidate would compare, not score one text), and its output is the inner
    target's own contract (a preference range means nothing to it)."""
    second = spec.other_field
    return spec.model_copy(
        update={
            "compared_fields": None,
            "fields": {name: text for name, text in spec.fields.items() if name != second},
            "output": inner.output or OutputContract(),
        }
    )


@dataclass
class ComparedTarget:
    """A pointwise target used comparatively: s(first) against s(second)."""

    name: str
    inner: Any
    contract: OutputContract
    first: str
    second: str
    margin: float
    fields: tuple[str, ...] = field(default=())

    @property
    def deterministic(self) -> bool:
        return bool(self.inner.deterministic)

    @property
    def serial_key(self) -> str | None:
        return getattr(self.inner, "serial_key", None)

    async def warm(self) -> None:
        warm = getattr(self.inner, "warm", None)
        if warm is not None:
            await warm()

    def _sides(self, record: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        """The first candidate as the scored field, then the second in its place; neither
        record holds the second field, so the pointwise target reads one candidate."""
        context = {name: text for name, text in record.items() if name != self.second}
        return context, {**context, self.first: record[self.second]}

    def _preference(self, a: float, b: float) -> float:
        inner = self.inner.contract
        for value in (a, b):
            if (
                isinstance(value, bool)
                or not isinstance(value, numbers.Real)
                or not inner.contains(float(value))  # NaN is contained nowhere
            ):
                raise ScorerError(
                    f"its pointwise score {value!r} is not a number in [{inner.min}, {inner.max}]"
                )
        raw = float(a) - float(b)
        if abs(raw) <= self.margin:
            raw = 0.0
        difference = raw / inner.span if inner.higher_is_better else -raw / inner.span
        return self.contract.min + (difference + 1.0) / 2.0 * self.contract.span

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        first, second = self._sides(record)
        a = await self.inner.score(first, repeat)
        b = await self.inner.score(second, repeat)
        return self._preference(a, b)


@dataclass
class ComparedBatchTarget(ComparedTarget):
    """The same, for a pointwise target that batches: both sides of every record go in one."""

    async def score_batch(self, records: list[dict[str, str]]) -> list[float]:
        sides = [side for record in records for side in self._sides(record)]
        values = await self.inner.score_batch(sides)
        if not isinstance(values, list | tuple) or len(values) != len(sides):
            raise ScorerError(
                f"its pointwise score_batch returned {str(values)[:80]} for {len(sides)} records"
            )
        return [self._preference(values[i], values[i + 1]) for i in range(0, len(values), 2)]


def _check_compared(config: ComparedConfig, file: str) -> None:
    if kind_of(config.target).scores == "pairwise":
        raise InputError(
            file,
            f"targets.{config.name}.target.kind",
            "must be a pointwise kind, not a comparative one",
        )
    check = kind_of(config.target).check
    if check is not None:
        check(config.inner(), file)


def build_compared(config: ComparedConfig, context: BuildContext) -> Target:
    first, second = _comparative(context.spec, config.name, "compared")
    _check_compared(config, "spec")
    inner = config.inner()
    view = _pointwise_view(context.spec, inner)
    built = build_target(inner, BuildContext(
        spec=view, base_dir=context.base_dir, llm=context.llm,
        rubrics=context.rubrics, example=context.example,
    ))  # fmt: skip
    make = ComparedBatchTarget if hasattr(built, "score_batch") else ComparedTarget
    return make(
        name=config.name,
        inner=built,
        contract=config.output or context.spec.output,
        first=first,
        second=second,
        margin=config.margin,
        fields=tuple(context.spec.fields),
    )


def _freeze_compared(config: ComparedConfig, spec_dir: Path) -> Frozen:
    return kind_of(config.target).freeze(config.inner(), spec_dir)


def _verify_compared(target: SuiteTarget, suite: str) -> None:
    config: ComparedConfig = target.config  # type: ignore[assignment]
    verify = kind_of(config.target).verify_code
    if verify is not None:
        verify(target.model_copy(update={"config": config.inner()}), suite)


def _compared_kind() -> TargetKind:
    """The kind: it runs code exactly when the pointwise target it wraps does, and asks the
    same trust (a python target wrapped is a python target)."""
    return TargetKind(
        name="compared",
        config=ComparedConfig,
        build=build_compared,
        check=_check_compared,
        freeze=_freeze_compared,
        verify_code=_verify_compared,
        wraps=lambda config: config.inner(),
        scores="pairwise",
    )


COMPARED = register_target_kind(_compared_kind())
