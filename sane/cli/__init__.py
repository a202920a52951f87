"""The `sane` command line: one module per command group, all on one Typer app.

Each command module registers its commands on the app when imported; they are the
`sane.commands` entry-point group (sane._registry), read in order (the order of `sane --help`),
so another package can add a command the same way.
"""

from sane._registry import load_group
from sane.cli._common import app

load_group("sane.commands")

__all__ = ["app"]
