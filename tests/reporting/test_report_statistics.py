"""The report's statistics on a scripted, executed suite: slices, tests, config groups."""

from __future__ import annotations

import yaml
from suite_builders import build_suite

import sane


def test_report_has_slice_rankings_profiles_and_paired_tests(suite_dir, scripted):
    report = sane.report(build_suite(suite_dir, scripted, "a.db"))
    mono = report.ranking_by_requirement["monotonicity"]
    assert [(e.target, e.pass_rate, e.cases) for e in mono[:3]] == [
        ("careful", 1.0, 3),
        ("spacey", 1.0, 3),
        ("lazy", 0.0, 3),
    ]
    # 3 of 3 against 0 of 3: McNemar's exact p is 0.25, so no test separates them
    assert [(e.rank, e.tied) for e in mono[:3]] == [(1, True)] * 3
    assert report.span_by_requirement == {"monotonicity": 1.0, "robustness": 1.0}
    assert set(report.ranking_by_capability) == {"cap-1", "cap-2"}
    careful = report.targets["careful"]
    assert careful.pass_rate_bootstrap_ci == (1.0, 1.0)
    # 5 -> 2 on a 1..5 scale is a change of -0.75 on every case of the decrease recipe
    assert careful.profile.by_requirement["monotonicity"] == -0.75
    assert careful.profile.by_requirement["robustness"] == 0.0
    test = careful.paired_tests["rec-1-1"]
    assert test.n == 3 and test.t is None and "zero variance" in test.note
    lazy = report.targets["lazy"].paired_tests["rec-1-1"]
    assert lazy.mean_change == 0.0 and lazy.t is None
    assert report.targets["careful"].repeat_variability == {}  # one run only


def test_configuration_sensitivity_groups_targets_by_config_group(suite_dir, scripted):
    spec_path = suite_dir / "tiny-faithfulness.yaml"
    spec = yaml.safe_load(spec_path.read_text())
    for target in spec["targets"]:
        if target["name"] in {"careful", "spacey", "lazy"}:
            target["config_group"] = "judge"
            if target["name"] == "spacey":  # a setting of a python target's (its kind's own)
                target["deterministic"] = True
    spec_path.write_text(yaml.safe_dump(spec))
    report = sane.report(build_suite(suite_dir, scripted, "a.db"))
    group = report.configuration_sensitivity["judge"]
    assert group.targets == ["careful", "lazy", "spacey"]
    assert group.settings["spacey"] == {"config_group": "judge", "deterministic": True}
    assert group.pass_rate.mean == (1.0 + 0.6 + 0.4) / 3
    assert group.by_requirement["monotonicity"].values == {
        "careful": -0.75,
        "spacey": -0.75,
        "lazy": 0.0,
    }
    assert report.targets["careful"].config_group == "judge"
