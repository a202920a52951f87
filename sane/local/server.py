"""`python -m sane.local.server ...`: llama-cpp-python's stock OpenAI-compatible server,
able to load the llama.cpp build that set-up installs.

Why: set-up builds llama.cpp with run-time CPU dispatch (`sane.local.cpu_build`), and such a
build registers no CPU backend by itself: the stock `python -m llama_cpp.server` then fails
with "Failed to load model from file". This module registers the backend first
(`cpu_build.load_backends`, refusing a build this CPU cannot run) and then runs the stock
server with the arguments given, unchanged, except that `--model` may also name an embedded
model (`smollm2-135m`), whose verified file is used. It needs llama-cpp-python's `server`
extra's packages (`scripts/setup.sh` installs them); docs/install.md, "Your own server".
"""

from __future__ import annotations

import sys
from pathlib import Path

from sane.local import cpu_build
from sane.local.assets import ASSETS, resolve

MODEL_FLAG = "--model"


def _model_path(value: str) -> str:
    """An embedded model's verified file for its name; anything else as it is."""
    return str(resolve(value)) if value in ASSETS and not Path(value).exists() else value


def model_argument(argv: list[str]) -> list[str]:
    """`argv` with an embedded model's name after `--model` replaced by its file's path."""
    out = list(argv)
    for i, arg in enumerate(out):
        if arg == MODEL_FLAG and i + 1 < len(out):
            out[i + 1] = _model_path(out[i + 1])
        elif arg.startswith(f"{MODEL_FLAG}="):
            out[i] = f"{MODEL_FLAG}={_model_path(arg.split('=', 1)[1])}"
    return out


def main(argv: list[str] | None = None) -> None:
    """Register the CPU backend, then hand the (rewritten) arguments to the stock server."""
    args = model_argument(sys.argv[1:] if argv is None else argv)
    problems = cpu_build.runtime_problems()  # registers the dispatch build's backend first
    if problems:
        raise SystemExit(
            "sane: error: the installed llama-cpp-python cannot run on this CPU ("
            + "; ".join(problems)
            + "); rebuild it with `bash scripts/setup.sh`"
        )
    try:
        from llama_cpp.server.__main__ import main as serve
    except ImportError as exc:
        raise SystemExit(
            f"sane: error: llama-cpp-python's server needs its `server` extra ({exc.name} is "
            "missing): bash scripts/setup.sh installs it"
        ) from None
    sys.argv = [f"{sys.executable} -m sane.local.server", *args]
    serve()


if __name__ == "__main__":
    main()
