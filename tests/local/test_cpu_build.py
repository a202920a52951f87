"""The portable llama.cpp build: flags chosen per host, and unsafe builds recognised."""

from __future__ import annotations

import platform

import pytest

from sane.local import cpu_build

AMX_HOST = frozenset(
    [
        "pni",
        "ssse3",
        "sse4_2",
        "avx",
        "f16c",
        "fma",
        "avx2",
        "bmi2",
        "avx512f",
        "avx512cd",
        "avx512vl",
        "avx512dq",
        "avx512bw",
        "avx512vbmi",
        "avx512_vnni",
        "avx512_bf16",
        "amx_tile",
        "amx_int8",
    ]
)
OLD_HOST = frozenset(["sse4_2", "avx"])  # Sandy Bridge class: no AVX2
NATIVE_INFO = (
    "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
    "AVX512 = 1 | AVX512_VBMI = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | AMX_INT8 = 1 | "
    "LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
)
PORTABLE_INFO = (
    "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
    "LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
)


ZEN4_INFO = (
    "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
    "AVX512 = 1 | AVX512_VBMI = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | "
    "LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
)
SHIPPED = ("haswell", "icelake", "sse42", "x64", "zen4")


def test_x86_builds_every_cpu_level_and_chooses_at_run_time():
    args = cpu_build.cmake_args("x86_64").split()
    assert "-DGGML_NATIVE=OFF" in args
    assert "-DGGML_BACKEND_DL=ON" in args and "-DGGML_CPU_ALL_VARIANTS=ON" in args
    assert f"-DGGML_BACKEND_DIR:STRING={cpu_build.BACKEND_DIR}" in args


def test_other_architectures_only_turn_native_off():
    assert cpu_build.cmake_args("aarch64") == "-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF"


def test_a_native_amx_build_is_refused_even_on_the_host_that_built_it():
    problems = cpu_build.build_problems(NATIVE_INFO, AMX_HOST)
    assert any("AMX" in p for p in problems)
    assert any("AVX512 without run-time dispatch" in p for p in problems)


def test_a_native_avx512_build_is_refused_where_a_dispatched_module_is_not():
    assert any("native" in p for p in cpu_build.build_problems(ZEN4_INFO, AMX_HOST))
    assert cpu_build.build_problems(ZEN4_INFO, AMX_HOST, SHIPPED) == []


def test_a_dispatch_build_that_ships_the_amx_module_is_refused():
    problems = cpu_build.build_problems(ZEN4_INFO, AMX_HOST, (*SHIPPED, "sapphirerapids"))
    assert problems == ["ships AMX kernels, which crash under some hypervisors"]


def test_a_module_using_instructions_the_host_lacks_is_refused():
    problems = cpu_build.build_problems(PORTABLE_INFO, OLD_HOST, SHIPPED)
    assert any("AVX2" in p and "avx2" in p for p in problems)
    assert any("avx512f" in p for p in cpu_build.build_problems(ZEN4_INFO, OLD_HOST, SHIPPED))


def test_the_portable_build_passes_on_a_capable_host():
    assert cpu_build.build_problems(PORTABLE_INFO, AMX_HOST) == []
    assert cpu_build.build_problems(PORTABLE_INFO, AMX_HOST, SHIPPED) == []


def test_variants_are_read_from_the_module_files_and_the_amx_one_is_pruned(tmp_path):
    for name in ("libggml.so", "libllama.so", "libggml-base.so", "libggml-cpu-haswell.so",
                 "libggml-cpu-zen4.so", "libggml-cpu-sapphirerapids.so"):  # fmt: skip
        (tmp_path / name).write_bytes(b"")
    assert cpu_build.variants(tmp_path) == ("haswell", "sapphirerapids", "zen4")
    assert cpu_build.prune(tmp_path) == ["sapphirerapids"]
    assert cpu_build.variants(tmp_path) == ("haswell", "zen4")
    assert (tmp_path / "libggml-base.so").exists()


def test_host_flags_reads_cpuinfo():
    text = "processor : 0\nflags\t\t: fpu sse4_2 avx avx2\n\nprocessor : 1\nflags : fpu\n"
    assert cpu_build.host_flags(text) == {"fpu", "sse4_2", "avx", "avx2"}


