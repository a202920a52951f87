"""Schemas the agents ask the model to fill; they become records after validation."""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from sane.records import Relation, Requirement, relation_roles


class CapabilityDraft(BaseModel):
    name: str = Field(min_length=1)
    description: str
    requirement: Requirement


class CapabilityList(BaseModel):
    capabilities: list[CapabilityDraft] = Field(min_length=1)


class RecipeDraft(BaseModel):
    name: str = Field(min_length=1)
    instruction: str = Field(min_length=1)
    variant_roles: list[str] = Field(min_length=1)
    relation: Relation
    rationale: str = ""

    @model_validator(mode="after")
    def _roles_are_declared(self) -> RecipeDraft:
        """Checked here, not only on the Recipe, so the repair loop can tell the model."""
        missing = [r for r in relation_roles(self.relation) if r not in self.variant_roles]
        if missing:
            raise ValueError(
                f"relation names roles {missing} that are not in variant_roles "
                f"{self.variant_roles}; roles are variant names, not scores"
            )
        return self


class RecipeList(BaseModel):
    recipes: list[RecipeDraft] = Field(min_length=1)


class VariantDraft(BaseModel):
    role: str
    text: str


class CaseDraft(BaseModel):
    variants: list[VariantDraft] = Field(min_length=1)
    notes: str = ""
