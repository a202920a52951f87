"""Read a judge's score out of its reply, or refuse.

A judge's reply is free text; the parser accepts only the shapes a rubric asks
for (a JSON object with "score", a "Score: N" line, or a bare number). Anything
else is an error: guessing a score from prose would turn a broken judge into a
plausible-looking one.
"""

from __future__ import annotations

import json
import math
import re

from sane.errors import ScorerError

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_SCORE_LINE = re.compile(
    rf"^[\s*#>_-]*score[\s*_]*[:=][\s*_]*({_NUMBER})[\s*_]*"
    rf"(?:(?:/|out of)\s*{_NUMBER})?[\s*_.]*$",
    re.IGNORECASE | re.MULTILINE,
)
_BARE_NUMBER = re.compile(rf"^\s*({_NUMBER})\s*$")
# A score claimed in any form anywhere in the reply ("score": 3, Score: 5, score=4), used only
# to refuse a reply that claims two different ones, whichever form the score was read from.
_ANY_SCORE = re.compile(rf"\bscore\b[\"'*_\s]*[:=][\"'*_\s]*({_NUMBER})", re.IGNORECASE)


def _finite(value: float, reply: str) -> float:
    if not math.isfinite(value):
        raise ScorerError(f"unparseable judge output: non-finite score in {_quote(reply)}")
    return value


def _quote(reply: str, limit: int = 120) -> str:
    flat = " ".join(reply.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "...")


def _from_json(text: str) -> float | None:
    candidates = [text]
    match = _JSON_OBJECT.search(text)
    if match and match.group(0) != text:
        candidates.append(match.group(0))
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict) or "score" not in data:
            continue
        value = data["score"]
        if isinstance(value, bool):
            return None
        if isinstance(value, int | float):
            return float(value)
        if isinstance(value, str) and _BARE_NUMBER.match(value):
            return float(value)
        return None
    return None


def _from_score_lines(text: str) -> float | None:
    values = {float(m.group(1)) for m in _SCORE_LINE.finditer(text)}
    if len(values) == 1:
        return values.pop()
    if len(values) > 1:
        raise ScorerError(
            f"unparseable judge output: conflicting scores {sorted(values)} in {_quote(text)}"
        )
    return None


def _unambiguous(value: float, text: str, reply: str) -> float:
    claimed = {float(match.group(1)) for match in _ANY_SCORE.finditer(text)} | {value}
    if len(claimed) > 1:
        raise ScorerError(
            f"unparseable judge output: conflicting scores {sorted(claimed)} in {_quote(reply)}"
        )
    return _finite(value, reply)


def parse_judge_score(reply: str) -> float:
    """The score in a judge reply; raises ScorerError when there is no unambiguous one: none,
    or two different scores in any forms (`{"score": 3} Score: 5` is refused, not read as 3)."""
    text = _FENCE.sub("", reply.strip()).strip()
    for reader in (_from_json, _from_score_lines):
        value = reader(text)
        if value is not None:
            return _unambiguous(value, text, reply)
    bare = _BARE_NUMBER.match(text)
    if bare:
        return _finite(float(bare.group(1)), reply)
    raise ScorerError(f"unparseable judge output: {_quote(reply)}")
