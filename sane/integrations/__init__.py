"""Optional integrations with other tools (each needs its extra, e.g. `pip install 'sane[inspect]'`)."""
