"""Schemas the agents ask the model to fill; they become records after validation."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, TypeVar

from annotated_types import MaxLen
from pydantic import BaseModel, Field, PrivateAttr, create_model, model_validator

from sane.edits import OPERATORS
from sane.records import PairRelation, Relation, Requirement, relation_roles


@dataclass(frozen=True)
class AgentCall:
    """One call an agent makes: its rendered prompt, the schema the reply must fill, and
    its task name (the LLM layer's cache and call records key on it). The agents send it,
    and the dry-run estimate (sane.pipeline.estimate) counts the same object's tokens."""

    task: str
    prompt: list[dict[str, str]]
    schema: type[BaseModel]


class CapabilityDraft(BaseModel):
    name: str = Field(min_length=1)
    description: str
    requirement: Requirement


class _BoundedList(BaseModel):
    """A list answer whose bounded versions (below) keep only the items the run uses.

    The bound is in the JSON schema, so a local model's grammar stops it there; a
    remote model that ignores the schema and writes more has the rest dropped
    (as the agents always did) rather than its whole answer refused.
    """

    @model_validator(mode="before")
    @classmethod
    def _drop_extra_items(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for name, field in cls.model_fields.items():
            limit = next((m.max_length for m in field.metadata if isinstance(m, MaxLen)), None)
            if limit is not None and isinstance(data.get(name), list):
                data[name] = data[name][:limit]
        return data


class CapabilityList(_BoundedList):
    capabilities: list[CapabilityDraft] = Field(min_length=1)


Bounded = TypeVar("Bounded", bound=_BoundedList)


@lru_cache(maxsize=64)
def bounded(base: type[Bounded], limit: int) -> type[Bounded]:
    """`base` with its one list field at most `limit` items long: the bound reaches the
    model's output grammar, so a small model stops after what the run will use instead of
    writing more."""
    ((name, field),) = base.model_fields.items()
    return create_model(  # type: ignore[call-overload, no-any-return]
        base.__name__,
        __base__=base,
        **{name: (field.annotation, Field(min_length=1, max_length=limit))},
    )


def capability_list(limit: int) -> type[CapabilityList]:
    """CapabilityList with at most `limit` items (see bounded)."""
    return bounded(CapabilityList, limit)


OperatorName = Literal[tuple(OPERATORS)]  # type: ignore[valid-type]


class RecipeDraft(BaseModel):
    operator: OperatorName | None = None  # a code edit from the catalogue, or None: free-form
    name: str = Field(min_length=1)
    instruction: str = Field(min_length=1)
    variant_roles: list[str] = Field(min_length=1)
    relation: Relation
    rationale: str = ""

    _repairs: list[str] = PrivateAttr(default_factory=list)

    @property
    def repairs(self) -> list[str]:
        """What code fixed in this draft ("roles_repaired: ..."), for the recipe's record."""
        return list(self._repairs)

    @model_validator(mode="after")
    def _roles_are_declared(self) -> RecipeDraft:
        """A pair relation between roles the draft did not declare is repaired where only one
        reading exists; anything else is refused here, not only on the Recipe, so the repair
        loop can tell the model. An operator's recipe gets the operator's roles anyway."""
        if self.operator is not None and isinstance(self.relation, PairRelation):
            return self
        if isinstance(self.relation, PairRelation):
            self._repair_pair_roles(self.relation)
        missing = [r for r in relation_roles(self.relation) if r not in self.variant_roles]
        if missing:
            raise ValueError(
                f"relation names roles {missing} that are not in variant_roles "
                f"{self.variant_roles}; roles are variant names, not scores"
            )
        return self

    def _repair_pair_roles(self, relation: PairRelation) -> None:
        """ "original" is always the example's own text, so it may be declared by code; a
        single other undeclared name maps to the single declared role the relation leaves
        unused (small models name the edit, e.g. "test_addition", instead of its role)."""
        before = (list(self.variant_roles), relation.original, relation.perturbed)
        roles = list(dict.fromkeys(self.variant_roles))
        if relation.original == "original" and "original" not in roles:
            roles.insert(0, "original")
        named = [relation.original, relation.perturbed]
        missing = [r for r in named if r not in roles]
        unused = [r for r in roles if r not in named]
        if len(missing) == 1 and len(unused) == 1:
            slot = "original" if relation.original == missing[0] else "perturbed"
            self.relation = relation.model_copy(update={slot: unused[0]})
        self.variant_roles = roles
        after = (roles, self.relation.original, self.relation.perturbed)  # type: ignore[union-attr]
        if after != before and all(r in roles for r in after[1:]):
            self._repairs.append(
                f"roles_repaired: relation {before[1]!r} -> {before[2]!r} over {before[0]} "
                f"read as {after[1]!r} -> {after[2]!r} over {roles}"
            )


class RecipeList(_BoundedList):
    recipes: list[RecipeDraft] = Field(min_length=1)


def recipe_list(limit: int) -> type[RecipeList]:
    """RecipeList with at most `limit` items (see bounded)."""
    return bounded(RecipeList, limit)


class VariantDraft(BaseModel):
    role: str
    text: str


class CaseDraft(BaseModel):
    """A case writer's reply: a text per asked role, or, where the example has nothing the
    recipe's instruction can change (no number to shift, no hedged claim to make certain),
    the reason it declines. A writer made to answer anyway copied the text unchanged or made
    another edit than the recipe's, which a panel may accept as the recipe's case (15 of 29
    notes of the strong-model readers of the QAGS suites)."""

    variants: list[VariantDraft] = Field(default_factory=list)
    notes: str = ""
    not_applicable: str | None = None

    @classmethod
    def asked(cls) -> tuple[str, ...] | None:
        """The roles `case_draft` asks for (None on the base model: any role)."""
        role_field = cls.model_fields["variants"].annotation.__args__[0].model_fields["role"]  # type: ignore[union-attr]
        return getattr(role_field.annotation, "__args__", None)

    @model_validator(mode="after")
    def _texts_or_a_reason(self) -> CaseDraft:
        if self.declined:
            self.variants = []  # texts beside a refusal are not the recipe's case
            return self
        missing = sorted(set(self.asked() or ()) - {v.role for v in self.variants})
        if not self.variants or missing:
            raise ValueError(
                f"give a text for every role{f' (missing: {missing})' if missing else ''}, "
                "or 'not_applicable' with the reason the recipe does not apply"
            )
        return self

    @property
    def declined(self) -> bool:
        return bool(self.not_applicable and self.not_applicable.strip())

    @model_validator(mode="before")
    @classmethod
    def _drop_unasked_roles(cls, data: Any) -> Any:
        """Texts for roles nobody asked for (often "original") are dropped, not an error."""
        asked = cls.asked()
        if (
            asked is None
            or not isinstance(data, dict)
            or not isinstance(data.get("variants"), list)
        ):
            return data
        kept = [v for v in data["variants"] if not isinstance(v, dict) or v.get("role") in asked]
        return {**data, "variants": kept}


@lru_cache(maxsize=256)
def case_draft(roles: tuple[str, ...]) -> type[CaseDraft]:
    """CaseDraft asking for exactly one text per role in `roles`, and no other role.

    The original is never asked for (it is the example's own text), which saves
    the longest part of the answer and keeps the model from rewriting it.
    """
    variant = create_model(
        "VariantDraft",
        __base__=VariantDraft,
        role=(Literal[roles], ...),  # type: ignore[valid-type]
    )
    return create_model(
        "CaseDraft",
        __base__=CaseDraft,
        variants=(list[variant], Field(default_factory=list, max_length=len(roles))),  # type: ignore[valid-type]
    )
