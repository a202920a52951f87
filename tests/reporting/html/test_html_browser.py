"""The HTML report in headless Chromium: sections render, no console error, injected
markup in generated text stays text, filters and sorting work, big suites open quickly."""

from __future__ import annotations

import os
import time
from pathlib import Path

from sane.reporting import build_report
from sane.reporting._html import PAGE_SIZE, render_html

Y, N = "yes", "no"
EVIL_SCRIPT = "<script>window.__pwned = 'script'; document.title = 'pwned'</script>"
EVIL_IMG = "<img src=x onerror=\"window.__pwned = 'onerror'; document.title = 'pwned'\">"
SECTIONS = [
    "funnel", "targets", "heatmap", "ranking", "breakdown", "threshold", "stability",
    "faults", "errors", "calls",
]  # fmt: skip


def _screenshot_dir(tmp_path: Path) -> Path:
    return Path(os.environ.get("SANE_SCREENSHOT_DIR", tmp_path))


def _suite(kit, *, evil: bool = True):
    """Two requirements, three capabilities, three targets; the perturbed texts of the
    monotonicity cases carry a <script> tag and an onerror attribute."""
    plans = [
        kit.Plan("mono", Y, [(Y, Y)] * 6, capability="cap-claims"),
        kit.Plan(
            "robust", Y, [(Y, Y)] * 6, requirement="robustness",
            relation={"kind": "invariant"}, capability="cap-format",
        ),
        kit.Plan("weak", Y, [(Y, N)] * 6, capability="cap-claims"),  # not validated
    ]  # fmt: skip
    runs = []
    for i in range(6):
        runs.append(kit.run("careful", f"mono/{i}", "pass"))
        runs.append(kit.run("careful", f"robust/{i}", "pass" if i else "fault",
                            scores={"original": [0.8], "perturbed": [0.3]}))  # fmt: skip
        runs.append(kit.run("lazy", f"mono/{i}", "fault", scores={"original": [0.7],
                                                               "perturbed": [0.7]}))  # fmt: skip
        runs.append(kit.run("lazy", f"robust/{i}", "pass"))
        runs.append(kit.run("broken", f"mono/{i}", "error", error="scorer crashed"))
    snapshot = kit.make_snapshot(plans, runs, cases_per_recipe=6)
    original = "The report says revenue rose 5% in 2023 and the CEO resigned in March."
    cases = []
    for case in snapshot.cases:
        perturbed = original.replace("5%", "50%").replace("March", "May")
        if evil and case.recipe_id == "mono":
            perturbed += f" {EVIL_SCRIPT} {EVIL_IMG}"
        if case.recipe_id == "robust":
            perturbed = original.replace(" ", "  ")
        source = "Revenue rose 5% in 2023; the CEO resigned in March." + (
            f" {EVIL_IMG}" if evil else ""
        )
        cases.append(case.model_copy(update={"variants": {"original": original,
                                                           "perturbed": perturbed},
                                             "example": {"source": source,
                                                         "summary": original}}))  # fmt: skip
    recipes = [
        r.model_copy(update={"name": f"{r.name} {EVIL_SCRIPT}" if evil else r.name})
        for r in snapshot.recipes
    ]
    spec = snapshot.spec.model_copy(update={"criterion": f"Faithfulness {EVIL_IMG}"})
    return snapshot.model_copy(update={"cases": cases, "recipes": recipes, "spec": spec})


def _write(tmp_path: Path, snapshot, name: str = "report.html", **kwargs) -> Path:
    report = build_report(snapshot, **kwargs)
    path = tmp_path / name
    path.write_text(
        render_html(report, recipes=snapshot.recipes, capabilities=snapshot.capabilities),
        encoding="utf-8",
    )
    return path


async def _open(page, path: Path) -> None:
    await page.open(path.as_uri())
    await page.wait_for("document.documentElement.getAttribute('data-ready') === '1'")


