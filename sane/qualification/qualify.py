"""`sane qualify`: an oracle model's skill on exact ground truth, and the panels it is fit for.

Why: a suite's verdicts are only as good as its panel, and the validity sweep (on simulated
oracles of known accuracy) measured the accuracy each panel needs to keep false faults under
5% (`thresholds.json`, written by `benchmarks/bench_validity.py --oracle-sweep
--write-thresholds`). This asks the model the panel's own questions, rendered and decided by
the panel itself (one vote each), about the operator grid on the three reference criteria,
where every answer is known:

- the alignment question (yes/no: does this relation fit this criterion for this edit?);
- the blind direction question, asked both ways round (the texts' roles exchanged);
- in the full run, the direction question on each example an edit changes, both ways round.

It reports accuracy (right answers / answers), order consistency (direction answers that
agree once the exchanged one is turned round / pairs answered) and false-accept (yes to a
wrong claim / wrong claims answered), each with a Wilson interval. A model qualifies for a
panel when at least 90% of its calls answered, its accuracy is at or above that panel's
threshold, and the lower end of its accuracy interval is above the swept accuracy just below
the threshold, where the panel failed its targets.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sane.edits import TransformError, TransformInput, apply_transform
from sane.generators.operators import grid_capabilities, grid_recipes
from sane.inputs import load_spec
from sane.panel.ballots import TEXTS_EXCHANGED, TURNED_ROUND, DirectionBallot
from sane.panel.oracle import OraclePanel
from sane.prompts import messages
from sane.qualification.record import MIN_ANSWERED, Figure, Qualification
from sane.qualification.references import REFERENCES, Reference
from sane.records import (
    Case,
    Decision,
    PairRelation,
    PanelDecision,
    Question,
    Recipe,
    RunConfig,
    ScorerSpec,
)
from sane.simulation.params import is_simulated, with_truth
from sane.simulation.prompt_reader import Asked
from sane.simulation.truth import GroundTruth, load_truth
from sane.stats import pass_rate_ci

if TYPE_CHECKING:
    from sane.llm import LLMClient

THRESHOLDS = Path(__file__).resolve().parent / "thresholds.json"
QUICK_ALIGNMENT = 90  # + 27 direction pairs (54 calls): 144 calls, within 150


def quick_calls() -> int:
    """The calls of a quick qualification: each edit's direction on each criterion asked
    both ways round, and the sample of alignment claims."""
    return 2 * len(grid_capabilities()) * len(REFERENCES) + QUICK_ALIGNMENT


def figure(count: int, of: int) -> Figure:
    """A share with its 95% Wilson interval (none without a denominator)."""
    low, high = pass_rate_ci(count, of) if of else (None, None)
    return Figure(count=count, of=of, rate=round(count / of, 4) if of else None, ci=(low, high))


@cache
def thresholds() -> tuple[dict[str, float | None], dict[str, float | None], str]:
    """(accuracy each panel needs, the accuracy below it where the panel failed its targets,
    where that was measured), from the sweep's output."""
    data = json.loads(THRESHOLDS.read_text(encoding="utf-8"))
    return dict(data["threshold"]), dict(data["failing_below"]), str(data["source"])


def qualifies(accuracy: Figure, enough: bool, need: float | None, floor: float | None) -> bool:
    """Fit for a panel: enough calls answered, accuracy at or above what the panel needs, and
    the lower end of its interval above the accuracy at which the panel failed (so an oracle
    is not qualified on a lucky draw from a skill the sweep showed too low)."""
    rate, low = accuracy.rate, accuracy.ci[0]
    if not enough or need is None or rate is None or low is None:
        return False
    return rate >= need and (floor is None or low > floor)


@dataclass(frozen=True)
class Item:
    """One question: what it shows, how it is asked, and its right answer."""

    criterion: str
    subject: str
    recipe: Recipe
    template: str
    truth: bool | str  # yes/no, or the direction of the judged text (as asked)
    model: str  # the model string asked (a simulated oracle bound to this criterion)
    case: Case | None = None

    @property
    def direction(self) -> bool:
        return isinstance(self.truth, str)

    @property
    def calls(self) -> int:
        return 2 if self.direction else 1  # a direction is asked both ways round


def _items(reference: Reference, truth: GroundTruth, model: str, full: bool) -> Iterator[Item]:
    """The alignment question on every grid recipe, the blind direction question on every
    edit, and (full) the direction question on every example an edit changes."""
    name, scored = reference.name, reference.scored
    for capability in grid_capabilities():
        recipes = grid_recipes(capability.id)
        for recipe in recipes:
            assert isinstance(recipe.relation, PairRelation)
            right = truth.recipe_holds(recipe.instruction, recipe.relation)
            yield Item(name, f"{name}:{recipe.id}", recipe, "vote_alignment.j2", right, model)
        probe = recipes[0]  # the blind question never shows the relation
        blind = Asked(
            "vote:direction",
            instruction=probe.instruction,
            perturbed_role="perturbed",
            compared="original",
            judged="perturbed",
        )
        subject = f"{name}:{capability.id}"
        yield Item(name, subject, probe, "vote_direction.j2", truth.answer(blind), model)
        if not full:
            continue
        for index, example in enumerate(truth.examples):
            try:
                edited = apply_transform(
                    str(probe.transform),
                    TransformInput(example[scored], index, truth.examples, scored),
                )
            except TransformError:
                continue
            if edited == example[scored]:
                continue
            case = Case(
                id=f"{name}:{probe.id}/case-{index}",
                recipe_id=probe.id,
                index=index,
                example_index=index,
                example=example,
                variants={"original": example[scored], "perturbed": edited},
            )
            on_case = Asked(
                "vote:direction",
                compared="original",
                judged="perturbed",
                example=example,
                variants=case.variants,
            )
            answer = truth.answer(on_case)
            yield Item(name, case.id, probe, "vote_case_direction.j2", answer, model, case)


