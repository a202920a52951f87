"""One place that imports and configures litellm for this package.

litellm logs chatty messages and has its own telemetry and retries; the
product must run quietly and see every attempt, so litellm's own logging,
telemetry and retries are turned off here (the client does retries itself).
litellm takes seconds to import, so it is imported here on the first client, never at
`import sane`: commands that make no call (help, report, check) start fast.
"""

from __future__ import annotations

import logging
import threading
import warnings

from sane.llm._providers import CUSTOM_PROVIDERS

_ready = False
_ready_lock = threading.Lock()
_QUIET_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm")


def ensure_litellm_ready() -> None:
    """Quiet litellm and register this package's custom providers (idempotent)."""
    global _ready
    with _ready_lock:
        if _ready:
            return
        import litellm

        litellm.suppress_debug_info = True
        litellm.set_verbose = False
        litellm.telemetry = False
        litellm.turn_off_message_logging = True
        litellm.num_retries = 0
        for name in _QUIET_LOGGERS:
            logging.getLogger(name).setLevel(logging.ERROR)
        # litellm's TypedDicts make pydantic warn when their schemas are first built.
        warnings.filterwarnings("ignore", message=r".*`ReadOnly` qualifier", category=UserWarning)
        registered = {item["provider"] for item in litellm.custom_provider_map}
        for provider, factory in CUSTOM_PROVIDERS.items():
            if provider not in registered:
                litellm.custom_provider_map.append(
                    {"provider": provider, "custom_handler": factory()}
                )
        _ready = True
