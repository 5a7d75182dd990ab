"""`run_task_test`: the task's counterpart of `run_layer_test`, one check of a `LabelClassifier` from raw strings."""

import json
import os
import subprocess
import sys
import tempfile

import keras
import numpy as np

from keras_labelemb.layers.adaptive_label_decoder import AdaptiveLabelDecoder
from keras_labelemb.tasks.labels import check_labels

# Served in a separate process, so the check covers what a serving process has: TensorFlow and tensorflow-text.
_SERVE = """
import json, sys
import tensorflow as tf
import tensorflow_text  # noqa: F401
served = tf.saved_model.load(sys.argv[1])
texts = json.loads(sys.argv[2])
outputs = served.serve(tf.constant(texts))
scores = outputs["scores" if "scores" in outputs else "labels"].numpy()  # a decoder serves its decoded sets
names = [n.decode("utf-8") for n in served.label_names[0].numpy()]
result = {"scores": scores.tolist(), "names": names}
if len(sys.argv) > 3 and hasattr(served, "serve_with_labels"):  # labels sent with the request
    sent = served.serve_with_labels(tf.constant(texts), tf.constant(json.loads(sys.argv[3])))
    result["with_labels"] = sent["scores" if "scores" in sent else "labels"].numpy().tolist()
print(json.dumps(result))
"""


def run_task_test(preset, labels, texts, targets, new_labels=None, fresh_process=True, atol=1e-5, **overrides):
    """Checks a preset (or a head author's classifier) the same way for every preset; returns it trained.

    `preset` is a preset name, or a `LabelClassifier` built from layers (a new head's, with an adapted
    preprocessor), which is checked as it is.

    1. `LabelClassifier.from_preset(preset, labels, **overrides)` fits one epoch on raw `texts` and
       `targets` (names per text), with validation data (the thresholds are tuned on it);
    2. `predict` gives finite probabilities `(N, L)` (rows summing to 1 for single-label), `predict_labels`
       names from `labels`, `predict_top_k` pairs in descending order;
    3. `.keras` save and `load_model`: the same scores, labels and thresholds;
    4. `save_to_preset` and `from_preset(folder)`: the same scores;
    5. `export`: the SavedModel, loaded in a fresh Python process (`fresh_process`, default; else in this
       one), serves the same scores (a decoder's decoded sets) from raw strings and names the same labels;
       `serve_with_labels` with the descriptions of `new_labels` gives the scores `set_labels(new_labels)` does;
    6. `set_labels(new_labels)`: a head that reads descriptions scores the new set; a per-label head
       refuses a set of another size with a `ValueError`.
    """
    from keras_labelemb.tasks import LabelClassifier

    if isinstance(preset, LabelClassifier):
        classifier = preset
    else:
        classifier = LabelClassifier.from_preset(preset, labels=labels, **overrides)
    classifier.fit(texts, targets, validation_data=(texts, targets), epochs=1, batch_size=8, verbose=0)
    names = list(labels) if isinstance(labels, dict) else list(labels)
    scores = classifier.predict(texts)
    assert scores.shape == (len(texts), len(names)), scores.shape
    assert np.isfinite(scores).all() and (scores >= 0).all() and (scores <= 1).all()
    if not classifier.multi_label:
        np.testing.assert_allclose(scores.sum(axis=1), 1.0, atol=1e-5)
    predicted = classifier.predict_labels(texts)
    flat = predicted if not classifier.multi_label else [name for row in predicted for name in row]
    assert set(flat) <= set(names), flat
    for row in classifier.predict_top_k(texts, k=2):
        assert [s for _, s in row] == sorted((s for _, s in row), reverse=True)

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "classifier.keras")
        classifier.save(path)
        loaded = keras.saving.load_model(path)
        np.testing.assert_allclose(loaded.predict(texts), scores, atol=atol)
        assert loaded.labels == classifier.labels and loaded.thresholds == classifier.thresholds

        preset_folder = classifier.save_to_preset(os.path.join(folder, "preset"))
        again = LabelClassifier.from_preset(preset_folder, labels=None)
        np.testing.assert_allclose(again.predict(texts), scores, atol=atol)

        served_path = classifier.export(os.path.join(folder, "served"))
        # Labels sent with a request (new ones beside trained ones) score as `set_labels` scores them in memory.
        sent = None
        if new_labels is not None and classifier.head.reads_descriptions:
            sent = list(check_labels(new_labels)[1])
        serve = _serve_in_fresh_process if fresh_process else _serve_here
        served = serve(served_path, texts, sent)
        np.testing.assert_allclose(np.asarray(served["scores"]), scores, atol=atol)
        assert served["names"] == classifier.label_names
        if sent is not None and not isinstance(classifier.head, AdaptiveLabelDecoder):  # decoded sets: step 6
            relabelled = keras.saving.load_model(path)
            relabelled.set_labels(new_labels)
            np.testing.assert_allclose(np.asarray(served["with_labels"]), relabelled.predict(texts), atol=atol)

    if new_labels is not None:
        if classifier.head.reads_descriptions:
            classifier.set_labels(new_labels)
            assert classifier.predict(texts).shape == (len(texts), len(new_labels))
            classifier.set_labels(labels)
        else:
            try:
                classifier.set_labels(new_labels)
            except ValueError:
                pass
            else:
                raise AssertionError("a per-label head accepted a label set of another size")
    return classifier


def _serve_here(path, texts, descriptions=None):
    import tensorflow as tf
    import tensorflow_text  # noqa: F401

    served = tf.saved_model.load(path)
    names = [n.decode("utf-8") for n in served.label_names[0].numpy()]
    outputs = served.serve(tf.constant(texts))
    result = {"scores": outputs["scores" if "scores" in outputs else "labels"].numpy(), "names": names}
    if descriptions is not None and hasattr(served, "serve_with_labels"):
        sent = served.serve_with_labels(tf.constant(texts), tf.constant(descriptions))
        result["with_labels"] = sent["scores" if "scores" in sent else "labels"].numpy()
    return result


def _serve_in_fresh_process(path, texts, descriptions=None):
    environment = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    sent = [] if descriptions is None else [json.dumps(list(descriptions))]
    done = subprocess.run(
        [sys.executable, "-c", _SERVE, path, json.dumps(list(texts)), *sent],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"serving in a fresh process failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