@pytest.mark.local_models
def test_the_installed_library_dispatches_to_a_module_this_cpu_runs():
    """Fails on a native (-march=native) or AMX build, or one this CPU cannot execute."""
    result = cpu_build.report()
    assert "CPU :" in result["system_info"], result
    assert result["problems"] == [], result
    if platform.machine().lower() in cpu_build.X86_MACHINES:
        assert result["loaded_variant"] in result["variants"], result
        assert "sapphirerapids" not in result["variants"], result


GGML_LISTS = """\
function(ggml_add_cpu_backend_variant tag_name)
    if (GGML_SYSTEM_ARCH STREQUAL "x86")
        set(GGML_AVX OFF)
    elseif (GGML_SYSTEM_ARCH STREQUAL "ARM")
        set(GGML_INTERNAL_DOTPROD ON)
    endif()
endfunction()
ggml_add_backend(CPU)
if (GGML_CPU_ALL_VARIANTS)
    if (GGML_SYSTEM_ARCH STREQUAL "x86")
        ggml_add_cpu_backend_variant(x64)
        ggml_add_cpu_backend_variant(sse42              SSE42)
        ggml_add_cpu_backend_variant(sandybridge        SSE42 AVX)
        if (NOT MSVC)
            ggml_add_cpu_backend_variant(ivybridge      SSE42 AVX F16C)
        endif()
        ggml_add_cpu_backend_variant(haswell            SSE42 AVX F16C FMA AVX2 BMI2)
        ggml_add_cpu_backend_variant(sapphirerapids SSE42 AVX F16C FMA AVX2 BMI2 AVX512 AMX_TILE)
    elseif(GGML_SYSTEM_ARCH STREQUAL "ARM")
        ggml_add_cpu_backend_variant(armv8.0_1)
        ggml_add_cpu_backend_variant(x64)
    endif()
endif()
"""


def _sdist(tmp_path):
    lists = tmp_path / cpu_build.GGML_LISTS
    lists.parent.mkdir(parents=True)
    lists.write_text(GGML_LISTS)
    return lists


def test_trimming_comments_out_the_x86_modules_not_kept_and_nothing_else(tmp_path):
    lists = _sdist(tmp_path)
    trimmed = cpu_build.trim_variants(tmp_path, keep=("x64", "sandybridge", "haswell"))
    assert trimmed == ["sse42", "ivybridge", "sapphirerapids"]
    built = [
        line.strip() for line in lists.read_text().splitlines()
        if line.strip().startswith("ggml_add_cpu_backend_variant(")
    ]  # fmt: skip
    assert [line.split("(")[1].split()[0].rstrip(")") for line in built] == [
        "x64", "sandybridge", "haswell", "armv8.0_1", "x64"  # the ARM block is untouched
    ]  # fmt: skip
    assert lists.read_text().count("# not built by sane") == 3
    assert "endif()" in lists.read_text() and "elseif(GGML_SYSTEM_ARCH" in lists.read_text()


def test_trimming_stops_when_a_kept_module_is_built_for_other_instruction_sets(tmp_path):
    """The module chosen for this CPU must be the one llama.cpp compiles for it."""
    lists = _sdist(tmp_path)
    lists.write_text(GGML_LISTS.replace("FMA AVX2 BMI2)", "FMA AVX2)"))
    before = lists.read_text()
    with pytest.raises(SystemExit, match="haswell is built for SSE42 AVX F16C FMA AVX2, not"):
        cpu_build.trim_variants(tmp_path, keep=("x64", "haswell"))
    assert lists.read_text() == before  # nothing written


def test_trimming_stops_when_a_kept_module_is_not_listed(tmp_path):
    lists = _sdist(tmp_path)
    with pytest.raises(SystemExit, match="zen4"):
        cpu_build.trim_variants(tmp_path, keep=("x64", "zen4"))
    assert lists.read_text() == GGML_LISTS  # nothing written


PACKAGE_LISTS = """\
if (LLAMA_BUILD)
    # Enable building of the common library
    set(LLAMA_BUILD_COMMON ON CACHE BOOL "Build llama.cpp common library" FORCE)
    if (EMSCRIPTEN)
        set(LLAMA_BUILD_COMMON OFF CACHE BOOL "Build llama.cpp common library" FORCE)
    endif()
endif()
"""


