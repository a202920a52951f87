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
    python sane/local/cpu_build.py wheel           # build (or reuse) the dispatch wheel; prints its path
    python sane/local/cpu_build.py prune           # delete the modules never shipped
    python sane/local/cpu_build.py check           # the installed build's report; exit 1: rebuild

Set-up time is the build's: llama.cpp compiles its whole CPU backend once per module, and
it lists 13 for x86-64. `wheel` builds, from the sdist pip verifies by hash, none of the
libraries sane never loads and only the modules `SANE_CPU_MODULES` asks for:

- `host` (the default): the baseline (`x64`) and the best of KEPT_VARIANTS this CPU runs,
  the one ggml would choose among all of them. A module costs as much CPU time to compile
  as the next, so this is a quarter of the `all` build's modules. The wheel still
  dispatches at run time: on another CPU it loads the best module it holds that the CPU
  runs (the baseline at worst), and `check` there names the module it lacks.
- `all`: every module of KEPT_VARIANTS (a baseline and one per instruction-set level that
  x86-64 clouds sell), for an environment that moves between CPUs, or to run another
  CPU's kernels here (`SANE_CPU_VARIANT`).

The wheel is kept in the user cache, keyed by the modules it holds, so a second
environment on the machine installs it in seconds, and `check` still verifies it after
every install.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from functools import cache
from pathlib import Path

X86_MACHINES = frozenset({"x86_64", "amd64"})
# Install the CPU modules beside libllama (relative to the wheel's root), where `load_backends`
# looks. Typed STRING: CMake would make an untyped relative PATH absolute in the build folder.
BACKEND_DIR = "llama_cpp/lib"
# llama-cpp-python also builds the multimodal library (mtmd, for LLaVA-style image and audio
# input), which sane never loads: 12% of the build's CPU time (measured: docs/embedded-runtime.md).
LIBRARY_ONLY_ARGS = ("-DLLAVA_BUILD=OFF",)
DISPATCH_ARGS = (
    *LIBRARY_ONLY_ARGS,
    "-DGGML_NATIVE=OFF",
    "-DGGML_BACKEND_DL=ON",
    "-DGGML_CPU_ALL_VARIANTS=ON",
    f"-DGGML_BACKEND_DIR:STRING={BACKEND_DIR}",
)
# CPU modules llama.cpp builds that we never ship: AMX kernels died with SIGILL under a hypervisor.
EXCLUDED_VARIANTS = frozenset({"sapphirerapids"})
# The x86-64 modules sane may build, of the 13 llama.cpp lists, with the instruction sets
# each is compiled for (as llama.cpp's list names them; `trim_variants` stops if the list
# says otherwise): a baseline, then AVX, AVX2, AVX-512, AVX-512 VNNI (Cascade Lake),
# AVX-512 VBMI+VNNI (Ice Lake, Sapphire Rapids without AMX), AVX-512 BF16 (Zen 4, Zen 5)
# and AVX-VNNI (Alder Lake and later client cores). A CPU between two levels loads the
# lower one: slower by at most one extension, never unsafe.
_AVX2 = ("SSE42", "AVX", "F16C", "FMA", "AVX2", "BMI2")
KEPT_VARIANTS: dict[str, tuple[str, ...]] = {
    "x64": (),
    "sandybridge": ("SSE42", "AVX"),
    "haswell": _AVX2,
    "skylakex": (*_AVX2, "AVX512"),
    "cascadelake": (*_AVX2, "AVX512", "AVX512_VNNI"),
    "icelake": (*_AVX2, "AVX512", "AVX512_VBMI", "AVX512_VNNI"),
    "zen4": (*_AVX2, "AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16"),
    "alderlake": (*_AVX2, "AVX_VNNI"),
}
BASELINE = "x64"
# Which modules `wheel` builds: `host` (the baseline and this CPU's best) or `all`.
MODULES_ENV = "SANE_CPU_MODULES"
MODULE_SETS = ("host", "all")
# ggml's own ranking of the modules a CPU can run (ggml-cpu/arch/x86/cpu-feats.cpp): each
# instruction set adds its weight to the baseline's 1, and the highest total is loaded.
FEATURE_WEIGHTS = {"FMA": 1, "F16C": 2, "SSE42": 4, "BMI2": 8, "AVX": 16, "AVX2": 32,
                   "AVX_VNNI": 64, "AVX512": 128, "AVX512_VBMI": 256, "AVX512_BF16": 512,
                   "AVX512_VNNI": 1024, "AMX_INT8": 2048}  # fmt: skip
