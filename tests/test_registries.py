"""Every kind registers one way: through its registry's entry-point group (sane._registry).

- Each registry, filled, holds only complete entries (what complete means is said per
  registry below; a new registry must say it too).
- No kind registers only because some module happened to import its module: importing every
  module of the package adds nothing to a registry that its entry points had not.
- A package outside sane (tests/plugin_example, a folder with its own `*.dist-info`, as an
  installer leaves it) adds one kind of each sort, and sane's own code uses each.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sane._registry import REGISTRIES, Registry

PLUGIN = Path(__file__).resolve().parent / "plugin_example"


def _positional(item: Any, count: int) -> bool:
    return callable(item) and len(inspect.signature(item).parameters) == count


def _relation_kind(name: str, kind: Any) -> bool:
    from sane.relations import RelationKind

    return (
        isinstance(kind, RelationKind)
        and kind.name == name
        and name in typing.get_args(kind.record.model_fields["kind"].annotation)
        and kind.home in kind.requirements
    )


def _generator(name: str, factory: Any) -> bool:
    from sane.generators.base import LISTERS

    listed = LISTERS[name]()
    return _positional(factory, 1) and bool(listed) and all(n.startswith(name) for n in listed)


def _lister(name: str, lister: Any) -> bool:
    from sane.generators.base import KINDS

    return name in KINDS and _positional(lister, 0)


def _panel_kind(name: str, kind: Any) -> bool:
    from sane.panel.kinds import PanelKind

    return isinstance(kind, PanelKind) and kind.name == name and bool(kind.summary)


def _control_kind(name: str, kind: Any) -> bool:
    from sane.panel.controls import ControlKind

    planted_by_build = kind.planted != "alignment"
    return (
        isinstance(kind, ControlKind)
        and kind.name == name
        and ":" not in name
        and bool(kind.summary)
        and (kind.build is not None) == planted_by_build
        and (kind.build is None or _positional(kind.build, 1))
    )


def _report_section(name: str, section: Any) -> bool:
    from sane.reporting import Report
    from sane.reporting.sections import ReportSection

    own = name in Report.model_fields
    return (
        isinstance(section, ReportSection)
        and section.name == name
        and name != "sections"
        and _positional(section.build, 1)
        and (own or section.markdown is None or _positional(section.markdown, 1))
    )


def _reference(name: str, reference: Any) -> bool:
    from sane.qualification.references import Reference

    return (
        isinstance(reference, Reference)
        and reference.name == name
        and reference.spec.is_file()
        and reference.examples.is_file()
        and _positional(reference.score, 1)
    )


def _data_file(name: str, where: Any) -> bool:
    return _positional(where, 0) and where().is_file()


def _data_folder(name: str, where: Any) -> bool:
    return _positional(where, 0) and any(e.name.endswith(".yaml") for e in where().iterdir())


def _asset(name: str, asset: Any) -> bool:
    from sane.local.assets import ASSEMBLERS

    return asset.name == name and bool(asset.parts) and asset.assembly in ASSEMBLERS


def _target_kind(name: str, kind: Any) -> bool:
    from sane.target_kind import TargetConfig, TargetKind

    return (
        isinstance(kind, TargetKind)
        and kind.name == name
        and issubclass(kind.config, TargetConfig)
        and (name,) == typing.get_args(kind.config.model_fields["kind"].annotation)
        and kind.config.model_fields["kind"].default == name
        and _positional(kind.build, 2)
        and _positional(kind.freeze, 2)
        and all(_positional(f, 2) for f in (kind.check, kind.verify_code) if f is not None)
    )


# What a complete entry is, by the registry's `what`.
COMPLETE: dict[str, Callable[[str, Any], bool]] = {
    "target kind": _target_kind,
    "built-in metric": lambda name, factory: _positional(factory, 2),
    "relation kind": _relation_kind,
    "panel kind": _panel_kind,
    "control kind": _control_kind,
    "report section": _report_section,
    "reference scorer": _reference,
    "manipulation catalogue": _data_file,
    "fixed recipe set folder": _data_folder,
    "generator": _generator,
    "generator lister": _lister,
    "model route": lambda name, builder: _positional(builder, 3),
    "custom provider": lambda name, factory: _positional(factory, 0),
    "model check": lambda name, check: _positional(check, 1),
    "transform": lambda name, transform: _positional(transform, 1),
    "local model": _asset,
    "model assembly": lambda name, assembler: _positional(assembler, 1),
    "comparison kind": lambda name, kind: (
        kind.name == name and _positional(kind.layouts, 2) and _positional(kind.measure, 3)
    ),
}


def _all_registries() -> list[Registry[Any]]:
    import sane.edits
    import sane.generators.base
    import sane.generators.fixed_sets
    import sane.llm.providers
    import sane.local.assets
    import sane.manipulations.catalogue
    import sane.pairwise._kind
    import sane.panel.controls
    import sane.panel.kinds
    import sane.qualification.references
    import sane.relations
    import sane.reporting.sections
    import sane.scorers  # noqa: F401 - each module here defines registries

    return REGISTRIES


def test_every_registry_holds_only_complete_entries() -> None:
    registries = _all_registries()
    assert {registry.what for registry in registries} <= set(COMPLETE), (
        "a new registry: say in COMPLETE what a complete entry of it is"
    )
    for registry in registries:
        assert len(registry) > 0, registry.what
        incomplete = [
            name for name, item in registry.items() if not COMPLETE[registry.what](name, item)
        ]
        assert incomplete == [], (registry.what, incomplete)


def _fresh_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, **env),
        timeout=300,
    )


KEYS = """
import json
from sane._registry import REGISTRIES
def keys():
    return {f"{r.what}@{id(r)}": sorted(r) for r in REGISTRIES}
