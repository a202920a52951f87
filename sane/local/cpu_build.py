"""Which CPU instructions the embedded llama.cpp runtime may use, and whether the installed one obeys.

Why this exists: llama.cpp built with its default `GGML_NATIVE=ON` compiles for
the build machine (`-march=native`), and on a CPU that reports AMX it also
builds AMX kernels that crash with SIGILL under some hypervisors. pip then
caches that wheel and reuses it on the next install, so one bad build travels.
We therefore build with an explicit, portable instruction set that never
includes AVX-512 or AMX and is at most what the host itself executes, and we
check the installed library's own report of what it was compiled with before
loading a model.

The module imports nothing from `sane`, so `scripts/setup.sh` can run it as a
script before the package is installed:

    python sane/local/cpu_build.py cmake-args   # the CMAKE_ARGS for this host
    python sane/local/cpu_build.py check        # the installed build's report; exit 1 if unsafe
"""

from __future__ import annotations

import json
import platform
import re
import sys
from pathlib import Path

# Portable x86-64 levels, highest first: (llama.cpp feature names it compiles in,
# /proc/cpuinfo flags the host must report to run them). x86-64-v3 (Haswell, Zen 1
# and later) is what nearly every machine of the last ten years executes.
X86_LEVELS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (
        ("SSE42", "AVX", "F16C", "FMA", "AVX2", "BMI2"),
        ("sse4_2", "avx", "f16c", "fma", "avx2", "bmi2"),
    ),
    (("SSE42", "AVX"), ("sse4_2", "avx")),
    (("SSE42",), ("sse4_2",)),
    ((), ()),
)
# Every instruction-set option of ggml's CPU backend that a portable build sets explicitly.
X86_OPTIONS = (
    "SSE42", "AVX", "AVX_VNNI", "AVX2", "BMI2", "FMA", "F16C",
    "AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16",
    "AMX_TILE", "AMX_INT8", "AMX_BF16",
)  # fmt: skip
# Names in llama.cpp's system info that report a compiled-in instruction set, and the
# /proc/cpuinfo flag the host needs for each (SSE3/SSSE3 are implied by x86-64-v2).
SYSTEM_INFO_FLAGS = {
    "SSE3": "pni",
    "SSSE3": "ssse3",
    "AVX": "avx",
    "AVX_VNNI": "avx_vnni",
    "AVX2": "avx2",
    "F16C": "f16c",
    "FMA": "fma",
    "BMI2": "bmi2",
    "AVX512": "avx512f",
    "AVX512_VBMI": "avx512vbmi",
    "AVX512_VNNI": "avx512_vnni",
    "AVX512_BF16": "avx512_bf16",
    "AMX_INT8": "amx_int8",
}
# Compiled features a portable build never has, whatever the host reports.
NEVER_PORTABLE = frozenset(
    {"AVX_VNNI", "AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16", "AMX_INT8"}
)


def host_flags(cpuinfo: str | None = None) -> frozenset[str]:
    """The instruction-set flags the running CPU reports (empty off Linux x86)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return frozenset()
    match = re.search(r"^flags\s*:\s*(.*)$", cpuinfo, re.MULTILINE)
    return frozenset(match.group(1).split()) if match else frozenset()


def portable_features(flags: frozenset[str]) -> tuple[str, ...]:
    """The highest portable level the host executes (never AVX-512, never AMX)."""
    for features, needed in X86_LEVELS:
        if set(needed) <= flags:
            return features
    return ()


def cmake_args(flags: frozenset[str] | None = None, machine: str | None = None) -> str:
    """CMAKE_ARGS for building llama-cpp-python portably on this host."""
    machine = machine or platform.machine()
    args = ["-DGGML_NATIVE=OFF"]
    if machine.lower() in {"x86_64", "amd64"}:
        enabled = set(portable_features(host_flags() if flags is None else flags))
        args += [f"-DGGML_{name}={'ON' if name in enabled else 'OFF'}" for name in X86_OPTIONS]
    return " ".join(args)


def compiled_features(system_info: str) -> frozenset[str]:
    """Instruction sets llama.cpp reports as compiled in (`NAME = 1` in its system info)."""
    return frozenset(
        name for name, value in re.findall(r"([A-Z0-9_]+) = (\S+)", system_info) if value == "1"
    ) & frozenset(SYSTEM_INFO_FLAGS)


def build_problems(system_info: str, flags: frozenset[str]) -> list[str]:
    """Why a build is unsafe here: instructions the host lacks, or a non-portable build."""
    compiled = compiled_features(system_info)
    problems = [
        f"compiled with {name} but this CPU does not report '{SYSTEM_INFO_FLAGS[name]}'"
        for name in sorted(compiled)
        if flags and SYSTEM_INFO_FLAGS[name] not in flags
    ]
    problems += [
        f"compiled with {name}: a native (-march=native) or AMX build, not the portable one"
        for name in sorted(compiled & NEVER_PORTABLE)
    ]
    return problems


def installed_system_info() -> str:
    """The installed llama-cpp-python library's own report of its build."""
    import llama_cpp

    return llama_cpp.llama_print_system_info().decode("utf-8", "replace")


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "check"
    if command == "cmake-args":
        print(cmake_args())
        return 0
    if command == "check":
        info = installed_system_info()
        problems = build_problems(info, host_flags())
        print(json.dumps({"system_info": info.strip(), "problems": problems}))
        return 1 if problems else 0
    print(f"usage: {argv[0]} cmake-args|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
