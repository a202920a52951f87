"""One writing run per suite file: a second `generate` or `execute` is refused at once.

SQLite in WAL mode with a busy timeout keeps the file consistent under two
writers, but two workflow runs on one suite would race for the same items and
pay twice for the same calls. An OS file lock next to the suite
(`SUITE.lock`, held through `filelock`, released by the kernel even when a run is
killed with -9) makes the second run stop before it touches the suite. Readers
(`sane report`, `sane rank`) take no lock: WAL lets them read during a run.

The lock belongs to the file, not to the name it was given by: it is taken beside the
resolved path, so a symbolic link to a suite finds the lock of a run on the suite itself. A
hard link has no path to resolve to (both names are the file), so a writer refuses a suite
file with more than one.
"""

from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock, Timeout

from sane.errors import InputError

LOCK_SUFFIX = ".lock"


def lock_path(suite: Path) -> Path:
    return suite.with_name(suite.name + LOCK_SUFFIX)


class SuiteLock:
    """A non-blocking exclusive lock on a suite file for the life of one run."""

    def __init__(self, suite: Path) -> None:
        self.suite = suite
        self._path = lock_path(suite.resolve())  # every name of the file finds one lock
        self._lock = FileLock(str(self._path), timeout=0)

    def acquire(self) -> None:
        """Take the lock, or raise InputError if another run holds it or the suite file has
        other names (hard links) that a second run could lock separately."""
        _refuse_hard_links(self.suite)
        try:
            self._lock.acquire()
        except Timeout:
            raise InputError(
                str(self.suite),
                None,
                "another sane run is writing this suite (lock "
                f"{self._path.name}); wait for it to finish or use another --suite",
            ) from None
        except OSError as exc:  # a read-only folder or medium: the lock file cannot be made
            raise InputError(
                str(self.suite),
                None,
                f"cannot create its lock file {self._path.name} ({exc.strerror}): "
                "a run that writes the suite needs a writable folder; copy the suite somewhere "
                "writable (reading it, as `sane report` does, works where it is)",
            ) from None

    def release(self) -> None:
        if self._lock.is_locked:
            self._lock.release()


def _refuse_hard_links(suite: Path) -> None:
    try:
        links = os.stat(suite).st_nlink
    except FileNotFoundError:  # a suite about to be created has one name
        return
    if links > 1:
        raise InputError(
            str(suite),
            None,
            f"the suite file has {links} hard links (names of the same file): a run through "
            "another name would not see this run's lock; write to a copy (cp, not ln) or "
            "remove the other names",
        )
