"""Every file a command writes for the user (`--out`, `--junit`, review files, the demo's
reports) is written here, all at once or not at all.

Why one place: a report written into a missing folder, over a folder or into a read-only one
must be refused in one line naming the option, not end in a traceback; and a write that fails
half-way must leave an existing file as it was, never half a file under its name. So the text
goes to a temporary file in the same folder first, and replaces the target only when complete.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from sane.errors import InputError


def _mode(out: Path) -> int:
    """The permissions the file gets: a replaced file's own, else what the umask gives a new
    file (a temporary file is born private, 0600)."""
    try:
        return out.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _refused(out: Path, option: str, exc: OSError | None = None) -> InputError:
    if out.is_dir():
        problem = "is a folder, not a file"
    elif not out.parent.is_dir():
        problem = f"its folder {out.parent} does not exist"
    else:
        problem = f"cannot write there: {exc.strerror if exc else 'unknown error'}"
    return InputError(str(out), option, problem)


def check_output_file(out: Path, option: str) -> None:
    """Refuse an output path that cannot be written (a folder, a missing folder, a read-only
    one), by trying what writing it first does: a command that pays for calls before it
    writes (`sane qualify --out`) checks here first, so a bad path costs nothing."""
    out = Path(out)
    if out.is_dir() or not out.parent.is_dir():
        raise _refused(out, option)
    try:
        fd, probe = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".part")
    except OSError as exc:
        raise _refused(out, option, exc) from None
    os.close(fd)
    os.unlink(probe)


def check_output_folder(folder: Path, option: str) -> None:
    """Refuse, before anything is written, a folder for a command's outputs that is a file."""
    if Path(folder).exists() and not Path(folder).is_dir():
        raise InputError(str(folder), option, "is a file, not a folder")


def write_atomic(out: Path, write: Callable[[TextIO], None], option: str) -> None:
    """Write a file with `write(handle)`; any failure to write is an InputError naming
    `option` (the file keeps what it held), anything `write` raises propagates unchanged."""
    out = Path(out)
    if out.is_dir() or not out.parent.is_dir():
        raise _refused(out, option)
    try:
        fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".part")
    except OSError as exc:
        raise _refused(out, option, exc) from None
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as handle:
            write(handle)
        os.chmod(tmp, _mode(out))
        os.replace(tmp, out)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _refused(out, option, exc) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text_atomic(out: Path, text: str, option: str) -> None:
    """`text` as the whole of the file `out` (see `write_atomic`)."""
    write_atomic(out, lambda handle: handle.write(text), option)


def make_folder(folder: Path, option: str) -> None:
    """Create `folder` (and its parents) for a command's outputs, or refuse in one line."""
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(str(folder), option, f"cannot create the folder: {exc.strerror}") from None
