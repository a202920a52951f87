"""`sane view`: serve a suite's HTML report on loopback and open it in a browser.

The page follows a suite that is still being generated or executed: it polls the
server and reloads, re-rendered from the store, whenever new results are committed.
"""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from sane.cli._common import app, err, errors_to_exit_codes, say
from sane.cli._options import finite_at_least
from sane.cli._report import _read_human
from sane.errors import InputError


@app.command()
def view(
    suite: Annotated[Path, typer.Argument(help="Suite file (may still be running).")],
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port; 0 picks a free one.")] = 0,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    no_open: Annotated[bool, typer.Option("--no-open", help="Do not open a browser.")] = False,
    human: Annotated[Path | None, typer.Option(help="CSV of target,human score.")] = None,
    interval: Annotated[
        float, typer.Option(callback=finite_at_least(0.2), help="Seconds between page polls.")
    ] = 2.0,
) -> None:
    """Serve the suite's report on loopback, updating as results land, and the review page
    (/review) where a person answers the panel's questions (Ctrl-C stops)."""
    with errors_to_exit_codes():
        scores = _read_human(human) if human else None
        from sane.view import make_server

        try:
            server = make_server(
                suite, host=host, port=port, human=scores, interval_ms=round(interval * 1000)
            )
        except OSError as exc:  # the port is taken, or not ours to listen on
            raise InputError(None, "--port", f"cannot listen on {host}:{port}: {exc.strerror}")
    bound_host, bound_port = server.server_address[:2]
    url = f"http://{bound_host}:{bound_port}/"
    say(
        f"serving {suite} at {url} (Ctrl-C to stop); a person answers the panel's questions "
        f"at {url}review",
        to=err,
    )
    if not no_open:
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
