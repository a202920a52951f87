"""A case whose writer declines its example (the recipe does not apply) is written from the
next example no other case of the recipe uses; with none left it stays declined."""

from __future__ import annotations

import asyncio

from sane.agents import instantiate_case
from sane.agents.cases import examples_to_try
from sane.inputs import examples_path, load_examples, load_spec
from sane.pipeline.estimate import _representatives
from sane.pipeline.run_config import run_config


class _Writer:
    """A case writer that finds nothing to change in the examples it is told to decline."""

    def __init__(self, examples, decline: set[int]) -> None:
        self.texts = {examples[i]["summary"]: i for i in range(len(examples))}
        self.decline, self.asked = decline, []

    async def structured(self, model, prompt, schema, **_):
        user = prompt[-1]["content"]
        (index,) = [i for text, i in self.texts.items() if text in user]
        self.asked.append(index)
        if index in self.decline:
            return schema.model_validate({"not_applicable": f"example {index} has no number"})
        return schema.model_validate(
            {"variants": [{"role": "perturbed", "text": f"edited {index}"}], "notes": "ok"}
        )


def _setup(cases: int):
    spec, path = load_spec("builtin:faithfulness")
    examples = load_examples(spec, examples_path(spec, path, None))
    _, recipe, _, _ = _representatives(spec, examples)
    config = run_config(model="scripted/any", cases=cases, tau=1)
    return spec, examples, recipe, config


def _write(writer, spec, recipe, index, examples, config):
    return asyncio.run(instantiate_case(writer, spec, recipe, 1, index, examples, config))


def test_a_declined_example_gives_way_to_the_next_one_the_recipe_does_not_use():
    spec, examples, recipe, config = _setup(cases=4)
    tries = examples_to_try(1, 2, 4, len(examples))  # 14 examples, 4 cases: every 4th
    writer = _Writer(examples, decline={tries[0]})
    case = _write(writer, spec, recipe, 2, examples, config)
    assert writer.asked == tries[:2]
    assert case.not_applicable is None and case.example_index == tries[1]
    assert case.variants["perturbed"] == f"edited {tries[1]}"
    assert case.notes.startswith(f"declined first (example {tries[0]}: ")
    others = {examples_to_try(1, i, 4, len(examples))[0] for i in (0, 1, 3)}
    assert tries[1] not in others  # no other case of the recipe starts on it


def test_with_no_example_left_the_case_stays_declined_with_every_reason():
    spec, examples, recipe, config = _setup(cases=4)
    tries = examples_to_try(1, 0, 4, len(examples))
    writer = _Writer(examples, decline=set(range(len(examples))))
    case = _write(writer, spec, recipe, 0, examples, config)
    assert writer.asked == tries and len(tries) == 4
    assert case.not_applicable == f"example {tries[-1]} has no number"
    assert case.variants == {"original": examples[tries[-1]]["summary"]}
    assert all(f"example {i}: " in case.notes for i in tries[:-1])


def test_the_recipes_cases_share_no_example_and_each_is_tried_once():
    for n_cases, n_examples in ((4, 14), (6, 6), (3, 10), (8, 5)):
        tried = [examples_to_try(2, i, n_cases, n_examples) for i in range(n_cases)]
        fallbacks = [i for row in tried for i in row[1:]]
        firsts = [row[0] for row in tried]
        assert len(set(fallbacks)) == len(fallbacks) and not set(fallbacks) & set(firsts)
        if n_cases <= n_examples:
            assert sorted(firsts + fallbacks) == list(range(n_examples))
