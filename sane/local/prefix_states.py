"""The fixed evaluation layout of a prompt, and saved KV states of prompt prefixes.

Every sane prompt starts with the same system text and scorer spec, and the k
votes of one decision are the same prompt, so most prompt tokens were already
evaluated by an earlier call. Reusing that work must not change a single
logit, or the same seed would give a different suite depending on what
happened to be cached. llama.cpp's CPU kernels compute a token's row of a
batched matrix product in one of two ways: in a group of `GRAIN` rows, or (for
the rows left over, and for any batch under `MIN_BATCH` tokens) one row at a
time, and the two round differently. Measured on the embedded models (Q4_K and
Q4_1 weights, the Zen 4 and Haswell CPU modules): a prompt evaluated in any
sequence of batches whose sizes are multiples of 4 and at least 8 gives
bit-for-bit the same KV and logits as any other such sequence, from any
multiple of 4; for Qwen's Q4_K weights a batch of 4, or a size that is not a
multiple of 4, does not, and for both models tokens evaluated one at a time
do not.

`Layout` is that rule for one prompt: the tokens before the last multiple of
`GRAIN` go in such batches (at most `BLOCK` tokens each), the few after it and
the last token go one at a time. A saved or still-resident prefix can then
start evaluation at any multiple of `GRAIN` that leaves a valid batch, and
loading it gives exactly the KV that evaluating it would give: reuse on or
off, and any call order, yield the same tokens for the same seed.

`PrefixStates` keeps states where reuse is likely: every `save_every` tokens
(the shared system + spec block), just before the last token (the k votes of
one decision), where the prompt parts from a recent prompt, and at the starts
of its last `PARAGRAPHS` paragraphs. The last rule is for prompts still to come:
sane's prompts put what siblings share first and part at a paragraph (the second
question about a case after the case, a planted control after the example, a
judge's manipulated text after the source), and a state saved only where a
prompt parts from an *earlier* one is not there when the sibling comes later.
On the demo's 92 calls it cut the evaluated prompt tokens by 7% (9,502 to 8,798).
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

GRAIN = 4  # rows per group in the batched kernels: every batch is a multiple of it
MIN_BATCH = 8  # a smaller batch takes the one-row-at-a-time path
BLOCK = 128  # the largest batch (llama.cpp's n_batch)
PARAGRAPHS = 3  # a state is saved at the start of each of the prompt's last this many paragraphs


@dataclass(frozen=True)
class Layout:
    """How a prompt of `n_tokens` is evaluated, and where a reused prefix may start it."""

    n_tokens: int

    @property
    def end(self) -> int:
        """The last token's position: it is evaluated alone, after everything else."""
        return self.n_tokens - 1

    @property
    def batched(self) -> int:
        """Tokens before this position go in batches; from here to `end` one at a time."""
        return self.end // GRAIN * GRAIN

    def can_start(self, position: int) -> bool:
        """Whether a prefix of `position` tokens, evaluated in this layout, may be reused."""
        if position == self.end or position == 0:
            return position >= 0
        rest = self.batched - position
        return position % GRAIN == 0 and (rest == 0 or rest >= MIN_BATCH)

    def starts(self, limit: int) -> Iterable[int]:
        """Valid starts inside the batched part, at most `limit`, longest first (0 excluded).

        `end` is left out: the tokens before it are evaluated one at a time, so
        only a state that ended the same way (the same prompt up to its last
        token) may start there.
        """
        top = min(limit, self.batched) // GRAIN * GRAIN
        for position in range(top, 0, -GRAIN):
            if self.can_start(position):
                yield position

    def steps(self, start: int, stops: Iterable[int] = ()) -> list[int]:
        """The positions where each evaluation step ends, from a valid `start`.

        Batches end at the `stops` that leave valid batches on both sides (the
        save points), are cut to at most BLOCK tokens, then the tokens after
        `batched` follow one at a time and the last token alone.
        """
        bounds = [start]
        for stop in sorted(set(stops)):
            if stop % GRAIN == 0 and stop - bounds[-1] >= MIN_BATCH and self.can_start(stop):
                bounds.append(stop)
        if self.batched > bounds[-1]:
            bounds.append(self.batched)
        ends: list[int] = []
        for low, high in pairwise(bounds):
            position = low
            while position < high:
                size = min(high - position, BLOCK)
                if 0 < high - position - size < MIN_BATCH:
                    size = high - position - MIN_BATCH  # leave a valid last batch
                position += size
                ends.append(position)
        return ends + list(range(max(start, self.batched) + 1, self.n_tokens + 1))


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
class StateBudget:
    """One byte limit for the saved states of every store that shares it, oldest use out first.

    Why shared: each loaded model has its own store, and a run moves from model to model
    (the agent and oracle while generating, the judges while executing). With a limit per
    model, a finished stage's states stayed resident beside the next stage's; under one
    limit the states in use push them out, so peak memory is one limit, not one per model.
    Each model has its own lock, so two models' calls may touch the budget at once: it
    has a lock of its own.
    """

    max_bytes: int
    used: int = 0
    peak: int = 0  # the most bytes held at once (benchmarks report it)
    _order: OrderedDict[tuple[PrefixStates, tuple[int, ...]], int] = field(
        default_factory=OrderedDict
    )
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def touch(self, store: PrefixStates, key: tuple[int, ...]) -> None:
        with self._lock:
            if (store, key) in self._order:  # another model's call may have just evicted it
                self._order.move_to_end((store, key))

    def add(self, store: PrefixStates, key: tuple[int, ...], size: int) -> None:
        with self._lock:
            self._order[(store, key)] = size
            self.used += size
            while self.used > self.max_bytes:
                (owner, evicted), freed = self._order.popitem(last=False)
                owner._states.pop(evicted, None)
                self.used -= freed
            self.peak = max(self.peak, self.used)

    def drop(self, store: PrefixStates) -> None:
        with self._lock:
            for key in store._states:
                self.used -= self._order.pop((store, key), 0)  # 0: a put not yet counted


