"""Data-parallel training on two devices follows the one-device loss trajectory, on both backends.

Each check runs in a fresh process, because the devices have to exist before the
backend starts:

- `jax`: the suite's one JAX process (tests/jax_process.py, two host CPU devices),
  `keras.distribution.DataParallel` over both;
- `tensorflow`: THIS FILE as a script, with two logical CPU devices
  (`tf.config.set_logical_device_configuration` before TensorFlow initialises),
  `tf.distribute.MirroredStrategy` over both.

The script trains a tiny GILE-HAN on fixed random data twice, on one device and
on two, with the same seed, data and global batch (16 = 2 x 8), with full binary
cross-entropy and with sampled labels (the model as a `LabelClassifier.from_model` compiled with
`SampledSigmoidLoss`, uniform and hard negatives), and prints the per-epoch losses and the full BCE before and after
training as JSON; the tests compare them here. (Dropout is on under JAX, where a
step is one global computation; off under TensorFlow, where each replica draws
the masks of its own slice of the batch.)

Why the trajectories agree and how closely: with the same seed the two runs
start from the same weights and see the same batches, and a data-parallel step
computes the same global-batch mean gradient; only the order of float32 sums
differs (per-device partial sums, then an all-reduce), about 1e-7 relative per
step. The optimizer is plain SGD, which passes such differences on without
amplifying them (Adam divides by the root of tiny second moments and turns
rounding noise of near-zero gradients into full-size steps: with Adam the two
runs drifted apart by 1e-3 relative in 4 epochs; Adam is also blind to a
gradient scaled by the replica count, which SGD is not). Measured differences
after 6 epochs are below 1e-6 relative; the tests allow 1e-4, while the bugs
they guard against move the losses by far more: under MirroredStrategy, a
sampled loss not divided by the replica count was off by 99% relative, and
candidates drawn from each replica's own half of the batch by 33%.

Run the script alone to see the numbers: `python tests/test_distributed_training.py tensorflow`
(JAX: `python tests/jax_process.py distributed`, with the environment its docstring gives).
"""

import json
import sys

import numpy as np
import pytest
from distribution_helpers import run_two_device_script

RESULT_MARKER = "DISTRIBUTED RESULTS: "
# Full BCE; sampled labels, uniform and hard negatives (the model cut at its head by `LabelClassifier.from_model`,
# compiled with the sampled loss); the same GILE-HAN as a `LabelClassifier` built from its layers (ids fed directly,
# not cut from a model) compiled with the sampled loss, under TensorFlow only: under JAX the cut model's modes run
# the same train step.
MODES = ("full", "sampled", "hard", "task_sampled")
EPOCHS = 6
RTOL = 1e-4


@pytest.fixture(scope="module", params=[pytest.param("jax", marks=pytest.mark.jax_process), "tensorflow"])
def runs(request):
    if request.param == "jax":
        from conftest import jax_part

        return "jax", jax_part(request.getfixturevalue("jax_process"), "distributed")
    return "tensorflow", run_two_device_script(__file__, "tensorflow", RESULT_MARKER, request, ["tensorflow"])


@pytest.mark.slow
def test_two_devices_really_hold_the_model(runs):
    backend, result = runs
    assert result["replicas"] == 2, result
    assert result["devices_per_variable"] == 2, result  # every variable has a copy on each device


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_two_devices_follow_the_one_device_trajectory(runs, mode):
    backend, result = runs
    if backend == "jax" and mode.startswith("task"):
        pytest.skip("under JAX the modes 'sampled' and 'hard' train through the task's sampled step already")
    one, two = np.array(result["one"][mode]), np.array(result["two"][mode])
    assert one.shape == two.shape == (EPOCHS,)
    assert np.isfinite(two).all(), two
    assert two[-1] < two[0], f"{backend} {mode}: the loss did not decrease on two devices: {two}"
    np.testing.assert_allclose(two, one, rtol=RTOL, err_msg=f"{backend} {mode}: one device vs two")
    before, after = result["two"][f"{mode}_full_bce"]  # the model evaluated on all labels
    assert after < before, f"{backend} {mode}: training on two devices did not lower the full BCE"
    np.testing.assert_allclose(result["two"][f"{mode}_full_bce"], result["one"][f"{mode}_full_bce"], rtol=RTOL)


