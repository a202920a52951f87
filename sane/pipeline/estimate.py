"""How many LLM calls (and dollars) a `sane generate` run can make, before it starts.

`sane generate --dry-run` prints this instead of running. The call count is an
upper bound for answers that parse at the first try: every capability yields
its full quota of recipes, every recipe has a mirror and is aligned, every case
is written, every panel asks all k votes (a vote with a contrast question is two
calls: sane.panel.kinds) and every family gets its planted controls. The prompts
and their count per stage are asked of the objects the run itself uses (the
agents' calls, the panel kind's questions, the votes the panel sends), so the
estimate and the pipeline cannot drift apart. Real runs make fewer calls (the panel stops once a
majority is certain, a family stops when it cannot reach tau, the cache replays
what an earlier run paid for); a reply that needs a schema repair costs up to
`repair_retries` more calls, shown as the worst case. Token counts come from
those prompts rendered on the spec and its first example, each with its schema's
text (an embedded model is sent none: its grammar holds the reply to the schema,
so there the count is an upper bound too); completion lengths are assumed. Cost
uses litellm's price list where it knows the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from sane.agents import AgentCall, capabilities_call, case_call, recipes_call
from sane.inputs import examples_path, load_examples, load_spec
from sane.llm import (
    FREE_PROVIDERS,
    LLMSettings,
    count_tokens,
    ensure_litellm_ready,
    price,
    with_instruction,
)
from sane.panel import controls
from sane.panel.ballots import vote_call
from sane.panel.kinds import CASE_TEMPLATES, PanelQuestion, panel_kind
from sane.pipeline.run_config import check_models
from sane.records import (
    Capability,
    Case,
    Example,
    PairRelation,
    Question,
    Recipe,
    Requirement,
    RunConfig,
    ScorerSpec,
)

# Assumed completion lengths (tokens) per call kind; prompts are counted, not assumed.
COMPLETION_TOKENS = {"capabilities": 600, "recipes": 800, "cases": 400, "votes": 120}
ANSWER_ONLY_VOTE_TOKENS = 12  # a vote without a rationale: `{"decision": "yes"}`
REPAIR_RETRIES: int = LLMSettings.model_fields["repair_retries"].default
Prompt = list[dict[str, str]]


class StageEstimate(BaseModel):
    stage: str
    calls: int
    formula: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost: float | None


class Estimate(BaseModel):
    stages: list[StageEstimate]
    calls: int
    worst_case_calls: int
    formula: str
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    unpriced_models: list[str]


def _fixed_recipe_count(generator: str) -> int | None:
    if not generator.startswith("fixed:"):
        return None
    from sane.generators import load_fixed_set

    fixed = load_fixed_set(generator.split(":", 1)[1])
    return sum(len(c.recipes) for c in fixed.capabilities)


def _tokens(model: str, prompt: list[dict[str, str]]) -> int:
    """The prompt's tokens by litellm's counter for the model (read from its files where
    that is its default tiktoken counter, `sane.llm.count_tokens`); about 4 characters a token
    where it has none, and for the free routes (embedded, scripted). Only a model with its
    own tokenizer imports litellm (seconds of start-up)."""
    if model.split("/", 1)[0] in FREE_PROVIDERS:
        return sum(len(m["content"]) for m in prompt) // 4
    counted = count_tokens(model, prompt)  # litellm's default counter, without litellm
    if counted is not None:
        return counted
    import litellm

    ensure_litellm_ready()

    try:
        return int(litellm.token_counter(model=model, messages=prompt))
    except Exception:  # noqa: BLE001 - no tokenizer for this model: about 4 characters a token
        return sum(len(m["content"]) for m in prompt) // 4


@dataclass(frozen=True)
class _Stage:
    """One stage of the plan: the prompts one unit of it sends (each once per vote for a
    panel stage), how many units there are, and the formula in words."""

    stage: str
    prompts: list[Prompt]
    units: int
    formula: str
    votes: bool = False


def _distinct(prompts: list[Prompt | None]) -> list[Prompt]:
    """The prompts a unit pays for: the cache replays a prompt sent twice (a blind
    panel's mirror asks its recipe's own direction question)."""
    found: dict[str, Prompt] = {}
    for prompt in prompts:
        if prompt is not None:
            found.setdefault(json.dumps(prompt, sort_keys=True), prompt)
    return list(found.values())


def _representatives(
    spec: ScorerSpec, examples: list[Example]
) -> tuple[Capability, Recipe, Case, list[Recipe]]:
    """A capability, a pair recipe, its first case and a suite with another instruction
    (for a decoy): what the run's own objects render the representative prompts from."""
    capability = Capability(
        id="cap-1",
        name="capability",
        description="what the scorer must do",
        requirement=Requirement.monotonicity,
    )
    recipe = Recipe(
        id="rec-1-1",
        capability_id="cap-1",
        requirement=Requirement.monotonicity,
        name="recipe",
        instruction="Change the text as the capability requires. " * 3,
        variant_roles=["original", "perturbed"],
        relation=PairRelation(kind="decrease"),
        rationale="Why the relation holds for this criterion. " * 2,
    )
    other = recipe.model_copy(update={"id": "rec-1-2", "instruction": "Rewrite it. " * 9})
    text = examples[0][spec.scored_field]
    case = Case(
        id="rec-1-1/case-0",
        recipe_id="rec-1-1",
        index=0,
        example_index=0,
        example=examples[0],
        variants={"original": text, "perturbed": text},
    )
    return capability, recipe, case, [recipe, other]


