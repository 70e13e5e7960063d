"""The PIN throttle on its own (``web.throttle``), on a clock moved by hand."""

from __future__ import annotations

import pytest

from web.throttle import PinThrottle, ThrottlePolicy


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_waits_double_after_the_free_tries_up_to_the_ceiling() -> None:
    policy = ThrottlePolicy(free_failures=3, first_delay_s=2.0, max_delay_s=60.0)
    assert [policy.delay_after(n) for n in range(1, 10)] == [0, 0, 0, 2, 4, 8, 16, 32, 60]
    assert policy.delay_after(10**6) == 60.0, "no overflow for a very long run of wrong PINs"


def test_a_client_waits_others_do_not_and_a_right_pin_starts_it_afresh() -> None:
    clock = FakeClock()
    throttle = PinThrottle(ThrottlePolicy(free_failures=1, first_delay_s=10.0), clock)
    throttle.failed("a")
    assert throttle.wait("a") == 0.0
    throttle.failed("a")
    assert throttle.wait("a") == 10.0 and throttle.wait("b") == 0.0
    clock.now = 4.0
    assert throttle.wait("a") == 6.0
    clock.now = 10.0
    throttle.succeeded("a")
    throttle.failed("a")
    assert throttle.wait("a") == 0.0, "the count started again"


def test_a_client_is_forgotten_after_a_quiet_hour_and_memory_stays_bounded() -> None:
    clock = FakeClock()
    throttle = PinThrottle(ThrottlePolicy(free_failures=0, overall_failures=10**6, forget_after_s=3600.0, max_clients=50), clock)
    throttle.failed("a")
    assert throttle.wait("a") == 1.0
    clock.now = 3600.0
    assert throttle.wait("a") == 0.0
    for n in range(500):
        throttle.failed(f"10.0.{n // 256}.{n % 256}")
    assert len(throttle._clients) <= 51


def test_the_overall_cap_is_a_sliding_window() -> None:
    clock = FakeClock()
    throttle = PinThrottle(ThrottlePolicy(free_failures=100, overall_failures=3, overall_window_s=60.0), clock)
    for second, client in enumerate(("a", "b", "c")):
        clock.now = float(second * 10)
        throttle.failed(client)
    assert throttle.wait("d") == 60.0 - 20.0
    clock.now = 60.0
    assert throttle.wait("d") == 0.0, "the first of the three left the window"


def test_a_policy_that_makes_no_sense_is_refused() -> None:
    with pytest.raises(ValueError, match="overall_failures must be >= 1"):
        ThrottlePolicy(overall_failures=0)
    with pytest.raises(ValueError, match="must be positive"):
        ThrottlePolicy(max_delay_s=0)
