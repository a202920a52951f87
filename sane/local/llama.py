"""Chat with the embedded GGUF instruction models through llama-cpp-python.

This is the offline default behind the `local/<name>` litellm provider: no API
key, no hub, only the verified files from `sane.local.assets`. A model is
loaded once per process (loading Qwen2.5-Coder-1.5B takes seconds, a chat call
far less), and a JSON schema turns into llama.cpp's grammar-constrained
decoding, so a structured answer is valid JSON of the right shape by
construction rather than by hope; a schema whose whole answer is one of a few
strings (an answer-only vote) is read as one choice at the position after the
reply's fixed opening (`Choice`), with no decode step. llama.cpp contexts are not
thread-safe, so each loaded model has its own lock.

Prompts are evaluated in a fixed layout (blocks of `BLOCK` tokens aligned to
position 0, then the last prompt token alone) so that a saved prefix state
(`sane.local.prefix_states`) can stand in for evaluating the prefix without
changing a single logit: the shared system + spec block of every prompt and
the k identical prompts of one vote are computed once, and the same seed gives
the same answer whatever was cached or called before. Before the first model
is loaded, the CPU module of a dispatch build is registered and the installed
library's build is checked against this CPU (`sane.local.cpu_build`), so a
native or AMX build is refused with a clear message instead of dying with
SIGILL mid-run.
"""

from __future__ import annotations

import atexit
import ctypes
import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from sane.errors import LLMError
from sane.local import cpu_build
from sane.local.assets import resolve
from sane.local.prefix_states import (
    BLOCK,
    Layout,
    PrefixStates,
    PrefixStats,
    StateBudget,
    shared_length,
)

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

log = logging.getLogger(__name__)

PROVIDER_PREFIX = "local/"
N_CTX = 4096
# Saved prefix states of all loaded models together (a 2,000-token Qwen state is about 57 MB):
# one budget, so a finished stage's states make way for the next stage's model
PREFIX_STATE_BYTES = 384 * 2**20
prefix_budget = StateBudget(PREFIX_STATE_BYTES)
# Sampling as llama-cpp-python's chat completion does it by default.
TOP_K, TOP_P, MIN_P = 40, 0.95, 0.05
PREFIX_REUSE_ENV = "SANE_LOCAL_PREFIX_REUSE"  # "0" turns reuse off (benchmarks compare both)
GENERATION_THREADS_ENV = "SANE_LOCAL_GENERATION_THREADS"  # a number overrides the default


@dataclass(frozen=True)
class LocalCompletion:
    """One chat answer with its token counts and where the time went."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    reused_tokens: int = 0
    prefill_s: float = 0.0
    generate_s: float = 0.0


@dataclass(frozen=True)
class Resident:
    """The prompt whose KV the context holds: its tokens before the last, and its batched part."""

    tokens: list[int]
    batched: int


@dataclass
class LoadedModel:
    llm: Llama
    lock: threading.Lock
    load_seconds: float
    prefixes: PrefixStates
    resident: Resident | None = None
    # token -> whether its text ends a paragraph (ends in a blank line), read as met
    ends_paragraph: dict[int, bool] = field(default_factory=dict)

    def forget(self) -> None:
        """Drop every reusable prefix: the saved states and the one the context holds."""
        self.prefixes.clear()
        self.resident = None


_loaded: dict[tuple[str, bool], LoadedModel] = {}
_loading = threading.Lock()


def model_name(name: str) -> str:
    """`local/qwen2.5-coder-1.5b` and `qwen2.5-coder-1.5b` name the same model."""
    return name.removeprefix(PROVIDER_PREFIX)


def physical_cores() -> int:
    """Cores this process may run on, one per physical core (llama.cpp gains nothing from SMT)."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    cores: set[tuple[str, str]] = set()
    for cpu in cpus:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "physical_package_id") as package, open(base + "core_id") as core:
                cores.add((package.read().strip(), core.read().strip()))
        except OSError:
            return len(cpus) or os.cpu_count() or 1
    return len(cores) or os.cpu_count() or 1


