"""Timing that survives a shared, throttled machine: round-robin turns and per-epoch clocks.

Speed is reported as ratios measured in one run. Every configuration is built and compiled
before the clock starts; then each round times one turn of every configuration, in an order
rotated by one each round, so that a slow spell of the machine hits all of them alike. Wall
and process CPU time are both kept: on a machine whose CPU quota throttles the process, wall
time jumps in steps of the quota period while CPU time does not, and the ratio is then read
from CPU time.
"""

import math
import time

import keras
import numpy as np

#: Wall and CPU ratios further apart than this factor mark wall time as throttled.
THROTTLE_TOLERANCE = 1.2


def round_robin(turns, rounds):
    """Median wall and CPU seconds of each turn, timed round-robin with a rotating order.

    Args:
        turns: mapping name -> callable doing one timed unit of work (e.g. `k` training steps);
            compile and warm up before calling this.
        rounds: how many times each turn is timed.

    Returns:
        `{"wall": {name: seconds}, "cpu": {name: seconds}, "rounds": rounds}` (medians).
    """
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1; received rounds={rounds}")
    names = list(turns)
    wall = {name: [] for name in names}
    cpu = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            start, start_cpu = time.perf_counter(), time.process_time()
            turns[name]()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    median = lambda d: {name: float(np.median(v)) for name, v in d.items()}  # noqa: E731
    return {"wall": median(wall), "cpu": median(cpu), "rounds": rounds}


def on_accelerator():
    """Whether Keras computes on a GPU (or TPU): step times are then wall clock alone."""
    if keras.backend.backend() == "jax":
        import jax

        return jax.default_backend() != "cpu"
    if keras.backend.backend() == "tensorflow":
        import tensorflow as tf

        return bool(tf.config.list_logical_devices("GPU"))
    return False


def speed_ratio(times, slow, fast, accelerator=False):
    """`slow / fast` from a `round_robin` result, from wall time unless wall time looks throttled.

    On an `accelerator` the ratio is always wall time's: the host's CPU time there counts dispatching
    the device's work, not the work.

    Returns `{"ratio", "wall_ratio", "cpu_ratio", "clock"}`; `clock` says which ratio is `ratio`.
    """
    wall = times["wall"][slow] / times["wall"][fast]
    cpu = times["cpu"][slow] / times["cpu"][fast]
    throttled = not accelerator and abs(math.log(wall / cpu)) > math.log(THROTTLE_TOLERANCE)
    return {
        "ratio": round(cpu if throttled else wall, 3),
        "wall_ratio": round(wall, 3),
        "cpu_ratio": round(cpu, 3),
        "clock": "cpu (wall time throttled)" if throttled else "wall",
    }


def train_steps(model, x, y, steps):
    """A `round_robin` turn: `steps` calls of `model.train_on_batch(x, y)`, failing on a non-finite loss."""

    def turn():
        for _ in range(steps):
            loss = model.train_on_batch(x, y)
        if not np.isfinite(np.asarray(loss, dtype="float64")).all():
            raise FloatingPointError(f"non-finite training loss {loss}")

    return turn


class EpochTimer(keras.callbacks.Callback):
    """Seconds per epoch (wall and process CPU), and the first batch (tracing and compiling) apart."""

    def __init__(self):
        super().__init__()
        self.seconds, self.cpu_seconds, self.first_batch = [], [], None

    def on_epoch_begin(self, epoch, logs=None):
        self._start, self._start_cpu = time.perf_counter(), time.process_time()

    def on_train_batch_end(self, batch, logs=None):
        if self.first_batch is None:
            self.first_batch = time.perf_counter() - self._start

    def on_epoch_end(self, epoch, logs=None):
        self.seconds.append(time.perf_counter() - self._start)
        self.cpu_seconds.append(time.process_time() - self._start_cpu)

    def steady_seconds(self):
        """Median seconds of the epochs after the first (which compiles), or of the only one."""
        return float(np.median(self.seconds[1:] or self.seconds))
