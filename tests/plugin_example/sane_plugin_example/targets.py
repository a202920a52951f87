"""Two target kinds. `example_length`: the scored field's length in words, capped at the
contract (a kind with no keys of its own). `example_http`: a scorer served over HTTP, at the
`url` its spec gives (a kind with a key of its own: its config record says so, and sane
stores, hashes and checks it with nothing else to change)."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from dataclasses import dataclass
from typing import Literal

from sane.errors import InputError
from sane.records import OutputContract
from sane.scorers import BuildContext, Target, TargetConfig, TargetKind, register_target_kind


@dataclass
class WordCount:
    name: str
    contract: OutputContract
    fields: tuple[str, ...]
    field: str
    deterministic: bool = True

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        return min(self.contract.max, max(self.contract.min, len(record[self.field].split())))


class LengthConfig(TargetConfig):
    kind: Literal["example_length"] = "example_length"


def build(config: LengthConfig, context: BuildContext) -> Target:
    spec = context.spec
    return WordCount(config.name, config.output or spec.output, tuple(spec.fields),
                     spec.scored_field)  # fmt: skip


register_target_kind(TargetKind(name="example_length", config=LengthConfig, build=build))


class HttpConfig(TargetConfig):
    """POST the record as JSON to `url`; the reply is `{"score": N}`."""

    kind: Literal["example_http"] = "example_http"
    url: str


def _check(config: HttpConfig, file: str) -> None:
    if not config.url.startswith(("http://", "https://")):
        raise InputError(file, f"targets.{config.name}.url", "must be an http(s) URL")


@dataclass
class HttpScorer:
    name: str
    url: str
    contract: OutputContract
    fields: tuple[str, ...]
    deterministic: bool = False

    def _post(self, record: dict[str, str]) -> float:
        body = json.dumps(record).encode("utf-8")
        request = urllib.request.Request(
            self.url, data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            return float(json.loads(reply.read())["score"])

    async def score(self, record: dict[str, str], repeat: int = 0) -> float:
        return await asyncio.to_thread(self._post, record)


def build_http(config: HttpConfig, context: BuildContext) -> Target:
    _check(config, "spec")
    spec = context.spec
    return HttpScorer(config.name, config.url, config.output or spec.output, tuple(spec.fields))


register_target_kind(
    TargetKind(name="example_http", config=HttpConfig, build=build_http, check=_check)
)
