"""`examples/multi_worker.py`: two local worker processes train one model and report the same loss.

The example starts two workers (TensorFlow: `MultiWorkerMirroredStrategy` with
`TF_CONFIG` on localhost ports; JAX: `keras.distribution.initialize` and
`DataParallel` over both processes) and, for comparison, the same training in
one process; it exits 1 when the workers' losses differ. Here the losses are
also checked against the one-process run: with the global batch split between
the workers, gradients summed over them and the sampled candidates drawn from
the whole global batch, only the order of float sums differs (plain SGD; see
tests/test_distributed_training.py).
"""

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO, without_tensorflow

LINE = re.compile(
    r"^(?P<name>worker \d|one process) \((?P<backend>\w+), (?P<replicas>\d+) replicas? in sync\): "
    r"loss per epoch (?P<losses>.*)$"
)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["tensorflow", "jax"])
def test_two_workers_train_together_with_sampled_labels_and_agree_with_one_process(backend):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    if backend == "jax":
        pytest.importorskip("jax")
        env = without_tensorflow(env)  # the JAX workers need no TensorFlow: checked, and ~15 s of CPU saved
    result = subprocess.run(
        [sys.executable, str(REPO / "examples" / "multi_worker.py"), "--backend", backend, "--loss", "sampled"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    runs = {}
    for line in result.stdout.splitlines():
        match = LINE.match(line)
        if match:
            assert match.group("backend") == backend, line
            losses = np.array([float(value) for value in match.group("losses").split(",")])
            runs[match.group("name")] = (int(match.group("replicas")), losses)
    assert set(runs) == {"worker 0", "worker 1", "one process"}, result.stdout
    assert runs["worker 0"][0] == runs["worker 1"][0] == 2 and runs["one process"][0] == 1
    np.testing.assert_array_equal(runs["worker 0"][1], runs["worker 1"][1])
    np.testing.assert_allclose(runs["worker 0"][1], runs["one process"][1], rtol=1e-5)
    assert runs["worker 0"][1][-1] < runs["worker 0"][1][0], runs
    assert "both workers report the same loss" in result.stdout
