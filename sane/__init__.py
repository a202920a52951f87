"""sane: scorer-specific metamorphic testing for LLM judges and text metrics.

The public API mirrors the command line: `generate` a validated suite from a
scorer spec, `execute` it against target scorers, and `report` on it.
"""

import os

# litellm fetches a price list from the network at import unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from sane.api import execute, generate, report

__all__ = ["execute", "generate", "report"]
