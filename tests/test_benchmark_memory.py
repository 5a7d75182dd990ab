"""benchmarks/memory.py: the peak resident memory a piece of work adds."""

import numpy as np

from benchmarks.memory import peak_memory


def test_a_touched_allocation_shows_in_the_peak_and_the_result_comes_back():
    result, seconds, added = peak_memory(lambda: float(np.ones(40_000_000, "float32").sum()))  # 160 MB, freed after
    assert result == 40_000_000.0 and seconds >= 0.0
    assert added >= 100.0
