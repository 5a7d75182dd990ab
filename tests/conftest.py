import gc
import importlib
import importlib.util
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# XLA compiles hundreds of tiny programs here (every layer case, under TensorFlow and, in subprocesses that
# inherit this, JAX) and runs each once or twice: LLVM's optimisations cost more than they save. Level 0
# changes how fast the compiled code runs, not what it computes. Measured on 2 cores with no JAX cache:
# the JAX layer checks 117 s -> 87 s of CPU; the TensorFlow contract cases, run in one process, 122 s -> 96 s.
# LLVM's expensive passes off as well: the JAX process's layer and end-to-end checks 104 -> 96 s and 96 -> 86 s
# of wall (two alternating pairs, 2026-11-27); TensorFlow's XLA accepts the flag (its effect there was within the
# noise of the XLA training tests). The CPU backend's newer MLIR fusion emitters off (its older emitter compiles the
# same HLO in about half the time) and its code generated as one LLVM module instead of split for threads. With
# the first flag (2026-11-29): the JAX process 259.8 -> 134.1 s of CPU, every part passing; TensorFlow's XLA
# training and sampled-model test files 129.6-129.9 -> 101.3-101.6 s (two runs each). Eight JAX layer cases:
# 39.1-40.4 -> 21.0-21.4 s, and with the second flag as well 17.7-19.6 s against 20.7-21.9 s (two alternating
# pairs). XLA (JAX's and TensorFlow's) aborts at start on a flag it does not know ("Unknown flag in XLA_FLAGS"):
# should a jaxlib or TensorFlow release drop one of these, drop it here.
os.environ.setdefault(
    "XLA_FLAGS",
    "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true "
    "--xla_cpu_use_fusion_emitters=false --xla_cpu_parallel_codegen_split_count=1",
)

import pathlib

import numpy as np
import pytest

# Tracing TensorFlow graphs allocates millions of small objects, and Python's cyclic collector, run every 700 net
# allocations by default, walked them about 2,300 times in two TensorFlow-heavy test files: 4.1 s of their 74 s of
# CPU. Every 50,000: 30 collections, 1.8 s, and at most about 130 MB more memory held a worker (measured with
# gc.callbacks, 2026-11-29). What is collected does not change, only how often the collector looks.
gc.set_threshold(50_000)


def pytest_collection_finish(session):
    """Moves what collection left alive (TensorFlow, Keras, KerasTuner and every test module: about 530,000
    objects) out of the cyclic collector's sight, for the rest of the process (`gc.freeze`).

    They live until the process ends anyway, and every full collection walked them all: about 0.55 s of CPU
    each, and KerasTuner runs two before every trial (`keras.backend.clear_session()` then `gc.collect()`): in a
    sampling profile of the whole suite those two lines were 4% of its CPU. Objects made by the tests are
    collected as before. Three search test files in one process, two alternating pairs (2026-11-29): 61.4 /
    66.1 -> 36.8 / 34.0 s of CPU.
    """
    gc.collect()  # what is already garbage goes now, not frozen with the rest
    gc.freeze()


# Keras and the library are imported inside the fixtures: with pytest-xdist the controlling process loads
# this file too, and does no test work; importing TensorFlow there (and compiling its bytecode in a fresh
# venv) came before either worker started.

REPO = pathlib.Path(__file__).resolve().parents[1]


def without_tensorflow(env):
    """`env` for a subprocess in which `import tensorflow` fails (tests/without_tensorflow), as on a machine
    without it."""
    stand_in = str(pathlib.Path(__file__).parent / "without_tensorflow")
    return dict(env, PYTHONPATH=os.pathsep.join(filter(None, [stand_in, env.get("PYTHONPATH")])))