def test_llama_cpp_common_library_is_turned_off_and_nothing_else(tmp_path):
    lists = tmp_path / cpu_build.PACKAGE_LISTS
    lists.write_text(PACKAGE_LISTS)
    cpu_build.skip_common(tmp_path)
    text = lists.read_text()
    assert "set(LLAMA_BUILD_COMMON ON" not in text
    assert (
        text.count('set(LLAMA_BUILD_COMMON OFF CACHE BOOL "Build llama.cpp common library" FORCE)')
        == 2
    )
    assert text.replace("  # not built by sane", "").replace(" OFF ", " ON ", 1) == PACKAGE_LISTS


def test_skipping_common_stops_when_the_source_no_longer_forces_it(tmp_path):
    lists = tmp_path / cpu_build.PACKAGE_LISTS
    lists.write_text(PACKAGE_LISTS.replace("set(LLAMA_BUILD_COMMON ON", "# set(X ON"))
    before = lists.read_text()
    with pytest.raises(SystemExit, match="update cpu_build.skip_common"):
        cpu_build.skip_common(tmp_path)
    assert lists.read_text() == before  # nothing written


def test_the_multimodal_library_is_never_built():
    for machine in ("x86_64", "aarch64"):
        assert "-DLLAVA_BUILD=OFF" in cpu_build.cmake_args(machine).split()


def test_the_shipped_module_set_has_a_baseline_every_cloud_level_and_never_amx():
    assert next(iter(cpu_build.KEPT_VARIANTS)) == cpu_build.BASELINE == "x64"
    assert {"sandybridge", "haswell", "skylakex", "icelake", "alderlake"} <= set(
        cpu_build.KEPT_VARIANTS
    )
    assert not cpu_build.EXCLUDED_VARIANTS & set(cpu_build.KEPT_VARIANTS)


AVX2_FLAGS = frozenset(["sse4_2", "avx", "f16c", "fma", "avx2", "bmi2"])
AVX512_FLAGS = AVX2_FLAGS | {"avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"}
# (flags, the module ggml loads of all KEPT_VARIANTS): the CPUs this project has run on, and
# the levels between them
HOSTS = [
    (frozenset(), "x64"),
    (OLD_HOST, "sandybridge"),
    (AVX2_FLAGS, "haswell"),  # the AVX2-only EPYC (Zen 2/3)
    (AVX2_FLAGS | {"avx_vnni"}, "alderlake"),  # a client core without AVX-512
    (AVX2_FLAGS | {"avx512f"}, "haswell"),  # AVX-512 without the rest: ggml needs all five
    (AVX512_FLAGS, "skylakex"),
    (AVX512_FLAGS | {"avx512_vnni"}, "cascadelake"),
    (AVX512_FLAGS | {"avx512_vnni", "avx512vbmi", "avx_vnni"}, "icelake"),
    (AMX_HOST | {"avx_vnni"}, "zen4"),  # Sapphire Rapids: the AMX module is never built
]


@pytest.mark.parametrize(("flags", "best"), HOSTS)
def test_the_module_chosen_for_a_cpu_is_the_one_ggml_ranks_highest(flags, best):
    assert cpu_build.best_variant(flags) == best
    assert cpu_build.runs_on(best, flags)


def test_a_host_build_has_the_baseline_and_this_cpus_best_and_all_builds_every_level(
    monkeypatch,
):
    monkeypatch.delenv(cpu_build.MODULES_ENV, raising=False)
    assert cpu_build.modules_to_build(AVX2_FLAGS) == ("x64", "haswell")
    assert cpu_build.modules_to_build(frozenset({"fpu"})) == ("x64",)  # nothing better runs
    assert cpu_build.modules_to_build(frozenset()) == tuple(cpu_build.KEPT_VARIANTS)  # unknown
    monkeypatch.setenv(cpu_build.MODULES_ENV, "all")
    assert cpu_build.modules_to_build(AVX2_FLAGS) == tuple(cpu_build.KEPT_VARIANTS)
    monkeypatch.setenv(cpu_build.MODULES_ENV, "native")
    with pytest.raises(SystemExit, match="SANE_CPU_MODULES=native: not one of host, all"):
        cpu_build.modules_to_build(AVX2_FLAGS)


