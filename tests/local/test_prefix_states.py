"""The prefix-state store: boundaries, longest match, byte budget."""

from __future__ import annotations

from sane.local.prefix_states import PrefixStates


def test_boundaries_are_block_multiples_and_the_token_before_the_last():
    states = PrefixStates(block=4, max_bytes=100)
    assert states.boundaries(11) == [10, 8, 4]
    assert states.boundaries(9) == [8, 4]  # 8 is both
    assert states.boundaries(1) == []


def test_longest_saved_prefix_wins_and_never_the_whole_prompt():
    states = PrefixStates(block=4, max_bytes=100)
    tokens = list(range(11))
    states.put(tokens[:4], b"a")
    states.put(tokens[:8], b"bb")
    states.put(tokens, b"whole")  # a whole prompt is never a boundary
    assert states.longest(tokens) == (8, b"bb")
    assert states.longest([*tokens[:5], 99, 98, 97, 96]) == (4, b"a")
    assert states.longest([99, *tokens[1:]]) == (0, None)


def test_the_byte_budget_evicts_the_least_recently_used():
    states = PrefixStates(block=2, max_bytes=5)
    states.put([1, 2], b"xx")
    states.put([3, 4], b"yy")
    assert states.longest([1, 2, 9]) == (2, b"xx")  # touch [1, 2]
    states.put([5, 6], b"zz")  # over budget: [3, 4] goes
    assert states.longest([3, 4, 9]) == (0, None)
    assert states.longest([1, 2, 9]) == (2, b"xx")


def test_disabled_store_saves_and_finds_nothing():
    states = PrefixStates(block=2, max_bytes=100, enabled=False)
    states.put([1, 2], b"xx")
    assert states.longest([1, 2, 3]) == (0, None)
    assert states.save_points([1, 2, 3]) == set()


def test_states_are_saved_periodically_before_the_last_token_and_where_prompts_part():
    states = PrefixStates(block=4, max_bytes=100, save_every=8)
    first = list(range(20))
    assert states.save_points(first) == {8, 16, 19}
    second = [*range(13), 99, 98, 97, 96, 95, 94]  # parts from the first at position 13
    assert states.save_points(second) == {8, 12, 16, 18}


def test_hit_rate_counts_reused_prompt_tokens():
    states = PrefixStates(block=2, max_bytes=100)
    states.record(10, 0)
    states.record(10, 8)
    assert states.stats.hit_rate == 0.4
