"""An example package that extends sane from outside, one kind of each sort.

Its `*.dist-info/entry_points.txt` (what an installer writes from a pyproject.toml's
`[project.entry-points."sane.target_kinds"]` tables) names one module per group; each module
registers its kind with sane's public decorators. tests/test_registries.py puts this folder on
the Python path of a fresh interpreter and uses every kind through sane's own code.
"""
