"""Plot geometry: labels of targets with close scores never print over each other."""

from __future__ import annotations

import itertools

from sane.reporting._plots import LABEL_CHAR, LABEL_HEIGHT, Point, place_labels


def _box(point: Point) -> tuple[float, float, float]:
    return point.x + 7, point.x + 7 + LABEL_CHAR * min(len(point.label), 24), point.label_y


def test_labels_of_close_points_are_moved_apart() -> None:
    points = [Point(f"judge-{i}", x=100 + i, y=200 + i % 2, text="") for i in range(5)]
    points.append(Point("far-away", x=300, y=50, text=""))
    place_labels(points)
    for a, b in itertools.combinations(points, 2):
        (a0, a1, ay), (b0, b1, by) = _box(a), _box(b)
        overlap_x = a0 < b1 and b0 < a1
        assert not overlap_x or abs(ay - by) >= LABEL_HEIGHT, (a.label, b.label)
    assert points[-1].label_y == 50 - 6  # an isolated label stays where it was
