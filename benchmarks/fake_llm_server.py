"""A loopback OpenAI-compatible server that plays every agent and oracle of a suite run.

Why: the pipeline benchmark needs thousands of realistic calls with a chosen
latency and no network. The server answers by the response schema the client
asks for (capabilities, recipes, cases, votes), so the product runs unchanged
against it through litellm's `openai/` provider.

Votes follow a realistic mix: each subject (a recipe or case and a question)
is unanimous with probability --unanimous, otherwise split 2-1; a "good" recipe
(probability --good) has cases that mostly pass, a poor one mostly fails, so
some families are doomed. The panel knows the truth of its controls: a recipe's
mirror (the opposite direction) and the planted no-op and decoy cases mostly get
"no", so contrastive alignment passes and the suite's families are real work.
Answers are a pure function of the request and of
how many identical requests came before (the k votes of one decision are
identical requests), so a sequential and an exhaustive run see the same panel.

Run: python benchmarks/fake_llm_server.py --latency 0.2   (prints "PORT <n>";
     with --servers N, N ports that answer as one panel: "PORT <n1> ... <nN>")
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
from collections import Counter
from typing import Any

from aiohttp import web

SUBJECT = re.compile(r"(?:Case|Recipe) id: (\S+)")
RELATION = re.compile(r'\(As data: \{"kind":\s*"(\w+)"')
SKILL = re.compile(r"skill (\d+)")
# Planted case controls whose right answer is yes; the other kinds (no-op, decoy) want no.
POSITIVE_CONTROLS = ("control:faithful:",)


def _unit(*parts: object) -> float:
    """A deterministic number in [0, 1) from the parts."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class Oracle:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.seen: Counter[str] = Counter()

    def capabilities(self, text: str) -> dict[str, Any]:
        return {
            "capabilities": [
                {"name": f"skill {i}", "description": "a skill", "requirement": "monotonicity"}
                for i in range(self.args.capabilities)
            ]
        }

    def recipes(self, text: str) -> dict[str, Any]:
        skill = SKILL.search(text)
        topic = f"topic {skill.group(1) if skill else 0}"
        recipe = {
            "name": f"add a claim on {topic}",
            "instruction": f"Add one unsupported claim about {topic}.",
            "variant_roles": ["original", "perturbed"],
            "relation": {"kind": "decrease", "original": "original", "perturbed": "perturbed"},
            "rationale": "an unsupported claim lowers the score",
        }
        second = {"name": f"add a date on {topic}", "instruction": f"Add a wrong date to {topic}."}
        return {"recipes": [recipe, recipe | second]}

    def case(self, text: str) -> dict[str, Any]:
        return {"variants": [{"role": "perturbed", "text": "A summary with a NEW claim."}]}

    def vote(self, text: str, occurrence: int) -> dict[str, Any]:
        match = SUBJECT.search(text)
        subject = match.group(1) if match else ""
        question = (
            "realization"
            if "Question (realization)" in text
            else "applicability"
            if "applicability):" in text
            else "alignment"
        )
        recipe = subject.split("/")[0]
        good = _unit("recipe", recipe) < self.args.good
        if (
            question == "alignment"
        ):  # every recipe adds an error: "decrease" is right, its mirror not
            relation = RELATION.search(text)
            p_yes = 0.97 if relation and relation.group(1) == "decrease" else 0.03
        elif subject.startswith("control:"):
            p_yes = 0.97 if subject.startswith(POSITIVE_CONTROLS) else 0.03
        else:
            p_yes = 0.9 if good else 0.35
        majority = "yes" if _unit("decision", subject, question) < p_yes else "no"
        minority = "no" if majority == "yes" else "yes"
        unanimous = _unit("unanimous", subject, question) < self.args.unanimous
        odd_one = int(_unit("odd", subject, question) * 3)
        decision = majority if unanimous or occurrence % 3 != odd_one else minority
        return {"rationale": "scripted benchmark vote", "decision": decision}

    def answer(self, body: dict[str, Any]) -> str:
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "")
        text = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        occurrence = self.seen[key]
        self.seen[key] += 1
        handlers = {
            "CapabilityList": self.capabilities,
            "RecipeList": self.recipes,
            "CaseDraft": self.case,
        }
        if schema in ("VoteDraft", "VoteDecision"):
            return json.dumps(self.vote(text, occurrence))
        return json.dumps(handlers.get(schema, self.case)(text))


def make_app(args: argparse.Namespace, oracle: Oracle | None = None) -> web.Application:
    """One server; servers made with the same `oracle` are one panel behind several ports."""
    oracle = oracle or Oracle(args)
    counts = {"requests": 0}
    # A real server serves a bounded number of requests at once; the rest queue.
    slots = asyncio.Semaphore(args.capacity) if args.capacity else None

    async def completions(request: web.Request) -> web.Response:
        body = await request.json()
        counts["requests"] += 1
        content = oracle.answer(body)
        if slots is not None:
            async with slots:
                await asyncio.sleep(args.latency)
        elif args.latency:
            await asyncio.sleep(args.latency)
        return web.json_response(
            {
                "id": "chatcmpl-bench",
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": body.get("model", ""),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            }
        )

    async def stats(request: web.Request) -> web.Response:
        return web.json_response(counts)

    app = web.Application()
    app.router.add_post("/v1/chat/completions", completions)
    app.router.add_get("/stats", stats)
    return app


async def main(args: argparse.Namespace) -> None:
    # --servers N: N servers (each with its own port and --capacity) answering as one
    # panel, so a router spreading a decision's identical votes over them sees the same
    # answers one server would give (a server's answer depends on the identical requests
    # before it).
    oracle = Oracle(args)
    ports = []
    for _ in range(args.servers):
        runner = web.AppRunner(make_app(args, oracle), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", args.port, backlog=1024)
        await site.start()
        ports.append(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]
    print("PORT " + " ".join(map(str, ports)), flush=True)
    await asyncio.Event().wait()


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--servers", type=int, default=1, help="ports sharing one panel")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per reply")
    parser.add_argument("--capacity", type=int, default=0, help="requests served at once (0: all)")
    parser.add_argument("--capabilities", type=int, default=200)
    parser.add_argument("--unanimous", type=float, default=0.8)
    parser.add_argument("--good", type=float, default=0.75, help="share of good recipes")
    args = parser.parse_args(argv)
    if args.servers > 1 and args.port:
        parser.error("--port must be 0 (any free port) with --servers above 1")
    return args


if __name__ == "__main__":
    asyncio.run(main(parse()))