"""


def test_no_kind_registers_by_being_imported_by_chance() -> None:
    code = (
        KEYS
        + """
import importlib, pkgutil, sane
import sane.generators.base, sane.edits, sane.llm.providers
import sane.local.assets, sane.panel.controls, sane.panel.kinds, sane.relations, sane.scorers
import sane.reporting.sections
import sane.generators.fixed_sets, sane.manipulations.catalogue, sane.qualification.references
import sane.pairwise
before = keys()
for module in pkgutil.walk_packages(sane.__path__, "sane."):
    if module.name != "sane.__main__":  # it runs the command line
        importlib.import_module(module.name)
after = keys()
print(json.dumps({k: sorted(set(after[k]) - set(before.get(k, []))) for k in after}))
"""
    )
    run = _fresh_python(code)
    assert run.returncode == 0, run.stderr[-3000:]
    added = json.loads(run.stdout.strip().splitlines()[-1])
    assert {what: names for what, names in added.items() if names} == {}


def test_a_package_outside_sane_adds_one_kind_of_each_sort(tmp_path: Path) -> None:
    code = """
import asyncio, json
from pydantic import TypeAdapter
from sane.generators import available_generators, get_generator
from sane.llm import LLMSettings, model_problem
from sane.llm.providers import ROUTES
from sane.llm._providers import CallContext, resolve_route
from sane.generators.fixed_sets import load_fixed_set
from sane.inputs import load_spec
from sane.manipulations import load_catalogue
from sane.panel.kinds import panel_kind
from sane.qualification.references import REFERENCES
from sane.pipeline.run_config import run_config
from sane.records import OutputContract, Question, Recipe, ScorerSpec
from sane.target_kind import target_config
from sane.relations import Relation, check_relation
from sane.scorers import BuildContext, build_target

spec = ScorerSpec(name="s", criterion="c", fields={"text": "t"}, scored_field="text",
                  output=OutputContract(min=0, max=10))
