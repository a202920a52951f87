"""Ask a model the qualification questions the knowability rule leaves out, and score it.

Why: `sane qualify` leaves out the alignment and blind direction questions of an edit whose
effect on the criterion depends on which texts it meets (sane.qualification.qualify,
`knowable`). That is only right if a careful reader really cannot know their keyed answers
from the prompt. This asks them, exactly as the qualification would, and prints the accuracy
and every miss with the model's reason: misses that name the texts the answer hangs on are
the evidence that the questions, not the model, were at fault.

    .venv/bin/python experiments/left_out_questions.py --oracle-model openai/strong \
        --api-base http://127.0.0.1:8931/v1 --cache tests/fixtures/strong_model/cache.db
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from pathlib import Path

from sane.llm import LLMClient, LLMSettings
from sane.qualification.qualify import qualify, render, unknowable_edits


async def run(model: str, settings: LLMSettings) -> str:
    client = LLMClient(settings)
    try:
        found = await qualify(client, model, quick=False, left_out=True)
    finally:
        await client.aclose()
        client.close()
    left_out = {name: edits for name, edits in unknowable_edits().items() if edits}
    summary = {"left_out": left_out, "calls": found.calls, "accuracy": found.accuracy.rate}
    return f"{render(found)}\n\n{json.dumps(summary)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle-model", required=True)
    parser.add_argument("--api-base")
    parser.add_argument("--cache", type=Path)
    options = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "none")
    settings = LLMSettings(api_base=options.api_base, cache_path=options.cache, timeout_s=3000)
    print(asyncio.run(run(options.oracle_model, settings)))


if __name__ == "__main__":
    main()
