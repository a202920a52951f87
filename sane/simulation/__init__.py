"""Simulated oracles: a panel model of known skill, to measure the method rather than a model.

`sim/accuracy=A,correlation=C,bias=B[,difficulty=D],truth=MODULE:FUNCTION` is a model string
like any other: its calls go through the real client, cache, call records and panel. It
answers each panel question from exact ground truth (the reference scorer `truth` names, with
the run's spec and examples; `sane.simulation.truth`), then corrupts the answer by a
controlled amount, per vote and, with `difficulty`, per question (`sane.simulation.provider`).
Whatever it decides is a measurement of the method at that
oracle skill, never of a real model: every table and report that uses one says so.

- `params`: the model string's fields, checked before a run (light: imports no provider);
- `prompt_reader`: a panel prompt read back into the question it asks;
- `truth`: the right answer to each question, from the reference scorer and code edits;
- `provider`: the route and litellm handler that answer, corrupted.
"""
