"""Geometry of the HTML report's plots, computed here and drawn as inline SVG by templates.

Why hand-built SVG: the report must open offline as one file, and these plots are a few
bars, dots and lines; computing coordinates in Python keeps the templates free of
arithmetic and adds no plotting dependency. Every value is a plain number or string that
the (autoescaping) template writes into attributes or text nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sane.reporting._models import Report

WIDTH = 640
LEFT = 170  # room for target names
RIGHT = 60
ROW = 26
TOP = 24


@dataclass
class Tick:
    pos: float
    label: str


@dataclass
class PassRateRow:
    label: str
    y: float
    x: float | None
    x_lo: float | None
    x_hi: float | None
    text: str


@dataclass
class PassRatePlot:
    width: int
    height: int
    left: int
    right_edge: float
    rows: list[PassRateRow]
    ticks: list[Tick]


def _x(value: float) -> float:
    return round(LEFT + value * (WIDTH - LEFT - RIGHT), 1)


def pass_rate_plot(report: Report) -> PassRatePlot:
    """One row per ranked target: a dot at the pass rate and a whisker over its interval."""
    rows = []
    for index, entry in enumerate(report.ranking):
        summary = report.targets[entry.target]
        y = TOP + index * ROW + ROW / 2
        ci = summary.pass_rate_ci
        rate = summary.pass_rate
        rows.append(
            PassRateRow(
                label=entry.target,
                y=y,
                x=None if rate is None else _x(rate),
                x_lo=None if ci is None else _x(ci[0]),
                x_hi=None if ci is None else _x(ci[1]),
                text=f"{rate:.1%}"
                if rate is not None
                else ("error on every case" if summary.errors else "no judged case"),
            )
        )
    ticks = [Tick(_x(v / 4), f"{v * 25}%") for v in range(5)]
    height = TOP + max(len(rows), 1) * ROW + 24
    return PassRatePlot(WIDTH, height, LEFT, _x(1.0), rows, ticks)


LABEL_HEIGHT = 12  # px of one label line (the report's SVG font)
LABEL_CHAR = 6.2  # px per character, an upper estimate for the labels' font


@dataclass
class Point:
    label: str
    x: float
    y: float
    text: str
    label_y: float = 0.0  # where the label's baseline goes, moved down past other labels


def place_labels(points: list[Point]) -> None:
    """Put each label just above its dot, moved down a line at a time until it overlaps no
    label already placed: targets with close scores would print their names over each other."""
    placed: list[tuple[float, float, float]] = []  # x from, x to, baseline
    for point in sorted(points, key=lambda p: (p.y, p.x)):
        x0, x1 = point.x + 7, point.x + 7 + LABEL_CHAR * min(len(point.label), 24)
        baseline = point.y - 6
        while any(
            x0 < right and left < x1 and abs(baseline - y) < LABEL_HEIGHT
            for left, right, y in placed
        ):
            baseline += LABEL_HEIGHT
        point.label_y = round(baseline, 1)
        placed.append((x0, x1, baseline))


@dataclass
class ScatterPlot:
    size: int
    pad: int
    points: list[Point]
    ticks: list[Tick]
    missing: list[str] = field(default_factory=list)


def stability_plot(report: Report, size: int = 340, pad: int = 44) -> ScatterPlot:
    """Targets at (sensitivity, stability); the top right corner is the ideal scorer."""
    span = size - 2 * pad
    points, missing = [], []
    for name, summary in report.targets.items():
        if summary.stability is None or summary.sensitivity is None:
            missing.append(name)
            continue
        points.append(
            Point(
                label=name,
                x=round(pad + summary.sensitivity * span, 1),
                y=round(size - pad - summary.stability * span, 1),
                text=f"{name}: sensitivity {summary.sensitivity:.3f} "
                f"({summary.sensitivity_cases} cases), stability {summary.stability:.3f} "
                f"({summary.stability_cases} cases)",
            )
        )
    ticks = [Tick(round(pad + v / 4 * span, 1), f"{v / 4:.2f}") for v in range(5)]
    place_labels(points)
    return ScatterPlot(size, pad, points, ticks, missing)


@dataclass
class Line:
    label: str
    css: str
    points: str  # "x,y x,y ..."
    dots: list[tuple[float, float, str]]


@dataclass
class LinePlot:
    width: int
    height: int
    pad: int
    lines: list[Line]
    xticks: list[Tick]
    yticks: list[Tick]
    marker_x: float | None


def threshold_plot(report: Report, width: int = 460, height: int = 240, pad: int = 40) -> LinePlot:
    """Validated and fault-detecting family counts against tau; the suite's tau is marked."""
    rows = report.threshold_sensitivity
    if not rows:
        return LinePlot(width, height, pad, [], [], [], None)
    taus = [row.tau for row in rows]
    top = max(max(row.validated for row in rows), 1)
    lo, hi = min(taus), max(taus)

    def x(tau: int) -> float:
        return round(pad + (tau - lo) / max(hi - lo, 1) * (width - 2 * pad), 1)

    def y(count: int) -> float:
        return round(height - pad - count / top * (height - 2 * pad), 1)

    def line(label: str, css: str, counts: list[int]) -> Line:
        dots = [(x(t), y(c), f"tau {t}: {c} {label}") for t, c in zip(taus, counts, strict=True)]
        return Line(label, css, " ".join(f"{a},{b}" for a, b, _ in dots), dots)

    lines = [
        line("validated families", "validated", [row.validated for row in rows]),
        line(
            "fault-detecting (any target)", "detecting", [row.fault_detecting_any for row in rows]
        ),
    ]
    yticks = [Tick(y(v), str(v)) for v in sorted({0, top // 2, top})]
    marker = x(report.suite.tau) if lo <= report.suite.tau <= hi else None
    return LinePlot(width, height, pad, lines, [Tick(x(t), str(t)) for t in taus], yticks, marker)


def heat_colour(rate: float | None) -> str:
    """Red (0) through amber to green (1); grey when there is no judged case."""
    if rate is None:
        return "#e5e7eb"
    return f"hsl({round(120 * rate)}, 65%, 78%)"
