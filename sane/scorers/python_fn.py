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
from typing import Any, ClassVar, Literal

from pydantic import StrictBool

from sane.errors import InputError
from sane.records import OutputContract, TargetConfig
from sane.scorers._threads import contained, in_daemon_thread
from sane.scorers.base import BuildContext, Target
from sane.target_kind import Frozen, TargetKind, register_target_kind


class PythonConfig(TargetConfig):
    """A `python` target: the function `ref` (`module:function`) of the user's own code."""

    kind: Literal["python"] = "python"
    ref: str | None = None
    # it returns the same score for the same record (repeats are skipped)
    deterministic: StrictBool = False

    SETTINGS: ClassVar[frozenset[str]] = TargetConfig.SETTINGS | {"deterministic"}


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


def build_python_target(config: PythonConfig, context: BuildContext) -> Target:
    function = resolve_ref(config.ref, f"targets.{config.name}.ref", context.base_dir)
    return PythonTarget(
        name=config.name,
        function=function,
        contract=config.output or context.spec.output,
        fields=tuple(context.spec.fields),
        deterministic=config.deterministic,
    )


def _check(config: PythonConfig, file: str) -> None:
    check_ref(config.ref, f"targets.{config.name}.ref", file)


def _freeze(config: PythonConfig, spec_dir: Path) -> Frozen:
    """The hash of its module file: an edited function is a new definition, and a received
    suite's code runs only as recorded (verify_code)."""
    search_folder(spec_dir)  # a ref may name a module beside the spec
    return Frozen(code_sha256=module_sha256(config.ref) if config.ref else None)


def verify_code(target: Any, suite: str) -> None:
    """Refuse a stored python target (a `SuiteTarget`) whose ref names the standard library,
    an installed package or sane, or whose module file is not the one the suite recorded;
    checked before anything is imported. Trust is in the user's own modules: a hash cannot
    tell a gadget from a scorer when the gadget is a package file that is the same on every
    machine."""
    config: PythonConfig = target.config
    field = f"targets.{config.name}.ref"
    check_ref(config.ref, field, suite)
    refuse_library_code(str(config.ref), field, suite)
    found = module_sha256(str(config.ref))
    module = str(config.ref).partition(":")[0]
    if found is None and target.code_sha256 is not None:  # a moved suite, its code left behind
        raise InputError(
            suite,
            f"targets.{config.name}",
            f"its module '{module}' is not importable here; put {module.split('.')[0]}.py "
            f"(the file the suite recorded) on PYTHONPATH, or {_declare(suite)}",
        )
    if target.code_sha256 is None or found != target.code_sha256:
        where = module_file(str(config.ref))
        recorded = (target.code_sha256 or "none")[:12]
        raise InputError(
            suite,
            f"targets.{config.name}",
            f"its module file ({where or 'not found'}, sha256 {(found or 'none')[:12]}) is not "
            f"the one this suite recorded (sha256 {recorded}): the suite's results are another "
            f"version's; {_declare(suite)} (an edited module is a new definition, measured "
            "again)",
        )


def _declare(suite: str) -> str:
    """The way out every command can name: `sane rank` and the other readers of a suite run
    its code targets but take no spec; `sane execute --spec` declares them, and its results
    are then those of the code that is here."""
    return f"declare it with `sane execute {suite} --spec SPEC` (the spec that defines it)"


def refuse_library_code(ref: str, field: str, suite: str) -> None:
    """Refuse a stored ref whose module file is not the user's own (library_code)."""
    where = module_file(ref)
    owner = library_code(where) if where is not None else None
    if owner is not None:
        raise InputError(
            suite,
            field,
            f"'{ref}' belongs to {owner} ({where}), not to a module of your own; "
            f"--trust-suite-code runs only your own modules; {_declare(suite)}",
        )


PYTHON = register_target_kind(
    TargetKind(
        name="python",
        config=PythonConfig,
        build=build_python_target,
        check=_check,
        freeze=_freeze,
        verify_code=verify_code,
    )
)
