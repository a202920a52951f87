"""The evaluation layout (which prefixes may be reused) and the prefix-state store."""

from __future__ import annotations

import random

import pytest

from sane.local.prefix_states import BLOCK, GRAIN, MIN_BATCH, Layout, PrefixStates, StateBudget


def _batches(layout: Layout, start: int, stops: set[int] = frozenset()) -> list[int]:
    ends = layout.steps(start, stops)
    return [b - a for a, b in zip([start, *ends], ends, strict=False)]


def test_the_batched_part_ends_at_the_last_multiple_of_the_grain_before_the_last_token():
    assert Layout(11).end == 10 and Layout(11).batched == 8
    assert Layout(9).batched == 8  # the last token is always alone
    assert Layout(1).batched == 0


def test_a_prefix_may_start_only_where_every_remaining_batch_is_valid():
    layout = Layout(30)  # end 29, batched 28
    assert [p for p in range(30) if layout.can_start(p)] == [0, 4, 8, 12, 16, 20, 28, 29]
    assert list(layout.starts(29)) == [28, 20, 16, 12, 8, 4]  # 24 would leave a batch of 4
    assert list(layout.starts(14)) == [12, 8, 4]


@pytest.mark.parametrize("n_tokens", [2, 9, 13, 14, 130, 133, 300, 517, 1030])
def test_every_step_is_a_valid_batch_then_single_tokens(n_tokens: int):
    rng = random.Random(n_tokens)
    layout = Layout(n_tokens)
    for start in [0, *layout.starts(layout.end)]:
        stops = {rng.randrange(1, n_tokens) for _ in range(5)} | {layout.end}
        ends = layout.steps(start, stops)
        assert ends[-1] == n_tokens and ends == sorted(set(ends))
        sizes = _batches(layout, start, stops)
        batched = [s for s, e in zip(sizes, ends, strict=False) if e <= layout.batched]
        singles = sizes[len(batched) :]
        assert all(s % GRAIN == 0 and MIN_BATCH <= s <= BLOCK for s in batched)
        assert singles == [1] * (n_tokens - max(start, layout.batched))
        # a kept stop is a step end, so a state can be saved exactly there
        assert all(stop in ends for stop in stops if stop % GRAIN == 0 and stop in ends)


def test_a_long_run_is_cut_so_its_last_batch_stays_valid():
    assert _batches(Layout(137), 0) == [128, 8, 1]  # 136 batched tokens, then the last
    assert _batches(Layout(133), 0) == [124, 8, 1]  # 132 = 128 + 4 would leave a batch of 4


def test_a_stop_that_would_leave_a_short_batch_is_skipped():
    layout = Layout(41)  # batched 40
    assert layout.steps(0, {36}) == [40, 41]  # 36 would leave a batch of 4
    assert layout.steps(0, {16}) == [16, 40, 41]


def test_longest_saved_prefix_wins_and_only_where_it_may_start_the_prompt():
    states = PrefixStates(StateBudget(100))
    tokens = list(range(30))  # end 29, batched 28
    states.put(tokens[:8], b"a")
    states.put(tokens[:16], b"bb")
    assert states.longest(tokens) == (16, b"bb")
    assert states.longest([*tokens[:12], 99, *tokens[13:]]) == (8, b"a")
    assert states.longest([99, *tokens[1:]]) == (0, None)
    states.put(tokens[:29], b"end")  # just before the last token: another vote on it
    assert states.longest(tokens) == (29, b"end")
    # a longer prompt evaluates those 29 tokens in batches up to 28: the state does not fit
    assert states.longest([*tokens, 30, 31]) == (16, b"bb")


def test_the_byte_budget_evicts_the_least_recently_used():
    states = PrefixStates(StateBudget(5))
    first, second, third = ([k] * 12 for k in (1, 2, 3))  # 12 tokens: 8 may start them
    states.put(first[:8], b"xx")
    states.put(second[:8], b"yy")
    assert states.longest(first)[0] == 8  # touch the first
    states.put(third[:8], b"zz")  # over budget: the second goes
    assert states.longest(second) == (0, None)
    assert states.longest(first) == (8, b"xx")


def test_models_sharing_a_budget_push_out_each_others_oldest_states():
    """One limit for all loaded models: the stage in use evicts a finished stage's states."""
    budget = StateBudget(5)
    agent, judge = PrefixStates(budget), PrefixStates(budget)
    first, second, third = ([k] * 12 for k in (1, 2, 3))
    agent.put(first[:8], b"aa")
    agent.put(second[:8], b"bb")
    judge.put(third[:8], b"ccc")  # 7 bytes held: the agent's oldest state goes
    assert agent.longest(first) == (0, None)
    assert agent.longest(second) == (8, b"bb")
    assert judge.longest(third) == (8, b"ccc")
    assert (budget.used, budget.peak) == (5, 5)
    judge.clear()  # a closed model's states leave the budget with it
    assert budget.used == 2
    assert agent.longest(second) == (8, b"bb")
    judge.put(first[:8], b"dddddd")  # larger than the whole budget: never saved
    assert (judge.longest(first), budget.used) == ((0, None), 2)


def test_disabled_store_saves_and_finds_nothing():
    states = PrefixStates(StateBudget(100), enabled=False)
    states.put(list(range(8)), b"xx")
    assert states.longest(list(range(12))) == (0, None)
    assert states.save_points(list(range(12))) == set()


def test_states_are_saved_periodically_before_the_last_token_and_where_prompts_part():
    states = PrefixStates(StateBudget(100), save_every=16)
    first = list(range(40))  # end 39, batched 36
    assert states.save_points(first) == {16, 32, 39}
    second = [*range(22), *range(100, 118)]  # parts from the first at 22
    assert states.save_points(second) == {16, 20, 32, 39}


def test_hit_rate_counts_reused_prompt_tokens():
    states = PrefixStates(StateBudget(100))
    states.record(10, 0)
    states.record(10, 8)
    assert states.stats.hit_rate == 0.4


def test_states_are_saved_where_the_last_paragraphs_start_for_prompts_still_to_come():
    states = PrefixStates(StateBudget(100), save_every=512)
    prompt = list(range(60))  # end 59, batched 56
    # paragraphs start at 10, 22, 33 and 47 (and one in the one-at-a-time tail, at 58)
    points = states.save_points(prompt, paragraphs=[10, 22, 33, 47, 58])
    # the last three inside the batched part, each at the valid start at or before it
    assert points == {20, 32, 44, 59}
    # a later prompt that shares only the first 34 tokens finds the state at 32
    states.put(prompt[:32], b"x")
    sibling = [*prompt[:34], *range(100, 130)]
    assert states.longest(sibling) == (32, b"x")
