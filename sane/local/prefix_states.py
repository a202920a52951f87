"""Saved llama.cpp KV states of prompt prefixes, so a shared prefix is computed once.

Every sane prompt starts with the same system text and scorer spec, and the k
votes of one decision are the same prompt, so most prompt tokens were already
evaluated by an earlier call. A state is saved at fixed *boundaries* only
(every `block` tokens from position 0, and just before a prompt's last token),
and prompts are always evaluated in blocks aligned to those same boundaries.
States are saved only where reuse is likely: every `save_every` tokens (the
shared system + spec block), just before the last token (the k votes of one
decision), and where the prompt parts from the most similar recent prompt
(two questions about one case share the case and differ in the question).
That makes the result independent of what happens to be cached: loading a
saved prefix gives bit-for-bit the KV that evaluating it would give, so reuse
on or off, and any call order, yield the same tokens for the same seed.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass, field

import numpy as np


@dataclass
class PrefixStats:
    """What the cache saved: prompt tokens seen, and how many came from a saved state."""

    calls: int = 0
    prompt_tokens: int = 0
    reused_tokens: int = 0

    @property
    def hit_rate(self) -> float:
        return self.reused_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


@dataclass
class PrefixStates:
    """A least-recently-used store of KV states keyed by the exact token prefix they hold."""

    block: int
    max_bytes: int
    save_every: int = 512
    enabled: bool = True
    stats: PrefixStats = field(default_factory=PrefixStats)
    _states: OrderedDict[tuple[int, ...], bytes] = field(default_factory=OrderedDict)
    _bytes: int = 0
    _recent: deque[np.ndarray] = field(default_factory=lambda: deque(maxlen=64))

    def boundaries(self, n_tokens: int) -> list[int]:
        """The positions (descending) where a prompt of n_tokens may have a saved state."""
        end = n_tokens - 1
        aligned = list(range((end // self.block) * self.block, 0, -self.block))
        return ([end] if end > 0 and end not in aligned else []) + aligned

    def longest(self, tokens: list[int]) -> tuple[int, bytes | None]:
        """The longest saved prefix of `tokens` (never the whole prompt) and its state."""
        if self.enabled:
            for n in self.boundaries(len(tokens)):
                key = tuple(tokens[:n])
                state = self._states.get(key)
                if state is not None:
                    self._states.move_to_end(key)
                    return n, state
        return 0, None

    def save_points(self, tokens: list[int]) -> set[int]:
        """Where to save states while evaluating `tokens` (and remember the prompt)."""
        if not self.enabled:
            return set()
        end = len(tokens) - 1
        points = set(range(self.save_every, end, self.save_every)) | {end}
        current = np.asarray(tokens)
        for previous in self._recent:
            n = min(len(previous), len(current))
            differ = np.flatnonzero(previous[:n] != current[:n])
            shared = int(differ[0]) if len(differ) else n
            points.add(min(shared, end) // self.block * self.block)
        self._recent.append(current)
        return {p for p in points if p > 0}

    def put(self, tokens: list[int], state: bytes) -> None:
        if not self.enabled or len(state) > self.max_bytes:
            return
        key = tuple(tokens)
        if key in self._states:
            self._states.move_to_end(key)
            return
        self._states[key] = state
        self._bytes += len(state)
        while self._bytes > self.max_bytes:
            _, evicted = self._states.popitem(last=False)
            self._bytes -= len(evicted)

    def record(self, prompt_tokens: int, reused_tokens: int) -> None:
        self.stats.calls += 1
        self.stats.prompt_tokens += prompt_tokens
        self.stats.reused_tokens += reused_tokens

    def clear(self) -> None:
        self._states.clear()
        self._bytes = 0
