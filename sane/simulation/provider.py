"""The simulated oracle as a provider: the route for `sim/...`, answered in this process from
ground truth, corrupted by a controlled amount.

The route is in-process (`Route.in_process`): the client's cache, retries, budgets and call
records are the product's own, and no transport stands between them and the answer (litellm
would add about 4 ms of CPU to each of the sweep's hundreds of thousands of calls).

Each answer is a pure function of the oracle string, the question's prompt, its sample index
and the run's seed, so a simulated panel is deterministic, replays from the cache, and is
safe under any number of concurrent calls. The corruption, per question (one prompt):

1. with probability `correlation` the question's k votes are one draw repeated, otherwise
   each sample index draws on its own;
2. a draw is the fixed answer ("lower" / "yes") with probability `bias`;
3. otherwise it is the truth with probability `accuracy`, and else a wrong answer (the other
   yes/no answer; one of the two other directions, evenly).

With `bias` 0 the marginal accuracy is `accuracy` exactly. A direction vote's order check
asks a second prompt (the texts' roles exchanged), which is another question and draws on
its own, as a real model's second reading would. The rationale says it is a simulation.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from sane.llm.providers import CallContext, Route, register_route
from sane.scorers.python_fn import module_sha256
from sane.simulation.params import PREFIX, SimulatedOracle, parse
from sane.simulation.prompt_reader import Unreadable, read
from sane.simulation.truth import Direction, NoTruth, ground_truth

DIRECTIONS: tuple[Direction, ...] = ("lower", "higher", "same")
FIXED_DIRECTION: Direction = "lower"
FIXED_DECISION = True  # "yes"


class SimulationError(Exception):
    """A question the simulation cannot answer: it fails the same way every time."""

    status_code = 400  # permanent: never retried (sane.llm's retry rule)


def _uniform(*parts: object) -> float:
    """A deterministic draw on [0, 1) from its parts."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def corrupt(
    oracle: SimulatedOracle,
    truth: bool | Direction,
    question: str,
    sample_index: int,
    seed: int | None,
) -> bool | Direction:
    """The vote the oracle gives on a question whose right answer is `truth`."""
    base = (oracle.accuracy, oracle.correlation, oracle.bias, seed, question)
    draw = 0 if _uniform(*base, "shared") < oracle.correlation else sample_index
    if _uniform(*base, "bias", draw) < oracle.bias:
        return FIXED_DECISION if isinstance(truth, bool) else FIXED_DIRECTION
    if _uniform(*base, "right", draw) < oracle.accuracy:
        return truth
    if isinstance(truth, bool):
        return not truth
    others = [d for d in DIRECTIONS if d != truth]
    return others[int(_uniform(*base, "wrong", draw) * len(others))]


def answer(
    oracle: SimulatedOracle,
    task: str,
    messages: list[dict[str, Any]],
    sample_index: int,
    seed: int | None,
) -> str:
    """The reply text (the ballot's JSON), or SimulationError when the question has no truth."""
    try:
        asked = read(task, messages)
        truth = ground_truth(oracle).answer(asked)
    except (Unreadable, NoTruth) as exc:
        raise SimulationError(f"simulated oracle: {exc}") from None
    question = hashlib.sha256(json.dumps(messages, sort_keys=True).encode("utf-8")).hexdigest()
    vote = corrupt(oracle, truth, question, sample_index, seed)
    right = "right" if vote == truth else "wrong"
    reply: dict[str, str] = {}
    if '"rationale"' in str(messages[-1].get("content") or "").rsplit("\nReturn ", 1)[-1]:
        reply["rationale"] = f"simulated oracle, accuracy {oracle.accuracy:g}: a {right} draw"
    if isinstance(vote, bool):
        reply["decision"] = "yes" if vote else "no"
    else:
        reply["answer"] = vote
    return json.dumps(reply)


@lru_cache(maxsize=64)
def truth_digest(model: str) -> str:
    """A fingerprint of what decides the answers (the reference's module, the spec and the
    examples files), so changing any of them invalidates cached votes."""
    oracle = parse(model)
    parts = [module_sha256(oracle.truth) or ""]
    for path in (oracle.spec, oracle.examples):
        parts.append(_file_sha256(path))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def _file_sha256(path: Path | None) -> str:
    try:
        return "" if path is None else hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


@register_route(PREFIX)
def simulated_route(model: str, settings: Any, ctx: CallContext) -> Route:
    oracle = parse(model)

    def reply(messages: list[dict[str, str]]) -> str:
        return answer(oracle, ctx.task, messages, ctx.sample_index, ctx.seed)

    key_extra = {"task": ctx.task, "truth": truth_digest(model)}
    return Route(f"{PREFIX}/oracle", priced=False, key_extra=key_extra, in_process=reply)
