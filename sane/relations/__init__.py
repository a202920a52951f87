"""Expected relations: every kind in one place (docs/method.md).

A recipe's expected relation is typed data over the scores of a case's variants. Each kind
is one :class:`RelationKind` in one module here (`pair`, `repeatable`, `combined`,
`series`, `at_level`):
its record, its check, its mirror, the roles whose change it measures, its paired-test
expectation, the blind panel's direction, and its formula and plain words. Everything else
(the executor, the panel's prompts and ballots, the statistics, the reports) asks the kind.
Adding a kind is one module that registers it, named in the `sane.relation_kinds`
entry-point group (sane._registry), plus its row in tests/relations/test_relation_kinds.py.
"""

from typing import Annotated, Union

from pydantic import Field

from sane.relations._kind import (
    EPS,
    KINDS,
    NOISE_K,
    Alternative,
    RelationKind,
    RelationResult,
    Scores,
    Verdict,
    catalogue,
    check_relation,
    discriminates,
    error,
    formula,
    kind_of,
    mirror,
    predicts,
    reference_role,
    tolerance_for,
    unchanged,
    verdict,
)
from sane.relations._kind import register as register_relation

# The kinds' modules, imported in their group's order (the order the recipe agent is told the
# kinds) before any import below could register one of them out of turn.
KINDS.fill()

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
    "NOISE_K",
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
    "discriminates",
    "error",
    "formula",
    "kind_of",
    "mirror",
    "predicts",
    "reference_role",
    "register_relation",
    "relation_roles",
    "tolerance_for",
    "unchanged",
    "verdict",
]
