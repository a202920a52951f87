"""What a package that adds a model provider registers into (public; the modules behind it are
the LLM layer's own).

- `ROUTES` / `register_route(PREFIX)`: how a `PREFIX/NAME` model string reaches litellm (a
  `Route`: the litellm model string, extra arguments, whether it is priced, cache-key extras);
- `CUSTOM_PROVIDERS` / `register_custom_provider(PROVIDER)`: a litellm CustomLLM handler factory;
- `MODEL_CHECKS`: why a `PREFIX/NAME` string cannot be called (None when it can), asked before
  a run starts. Register a check from a module of the `sane.model_checks` entry-point group
  that imports nothing heavy, and routes from one of `sane.providers`.
"""

from sane.llm._models import MODEL_CHECKS, ModelCheck
from sane.llm._providers import (
    CUSTOM_PROVIDERS,
    ROUTES,
    CallContext,
    Route,
    RouteBuilder,
    register_custom_provider,
    register_route,
)

__all__ = [
    "CUSTOM_PROVIDERS",
    "MODEL_CHECKS",
    "ROUTES",
    "CallContext",
    "ModelCheck",
    "Route",
    "RouteBuilder",
    "register_custom_provider",
    "register_route",
]
