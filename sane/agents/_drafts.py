"""Schemas the agents ask the model to fill; they become records after validation."""

from __future__ import annotations

from pydantic import BaseModel, Field

from sane.records import Relation, Requirement


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


class RecipeList(BaseModel):
    recipes: list[RecipeDraft] = Field(min_length=1)


class VariantDraft(BaseModel):
    role: str
    text: str


class CaseDraft(BaseModel):
    variants: list[VariantDraft] = Field(min_length=1)
    notes: str = ""
