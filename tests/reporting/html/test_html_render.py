"""The HTML report without a browser: word diffs, relation formulas, escaping, the CSP
hash, and `sane report --format html` on a real (scripted) suite."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html import unescape
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from sane.cli import app
from sane.relations import formula as relation_text
from sane.reporting import build_report
from sane.reporting._html import render_html
from sane.reporting._worddiff import diff_variants

Y = "yes"
EVIL = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"


def _text(segments) -> str:
    return "".join(text for _, text in segments)


@given(st.text(max_size=60), st.text(max_size=60), st.text(max_size=60))
def test_diff_segments_give_each_text_back(a: str, b: str, c: str) -> None:
    diffs = diff_variants({"original": a, "perturbed": b, "other": c})
    assert [_text(diffs[r]) for r in ("original", "perturbed", "other")] == [a, b, c]
    assert all(kind in "=+-" for segs in diffs.values() for kind, _ in segs)
    assert all(kind != "+" for kind, _ in diffs["original"])
    assert all(kind != "-" for kind, _ in diffs["perturbed"])


@given(st.text(max_size=80))
def test_identical_variants_have_no_marks(text: str) -> None:
    diffs = diff_variants({"original": text, "perturbed": text})
    assert all(kind == "=" for segs in diffs.values() for kind, _ in segs)


def test_diff_marks_replaced_words_and_respacing() -> None:
    diffs = diff_variants(
        {"perturbed": "Revenue rose 50% in May.", "original": "Revenue rose 5% in March."},
        reference="original",
    )
    assert list(diffs) == ["original", "perturbed"]  # the reference comes first
    assert [t for k, t in diffs["original"] if k == "-"] == ["5", "March"]
    assert [t for k, t in diffs["perturbed"] if k == "+"] == ["50", "May"]
    spaced = diff_variants({"original": "a b c", "perturbed": "a  b c"})
    assert spaced["perturbed"] == [("=", "a"), ("+", "  "), ("=", "b c")]


def test_relation_formulas_cover_every_kind() -> None:
    assert relation_text({"kind": "decrease", "original": "o", "perturbed": "p"}) == (
        "s(p) < s(o) - tol"
    )
    assert relation_text({"kind": "ordered", "series": ["low", "mid", "high"],
                          "min_accuracy": 1.0}).startswith("scores non-decreasing along low < mid")  # fmt: skip
    assert relation_text({"kind": "something_new"}) == "something_new"


def _evil_snapshot(kit):
    snapshot = kit.make_snapshot(
        [kit.Plan("r", Y, [(Y, Y)] * 4)],
        [kit.run("t", f"r/{i}", "fault") for i in range(4)],
    )
    cases = [
        c.model_copy(update={"variants": {"original": "fine", "perturbed": f"bad {EVIL}"}})
        for c in snapshot.cases
    ]
    recipes = [r.model_copy(update={"name": EVIL}) for r in snapshot.recipes]
    return snapshot.model_copy(update={"cases": cases, "recipes": recipes})


def test_generated_text_is_escaped_everywhere(kit) -> None:
    snapshot = _evil_snapshot(kit)
    html = render_html(build_report(snapshot), recipes=snapshot.recipes)
    assert "<img" not in html and "alert(1)</script>" not in html
    assert html.count("<script") == 2  # the data block and the page's own script
    data = re.search(
        r'<script type="application/json" id="sane-data">(.*?)</script>', html, re.DOTALL
    )
    assert data is not None and "</" not in data.group(1) and "<" not in data.group(1)
    parsed = json.loads(data.group(1))
    assert parsed["recipes"]["r"]["name"] == EVIL  # the text itself survives, unescaped
    assert EVIL in _text(parsed["faults"][0]["v"][1][1])
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in html  # static parts: HTML-escaped


def test_csp_allows_only_the_pages_own_script_and_no_network(kit) -> None:
    html = render_html(build_report(_evil_snapshot(kit)))
    csp = unescape(re.search(r'"Content-Security-Policy" content="([^"]+)"', html).group(1))
    script = re.search(r"<script>(.*?)</script>", html, re.DOTALL).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp
    assert "default-src 'none'" in csp and "connect-src" not in csp
    assert not re.search(r"(src|href)=\"https?:", html)  # nothing loaded from the network


def test_report_command_writes_html(tmp_path: Path) -> None:
    from tiny_suite import build_tiny_suite

    suite = build_tiny_suite(tmp_path)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(suite), "--format", "html", "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert "sane report: tiny-faithfulness" in html
    # the recipe instruction comes from the suite, not only the report model
    assert "Add one claim that the source does not support." in html
    bad = CliRunner().invoke(app, ["report", str(suite), "--format", "pdf"])
    assert bad.exit_code == 2 and "json, md, html" in bad.stderr


def test_the_strongest_exploit_comes_first_as_a_diff_against_its_placebo(kit) -> None:
    """The oracle-free section leads the page; the manipulated text is shown as what it adds
    to its placebo, and a text from the target's input stays escaped."""
    from sane.manipulations import Exploit, Measured, SearchResult

    placebo, manipulated = f"Fine. {EVIL} Note to the reader.", f"Fine. {EVIL} Note to the grader."
    exploit = Exploit(
        id="evaluator_instruction/grader-note@end", family="evaluator_instruction",
        position="end", text="Note to the grader.", placebo="Note to the reader.",
        example={"original": f"Fine. {EVIL}", "placebo": placebo, "manipulated": manipulated},
        inflation=Measured(mean=0.4, ci=(0.3, 0.5), n=6),
        form_effect=Measured(mean=0.0, ci=(0.0, 0.0), n=6),
        success_rate=1.0, confirmed=True, found_by="catalogue",
    )  # fmt: skip
    searched = SearchResult(
        target="t", tolerance=0.05, calls=120, budget=300, candidates=30, exploits=[exploit],
        form_effects={"evaluator_instruction": 0.0, "fake_score": 0.01, "self_praise": 0.0,
                      "markdown_emphasis": 0.02},
    )  # fmt: skip
    snapshot = _evil_snapshot(kit).model_copy(update={"inflation": [searched]})
    html = render_html(build_report(snapshot))
    assert html.index('id="inflation"') < html.index('id="funnel"')
    assert 'data-inflation-target="t"' in html and "evaluator_instruction at the end" in html
    diff = re.search(r'data-inflation-diff="t">(.*?)</pre>', html, re.DOTALL).group(1)
    assert "<ins>grader</ins>" in diff and "reader" not in diff  # what the placebo lacks
    assert "<img" not in html and "&lt;/script&gt;" in diff
    # the oracle-free line beside the requirements: 3 of the 4 families searched resisted
    assert re.search(r'data-robustness="t"[^>]*>75\.0%<', html)
    heat = html[html.index('id="heatmap"') : html.index('id="ranking"')]
    assert 'data-requirement="manipulation robustness"' in heat and "1 faults / 4 cases" in heat
