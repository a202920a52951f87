"""A command `sane example-hello` on sane's own app."""

from __future__ import annotations

from sane.cli import app


@app.command("example-hello")
def hello() -> None:
    """Say that the example package's command was found."""
    print("hello from sane-plugin-example")
