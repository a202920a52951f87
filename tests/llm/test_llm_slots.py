"""The client's concurrency slots: waiting calls are served by rank, then arrival, and a
cancelled waiter neither takes nor loses a slot."""

from __future__ import annotations

import asyncio

from sane.llm._slots import CALL_RANK, RankedSlots, current_rank, ranked


async def test_waiters_are_served_lowest_rank_first_then_in_arrival_order() -> None:
    slots = RankedSlots(1)
    served: list[str] = []
    release = asyncio.Event()

    async def call(name: str, rank: int) -> None:
        async with slots.hold(rank):
            served.append(name)
            if name == "first":
                await release.wait()

    first = asyncio.create_task(call("first", 9))
    await asyncio.sleep(0)
    waiting = [
        asyncio.create_task(call(name, rank))
        for name, rank in (("late-chain", 5), ("gate-a", 1), ("gate-b", 1), ("tail", 7))
    ]
    await asyncio.sleep(0)
    release.set()
    await asyncio.gather(first, *waiting)
    assert served == ["first", "gate-a", "gate-b", "late-chain", "tail"]


async def test_without_ranks_it_is_first_come_first_served() -> None:
    slots = RankedSlots(2)
    served: list[int] = []

    async def call(i: int) -> None:
        async with slots.hold():
            served.append(i)
            await asyncio.sleep(0.001)

    await asyncio.gather(*(call(i) for i in range(8)))
    assert served == list(range(8))


async def test_a_cancelled_waiter_leaves_the_slots_as_they_were() -> None:
    slots = RankedSlots(1)
    holder_may_go = asyncio.Event()

    async def holder() -> None:
        async with slots.hold():
            await holder_may_go.wait()

    held = asyncio.create_task(holder())
    await asyncio.sleep(0)
    cancelled = asyncio.create_task(slots.hold().__aenter__())
    await asyncio.sleep(0)
    cancelled.cancel()
    holder_may_go.set()
    await held
    # the one slot is free again: two calls in turn both get it, without waiting forever
    for _ in range(2):
        async with asyncio.timeout(1):
            async with slots.hold():
                pass


def test_ranked_sets_the_rank_only_inside() -> None:
    assert CALL_RANK.get() == 0
    with ranked(3):
        assert CALL_RANK.get() == 3
        with ranked(1):
            assert CALL_RANK.get() == 1
        assert CALL_RANK.get() == 3
    assert CALL_RANK.get() == 0


def test_a_rank_function_is_asked_when_a_call_starts_waiting() -> None:
    level = {"now": 4}
    with ranked(lambda: level["now"]):
        assert current_rank() == 4
        level["now"] = 2  # the family's work ahead changed before its next call
        assert current_rank() == 2
    assert current_rank() == 0
