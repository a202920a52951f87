"""Refuse a model string no route can serve before a run starts, not after a paid stage.

An unknown provider would otherwise surface as a failed capability stage (exit 1)
after the suite file is created; checked up front it is bad input (exit 2) that
names the option or spec field. Custom prefixes check their own names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from sane._registry import Registry
from sane.errors import InputError

ModelCheck = Callable[[str], str | None]


def _scripted(model: str) -> str | None:
    return None


def _local(model: str) -> str | None:
    from sane.local.assets import ASSETS
    from sane.local.errors import missing_runtime

    name = model.split("/", 1)[1] if "/" in model else ""
    if name not in ASSETS:
        return ASSETS.unknown(name)
    return missing_runtime("llama_cpp")


def _litellm(model: str) -> str | None:
    """Whether litellm serves `model`. A `provider/name` string is checked against litellm's
    provider list, kept for the installed litellm version (_providers_file): after the first
    check no command imports litellm (seconds) just to refuse or accept a model string."""
    prefix = model.split("/", 1)[0] if "/" in model else None
    known = _known_providers()
    if prefix is not None and known is not None:
        return None if prefix in known else _unknown(model)
    import litellm

    from sane.llm._litellm import ensure_litellm_ready

    ensure_litellm_ready()  # quiet: litellm prints a banner on unknown providers otherwise
    _remember_providers([str(getattr(p, "value", p)) for p in litellm.provider_list])
    try:
        litellm.get_llm_provider(model)
    except Exception:  # noqa: BLE001 - litellm raises several types for an unknown provider
        return _unknown(model)
    return None


def _unknown(model: str) -> str:
    return (
        f"unknown model '{model}': no provider for it (use a litellm string such as "
        "openai/NAME, anthropic/NAME, ollama/NAME, or local/NAME, scripted)"
    )


def _providers_file() -> Path | None:
    """Where litellm's provider list is kept: one file per installed litellm version."""
    from importlib.metadata import PackageNotFoundError, version

    import platformdirs

    try:
        installed = version("litellm")
    except PackageNotFoundError:
        return None
    return Path(platformdirs.user_cache_dir("sane")) / f"litellm-{installed}-providers.json"


def _known_providers() -> frozenset[str] | None:
    import json

    path = _providers_file()
    try:
        return frozenset(json.loads(path.read_text("utf-8"))) if path else None
    except (OSError, ValueError, TypeError):
        return None


def _remember_providers(providers: list[str]) -> None:
    import json

    path = _providers_file()
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(sorted(set(providers))), "utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache: the next check imports litellm again, nothing worse


def _router(model: str) -> str | None:
    """`router/NAME`: the name is checked here; its deployments when the router file is read.
    Registered here with the others, not by the router module: a check that registered on
    import would be missing from a command that has not imported that module yet."""
    name = model.split("/", 1)[1] if "/" in model else ""
    return None if name else "a router model needs a name: router/<model_name>"


# How a model string's route prefix is checked; any other prefix is litellm's to serve.
# A provider package registers its prefix's check from a light module of the
# `sane.model_checks` group: checking a model string must not import a provider (or litellm).
MODEL_CHECKS: Registry[ModelCheck] = Registry("model check", group="sane.model_checks")
MODEL_CHECKS.register("scripted")(_scripted)
MODEL_CHECKS.register("local")(_local)
MODEL_CHECKS.register("router")(_router)


def model_problem(model: str) -> str | None:
    """Why `model` cannot be called, or None if a route can serve it."""
    if not model.strip():
        return "the model string is empty"
    return MODEL_CHECKS.get(model.split("/", 1)[0], _litellm)(model)


def check_model(model: str, field: str, file: str | None = None) -> None:
    """Raise InputError naming `file` and `field` if `model` cannot be called."""
    problem = model_problem(model)
    if problem is not None:
        raise InputError(file, field, problem)


def check_script(models: Iterable[str], script_path: Path | None) -> None:
    """Raise InputError naming `--script` when a `scripted` model is asked for without a
    rules file: refused before any call, with the fix, not as every call's error."""
    scripted = [m for m in models if m.split("/", 1)[0] == "scripted"]
    if scripted and script_path is None:
        raise InputError(
            None,
            "--script",
            f"the scripted model ({scripted[0]}) answers from a rules file: add --script FILE "
            "(docs/reference.md, 'The scripted model')",
        )


def check_api_base(api_base: str | None, api_key: str | None) -> None:
    """Raise InputError naming `--api-base` when a server is given and no key is: every call
    would otherwise fail authentication, one by one, after the run started."""
    import os

    if api_base is not None and not (api_key or os.environ.get("OPENAI_API_KEY")):
        raise InputError(
            None,
            "--api-base",
            f"no key for the server at {api_base}: set OPENAI_API_KEY (a server that needs "
            "no key takes any value: export OPENAI_API_KEY=none)",
        )
