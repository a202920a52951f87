"""`python -m sane`: the same command line as `sane`."""

from sane.cli import app

app(prog_name="sane")