async def test_sections_render_without_console_errors(kit, page, tmp_path: Path) -> None:
    snapshot = _suite(kit)
    path = _write(tmp_path, snapshot, human={"careful": 0.9, "lazy": 0.2, "broken": 0.5})
    await _open(page, path)

    for section in SECTIONS:
        height = await page.js(f"document.querySelector('#{section} h2').offsetHeight")
        assert height > 0, section
    assert await page.js("!!document.getElementById('human')")  # human ranking comparison
    # plots: a dot per judged target, both threshold lines, stability points
    assert await page.js("document.querySelectorAll('#pass-rate-plot circle').length") == 2
    assert await page.js("document.querySelectorAll('#threshold-plot polyline').length") == 2
    assert await page.js("document.querySelectorAll('#stability-plot circle.dot').length") >= 1
    # heatmap: 3 targets x 2 requirements
    assert await page.js("document.querySelectorAll('.heat td.cell').length") == 6
    # faults: 6 for lazy (monotonicity) + 1 for careful (robustness), one card per recipe
    # per target, each case inside it
    assert await page.js("document.querySelectorAll('#fault-list .fault').length") == 2
    assert await page.js("document.querySelectorAll('#fault-list .fault .case').length") == 7
    first = await page.js(
        "(() => { const c = document.querySelector('#fault-list .fault[data-target=\"lazy\"]');"
        " return {ins: [...c.querySelectorAll('ins')].map(e => e.textContent),"
        " del: [...c.querySelectorAll('del')].map(e => e.textContent),"
        " text: c.innerText}; })()"
    )
    assert (
        "apply edit number" in first["text"] and "decrease" in first["text"]
    )  # recipe and relation
    assert "tolerance" in first["text"]
    assert any("50" in s for s in first["ins"]) and any("5" in s for s in first["del"])
    assert await page.js("document.getElementById('fault-count').textContent") == "7 in 2 cards"
    # the example's other fields are shown, and one scale (normalised) with the raw beside it
    assert "source\nRevenue rose 5% in 2023" in first["text"] and "6 faults" in first["text"]
    assert "in 6 cases" in first["text"]
    # the worst case is open, the other five closed until clicked (then built)
    opened = "[...document.querySelectorAll('.fault[data-target=\"lazy\"] .case')].map(d => d.open)"
    assert await page.js(opened) == [True] + [False] * 5
    await page.js(
        "document.querySelectorAll('.fault[data-target=\"lazy\"] .case summary')[3].click()"
    )
    await page.wait_for(
        "document.querySelectorAll('.fault[data-target=\"lazy\"] .case')[3]"
        ".querySelectorAll('table.scores').length === 1"
    )
    # a target that errored on every case of a requirement shows as an error, not n/a
    broken = await page.js(
        "document.querySelector('.heat tr[data-target=\"broken\"] td.cell').innerText"
    )
    assert broken.startswith("error") and "6 errors, no result" in broken
    header = await page.js(
        "[...document.querySelectorAll('#fault-list .fault table.scores th')]"
        ".slice(0, 3).map(e => e.textContent)"
    )
    assert header == ["variant", "normalised", "raw score"]
    assert page.problems() == []
    shot = await page.screenshot(_screenshot_dir(tmp_path) / "report.png")
    print(f"screenshot: {shot}")


async def test_injected_markup_is_text_and_never_runs(kit, page, tmp_path: Path) -> None:
    await _open(page, _write(tmp_path, _suite(kit)))
    await page.js("document.getElementById('fault-list').scrollIntoView()")

    assert await page.js("typeof window.__pwned") == "undefined"
    assert (await page.js("document.title")).startswith("sane report")
    assert await page.js("document.querySelectorAll('img').length") == 0
    # only the page's own two script elements (data + code) exist
    assert await page.js("document.scripts.length") == 2
    texts = await page.js("document.getElementById('fault-list').innerText")
    assert EVIL_SCRIPT in texts and EVIL_IMG in texts  # shown as text, in full
    assert EVIL_IMG in await page.js("document.querySelector('header').innerText")
    assert EVIL_SCRIPT in await page.js("document.getElementById('breakdown').innerText")
    assert page.problems() == []


