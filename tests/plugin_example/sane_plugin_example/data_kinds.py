"""A fixed recipe set folder, a manipulation catalogue and a reference scorer, from outside
sane: data kinds register a function that says where their files are."""

from __future__ import annotations

from pathlib import Path

from sane.generators.fixed_sets import FIXED_SET_FOLDERS
from sane.manipulations.catalogue import CATALOGUES
from sane.qualification.references import Reference, register_reference

HERE = Path(__file__).resolve().parent


@FIXED_SET_FOLDERS.register("example")
def fixed_sets() -> Path:
    return HERE / "fixed"


@CATALOGUES.register("example")
def catalogue() -> Path:
    return HERE / "catalogue.yaml"


def example_words(record: dict[str, str]) -> float:
    return min(1.0, len(record["text"].split()) / 10)


register_reference(Reference("example_words", example_words, "text", "text", HERE / "criteria"))
