"""Analyses for the ``analyse`` request run in worker processes, within a time budget.

An analysis plays out hundreds of rounds: far more than the event loop may spend on
one request. The server hands the asking seat's view and the table's rules (an
:class:`AnalysisJob`) to a small pool of worker processes of its own, beside the bots'
(:class:`~cambio.server.workers.BotPool`), so an analysis never delays a bot's move
and the loop goes on serving every connection meanwhile. The analysis stops drawing
rounds once its budget of seconds has passed; a worker that still has not answered
after twice that long is given up on. At most ``waiting`` analyses are queued or
running at once, all tables together; one more is refused with ``rate-limited``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool

import attrs

from ..analysis import Analysis, AnalysisError, analyse
from ..protocol import ProtocolError
from ..rules import RuleSet
from ..views import PlayerView
from .workers import process_pool

__all__ = ["AnalysisJob", "AnalysisPool", "run_job"]


@attrs.frozen
class AnalysisJob:
    """One analysis to run: a seat's view, the table's rules and the budget."""

    view: PlayerView
    rules: RuleSet
    samples: int
    seconds: float
    seed: int | None


def run_job(job: AnalysisJob) -> Analysis | str:
    """:func:`cambio.analyse` of ``job`` (in a worker process), or the message of the
    :class:`~cambio.AnalysisError` that refused the position."""
    try:
        return analyse(job.view, job.rules, samples=job.samples, seconds=job.seconds, seed=job.seed)
    except AnalysisError as error:
        return str(error)


class AnalysisPool:
    """Worker processes that run analyses (started at the first one)."""

    def __init__(self, workers: int = 1, waiting: int = 4) -> None:
        self.workers = workers
        self.waiting = waiting
        """The most analyses queued or running at once."""
        self.running = 0
        self.run: Callable[[AnalysisJob], Analysis | str] = run_job
        """What a worker runs (a picklable module-level function)."""
        self._pool: Executor | None = None

    def _executor(self) -> Executor:
        if self._pool is None:
            self._pool = process_pool(self.workers)
        return self._pool

    async def analyse(self, job: AnalysisJob) -> Analysis:
        """The analysis of ``job``; a :class:`~cambio.protocol.ProtocolError` when the
        pool is full (``rate-limited``), the position has no decision to analyse
        (``illegal-action``) or the worker did not answer in time (``internal``)."""
        if self.running >= self.waiting:
            raise ProtocolError(
                "rate-limited",
                f"the server is running {self.waiting} analyses already: ask again shortly",
            )
        self.running += 1
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(self._executor(), self.run, job)
            result = await asyncio.wait_for(future, 2 * job.seconds + 1)
        except (TimeoutError, asyncio.TimeoutError):
            raise ProtocolError(
                "internal", f"the analysis took longer than {job.seconds:g} seconds"
            ) from None
        except BrokenProcessPool:  # a worker died (killed, out of memory): start anew
            self._pool = None
            raise ProtocolError("internal", "the analysis failed: ask again") from None
        except Exception as error:  # the analysis itself failed: the table is unchanged
            raise ProtocolError("internal", f"the analysis failed: {error}") from None
        finally:
            self.running -= 1
        if isinstance(result, str):
            raise ProtocolError("illegal-action", result, "$.seat")
        return result

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
