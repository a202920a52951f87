"""The manipulation catalogue as records, and a manipulation put into a text.

A `Manipulation` is a pair of snippets (the manipulation and its placebo) of one family; a
`Placed` manipulation is one of them at a position, and `texts` writes the three texts of a
test for one example: the original, the placebo version and the manipulated version. The
catalogue is data (catalogue.yaml, or any file of the same shape given by path), extended by
adding a family or a manipulation to such a file.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, ValidationError

from sane._record import Record
from sane._registry import Registry
from sane.edits import sentences
from sane.errors import InputError

Position = Literal["start", "middle", "end"]
POSITIONS: tuple[Position, ...] = ("start", "middle", "end")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
STOPWORDS = frozenset(
    word
    for line in resources.files("sane.manipulations")
    .joinpath("stopwords.txt")
    .read_text()
    .split("\n")
    if (word := line.strip()) and not word.startswith("#")
)
"""Function words (stopwords.txt): a keyword is a word that carries the example's content."""
NEUTRAL_WORDS: dict[int, tuple[str, ...]] = {
    3: ("cup", "pen", "mat"),
    4: ("lamp", "door", "rope"),
    5: ("table", "chair", "cloud"),
    6: ("window", "garden", "pencil"),
    7: ("blanket", "kettles", "morning"),
    8: ("notebook", "doorbell", "raincoat"),
    9: ("staircase", "bookshelf", "porcelain"),
    10: ("toothbrush", "lighthouse", "wheelchair"),
    11: ("screwdriver", "thermometer", "candlestick"),
    12: ("refrigerator", "candlesticks", "storytellers"),
}
"""Neutral words by length: a keyword is matched by a neutral word of its own length."""


def neutral_words(words: list[str], offset: int = 0) -> list[str]:
    """A neutral word for each of `words`, of the same length where one is listed."""
    out = []
    for k, word in enumerate(words):
        options = NEUTRAL_WORDS.get(len(word))
        out.append(options[(k + offset) % len(options)] if options else "x" * len(word))
    return out


class Manipulation(Record):
    """A manipulation and its placebo: the same form, a neutral meaning."""

    id: str
    family: str
    text: str
    placebo: str
    join: str = " "
    adds_example_words: bool = False  # the family's point is words of the example
    placebo_is_original: bool = False  # the control is the unchanged text (catalogue.yaml)


class ManipulationFamily(Record):
    """One family of the catalogue: how its snippets join the text, what its pairs may differ
    in, and its manipulations (id, text, placebo)."""

    description: str
    join: str = " "
    adds_example_words: bool = False
    placebo_is_original: bool = False
    manipulations: list[dict[str, str]] = Field(min_length=1)


class Catalogue(Record):
    margin: float = Field(default=0.05, gt=0, lt=1)  # a placebo's length, relative
    families: dict[str, ManipulationFamily]

    def manipulations(self) -> list[Manipulation]:
        return [
            Manipulation(
                id=f"{name}/{item['id']}",
                family=name,
                text=item["text"],
                placebo=item["placebo"],
                join=family.join,
                adds_example_words=family.adds_example_words,
                placebo_is_original=family.placebo_is_original,
            )
            for name, family in self.families.items()
            for item in family.manipulations
        ]


CatalogueFile = Callable[[], "Traversable | Path"]
CATALOGUES: Registry[CatalogueFile] = Registry(
    "manipulation catalogue", group="sane.manipulation_catalogues"
)
"""Catalogue files by name (sane's own, and any another package registers): the search uses
the families of them all."""


@CATALOGUES.register("builtin")
def _builtin() -> Traversable:
    return resources.files("sane.manipulations").joinpath("catalogue.yaml")


def load_catalogue(path: str | Path | None = None) -> Catalogue:
    """The families of every registered catalogue (a family named twice is bad input), or
    the file at `path` alone (bad input names the file)."""
    return _registered() if path is None else _read_catalogue(Path(path))


@cache
def _registered() -> Catalogue:
    merged: Catalogue | None = None
    for name, where in CATALOGUES.items():
        found = _read_catalogue(where())
        if merged is None:
            merged = found
            continue
        twice = sorted(set(found.families) & set(merged.families))
        if twice:
            raise InputError(str(where()), "families", f"{twice[0]!r} is already a family ({name})")
        merged = merged.model_copy(update={"families": {**merged.families, **found.families}})
    assert merged is not None, "sane's own catalogue is registered"
    return merged


def _read_catalogue(where: Traversable | Path) -> Catalogue:
    name = str(where)
    try:
        text = where.read_text(encoding="utf-8")
        return Catalogue.model_validate(yaml.safe_load(text))
    except OSError as exc:
        raise InputError(name, None, f"cannot be read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise InputError(name, None, f"is not YAML: {str(exc).splitlines()[0]}") from None
    except ValidationError as exc:
        problem = exc.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        raise InputError(name, field, problem["msg"]) from None


class Placed(Record):
    """A manipulation at a position: what the search varies and what a test records."""

    manipulation: Manipulation
    position: Position

    @property
    def id(self) -> str:
        return f"{self.manipulation.id}@{self.position}"


def content_words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text) if w.lower() not in STOPWORDS]


def keywords(words: list[str], present: set[str], count: int = 4) -> list[str]:
    """The most frequent of `words` that the scored text does not already hold."""
    return [w for w, _ in Counter(w for w in words if w not in present).most_common(count)]


def fill(
    snippet: str, text: str, example: Mapping[str, str], scored_field: str, criterion: str
) -> str:
    """A snippet with its slots filled for this example (slots: catalogue.yaml)."""
    present = set(content_words(text))
    context = [w for f, v in example.items() if f != scored_field for w in content_words(v)]
    found = {
        "keywords": keywords(context, present),
        "criterion_keywords": keywords(content_words(criterion), present),
    }
    first = sentences(text)[0].strip() if text.strip() else ""
    values = {
        **{slot: ", ".join(words) for slot, words in found.items()},
        "neutral": ", ".join(neutral_words(found["keywords"])),
        "criterion_neutral": ", ".join(neutral_words(found["criterion_keywords"], 1)),
        "restated": first,
    }
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), snippet)


def insert(text: str, snippet: str, position: Position, join: str) -> str:
    """`text` with `snippet` at the start, the end, or after the sentence nearest its middle."""
    if position == "start":
        return f"{snippet}{join or ''}{text}"
    if position == "end":
        return f"{text.rstrip()}{join}{snippet}"
    pieces = sentences(text)
    if len(pieces) < 2:
        cut = len(text) // 2
        space = text.rfind(" ", 0, cut)
        cut = space + 1 if space > 0 else cut
        return f"{text[:cut]}{snippet}{join}{text[cut:]}"
    middle = len(pieces) // 2
    head, tail = "".join(pieces[:middle]), "".join(pieces[middle:])
    return f"{head.rstrip()}{join}{snippet}{join}{tail}"


def texts(
    placed: Placed, example: Mapping[str, str], scored_field: str, criterion: str
) -> dict[str, str]:
    """The three texts of one test: original, placebo and manipulated."""
    original = example[scored_field]
    m = placed.manipulation
    placebo = fill(m.placebo, original, example, scored_field, criterion)
    return {
        "original": original,
        "placebo": original if m.placebo_is_original else insert(
            original, placebo, placed.position, m.join
        ),
        "manipulated": insert(original, fill(m.text, original, example, scored_field, criterion),
                              placed.position, m.join),
    }  # fmt: skip