async def test_filters_and_sorting(kit, page, tmp_path: Path) -> None:
    await _open(page, _write(tmp_path, _suite(kit, evil=False)))

    async def choose(control: str, value: str) -> None:
        await page.js(
            f"(() => {{ const s = document.getElementById('{control}'); s.value = '{value}';"
            " s.dispatchEvent(new Event('change')); })()"
        )

    await choose("f-target", "careful")
    targets = await page.js(
        "[...document.querySelectorAll('.fault .target')].map(e => e.textContent)"
    )
    assert targets == ["careful"]
    visible = await page.js(
        "[...document.querySelectorAll('#targets tbody tr')]"
        ".filter(r => !r.classList.contains('hidden')).map(r => r.dataset.target)"
    )
    assert visible == ["careful"]
    assert "f-target" not in await page.js("location.hash") and "target=careful" in await page.js(
        "location.hash"
    )

    await choose("f-target", "")
    await choose("f-capability", "cap-claims")
    tags = await page.js("[...document.querySelectorAll('.fault')].map(c => c.innerText)")
    assert len(tags) == 1 and all("name of cap-claims" in t for t in tags)
    await choose("f-capability", "")
    await choose("f-requirement", "robustness")
    assert await page.js("document.querySelectorAll('.fault').length") == 1
    hidden_cells = await page.js("document.querySelectorAll('.heat td.cell.hidden').length")
    assert hidden_cells == 3  # the monotonicity column

    await page.js(
        "(() => { const t = document.getElementById('f-text'); t.value = 'nothing like this';"
        " t.dispatchEvent(new Event('input')); })()"
    )
    assert await page.js("document.querySelectorAll('.fault').length") == 0
    assert await page.js("document.getElementById('page-info').textContent") == (
        "no fault matches the filter"
    )

    # a finding's link shows that target's cards
    await page.js("document.querySelector('[data-filter-target=\"lazy\"]').click()")
    assert await page.js(
        "[...document.querySelectorAll('.fault .target')].map(e => e.textContent)"
    ) == ["lazy"]
    assert "target=lazy" in await page.js("location.hash")

    # sorting: click the pass-rate header of the targets table, ascending then descending
    order = "[...document.querySelectorAll('#targets tbody tr')].map(r => r.dataset.target)"
    await page.js("document.getElementById('f-clear').click()")
    await page.js("document.querySelectorAll('#targets thead th')[1].click()")
    ascending = await page.js(order)
    await page.js("document.querySelectorAll('#targets thead th')[1].click()")
    assert await page.js(order) == ascending[::-1]
    assert ascending[0] == "broken"  # no pass rate sorts first ascending
    assert ascending[-1] == "careful"
    assert page.problems() == []


async def test_empty_suites_render(kit, page, tmp_path: Path) -> None:
    suites = {
        "no-recipes": kit.make_snapshot([]),
        "no-validated-family": kit.make_snapshot([kit.Plan("r", Y, [(Y, N)] * 4)]),
        "no-target": kit.make_snapshot([kit.Plan("r", Y, [(Y, Y)] * 4)], targets=["declared"]),
    }
    for name, snapshot in suites.items():
        await _open(page, _write(tmp_path, snapshot, name=f"{name}.html"))
        for section in SECTIONS:
            assert await page.js(f"!!document.querySelector('#{section} h2')"), (name, section)
        empty = await page.js("[...document.querySelectorAll('.empty')].map(e => e.textContent)")
        assert "No target was executed." in empty, name
        assert "No fault found." in empty, name
        assert page.problems() == [], name
        funnel = await page.js("document.getElementById('funnel').innerText")
        assert ("No family reached tau" in funnel) == (name != "no-target"), name


def _big_suite(kit, recipes: int = 120, cases: int = 25):
    sentence = (
        "The summary states that the company reported strong growth in revenue while costs "
        "fell sharply across every region during the last fiscal year."
    )
    plans = [
        kit.Plan(
            f"r{k}",
            Y,
            [(Y, Y)] * cases,
            capability=f"cap-{k % 12}",
            requirement=["monotonicity", "robustness", "calibration"][k % 3],
        )
        for k in range(recipes)
    ]
    runs = [
        kit.run(
            target,
            f"r{k}/{i}",
            "fault" if (i + k + t) % 2 else "pass",
            scores={"original": [0.9], "perturbed": [0.4 + (i % 5) / 10]},
        )
        for k in range(recipes)
        for i in range(cases)
        for t, target in enumerate(["judge-a", "judge-b"])
    ]
    snapshot = kit.make_snapshot(plans, runs, cases_per_recipe=cases)
    text = " ".join([sentence] * 3)
    variants = {
        "original": text,
        "perturbed": text.replace("strong", "weak").replace("fell", "rose")
        + " Also, 7 new claims.",
    }
    return snapshot.model_copy(
        update={"cases": [c.model_copy(update={"variants": variants}) for c in snapshot.cases]}
    )


