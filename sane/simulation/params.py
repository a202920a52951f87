"""The fields of a simulated oracle's model string, checked before a run starts.

`sim/accuracy=0.85,correlation=0.2,bias=0.1,truth=MODULE:FUNCTION[,spec=PATH][,examples=PATH]`,
with `difficulty=0.3` (say) after `bias` for an item-level error.

- `accuracy`: each vote is right with this probability (its marginal accuracy), once the
  biased share below has been set aside;
- `correlation`: the probability that a question's k votes are one draw repeated (as when one
  model is asked the same prompt k times); otherwise each vote is drawn on its own;
- `bias`: the share of answers replaced by one fixed answer ("lower" to a direction question,
  "yes" to a yes/no question), whatever the truth;
- `difficulty`: how much questions differ in how hard they are, as a real model misreads some
  questions on every reading and never others. Each question (its prompt, never its sample
  index) draws its own per-vote accuracy once, from a beta distribution whose mean is
  `accuracy` (so the marginal accuracy is unchanged) and whose spread makes `difficulty` the
  correlation between two votes' rightness on one question: 0 (the default) gives every
  question `accuracy`; 0.3 leaves most questions easy and some hard enough that most votes
  on them are wrong; 1 makes each question always right or always wrong. Where `correlation`
  repeats one vote, `difficulty` only tilts the odds, so a hard question's votes still differ;
  the two compose. A question is equally hard at every `accuracy` (its rank is drawn from the
  seed and the question alone), so sweeps compare like with like;
- `truth`: the exact reference scorer, with a python target's signature (a record -> a
  number), that decides every right answer;
- `spec` / `examples`: the scorer spec and examples the truth is computed with. A run fills
  both in from its own inputs when they are left out (`with_run_inputs`), so the suite's
  stored configuration names exactly which truth its oracle had.

This module imports nothing heavy: the model check runs before any provider loads.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sane.errors import InputError

PREFIX = "sim"


class SimulatedOracle(BaseModel):
    """A simulated oracle's skill and where its truth comes from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    accuracy: float = Field(default=1.0, ge=0.0, le=1.0)
    correlation: float = Field(default=0.0, ge=0.0, le=1.0)
    bias: float = Field(default=0.0, ge=0.0, le=1.0)
    difficulty: float = Field(default=0.0, ge=0.0, le=1.0)
    truth: str = Field(min_length=3)
    spec: Path | None = None
    examples: Path | None = None

    def model_string(self) -> str:
        """The canonical model string (the fields in one order, unset paths left out; a
        `difficulty` of 0 too, so the strings, cache keys and stored configurations written
        before the field existed still name the same oracle)."""
        fields = [
            f"accuracy={self.accuracy:g}",
            f"correlation={self.correlation:g}",
            f"bias={self.bias:g}",
            *([f"difficulty={self.difficulty:g}"] if self.difficulty else []),
            f"truth={self.truth}",
        ]
        fields += [
            f"{name}={value}"
            for name, value in (("spec", self.spec), ("examples", self.examples))
            if value is not None
        ]
        return f"{PREFIX}/{','.join(fields)}"

    def describe(self) -> str:
        """How a report names it: plainly a simulation, with its skill."""
        difficulty = f", difficulty {self.difficulty:g}" if self.difficulty else ""
        return (
            f"simulated oracle (accuracy {self.accuracy:g}, correlation {self.correlation:g}, "
            f"bias {self.bias:g}{difficulty}; truth {self.truth})"
        )


def is_simulated(model: str) -> bool:
    return model.split("/", 1)[0] == PREFIX


def parse(model: str) -> SimulatedOracle:
    """The oracle a `sim/...` string names; ValueError saying which field is wrong."""
    _, _, body = model.partition("/")
    fields: dict[str, str] = {}
    for part in filter(None, body.split(",")):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"'{part}' is not NAME=VALUE")
        if name.strip() in fields:
            raise ValueError(f"'{name.strip()}' is given twice")
        fields[name.strip()] = value.strip()
    try:
        oracle = SimulatedOracle.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "model"
        raise ValueError(f"{where}: {first['msg']}") from None
    from sane.scorers.python_fn import check_ref  # light: imports nothing it names

    try:
        check_ref(oracle.truth, "truth")
    except InputError as exc:
        raise ValueError(f"truth: {exc.problem}") from None
    return oracle


def problem(model: str) -> str | None:
    """Why a `sim/...` string cannot be called (the model check), or None."""
    try:
        parse(model)
    except ValueError as exc:
        return (
            f"simulated oracle '{model}': {exc} (write sim/accuracy=A,correlation=C,bias=B,"
            "[difficulty=D,]truth=MODULE:FUNCTION)"
        )
    return None


def with_run_inputs(model: str, spec: Path, examples: Path) -> str:
    """A `sim/...` string with the run's own spec and examples filled in where it names none;
    any other model string unchanged."""
    if not is_simulated(model):
        return model
    oracle = parse(model)
    return oracle.model_copy(
        update={
            "spec": oracle.spec or spec.resolve(),
            "examples": oracle.examples or examples.resolve(),
        }
    ).model_string()


def with_truth(model: str, truth: str, spec: Path, examples: Path) -> str:
    """A `sim/...` string at the same skill, answering from another truth (how `sane qualify`
    asks a simulated oracle about its own reference criteria); others unchanged."""
    if not is_simulated(model):
        return model
    update = {"truth": truth, "spec": spec.resolve(), "examples": examples.resolve()}
    return parse(model).model_copy(update=update).model_string()


# The check runs before a run starts (sane.llm's `check_model`), from this light module of the
# `sane.model_checks` entry-point group; the route lives in sane.simulation.provider.
from sane.llm.providers import MODEL_CHECKS

MODEL_CHECKS.register(PREFIX)(problem)
