"""A wall-clock limit on a block of Python code: the time one attempt at an instance may take.

In the main thread a ``SIGALRM`` timer interrupts the block (a pure-Python loop, a ``sleep``, a template that never
ends); elsewhere a watchdog thread raises the same exception in the limited thread. Code inside a C call that
never returns to the interpreter is interrupted only when it does.

``TimeLimit`` derives from ``BaseException``, as ``KeyboardInterrupt`` does, so that a plugin's ``except
Exception`` cannot swallow it; the timer also fires again every second until the block ends, should a bare
``except:`` catch it anyway.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

REPEAT_S = 1.0  # the timer fires again this often until the limited block ends


class TimeLimit(BaseException):  # noqa: N818 - like KeyboardInterrupt: not an error of the code it interrupts
    """The limited block ran out of time."""


class Budget:
    """Seconds shared by several blocks: each ``running()`` block gets what the earlier ones left."""

    def __init__(self, seconds: float):
        self.seconds = float(seconds)
        self.left = float(seconds)

    @contextmanager
    def running(self) -> Iterator[None]:
        if self.left <= 0:
            raise TimeLimit(f"timed out after {self.seconds:g} s")
        t0 = time.monotonic()
        try:
            with time_limit(self.left, f"timed out after {self.seconds:g} s"):
                yield
        finally:
            self.left -= time.monotonic() - t0


@contextmanager
def time_limit(seconds: float, message: str) -> Iterator[None]:
    """Raise ``TimeLimit(message)`` in this thread if the block runs longer than ``seconds``."""
    if threading.current_thread() is threading.main_thread():
        with _alarm(seconds, message):
            yield
    else:
        with _watchdog(seconds, message):
            yield


@contextmanager
def _alarm(seconds: float, message: str) -> Iterator[None]:
    armed = [True]

    def expire(signum: int, frame: Any) -> None:
        if armed[0]:
            raise TimeLimit(message)

    previous = signal.signal(signal.SIGALRM, expire)
    outer_delay, outer_interval = signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3), REPEAT_S)
    t0 = time.monotonic()
    try:
        yield
    finally:
        armed[0] = False  # first: a signal that lands while the timer is being cleared changes nothing
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_delay > 0:  # an outer timer (another limit, a test harness) keeps what is left of its time
            left = outer_delay - (time.monotonic() - t0)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), outer_interval)


@contextmanager
def _watchdog(seconds: float, message: str) -> Iterator[None]:
    """Off the main thread no signal can reach the block: a thread raises ``TimeLimit`` in it asynchronously (the
    interpreter delivers it at the limited thread's next bytecode)."""
    target = ctypes.c_ulong(threading.get_ident())
    done = threading.Event()

    def watch() -> None:
        if done.wait(seconds):
            return
        while not done.is_set():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(target, ctypes.py_object(TimeLimit))
            done.wait(REPEAT_S)

    watcher = threading.Thread(target=watch, name="mirforge-time-limit", daemon=True)
    watcher.start()
    try:
        yield
    except TimeLimit as exc:
        if exc.args:
            raise
        raise TimeLimit(message) from None  # raised by type, without the message
    finally:
        done.set()
        watcher.join()
        ctypes.pythonapi.PyThreadState_SetAsyncExc(target, None)  # one set just before the end: dropped
