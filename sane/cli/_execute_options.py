"""The execution options of `sane execute` and `sane baseline`, declared once.

A command decorated with `@execute_options(...)` takes one parameter
`execution: ExecuteConfig`; the option group (sane.cli._options) gives it the options
below and builds the checked configuration with `sane.pipeline.run_config.execute_config`, the same
function the Python API uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sane.cli._options import Option, fields_of, option_group

if TYPE_CHECKING:
    from sane.records import ExecuteConfig

OPTIONS: dict[str, Option] = {
    option.name: option
    for option in (
        Option(
            "target",
            "targets",
            Annotated[
                list[str] | None,
                typer.Option(metavar="NAME", help="Target name(s); default all."),
            ],
        ),
        Option(
            "repeats",
            "repeats",
            Annotated[int, typer.Option(min=1, help="Scores per variant.")],
        ),
        Option(
            "timeout",
            "timeout_s",
            Annotated[
                float,
                typer.Option(help="Seconds per scorer call (a target's own timeout_s wins)."),
            ],
        ),
        Option(
            "max_target_calls",
            "max_target_calls",
            Annotated[
                int,
                typer.Option(
                    min=0,
                    help="Target calls per target for the score-inflation search "
                    "(manipulations against matched placebos, no oracle); 0: no search.",
                ),
            ],
        ),
        Option(
            "comparison_examples",
            "comparison_examples",
            Annotated[
                int,
                typer.Option(
                    min=0,
                    help="A comparative spec's examples its targets' comparison audit asks "
                    "about (swapped, identical, padded, praised pairs; no oracle); 0: none.",
                ),
            ],
        ),
        Option(
            "tolerance_floor",
            "tolerance_floor",
            Annotated[
                float,
                typer.Option(
                    help="Least tolerance a relation check uses, on the 0-1 scale (a change "
                    "within it is no move)."
                ),
            ],
        ),
        Option(
            "tolerance_spread",
            "tolerance_spread",
            Annotated[
                float,
                typer.Option(
                    min=0,
                    help="Least tolerance as a share of the target's own spread of scores "
                    "(their standard deviation over the suite's examples): a change smaller "
                    "than this share of how far the scorer moves between real texts is no move.",
                ),
            ],
        ),
    )
}


def execute_options(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the execution options `names` (default: all) in place of its
    `execution`."""
    from sane.records import ExecuteConfig

    return option_group("execution", OPTIONS, names, build_execute_config, ExecuteConfig)


def build_execute_config(values: dict[str, Any]) -> ExecuteConfig:
    from sane.pipeline.run_config import execute_config

    return execute_config(**fields_of(OPTIONS, values))
