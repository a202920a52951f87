"""A panel prompt read back into the question it asks, for the simulated oracle.

A simulated oracle is a provider like any other: all it receives is the task name and the
messages a real model would get. To answer from ground truth it reads the question back out
of the rendered templates of `sane/prompts/` (`vote_alignment.j2`, `vote_direction.j2`,
`vote_realization.j2`, `vote_applicability.j2`, `vote_case_direction.j2`). The patterns
below follow those templates line by line; tests/simulation/test_prompt_reader.py renders
every template and reads it back, so a template edit that this reader no longer follows
fails there, not silently in a benchmark.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from sane.records import PairRelation
from sane.relations import KINDS, predicts

_ALIGN_INSTRUCTION = re.compile(r'^Instruction \(how the "[^"]*" is changed\): (.*)$', re.MULTILINE)
_ALIGN_RELATION = re.compile(r"^\(As data: (\{.*\})\)$", re.MULTILINE)
_DIRECTION_INSTRUCTION = re.compile(
    r'^Instruction \(how the "([^"]*)" text is made from the "([^"]*)" text\): (.*)$', re.MULTILINE
)
_DIRECTION_ROLES = re.compile(
    r'compared with the "([^"]*)" text\'s score, the "([^"]*)" text\'s score is:', re.IGNORECASE
)
_CASE_DIRECTION_ROLES = re.compile(
    r'Compared with the score the "([^"]*)" text deserves, the "([^"]*)" text deserves'
)
_CASE_INSTRUCTION = re.compile(r"^Instruction: (.*)$", re.MULTILINE)
_CLAIM = re.compile(r'Is it true that (.*)\? Answer "yes"', re.DOTALL)
_FIELD = re.compile(r'<data field="([^"]*)">\n(.*?)\n</data>', re.DOTALL)
_ROLE = re.compile(r'<data role="([^"]*)">\n(.*?)\n</data>', re.DOTALL)
# the inverse of sane.prompts' data filter (a text's own "<data" tag look-alikes)
_ESCAPED_TAG = re.compile(r"&lt;(\s*/?\s*data)", re.IGNORECASE)

DIRECTION_TASK = "vote:direction"


class Unreadable(ValueError):
    """A prompt this reader cannot follow: a template it does not know, or text it lacks."""


@dataclass(frozen=True)
class Asked:
    """What a panel question shows, in the terms its truth is computed in.

    `compared`/`judged`: the two roles a direction question compares (the answer is the
    judged text's score against the compared one's). `relation`: the claim a yes/no question
    checks. `example`: the source example's fields (case questions); `variants`: the
    case's texts by role."""

    task: str
    instruction: str | None = None
    relation: PairRelation | None = None
    perturbed_role: str | None = None  # blind alignment: the role made by the instruction
    compared: str | None = None
    judged: str | None = None
    example: dict[str, str] = field(default_factory=dict)
    variants: dict[str, str] = field(default_factory=dict)

    @property
    def is_direction(self) -> bool:
        return self.task == DIRECTION_TASK


def _unescape(text: str) -> str:
    return _ESCAPED_TAG.sub(r"<\1", text)


def _one(pattern: re.Pattern[str], text: str, what: str) -> re.Match[str]:
    found = pattern.search(text)
    if found is None:
        raise Unreadable(f"the prompt shows no {what}")
    return found


def _case(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """(source example fields, variants by role) of a case question."""
    head, sep, tail = text.partition("Variants of ")
    if not sep:
        raise Unreadable("the prompt shows no case variants")
    example = {name: _unescape(value) for name, value in _FIELD.findall(head)}
    variants = {role: _unescape(value) for role, value in _ROLE.findall(tail)}
    if not variants:
        raise Unreadable("the prompt shows no case variants")
    return example, variants


def _claimed(claim: str, roles: list[str]) -> PairRelation:
    """The pair relation whose plain words (`predicts(..., "deserves")`) are `claim`."""
    for kind, relation_kind in KINDS.items():
        if relation_kind.record is not PairRelation:
            continue
        for original in roles:
            for perturbed in roles:
                if original == perturbed:
                    continue
                relation = PairRelation(kind=kind, original=original, perturbed=perturbed)
                if " ".join(predicts(relation, "deserves").split()) == claim:
                    return relation
    raise Unreadable(f"the claim '{claim}' is no pair relation over roles {roles}")


def read(task: str, messages: list[dict[str, str]]) -> Asked:
    """The question a panel prompt asks (`task` as the panel names it, e.g. vote:alignment)."""
    text = str(messages[-1].get("content") or "") if messages else ""
    if task == "vote:alignment":
        relation = json.loads(_one(_ALIGN_RELATION, text, "relation data").group(1))
        if relation.get("kind") not in {k for k, v in KINDS.items() if v.record is PairRelation}:
            raise Unreadable(f"relation kind '{relation.get('kind')}' is not a pair relation")
        return Asked(
            task,
            instruction=_one(_ALIGN_INSTRUCTION, text, "instruction").group(1),
            relation=PairRelation.model_validate(relation),
        )
    if task == DIRECTION_TASK and "Case id: " not in text:
        perturbed, _, instruction = _one(_DIRECTION_INSTRUCTION, text, "instruction").groups()
        compared, judged = _one(_DIRECTION_ROLES, text, "compared roles").groups()
        return Asked(
            task,
            instruction=instruction,
            perturbed_role=perturbed,
            compared=compared,
            judged=judged,
        )
    example, variants = _case(text)
    if task == DIRECTION_TASK:
        compared, judged = _one(_CASE_DIRECTION_ROLES, text, "compared roles").groups()
        return Asked(task, compared=compared, judged=judged, example=example, variants=variants)
    if task == "vote:realization":
        instruction = _one(_CASE_INSTRUCTION, text, "instruction").group(1)
        return Asked(task, instruction=instruction, example=example, variants=variants)
    if task == "vote:applicability":
        claim = " ".join(_one(_CLAIM, text, "claim").group(1).split())
        return Asked(
            task,
            relation=_claimed(claim, list(variants)),
            example=example,
            variants=variants,
        )
    raise Unreadable(f"no panel question is asked under task '{task}'")
