"""Fixed recipe sets as data files, one YAML file per set (``--generator fixed:NAME``).

Relations in these files are written for a scorer whose higher score means better on
its criterion; the loader mirrors them for a lower-is-better output contract.
"""
