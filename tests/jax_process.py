"""The suite's one JAX process: every check that needs the JAX backend, run in one subprocess.

The backend is fixed when Keras is first imported, JAX's two host devices must exist before JAX starts, and
the pytest process has already imported Keras with the TensorFlow backend. So this file runs as a script
with `KERAS_BACKEND=jax` and `XLA_FLAGS=--xla_force_host_platform_device_count=2`, runs the parts below one
after another (a failing part does not stop the others) and prints every part's result as JSON after
`RESULT_MARKER`. The tests that read it carry the mark `jax_process` and run last; when a session has any,
`start` launches the process in the background as collection ends (one per pytest run, whichever worker
comes first), so it runs beside the other tests, and the fixture `jax_process` (tests/conftest.py) reads it:

- `backends`: every public layer and the end-to-end checks under JAX (tests/test_backends.py);
- `distributed`: data-parallel training on the two devices (tests/test_distributed_training.py);
- `label_sharding`: heads with their label side split over the devices (tests/test_label_sharding.py).

One process instead of three imports JAX, Keras and the library once. Its output stays in a folder of the
temporary directory (a few KB a run). A part alone, to debug it:

    KERAS_BACKEND=jax JAX_PLATFORMS=cpu XLA_FLAGS=--xla_force_host_platform_device_count=2 \
        python tests/jax_process.py label_sharding
"""

import json
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import pytest

RESULT_MARKER = "JAX PROCESS RESULTS: "
TIMEOUT_S = 900  # of waiting for it; alone on a quiet 2-core machine it took 110 s (144 s of CPU)
_RUN_KEY = pytest.StashKey[str]()
_PROCESS_KEY = pytest.StashKey[subprocess.Popen]()


def shared_folder(config):
    """One folder a pytest run, the same for every xdist worker."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:  # no xdist: this process is the run
        run = config.stash.setdefault(_RUN_KEY, f"{os.getpid()}_{time.time_ns()}")
    folder = pathlib.Path(tempfile.gettempdir()) / f"keras_labelemb_jax_process_{run}"
    folder.mkdir(exist_ok=True)
    return folder


def start(config):
    """Starts the process in the background unless a worker of this run already has; returns at once."""
    from conftest import without_tensorflow
    from distribution_helpers import REPO, two_device_environment

    folder = shared_folder(config)
    try:
        os.close(os.open(folder / "claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    command = " ".join(shlex.quote(part) for part in (sys.executable, __file__))
    out = shlex.quote(str(folder))
    # The exit code goes to a file when the process ends: any worker can tell it ended, not only this one.
    script = f"{command} > {out}/stdout 2> {out}/stderr; echo $? > {out}/rc.partial; mv {out}/rc.partial {out}/rc"
    # Without TensorFlow, which none of the parts needs (Keras' `set_random_seed` would import it: ~5 s of CPU).
    env = without_tensorflow(two_device_environment("jax", config))
    config.stash[_PROCESS_KEY] = subprocess.Popen(["/bin/sh", "-c", script], cwd=REPO, env=env)


def reap(config):
    """Waits for the process this pytest process started, if any, as the session ends: its CPU time then counts
    in this process's (`time make test` reports it) and no zombie is left to the system."""
    process = config.stash.get(_PROCESS_KEY, None)
    if process is not None:
        process.wait()


def results(config):
    """The parts' results (waiting for the process to end); fails the test if the process failed."""
    from distribution_helpers import result_after

    start(config)  # a no-op unless nothing started it (a test selected alone)
    folder = shared_folder(config)
    deadline = time.monotonic() + TIMEOUT_S
    while not (folder / "rc").exists():
        if time.monotonic() > deadline:
            pytest.fail(f"the JAX process ran past {TIMEOUT_S} s (its output: {folder})", pytrace=False)
        time.sleep(0.5)
    read = {name: (folder / name).read_text() for name in ("rc", "stdout", "stderr")}
    return result_after(RESULT_MARKER, "jax", int(read["rc"]), read["stdout"], read["stderr"])


def _backends():
    import test_backends

    return {"failed": test_backends.run_checks("all")}


def _distributed():
    import test_distributed_training

    return test_distributed_training.run("jax")


def _label_sharding():
    import test_label_sharding

    return test_label_sharding.run()


PARTS = {"backends": _backends, "distributed": _distributed, "label_sharding": _label_sharding}


def _compilation_cache():
    """A JAX compilation cache for this process when the environment gives none (`-p no:cacheprovider`, a part
    run alone): the checks compile some programs twice, e.g. a layer case's `predict` before and after its
    `.keras` round trip (keras_labelemb/testing/layer_test.py), and JAX then runs the second from the first's
    executable. Its key is the lowered program without debug information, the XLA flags and the devices, so
    only an identical program is reused. Returns the folder to remove, or None."""
    import jax

    if jax.config.jax_compilation_cache_dir:  # the suite's, under .pytest_cache (tests/distribution_helpers.py)
        return None
    folder = tempfile.mkdtemp(prefix="keras_labelemb_jax_cache_")
    jax.config.update("jax_compilation_cache_dir", folder)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    return folder


def main(*parts):
    import keras

    assert keras.backend.backend() == "jax", keras.backend.backend()
    cache = _compilation_cache()
    results = {}
    try:
        for name in parts or PARTS:
            try:
                results[name] = {"result": PARTS[name]()}
            except Exception:  # noqa: BLE001 - the part's test reports it; the other parts still run
                traceback.print_exc()
                results[name] = {"error": traceback.format_exc()[-6000:]}
            keras.distribution.set_distribution(None)  # each part starts from one device
    finally:
        if cache is not None:
            shutil.rmtree(cache, ignore_errors=True)
    print(RESULT_MARKER + json.dumps(results), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