@pytest.mark.slow
def test_sampled_training_keeps_every_positive(runs):
    _, result = runs
    assert result["two"]["dropped_positives"] == [0.0] * EPOCHS, result


def test_the_comparison_can_fail():
    """A loss not divided by the replica count (the bug this guards against) is far outside the tolerance."""
    one = np.array([0.5, 0.4, 0.3, 0.25])
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(one * 2.0, one, rtol=RTOL)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(one * (1 + 1e-2), one, rtol=RTOL)


# --------------------------------------------------------------------------
# The script the subprocess runs (nothing below runs when pytest imports this module).
# --------------------------------------------------------------------------

VOCABULARY, SENTENCES, WORDS, NUM_LABELS, DOCUMENTS, BATCH = 60, 3, 5, 40, 32, 16


def _data():
    rng = np.random.default_rng(0)
    labels = rng.integers(2, VOCABULARY, (NUM_LABELS, 3)).astype("int32")
    x = rng.integers(1, VOCABULARY, (DOCUMENTS, SENTENCES, WORDS)).astype("int32")
    x[:, :, 4:] = 0  # padded words
    y = np.zeros((DOCUMENTS, NUM_LABELS), "float32")
    for row in range(DOCUMENTS):  # 1 to 3 labels a document, each label's description words in a sentence
        chosen = rng.choice(NUM_LABELS, rng.integers(1, 4), replace=False)
        y[row, chosen] = 1.0
        for sentence, label in enumerate(chosen):
            x[row, sentence, :3] = labels[label]
    return labels, x, y


def _train(mode, dropout, repeated_dataset=False):
    """Builds, compiles and fits one model (call under the distribution's scope); returns its history.

    `repeated_dataset` (TensorFlow): `fit` and `evaluate` read the same batches, in the same order, from one
    repeated `tf.data.Dataset` a fixed number of steps, instead of from the arrays. Under MirroredStrategy Keras
    makes a multi-device iterator of array data at the start and at the end of every epoch and evaluation (about
    0.1 s of CPU each, 16 a model on two devices); a call reading a repeated dataset makes one.
    """
    import keras

    from keras_labelemb.layers import GileHead, HierarchicalAttention
    from keras_labelemb.losses import SampledSigmoidLoss
    from keras_labelemb.models import document_classifier
    from keras_labelemb.models.document_classifier import prior_bias
    from keras_labelemb.tasks import LabelClassifier
    from keras_labelemb.training.optimizer_build import build_optimizer

    keras.utils.set_random_seed(0)
    labels, x, y = _data()
    if repeated_dataset:
        import tensorflow as tf

        dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH).repeat()
        steps = DOCUMENTS // BATCH
        fit_data, evaluate_data = {"x": dataset, "steps_per_epoch": steps}, {"x": dataset, "steps": steps}
    else:
        fit_data = evaluate_data = {"x": x, "y": y, "batch_size": BATCH}
    if mode.startswith("task"):
        return _train_task(mode, dropout, labels, x, fit_data, evaluate_data)
    embedding = keras.layers.Embedding(
        VOCABULARY, 16, mask_zero=True, embeddings_initializer=keras.initializers.RandomNormal(stddev=0.5)
    )
    model = document_classifier(
        HierarchicalAttention("dense", 16, "dense", 16, dropout=dropout, name="document_encoder"),
        GileHead(embedding, labels, joint_dim=16, bias_initializer=prior_bias(len(labels))),  # learns in a few steps
        max_sentences=SENTENCES,
        max_sentence_length=WORDS,
    )
    model.compile(keras.optimizers.SGD(2.0), keras.losses.BinaryCrossentropy(from_logits=True))
    before = model.evaluate(**evaluate_data, verbose=0)
    if mode == "full":
        trainer = model
    else:
        # 40 labels, about 25 distinct positives per batch of 16: the 8 sampled negatives are a real subset.
        sampler = "hard" if mode == "hard" else "uniform"
        loss = SampledSigmoidLoss(num_negatives=8, max_positives=48, sampler=sampler, seed=1)
        trainer = LabelClassifier.from_model(model)
        trainer.compile(keras.optimizers.SGD(2.0), loss=loss, metrics=[])
    # Keras' TensorFlow trainer would create the variables inside the first traced step, which TensorFlow then
    # traces twice (LabelClassifier.compile builds them already; tests/conftest.py does so in-process).
    build_optimizer(trainer)
    history = trainer.fit(**fit_data, epochs=EPOCHS, shuffle=False, verbose=0).history
    history["full_bce"] = [before, model.evaluate(**evaluate_data, verbose=0)]
    return model, history


