"""Round-robin timing and its throttling rule (benchmarks/timing.py)."""

import time

import pytest

from benchmarks import timing


def test_round_robin_rotates_the_order_and_times_each_turn():
    order = []
    turns = {name: (lambda name=name: order.append(name)) for name in "abc"}
    times = timing.round_robin(turns, rounds=3)
    assert order == list("abc" + "bca" + "cab")
    assert set(times["wall"]) == set(times["cpu"]) == set("abc") and times["rounds"] == 3


def test_round_robin_measures_sleep_in_wall_time_only():
    times = timing.round_robin({"sleep": lambda: time.sleep(0.02), "idle": lambda: None}, rounds=2)
    assert times["wall"]["sleep"] >= 0.02
    assert times["cpu"]["sleep"] < 0.01


def test_speed_ratio_reads_cpu_time_when_wall_time_is_throttled():
    calm = {"wall": {"slow": 2.0, "fast": 1.0}, "cpu": {"slow": 1.9, "fast": 1.0}}
    assert timing.speed_ratio(calm, "slow", "fast")["clock"] == "wall"
    assert timing.speed_ratio(calm, "slow", "fast")["ratio"] == 2.0
    throttled = {"wall": {"slow": 5.13, "fast": 2.57}, "cpu": {"slow": 3.0, "fast": 2.5}}
    ratio = timing.speed_ratio(throttled, "slow", "fast")
    assert ratio["clock"].startswith("cpu") and ratio["ratio"] == pytest.approx(1.2)


def test_round_robin_rejects_no_rounds():
    with pytest.raises(ValueError, match="rounds"):
        timing.round_robin({"a": lambda: None}, rounds=0)
