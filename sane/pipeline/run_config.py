"""The one place a run's configuration is built and checked.

`sane generate`, `sane baseline`, `sane generate --dry-run` (the estimator), the
Python API and the benchmarks all describe a generating run with the same `RunConfig`
(stored with the suite), and an execution with the same `ExecuteConfig` (`sane execute`,
`sane baseline`, the API); this builds each from keyword options and refuses a bad
value as bad input naming the command-line option, before any work is done.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from sane.errors import InputError
from sane.records import ExecuteConfig, RunConfig

if TYPE_CHECKING:
    from sane.llm import LLMSettings


def run_config(*, model: str, oracle_models: list[str] | None = None, **options: Any) -> RunConfig:
    """A checked `RunConfig`: the oracle panel defaults to the agent model; unknown panels
    and generators, a tau outside 1..cases and budget mode with exhaustive are refused."""
    from sane.generators import get_generator
    from sane.panel.kinds import PANEL_KINDS

    panel = options.get("panel", RunConfig.model_fields["panel"].default)
    if panel not in PANEL_KINDS:
        raise InputError(None, "--panel", PANEL_KINDS.unknown(panel))
    config = RunConfig(model=model, oracle_models=oracle_models or [model], **options)
    get_generator(config.generator)  # an unknown generator or fixed set is bad input
    if config.tau is not None and not 1 <= config.tau <= config.cases:
        raise InputError(None, "--tau", f"must be between 1 and --cases ({config.cases})")
    if config.exhaustive and config.stop_at_tau:
        raise InputError(None, "--stop-at-tau", "cannot be combined with --exhaustive")
    return config


# The command-line option that sets each field, for bad-input messages.
EXECUTE_OPTIONS = {
    "targets": "--target",
    "repeats": "--repeats",
    "timeout_s": "--timeout",
    "tolerance_floor": "--tolerance-floor",
    "tolerance_spread": "--tolerance-spread",
    "max_target_calls": "--max-target-calls",
    "comparison_examples": "--comparison-examples",
}


def execute_config(**options: Any) -> ExecuteConfig:
    """A checked `ExecuteConfig`; a bad value is bad input naming its command-line option."""
    try:
        return ExecuteConfig(**options)
    except ValidationError as exc:
        problem = exc.errors()[0]
        field = str(problem["loc"][0]) if problem["loc"] else ""
        raise InputError(None, EXECUTE_OPTIONS.get(field, field), problem["msg"]) from None


def with_run_inputs(config: RunConfig, spec: Path, examples: Path) -> RunConfig:
    """The configuration with every simulated oracle (sane.simulation) bound to this run's
    spec and examples where its model string names none: the stored configuration then says
    exactly which truth the oracle answered from."""
    from sane.simulation.params import with_run_inputs as bind

    return config.model_copy(
        update={
            "model": bind(config.model, spec, examples),
            "oracle_models": [bind(m, spec, examples) for m in config.oracle_models],
        }
    )


def check_models(config: RunConfig, llm: LLMSettings | None = None) -> None:
    """Refuse, as bad input naming its option, an agent or oracle model no route serves
    (the check a real run and the estimator make before any call) and, given the run's LLM
    settings, the scripted model without its rules file or a server without a key."""
    from sane.llm import check_api_base, check_model, check_script

    check_model(config.model, "--model")
    for model in config.oracle_models:
        check_model(model, "--oracle-model")
    if llm is not None:  # the settings a run will call with (an estimate calls nothing)
        check_script([config.model, *config.oracle_models], llm.script_path)
        check_api_base(llm.api_base, llm.api_key)
