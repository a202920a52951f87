"""Expected relations: every kind in one place (docs/method.md).

A recipe's expected relation is typed data over the scores of a case's variants. Each kind
is one :class:`RelationKind` in one module here (`pair`, `repeatable`, `combined`,
`series`, `at_level`):
its record, its check, its mirror, the roles whose change it measures, its paired-test
expectation, the blind panel's direction, and its formula and plain words. Everything else
(the executor, the panel's prompts and ballots, the statistics, the reports) asks the kind.
Adding a kind is one registration in one module, plus its row in
tests/validators/test_relation_kinds.py.
"""

from typing import Annotated, Union

from pydantic import Field

# Importing a kind's module registers it; the order is the order the recipe agent is told.
# isort: off
from sane.relations import pair, repeatable, combined, series, at_level  # noqa: F401

# isort: on
from sane.relations._kind import (
    EPS,
    KINDS,
    Alternative,
    RelationKind,
    RelationResult,
    Scores,
    Verdict,
    catalogue,
    check_relation,
    formula,
    kind_of,
    mirror,
    predicts,
)
from sane.relations.at_level import AtLevelRelation
from sane.relations.combined import CombinedRelation
from sane.relations.pair import PairRelation
from sane.relations.repeatable import RepeatableRelation
from sane.relations.series import OrderedRelation, SpansRelation

# The union of every registered kind's record, told apart by `kind`.
Relation = Annotated[
    Union[tuple(dict.fromkeys(kind.record for kind in KINDS.values()))],  # noqa: UP007
    Field(discriminator="kind"),
]


def relation_roles(relation: Relation) -> list[str]:
    """The variant roles a relation reads, in a stable order."""
    return relation.roles()


__all__ = [
    "EPS",
    "KINDS",
    "Alternative",
    "AtLevelRelation",
    "CombinedRelation",
    "OrderedRelation",
    "PairRelation",
    "Relation",
    "RelationKind",
    "RelationResult",
    "RepeatableRelation",
    "Scores",
    "SpansRelation",
    "Verdict",
    "catalogue",
    "check_relation",
    "formula",
    "kind_of",
    "mirror",
    "predicts",
    "relation_roles",
]