def generation_threads(cores: int) -> int:
    """Threads for one-token steps (generation): half the physical cores, at least one.

    Prompt evaluation is compute-bound and uses every core. Generating one token
    is bound by memory bandwidth: on two cores a second thread buys 30-50% more
    tokens per second for 30-50% more CPU time (measured on two 2-core EPYCs, Zen 4
    and an AVX2-only one: 1 thread 50 and 160 CPU-ms per token, 2 threads 65 and
    245), most of it spent waiting. `SANE_LOCAL_GENERATION_THREADS` chooses wall
    time over CPU time.
    """
    chosen = os.environ.get(GENERATION_THREADS_ENV, "").strip()
    if chosen:
        if not chosen.isdigit() or int(chosen) < 1:
            raise LLMError(
                PROVIDER_PREFIX.rstrip("/"),
                f"{GENERATION_THREADS_ENV} must be a positive whole number, not {chosen!r}",
            )
        return int(chosen)
    return max(1, cores // 2)


@cache
def check_runtime() -> None:
    """Refuse an installed llama.cpp build that this CPU cannot run (checked once per process)."""
    problems = cpu_build.runtime_problems()
    if problems:
        raise LLMError(
            PROVIDER_PREFIX.rstrip("/"),
            "the installed llama-cpp-python cannot run safely on this CPU ("
            + "; ".join(problems)
            + "); rebuild it with `bash scripts/setup.sh`",
        )


def load(name: str, *, logits_all: bool = False) -> LoadedModel:
    """The process-wide instance of a GGUF model, loaded (and hash-verified) on first use.

    `logits_all` keeps the logits of every position, which the likelihood helper
    needs and chat does not; the two uses get separate instances.
    """
    key = (model_name(name), logits_all)
    with _loading:
        if key not in _loaded:
            check_runtime()
            from llama_cpp import Llama

            path = resolve(key[0])
            started = time.perf_counter()
            threads = physical_cores()
            llm = Llama(
                model_path=str(path),
                n_ctx=N_CTX,
                n_batch=BLOCK,
                n_ubatch=BLOCK,
                n_threads=generation_threads(threads),
                n_threads_batch=threads,
                logits_all=logits_all,
                # Read, not mapped: the CPU backend repacks the Q4_K weights into its own
                # buffer, and a mapped file's pages, touched to repack them, stayed resident
                # too (Qwen 1.5B: 1.84 GB after loading mapped, 1.25 GB read)
                use_mmap=False,
                verbose=False,
            )
            seconds = time.perf_counter() - started
            log.info("loaded local model %s in %.1f s", key[0], seconds)
            prefixes = PrefixStates(
                budget=prefix_budget,
                enabled=os.environ.get(PREFIX_REUSE_ENV, "1") != "0",
            )
            _loaded[key] = LoadedModel(llm, threading.Lock(), seconds, prefixes)
        return _loaded[key]


def unload_all() -> None:
    """Close every loaded model (tests use it to force a fresh, verified load).

    Also run at exit: a model left to the interpreter's teardown is freed after
    llama.cpp's own bindings are gone, which prints a spurious traceback.
    """
    with _loading:
        for loaded in _loaded.values():
            loaded.forget()  # its saved states leave the shared budget with it
            loaded.llm.close()
        _loaded.clear()


atexit.register(unload_all)


def prefix_stats() -> dict[str, PrefixStats]:
    """Prefix reuse so far, per loaded chat model."""
    return {name: m.prefixes.stats for (name, all_), m in _loaded.items() if not all_}


@lru_cache(maxsize=4)  # bounded: an unloaded model's formatter must not live forever
def _formatter(llm: Llama) -> Jinja2ChatFormatter:
    """The model's own chat template (from its GGUF metadata), as llama-cpp-python applies it."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        raise LLMError(PROVIDER_PREFIX.rstrip("/"), "the model file carries no chat template")

    def token_text(token: int) -> str:
        return llm._model.token_get_text(token) if token >= 0 else ""

    return Jinja2ChatFormatter(
        template=template,
        eos_token=token_text(llm.token_eos()),
        bos_token=token_text(llm.token_bos()),
        stop_token_ids=[llm.token_eos()],
    )


def prompt_tokens(llm: Llama, messages: list[dict[str, str]]) -> tuple[list[int], list[str]]:
    """The chat-formatted prompt as tokens, and the template's stop strings."""
    formatted = _formatter(llm)(messages=messages)
    tokens = llm.tokenize(
        formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True
    )
    stop = formatted.stop if isinstance(formatted.stop, list) else [formatted.stop]
    return tokens, [s for s in stop if s]


def _seq_state(llm: Llama) -> bytes:
    import llama_cpp

    size = llama_cpp.llama_state_seq_get_size(llm.ctx, 0)
    buffer = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_seq_get_data(llm.ctx, buffer, size, 0)
    # One memcpy: slicing a c_uint8 array would build a list of `written` ints first
    # (tens of millions for a 2,000-token state, seconds of CPU and half a GB per save).
    return ctypes.string_at(buffer, written)


def _load_seq_state(llm: Llama, state: bytes, tokens: list[int]) -> None:
    import llama_cpp

    buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
    if llama_cpp.llama_state_seq_set_data(llm.ctx, buffer, len(state), 0) != len(state):
        raise RuntimeError("llama.cpp refused a saved prefix state")
    llm.input_ids[: len(tokens)] = tokens


def _resident_start(model: LoadedModel, tokens: list[int]) -> int:
    """How much of `tokens` the context still holds from the previous prompt, in the layout."""
    resident = model.resident
    if not model.prefixes.enabled or resident is None:
        return 0
    layout = Layout(len(tokens))
    shared = shared_length(resident.tokens, tokens[: layout.end])
    if shared == layout.end == len(resident.tokens):
        return layout.end  # the same prompt again (another vote): only its last token is new
    return next(iter(layout.starts(min(shared, resident.batched))), 0)


def paragraph_starts(model: LoadedModel, tokens: list[int]) -> list[int]:
    """Positions where a paragraph of the prompt starts: after a token whose text ends in a
    blank line (the tokenizer may join it to the text before it, as in `>\n\n`)."""
    ends = model.ends_paragraph
    starts = []
    for position, token in enumerate(tokens, 1):
        if token not in ends:
            text = model.llm.detokenize([token]).decode("utf-8", "ignore")
            ends[token] = text.endswith("\n\n")
        if ends[token]:
            starts.append(position)
    return starts


def _prefill(model: LoadedModel, tokens: list[int]) -> int:
    """Evaluate the prompt in its fixed layout, from the longest reusable prefix; returns its length.

    The prefix comes from the KV the context still holds (the previous prompt,
    trimmed where the two part) or from a saved state, whichever is longer.
    """
    llm, prefixes = model.llm, model.prefixes
    layout = Layout(len(tokens))
    saved, state = prefixes.longest(tokens)
    resident = _resident_start(model, tokens)
    model.resident = None  # until this prompt's KV is in place
    if resident >= saved:
        llm._ctx.kv_cache_seq_rm(0, resident, -1)  # drop the rest (and the previous answer)
        reused = resident
    else:
        llm._ctx.kv_cache_clear()
        _load_seq_state(llm, state, tokens[:saved])  # type: ignore[arg-type]
        reused = saved
    llm.n_tokens = reused
    paragraphs = paragraph_starts(model, tokens) if prefixes.enabled else ()
    save_points = prefixes.save_points(tokens, paragraphs)
    position = reused
    for stop in layout.steps(reused, save_points):
        llm.eval(tokens[position:stop])
        position = stop
        if position in save_points:
            prefixes.put(tokens[:position], _seq_state(llm))
    model.resident = Resident(tokens[: layout.end], layout.batched)
    prefixes.record(len(tokens), reused)
    return reused


@dataclass(frozen=True)
class Choice:
    """A JSON schema whose whole answer is one of a few strings: `{"<field>": "<value>"}`.

    An answer-only vote is such a schema. Generating it token by token spends a decode
    step on every token of `{"decision": "yes"}` although only `yes` is the model's to
    choose. Instead the reply's fixed opening goes at the end of the prompt (evaluated with
    it, in its batches, and shared by the k votes of one decision) and the value is
    sampled, with the call's own sampling chain and seed, among the values' first tokens
    after it: no decode step at all. A schema whose values share a first token is
    generated as usual.
    """

    field: str
    values: tuple[str, ...]

    @classmethod
    def of(cls, schema: dict[str, Any] | None) -> Choice | None:
        schema = schema or {}
        properties = schema.get("properties") or {}
        if schema.get("type") != "object" or len(properties) != 1:
            return None
        ((field, spec),) = properties.items()
        values = spec.get("enum") if isinstance(spec, dict) else None
        if schema.get("required") != [field] or not values:
            return None
        if not all(isinstance(v, str) for v in values):
            return None
        return cls(field, tuple(values))

    @property
    def opening(self) -> str:
        return "{" + json.dumps(self.field) + ': "'

    def reply(self, value: str) -> str:
        return self.opening + json.dumps(value)[1:] + "}"

    def first_tokens(self, llm: Llama) -> dict[int, str] | None:
        """Each value by the token that starts it after the opening; None if two share one."""
        opening = llm.tokenize(self.opening.encode("utf-8"), add_bos=False, special=False)
        first: dict[int, str] = {}
        for value in self.values:
            whole = llm.tokenize(self.reply(value).encode("utf-8"), add_bos=False, special=False)
            if whole[: len(opening)] != opening or len(whole) == len(opening):
                return None
            first[whole[len(opening)]] = value
        return first if len(first) == len(self.values) else None


def _choose(llm: Llama, first: dict[int, str], temperature: float, seed: int) -> str:
    """Sample one value among `first` (token -> value) from the last position's logits."""
    import llama_cpp

    logits = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
    ids = list(first)
    data = (llama_cpp.llama_token_data * len(ids))(
        *(llama_cpp.llama_token_data(token, float(logits[token]), 0.0) for token in ids)
    )
    candidates = llama_cpp.llama_token_data_array(data, len(ids), -1, False)
    chain = _chain(temperature, seed)
    try:
        llama_cpp.llama_sampler_apply(chain.sampler, ctypes.byref(candidates))
        return first[candidates.data[candidates.selected].id]
    finally:
        chain.close()


def _grammar(json_schema: dict[str, Any] | None) -> Any:
    if json_schema is None:
        return None
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_json_schema(json.dumps(json_schema), verbose=False)


def _chain(temperature: float, seed: int) -> Any:
    """llama-cpp-python's default chat sampling chain (top-k, top-p, min-p, temperature)."""
    from llama_cpp._internals import LlamaSampler

    chain = LlamaSampler()
    chain.add_top_k(TOP_K)
    if temperature <= 0.0:
        chain.add_greedy()
    else:
        chain.add_top_p(TOP_P, 1)
        chain.add_min_p(MIN_P, 1)
        chain.add_temp(temperature)
        chain.add_dist(seed)
    return chain


class _GrammarSampler:
    """Grammar-constrained sampling that checks one token per step, not the vocabulary.

    Applying a grammar to all 150k candidate tokens each step is where
    constrained decoding spends its time. As llama.cpp's own samplers do, a
    token is sampled without the grammar and only checked against it; only when
    it is refused is the grammar applied to the whole vocabulary and the token
    sampled again. The result is the same token the grammar-first chain would
    give whenever the unconstrained choice is valid, and always a valid one.
    """

    def __init__(self, llm: Llama, grammar: Any, temperature: float, seed: int) -> None:
        from llama_cpp._internals import LlamaSampler

        self.llm = llm
        self.chain = _chain(temperature, seed)
        self.grammar: Any = None
        if grammar is not None:
            self.grammar = LlamaSampler()
            self.grammar.add_grammar(llm._model, grammar)
        self.resampled = 0

    def _allowed(self, token: int) -> bool:
        import llama_cpp

        one = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
        candidates = llama_cpp.llama_token_data_array(one, 1, -1, False)
        llama_cpp.llama_sampler_apply(self.grammar.sampler, ctypes.byref(candidates))
        return one[0].logit != float("-inf")

    def _resample(self) -> int:
        import llama_cpp
        import numpy as np

        n_vocab = self.llm.n_vocab()
        logits = np.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(self.llm.ctx, -1), shape=(n_vocab,)
        )
        data = (llama_cpp.llama_token_data * n_vocab)()
        view = np.ctypeslib.as_array(data)
        view["id"] = np.arange(n_vocab)
        view["logit"] = logits
        view["p"] = 0.0
        candidates = llama_cpp.llama_token_data_array(data, n_vocab, -1, False)
        llama_cpp.llama_sampler_apply(self.grammar.sampler, ctypes.byref(candidates))
        llama_cpp.llama_sampler_apply(self.chain.sampler, ctypes.byref(candidates))
        return int(data[candidates.selected].id)

    def sample(self) -> int:
        token = self.chain.sample(self.llm._ctx, -1)
        if self.grammar is None:
            return token
        if not self._allowed(token):
            self.resampled += 1
            token = self._resample()
        return token

    def accept(self, token: int) -> None:
        if self.grammar is not None:
            self.grammar.accept(token)

    def close(self) -> None:
        self.chain.close()
        if self.grammar is not None:
            self.grammar.close()