def _plan(spec: ScorerSpec, examples: list[Example], config: RunConfig) -> tuple[list[_Stage], str]:
    """The stages, and the total's formula, as the run's own objects make them: the agents' calls
    (sane.agents), the panel kind's questions (sane.panel.kinds) and the votes the panel
    sends for them (sane.panel.ballots.vote_call)."""
    k, n, r = config.votes, config.cases, config.recipes_per_capability
    kind = panel_kind(config.panel)
    capability, recipe, case, suite = _representatives(spec, examples)

    def sent(call: AgentCall) -> Prompt:
        return with_instruction(call.prompt, call.schema)

    def voted(asked: PanelQuestion | None) -> list[Prompt | None]:
        if asked is None:
            return []
        prompts = [asked.prompt, asked.contrast]
        return [
            with_instruction(*vote_call(p, asked.ballot, config.vote_rationale))
            if p is not None
            else None
            for p in prompts
        ]

    mirrored = controls.mirrored_recipe(recipe)
    alignment = _distinct(
        voted(kind.question(Question.alignment, spec, recipe))
        + voted(None if mirrored is None else kind.question(Question.alignment, spec, mirrored))
    )
    case_panel = _distinct(
        [
            prompt
            for question in CASE_TEMPLATES
            for prompt in voted(kind.question(question, spec, recipe, case, suite))
        ]
    )
    control = _distinct(voted(kind.control_question(spec, recipe, case)))
    planted = controls.planted_per_recipe()  # the realization controls a recipe gets
    fixed = _fixed_recipe_count(config.generator)
    stages = []
    if fixed is None:
        c = config.max_capabilities
        recipes = c * r
        recipe_formula = f"R = C x r = {c} x {r} = {recipes}"
        stages += [
            _Stage("capabilities", [sent(capabilities_call(spec, examples, config))], 1, "1"),
            _Stage("recipes", [sent(recipes_call(spec, capability, config))], c, f"C = {c}"),
        ]
    else:
        recipes = fixed
        recipe_formula = f"R = {recipes} recipes of {config.generator}"
    a, p, q = len(alignment), len(case_panel), len(control)
    stages += [
        _Stage("alignment", alignment, recipes * k, f"R x k x {a} = {recipes} x {k} x {a}", True),
        _Stage(
            "cases",
            [sent(case_call(spec, recipe, 0, examples[0]))],
            recipes * n,
            f"R x n = {recipes} x {n}",
        ),
        _Stage(
            "case panel",
            case_panel,
            recipes * n * k,
            f"R x n x k x {p} = {recipes} x {n} x {k} x {p}",
            True,
        ),
        _Stage(
            "controls",
            control,
            planted * recipes * k,
            f"{planted} x R x k x {q} = {planted} x {recipes} x {k} x {q}",
            True,
        ),
    ]
    head = "1 + C + " if fixed is None else ""
    formula = (
        f"{head}{a}Rk + R x n x (1 + {p}k) + {3 * q}Rk, with {recipe_formula}, k = {k}, n = {n}"
    )
    return stages, formula


