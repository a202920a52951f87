"""sane: scorer-specific metamorphic testing for LLM judges and text metrics.

The public API mirrors the command line: `generate` a validated suite from a
scorer spec, `execute` it against target scorers, and `report` on it.
"""

import os
import sys
import types

# litellm fetches a price list from the network at import unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__all__ = ["execute", "generate", "report"]


class _Package(types.ModuleType):
    """`sane.generate`, `sane.execute` and `sane.report` are the API's functions, loaded on
    first use so that `import sane` (and every command that only reads a suite) starts fast.

    `sane.report` is also the name of the report subpackage; Python binds a subpackage to its
    parent's attribute when it is first imported, which would hide the function. That binding
    is refused here: the subpackage stays importable as `sane.report` (`from sane.report
    import build_report`), and the attribute stays the function.
    """

    def __getattr__(self, name: str) -> object:
        if name in __all__:
            from sane import api

            function = getattr(api, name)
            super().__setattr__(name, function)
            return function
        raise AttributeError(f"module 'sane' has no attribute {name!r}")

    def __setattr__(self, name: str, value: object) -> None:
        if name in __all__ and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
