"""Which code built a report: a fingerprint of the package's source and templates.

A report stored in a suite (at the end of `sane execute`) is served again only by the same
code: any change to how a report is computed (a statistic, a rule, a template) must give a
new report, and hashing the whole package is simpler and safer than listing the modules a
report depends on. About 200 small files: a few milliseconds.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent


@cache
def code_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix in {".py", ".j2", ".yaml"} and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(PACKAGE)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()
