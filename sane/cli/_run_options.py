"""The run options of `sane generate` and `sane baseline`, declared once.

A command decorated with `@run_options(...)` takes one parameter `run: RunConfig`; the
option group (sane.cli._options) gives it the options below and builds the checked
configuration with `sane.pipeline.run_config.run_config`, the same function the Python API and
the estimator use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sane.cli._options import Option, fields_of, option_group

if TYPE_CHECKING:
    from sane.records import RunConfig

OPTIONS: dict[str, Option] = {
    option.name: option
    for option in (
        Option(
            "model",
            "model",
            Annotated[str, typer.Option(help="Agent model: a litellm string or local/NAME.")],
        ),
        Option(
            "oracle_model",
            "oracle_models",
            Annotated[
                list[str] | None,
                typer.Option(metavar="MODEL", help="Oracle panel model(s); repeat for a panel."),
            ],
            None,
        ),
        Option(
            "votes",
            "votes",
            Annotated[int, typer.Option(min=1, help="Oracle votes per decision.")],
        ),
        Option(
            "cases",
            "cases",
            Annotated[int, typer.Option(min=1, help="Cases per aligned recipe.")],
        ),
        Option(
            "tau",
            "tau",
            Annotated[int | None, typer.Option(help="Joint-valid cases a family needs.")],
        ),
        Option("seed", "seed", Annotated[int, typer.Option(help="Generation seed.")]),
        Option(
            "capabilities",
            "max_capabilities",
            Annotated[int, typer.Option(min=1, help="Most capabilities to derive (derived).")],
        ),
        Option(
            "recipes",
            "recipes_per_capability",
            Annotated[int, typer.Option(min=1, help="Most recipes per capability (derived).")],
        ),
        Option(
            "generator",
            "generator",
            Annotated[
                str,
                typer.Option(
                    help="Recipe source: derived (default) or fixed:NAME (jrh, behavioral, ...)."
                ),
            ],
        ),
        Option(
            "exhaustive",
            "exhaustive",
            Annotated[
                bool,
                typer.Option(
                    help="Ask every vote and generate every case (same suite as the default "
                    "sequential decisions, more calls)."
                ),
            ],
        ),
        Option(
            "stop_at_tau",
            "stop_at_tau",
            Annotated[
                bool,
                typer.Option(help="Budget mode: stop a family once it has tau joint-valid cases."),
            ],
        ),
        Option(
            "panel",
            "panel",
            Annotated[
                str,
                typer.Option(
                    help="contrastive (default): a recipe is aligned only if its mirror is "
                    "rejected; plain: the recipe's own majority decides; blind: contrastive, "
                    "and a pair relation's direction is asked without being shown "
                    "(lower/higher/same), each vote both ways round."
                ),
            ],
        ),
        Option(
            "vote_rationale",
            "vote_rationale",
            Annotated[
                bool,
                typer.Option(
                    help="Each oracle vote writes a one-sentence rationale before its answer; "
                    "--no-vote-rationale asks for the answer alone (fewer tokens)."
                ),
            ],
        ),
    )
}


def run_options(
    *names: str, resumable: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the run options `names` (default: all) in place of its `run`.

    `resumable`: `--model` may be left out, and then `run` is None: the command resumes a
    suite from the configuration the suite stores (`sane generate SUITE.db`)."""
    from sane.records import RunConfig

    if not resumable:
        return option_group("run", OPTIONS, names, build_run_config, RunConfig)
    optional = {
        **OPTIONS,
        "model": Option(
            "model",
            "model",
            Annotated[
                str | None,
                typer.Option(
                    help="Agent model: a litellm string or local/NAME (to start a suite; a "
                    "suite that exists resumes with the one it stores)."
                ),
            ],
            None,
        ),
    }
    return option_group("run", optional, names, build_resumable_config, RunConfig)


def build_run_config(values: dict[str, Any]) -> RunConfig:
    from sane.pipeline.run_config import run_config

    return run_config(**fields_of(OPTIONS, values))


def build_resumable_config(values: dict[str, Any]) -> RunConfig | None:
    """None without `--model`: the suite's stored configuration is used."""
    return None if values.get("model") is None else build_run_config(values)
