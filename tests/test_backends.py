"""Every public layer also runs under the JAX and PyTorch backends.

The backend is fixed when keras is first imported, and this pytest process has
already imported keras with the TensorFlow backend, so the checks run in fresh
processes with `KERAS_BACKEND` set: under JAX in the suite's one JAX process
(tests/jax_process.py, its part `backends`), under PyTorch as THIS FILE run as a
script. The checks run every case of tests/layer_cases.py but the configurations
of `OTHER_BACKENDS_SKIP` through the shared `run_layer_test` (the cases
tests/test_layer_contracts.py runs under TensorFlow), train a small `gile_han`
model end to end, swap its label set with `set_labels`, train on sampled labels (a
`LabelClassifier.from_model` compiled with `SampledSigmoidLoss`, multi-hot and label-index targets) and under
`mixed_float16`, fit and query a `LabelClassifier` fed token ids, evaluate every metric against
scikit-learn, and train and decode a small CNLE. Both processes run without TensorFlow, as
on a machine that has none (`import tensorflow` fails there: tests/without_tensorflow). Under JAX all of it compiles
with XLA (`jit_compile=True`); under PyTorch it runs eagerly, Keras' `"auto"` there (`torch.compile` is not
tested: it recompiles for every layer and takes minutes). A backend whose package
is not installed is skipped (`make test` installs the CPU build of PyTorch where it
can, see the Makefile).

Run the script alone to debug a failure (backend `jax` or `torch`, group `layers`, `cnle` or `all`):

    KERAS_BACKEND=jax JAX_PLATFORMS=cpu python tests/test_backends.py cnle
    KERAS_BACKEND=torch python tests/test_backends.py all
"""

import os
import pathlib
import subprocess
import sys
import time
import traceback

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
SUBPROCESS_TIMEOUT_S = 300  # PyTorch's checks about 20 s on a quiet 2-core machine, importing torch most of it
DONE_MARKER = "BACKEND CHECKS PASSED"
GROUPS = ("layers", "cnle", "all")


@pytest.mark.slow
@pytest.mark.jax_process
def test_every_public_layer_runs_under_jax(jax_process):
    from conftest import jax_part

    failed = jax_part(jax_process, "backends")["failed"]
    assert not failed, "under the jax backend:\n  " + "\n  ".join(failed)


