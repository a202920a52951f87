"""Which CPU instructions the embedded llama.cpp runtime may use, and whether the installed one obeys.

Why this exists: llama.cpp built with its default `GGML_NATIVE=ON` compiles for
the build machine (`-march=native`), and on a CPU that reports AMX it also
builds AMX kernels that crash with SIGILL under some hypervisors. pip then
caches that wheel and reuses it on the next install, so one bad build travels.

On x86-64 we therefore build with run-time CPU dispatch: `GGML_BACKEND_DL` +
`GGML_CPU_ALL_VARIANTS` compile the CPU backend once per instruction-set level
(x64, SSE4.2, AVX, AVX2, AVX-512, AVX-512 VNNI/BF16, ...) as separate modules,
and at load time ggml picks the best module whose instructions the CPU reports.
The AMX module is deleted after the build and refused if present. Other
architectures get `GGML_NATIVE=OFF`. Before a model is loaded we check the
library's own report of what the chosen module was compiled with.

The module imports nothing from `sane`, so `scripts/install_models.sh` can run it
as a script before the package is installed:

    python sane/local/cpu_build.py cmake-args      # the CMAKE_ARGS for this host
    python sane/local/cpu_build.py prune           # delete the modules never shipped
    python sane/local/cpu_build.py check           # the installed build's report; exit 1 if unsafe
"""

from __future__ import annotations

import ctypes
import json
import logging
import platform
import re
import sys
from functools import cache
from pathlib import Path

X86_MACHINES = frozenset({"x86_64", "amd64"})
# Install the CPU modules beside libllama (relative to the wheel's root), where `load_backends`
# looks. Typed STRING: CMake would make an untyped relative PATH absolute in the build folder.
BACKEND_DIR = "llama_cpp/lib"
DISPATCH_ARGS = (
    "-DGGML_NATIVE=OFF",
    "-DGGML_BACKEND_DL=ON",
    "-DGGML_CPU_ALL_VARIANTS=ON",
    f"-DGGML_BACKEND_DIR:STRING={BACKEND_DIR}",
)
# CPU modules llama.cpp builds that we never ship: AMX kernels died with SIGILL under a hypervisor.
EXCLUDED_VARIANTS = frozenset({"sapphirerapids"})
LLAMA_LIBRARIES = ("libllama.so", "libllama.dylib", "llama.dll")  # what llama-cpp-python loads
VARIANT_FILE = re.compile(r"^(?:lib)?ggml-cpu-([\w.]+)\.(?:so|dll|dylib)$")
# Names in llama.cpp's system info that report a compiled-in instruction set, and the
# /proc/cpuinfo flag the host needs for each (Linux clears a flag the kernel does not enable).
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
# Compiled features a build without run-time dispatch never has: one that does was built for its
# build machine (-march=native) and may crash on the next.
NATIVE_ONLY = frozenset(
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


def cmake_args(machine: str | None = None) -> str:
    """CMAKE_ARGS for building llama-cpp-python: run-time dispatch on x86-64, never native."""
    if (machine or platform.machine()).lower() in X86_MACHINES:
        return " ".join(DISPATCH_ARGS)
    return "-DGGML_NATIVE=OFF"


def library_dir() -> Path:
    """Where llama-cpp-python keeps libllama and, in a dispatch build, the CPU modules."""
    import llama_cpp

    return Path(llama_cpp.__file__).parent / "lib"


def variants(lib_dir: Path) -> tuple[str, ...]:
    """The CPU-backend modules of a dispatch build (empty for a build without dispatch)."""
    if not lib_dir.is_dir():
        return ()
    found = (VARIANT_FILE.match(path.name) for path in lib_dir.iterdir())
    return tuple(sorted(match.group(1) for match in found if match))


def prune(lib_dir: Path) -> list[str]:
    """Delete the CPU modules we never ship; returns their names."""
    removed = []
    for path in sorted(lib_dir.iterdir()):
        match = VARIANT_FILE.match(path.name)
        if match and match.group(1) in EXCLUDED_VARIANTS:
            path.unlink()
            removed.append(match.group(1))
    return removed


@cache
def load_backends() -> str | None:
    """Register the CPU backend of a dispatch build (once); returns the module ggml chose.

    A dispatch build registers no backend by itself, and ggml's own
    `ggml_backend_load_all()` also searches the working directory, so we name
    the one directory to load from. The call goes through the libllama that
    llama-cpp-python loaded: a wheel holds copies, not links, of `libggml.so*`,
    and opening another copy would fill another registry. A build without
    dispatch needs nothing.
    """
    lib_dir = library_dir()  # imports llama_cpp: libllama and the libggml whose registry counts
    if not variants(lib_dir):
        return None
    logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)  # ggml's "loaded" line
    llama = next(lib_dir / name for name in LLAMA_LIBRARIES if (lib_dir / name).exists())
    library = ctypes.CDLL(str(llama))
    library.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
    library.ggml_backend_load_all_from_path(str(lib_dir).encode())
    return loaded_variant()


