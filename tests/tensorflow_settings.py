"""Two TensorFlow settings that change how long the suite takes to build and first run its graphs, not what the
graphs compute.

The test processes turn both on for the whole session (tests/conftest.py), and so does the TensorFlow
two-device script (tests/test_distributed_training.py): the script alone, three alternating pairs on 2 cores
(2026-11-29), took 33.3-34.5 s of CPU with them against 39.3-39.9 s without. The other processes the tests
start keep TensorFlow's defaults: the served SavedModels (served as a user serves them) and the multi-worker
example (run as a user runs it).
"""

import contextlib
import functools
import inspect


@contextlib.contextmanager
def graphs_unoptimized():
    """TensorFlow's graph optimiser (grappler) off, as XLA's `-O0` in tests/conftest.py and for the same reason:
    the suite traces hundreds of graphs and runs each a few times, and grappler's rewrites change how fast a
    graph runs, not what it computes. It is most of the first run of a CNLE training step (eight LSTM loops and
    their gradients): a tiny CNLE's first `fit` 10.5-11.1 -> 6.4-6.7 s of CPU. Seven CNLE-, XLA- and
    README-heavy test files in one process, two alternating pairs: 186.3 / 189.5 -> 179.2 / 180.6 s of CPU.
    """
    import tensorflow as tf

    before = tf.config.optimizer.get_experimental_options().get("disable_meta_optimizer", False)
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    try:
        yield
    finally:
        tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": before})


@contextlib.contextmanager
def op_tracebacks_off():
    """TensorFlow records, for every graph operation it creates, the Python stack that created it (to say where
    a failing operation was defined), and turns those stacks into file names and line numbers when a traced
    function is registered. The suite traces thousands of graphs from deep pytest and Keras stacks: off, it took
    a tenth of the CPU of TensorFlow-heavy files (tests/test_xla_training.py, test_sampled_label_model.py, since
    merged into test_label_classifier_sampled.py, and test_gile_head.py in one process, two alternating pairs,
    2026-11-29: 108.1 / 107.2 -> 98.1 / 94.8 s). What is computed does not change; an error in a graph still
    names the failing operation and its message, only not the line that created the operation. There is no
    public switch: the recording is an argument of TensorFlow's operation constructor, forced off here where it
    has that argument (another TensorFlow is left alone; tests/test_suite_setup.py fails if the switch stops
    working).
    """
    from tensorflow.python.framework import ops

    create = ops._create_c_op
    if "extract_traceback" not in inspect.signature(create).parameters:
        yield
        return

    @functools.wraps(create)
    def without_traceback(*args, **kwargs):
        return create(*args, **dict(kwargs, extract_traceback=False))

    ops._create_c_op = without_traceback
    try:
        yield
    finally:
        ops._create_c_op = create
