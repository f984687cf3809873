"""Bots decide in worker processes, so a table of search bots never delays another table.

The event loop hands each decision a bot owes (a :class:`~cambio.protocol.BotTurn`: the
bot's view, its choices and the decision's seed) to a pool of worker processes, and
goes on serving every other connection meanwhile. A decision that takes longer than
the time budget is answered in the server by the memory bot instead (a few
milliseconds), so a table never waits long for a slow bot; the late answer is dropped.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..actions import Action
from ..bots import MemoryBot
from ..protocol import BotTurn, decide_turn

__all__ = ["BotPool", "default_workers", "process_pool"]


def default_workers() -> int:
    """One worker per core but one (the event loop's), and at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


def _fallback(turn: BotTurn) -> Action | None:
    """The memory bot's answer: what a decision over its budget gets."""
    bot = MemoryBot()
    bot.reset(turn.seat, turn.rules, turn.seed)
    if turn.kind == "react":
        return bot.react(turn.view, turn.choices)
    return bot.act(turn.view, turn.choices)


def process_pool(workers: int) -> ProcessPoolExecutor:
    """``workers`` worker processes, each forked from a clean process (forkserver, where
    the platform has it), never from the server's (its threads and sockets)."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=context)


class BotPool:
    """Worker processes that take bots' decisions (started at the first one)."""

    def __init__(self, workers: int = 0, seconds: float = 10.0) -> None:
        self.workers = workers or default_workers()
        self.seconds = seconds
        """The time budget of one decision, in seconds."""
        self._pool: Executor | None = None
        self.late = 0
        """Decisions answered by the fallback because a worker was over its budget."""

    def _executor(self) -> Executor:
        if self._pool is None:
            self._pool = process_pool(self.workers)
        return self._pool

    async def decide(self, turn: BotTurn) -> Action | None:
        """The bot's answer to ``turn``, from a worker within the budget, else the
        memory bot's."""
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(self._executor(), decide_turn, turn)
            return await asyncio.wait_for(future, self.seconds)
        except (TimeoutError, asyncio.TimeoutError):
            self.late += 1
        except BrokenProcessPool:  # a worker died (killed, out of memory): start anew
            self._pool = None
        return _fallback(turn)

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