@pytest.mark.slow
def test_every_public_layer_runs_under_torch():
    from conftest import without_tensorflow

    pytest.importorskip("torch")
    env = dict(os.environ, KERAS_BACKEND="torch", TF_CPP_MIN_LOG_LEVEL="3")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env = without_tensorflow(env)  # nothing here needs it: checked, and ~5 s of CPU saved
    start = time.perf_counter()
    try:
        result = subprocess.run(
            [sys.executable, __file__, "all"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=SUBPROCESS_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as error:
        tail = error.stderr or b""
        tail = (tail.decode(errors="replace") if isinstance(tail, bytes) else tail)[-4000:]
        pytest.fail(f"the torch subprocess ran past {SUBPROCESS_TIMEOUT_S} s; stderr tail:\n{tail}", pytrace=False)
    elapsed = time.perf_counter() - start
    if result.returncode != 0 or DONE_MARKER not in result.stdout:
        pytest.fail(
            f"the torch subprocess failed (exit code {result.returncode}, {elapsed:.0f} s).\n"
            f"--- stdout tail ---\n{result.stdout[-2000:]}\n"
            f"--- stderr tail ---\n{result.stderr[-8000:]}",
            pytrace=False,
        )


# --------------------------------------------------------------------------
# The script the subprocess runs. Nothing below runs when pytest imports this
# module: the checks are plain functions (no `test_` prefix) called from main().
# --------------------------------------------------------------------------


def _import_library_without_tensorflow():
    import keras

    import keras_labelemb  # noqa: F401  (layers, losses, metrics, models, training, evaluation, testing)

    expected = os.environ.get("KERAS_BACKEND")
    assert keras.backend.backend() == expected, f"expected the {expected} backend, got {keras.backend.backend()!r}"
    imported = sorted(name for name in sys.modules if name == "tensorflow" or name.startswith("tensorflow."))
    assert not imported, (
        f"importing keras_labelemb under the {expected} backend imported TensorFlow "
        f"(layers, losses and metrics must use keras.ops only): {imported[:5]}"
    )


def _jit_compile():
    """XLA under JAX; under PyTorch Keras' "auto" (eager), see the module docstring."""
    import keras

    return keras.backend.backend() != "torch"


def _layer_cases(group):
    from layer_cases import CASES, CNLE_CASES, OTHER_BACKENDS_SKIP, TENSORFLOW_ONLY, run_case

    names = (CNLE_CASES if group == "cnle" else set(CASES) - CNLE_CASES - TENSORFLOW_ONLY) - OTHER_BACKENDS_SKIP
    return [(name, lambda name=name: run_case(name)) for name in sorted(names)]


def _check_gile_han_end_to_end(rng):
    import keras

    from keras_labelemb.models import gile_han, set_labels

    vocabulary, sentences, words = 30, 3, 5
    labels = np.array([[2, 3], [4, 0], [5, 6]], "int32")
    ids = rng.integers(1, vocabulary, size=(8, sentences, words)).astype("int32")
    ids[:, :, 4:] = 0  # padded words
    ids[0, 2] = 0  # a padding sentence
    ids[1] = 0  # an empty document
    targets = (rng.random((8, 3)) > 0.5).astype("float32")

    model = gile_han(vocabulary, labels, sentences, words, embedding_dim=8, units=4, joint_dim=6)
    model.compile(
        keras.optimizers.Adam(1e-2), keras.losses.BinaryCrossentropy(from_logits=True), jit_compile=_jit_compile()
    )
    before = [np.array(w) for w in model.get_weights()]
    loss = model.fit(ids, targets, batch_size=8, epochs=1, verbose=0).history["loss"][0]
    assert np.isfinite(loss), loss
    assert any(not np.array_equal(b, np.array(a)) for b, a in zip(before, model.get_weights())), "fit changed nothing"
    logits = model.predict(ids, verbose=0)
    assert logits.shape == (8, 3) and np.all(np.isfinite(logits)), logits

    # Zero-shot: swap in another label set; the same weights score the new labels.
    new_labels = np.array([[7, 8], [2, 3], [9, 0], [10, 11]], "int32")
    set_labels(model, new_labels)
    swapped = model.predict(ids, verbose=0)
    assert swapped.shape == (8, 4), swapped.shape
    np.testing.assert_allclose(swapped[:, 1], logits[:, 0], atol=1e-5)  # same description, same score
    loss = model.fit(ids, rng.random((8, 4)).astype("float32"), batch_size=8, verbose=0).history["loss"][0]
    assert np.isfinite(loss), loss


def _check_mixed_precision_training(rng):
    """A HAN with a hybrid head (GILE, word interaction, per-label) trains under `mixed_float16` (XLA under JAX):
    the layer checks compute in float16 but do not train in it."""
    import keras

    from keras_labelemb.layers import GileHead, HierarchicalAttention, HybridHead, LinearHead, WordInteractionHead
    from keras_labelemb.models import document_classifier
    from keras_labelemb.testing.dtype_policy import dtype_policy

    labels = np.array([[2, 3], [4, 0], [5, 6]], "int32")
    ids = rng.integers(1, 30, size=(8, 3, 5)).astype("int32")
    ids[:, :, 4:] = 0
    targets = (rng.random((8, 3)) > 0.5).astype("float32")
    with dtype_policy("mixed_float16"):
        embedding = keras.layers.Embedding(30, 8, mask_zero=True)
        parts = [GileHead(embedding, joint_dim=6), WordInteractionHead(embedding), LinearHead(len(labels))]
        model = document_classifier(
            HierarchicalAttention("dense", 4, "dense", 4),
            HybridHead(parts, labels),
            max_sentences=3,
            max_sentence_length=5,
        )
        model.compile(
            keras.optimizers.Adam(1e-2), keras.losses.BinaryCrossentropy(from_logits=True), jit_compile=_jit_compile()
        )
        before = [np.array(w) for w in model.trainable_weights]
        losses = model.fit(ids, targets, batch_size=8, epochs=3, verbose=0).history["loss"]
        after = [np.array(w) for w in model.trainable_weights]
    assert np.isfinite(losses).all(), losses
    assert all(w.dtype == "float32" and np.isfinite(w).all() for w in after), "float32 weights, finite"
    assert any(not np.array_equal(b, a) for b, a in zip(before, after)), "three float16 steps changed nothing"


def _check_sampled_training(rng):
    """A model cut at its head (`LabelClassifier.from_model`) trains on sampled labels: multi-hot targets, then
    positive label indices (sorting, binary search and scattering, for evaluate, under this backend)."""
    import keras

    from keras_labelemb.losses import SampledSigmoidLoss
    from keras_labelemb.models import gile_wan
    from keras_labelemb.tasks import LabelClassifier
    from keras_labelemb.tasks.sampled_step import positive_label_indices

    labels = np.arange(2, 42, dtype="int32").reshape(20, 2)
    ids = rng.integers(1, 50, size=(16, 8)).astype("int32")
    targets = np.eye(20, dtype="float32")[rng.integers(0, 20, 16)]
    results = {}
    for kind, y in (("multi_hot", targets), ("label_indices", positive_label_indices(targets))):
        keras.utils.set_random_seed(0)
        model = gile_wan(50, labels, max_tokens=8, units=8, joint_dim=8, dropout=0.0)
        classifier = LabelClassifier.from_model(model)
        loss = SampledSigmoidLoss(num_negatives=5, max_positives=8, seed=1, targets=kind)
        classifier.compile(keras.optimizers.Adam(1e-2), loss=loss, metrics=[], jit_compile=_jit_compile())
        before = [np.array(w) for w in model.get_weights()]
        # 16 documents in batches of 6: a partial last batch (4) too.
        history = classifier.fit(ids, y, batch_size=6, epochs=2, shuffle=False, verbose=0).history
        assert np.isfinite(history["loss"]).all() and max(history["dropped_positives"]) == 0, (kind, history)
        after = [np.array(w) for w in model.get_weights()]
        assert any(not np.array_equal(b, a) for b, a in zip(before, after)), f"{kind}: fit changed nothing"
        evaluated = classifier.evaluate(ids, y, batch_size=8, verbose=0)
        logits = model.predict(ids, verbose=0).astype("float64")
        full = np.mean(np.maximum(logits, 0) - logits * targets + np.log1p(np.exp(-np.abs(logits))))
        assert np.isclose(evaluated, full, atol=1e-5), (kind, evaluated, full)  # evaluate: BCE over every label
        assert classifier.predict(ids).shape == (16, 20)
        results[kind] = history["loss"], after
    (dense_loss, dense_weights), (indexed_loss, indexed_weights) = results.values()
    np.testing.assert_allclose(indexed_loss, dense_loss, rtol=1e-5)  # the same steps from either targets
    for dense, indexed in zip(dense_weights, indexed_weights):
        np.testing.assert_allclose(indexed, dense, atol=1e-5)
    loss = SampledSigmoidLoss(num_negatives=5, max_positives=8, seed=3)
    first = [np.asarray(loss.label_sampler.sample_candidates(targets, 20)[0]).tolist() for _ in range(2)]
    assert first[0] != first[1], "the seed generator did not advance"


def _check_task_fed_ids(rng):
    """A `LabelClassifier` fed token ids (no preprocessor, so no TensorFlow): built from an encoder and a head,
    and cut from a model, it fits (tuning thresholds on validation data), predicts, names labels, gives top-k
    pairs, relabels by name and round-trips a `.keras` file."""
    import os
    import tempfile

    import keras

    from keras_labelemb.layers import GileHead, LinearHead
    from keras_labelemb.models import wan
    from keras_labelemb.tasks import LabelClassifier

    imported = sorted(name for name in sys.modules if name == "tensorflow" or name.startswith("tensorflow."))
    assert not imported, f"keras_labelemb.tasks imported TensorFlow: {imported[:5]}"
    names = ["grain", "rates", "gold"]
    labels = np.array([[2, 3], [4, 0], [5, 6]], "int32")
    ids = rng.integers(1, 30, size=(12, 6)).astype("int32")
    targets = np.eye(3, dtype="float32")[np.arange(12) % 3]
    embedding = keras.layers.Embedding(30, 8, mask_zero=True)
    encoder = keras.Sequential([keras.Input((6,), dtype="int32"), embedding, keras.layers.GlobalAveragePooling1D()])
    task = LabelClassifier(encoder, GileHead(embedding, labels, joint_dim=4), labels=names)
    task.compile(keras.optimizers.Adam(1e-2), jit_compile=_jit_compile())
    before = [np.array(w) for w in task.get_weights()]
    history = task.fit(ids, targets, batch_size=4, epochs=2, validation_data=(ids, targets), verbose=0).history
    assert np.isfinite(history["loss"]).all() and "val_micro_f1" in history, history
    assert any(not np.array_equal(b, np.array(a)) for b, a in zip(before, task.get_weights())), "fit changed nothing"
    assert task.threshold_mode in ("per_label", "global"), task.threshold_mode
    scores = task.predict(ids)
    assert scores.shape == (12, 3) and ((scores > 0) & (scores < 1)).all(), scores
    logits = keras.ops.convert_to_numpy(task.head(encoder(ids)))
    np.testing.assert_allclose(scores, 1 / (1 + np.exp(-logits)), atol=1e-5)
    chosen = task.predict_labels(ids)
    assert len(chosen) == 12 and all(row and set(row) <= set(names) for row in chosen), chosen
    top = task.predict_top_k(ids, k=2)
    assert [[name for name, _ in row] for row in top] == [
        [names[i] for i in np.argsort(-s, kind="stable")[:2]] for s in scores
    ]
    path = os.path.join(tempfile.mkdtemp(), "task.keras")
    task.save(path)
    loaded = keras.saving.load_model(path)
    assert loaded.label_names == names and loaded.thresholds == task.thresholds
    np.testing.assert_allclose(loaded.predict(ids), scores, atol=1e-6)

    # A model you built, cut at its head: its own weights train; a per-label head is relabelled by name.
    model = wan(30, 3, max_tokens=6, units=4)
    cut = LabelClassifier.from_model(model, labels=names)
    assert isinstance(cut.head, LinearHead) and cut.cut_from_model
    cut.compile(keras.optimizers.Adam(1e-2), jit_compile=_jit_compile())
    cut.fit(ids, [[names[i % 3]] for i in range(12)], batch_size=4, epochs=1, verbose=0)
    np.testing.assert_allclose(cut.predict(ids), 1 / (1 + np.exp(-model.predict(ids, verbose=0))), atol=1e-5)
    cut.set_labels(["wheat", "bonds", "silver"])  # as many names as the head has outputs
    assert cut.predict_top_k(ids[:2], k=1)[0][0][0] in ("wheat", "bonds", "silver")
    imported = sorted(name for name in sys.modules if name == "tensorflow" or name.startswith("tensorflow."))
    assert not imported, f"the task fed ids imported TensorFlow: {imported[:5]}"


def _check_metrics_against_scikit_learn(rng):
    """Every ranking and F1 metric, streamed over three batches of a compiled evaluate, against scikit-learn."""
    import keras
    from sklearn import metrics as skm

    from keras_labelemb import metrics as klm

    y = (rng.random((30, 7)) < 0.35).astype("float32")
    y[0], y[1] = 0.0, 1.0
    s = (rng.integers(0, 4, size=(30, 7)) / 4.0).astype("float32")  # ties
    s[15:] = rng.random((15, 7))
    if keras.backend.backend() == "torch":  # torch.topk orders tied scores in no fixed way (metrics docstring)
        s = rng.random((30, 7)).astype("float32")
    propensities = klm.label_propensities(y.sum(0), 30)
    model = keras.Sequential([keras.Input((7,)), keras.layers.Identity()])  # the scores are the model's output
    metrics = [klm.MicroF1(), klm.MacroF1(), klm.PrecisionAtK(k=2), klm.NDCGAtK(k=3), klm.RankingLoss()]
    metrics += [klm.LabelRankingAveragePrecision(), klm.OneError(), klm.PropensityPrecisionAtK(propensities, k=2)]
    metrics.append(klm.PropensityPrecisionAtK(propensities, k=2, normalize=False))
    model.compile(loss="mse", metrics=metrics, jit_compile=_jit_compile())
    got = model.evaluate(s, y, batch_size=10, verbose=0, return_dict=True)

    s64 = s.astype("float64")
    top = np.argsort(-s64, axis=1, kind="stable")
    has = y.max(1) > 0
    weighted = (np.take_along_axis(y, top[:, :2], 1) / propensities[top[:, :2]]).sum(1) / 2
    best = np.sort(y / propensities, axis=1)[:, ::-1][:, :2].sum(1) / 2
    want = {
        "micro_f1": skm.f1_score(y, s > 0.5, average="micro"),
        "macro_f1": skm.f1_score(y, s > 0.5, average="macro", zero_division=0),
        "precision_at_2": (np.take_along_axis(y, top[:, :2], axis=1).sum(1) / 2).mean(),
        "ndcg_at_3": skm.ndcg_score(y, s64, k=3),
        "ranking_loss": skm.label_ranking_loss(y, s64),
        "label_ranking_average_precision": skm.label_ranking_average_precision_score(y, s64),
        "one_error": ((1 - y[np.arange(30), top[:, 0]]) * has).sum() / has.sum(),
        "psp_at_2": weighted.sum() / best.sum(),
        "raw_psp_at_2": weighted.mean(),
    }
    wrong = {k: (got[k], v) for k, v in want.items() if abs(got[k] - v) > 1e-5}
    assert not wrong, wrong


def _check_language_model(rng):
    """A stateless `drill_lm` trains; a stateful one is refused by name (Keras' JAX and PyTorch trainers do not
    carry an RNN's state between compiled steps)."""
    import keras

    from keras_labelemb.models import drill_lm

    try:
        drill_lm(20, batch_size=2, bptt=4, units=4, num_layers=1, depth=1)
    except ValueError as error:
        assert "Received: stateful=True" in str(error), error
    else:
        raise AssertionError("a stateful drill_lm must be refused under this backend")
    model = drill_lm(20, bptt=None, units=4, num_layers=1, depth=1, stateful=False)
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=_jit_compile())
    ids = rng.integers(0, 20, size=(4, 5)).astype("int32")
    loss = model.fit(ids[:, :-1], ids[:, 1:], batch_size=2, verbose=0).history["loss"][0]
    assert np.isfinite(loss), loss


def _check_cnle_end_to_end(rng):
    import keras

    from keras_labelemb.models import cnle
    from keras_labelemb.training.cnle_training import cnle_training_model, compile_cnle_training_model

    labels = np.array([[2, 3], [4, 0], [5, 6]], "int32")
    ids = rng.integers(1, 30, size=(8, 7)).astype("int32")
    ids[:, 5:] = 0  # padded words
    ids[1] = 0  # an empty text
    # One label a text, then the end symbol (3) and padding (-1): `label_sequences`' format, written out here
    # because keras_labelemb.text is TensorFlow's floor and this process runs without TensorFlow.
    sequences = np.stack([ids[:, 0] % 3, np.full(8, 3), np.full(8, -1)], axis=1).astype("int32")
    model = cnle(
        30,
        labels,
        max_tokens=7,
        max_steps=3,
        model_dim=8,
        num_heads=2,
        attention_dim=4,
        embedding_dim=6,
    )
    training = compile_cnle_training_model(
        cnle_training_model(model), keras.optimizers.Adam(1e-2), jit_compile=_jit_compile()
    )
    before = [np.array(w) for w in model.get_weights()]
    history = training.fit({"token_ids": ids, "label_sequence": sequences}, sequences, epochs=2, verbose=0).history
    assert np.isfinite(history["loss"]).all(), history
    assert any(not np.array_equal(b, np.array(a)) for b, a in zip(before, model.get_weights())), "fit changed nothing"
    model.compile(jit_compile=_jit_compile())
    decoded = model.predict(ids, verbose=0)
    assert set(np.unique(decoded)) <= {0.0, 1.0}
    from keras_labelemb.tasks import LabelClassifier

    # Both modes compiled: under JAX an eager call decodes op by op (11 s of this check's 33). XLA decoding
    # against eager decoding is tests/test_adaptive_label_decoder.py's, under TensorFlow.
    LabelClassifier.from_model(model).head.output_mode = "sequence"
    model.compile(jit_compile=_jit_compile())
    sequence = model.predict(ids, verbose=0)
    assert sequence.dtype == "int32", sequence.dtype  # label indices, not the multi-hot of before
    from_sequence = np.zeros_like(decoded)  # the labels decoded before the end symbol
    for row, steps in enumerate(sequence):
        for label in steps:
            if label == 3:
                break
            from_sequence[row, label] = 1.0
    np.testing.assert_array_equal(from_sequence, decoded)
    # The task trains it too (teacher forcing in its own step), fed ids, decoding its validation sets.
    task = LabelClassifier.from_model(cnle(30, labels, max_tokens=7, max_steps=3, model_dim=8, num_heads=2))
    task.compile(optimizer=keras.optimizers.Adam(1e-2), jit_compile=_jit_compile())
    targets = np.eye(3, dtype="float32")[ids[:, 0] % 3]
    history = task.fit(ids, targets, validation_data=(ids, targets), epochs=2, verbose=0).history
    assert np.isfinite(history["loss"]).all() and "val_decoded_micro_f1" in history, history
    assert set(np.unique(task.predict(ids))) <= {0.0, 1.0}


def run_checks(group="all"):
    """Runs the checks of `group` (all of them, so one failure does not hide the others); returns the failures."""
    if group not in GROUPS:
        raise ValueError(f"unknown group {group!r}; choose from {GROUPS}")
    _import_library_without_tensorflow()
    import keras

    rng = np.random.default_rng(0)
    checks = []
    if group in ("layers", "all"):
        checks += _layer_cases("layers") + [
            ("gile_han_end_to_end", lambda: _check_gile_han_end_to_end(rng)),
            ("sampled_training", lambda: _check_sampled_training(rng)),
            ("task_fed_ids", lambda: _check_task_fed_ids(rng)),
            ("mixed_precision_training", lambda: _check_mixed_precision_training(rng)),
            ("metrics_against_scikit_learn", lambda: _check_metrics_against_scikit_learn(rng)),
            ("language_model", lambda: _check_language_model(rng)),
        ]
    if group in ("cnle", "all"):
        checks += _layer_cases("cnle") + [("cnle_end_to_end", lambda: _check_cnle_end_to_end(rng))]
    failed = []
    for name, check in checks:
        start = time.perf_counter()
        # Fixed initial weights: with 3-4 relu units, about 3% of random
        # initialisations leave every unit dead, and then no gradient flows.
        keras.utils.set_random_seed(0)
        try:
            check()
        except Exception as error:  # noqa: BLE001 - reported below, the exit code fails the test
            traceback.print_exc()
            failed.append(f"{name}: {type(error).__name__}: {error}"[:300])
            print(f"{name}: FAILED", flush=True)
        else:
            print(f"{name}: ok ({time.perf_counter() - start:.1f} s)", flush=True)
    return failed


def main(group="layers"):
    import keras

    failed = run_checks(group)
    if failed:
        sys.exit(f"FAILED under the {keras.backend.backend()} backend:\n  " + "\n  ".join(failed))
    print(DONE_MARKER, flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