async def test_thousands_of_cases_render(kit, page, tmp_path: Path) -> None:
    snapshot = _big_suite(kit)
    started = time.perf_counter()
    report = build_report(snapshot)
    built = time.perf_counter() - started
    html = render_html(report, recipes=snapshot.recipes, capabilities=snapshot.capabilities)
    rendered = time.perf_counter() - started - built
    path = tmp_path / "big.html"
    path.write_text(html, encoding="utf-8")

    opened = time.perf_counter()
    await _open(page, path)
    wall = time.perf_counter() - opened
    in_page = await page.js("window.__saneRenderedMs")
    faults = len(report.faults)
    print(
        f"\n{len(snapshot.cases)} cases, {len(snapshot.executions)} executions, {faults} faults;"
        f" HTML {len(html) / 1e6:.1f} MB; build_report {built:.2f} s, render_html {rendered:.2f} s;"
        f" browser: script done at {in_page / 1000:.2f} s after navigation start,"
        f" load + ready seen after {wall:.2f} s"
    )
    assert len(snapshot.cases) >= 3000 and faults >= 3000
    cards = len({(fault.target, fault.recipe_id) for fault in report.faults})
    assert await page.js("document.querySelectorAll('.fault').length") == PAGE_SIZE
    assert await page.js("document.getElementById('fault-count').textContent") == (
        f"{faults} in {cards} cards"
    )
    # a card per recipe per target: its fault count is the number of cases inside it, and
    # only the worst case of each is built (open)
    counts = await page.js(
        "[...document.querySelectorAll('.fault')].map(c => [parseInt("
        "c.querySelector('.count').textContent), c.querySelectorAll('.case').length,"
        " c.querySelectorAll('table.scores').length])"
    )
    assert all(n == inside and built == 1 for n, inside, built in counts)
    await page.js("document.getElementById('page-next').click()")
    info = await page.js("document.getElementById('page-info').textContent")
    assert info.startswith(f"showing cards {PAGE_SIZE + 1}-{2 * PAGE_SIZE} of {cards}")
    assert page.problems() == []
    await page.screenshot(_screenshot_dir(tmp_path) / "big.png")


async def test_fault_cards_show_the_judge_transcripts(kit, page, tmp_path: Path) -> None:
    from sane.records import Transcript
    from sane.reporting import render_markdown

    snapshot = _suite(kit, evil=False)
    call = Transcript(key="k1", model="openai/judge", task="judge:lazy",
                      prompt="Rate this summary: <b>bold</b>", reply="Reasoning.\nScore: 3")  # fmt: skip
    executions = [
        e.model_copy(update={"transcripts": {"original": ["gone"], "perturbed": ["k1"]}})
        if e.target == "lazy"
        else e
        for e in snapshot.executions
    ]
    snapshot = snapshot.model_copy(update={"executions": executions, "transcripts": {"k1": call}})
    await _open(page, _write(tmp_path, snapshot))
    calls = "document.querySelectorAll('.fault[data-target=\"lazy\"] .case[open] .transcript')"
    summaries = await page.js(f"[...{calls}].map(d => d.querySelector('summary').textContent)")
    assert summaries == [
        "original call 1: transcript not kept",
        "perturbed call 1 (openai/judge): Score: 3",
    ]
    await page.js(f"{calls}[1].querySelector('summary').click()")
    shown = await page.js(
        f"(() => {{ const d = {calls}[1]; return [d.open, d.querySelector('pre.prompt').textContent,"
        " d.querySelector('pre.reply').textContent, d.querySelectorAll('b').length]; })()"
    )
    assert shown == [True, "Rate this summary: <b>bold</b>", "Reasoning.\nScore: 3", 0]
    assert page.problems() == []
    await page.screenshot(_screenshot_dir(tmp_path) / "transcripts.png")
    markdown = render_markdown(build_report(snapshot))
    assert "judge reply (perturbed, call 1): Reasoning. Score: 3" in markdown
    assert "judge reply (original, call 1): _transcript not kept_" in markdown


async def test_a_long_field_name_never_overlaps_its_text(kit, page, tmp_path: Path) -> None:
    """A fault card's definition list: a field named `customer_message` (wider than the old
    fixed 110 px name column) must sit beside its text, not over it."""
    snapshot = _suite(kit, evil=False)
    cases = [
        case.model_copy(update={"example": {"customer_message": "My order never came.",
                                            "summary": case.example["summary"]}})
        for case in snapshot.cases
    ]  # fmt: skip
    await _open(page, _write(tmp_path, snapshot.model_copy(update={"cases": cases})))
    overlaps = await page.js(
        "[...document.querySelectorAll('.fault .case[open] dt')].map(dt => {"
        " const dd = dt.nextElementSibling, a = dt.getBoundingClientRect(),"
        " b = dd.getBoundingClientRect();"
        " return [dt.textContent, a.right <= b.left + 0.5 || a.bottom <= b.top + 0.5,"
        " dt.scrollWidth <= dt.clientWidth + 1]; })"
    )
    names = [name for name, _, _ in overlaps]
    assert "customer_message" in names
    assert all(beside and whole for _, beside, whole in overlaps), overlaps
