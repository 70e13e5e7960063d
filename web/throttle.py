"""Slowing down PIN guessing: growing waits per client and a cap on wrong PINs overall.

A four-digit PIN has only 10,000 values, so the PIN alone does not keep control of a match:
what does is how long trying them takes. Each client (a network address) may get a few PINs
wrong freely; after that it must wait before its next try, and the wait doubles with every
further wrong PIN up to a ceiling. Across all clients together only so many wrong PINs are
accepted in a sliding window, so that many addresses guessing at once gain nothing. A try
made while waiting is refused without looking at the PIN, so it tells the guesser nothing.

The clock is injectable (``clock=``) so that tests and the guessing benchmark run without
sleeping.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ThrottlePolicy:
    """How fast PINs may be tried.

    :raises ValueError: for a negative count or a delay or window that is not positive.
    """

    free_failures: int = 5
    """Wrong PINs a client may send before it has to wait."""
    first_delay_s: float = 1.0
    """The wait after the first wrong PIN past the free ones; it doubles after each further one."""
    max_delay_s: float = 900.0
    """The longest a client waits between two tries."""
    overall_failures: int = 30
    """Wrong PINs accepted from all clients together within ``overall_window_s``."""
    overall_window_s: float = 600.0
    """The sliding window of ``overall_failures``."""
    forget_after_s: float = 3600.0
    """A client with no wrong PIN for this long starts afresh (and is no longer remembered)."""
    max_clients: int = 1024
    """How many clients are remembered before the forgotten ones are dropped."""

    def __post_init__(self) -> None:
        if self.free_failures < 0:
            raise ValueError(f"free_failures must be >= 0, not {self.free_failures}")
        if self.overall_failures < 1:
            raise ValueError(f"overall_failures must be >= 1, not {self.overall_failures}")
        if min(self.first_delay_s, self.max_delay_s, self.overall_window_s, self.forget_after_s) <= 0:
            raise ValueError("the throttle's delays and windows must be positive")

    def delay_after(self, failures: int) -> float:
        """The wait a client has earned after ``failures`` wrong PINs in a row."""
        past = failures - self.free_failures
        if past <= 0:
            return 0.0
        return min(self.max_delay_s, self.first_delay_s * 2.0 ** min(past - 1, 64))


@dataclass
class _Client:
    failures: int = 0
    last_failure: float = 0.0


@dataclass
class PinThrottle:
    """Counts wrong PINs per client and overall, and says how long a client must still wait."""

    policy: ThrottlePolicy = field(default_factory=ThrottlePolicy)
    clock: Callable[[], float] = time.monotonic
    _clients: dict[str, _Client] = field(default_factory=dict, init=False, repr=False)
    _recent: deque[float] = field(default_factory=deque, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def wait(self, client: str) -> float:
        """Seconds before ``client`` may try a PIN (0.0 when it may now)."""
        with self._lock:
            now = self.clock()
            return max(self._client_wait(client, now), self._overall_wait(now))

    def failed(self, client: str) -> None:
        """Record a wrong PIN from ``client``."""
        with self._lock:
            now = self.clock()
            entry = self._clients.get(client)
            if entry is None or now - entry.last_failure >= self.policy.forget_after_s:
                entry = self._clients[client] = _Client()
            entry.failures += 1
            entry.last_failure = now
            self._recent.append(now)
            while len(self._recent) > self.policy.overall_failures:
                self._recent.popleft()
            if len(self._clients) > self.policy.max_clients:
                self._forget_old(now)

    def succeeded(self, client: str) -> None:
        """Record a right PIN from ``client``: its own count starts again (the overall one does not)."""
        with self._lock:
            self._clients.pop(client, None)

    def _client_wait(self, client: str, now: float) -> float:
        entry = self._clients.get(client)
        if entry is None or now - entry.last_failure >= self.policy.forget_after_s:
            return 0.0
        return max(0.0, entry.last_failure + self.policy.delay_after(entry.failures) - now)

    def _overall_wait(self, now: float) -> float:
        if len(self._recent) < self.policy.overall_failures:
            return 0.0
        return max(0.0, self._recent[0] + self.policy.overall_window_s - now)

    def _forget_old(self, now: float) -> None:
        stale = [name for name, entry in self._clients.items() if now - entry.last_failure >= self.policy.forget_after_s]
        for name in stale:
            del self._clients[name]
        while len(self._clients) > self.policy.max_clients:
            # Still too many: drop the client that failed longest ago (its wait is the shortest).
            oldest = min(self._clients, key=lambda name: self._clients[name].last_failure)
            del self._clients[oldest]
