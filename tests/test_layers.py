"""The package's layers, read from its import statements (no import is executed).

- Every module sits in one layer of `LAYERS`, and imports (at module level or inside a
  function) only from its own layer and those below: nothing climbs. Every folder (a
  top-level package) sits in one layer too, so nothing climbs read folder by folder. The table is printed
  by `test_the_layer_table` (run with `-s`) and in every failure.
- No module imports a private module of another package (`sane.llm._client` from
  `sane.pipeline`): a package's public face is its `__init__` and its public modules.
- No import cycle among the modules' top-level imports.
- The report is built from a suite snapshot: nothing in `sane.reporting` opens the store,
  scores targets or calls the API.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "sane"


def _modules() -> dict[str, Path]:
    modules = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


MODULES = _modules()


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The sane modules an import statement loads (a name imported from a package counts
    as its submodule when there is one)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in MODULES}
    base = node.module or ""
    if node.level:
        package = module.split(".")
        if MODULES[module].name != "__init__.py":
            package = package[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, *([node.module] if node.module else [])])
    found = set()
    for alias in node.names:
        name = f"{base}.{alias.name}"
        found.add(name if name in MODULES else base)
    return {name for name in found if name in MODULES}


def _top_level(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Imports run when the module loads: its body, and `if` / `try` blocks in it, except
    `if TYPE_CHECKING:` (never run)."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.If | ast.Try):
            found += [n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
    return found


def _imports(*, top_level_only: bool) -> dict[str, set[str]]:
    graph = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = (
            _top_level(tree)
            if top_level_only
            else [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
        )
        graph[module] = {t for node in nodes for t in _targets(module, node)} - {module}
    return graph


# Bottom to top. An entry names a package or a module; a module belongs to its longest entry.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("sane._record", "sane._registry", "sane._lazy", "sane._yaml", "sane._turns",
                    "sane.errors", "sane.requirements", "sane.output_files",
                    "sane.spreadsheet_cells")),
    ("records", ("sane.relations", "sane.records", "sane.target_kind", "sane.qualification_record",
                 "sane.inflation_record", "sane.comparison_record")),
    ("text and models", ("sane.edits", "sane.prompts", "sane.similarity", "sane.local",
                         "sane.builtin", "sane.llm")),
    ("storage and statistics", ("sane.suites", "sane.stats")),
    ("targets", ("sane.scorers", "sane.inputs")),
    ("agents and panel", ("sane.agents", "sane.panel", "sane.simulation", "sane.manipulations",
                          "sane.pairwise")),
    ("recipes and validity", ("sane.generators", "sane.validators")),
    ("pipeline and reports", ("sane.pipeline", "sane.reporting", "sane.qualification",
                              "sane.export", "sane.review", "sane.integrations")),
    ("interfaces", ("sane", "sane.api", "sane.demo", "sane.view", "sane.analyses",
                    "sane.pytest_plugin", "sane.cli", "sane.__main__", "sane.scaffold")),
]  # fmt: skip


def _layer(module: str) -> int:
    """The index in LAYERS of the longest entry that names `module` or a package above it
    (`sane` names the package's own `__init__` only); -1 for a module in no layer."""
    found = [
        (len(entry), index)
        for index, (_, entries) in enumerate(LAYERS)
        for entry in entries
        if module == entry or (entry != "sane" and module.startswith(entry + "."))
    ]
    return max(found)[1] if found else -1


def _table() -> str:
    return "\n".join(
        f"{index} {name}: {', '.join(entries)}" for index, (name, entries) in enumerate(LAYERS)
    )


def test_the_layer_table() -> None:
    """Every module has a layer; the table is what the next test enforces."""
    print("\nlayers, bottom to top (a module imports only from its layer and below):")
    print(_table())
    assert [m for m in MODULES if _layer(m) < 0] == [], "place the new module in LAYERS"


def test_no_import_climbs_a_layer() -> None:
    climbs = sorted(
        f"{module} ({LAYERS[_layer(module)][0]}) imports {target} ({LAYERS[_layer(target)][0]})"
        for module, targets in _imports(top_level_only=False).items()
        for target in targets
        if _layer(target) > _layer(module)
    )
    assert climbs == [], "\n".join([*climbs, "", _table()])


def _folder(module: str) -> str:
    """The top-level module or package of `module` (`sane.panel` for `sane.panel.kinds`)."""
    return ".".join(module.split(".")[:2])


def test_every_folder_sits_in_one_layer() -> None:
    """A package is one layer: a leaf module kept beside a high orchestrator (a record beside
    the code that makes it) would make every import of the record climb at folder level."""
    layers: dict[str, set[int]] = {}
    for module in MODULES:
        layers.setdefault(_folder(module), set()).add(_layer(module))
    split = {folder: sorted(LAYERS[i][0] for i in found) for folder, found in layers.items()}
    assert {f: names for f, names in split.items() if len(names) > 1} == {}, _table()


def test_no_import_climbs_at_folder_level() -> None:
    """Read folder by folder (a package's modules as one), no import climbs either."""
    climbs = sorted(
        f"{_folder(module)} imports {_folder(target)}"
        for module, targets in _imports(top_level_only=False).items()
        for target in targets
        if _folder(target) != _folder(module)
        and max(_layer(m) for m in MODULES if _folder(m) == _folder(target))
        > min(_layer(m) for m in MODULES if _folder(m) == _folder(module))
    )
    assert climbs == [], "\n".join([*climbs, "", _table()])


@pytest.mark.parametrize(
    ("low", "high"),
    [
        ("sane.generators.library", "sane.analyses.reproducibility"),
        ("sane.stats._threshold", "sane.validators.families"),
        ("sane.suites.store", "sane.scorers"),
        ("sane.agents.cases", "sane.generators"),
        ("sane.records", "sane.qualification"),  # its record once lived in that folder
    ],
)
def test_the_table_forbids_the_climbs_it_was_made_against(low: str, high: str) -> None:
    """The control: each import these layers once had (a generator reading the analyses, a
    statistic the validators, the store the scorers, an agent the generators, whose edit
    catalogue now sits below both) would climb."""
    assert _layer(high) > _layer(low)


def _package(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


def test_the_import_reader_sees_real_imports() -> None:
    """The control: the reader must find imports that are known to be there."""
    graph = _imports(top_level_only=True)
    assert "sane.relations._kind" in graph["sane.relations.pair"]
    assert "sane.records" in graph["sane.pipeline.generate"]
    assert len(MODULES) > 100


def test_no_module_imports_another_packages_private_module() -> None:
    leaks = sorted(
        f"{module} imports {target}"
        for module, targets in _imports(top_level_only=False).items()
        for target in targets
        if target.count(".") >= 2
        and target.split(".")[-1].startswith("_")
        and not target.endswith("__")
        and _package(target) != _package(module)
    )
    assert leaks == []


def test_no_import_cycle_at_module_level() -> None:
    try:
        tuple(graphlib.TopologicalSorter(_imports(top_level_only=True)).static_order())
    except graphlib.CycleError as exc:
        pytest.fail(f"import cycle: {' -> '.join(exc.args[1])}")


@pytest.mark.parametrize("forbidden", ["sane.suites.store", "sane.api", "sane.scorers"])
def test_the_report_neither_opens_the_store_nor_scores(forbidden: str) -> None:
    graph = _imports(top_level_only=False)
    offenders = sorted(
        module
        for module, targets in graph.items()
        if module.startswith("sane.reporting")
        and any(t == forbidden or t.startswith(forbidden + ".") for t in targets)
    )
    assert offenders == []
