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
from collections import Counter
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
from sane.qualification.references import REFERENCES, Reference
from sane.qualification_record import MIN_ANSWERED, Figure, Miss, Qualification
from sane.records import (
    Case,
    Decision,
    PairRelation,
    PanelDecision,
    Question,
    Recipe,
    RunConfig,
    ScorerSpec,
    Vote,
)
from sane.relations import predicts
from sane.reporting.formatting import markdown_cell as cell
from sane.simulation.params import is_simulated, with_truth
from sane.simulation.prompt_reader import Asked
from sane.simulation.truth import GroundTruth, direction, load_truth
from sane.stats import pass_rate_ci

if TYPE_CHECKING:
    from sane.llm import LLMClient

THRESHOLDS = Path(__file__).resolve().parent / "thresholds.json"
QUICK_ALIGNMENT = 90  # + 21 knowable direction pairs (42 calls): 131 calls, within 150


def quick_calls() -> int:
    """The calls of a quick qualification: each knowable edit's direction on each criterion
    asked both ways round, and the sample of alignment claims."""
    return sum(item.calls for item in questions("quick-calls", quick=True))


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


KNOWABLE_SHARE = 0.8
"""An edit's alignment and blind direction questions are asked only where at least this share of
the examples it changes move the reference's score one way. Those questions show the edit and
never the texts, so below it the keyed answer depends on which texts were chosen (deleting a
sentence raises a banned-word score only where the sentence held a banned word) and a careful
reader cannot know it from the prompt (docs/validity.md, "What the qualification asks")."""


def knowable(truth: GroundTruth, edit: str) -> bool:
    """Whether the edit's effect on the criterion can be read from its instruction alone: the
    examples it changes move one way (at least KNOWABLE_SHARE of them)."""
    moves = Counter(direction(before, after) for before, after in truth.changed(edit))
    total = sum(moves.values())
    return total > 0 and moves.most_common(1)[0][1] >= KNOWABLE_SHARE * total


def unknowable_edits() -> dict[str, list[str]]:
    """Per reference criterion, the edits whose instruction-only questions are left out."""
    edits = [str(grid_recipes(capability.id)[0].transform) for capability in grid_capabilities()]
    truths = {
        reference.name: load_truth(reference.ref, reference.spec, reference.examples)
        for reference in REFERENCES.values()
    }
    return {name: [e for e in edits if not knowable(truth, e)] for name, truth in truths.items()}


def _items(
    reference: Reference, truth: GroundTruth, model: str, full: bool, left_out: bool = False
) -> Iterator[Item]:
    """The alignment question on every grid recipe and the blind direction question on every
    edit whose effect is knowable from its instruction, and (full) the direction question on
    every example an edit changes (its texts shown, so always knowable)."""
    name, scored = reference.name, reference.scored
    for capability in grid_capabilities():
        recipes = grid_recipes(capability.id)
        probe = recipes[0]  # the blind question never shows the relation
        if knowable(truth, str(probe.transform)) != left_out:
            for recipe in recipes:
                assert isinstance(recipe.relation, PairRelation)
                right = truth.recipe_holds(recipe.instruction, recipe.relation)
                yield Item(name, f"{name}:{recipe.id}", recipe, "vote_alignment.j2", right, model)
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


