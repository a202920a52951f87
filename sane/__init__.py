"""sane: scorer-specific metamorphic testing for LLM judges and text metrics.

The public API mirrors the command line: `generate` a validated suite from a
scorer spec, `execute` it against target scorers, and `report` on it. The functions
load on first use (sane.api), so that `import sane`, and every command that only reads a
suite, starts fast; the report's models and renderers are `sane.reporting`.
"""

import os

# litellm fetches a price list from the network at import unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__all__ = ["execute", "generate", "report"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from sane import api

        function = getattr(api, name)
        globals()[name] = function
        return function
    raise AttributeError(f"module 'sane' has no attribute {name!r}")
