"""Score inflation: manipulations that add no task-relevant information, each with a
matched placebo, and the search for the ones a target rewards (docs/inflation.md).

The expected relation of every test here is known without an oracle: a manipulation must
not raise a score above its placebo's, s(manipulated) <= s(placebo) + tolerance. The names
load their module on first use, so that the records (record.py, which a suite's snapshot
holds) load without the catalogue and the search.
"""

from sane._lazy import exports

_EXPORTS = {
    "POSITIONS": "sane.manipulations.catalogue",
    "CallFailed": "sane.manipulations.search",
    "Catalogue": "sane.manipulations.catalogue",
    "Manipulation": "sane.manipulations.catalogue",
    "Placed": "sane.manipulations.catalogue",
    "load_catalogue": "sane.manipulations.catalogue",
    "texts": "sane.manipulations.catalogue",
    "filled_problems": "sane.manipulations.guard",
    "pair_problems": "sane.manipulations.guard",
    "Exploit": "sane.inflation_record",
    "Measured": "sane.inflation_record",
    "SearchResult": "sane.inflation_record",
    "SearchConfig": "sane.manipulations.search",
    "bootstrap": "sane.manipulations.search",
    "search_exploits": "sane.manipulations.search",
}
__all__ = [
    "POSITIONS",
    "CallFailed",
    "Catalogue",
    "Exploit",
    "Manipulation",
    "Measured",
    "Placed",
    "SearchConfig",
    "SearchResult",
    "bootstrap",
    "filled_problems",
    "load_catalogue",
    "pair_problems",
    "search_exploits",
    "texts",
]

__getattr__ = exports(__name__, _EXPORTS)
