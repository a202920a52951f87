"""The `python` target: a user function `module:function` that scores a record.

The function receives the record dict (the spec's fields) and returns a number;
it may be sync or async. Sync functions run in a daemon thread so a hanging one
can be timed out by the executor instead of freezing the event loop, and cannot
keep the process alive after the run ends (asyncio's default executor would). Whether
its output is a usable number is the executor's check, not this adapter's.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any

from sane.errors import InputError
from sane.records import OutputContract, TargetConfig
from sane.scorers._threads import contained, in_daemon_thread
from sane.scorers.base import BuildContext, Target, register_kind

KIND = "python"  # the one target kind that runs code a spec (or a suite) names

# Modules a python target may never name: a spec names the scorer's own code, and a ref such
# as `subprocess:run` or `builtins:exec` would run whatever the record's fields say.
_REFUSED_MODULES = frozenset(sys.stdlib_module_names) | {"builtins", "__main__"}


def _parts(ref: str | None, field: str, file: str = "spec") -> tuple[str, str]:
    if not ref:
        raise InputError(file, field, "a python target needs ref: 'module:function'")
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise InputError(file, field, f"'{ref}' is not of the form 'module:function'")
    return module_name, attr


def check_ref(ref: str | None, field: str, file: str = "spec") -> None:
    """Refuse a ref that is malformed or names the standard library or builtins, without
    importing anything (a spec load and a stored suite are both checked with this)."""
    module_name, _ = _parts(ref, field, file)
    top = module_name.split(".", 1)[0]
    if top in _REFUSED_MODULES:
        raise InputError(
            file,
            field,
            f"'{ref}' names the standard library ('{top}'); a python target must be a "
            "function of your own module",
        )


# Folders of code that is nobody's scorer: any function there is a gadget a received suite can
# name (`sympy:sympify` evaluates the case text it is given), whatever its file's hash.
_PACKAGE_FOLDERS = frozenset({"site-packages", "dist-packages"})


def _stdlib_folders() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    return tuple(Path(paths[key]).resolve() for key in ("stdlib", "platstdlib") if key in paths)


def library_code(path: Path) -> str | None:
    """What `path` belongs to when it is not its user's own code: an installed package (in a
    site-packages or dist-packages folder), the standard library, or sane itself; None for a
    module of the user's own. A stored ref run with `--trust-suite-code` must be the latter."""
    resolved = path.resolve()
    if _PACKAGE_FOLDERS & set(resolved.parts):
        return "an installed package"
    if any(resolved.is_relative_to(folder) for folder in _stdlib_folders()):
        return "the standard library"
    if resolved.is_relative_to(Path(__file__).resolve().parents[1]):
        return "sane itself"
    return None


def search_folder(folder: Path | None) -> None:
    """Let a spec's refs name modules beside it, as `my_scorers.py` next to `spec.yaml`: its
    folder is searched after the Python path (appended, so it never shadows an installed
    package), for the import and for the hash of the module file alike."""
    if folder is None:
        return
    entry = str(folder.resolve())
    if entry not in sys.path:
        sys.path.append(entry)
        importlib.invalidate_caches()


def resolve_ref(ref: str | None, field: str, folder: Path | None = None) -> Callable[..., Any]:
    """Import `module:function` (from the Python path, then `folder`: the spec's); every
    failure is bad input naming `field`, with where it looked."""
    check_ref(ref, field)
    module_name, attr = _parts(ref, field)
    search_folder(folder)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        where = f"the spec's folder ({folder.resolve()}) and " if folder is not None else ""
        raise InputError(
            "spec",
            field,
            f"cannot import module '{module_name}': not found in {where}the Python path; put "
            f"{module_name.split('.')[0]}.py beside the spec or its folder on PYTHONPATH"
            + (f" ({exc})" if exc.name != module_name.split(".")[0] else ""),
        ) from exc
    except Exception as exc:  # an error raised while importing
        raise InputError(
            "spec", field, f"cannot import module '{module_name}': {type(exc).__name__}: {exc}"
        ) from exc
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError("spec", field, f"module '{module_name}' has no attribute '{attr}'")
        obj = getattr(obj, part)
    if not callable(obj):
        raise InputError("spec", field, f"'{ref}' is not callable")
    return obj


def module_file(ref: str) -> Path | None:
    """The source file that defines a ref's module, found without running any of its code
    (nor its packages' `__init__`): the import system's finders only locate. None when no
    finder knows the module or it has no source file."""
    name = ref.partition(":")[0]
    loaded = sys.modules.get(name)
    if loaded is not None:
        origin = getattr(loaded, "__file__", None)
        return Path(origin) if origin else None
    search: list[str] | None = None
    spec = None
    parts = name.split(".")
    for depth in range(1, len(parts) + 1):
        prefix = ".".join(parts[:depth])
        parent = sys.modules.get(prefix)
        if parent is not None and depth < len(parts):
            search = list(getattr(parent, "__path__", []) or [])
            continue
        spec = _find(prefix, search)
        if spec is None:
            return None
        search = list(spec.submodule_search_locations or [])
    origin = getattr(spec, "origin", None)
    if not origin or not getattr(spec, "has_location", False):
        return None
    return Path(origin)


def _find(name: str, path: list[str] | None) -> ModuleSpec | None:
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        spec = find_spec(name, path, None)
        if spec is not None:
            return spec
    return None


def module_sha256(ref: str) -> str | None:
    """The SHA-256 of the file that defines a `module:function` ref (None for a module without
    a source file), read without importing it: a suite records it so that an edited function
    is seen as a new definition, and so that a received suite's code is run only as recorded."""
    path = module_file(ref)
    if path is None:
        return None
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


@dataclass
class PythonTarget:
    """A user-supplied scoring function."""

    name: str
    function: Callable[..., Any]
    contract: OutputContract
    fields: tuple[str, ...]
    deterministic: bool = False

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        try:
            if inspect.iscoroutinefunction(self.function):
                return await self.function(dict(record))
            result = await in_daemon_thread(self.function, dict(record), name="sane-python-target")
            if inspect.isawaitable(result):
                result = await result
            return result
        except (KeyboardInterrupt, SystemExit) as exc:
            raise contained(exc) from None


@register_kind(KIND)
def build_python_target(config: TargetConfig, context: BuildContext) -> Target:
    function = resolve_ref(config.ref, f"targets.{config.name}.ref", context.base_dir)
    return PythonTarget(
        name=config.name,
        function=function,
        contract=config.output or context.spec.output,
        fields=tuple(context.spec.fields),
        deterministic=config.deterministic,
    )