context = BuildContext(spec=spec)
length = build_target(target_config(name="n", kind="example_length"), context)
bangs = build_target(target_config(name="b", kind="builtin", metric="example_exclamations"), context)
record = {"text": "one two three !!"}
relation = TypeAdapter(Relation).validate_python({"kind": "example_not_below", "floor": 0.5})
route = resolve_route("example/m", LLMSettings(), CallContext(task="t", sample_index=0))
panel = run_config(model="scripted", panel="example_direction").panel
recipe = Recipe(id="rec-1-1", capability_id="cap-1", requirement="monotonicity", name="n",
                instruction="Add a claim.", variant_roles=["original", "perturbed"],
                relation={"kind": "decrease"}, rationale="")
from sane.panel import controls
from sane.records import Case, Decision, PanelDecision
case = Case(id="rec-1-1/case-0", recipe_id="rec-1-1", index=0, example_index=0,
            example={"text": "a"}, variants={"original": "a b", "perturbed": "a"})
planted = controls.family_controls(recipe, case, [recipe], 0, [case.example], "text")
swapped = {s: PanelDecision(subject_id=s, question=Question.realization, decision=Decision.yes,
                            votes=[]) for s, _, _ in planted if "example_swapped" in s}
print(json.dumps({
    "controls": [[s, c.variants] for s, _, c in planted],
    "control_tally": controls.tally({}, swapped)["example_swapped"],
    "controls_per_recipe": controls.planted_per_recipe(),
    "length": asyncio.run(length.score(record)),
    "bangs": asyncio.run(bangs.score(record)),
    "relation": check_relation(relation, {"perturbed": [0.7]}, 0.0, True).verdict.value,
    "generator": "example" in available_generators() and get_generator("example").__class__.__name__,
    "model_check": model_problem("example/m"),
    "route": route.litellm_model,
    "panel": panel_kind(panel).question(Question.alignment, spec, recipe).template,
    "fixed": [c.name for c in load_fixed_set("example_set").capabilities],
    "catalogue": [f for f in load_catalogue().families if f.startswith(("example", "evaluator"))],
    "reference": [load_spec(REFERENCES["example_words"].spec)[0].name,
                  REFERENCES["example_words"].score({"text": "a b"})],
}))
"""
    run = _fresh_python(code, PYTHONPATH=str(PLUGIN))
    assert run.returncode == 0, run.stderr[-3000:]
    used = json.loads(run.stdout.strip().splitlines()[-1])
    assert used["controls"] == [
        ["control:noop:rec-1-1/case-0", {"original": "a b", "perturbed": "a b"}],
        ["control:example_swapped:rec-1-1/case-0", {"original": "a", "perturbed": "a b"}],
    ]
    assert used["control_tally"] == [1, 1] and used["controls_per_recipe"] == 4
    assert used["length"] == 4.0 and used["bangs"] == 2.0
    assert used["relation"] == "pass"
    assert used["generator"] and used["model_check"] is None
    assert used["route"].startswith("scripted")
    assert used["panel"] == "vote_direction.j2"
    assert used["fixed"] == ["Format invariance"]
    assert used["catalogue"] == ["evaluator_instruction", "example_family"]  # sane's, then its
    assert used["reference"] == ["example-words", 0.2]
    command = subprocess.run(
        [sys.executable, "-m", "sane", "example-hello"],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, PYTHONPATH=str(PLUGIN)),
        timeout=120,
    )
    assert command.returncode == 0, command.stderr[-2000:]
    assert command.stdout.strip() == "hello from sane-plugin-example"


def test_a_plugin_target_kind_with_a_key_of_its_own_works_from_a_spec(tmp_path: Path) -> None:
    """The plugin's `example_http` kind: its `url` is read from a spec, checked when it is
    loaded, frozen into a suite's target (and hashed), read back and scored over HTTP."""
    (tmp_path / "spec.yaml").write_text(
        "name: s\ncriterion: c\nfields: {text: t}\nscored_field: text\n"
        "output: {min: 0, max: 10}\ntargets:\n"
        "  - {name: served, kind: example_http, url: 'http://127.0.0.1:PORT/score'}\n"
        "  - {name: bad, kind: example_http, url: 'ftp://x'}\n"
    )
    code = """
import asyncio, json, sys, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from sane.errors import InputError
from sane.inputs import load_spec
from sane.records import SuiteTarget
from sane.scorers import BuildContext, build_target
from sane.scorers.suite_targets import freeze_targets

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        record = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps({"score": len(record["text"].split())}).encode()
        self.send_response(200); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass

server = HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
folder = Path(sys.argv[1])
text = (folder / "spec.yaml").read_text().replace("PORT", str(server.server_port))
(folder / "good.yaml").write_text(text.rsplit("  - {name: bad", 1)[0])
(folder / "bad.yaml").write_text(text)
try:
    load_spec(folder / "bad.yaml")
    refused = None
except InputError as exc:
    refused = str(exc)
spec, path = load_spec(folder / "good.yaml")
[held] = freeze_targets(spec, folder, "good.yaml")
held = SuiteTarget.model_validate_json(held.model_dump_json())  # as a suite stores it
target = build_target(held.config, BuildContext(spec=spec))
print(json.dumps({"refused": refused, "url": held.config.url, "hash": held.definition_sha256,
                  "score": asyncio.run(target.score({"text": "one two three"}))}))
"""
    run = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, PYTHONPATH=str(PLUGIN)),
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    used = json.loads(run.stdout.strip().splitlines()[-1])
    assert used["score"] == 3.0
    assert used["url"].startswith("http://127.0.0.1:") and len(used["hash"]) == 64
    assert "targets.bad.url" in used["refused"] and "http(s) URL" in used["refused"]