LLAMA_CPP_VERSION = "0.3.36"
# the sdist on PyPI (llama_cpp_python-0.3.36.tar.gz); pip refuses any other file
LLAMA_CPP_SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
GGML_LISTS = Path("vendor/llama.cpp/ggml/src/CMakeLists.txt")  # where the modules are listed
# llama-cpp-python's own build file forces llama.cpp's `common` library on (an option given
# on the command line cannot turn a FORCEd cache entry off). Nothing the wheel installs links
# it: it serves llama.cpp's programs, which are not built. With cpp-httplib, which only it
# uses, 29% of the build's CPU time.
PACKAGE_LISTS = Path("CMakeLists.txt")
_COMMON_FORCED_ON = re.compile(
    r'^(\s*)set\(LLAMA_BUILD_COMMON ON (CACHE BOOL "[^"]*" FORCE\))', re.MULTILINE
)
# the x86 branch of the module list (the function defining a module has an x86 branch too)
_X86_BLOCK = re.compile(
    r'if \(GGML_CPU_ALL_VARIANTS\).*?if \(GGML_SYSTEM_ARCH STREQUAL "x86"\)(.*?)\n\s*elseif',
    re.DOTALL,
)
# a module's line: indent, the line, its name, the instruction sets it is compiled for
_VARIANT_LINE = re.compile(
    r"^(\s*)(ggml_add_cpu_backend_variant\((\w+)\b([^)]*)\).*)$", re.MULTILINE
)
# A module name (`haswell`) loads that module alone instead of the best one: to measure or
# reproduce an older CPU's code path here. Refused like any module if this CPU cannot run it.
VARIANT_ENV = "SANE_CPU_VARIANT"
LLAMA_LIBRARIES = ("libllama.so", "libllama.dylib", "llama.dll")  # what llama-cpp-python loads
VARIANT_FILE = re.compile(r"^(?:lib)?ggml-cpu-([\w.]+)\.(?:so|dll|dylib)$")
# llama.cpp's names for the instruction sets (in its system info and its module list), and
# the /proc/cpuinfo flags the host needs for each (Linux clears a flag the kernel does not
# enable). ggml's AVX512 needs all five of its flags before it loads such a module.
FEATURE_FLAGS: dict[str, tuple[str, ...]] = {
    "SSE3": ("pni",),
    "SSSE3": ("ssse3",),
    "SSE42": ("sse4_2",),
    "AVX": ("avx",),
    "AVX_VNNI": ("avx_vnni",),
    "AVX2": ("avx2",),
    "F16C": ("f16c",),
    "FMA": ("fma",),
    "BMI2": ("bmi2",),
    "AVX512": ("avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"),
    "AVX512_VBMI": ("avx512vbmi",),
    "AVX512_VNNI": ("avx512_vnni",),
    "AVX512_BF16": ("avx512_bf16",),
    "AMX_INT8": ("amx_int8",),
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


def runs_on(variant: str, flags: frozenset[str]) -> bool:
    """Whether a CPU reporting `flags` can run every instruction set the module is built for."""
    return all(flag in flags for name in KEPT_VARIANTS[variant] for flag in FEATURE_FLAGS[name])


def best_variant(flags: frozenset[str]) -> str:
    """The module of KEPT_VARIANTS that ggml loads on a CPU reporting `flags`, were all built."""
    return max(
        (variant for variant in KEPT_VARIANTS if runs_on(variant, flags)),
        key=lambda variant: 1 + sum(FEATURE_WEIGHTS[name] for name in KEPT_VARIANTS[variant]),
    )


def module_set() -> str:
    """The set `SANE_CPU_MODULES` names (`host` when unset); stops on any other value."""
    chosen = os.environ.get(MODULES_ENV, "").strip() or MODULE_SETS[0]
    if chosen not in MODULE_SETS:
        raise SystemExit(f"{MODULES_ENV}={chosen}: not one of {', '.join(MODULE_SETS)}")
    return chosen


def modules_to_build(flags: frozenset[str] | None = None) -> tuple[str, ...]:
    """The x86-64 modules `wheel` builds, as `SANE_CPU_MODULES` asks: `host` (the default),
    the baseline and this CPU's best; `all`, every one of KEPT_VARIANTS. Where the CPU's
    flags cannot be read (not Linux), every one: the best cannot be known."""
    flags = host_flags() if flags is None else flags
    if module_set() == "all" or not flags:
        return tuple(KEPT_VARIANTS)
    return tuple(dict.fromkeys((BASELINE, best_variant(flags))))


def cmake_args(machine: str | None = None) -> str:
    """CMAKE_ARGS for building llama-cpp-python: run-time dispatch on x86-64, never native."""
    if (machine or platform.machine()).lower() in X86_MACHINES:
        return " ".join(DISPATCH_ARGS)
    return " ".join((*LIBRARY_ONLY_ARGS, "-DGGML_NATIVE=OFF"))


def trim_variants(source: Path, keep: tuple[str, ...]) -> list[str]:
    """Comment out the x86-64 modules not in `keep` in an unpacked llama-cpp-python sdist;
    returns their names. Stops if a kept module is not listed, or is compiled for other
    instruction sets than KEPT_VARIANTS says: the source has changed, and building blind
    could ship less than the documented set, or a module chosen for a CPU it does not fit."""
    lists = source / GGML_LISTS
    text = lists.read_text(encoding="utf-8")
    block = _X86_BLOCK.search(text)
    if block is None:
        raise SystemExit(f"{lists}: no x86 block of CPU modules; update cpu_build.trim_variants")
    listed = {m.group(3): tuple(m.group(4).split()) for m in _VARIANT_LINE.finditer(block.group(1))}
    if missing := sorted(set(keep) - set(listed)):
        raise SystemExit(f"{lists}: CPU modules {missing} are not listed (found {list(listed)})")
    for name in keep:
        if listed[name] != KEPT_VARIANTS[name]:
            raise SystemExit(
                f"{lists}: CPU module {name} is built for {' '.join(listed[name]) or 'x86-64'}, "
                f"not {' '.join(KEPT_VARIANTS[name])}; update cpu_build.KEPT_VARIANTS"
            )

    def comment(line: re.Match[str]) -> str:
        if line.group(3) in keep:
            return line.group(0)
        return f"{line.group(1)}# not built by sane (cpu_build.modules_to_build): {line.group(2)}"

    trimmed = _VARIANT_LINE.sub(comment, block.group(1))
    lists.write_text(text[: block.start(1)] + trimmed + text[block.end(1) :], encoding="utf-8")
    return [name for name in listed if name not in keep]


def skip_common(source: Path) -> None:
    """Turn off llama.cpp's `common` library in an unpacked llama-cpp-python sdist. Stops if
    the line that forces it on is not there exactly once: the source has changed."""
    lists = source / PACKAGE_LISTS
    text = lists.read_text(encoding="utf-8")
    found = _COMMON_FORCED_ON.findall(text)
    if len(found) != 1:
        raise SystemExit(
            f"{lists}: {len(found)} lines force LLAMA_BUILD_COMMON on (expected 1); "
            "update cpu_build.skip_common"
        )
    off = _COMMON_FORCED_ON.sub(r"\1set(LLAMA_BUILD_COMMON OFF \2  # not built by sane", text)
    lists.write_text(off, encoding="utf-8")


def wheel_key(machine: str | None = None) -> str:
    """What the built wheel depends on: the source and its edits, the flags, the modules and
    the architecture (the wheel is `py3-none`: its libraries are loaded through ctypes, so any
    Python 3 reuses it). A wheel is reused only under the same key."""
    parts = [LLAMA_CPP_SDIST_SHA256, cmake_args(machine), ",".join(modules_to_build()),
             "no-common", (machine or platform.machine()).lower()]  # fmt: skip
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def wheel_cache() -> Path:
    """The user cache folder of built wheels (`SANE_CACHE_DIR` or the XDG cache)."""
    root = os.environ.get("SANE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "sane"
    )
    return Path(root) / "llama-cpp-wheels" / wheel_key()


def cached_wheel() -> Path | None:
    """The dispatch wheel this machine built before for these sources and flags, if any."""
    built = sorted(wheel_cache().glob("llama_cpp_python-*.whl"))
    return built[-1] if built else None


def build_wheel(python: str = sys.executable) -> Path:
    """The dispatch wheel of LLAMA_CPP_VERSION: from the cache, else built now (minutes) from
    the hash-verified sdist with only the modules of `modules_to_build`, and cached."""
    if (cached := cached_wheel()) is not None:
        return cached
    cache_dir = wheel_cache()
    pip = [python, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    with tempfile.TemporaryDirectory(prefix="sane-llama-cpp-") as work:
        folder = Path(work)
        pinned = folder / "requirements.txt"
        pinned.write_text(
            f"llama-cpp-python=={LLAMA_CPP_VERSION} --hash=sha256:{LLAMA_CPP_SDIST_SHA256}\n"
        )
        # the sdist, but its build tools as wheels: `--no-binary :all:` would build
        # scikit-build-core, hatchling, flit-core... from source too (3 min 17 s, not 5 s)
        subprocess.run([*pip, "download", "--no-deps", "--no-binary", "llama-cpp-python",
                        "--require-hashes", "-r", str(pinned), "-d", str(folder)], check=True)  # fmt: skip
        (sdist,) = folder.glob("llama_cpp_python-*.tar.gz")
        with tarfile.open(sdist) as archive:
            # the "data" filter refuses links and paths out of the folder (Python >= 3.11.4)
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            archive.extractall(folder, **safe)
        source = folder / f"llama_cpp_python-{LLAMA_CPP_VERSION}"
        skip_common(source)
        modules = modules_to_build()
        not_built = ["common", "mtmd", *trim_variants(source, modules)]
        print(
            f"cpu_build: CPU modules {', '.join(modules)}; not built: {', '.join(not_built)}",
            file=sys.stderr,
        )
        out = folder / "wheel"
        env = dict(os.environ, CMAKE_ARGS=cmake_args(), FORCE_CMAKE="1")
        subprocess.run([*pip, "wheel", "--no-deps", "--no-cache-dir", "-w", str(out),
                        str(source)], check=True, env=env)  # fmt: skip
        (wheel,) = out.glob("llama_cpp_python-*.whl")
        cache_dir.mkdir(parents=True, exist_ok=True)
        partial = cache_dir / f".{wheel.name}.partial"
        shutil.copyfile(wheel, partial)
        return partial.rename(cache_dir / wheel.name)


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
    the one directory to load from (or, with `SANE_CPU_VARIANT`, the one module).
    The call goes through the libllama that llama-cpp-python loaded: a wheel holds
    copies, not links, of `libggml.so*`, and opening another copy would fill another
    registry. A build without dispatch needs nothing.
    """
    lib_dir = library_dir()  # imports llama_cpp: libllama and the libggml whose registry counts
    shipped = variants(lib_dir)
    if not shipped:
        return None
    logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)  # ggml's "loaded" line
    llama = next(lib_dir / name for name in LLAMA_LIBRARIES if (lib_dir / name).exists())
    library = ctypes.CDLL(str(llama))
    if forced := os.environ.get(VARIANT_ENV):
        if forced not in shipped:
            raise SystemExit(
                f"{VARIANT_ENV}={forced}: not a shipped CPU module ({', '.join(shipped)}); "
                f"`{MODULES_ENV}=all bash scripts/setup.sh` builds every one"
            )
        module = next(
            p
            for p in lib_dir.iterdir()
            if (m := VARIANT_FILE.match(p.name)) and m.group(1) == forced
        )
        library.ggml_backend_load.argtypes = [ctypes.c_char_p]
        library.ggml_backend_load.restype = ctypes.c_void_p
        if not library.ggml_backend_load(str(module).encode()):
            raise SystemExit(f"{VARIANT_ENV}={forced}: this CPU cannot load {module.name}")
    else:
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
    ) & frozenset(FEATURE_FLAGS)


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
        f"compiled with {name} but this CPU does not report '{flag}'"
        for name in sorted(compiled)
        for flag in FEATURE_FLAGS[name]
        if flags and flag not in flags
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

    Beyond `runtime_problems`, setup also wants dispatch on x86-64 and the modules
    `modules_to_build` asks for (this CPU's best; all of them with `SANE_CPU_MODULES=all`):
    a build without them is safe but slower here (one built on another CPU, say), so
    setup rebuilds it.
    """
    shipped = variants(library_dir())
    problems = runtime_problems()
    if platform.machine().lower() in X86_MACHINES:
        if not shipped:
            problems.append(
                "built without run-time CPU dispatch (rebuild with `bash scripts/setup.sh`)"
            )
        elif missing := [name for name in modules_to_build() if name not in shipped]:
            problems.append(
                f"has no CPU module {', '.join(missing)}, which {MODULES_ENV}={module_set()} "
                "asks for on this CPU (rebuild with `bash scripts/setup.sh`)"
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
    if command == "wheel":
        print(build_wheel())
        return 0
    if command == "cached":  # exit status 1: `wheel` would build it (minutes)
        cached = cached_wheel()
        print(cached or "")
        return 0 if cached else 1
    if command == "prune":
        print(json.dumps({"removed": prune(library_dir())}))
        return 0
    if command == "check":
        result = report()
        print(json.dumps(result))
        return 1 if result["problems"] else 0
    print(f"usage: {argv[0]} cmake-args|wheel|cached|prune|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