@pytest.fixture(scope="session", autouse=True)
def optimizer_built_before_the_first_trace():
    """Builds a model's optimizer before its first training step is traced, under TensorFlow.

    Keras' TensorFlow trainer (without a distribution strategy) creates the optimizer's variables inside the
    first traced train step, and a `tf.function` that creates variables is traced twice: about half the CPU
    of a small model's first `fit` (measured: 2.4 s -> 1.0 s for a tiny GILE-HAN), and this suite fits
    hundreds. Built first (`keras_labelemb.training.optimizer_build.build_optimizer`, as the library's own
    compile helpers do): the same variables, one trace. Tests that run code the way users run it opt out with
    `keras_as_users_run_it`.
    """
    import keras

    if keras.backend.backend() != "tensorflow":
        yield
        return
    from keras.src.backend.tensorflow.trainer import TensorFlowTrainer

    from keras_labelemb.training.optimizer_build import build_optimizer

    make_train_function = TensorFlowTrainer.make_train_function

    def prebuilt(self, force=False):
        build_optimizer(self)
        return make_train_function(self, force)

    prebuilt.keras_own = make_train_function
    TensorFlowTrainer.make_train_function = prebuilt
    yield
    TensorFlowTrainer.make_train_function = make_train_function


@pytest.fixture(scope="session", autouse=True)
def tensorflow_settings():
    """TensorFlow's graph optimiser (grappler) off, and graph operations created without the Python stack that
    created them, in the test processes (tests/tensorflow_settings.py says why)."""
    import keras

    if keras.backend.backend() != "tensorflow":
        yield
        return
    from tensorflow_settings import graphs_unoptimized, op_tracebacks_off

    with graphs_unoptimized(), op_tracebacks_off():
        yield


@pytest.fixture(scope="session", autouse=True)
def joblib_in_threads():
    """scikit-learn's joblib work in threads, not in worker processes (the baselines' one-vs-rest SVM asks for two
    jobs): each process that joblib's default backend starts imports scikit-learn again, a few seconds of CPU
    for fits of milliseconds here. LIBLINEAR releases the GIL, so the fits still overlap. The benchmark test
    files, two alternating pairs (2026-11-29): 30.0 / 30.7 -> 24.4 / 22.7 s of CPU.
    """
    import joblib

    with joblib.parallel_config(backend="threading"):
        yield


@pytest.fixture
def keras_as_users_run_it():
    """Keras' own first `fit`, without `optimizer_built_before_the_first_trace` (README's blocks run so)."""
    import keras

    if keras.backend.backend() != "tensorflow":
        yield
        return
    from keras.src.backend.tensorflow.trainer import TensorFlowTrainer

    patched = TensorFlowTrainer.make_train_function
    TensorFlowTrainer.make_train_function = getattr(patched, "keras_own", patched)
    yield
    TensorFlowTrainer.make_train_function = patched


@pytest.fixture
def tf_functions_run_eagerly():
    """Runs every `tf.function` eagerly (TensorFlow backend), `fit`, `evaluate` and `predict` included.

    For tests of a few tiny steps whose subject is not graph mode (a search's trials, objectives and
    checkpoints, a callback's logs, which weights a step changes or leaves, a `.keras` round trip after one):
    tracing a training, a validation and a prediction graph costs far more than running the steps (a tiny
    CNLE's training step: about 8 s of CPU to trace, under 1 s a step eagerly). Each hypermodel still trains in
    graph mode in its docstring example (tests/test_docstring_examples.py), and the builders' models in the
    README, their docstrings and tests/test_xla_training.py.
    """
    import keras

    if keras.backend.backend() != "tensorflow":
        yield
        return
    import tensorflow as tf

    before = tf.config.functions_run_eagerly()
    tf.config.run_functions_eagerly(True)
    yield
    tf.config.run_functions_eagerly(before)


MISSING_DATA = "shared data missing"  # how every real-data skip begins, so the summary can count them
MISSING_PACKAGE = "optional package missing"  # likewise for a test of an extra that `make test` does not install


def skip_missing_data(what, path):
    """Skips a real-data test, in the one wording `pytest_terminal_summary` counts."""
    pytest.skip(f"{MISSING_DATA}: {what} not found at {path}")