def test_a_plugin_report_section_is_built_and_rendered(tmp_path: Path) -> None:
    """The plugin's `example_lengths` section: built beside sane's own from a stored suite
    (one of the previous release), kept in the report's JSON and read in its markdown."""
    suite = tmp_path / "suite.db"
    shutil.copy(Path(__file__).parent / "fixtures" / "old_suite" / "suite.db", suite)
    code = """
import json, sys
from sane.api import build_report
from sane.reporting import Report, render_html, render_markdown
from sane.suites.store import SuiteStore
store = SuiteStore(sys.argv[1], readonly=True)
report = build_report(store.snapshot())
again = Report.model_validate_json(report.model_dump_json())  # as a stored report reads
page = render_html(again)
print(json.dumps({"sections": again.sections, "own": report.targets["careful"].passes,
                  "markdown": render_markdown(again).split("## Example: words per text")[1],
                  "html": page[page.index('id="section-example_lengths"'):][:400]}))
"""
    run = subprocess.run(
        [sys.executable, "-c", code, str(suite)],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, PYTHONPATH=str(PLUGIN)),
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    used = json.loads(run.stdout.strip().splitlines()[-1])
    lengths = used["sections"]["example_lengths"]
    assert set(lengths) == {"original", "perturbed"} and used["own"] == 3
    assert f"| original | {lengths['original']:g} |" in used["markdown"]
    assert "<pre>## Example: words per text" in used["html"]  # as text, escaped


def test_a_plugin_that_cannot_be_imported_is_named_not_skipped(tmp_path: Path) -> None:
    broken = tmp_path / "broken_plugin-0.1.dist-info"
    broken.mkdir()
    (broken / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (broken / "entry_points.txt").write_text("[sane.target_kinds]\nbroken = no_such_module_x\n")
    run = _fresh_python(
        "from sane.target_kind import TARGET_KINDS\nprint(sorted(TARGET_KINDS))",
        PYTHONPATH=str(tmp_path),
    )
    assert run.returncode != 0
    assert (
        "sane.target_kinds entry point 'broken' (no_such_module_x) cannot be loaded" in run.stderr
    )


@pytest.mark.parametrize("group", ["sane.relation_kinds", "sane.commands"])
def test_where_order_shows_the_group_is_read_in_name_order(group: str) -> None:
    from sane._registry import _group

    names = [point.name for point in _group(group) if point.value.startswith("sane.")]
    assert names == sorted(names) and names[0].startswith(("1_", "01_"))