def _train_task(mode, dropout, labels, x, fit_data, evaluate_data):
    """The GILE-HAN of `_train` as a `LabelClassifier` over its layers (ids fed directly, no preprocessor)."""
    import math

    import keras

    from keras_labelemb.layers import GileHead, HierarchicalAttention
    from keras_labelemb.losses import SampledSigmoidLoss
    from keras_labelemb.tasks import LabelClassifier
    from keras_labelemb.training.optimizer_build import build_optimizer

    embedding = keras.layers.Embedding(
        VOCABULARY, 16, mask_zero=True, embeddings_initializer=keras.initializers.RandomNormal(stddev=0.5)
    )
    attention = HierarchicalAttention(word_units=16, sentence_units=16, dropout=dropout)
    encoder = keras.Sequential([keras.Input((SENTENCES, WORDS), dtype="int32"), embedding, attention])
    prior = keras.initializers.Constant(-math.log(NUM_LABELS))
    head = GileHead(embedding, label_ids=labels, joint_dim=16, bias_initializer=prior)
    task = LabelClassifier(encoder, head, labels=[f"label_{i}" for i in range(NUM_LABELS)])
    # Compiled before it is built (the sampler's seed is then tracked); evaluate scores every label (full BCE).
    loss = SampledSigmoidLoss(num_negatives=8, max_positives=48, seed=1) if mode == "task_sampled" else "auto"
    task.compile(keras.optimizers.SGD(2.0), loss=loss, metrics=[])
    task(x[:1])
    build_optimizer(task)
    before = task.evaluate(**evaluate_data, verbose=0)
    history = task.fit(**fit_data, epochs=EPOCHS, shuffle=False, verbose=0).history
    history["full_bce"] = [before, task.evaluate(**evaluate_data, verbose=0)]
    return task, history


def _run_jax():
    import jax
    import keras

    assert len(jax.devices()) == 2, jax.devices()
    result = {"one": {}, "two": {}}
    for key, distribution in (("one", None), ("two", keras.distribution.DataParallel())):
        keras.distribution.set_distribution(distribution)
        for mode in [m for m in MODES if not m.startswith("task")]:  # see MODES
            # Dropout on: under keras.distribution a step is one global computation, so even the
            # dropout masks are those of one device.
            model, history = _train(mode, dropout=0.2)
            result[key][mode] = history["loss"]
            result[key][f"{mode}_full_bce"] = history["full_bce"]
            if mode == "sampled":
                result[key]["dropped_positives"] = history["dropped_positives"]
        if distribution is not None:
            result["replicas"] = len(distribution.device_mesh.devices.reshape(-1))
            result["devices_per_variable"] = min(len(v.value.addressable_shards) for v in model.variables)
    keras.distribution.set_distribution(None)
    return result


def _run_tensorflow():
    import tensorflow as tf
    from tensorflow_settings import graphs_unoptimized, op_tracebacks_off

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    with graphs_unoptimized(), op_tracebacks_off():  # as in the test processes (tests/tensorflow_settings.py)
        return _train_tensorflow()


def _train_tensorflow():
    import tensorflow as tf

    result = {"one": {}, "two": {}}
    strategies = (("one", tf.distribute.get_strategy()), ("two", tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])))
    for key, strategy in strategies:
        for mode in MODES:
            # Dropout off: under tf.distribute each replica draws masks for its own slice of the batch.
            with strategy.scope():
                model, history = _train(mode, dropout=0.0, repeated_dataset=True)
            result[key][mode] = history["loss"]
            result[key][f"{mode}_full_bce"] = history["full_bce"]
            if mode == "sampled":
                result[key]["dropped_positives"] = history["dropped_positives"]
        if key == "two":
            result["replicas"] = strategy.num_replicas_in_sync
            result["devices_per_variable"] = min(len(v.value.values) for v in model.variables)
    return result


def run(backend):
    import keras

    assert keras.backend.backend() == backend, (keras.backend.backend(), backend)
    return _run_jax() if backend == "jax" else _run_tensorflow()


def main(backend):
    print(RESULT_MARKER + json.dumps(run(backend)), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