def questions(model: str, *, quick: bool, seed: int = 0) -> list[Item]:
    """The qualification's questions, each with its right answer: every direction question,
    and every alignment question (a balanced sample of right and wrong claims when quick)."""
    items: list[Item] = []
    for reference in REFERENCES.values():
        truth = load_truth(reference.ref, reference.spec, reference.examples)
        asked = with_truth(model, reference.ref, reference.spec, reference.examples)
        items += _items(reference, truth, asked, full=not quick)
    if not quick:
        return items
    directions = [i for i in items if i.direction]
    right = [i for i in items if not i.direction and i.truth is True]
    wrong = [i for i in items if not i.direction and i.truth is False]
    chooser = random.Random(seed)
    sample = chooser.sample(right, min(QUICK_ALIGNMENT // 2, len(right)))
    sample += chooser.sample(wrong, min(QUICK_ALIGNMENT - len(sample), len(wrong)))
    return directions + sample


@cache
def _spec(criterion: str) -> ScorerSpec:
    return load_spec(REFERENCES[criterion].spec)[0]


async def _decide(client: LLMClient, config: RunConfig, item: Item) -> PanelDecision:
    """The panel's decision on one item, asked exactly as a suite's panel asks (one vote)."""
    panel = OraclePanel(
        client,
        [item.model],
        votes=1,
        temperature=config.oracle_temperature,
        seed=config.seed,
        rationale=config.vote_rationale,
    )
    context = {
        "spec": _spec(item.criterion),
        "recipe": item.recipe,
        "relation_json": item.recipe.relation.model_dump_json(),
        **({"case": item.case} if item.case is not None else {}),
    }
    prompt = messages(item.template, **context)
    if not item.direction:
        return await panel.decide(item.subject, Question.alignment, prompt)
    contrast = messages(item.template, swap=True, **context)
    question = Question.alignment if item.case is None else Question.applicability
    ballot = DirectionBallot(frozenset({"lower"}))  # the answers are read, not the decision
    return await panel.decide(item.subject, question, prompt, ballot, contrast=contrast)


def score(model: str, quick: bool, decided: list[tuple[Item, PanelDecision]]) -> Qualification:
    """The figures and verdicts from the panel's answers (an error is no answer)."""
    right = answers = consistent = pairs = false_yes = wrong_claims = answered_calls = 0
    errors: list[str] = []
    for item, decision in decided:
        (vote,) = decision.votes
        if vote.error is not None:
            errors.append(vote.error)
            continue
        answered_calls += item.calls
        if not item.direction:
            said_yes = vote.decision is Decision.yes
            right += said_yes == item.truth
            answers += 1
            if item.truth is False:
                wrong_claims += 1
                false_yes += said_yes
            continue
        raw = json.loads(vote.raw)
        as_asked = raw["as_asked"]["answer"]
        exchanged = TURNED_ROUND[raw[TEXTS_EXCHANGED]["answer"]]
        right += (as_asked == item.truth) + (exchanged == item.truth)
        answers += 2
        pairs += 1
        consistent += as_asked == exchanged
    needed, failing, source = thresholds()
    calls = sum(item.calls for item, _ in decided)
    accuracy = figure(right, answers)
    enough = calls > 0 and answered_calls >= MIN_ANSWERED * calls
    return Qualification(
        model=model,
        simulated=is_simulated(model),
        quick=quick,
        calls=calls,
        answered=answered_calls,
        accuracy=accuracy,
        order_consistency=figure(consistent, pairs),
        false_accept=figure(false_yes, wrong_claims),
        thresholds=needed,
        failing=failing,
        thresholds_source=source,
        qualifies={
            panel: qualifies(accuracy, enough, need, failing.get(panel))
            for panel, need in needed.items()
        },
        errors=list(dict.fromkeys(errors))[:3],
    )


async def qualify(
    client: LLMClient, model: str, *, quick: bool = True, config: RunConfig | None = None
) -> Qualification:
    """Ask `model` the qualification's questions through `client` (cached like any call)."""
    config = config or RunConfig(model=model, oracle_models=[model])
    items = questions(model, quick=quick, seed=config.seed)
    # one one-call question first, alone: a refused key stops the run there
    # (sane.panel.oracle), one call in, instead of once per concurrency slot
    items.sort(key=lambda item: item.direction)
    decided = [await _decide(client, config, items[0])]
    decided += await asyncio.gather(*(_decide(client, config, item) for item in items[1:]))
    return score(model, quick, list(zip(items, decided, strict=True)))


def render(qualification: Qualification) -> str:
    """The qualification as a short markdown block (`sane qualify`, and every report)."""
    q = qualification
    head = "## Oracle qualification"
    if q.simulated:
        head += " (SIMULATED oracle: these figures measure the method, not a model)"
    run = "quick" if q.quick else "full"
    needed = ", ".join(
        f"{panel} {'none' if need is None else f'{need:g}'}" for panel, need in q.thresholds.items()
    )
    lines = [
        head,
        "",
        f"- model: `{q.model}`; {run} run, {q.answered} of {q.calls} calls answered",
        f"- accuracy: {q.accuracy}",
        f"- order consistency: {q.order_consistency}",
        f"- false accept: {q.false_accept}",
        *(f"- {q.verdict(panel)}" for panel in q.thresholds),
        f"- accuracy each panel needs: {needed} ({q.thresholds_source})",
        *(f"- error: {error}" for error in q.errors),
    ]
    return "\n".join(lines)