def test_setup_rebuilds_a_dispatch_build_without_the_module_this_cpu_wants(monkeypatch):
    """A wheel built on another CPU (or a host build when all are asked for) runs here, on a
    slower module: setup's check names what is missing, so setup rebuilds it."""
    monkeypatch.setattr(cpu_build.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(cpu_build, "library_dir", lambda: None)
    monkeypatch.setattr(cpu_build, "variants", lambda _: ("haswell", "x64"))
    monkeypatch.setattr(cpu_build, "runtime_problems", list)
    monkeypatch.setattr(cpu_build, "installed_system_info", lambda: PORTABLE_INFO)
    monkeypatch.setattr(cpu_build, "loaded_variant", lambda: "haswell")
    monkeypatch.setattr(cpu_build, "host_flags", lambda: AVX2_FLAGS)
    monkeypatch.delenv(cpu_build.MODULES_ENV, raising=False)
    assert cpu_build.report()["problems"] == []
    monkeypatch.setattr(cpu_build, "host_flags", lambda: AMX_HOST)
    (problem,) = cpu_build.report()["problems"]
    assert problem.startswith("has no CPU module zen4, which SANE_CPU_MODULES=host asks for")
    monkeypatch.setattr(cpu_build, "host_flags", lambda: AVX2_FLAGS)
    monkeypatch.setenv(cpu_build.MODULES_ENV, "all")
    (problem,) = cpu_build.report()["problems"]
    assert "sandybridge" in problem and "SANE_CPU_MODULES=all asks for" in problem


def test_a_cached_wheel_is_keyed_by_source_flags_modules_and_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("SANE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(cpu_build.MODULES_ENV, raising=False)
    here = cpu_build.wheel_cache()
    assert here.parent == tmp_path / "llama-cpp-wheels"
    assert cpu_build.wheel_key("x86_64") != cpu_build.wheel_key("aarch64")
    monkeypatch.setenv(cpu_build.MODULES_ENV, "all")
    assert cpu_build.wheel_cache() != here
    monkeypatch.setattr(cpu_build, "host_flags", lambda: AVX2_FLAGS)
    monkeypatch.setenv(cpu_build.MODULES_ENV, "host")
    haswell_host = cpu_build.wheel_cache()
    monkeypatch.setattr(cpu_build, "host_flags", lambda: AMX_HOST)
    assert cpu_build.wheel_cache() != haswell_host  # another CPU's host build is another wheel
    wheel = here / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"
    monkeypatch.undo()
    monkeypatch.setenv("SANE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(cpu_build.MODULES_ENV, raising=False)
    wheel.parent.mkdir(parents=True)
    wheel.write_bytes(b"built before")
    assert cpu_build.build_wheel() == wheel  # reused: no download, no build


@pytest.mark.local_models
@pytest.mark.skipif(
    platform.machine().lower() not in cpu_build.X86_MACHINES, reason="x86-64 dispatch"
)
def test_a_named_module_is_loaded_alone_and_an_unknown_one_refused():
    """SANE_CPU_VARIANT runs an older CPU's code path here (x64 runs on every x86-64 CPU)."""
    import json
    import os
    import subprocess
    import sys

    def check(variant: str) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, **{cpu_build.VARIANT_ENV: variant})
        command = [sys.executable, cpu_build.__file__, "check"]
        return subprocess.run(
            command, check=False, env=env, capture_output=True, text=True, timeout=120
        )

    baseline = check("x64")
    assert baseline.returncode == 0, baseline.stderr
    report = json.loads(baseline.stdout)
    assert report["loaded_variant"] == "x64" and "AVX2 = 1" not in report["system_info"]
    unknown = check("pentium")
    assert unknown.returncode != 0 and "SANE_CPU_VARIANT=pentium: not a shipped" in unknown.stderr


def test_the_set_up_asks_the_cache_whether_a_build_is_needed(tmp_path, monkeypatch, capsys):
    """`cached` tells scripts/setup.sh whether `wheel` would compile (minutes, in the
    background) or only hand back the wheel built before."""
    monkeypatch.setenv("SANE_CACHE_DIR", str(tmp_path))
    assert cpu_build.cached_wheel() is None
    assert cpu_build.main(["cpu_build.py", "cached"]) == 1
    folder = cpu_build.wheel_cache()
    folder.mkdir(parents=True)
    (folder / ".llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl.partial").write_bytes(b"")
    assert cpu_build.cached_wheel() is None  # a copy that never finished is not a build
    wheel = folder / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"
    wheel.write_bytes(b"")
    capsys.readouterr()
    assert cpu_build.main(["cpu_build.py", "cached"]) == 0
    assert capsys.readouterr().out.strip() == str(wheel)
    assert cpu_build.build_wheel() == wheel  # nothing compiled