def _generate(
    llm: Llama, *, grammar: Any, temperature: float, seed: int, max_tokens: int, stop: list[str]
) -> tuple[list[int], str]:
    """Sample up to max_tokens after the prefilled prompt; stops at an end token or stop string."""
    import llama_cpp

    sampler = _GrammarSampler(llm, grammar, temperature, seed)
    vocab = llm._model.vocab
    generated: list[int] = []
    text = ""
    try:
        for _ in range(max_tokens):
            token = sampler.sample()
            if llama_cpp.llama_vocab_is_eog(vocab, token):
                break
            sampler.accept(token)
            generated.append(token)
            text = llm.detokenize(generated, special=False).decode("utf-8", "ignore")
            hit = next((s for s in stop if s in text), None)
            if hit is not None:
                text = text[: text.index(hit)]
                break
            if llm.n_tokens >= N_CTX:
                break
            llm.eval([token])
    finally:
        sampler.close()
    return generated, text


def next_token_logprobs(
    name: str, messages: list[dict[str, str]], reply_start: str, words: list[str]
) -> dict[str, float]:
    """Log-probability of each word's first token right after `reply_start`.

    The reply is started in the prompt (e.g. `{"answer": "`), so the next token is
    the answer itself: an oracle's answer read without sampling, for probes that
    need the model's preference rather than one draw (`experiments/oracle_logits.py`).
    Evaluated in the same fixed layout as `chat`, from any reusable prefix.
    """
    import llama_cpp
    import numpy as np

    model = load(name)
    llm = model.llm
    with model.lock:
        tokens, _ = prompt_tokens(llm, messages)
        tokens += llm.tokenize(reply_start.encode("utf-8"), add_bos=False, special=False)
        if len(tokens) + 1 > N_CTX:
            raise LLMError(PROVIDER_PREFIX + model_name(name), "the prompt is over the context")
        _prefill(model, tokens)
        logits = np.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(llm.n_vocab(),)
        ).astype(np.float64)
    top = logits.max()
    log_total = top + float(np.log(np.exp(logits - top).sum()))
    first = {w: llm.tokenize(w.encode("utf-8"), add_bos=False, special=False)[0] for w in words}
    return {word: float(logits[token] - log_total) for word, token in first.items()}


