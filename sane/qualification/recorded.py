"""Recorded qualifications: an embedded model's verdict, known without asking it again.

Why: qualifying the embedded 1.5B model takes 131 calls and 10 to 20 minutes on a 2-core
machine, and its answer does not change while its weights file and the questions do not.
`sane generate` with that model as oracle would spend those minutes in every new cache to
learn, again, that it does not qualify. So a qualification measured once is kept here,
keyed by what decides it: the model's weights (their SHA-256, from the model package's
manifest) and the questions exactly as asked (a fingerprint of every rendered prompt and the
sampling that asks them). It is used only when both still match, and every report that shows
it says it is a recorded result, with the date it was measured. A changed prompt, sampling
setting or model file makes it stale, and the model is asked again.

To record one: `sane qualify --oracle-model local/NAME --quick -f json --out FILE`, then
`python -m sane.qualification.recorded FILE` writes it here.
"""

from __future__ import annotations

import hashlib
import json
import sys
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from sane.qualification_record import Qualification
from sane.records import RunConfig

RECORDED_DIR = Path(__file__).resolve().parent / "recorded"
LOCAL_PREFIX = "local/"


def model_weights_sha256(model: str) -> str | None:
    """The expected SHA-256 of an embedded model's weights, from its package's manifest
    (no file is read); None for a model that is not embedded."""
    if not model.startswith(LOCAL_PREFIX):
        return None
    from sane.local.assets import get_asset

    try:
        return get_asset(model.removeprefix(LOCAL_PREFIX)).weights.sha256
    except KeyError:
        return None


def questions_fingerprint(model: str, config: RunConfig) -> str:
    """A hash of the quick qualification as it would be asked of `model` with `config`'s
    sampling: every prompt (and contrast prompt) rendered, the temperature and whether a
    rationale is asked. Any change to a template, a reference criterion or the sampling
    changes it."""
    from sane.qualification.qualify import asked_prompts

    shown = {
        "prompts": asked_prompts(model, quick=True, seed=config.seed),
        "temperature": config.oracle_temperature,
        "rationale": config.vote_rationale,
        "seed": config.seed,
    }
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode("utf-8")).hexdigest()


def _path(model: str) -> Path:
    return RECORDED_DIR / f"{model.removeprefix(LOCAL_PREFIX)}.json"


@cache
def _stored(model: str) -> dict[str, object] | None:
    path = _path(model)
    if not path.is_file():
        return None
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def recorded_qualification(model: str, config: RunConfig) -> Qualification | None:
    """The recorded quick qualification of `model`, when its weights and the questions as
    asked now are the ones it was measured with; else None (ask the model)."""
    stored = _stored(model)
    weights = model_weights_sha256(model)
    if stored is None or weights is None or stored.get("weights_sha256") != weights:
        return None
    if stored.get("questions_sha256") != questions_fingerprint(model, config):
        return None
    found = Qualification.model_validate(stored["qualification"])
    return found.model_copy(update={"recorded": str(stored["measured"])})


def record(measured: Qualification, config: RunConfig) -> Path:
    """Store a quick qualification of an embedded model as its recorded verdict."""
    weights = model_weights_sha256(measured.model)
    if weights is None or not measured.quick:
        raise ValueError("only a quick qualification of an embedded (local/) model is recorded")
    stored = {
        "model": measured.model,
        "weights_sha256": weights,
        "questions_sha256": questions_fingerprint(measured.model, config),
        "measured": datetime.now(UTC).date().isoformat(),
        "qualification": measured.model_dump(mode="json", exclude={"recorded"}),
    }
    RECORDED_DIR.mkdir(exist_ok=True)
    path = _path(measured.model)
    path.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    """`python -m sane.qualification.recorded QUALIFY.json`: record `sane qualify`'s JSON."""
    from sane.qualification.tracking import QUALIFY_SEED

    (source,) = argv if argv is not None else sys.argv[1:]
    for found in json.loads(Path(source).read_text(encoding="utf-8")):
        measured = Qualification.model_validate(found)
        config = RunConfig(model=measured.model, oracle_models=[measured.model], seed=QUALIFY_SEED)
        print(f"recorded {record(measured, config)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
