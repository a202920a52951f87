"""How many LLM calls (and dollars) a `sane generate` run can make, before it starts.

`sane generate --dry-run` prints this instead of running. The call count is an
upper bound for answers that parse at the first try: every capability yields
its full quota of recipes, every recipe has a mirror and is aligned, every case
is written, every panel asks all k votes (a blind panel's case votes two calls
each, the question and its contrast: sane.panel.ballots) and every family gets
its planted controls. Real runs make fewer calls (the panel stops once a
majority is certain, a family stops when it cannot reach tau, the cache replays
what an earlier run paid for); a reply that needs a schema repair costs up to
`repair_retries` more calls, shown as the worst case. Token counts come from the
real prompt templates rendered on the spec and its first example; completion
lengths are assumed. Cost uses litellm's price list where it knows the model.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from sane.agents import capability_list, case_draft, recipe_list
from sane.agents.capabilities import PROMPT_EXAMPLES, requirement_meanings
from sane.generators.transforms import OPERATORS
from sane.inputs import examples_path, load_examples, load_spec
from sane.llm import ensure_litellm_ready, price, with_instruction
from sane.panel.ballots import Ballot, YesNoBallot, alignment_question, reply_for, with_reply_line
from sane.prompts import messages
from sane.records import (
    Capability,
    Case,
    Example,
    PairRelation,
    Recipe,
    Requirement,
    RunConfig,
    ScorerSpec,
)
from sane.run_config import check_models

# Assumed completion lengths (tokens) per call kind; prompts are counted, not assumed.
COMPLETION_TOKENS = {"capabilities": 600, "recipes": 800, "cases": 400, "votes": 120}
ANSWER_ONLY_VOTE_TOKENS = 12  # a vote without a rationale: `{"decision": "yes"}`
REPAIR_RETRIES = 2  # LLMSettings.repair_retries default


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
    import litellm

    ensure_litellm_ready()

    try:
        return int(litellm.token_counter(model=model, messages=prompt))
    except Exception:  # noqa: BLE001 - no tokenizer for this model: about 4 characters a token
        return sum(len(m["content"]) for m in prompt) // 4


def _prompts(spec: ScorerSpec, examples: list[Example], config: RunConfig) -> dict[str, list]:
    """One representative prompt per call kind, rendered from the real templates."""
    example = examples[0]
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
    text = example[spec.scored_field]
    case = Case(
        id="rec-1-1/case-0",
        recipe_id="rec-1-1",
        index=0,
        example_index=0,
        example=example,
        variants={"original": text, "perturbed": text},
    )
    relation_json = recipe.relation.model_dump_json()
    vote = {"spec": spec, "recipe": recipe, "case": case, "relation_json": relation_json}
    alignment, ballot = alignment_question(recipe, config)

    def vote_prompt(template: str, ballot: Ballot) -> list[dict[str, str]]:
        """A vote's prompt as the panel sends it (sane.panel.oracle)."""
        reply = reply_for(ballot, config.vote_rationale)
        return with_instruction(with_reply_line(messages(template, **vote), reply), reply)

    realization = vote_prompt("vote_realization.j2", YesNoBallot(task="realization"))
    return {
        "capabilities": with_instruction(
            messages(
                "capabilities.j2",
                spec=spec,
                requirements=requirement_meanings(),
                examples=examples[:PROMPT_EXAMPLES],
                limit=config.max_capabilities,
            ),
            capability_list(config.max_capabilities),
        ),
        "recipes": with_instruction(
            messages(
                "recipes.j2",
                spec=spec,
                capability=capability,
                limit=config.recipes_per_capability,
                operators=OPERATORS,
            ),
            recipe_list(config.recipes_per_capability),
        ),
        "alignment": vote_prompt(alignment, ballot or YesNoBallot(task="alignment")),
        "cases": with_instruction(
            messages(
                "case.j2",
                spec=spec,
                recipe=recipe,
                relation_json=relation_json,
                case_index=0,
                example=example,
            ),
            case_draft(("perturbed",)),
        ),
        "case panel": realization,
        "controls": realization,
    }


def estimate_generate(spec: ScorerSpec, examples: list[Example], config: RunConfig) -> Estimate:
    """The upper-bound call count, tokens and cost of generating a suite with `config`."""
    k, n, r = config.votes, config.cases, config.recipes_per_capability
    fixed = _fixed_recipe_count(config.generator)
    if fixed is None:
        c, recipes = config.max_capabilities, config.max_capabilities * r
        agent_calls = [("capabilities", 1, "1"), ("recipes", c, f"C = {c}")]
        recipe_formula = f"R = C x r = {c} x {r} = {recipes}"
    else:
        recipes, agent_calls = fixed, []
        recipe_formula = f"R = {recipes} recipes of {config.generator}"
    panel = [config.oracle_models[i % len(config.oracle_models)] for i in range(k)]
    # a blind panel asks each case vote with its contrast (the texts exchanged, a decoy
    # instruction: two calls) and its mirror replays the recipe's calls; the other panels ask
    # the mirror its own question
    blind = config.panel == "blind"
    per_case = "4k" if blind else "2k"
    plan = agent_calls + [
        ("alignment", 2 * recipes * k, f"2 x R x k = 2 x {recipes} x {k}"),
        ("cases", recipes * n, f"R x n = {recipes} x {n}"),
        (
            "case panel",
            recipes * n * (4 if blind else 2) * k,
            f"R x n x {per_case} = {recipes} x {n} x {per_case} (k = {k})",
        ),
        ("controls", 3 * recipes * k, f"3 x R x k = 3 x {recipes} x {k}"),
    ]
    prompts = _prompts(spec, examples, config)
    stages: list[StageEstimate] = []
    for stage, calls, formula in plan:
        is_vote = stage in {"alignment", "case panel", "controls"}
        models = panel if is_vote else [config.model]
        completion = COMPLETION_TOKENS["votes" if is_vote else stage]
        if is_vote and not config.vote_rationale:
            completion = ANSWER_ONLY_VOTE_TOKENS
        prompt_tokens = completion_tokens = 0
        cost: float | None = 0.0
        for model in models:  # votes are spread round-robin over the panel's models
            share = calls // len(models) + (1 if models.index(model) < calls % len(models) else 0)
            p, c_ = _tokens(model, prompts[stage]) * share, completion * share
            prompt_tokens, completion_tokens = prompt_tokens + p, completion_tokens + c_
            usd = price(model, p, c_)
            cost = None if cost is None or usd is None else cost + usd
        label = "+".join(dict.fromkeys(models))
        stages.append(
            StageEstimate(
                stage=stage,
                calls=calls,
                formula=formula,
                model=label,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                cost=cost,
            )
        )
    total = sum(s.calls for s in stages)
    costs = [s.cost for s in stages]
    head = "1 + C + " if fixed is None else ""
    models = [config.model, *config.oracle_models]
    return Estimate(
        stages=stages,
        calls=total,
        worst_case_calls=total * (1 + REPAIR_RETRIES),
        formula=(
            f"{head}2Rk + R x n x (1 + {per_case}) + 3Rk, with {recipe_formula}, k = {k}, n = {n}"
        ),
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
    """Validate a generate command's inputs as a real run would, then estimate it."""
    scorer, spec_path = load_spec(spec)
    rows = load_examples(scorer, examples_path(scorer, spec_path, examples))
    check_models(config)
    return estimate_generate(scorer, rows, config)
