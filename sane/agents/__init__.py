"""Agents turn a scorer spec into capabilities, recipes and cases by asking a model.

Each agent is one structured call per item, so each item is cached and can be
resumed on its own; a failed call is recorded as an error for that item only.
"""

from sane.agents._drafts import AgentCall, capability_list, case_draft, recipe_list
from sane.agents.capabilities import capabilities_call, derive_capabilities
from sane.agents.cases import case_call, example_for, instantiate_case
from sane.agents.recipes import derive_recipes, recipes_call

__all__ = [
    "AgentCall",
    "capabilities_call",
    "capability_list",
    "case_call",
    "case_draft",
    "derive_capabilities",
    "derive_recipes",
    "example_for",
    "instantiate_case",
    "recipe_list",
    "recipes_call",
]
