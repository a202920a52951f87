"""The `llm_judge` target: a litellm model plus a jinja2 rubric template.

The rubric is data: a user template (sandboxed, because it comes from the user)
or the shipped default. Record fields are handed to the template as values,
never spliced into template source, so a text under test cannot inject
template code. The reply must carry an unambiguous score (see judge_parse);
otherwise the call is an error, not a guess.
"""

from __future__ import annotations

import math
import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

from jinja2 import StrictUndefined, Template, TemplateError
from pydantic import BaseModel, Field, create_model

from sane.errors import InputError, ScorerError
from sane.records import OutputContract, ScorerSpec, TargetConfig
from sane.scorers._rubric_limits import BoundedSandbox, render_bounded
from sane.scorers._threads import in_daemon_thread
from sane.scorers.base import BuildContext, Target
from sane.scorers.judge_parse import parse_judge_score
from sane.target_kind import Frozen, TargetKind, register_target_kind

DEFAULT_TEMPLATE = Path(__file__).parent / "templates" / "judge_default.j2"


class TextLLM(Protocol):
    """The slice of the LLM client a judge needs."""

    async def text(
        self,
        model: str,
        messages: list[dict[str, str]],
        *,
        task: str,
        sample_index: int = 0,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> str: ...

    def serial_key(self, model: str) -> str | None:
        """The resource `model`'s calls queue for, if it answers one at a time."""
        ...


def _environment() -> BoundedSandbox:
    """Rubrics are someone else's text (a received suite's): sandboxed, and bounded in work."""
    return BoundedSandbox(undefined=StrictUndefined, keep_trailing_newline=True)


def _plain_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _contract_view(contract: OutputContract) -> dict[str, Any]:
    view = contract.model_dump()
    view["min"], view["max"] = _plain_number(contract.min), _plain_number(contract.max)
    return view


class JudgeConfig(TargetConfig):
    """An `llm_judge` target: a `model` given a jinja2 rubric (`prompt`, a file beside the
    spec; the shipped default without one), answering in free text or JSON (`reply`)."""

    kind: Literal["llm_judge"] = "llm_judge"
    model: str | None = None
    prompt: str | None = None
    temperature: float | None = None
    # how it answers: free text holding a score, or schema-constrained JSON
    reply: Literal["text", "json"] = "text"

    SETTINGS: ClassVar[frozenset[str]] = TargetConfig.SETTINGS | {
        "model", "temperature", "prompt", "reply"
    }  # fmt: skip

    def models(self) -> list[str]:
        return [self.model] if self.model else []


RUBRIC_MAX_BYTES = 256 * 1024  # a rubric is a page or two of instructions, never megabytes


def read_rubric(config: JudgeConfig, base_dir: Path) -> str | None:
    """The text of the rubric file a judge names (None: the shipped default); a file that
    cannot be read is bad input naming the field."""
    if not config.prompt:
        return None
    path = base_dir / config.prompt
    field = f"targets.{config.name}.prompt"
    try:
        return _regular_file_bytes(path, field, RUBRIC_MAX_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or "not a UTF-8 text file"
        raise InputError(str(path), field, f"cannot read rubric template: {reason}") from exc


def _regular_file_bytes(path: Path, field: str, cap: int) -> bytes:
    """The bytes of `path` if it is a regular file of at most `cap` bytes. A rubric path is
    copied into the suite and every judge prompt, so it must not be a device (`/dev/zero`
    never ends), a FIFO (its reader waits forever: it is opened without blocking, then
    refused) or a file too big to be a rubric."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(str(path), field, "cannot read rubric template: not a regular file")
        with open(fd, "rb", closefd=False) as file:
            data = file.read(cap + 1)
    finally:
        os.close(fd)
    if len(data) > cap:
        raise InputError(
            str(path), field, f"cannot read rubric template: larger than {cap // 1024} KiB"
        )
    return data


def load_rubric(
    config: JudgeConfig, context: BuildContext, default: Path = DEFAULT_TEMPLATE
) -> Template:
    """Compile the target's rubric: the text the suite holds for it, the file beside a spec
    just loaded, or the kind's shipped `default`. Bad syntax names the field."""
    field = f"targets.{config.name}.prompt"
    label = config.prompt or str(default)
    if not config.prompt:
        source = default.read_text(encoding="utf-8")
    elif config.name in context.rubrics:
        source = context.rubrics[config.name]
    elif context.base_dir is not None:
        label = str(context.base_dir / config.prompt)
        source = read_rubric(config, context.base_dir) or ""
    else:
        raise InputError(None, field, "the suite holds no rubric text for this target")
    try:
        return _environment().from_string(source)
    except TemplateError as exc:
        raise InputError(label, field, f"invalid jinja2 template: {exc}") from exc


# An ordinal contract with at most this many scores is sent as their list (a JSON `enum`)
MAX_ENUMERATED_SCORES = 101


def reply_schema(contract: OutputContract) -> type[BaseModel]:
    """The JSON reply a judge with `reply: json` must give: one score inside the contract.

    An ordinal contract's scores are listed (`enum`), not only bounded: a local model's
    grammar (llama.cpp's schema converter) enforces an enum but ignores `minimum` and
    `maximum`, so with bounds alone SmolLM answered 12 on a 1-10 scale and the call failed."""
    kind: type = float if contract.type == "continuous" else int
    scores = list(range(math.ceil(contract.min), math.floor(contract.max) + 1))
    listed = kind is int and len(scores) <= MAX_ENUMERATED_SCORES
    extra = {"enum": scores} if listed else None
    bounds = Field(ge=contract.min, le=contract.max, json_schema_extra=extra)
    return create_model("JudgeReply", score=(kind, bounds))


@lru_cache(maxsize=64)
def field_tags(names: tuple[str, ...]) -> re.Pattern[str]:
    """Any spelling of an opening or closing tag named after a field (`</summary>`,
    `< /SUMMARY`). Rubrics wrap each field in such tags, so a text under test that holds
    one could close its own tag and speak to the judge as the rubric; it is neutralised
    to `&lt;/summary>` before rendering. Other text is left exactly as it is."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"<(\s*/?\s*(?:{alternatives})\b)", re.IGNORECASE)


@dataclass
class LLMJudge:
    """A rubric-prompted model that returns a score under `contract`."""

    name: str
    model: str
    rubric: Template
    spec: ScorerSpec
    contract: OutputContract
    llm: TextLLM
    temperature: float | None = None
    reply: str = "text"
    deterministic: bool = False

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(self.spec.fields)

    @property
    def serial_key(self) -> str | None:
        """Where this judge's calls queue (an embedded model answers one at a time): the
        executor gives them turns there (Target)."""
        return self.llm.serial_key(self.model)

    def render(self, record: dict[str, str]) -> str:
        """The judge's prompt for `record`; a rubric that fails or runs past its limits
        (sane.scorers._rubric_limits) is a ScorerError."""
        tags = field_tags(tuple(self.spec.fields))
        variables = {
            "fields": {name: tags.sub(r"&lt;\1", str(text)) for name, text in record.items()},
            "descriptions": dict(self.spec.fields),
            "criterion": self.spec.criterion,
            "output": _contract_view(self.contract),
            "scored_field": self.spec.scored_field,
        }
        try:
            return render_bounded(self.rubric, variables)
        except TemplateError as exc:  # includes SecurityError, RenderLimit, UndefinedError
            raise ScorerError(f"judge {self.name}: rubric template failed: {exc}") from exc

    def reply_schema(self) -> type[BaseModel]:
        """The JSON a `reply: json` judge must give."""
        return reply_schema(self.contract)

    def read_answer(self, answer: Any) -> float:
        """The score in a `reply: json` answer (validated against `reply_schema`)."""
        return float(answer.score)

    def read_reply(self, reply: str) -> float:
        """The score in a free-text reply, or a ScorerError."""
        return parse_judge_score(reply)

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        # Rendered off the event loop, so the call's timeout holds even for a slow render.
        prompt = await in_daemon_thread(self.render, record, name="sane-judge-render")
        messages = [{"role": "user", "content": prompt}]
        if self.reply == "json":
            # Constrained JSON: small models that cannot follow "Score: N" still answer.
            answer = await self.llm.structured(  # type: ignore[attr-defined]
                self.model,
                messages,
                self.reply_schema(),
                task=f"judge:{self.name}",
                sample_index=repeat,
                temperature=self.temperature,
            )
            return self.read_answer(answer)
        reply = await self.llm.text(
            self.model,
            messages,
            task=f"judge:{self.name}",
            sample_index=repeat,
            temperature=self.temperature,
        )
        return self.read_reply(reply)


def build_llm_judge(config: JudgeConfig, context: BuildContext) -> Target:
    if not config.model:
        raise InputError("spec", f"targets.{config.name}.model", "an llm_judge needs a model")
    if context.llm is None:
        raise InputError(
            None, f"targets.{config.name}", "an llm_judge needs an LLM client to call its model"
        )
    judge = LLMJudge(
        name=config.name,
        model=config.model,
        rubric=load_rubric(config, context),
        spec=context.spec,
        contract=config.output or context.spec.output,
        llm=context.llm,
        temperature=config.temperature,
        reply=config.reply,
    )
    return rendered_at_load(judge, config, context, DEFAULT_TEMPLATE)


def rendered_at_load(
    judge: LLMJudge, config: JudgeConfig, context: BuildContext, default: Path
) -> LLMJudge:
    """The judge, once its rubric rendered on the spec's first example: a misspelt field
    fails here, before any call, naming the rubric and the fields there are."""
    if context.example is not None:
        try:
            judge.render(dict(context.example))
        except ScorerError as exc:
            raise InputError(
                config.prompt or str(default),
                f"targets.{config.name}.prompt",
                f"the rubric does not render on the first example: {exc.__cause__ or exc} "
                f"(the fields are {', '.join(f'fields.{n}' for n in context.spec.fields)})",
            ) from exc
    return judge


def _freeze(config: JudgeConfig, spec_dir: Path) -> Frozen:
    """The rubric's text: the suite runs wherever it is moved, and a changed rubric is a new
    definition."""
    return Frozen(rubric=read_rubric(config, spec_dir))


JUDGE = register_target_kind(
    TargetKind(
        name="llm_judge",
        config=JudgeConfig,
        build=build_llm_judge,
        freeze=_freeze,
        judge=True,
        scores="pointwise",
    )
)
