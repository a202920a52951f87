"""The `sane` command line: one module per command group, all on one Typer app."""

from sane.cli import _run, _report  # noqa: F401, I001  (importing registers the commands, in help order)
from sane.cli._common import app

__all__ = ["app"]