@dataclass(eq=False)  # hashed by identity: a budget's entries name their store
class PrefixStates:
    """A least-recently-used store of KV states keyed by the exact token prefix they hold.

    Its bytes count against `budget`, which the stores of several models may share.
    """

    budget: StateBudget
    save_every: int = 512
    enabled: bool = True
    stats: PrefixStats = field(default_factory=PrefixStats)
    _states: dict[tuple[int, ...], bytes] = field(default_factory=dict)
    _recent: deque[np.ndarray] = field(default_factory=lambda: deque(maxlen=64))

    def longest(self, tokens: list[int]) -> tuple[int, bytes | None]:
        """The longest saved prefix of `tokens` that may start it (never the whole prompt)."""
        if self.enabled:
            layout = Layout(len(tokens))
            for n in [layout.end, *layout.starts(layout.end)]:
                key = tuple(tokens[:n])
                state = self._states.get(key)
                if state is not None:
                    self.budget.touch(self, key)
                    return n, state
        return 0, None

    def save_points(self, tokens: list[int], paragraphs: Sequence[int] = ()) -> set[int]:
        """Where to save states while evaluating `tokens` (and remember the prompt).

        `paragraphs` are the positions where the prompt's paragraphs start (the token
        after a blank line); the last `PARAGRAPHS` of them inside the batched part are
        saved, each at the valid start at or before it.
        """
        if not self.enabled:
            return set()
        layout = Layout(len(tokens))
        points = set(range(self.save_every, layout.batched, self.save_every)) | {layout.end}
        inside = [p for p in paragraphs if p < layout.batched]
        for start in inside[-PARAGRAPHS:]:
            points.add(next(iter(layout.starts(start)), 0))
        current = np.asarray(tokens)
        for previous in self._recent:
            points.add(next(iter(layout.starts(shared_length(previous, current))), 0))
        self._recent.append(current)
        return {p for p in points if p > 0}

    def put(self, tokens: list[int], state: bytes) -> None:
        if not self.enabled or len(state) > self.budget.max_bytes:
            return
        key = tuple(tokens)
        if key in self._states:
            self.budget.touch(self, key)
            return
        self._states[key] = state
        self.budget.add(self, key, len(state))  # may evict any sharing store's oldest states

    def record(self, prompt_tokens: int, reused_tokens: int) -> None:
        self.stats.calls += 1
        self.stats.prompt_tokens += prompt_tokens
        self.stats.reused_tokens += reused_tokens

    def clear(self) -> None:
        self.budget.drop(self)
        self._states.clear()


def shared_length(first: np.ndarray | list[int], second: np.ndarray | list[int]) -> int:
    """How many leading tokens two prompts share."""
    a, b = np.asarray(first), np.asarray(second)
    n = min(len(a), len(b))
    differ = np.flatnonzero(a[:n] != b[:n])
    return int(differ[0]) if len(differ) else n