def estimate_generate(spec: ScorerSpec, examples: list[Example], config: RunConfig) -> Estimate:
    """The upper-bound call count, tokens and cost of generating a suite with `config`."""
    plan, formula = _plan(spec, examples, config)
    k = config.votes
    panel = [config.oracle_models[i % len(config.oracle_models)] for i in range(k)]
    stages: list[StageEstimate] = []
    for step in plan:
        calls = step.units * len(step.prompts)
        models = panel if step.votes else [config.model]
        completion = COMPLETION_TOKENS["votes" if step.votes else step.stage]
        if step.votes and not config.vote_rationale:
            completion = ANSWER_ONLY_VOTE_TOKENS
        prompt_tokens = completion_tokens = 0
        cost: float | None = 0.0
        for model in dict.fromkeys(models):  # votes are spread round-robin over the models
            share = sum(1 for i in range(k if step.votes else 1) if models[i] == model)
            units = step.units // (k if step.votes else 1) * share
            for prompt in step.prompts:
                p, c_ = _tokens(model, prompt) * units, completion * units
                prompt_tokens, completion_tokens = prompt_tokens + p, completion_tokens + c_
                usd = price(model, p, c_)
                cost = None if cost is None or usd is None else cost + usd
        stages.append(
            StageEstimate(
                stage=step.stage,
                calls=calls,
                formula=step.formula,
                model="+".join(dict.fromkeys(models)),
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                cost=cost,
            )
        )
    total = sum(s.calls for s in stages)
    costs = [s.cost for s in stages]
    models = [config.model, *config.oracle_models]
    return Estimate(
        stages=stages,
        calls=total,
        worst_case_calls=total * (1 + REPAIR_RETRIES),
        formula=formula,
        prompt_tokens=sum(s.prompt_tokens for s in stages),
        completion_tokens=sum(s.completion_tokens for s in stages),
        cost=None if any(c is None for c in costs) else sum(c for c in costs if c is not None),
        unpriced_models=sorted({m for m in models if price(m, 1, 1) is None}),
    )


def render_estimate(estimate: Estimate) -> str:
    """A short plain-text table for the terminal."""
    lines = ["Estimate for `sane generate` (upper bound; cached calls are free):"]
    lines.append(f"  {'stage':<14}{'calls':>8}  {'prompt tok':>11}  {'cost':>10}  formula")
    for s in estimate.stages:
        cost = "unknown" if s.cost is None else f"${s.cost:.4f}"
        lines.append(f"  {s.stage:<14}{s.calls:>8}  {s.prompt_tokens:>11}  {cost:>10}  {s.formula}")
    cost = "unknown" if estimate.cost is None else f"${estimate.cost:.4f}"
    lines.append(f"  {'total':<14}{estimate.calls:>8}  {estimate.prompt_tokens:>11}  {cost:>10}")
    lines.append(f"  calls = {estimate.formula}")
    lines.append(
        f"  worst case with schema repairs: {estimate.worst_case_calls} calls; "
        f"completion tokens assumed: {estimate.completion_tokens}"
    )
    if estimate.unpriced_models:
        lines.append(
            f"  litellm has no price for: {', '.join(estimate.unpriced_models)} "
            "(a --max-cost budget is refused for them; use --max-calls)"
        )
    return "\n".join(lines)


def estimate_inputs(
    spec: str, config: RunConfig, *, examples: str | Path | None = None
) -> Estimate:
    """Validate a generate command's inputs as a real run would (the spec's targets checked on
    its first example as `generate` freezes them: a rubric that does not render is refused
    here too), then estimate it."""
    from sane.scorers.suite_targets import freeze_targets

    scorer, spec_path = load_spec(spec)
    rows = load_examples(scorer, examples_path(scorer, spec_path, examples))
    freeze_targets(scorer, spec_path.parent, str(spec), example=rows[0])
    check_models(config)
    return estimate_generate(scorer, rows, config)
