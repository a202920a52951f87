"""Planted-defect mutants of the exact reference scorers (sane.qualification.references).

Why: the validity benchmark needs ground truth that no human has to label. Each
reference scorer computes exactly what its spec's criterion text says (the
spec files in ``sane/qualification/criteria/`` state the rule word for word), so a
*valid* metamorphic test can never fault it: every fault of a reference is an
invalid test that the generator and its panel let through. The mutants are the
reference with one planted defect each; a suite that is worth running finds
them. The noise ladder adds deterministic noise of growing amplitude, so a
suite's pass rate should fall as the amplitude grows.

The references and their criteria live in the package (`sane qualify` asks about them);
the mutants and the noise ladder are the benchmark's own. The executor imports scorers as
``module:function``; every scorer here is
reachable as ``reference_scorers:<criterion>__<mutant>`` (``__reference`` for
the reference itself) through the module ``__getattr__`` below.
"""

from __future__ import annotations

import hashlib
import re

from sane.qualification.references import (
    BANNED,
    NUMBER,
    REFERENCES,
    WORD,
    Record,
    Reference,
    Scorer,
    banned_words,
    name_coverage,
    number_fidelity,
    question_names,
)

__all__ = ["REFERENCES", "Reference", "banned_words", "name_coverage", "number_fidelity"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

# -------------------------------------------------------------------- mutants


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def _unit(text: str) -> float:
    """A deterministic number in [-1, 1) from the text (the same text, the same noise)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**63 - 1.0


def _replace(record: Record, field: str, text: str) -> Record:
    return {**record, field: text}


def _generic_mutants(ref: Reference) -> dict[str, Scorer]:
    f, scored = ref.score, ref.scored
    return {
        "constant": lambda r: 0.5,
        "inverted": lambda r: 1.0 - f(r),
        "first_sentence": lambda r: f(
            _replace(r, scored, _SENTENCE_END.split(r[scored].strip())[0])
        ),
        "length_reward": lambda r: 0.5 * f(r) + 0.5 * min(1.0, len(WORD.findall(r[scored])) / 40),
        "formatting": lambda r: _clip(f(r) - (0.3 if re.search(r"  |\n|\t", r[scored]) else 0.0)),
    }


def _specific_mutants(name: str) -> dict[str, Scorer]:
    """Two partial-criterion defects per reference: the subtle bugs a real scorer has."""
    if name == "number_fidelity":
        return {
            "ignores_source": lambda r: number_fidelity(_replace(r, "source", "")),
            "first_number_only": lambda r: (
                1.0
                if not NUMBER.findall(r["summary"])
                else float(NUMBER.findall(r["summary"])[0] in set(NUMBER.findall(r["source"])))
            ),
        }
    if name == "banned_words":
        half = set(BANNED[:4])
        return {
            "half_list": lambda r: (
                1.0 / (1.0 + sum(w.lower() in half for w in WORD.findall(r["reply"])))
            ),
            "case_sensitive": lambda r: (
                1.0 / (1.0 + sum(w in BANNED for w in WORD.findall(r["reply"])))
            ),
        }
    if name == "name_coverage":

        def case_insensitive(r: Record) -> float:
            names = {n.lower() for n in question_names(r["question"])}
            if not names:
                return 1.0
            return len(names & {w.lower() for w in WORD.findall(r["answer"])}) / len(names)

        return {
            "case_insensitive": case_insensitive,
            "any_name": lambda r: float(name_coverage(r) > 0),
        }
    raise KeyError(name)


NOISE_LADDER = (0.0, 0.1, 0.2, 0.3, 0.5)  # amplitude; 0.0 is the reference itself


def ladder_name(amplitude: float) -> str:
    return "reference" if amplitude == 0 else f"noise_{round(amplitude * 100):02d}"


def _noise(ref: Reference, amplitude: float) -> Scorer:
    return lambda r: _clip(ref.score(r) + amplitude * _unit(r[ref.scored]))


def mutants(name: str) -> dict[str, Scorer]:
    """Every planted defect of one reference, by mutant name (the noise ladder included)."""
    ref = REFERENCES[name]
    found = {**_generic_mutants(ref), **_specific_mutants(name)}
    found.update({ladder_name(a): _noise(ref, a) for a in NOISE_LADDER if a > 0})
    return found


def scorers(name: str) -> dict[str, Scorer]:
    """The reference (as ``reference``) followed by its mutants."""
    return {"reference": REFERENCES[name].score, **mutants(name)}


def ref(criterion: str, scorer: str) -> str:
    """The executor's ``module:function`` reference to one scorer."""
    return f"{__name__}:{criterion}__{scorer}"


def __getattr__(attr: str) -> Scorer:
    criterion, sep, scorer = attr.partition("__")
    if sep and criterion in REFERENCES:
        found = scorers(criterion).get(scorer)
        if found is not None:
            return found
    raise AttributeError(attr)
