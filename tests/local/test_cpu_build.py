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
    assert cpu_build.cmake_args("aarch64") == "-DGGML_NATIVE=OFF"


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
