"""A panel kind `example_direction`: contrastive, with each pair recipe's alignment asked as
the blind panel asks it (its direction, not shown), and its cases asked yes/no."""

from __future__ import annotations

from dataclasses import dataclass

from sane.panel.kinds import BlindPanel, ContrastivePanel, register_panel_kind
from sane.records import Question


@dataclass(frozen=True)
class DirectionAlignment(ContrastivePanel):
    def ballot(self, question, recipe):
        if question is Question.alignment:
            return BlindPanel.ballot(self, question, recipe)
        return super().ballot(question, recipe)


register_panel_kind(DirectionAlignment("example_direction", "alignment asked blind, cases yes/no"))
