"""The review page of `sane view` in headless Chromium: a person answers the panel's own
questions (blind where the panel is), each answer decides as `sane review apply` does, the
planted controls are among them, and a page from another origin cannot write."""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from tiny_suite import build_tiny_suite

from sane import api
from sane.reporting import render_markdown
from sane.review import load_labels
from sane.suites.store import SuiteStore
from sane.view import make_server

CLAIM = " It also won a national award."


@pytest.fixture(scope="module")
def realistic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny suite with real edits: its scripted cases replace the whole text, so a
    person answering truthfully would reject them; here each perturbed text is its
    original edited as the recipe says (a claim appended; the spaces doubled)."""
    path = build_tiny_suite(tmp_path_factory.mktemp("review-page"), execute=False)
    store = SuiteStore(path)
    for case in store.cases():
        original = case.variants.get("original")
        if original is None:
            continue
        edited = (
            original + CLAIM if case.recipe_id.startswith("rec-1") else original.replace(" ", "  ")
        )
        store.put_case(case.model_copy(update={"variants": {**case.variants, "perturbed": edited}}))
    store.close()
    return path


@pytest.fixture
def served(realistic: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    suite = tmp_path / "suite.db"
    shutil.copy(realistic, suite)
    server = make_server(suite, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}", suite
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def right_answer(question_id: str) -> str:
    """What a careful person answers (faithfulness: an unsupported claim lowers the score;
    spacing and sentence order do not matter; no-op copies and decoys are not realizations,
    code-made faithful edits are)."""
    question, subject = question_id.split("|", 1)
    if question == "realization":
        if subject.startswith(("control:noop:", "control:decoy:")):
            return "no"
        return "yes"
    recipe = subject.removeprefix("control:mirror:").split("/")[0]
    return "lower" if recipe.startswith("rec-1") else "same"


async def _review(page, url: str, answer_for) -> list[str]:
    await page.open(url + "/review")
    await page.wait_for("document.documentElement.getAttribute('data-ready') === '1'")
    total = await page.js(
        "JSON.parse(document.getElementById('review-data').textContent).questions.length"
    )
    asked = []
    for _ in range(total):
        question = await page.js("document.getElementById('card').getAttribute('data-question')")
        asked.append(question)
        key = answer_for(question)[0]
        await page.js(f"document.dispatchEvent(new KeyboardEvent('keydown', {{key: '{key}'}}))")
        await page.wait_for(
            f"document.documentElement.getAttribute('data-saved') === {json.dumps(question)}"
        )
    return asked


async def test_a_reviewer_who_answers_right_validates_the_right_families(page, served) -> None:
    url, suite = served
    before = {f.recipe_id for f in SuiteStore(suite, readonly=True).families() if f.validated}
    assert before == {"rec-1-1"}  # the panel missed the spacing family
    await page.open(url + "/review")
    await page.wait_for("document.documentElement.getAttribute('data-ready') === '1'")
    # asked blind: the first question is a direction, and the claim is nowhere on the card
    card = await page.js("document.getElementById('card').innerText")
    assert await page.js("document.getElementById('card').getAttribute('data-mode')") == "direction"
    assert "decrease" not in card and "increase" not in card and "lower (L)" in card
    asked = await _review(page, url, right_answer)
    assert len(asked) == len(set(asked)) == 24  # every question once, controls among them
    assert sum(q.startswith("realization|control:") for q in asked) == 8
    status = await page.js("document.getElementById('status').textContent")
    assert "Planted controls answered right: 8 of 8" in status
    assert page.problems() == []
    shot = Path(os.environ.get("SANE_SCREENSHOT_DIR", suite.parent)) / "review.png"
    await page.screenshot(shot)

    store = SuiteStore(suite, readonly=True)
    after = {f.recipe_id for f in store.families() if f.validated}
    labels = load_labels(store)
    store.close()
    assert after == {"rec-1-1", "rec-2-1"}  # the two families whose cases are right
    assert labels  # stored as review labels, as `sane review import` stores them
    report = api.report(suite)
    assert report.review.complete and report.review.controls_right == 8
    assert report.findings.panel_evidence
    assert render_markdown(report).splitlines()[2] == (
        "> **Validity decided by a person on 16 of 16 question(s); controls 8/8 right.**"
    )


async def test_a_reviewer_who_says_yes_to_everything_fails_the_controls(page, served) -> None:
    url, suite = served
    await _review(page, url, lambda q: "yes" if q.startswith("realization") else "higher")
    report = api.report(suite)
    assert report.review.controls_right == 4 and report.review.controls_answered == 8
    assert not report.review.complete and not report.findings.panel_evidence
    store = SuiteStore(suite, readonly=True)
    # "higher" fits no recipe's claim: nothing is aligned, so nothing is validated, and the
    # four no-op and decoy controls it accepted show the reviewer's record for what it is
    assert not any(f.validated for f in store.families())
    store.close()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


async def test_a_page_from_another_origin_cannot_write(page, served, tmp_path: Path) -> None:
    url, suite = served
    target = json.dumps(url + "/review/answer")
    body = json.dumps(json.dumps({"question": "alignment|rec-1-2", "answer": "higher"}))
    (tmp_path / "evil.html").write_text(
        "<!DOCTYPE html><html><body><form id='f' method='POST' enctype='text/plain' "
        f"action={target}><input name='x' value='y'></form><script>\n"
        "window.results = [];\n"
        f"fetch({target}, {{method: 'POST', headers: {{'Content-Type': 'application/json',"
        f" 'X-Sane-Token': 'guessed'}}, body: {body}}})"
        ".then(() => results.push('read'), () => results.push('blocked'));\n"
        f"fetch({target}, {{method: 'POST', mode: 'no-cors', headers: {{'Content-Type':"
        f" 'text/plain'}}, body: {body}}}).then(() => results.push('opaque'),"
        " () => results.push('blocked'));\n"
        "</script></body></html>",
        encoding="utf-8",
    )
    handler = lambda *a, **k: _Quiet(*a, directory=str(tmp_path), **k)
    other = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        await page.open(f"http://127.0.0.1:{other.server_address[1]}/evil.html")
        await page.wait_for("window.results && window.results.length === 2")
        assert "read" not in await page.js("window.results")
        await page.js("document.getElementById('f').submit()")
        await page.wait_for("location.pathname === '/review/answer'")
    finally:
        other.shutdown()
        other.server_close()
    store = SuiteStore(suite, readonly=True)
    assert not any(load_labels(store).values())  # nothing was written
    store.close()


async def test_a_page_from_another_origin_cannot_frame_the_review_page(
    page, served, tmp_path: Path
) -> None:
    """Clickjacking: another site frames the review page under a decoy and the reviewer's one
    click answers a question. The browser must refuse to render the page in the frame."""
    url, _ = served
    (tmp_path / "frame.html").write_text(
        "<!DOCTYPE html><html><body><p>Win a prize: click the button!</p>"
        f"<iframe id='review' src={json.dumps(url + '/review')} width='800' height='600'>"
        "</iframe></body></html>",
        encoding="utf-8",
    )
    handler = lambda *a, **k: _Quiet(*a, directory=str(tmp_path), **k)
    other = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        await page.open(f"http://127.0.0.1:{other.server_address[1]}/frame.html")
        rendered = await _framed_review_ready(page, url)
    finally:
        other.shutdown()
        other.server_close()
    assert rendered is None, "the review page rendered inside another origin's frame"


async def _framed_review_ready(page, url: str, wait_s: float = 5.0) -> str | None:
    """The review page's `data-ready` inside any frame of the open tab whose document came
    from `url` (None: no such document rendered). Cross-origin frames are read through their
    own JavaScript contexts, as DevTools sees them."""
    import asyncio
    import time

    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        contexts = [
            event["params"]["context"]
            for event in page.events
            if event.get("method") == "Runtime.executionContextCreated"
        ]
        for context in contexts:
            if context.get("origin") != url:
                continue
            try:
                reply = await page.send(
                    "Runtime.evaluate",
                    expression="document.documentElement.getAttribute('data-ready')",
                    contextId=context["id"],
                    returnByValue=True,
                )
            except RuntimeError:  # the context is gone
                continue
            value = reply["result"].get("value")
            if value:
                return value
        await asyncio.sleep(0.1)
    return None
