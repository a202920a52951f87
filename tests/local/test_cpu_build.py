"""The portable llama.cpp build: flags chosen per host, and unsafe builds recognised."""

from __future__ import annotations

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


def test_an_amx_host_gets_avx2_and_nothing_wider():
    args = cpu_build.cmake_args(AMX_HOST, "x86_64").split()
    assert "-DGGML_NATIVE=OFF" in args
    assert "-DGGML_AVX2=ON" in args and "-DGGML_FMA=ON" in args
    for name in ("AVX512", "AVX512_VNNI", "AVX512_BF16", "AMX_TILE", "AMX_INT8", "AMX_BF16"):
        assert f"-DGGML_{name}=OFF" in args


def test_a_host_without_avx2_gets_a_lower_level():
    args = cpu_build.cmake_args(OLD_HOST, "x86_64").split()
    assert "-DGGML_AVX=ON" in args and "-DGGML_AVX2=OFF" in args and "-DGGML_FMA=OFF" in args


def test_other_architectures_only_turn_native_off():
    assert cpu_build.cmake_args(frozenset(), "aarch64") == "-DGGML_NATIVE=OFF"


def test_a_native_amx_build_is_refused_even_on_the_host_that_built_it():
    problems = cpu_build.build_problems(NATIVE_INFO, AMX_HOST)
    assert any("AMX_INT8" in p for p in problems)
    assert any("AVX512" in p for p in problems)


def test_a_build_using_instructions_the_host_lacks_is_refused():
    problems = cpu_build.build_problems(PORTABLE_INFO, OLD_HOST)
    assert any("AVX2" in p and "avx2" in p for p in problems)


def test_the_portable_build_passes_on_a_capable_host():
    assert cpu_build.build_problems(PORTABLE_INFO, AMX_HOST) == []


def test_host_flags_reads_cpuinfo():
    text = "processor : 0\nflags\t\t: fpu sse4_2 avx avx2\n\nprocessor : 1\nflags : fpu\n"
    assert cpu_build.host_flags(text) == {"fpu", "sse4_2", "avx", "avx2"}


@pytest.mark.local_models
def test_the_installed_library_is_the_portable_build_for_this_cpu():
    """Fails on a native (-march=native) or AMX build, or one this CPU cannot execute."""
    info = cpu_build.installed_system_info()
    assert "CPU :" in info, info
    assert cpu_build.build_problems(info, cpu_build.host_flags()) == []
