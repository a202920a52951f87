"""The `sane` command line: one module per command group, all on one Typer app."""

# Importing a module registers its commands; the order is the order in `sane --help`.
from sane.cli import _run, _report, _demo, _baseline, _view, _check  # noqa: F401, I001
from sane.cli import _compare, _review, _library, _export  # noqa: F401
from sane.cli._common import app

__all__ = ["app"]
