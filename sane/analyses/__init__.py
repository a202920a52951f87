"""Analyses built on suites, each answering one question a user asks of them:

- `baseline`, `generator_comparison`: do derived recipes beat a fixed recipe set on the
  same scorer (`sane baseline`)?
- `reproducibility`: do two independently generated suites of one scorer agree
  (`sane compare`)?
- `recipe_library`: which aligned recipes recur across suites and scorers (`sane library`)?
- `human_alignment`: does the suite's ranking of targets agree with human labels
  (`sane rank --human-data`)?
"""
