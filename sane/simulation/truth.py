"""The right answer to every panel question a simulated oracle can be asked, from exact code.

The truth is an exact reference scorer (a python target's function: a record -> a number)
with the run's spec and examples, and the catalogue of code edits. For a recipe built on a
code edit every question has an exact answer:

- alignment: does the claimed relation hold on most of the examples the edit changes? (The
  case panel's applicability question then catches the examples where it does not.) The
  blind form asks the direction: the one the reference's score moves in on most of them;
- realization: do the variants equal the edit applied by code to the original? (The planted
  no-op, decoy and faithful controls are realization questions, so their known answers come
  out of the same rule);
- applicability and direction on a case: the reference's scores on the case's own texts,
  checked by the executor's own relation check with the executor's default tolerance.

A recipe or an instruction written freely by a model has no exact truth here (whether a
paraphrase is faithful is not computable): such a question raises `NoTruth`, which the
provider returns as an error, so the vote is recorded unresolved with that reason and the
recipe is kept out of every measurement rather than decided by a guess.
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal

from sane.edits import OPERATORS, TransformError, TransformInput, apply_transform
from sane.inputs import examples_path, load_examples, load_spec
from sane.panel.controls import FAITHFUL_EDITS
from sane.records import Example, PairRelation, ScorerSpec
from sane.relations import EPS, Verdict, check_relation
from sane.scorers import normalise
from sane.scorers.python_fn import resolve_ref
from sane.simulation.params import SimulatedOracle
from sane.simulation.prompt_reader import Asked

Direction = Literal["lower", "higher", "same"]
TOLERANCE = 0.05
"""The least change of a simulated reference scorer that counts as a move in the simulation's
ground truth (0.05 of the 0-1 range: the executor's fixed floor when the simulations were
calibrated; the executor now scales its bar to each target's spread, sane.relations)."""


class NoTruth(ValueError):
    """A question with no exact answer here (an instruction no code edit carries out)."""


@cache
def _edits() -> dict[str, str]:
    """Instruction -> code edit, for the catalogue's operators and the faithful controls."""
    edits = {text.strip(): name for name, text in OPERATORS.items()}
    edits.update({text.strip(): name for name, (_, text) in FAITHFUL_EDITS.items()})
    return edits


def edit_for(instruction: str) -> str | None:
    """The code edit (transform name) an instruction names word for word, or None."""
    return _edits().get(instruction.strip())


def direction(compared: float, judged: float, tolerance: float = TOLERANCE) -> Direction:
    """Which way the judged score lies from the compared one, by the pair checks' own rule."""
    if judged - compared > tolerance + EPS:
        return "higher"
    if compared - judged > tolerance + EPS:
        return "lower"
    return "same"


@dataclass(frozen=True)
class GroundTruth:
    """A reference scorer with the spec and examples it is applied to."""

    spec: ScorerSpec
    examples: tuple[Example, ...]
    reference: Callable[[dict[str, str]], Any]
    tolerance: float = TOLERANCE
    _edited: dict[str, list[tuple[float, float]]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def score(self, record: dict[str, str]) -> float:
        """The reference's score on a record, normalised as the executor normalises it."""
        raw = self.reference(dict(record))
        if inspect.isawaitable(raw) or isinstance(raw, bool) or not isinstance(raw, int | float):
            raise NoTruth(f"the reference returned {type(raw).__name__}, not a number")
        return normalise(float(raw), self.spec.output, self.spec.output)

    def _scores(self, example: dict[str, str], texts: dict[str, str]) -> dict[str, float]:
        scored = self.spec.scored_field
        return {role: self.score({**example, scored: text}) for role, text in texts.items()}

    def changed(self, edit: str) -> list[tuple[float, float]]:
        """(original score, edited score) on every example the edit changes."""
        if edit not in self._edited:
            scored = self.spec.scored_field
            pairs = []
            for index, example in enumerate(self.examples):
                text = example[scored]
                try:
                    edited = apply_transform(
                        edit, TransformInput(text, index, self.examples, scored)
                    )
                except TransformError:
                    continue
                if edited != text:
                    pairs.append((self.score(example), self.score({**example, scored: edited})))
            self._edited[edit] = pairs
        return self._edited[edit]

    def _edit(self, instruction: str | None) -> str:
        edit = None if instruction is None else edit_for(instruction)
        if edit is None:
            raise NoTruth(
                "no exact truth: the instruction is not a code edit's (a recipe written freely "
                "by a model cannot be simulated)"
            )
        return edit

    def _holds(self, relation: PairRelation, original: float, perturbed: float) -> bool:
        scores = {relation.original: [original], relation.perturbed: [perturbed]}
        result = check_relation(relation, scores, self.tolerance, self.spec.output.higher_is_better)
        return result.verdict is Verdict.passed

    def recipe_holds(self, instruction: str, relation: PairRelation) -> bool:
        """A recipe is right: its relation holds on most of the examples its edit changes
        (NoTruth for an instruction no code edit carries out)."""
        pairs = self.changed(self._edit(instruction))
        held = sum(self._holds(relation, s0, s1) for s0, s1 in pairs)
        return held * 2 > len(pairs)

    def alignment(self, asked: Asked) -> bool:
        assert asked.relation is not None
        return self.recipe_holds(asked.instruction or "", asked.relation)

    def alignment_direction(self, asked: Asked) -> Direction:
        """The direction the reference's score moves in on most changed examples (judged
        text against compared text; "same" on a tie or when the edit changes nothing)."""
        pairs = self.changed(self._edit(asked.instruction))
        judged_is_edited = asked.judged == asked.perturbed_role
        moves = Counter(
            direction(s0, s1) if judged_is_edited else direction(s1, s0) for s0, s1 in pairs
        )
        ranked = moves.most_common()
        if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
            return "same"
        return ranked[0][0]

    def realization(self, asked: Asked) -> bool:
        """The variants are the instruction's edit applied by code to the original."""
        edit = self._edit(asked.instruction)
        if len(asked.variants) != 2:
            raise NoTruth("no exact truth: realization is simulated for two-variant cases")
        roles = list(asked.variants)
        first = "original" if "original" in asked.variants else roles[0]
        (second,) = [role for role in roles if role != first]
        original, perturbed = asked.variants[first], asked.variants[second]
        try:
            edited = apply_transform(edit, TransformInput(original, 0, self.examples))
        except TransformError:
            return False
        return edited != original and edited == perturbed

    def applicability(self, asked: Asked) -> bool:
        """The claimed relation holds on the reference's scores of the case's own texts."""
        assert asked.relation is not None
        scores = self._scores(asked.example, asked.variants)
        relation = asked.relation
        return self._holds(relation, scores[relation.original], scores[relation.perturbed])

    def case_direction(self, asked: Asked) -> Direction:
        assert asked.compared is not None and asked.judged is not None
        scores = self._scores(asked.example, asked.variants)
        return direction(scores[asked.compared], scores[asked.judged])

    def answer(self, asked: Asked) -> bool | Direction:
        """The right answer: yes/no as a bool, or a direction."""
        if asked.task == "vote:alignment":
            return self.alignment(asked)
        if asked.task == "vote:realization":
            return self.realization(asked)
        if asked.task == "vote:applicability":
            return self.applicability(asked)
        if asked.variants:
            return self.case_direction(asked)
        return self.alignment_direction(asked)


@lru_cache(maxsize=64)
def _loaded(truth: str, spec: Path, examples: Path) -> GroundTruth:
    scorer, spec_path = load_spec(spec)
    rows = load_examples(scorer, examples_path(scorer, spec_path, examples))
    reference = resolve_ref(truth, "truth")
    if inspect.iscoroutinefunction(reference):
        raise NoTruth(f"the truth {truth} is async; a simulated oracle needs a plain function")
    return GroundTruth(scorer, tuple(rows), reference)


def load_truth(truth: str, spec: Path, examples: Path) -> GroundTruth:
    """A reference scorer with a spec and examples, loaded once per process."""
    return _loaded(truth, spec, examples)


def ground_truth(oracle: SimulatedOracle) -> GroundTruth:
    """The oracle's truth, loaded once per process (the reference's module, spec, examples)."""
    if oracle.spec is None or oracle.examples is None:
        raise NoTruth("the simulated oracle names no spec and examples (spec=PATH,examples=PATH)")
    return _loaded(oracle.truth, oracle.spec, oracle.examples)
