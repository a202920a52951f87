"""The politeness ranking benchmark's parts that need no data: its candidates' lexicons,
the disjoint split, and the spec (the benchmark itself reads ../shared/data and replays a
recorded strong-model suite: `benchmarks/bench_ranking_politeness.py`)."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_ranking_politeness as bench
import politeness_targets as pt

from sane.records import ScorerSpec

POLITE = "Hi, thanks for your work on this! Would you possibly have a moment to look, please?"
RUDE = "Why did you revert my edit? This is wrong and frankly ridiculous."


def test_the_full_lexicon_tells_polite_from_rude_and_its_defects_do_not():
    polite, rude = {"request": POLITE}, {"request": RUDE}
    assert pt.strategy_lexicon(polite) > 0.9 and pt.strategy_lexicon(rude) < 0.1
    assert pt.lexicon_inverted(polite) == 1.0 - pt.strategy_lexicon(polite)
    assert pt.lexicon_noisy(polite) == pt.lexicon_noisy(dict(polite))  # fixed by the text
    assert pt.gratitude_please(polite) > pt.gratitude_please(rude)
    assert pt.negativity_only(rude) < pt.negativity_only(polite)
    assert all(0.0 <= getattr(pt, n)(rude) <= 1.0 for n in bench.TARGETS)


def test_the_split_is_disjoint_and_seeded(tmp_path):
    rows = [f'Wikipedia,{i},"Request {i}?",1,1,1,1,1,a,b,c,d,e,{i / 10}' for i in range(20)]
    path = tmp_path / "w.csv"
    path.write_text(
        "Community,Id,Request,Score1,Score2,Score3,Score4,Score5,TurkId1,TurkId2,TurkId3,"
        "TurkId4,TurkId5,Normalized Score\n" + "\n".join(rows) + "\n"
    )
    examples, held_out = bench.load(path, 3, 10, seed=0)
    assert len(examples) == 3 and len(held_out) == 10
    assert not {e["request"] for e in examples} & {r["request"] for r in held_out}
    assert bench.load(path, 3, 10, seed=0) == (examples, held_out)


def test_the_spec_loads_and_names_every_candidate(tmp_path):
    path = bench.write_spec(tmp_path, [{"request": POLITE}])
    spec = ScorerSpec.model_validate(yaml.safe_load(path.read_text()))
    assert [t.name for t in spec.targets] == [n.replace("_", "-") for n in bench.TARGETS]
    assert spec.scored_field == "request"