def questions(model: str, *, quick: bool, seed: int = 0, left_out: bool = False) -> list[Item]:
    """The qualification's questions, each with its right answer: every direction question,
    and every alignment question (a balanced sample of right and wrong claims when quick).
    `left_out`: instead, every instruction-only question that `knowable` leaves out, so that
    a model can be asked them to show what the rule drops (experiments/left_out_questions.py)."""
    items: list[Item] = []
    for reference in REFERENCES.values():
        truth = load_truth(reference.ref, reference.spec, reference.examples)
        asked = with_truth(model, reference.ref, reference.spec, reference.examples)
        items += _items(reference, truth, asked, full=not quick and not left_out, left_out=left_out)
    if not quick or left_out:
        return items
    directions = [i for i in items if i.direction]
    right = [i for i in items if not i.direction and i.truth is True]
    wrong = [i for i in items if not i.direction and i.truth is False]
    chooser = random.Random(seed)
    sample = chooser.sample(right, min(QUICK_ALIGNMENT // 2, len(right)))
    sample += chooser.sample(wrong, min(QUICK_ALIGNMENT - len(sample), len(wrong)))
    return directions + sample


@cache
def reference_spec(criterion: str) -> ScorerSpec:
    """The spec of a reference criterion, loaded once."""
    return load_spec(REFERENCES[criterion].spec)[0]


Prompt = list[dict[str, str]]


def item_prompts(item: Item) -> tuple[Prompt, Prompt | None]:
    """An item's prompt as the panel renders it, and its contrast (the texts' roles
    exchanged) for a direction question."""
    context = {
        "spec": reference_spec(item.criterion),
        "recipe": item.recipe,
        "relation_json": item.recipe.relation.model_dump_json(),
        **({"case": item.case} if item.case is not None else {}),
    }
    prompt = messages(item.template, **context)
    if not item.direction:
        return prompt, None
    return prompt, messages(item.template, swap=True, **context)


def asked_prompts(model: str, *, quick: bool, seed: int = 0) -> list[tuple[Prompt, Prompt | None]]:
    """Every prompt the qualification asks `model` (sane.qualification.recorded hashes them)."""
    return [item_prompts(item) for item in questions(model, quick=quick, seed=seed)]


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
    prompt, contrast = item_prompts(item)
    if contrast is None:
        return await panel.decide(item.subject, Question.alignment, prompt)
    question = Question.alignment if item.case is None else Question.applicability
    ballot = DirectionBallot(frozenset({"lower"}))  # the answers are read, not the decision
    return await panel.decide(item.subject, question, prompt, ballot, contrast=contrast)


def _asked(item: Item) -> str:
    """What an item's question showed, in one line (for the list of misses)."""
    shown = f"{item.criterion}: {item.recipe.instruction}"
    if not item.direction:
        return f"{shown} Predicts: {predicts(item.recipe.relation)}."
    if item.case is None:
        return f"{shown} Asks: the edited text's score on most texts, lower, higher or same."
    return f"{shown} Asks: the edited text's score on case {item.case.id}, lower, higher or same."


def _miss(item: Item, vote: Vote) -> Miss | None:
    """The vote as a miss, or None when it answered right (both ways round, for a direction)."""
    if not item.direction:
        said = vote.decision.value
        keyed = "yes" if item.truth else "no"
        rationale = vote.rationale or ""
    else:
        raw = json.loads(vote.raw)
        as_asked, exchanged = raw["as_asked"], raw[TEXTS_EXCHANGED]
        turned = TURNED_ROUND[exchanged["answer"]]
        if as_asked["answer"] == turned == item.truth:
            return None
        said = f"{as_asked['answer']}; asked the other way round: {turned} (turned back)"
        keyed = str(item.truth)
        rationale = " | ".join(
            filter(None, (as_asked.get("rationale"), exchanged.get("rationale")))
        )
    if said == keyed:
        return None
    question = "alignment" if not item.direction else "direction"
    return Miss(
        subject=item.subject,
        question=question,
        asked=_asked(item),
        keyed=keyed,
        answered=said,
        rationale=rationale,
    )


def score(model: str, quick: bool, decided: list[tuple[Item, PanelDecision]]) -> Qualification:
    """The figures and verdicts from the panel's answers (an error is no answer)."""
    right = answers = consistent = pairs = false_yes = wrong_claims = answered_calls = 0
    errors: list[str] = []
    misses: list[Miss] = []
    for item, decision in decided:
        (vote,) = decision.votes
        if vote.error is not None:
            errors.append(vote.error)
            continue
        answered_calls += item.calls
        missed = _miss(item, vote)
        if missed is not None:
            misses.append(missed)
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
        misses=misses,
    )


async def qualify(
    client: LLMClient,
    model: str,
    *,
    quick: bool = True,
    config: RunConfig | None = None,
    left_out: bool = False,
) -> Qualification:
    """Ask `model` the qualification's questions through `client` (cached like any call);
    `left_out`: the questions the knowability rule leaves out instead (see `questions`)."""
    config = config or RunConfig(model=model, oracle_models=[model])
    items = questions(model, quick=quick, seed=config.seed, left_out=left_out)
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
    if q.recorded is not None:
        head += (
            f" (RECORDED on {q.recorded} for this model file and these questions; not asked "
            "again: sane qualify --no-recorded asks it)"
        )
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
        *_render_misses(q.misses),
    ]
    return "\n".join(lines)


def _render_misses(misses: list[Miss]) -> list[str]:
    """The questions the model missed, with its answer and reason: whether a miss is the
    model's or the question's is for the reader to see."""
    if not misses:
        return []
    rows = [
        f"| {cell(m.subject)} | {cell(m.asked, 300)} | {cell(m.keyed)} | {cell(m.answered)} "
        f"| {cell(m.rationale, 300)} |"
        for m in misses
    ]
    return [
        "",
        f"### Missed questions ({len(misses)})",
        "",
        "| question | what it showed | keyed | answered | the model's reason |",
        "|---|---|---|---|---|",
        *rows,
    ]
