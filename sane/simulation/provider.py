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
3. otherwise it is the truth with the question's accuracy, and else a wrong answer (the other
   yes/no answer; one of the two other directions, evenly). The question's accuracy is
   `accuracy`, or with `difficulty` a per-question draw of mean `accuracy`
   (`question_accuracy`), made once from the seed and the question, never per vote.

With `bias` 0 the marginal accuracy is `accuracy` exactly (in expectation over questions,
with `difficulty`). A direction vote's order check
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


def question_accuracy(oracle: SimulatedOracle, question: str, seed: int | None) -> float:
    """The probability that a vote on this question is right (bias aside).

    Why per question: a real model misreads the same question on every reading, so its votes
    on one question err together. With `difficulty` d the question's accuracy is a beta
    draw of mean `accuracy` and variance d * accuracy * (1 - accuracy), which makes d the
    correlation between two votes' rightness on one question (the beta-binomial's intraclass
    correlation). The draw is the quantile of the question's own ease, a uniform number from
    the seed and the question alone: the same question is as hard, relative to the others,
    at every accuracy and every difficulty.
    """
    accuracy, difficulty = oracle.accuracy, oracle.difficulty
    if difficulty == 0 or accuracy in (0.0, 1.0):
        return accuracy
    ease = _uniform(seed, question, "ease")
    if difficulty == 1:  # all or nothing: the question is always right or always wrong
        return 1.0 if ease >= 1 - accuracy else 0.0
    return _beta_quantile(accuracy, difficulty, ease)


def _beta_quantile(mean: float, intraclass: float, ease: float) -> float:
    """The `ease` quantile of the beta distribution of this mean whose draws, used as each
    vote's probability of being right, correlate two votes by `intraclass`."""
    from scipy.special import betaincinv  # only where a difficulty is asked for

    concentration = 1 / intraclass - 1
    return float(betaincinv(mean * concentration, (1 - mean) * concentration, ease))


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
    if _uniform(*base, "right", draw) < question_accuracy(oracle, question, seed):
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
