"""Peak resident memory of one piece of work: a thread samples the process's resident set size every 2 ms."""

import os
import threading
import time


def resident_mb():
    """The process's resident set size, in MB (Linux `/proc/self/statm`)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_memory(function):
    """`(result, seconds, MB)`: what `function()` returns, its wall time, and the resident memory it adds at peak.

    The peak is sampled every 2 ms and the size just before subtracted: memory the process already holds (an
    allocator's free pool, say) and reuses does not count, so one measurement per fresh process is the clean one.
    """
    before = resident_mb()
    peak, done = [before], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], resident_mb())
            time.sleep(0.002)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    start = time.time()
    try:
        result = function()
    finally:
        seconds = time.time() - start
        done.set()
        thread.join()
    return result, seconds, round(peak[0] - before, 1)
