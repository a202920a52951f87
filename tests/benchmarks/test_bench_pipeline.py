"""The pipeline benchmark measures real work: its fake server's suites validate families.

The benchmark once reported "0/0 validated families" for months of changes (a
panel that needs a recipe's mirror rejected, and near-duplicate recipes merged),
so its throughput figures timed a pipeline that stopped after alignment.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_pipeline


def test_the_fake_panel_validates_most_families_through_every_stage(tmp_path):
    with bench_pipeline.fake_server(0.0) as base_url:
        run = bench_pipeline.generate(base_url, tmp_path, "three", families=3, concurrency=8)
    assert run.families == 3  # one distinct recipe per capability: none merged as a duplicate
    assert run.validated >= 2  # good recipes pass; their mirrors are rejected
    assert run.calls > 3 * 10  # cases and their votes, not only alignment


def test_a_router_over_two_servers_runs_the_same_suite(tmp_path):
    """The scale-out comparison is like for like: servers answering as one panel give the
    routed run the suite and calls that one server gives."""
    with bench_pipeline.fake_server(0.0, capacity=2) as one:
        alone = bench_pipeline.generate(one, tmp_path, "alone", families=2, concurrency=2)
    with bench_pipeline.fake_servers(0.0, capacity=2, count=2) as urls:
        router = bench_pipeline.router_file(tmp_path / "router.json", urls)
        routed = bench_pipeline.generate(
            urls[0], tmp_path, "routed", families=2, concurrency=4, router=router
        )
    assert routed.families == 2 and routed.validated >= 1
    assert routed.validated_ids == alone.validated_ids
    assert routed.calls == alone.calls


def test_the_timeline_records_every_call_of_a_run_and_restores_the_client(tmp_path):
    import timeline

    from sane.llm import _client, _slots

    before = (_client.LLMClient._call_with_retries, _slots.RankedSlots.hold)
    with timeline.recording() as calls, bench_pipeline.fake_server(0.0) as base_url:
        run = bench_pipeline.generate(base_url, tmp_path, "two", families=2, concurrency=4)
    assert len(calls) == run.calls  # one record per uncached call, none twice
    assert all(0 < c.ready <= c.start <= c.end for c in calls)
    assert {c.task for c in calls} >= {"capabilities", "recipes", "cases", "vote:alignment"}
    assert (_client.LLMClient._call_with_retries, _slots.RankedSlots.hold) == before


def test_the_memory_transport_answers_as_the_fake_server_does(tmp_path):
    """The in-process transport is the same panel without the loopback: the same suite and
    calls as over HTTP, and the client's HTTP call is restored afterwards."""
    from sane.llm import _openai_http

    before = _openai_http.Endpoints.complete
    with bench_pipeline.fake_server(0.0) as base_url:
        over_http = bench_pipeline.generate(base_url, tmp_path, "http", families=2, concurrency=4)
    with bench_pipeline.memory_transport(0.0) as base_url:
        in_memory = bench_pipeline.generate(base_url, tmp_path, "memory", families=2, concurrency=4)
    assert _openai_http.Endpoints.complete is before
    assert in_memory.validated_ids == over_http.validated_ids and in_memory.validated >= 1
    assert in_memory.calls == over_http.calls


def test_the_rounds_bound_counts_the_two_rounds_only_the_first_calls_can_use():
    # ten families at 32: the capabilities call, ten recipe calls, then 529 calls
    assert bench_pipeline.rounds_bound(540, 10, 0.2, 32) == pytest.approx(0.2 * 19)
    # a hundred recipe calls fill the second round; the other 68 go with the rest
    assert bench_pipeline.rounds_bound(5310, 100, 0.2, 32) == pytest.approx(0.2 * 167)
    # never below the calls' own bound
    assert bench_pipeline.rounds_bound(64, 1, 0.2, 32) >= 64 * 0.2 / 32