def loaded_variant() -> str | None:
    """The CPU module this process has loaded, read from its memory map (Linux)."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    found = re.search(r"ggml-cpu-([\w.]+)\.(?:so|dylib)", maps)
    return found.group(1) if found else None


def compiled_features(system_info: str) -> frozenset[str]:
    """Instruction sets llama.cpp reports as compiled in (`NAME = 1` in its system info)."""
    return frozenset(
        name for name, value in re.findall(r"([A-Z0-9_]+) = (\S+)", system_info) if value == "1"
    ) & frozenset(SYSTEM_INFO_FLAGS)


def build_problems(
    system_info: str, flags: frozenset[str], shipped: tuple[str, ...] = ()
) -> list[str]:
    """Why a build is unsafe here.

    `system_info` reports the CPU module in use; `shipped` names the modules of a
    dispatch build. Unsafe: a module using an instruction the host does not
    report, AMX kernels, or AVX-512-class code in a build without dispatch
    (compiled for its build machine, not chosen for this one).
    """
    compiled = compiled_features(system_info)
    problems = [
        f"compiled with {name} but this CPU does not report '{SYSTEM_INFO_FLAGS[name]}'"
        for name in sorted(compiled)
        if flags and SYSTEM_INFO_FLAGS[name] not in flags
    ]
    if "AMX_INT8" in compiled or EXCLUDED_VARIANTS & set(shipped):
        problems.append("ships AMX kernels, which crash under some hypervisors")
    if not shipped:
        problems += [
            f"compiled with {name} without run-time dispatch: a native (-march=native) build"
            for name in sorted(compiled & NATIVE_ONLY - {"AMX_INT8"})
        ]
    return problems


def installed_system_info() -> str:
    """The installed library's own report of its build (its CPU backend registered first)."""
    import llama_cpp

    load_backends()
    return llama_cpp.llama_print_system_info().decode("utf-8", "replace")


def runtime_problems() -> list[str]:
    """Why the installed build must not run on this CPU (empty: safe to load a model)."""
    return build_problems(installed_system_info(), host_flags(), variants(library_dir()))


def report() -> dict[str, object]:
    """What setup prints: the chosen module, the modules shipped, the library's report, problems.

    Beyond `runtime_problems`, setup also wants dispatch on x86-64: a build without it
    is safe but slower there, so setup rebuilds it.
    """
    shipped = variants(library_dir())
    problems = runtime_problems()
    if platform.machine().lower() in X86_MACHINES and not shipped:
        problems.append(
            "built without run-time CPU dispatch (rebuild with `bash scripts/setup.sh`)"
        )
    return {
        "loaded_variant": loaded_variant(),
        "variants": list(shipped),
        "system_info": installed_system_info().strip(),
        "problems": problems,
    }


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "check"
    if command == "cmake-args":
        print(cmake_args())
        return 0
    if command == "prune":
        print(json.dumps({"removed": prune(library_dir())}))
        return 0
    if command == "check":
        result = report()
        print(json.dumps(result))
        return 1 if result["problems"] else 0
    print(f"usage: {argv[0]} cmake-args|prune|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
