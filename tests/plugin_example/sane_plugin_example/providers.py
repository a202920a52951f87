"""The route of `example/NAME`: the scripted model under another prefix."""

from __future__ import annotations

from sane.llm.providers import ROUTES, CallContext, Route


@ROUTES.register("example")
def route(model: str, settings, ctx: CallContext) -> Route:
    return ROUTES["scripted"]("scripted/" + model.split("/", 1)[1], settings, ctx)
