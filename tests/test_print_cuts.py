"""A drawing split over pages is cut between its modules (viewer/print_cuts.py); the printed PDFs
themselves are checked in test_print_sizes.py (no label lost between the pages)."""

from __future__ import annotations

import itertools

import pytest
from linkgraph.viewer.print_cuts import cuts


@pytest.mark.parametrize(
    ("length", "part", "spans"),
    [
        (1000.0, 400.0, [(350.0, 450.0), (750.0, 820.0)]),
        (2300.0, 500.0, [(480.0, 560.0), (990.0, 1010.0), (1400.0, 1600.0), (1890.0, 1990.0)]),
        (1000.0, 400.0, [(320.0, 350.0), (640.0, 700.0)]),  # the even cuts (333, 667) cross both
        (900.0, 450.0, []),
    ],
)
def test_no_cut_through_a_box_when_one_can_be_avoided(
    length: float, part: float, spans: list[tuple[float, float]]
) -> None:
    found = cuts(length, part, spans)
    edges = [0.0, *found, length]
    assert all(0 < b - a <= part + 1e-6 for a, b in itertools.pairwise(edges))
    assert not [c for c in found if any(a < c < b for a, b in spans)]


def test_a_box_longer_than_a_page_is_cut_where_it_must() -> None:
    found = cuts(1000.0, 300.0, [(100.0, 900.0)])
    edges = [0.0, *found, 1000.0]
    assert all(0 < b - a <= 300.0 + 1e-6 for a, b in itertools.pairwise(edges))