def chat(
    name: str,
    messages: list[dict[str, str]],
    *,
    json_schema: dict[str, Any] | None = None,
    temperature: float = 0.0,
    seed: int = 0,
    max_tokens: int = 512,
) -> LocalCompletion:
    """One chat completion; with `json_schema` the output is constrained to that schema.

    A failure inside llama.cpp (e.g. a prompt longer than the context) is an
    LLMError, never an empty answer.
    """
    model = load(name)
    llm = model.llm
    choice = Choice.of(json_schema)
    try:
        with model.lock:
            tokens, stop = prompt_tokens(llm, messages)
            first = choice.first_tokens(llm) if choice is not None else None
            if choice is not None and first is not None:
                tokens += llm.tokenize(choice.opening.encode("utf-8"), add_bos=False, special=False)
            if len(tokens) + 1 > N_CTX:
                raise ValueError(
                    f"the prompt is {len(tokens)} tokens, over the {N_CTX}-token context window"
                )
            started = time.perf_counter()
            reused = _prefill(model, tokens)
            prefilled = time.perf_counter()
            if choice is not None and first is not None:
                text = choice.reply(_choose(llm, first, temperature, seed))
                generated = llm.tokenize(
                    text.removeprefix(choice.opening).encode("utf-8"), add_bos=False, special=False
                )
            else:
                generated, text = _generate(
                    llm,
                    grammar=_grammar(json_schema),
                    temperature=temperature,
                    seed=seed,
                    max_tokens=min(max_tokens, N_CTX - len(tokens)),
                    stop=stop,
                )
            finished = time.perf_counter()
    except (ValueError, RuntimeError) as error:
        raise LLMError(PROVIDER_PREFIX + model_name(name), str(error)) from error
    return LocalCompletion(
        text=text,
        prompt_tokens=len(tokens),
        completion_tokens=len(generated),
        reused_tokens=reused,
        prefill_s=prefilled - started,
        generate_s=finished - prefilled,
    )
