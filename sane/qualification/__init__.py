"""Qualifying an oracle model on exact ground truth (`sane qualify`).

The reference criteria (`criteria/`, computed exactly by `references`) and the code edits
give panel questions whose right answers are known. An oracle model is asked them, and its
accuracy, order consistency and false-accept rate are compared with the accuracy the validity
sweep (benchmarks/bench_validity.py --oracle-sweep, on simulated oracles) found each panel
needs.
"""