def import_or_skip(module, extra):
    """`pytest.importorskip`, in the wording `pytest_terminal_summary` counts."""
    try:
        return importlib.import_module(module)
    except ImportError:
        pytest.skip(f"{MISSING_PACKAGE}: {module} (pip install -e '.[{extra}]')")


@pytest.fixture(scope="session")
def data_dir():
    """The shared real datasets (KERAS_LABELEMB_DATA, default ../shared/data); skips if absent."""
    path = pathlib.Path(os.environ.get("KERAS_LABELEMB_DATA", REPO.parent / "shared" / "data"))
    if not path.is_dir():
        skip_missing_data("the shared data folder", path)
    return path


def pytest_terminal_summary(terminalreporter):
    """Real-data and optional-package tests never skip silently: say how many did, and why, in the summary."""
    for wording, heading in (
        (MISSING_DATA, "REAL-DATA TESTS SKIPPED: {} (set KERAS_LABELEMB_DATA to the shared data folder): "),
        (MISSING_PACKAGE, "OPTIONAL-PACKAGE TESTS SKIPPED: {}: "),
    ):
        skipped = [
            report
            for report in terminalreporter.stats.get("skipped", [])
            if isinstance(report.longrepr, tuple) and wording in str(report.longrepr[-1])
        ]
        if skipped:
            reasons = sorted({str(report.longrepr[-1]).removeprefix("Skipped: ") for report in skipped})
            terminalreporter.write_line(heading.format(len(skipped)) + "; ".join(reasons), yellow=True, bold=True)


@pytest.hookimpl(trylast=True)  # after `-m`/`-k` deselected what they deselect
def pytest_collection_modifyitems(config, items):
    """The tests that read the one JAX process (mark `jax_process`) run last, and the process starts now in
    the background: it runs beside the other tests instead of holding a worker while it runs."""
    last = [item for item in items if item.get_closest_marker("jax_process")]
    if last and not config.option.collectonly and importlib.util.find_spec("jax") is not None:
        import jax_process

        jax_process.start(config)
    items[:] = [item for item in items if not item.get_closest_marker("jax_process")] + last


def pytest_sessionfinish(session):
    if "jax_process" in sys.modules:
        sys.modules["jax_process"].reap(session.config)


@pytest.fixture(scope="session")
def jax_process(request):
    """tests/jax_process.py's results, a dict a part (started as collection ended; waits for it to end)."""
    pytest.importorskip("jax")
    import jax_process

    return jax_process.results(request.config)


def jax_part(results, name):
    """One part's result of the JAX process; fails the test with the part's traceback if it raised."""
    part = results[name]
    if "error" in part:
        pytest.fail(f"the JAX process' part {name!r} raised:\n{part['error']}", pytrace=False)
    return part["result"]


@pytest.fixture(scope="module")
def top_k_setup():
    """A GILE-WAN over 23 labels and 37 documents with its dense predictions (the top-k tests' reference)."""

    import keras

    from keras_labelemb.models import gile_wan

    VOCAB, TOKENS, NUM_LABELS, NUM_DOCS = 60, 7, 23, 37
    rng = np.random.default_rng(0)
    keras.utils.set_random_seed(0)
    label_ids = rng.integers(1, VOCAB, (NUM_LABELS, 3)).astype("int32")
    label_ids[::4, 2] = 0  # some shorter descriptions
    model = gile_wan(VOCAB, label_ids, max_tokens=TOKENS, embedding_dim=8, units=8, joint_dim=8)
    x = rng.integers(0, VOCAB, (NUM_DOCS, TOKENS)).astype("int32")
    full = model.predict(x, verbose=0)
    return model, x, full, label_ids


@pytest.fixture(scope="module")
def reuters_dir(data_dir):
    path = data_dir / "reuters21578"
    if not (path / "original").is_dir():
        skip_missing_data("Reuters-21578", path)
    return path


@pytest.fixture(scope="module")
def reuters(reuters_dir):
    from benchmarks.datasets import load_reuters

    return load_reuters(reuters_dir, download=False)


@pytest.fixture(scope="module")
def demo():
    from keras_labelemb.datasets import load_demo

    return load_demo()
